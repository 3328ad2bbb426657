"""PFC headroom per lossless priority group: pick the ASIC's model, run it, and hold it to
the vendor's published table where the ASIC has one."""

from __future__ import annotations

from collections.abc import Callable

from lossless.asics import Asic
from lossless.planner.headroom_common import HeadroomInputs, HeadroomResult
from lossless.planner.headroom_floor import apply_vendor_floor
from lossless.planner.headroom_ieee import ieee_headroom
from lossless.planner.headroom_sonic import sonic_mellanox_headroom
from lossless.text.units import whole_metres

MODELS: dict[str, Callable[[HeadroomInputs, Asic], HeadroomResult]] = {
    "sonic-mellanox": sonic_mellanox_headroom,
    "ieee-8021qbb": ieee_headroom,
}


def compute_headroom(inputs: HeadroomInputs, asic: Asic) -> HeadroomResult:
    return apply_vendor_floor(MODELS[asic.headroom_model](inputs, asic), inputs, asic)


def headroom_grid(
    asic: Asic,
    speeds_mbps: list[int],
    cables_m: list[float],
    *,
    port_mtu: int,
    lanes: int | None,
    gearbox_delay_ns: float,
    lossless_mtu: int,
    small_packet_percent: int,
    shared_headroom_pool: bool,
) -> list[tuple[HeadroomInputs, HeadroomResult]]:
    """The headroom at every speed and cable length, in that order (`lossless headroom`, a
    what-if table): lanes default to the ASIC's SerDes at each speed, cables to whole metres."""
    rows = []
    for speed in speeds_mbps:
        for cable in cables_m:
            inputs = HeadroomInputs(
                speed_mbps=speed,
                cable_m=whole_metres(cable),
                port_mtu=port_mtu,
                lanes=lanes or asic.default_lanes(speed),
                gearbox_delay_ns=gearbox_delay_ns,
                lossless_mtu=lossless_mtu,
                small_packet_percent=small_packet_percent,
                shared_headroom_pool=shared_headroom_pool,
            )
            rows.append((inputs, compute_headroom(inputs, asic)))
    return rows
