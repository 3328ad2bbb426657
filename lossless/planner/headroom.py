"""PFC headroom per lossless priority group: pick the ASIC's model, run it, and hold it to
the vendor's published table where the ASIC has one."""

from __future__ import annotations

from collections.abc import Callable

from lossless.asics import Asic
from lossless.planner.headroom_common import HeadroomInputs, HeadroomResult
from lossless.planner.headroom_floor import apply_vendor_floor
from lossless.planner.headroom_ieee import ieee_headroom
from lossless.planner.headroom_sonic import sonic_mellanox_headroom

MODELS: dict[str, Callable[[HeadroomInputs, Asic], HeadroomResult]] = {
    "sonic-mellanox": sonic_mellanox_headroom,
    "ieee-8021qbb": ieee_headroom,
}


def compute_headroom(inputs: HeadroomInputs, asic: Asic) -> HeadroomResult:
    return apply_vendor_floor(MODELS[asic.headroom_model](inputs, asic), inputs, asic)
