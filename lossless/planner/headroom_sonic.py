"""SONiC's dynamic headroom for NVIDIA Spectrum, byte-exact.

A restatement of sonic-swss cfgmgr/buffer_headroom_mellanox.lua (commit e6b0c5b) as given
in docs/reference/sonic.md section 1.4, step by step, with Lua's double arithmetic.

One departure, flagged wherever it applies: at a speed outside the plugin's pause-quanta
table SONiC falls back to a flat peer response (3.8 KiB), which can give a faster port less
headroom than a slower one (1.6T on Spectrum-6 below 800G). There the plan takes SONiC's
value or the value at the next lower speed of the table, whichever is larger, and says so.
"""

from __future__ import annotations

import dataclasses

from lossless.asics import Asic
from lossless.planner.derivation import Derivation, num
from lossless.planner.headroom_common import (
    PAUSE_QUANTA,
    PAUSE_QUANTUM_BITS,
    HeadroomInputs,
    HeadroomResult,
    ceil_to,
    derive_cell_occupancy,
    inputs_record,
)

SOURCE = (
    "sonic-swss cfgmgr/buffer_headroom_mellanox.lua @ e6b0c5b, "
    "restated in docs/reference/sonic.md 1.4"
)
# m/s in the cable, the plugin's constant (docs/reference/physics.md 1)
SPEED_OF_LIGHT = 198_000_000
KIB = 1024
SMALL_PACKET_EXTRA = 2048  # docs/reference/sonic.md 1.4 step 10


def sonic_mellanox_headroom(inputs: HeadroomInputs, asic: Asic) -> HeadroomResult:
    result = _sonic_exact(inputs, asic)
    if inputs.speed_mbps in PAUSE_QUANTA:
        return result
    lower = [s for s in PAUSE_QUANTA if s < inputs.speed_mbps]
    fallback = (
        f"{inputs.speed_mbps} Mb/s is outside the pause-quanta table: SONiC uses the flat "
        f"peer_response_time ({num(asic.peer_response_time_kib)} KiB)"
    )
    if not lower:
        return dataclasses.replace(result, fallback=fallback)
    floor = _sonic_exact(dataclasses.replace(inputs, speed_mbps=max(lower)), asic)
    d = result.derivation
    fallback += f"; planned no lower than at {max(lower)} Mb/s ({floor.xoff} B xoff)"
    d.notes.append(fallback)
    if floor.xoff <= result.xoff and floor.size <= result.size:
        return dataclasses.replace(result, fallback=fallback)
    xoff = int(
        d.step(
            "xoff",
            f"max(xoff, xoff at {max(lower)} Mb/s)  (never below the next lower speed)",
            f"max({result.xoff}, {floor.xoff})",
            max(result.xoff, floor.xoff),
        )
    )
    size = int(
        d.step(
            "size",
            f"max(size, size at {max(lower)} Mb/s)",
            f"max({result.size}, {floor.size})",
            max(result.size, floor.size),
        )
    )
    return dataclasses.replace(result, xoff=xoff, size=size, fallback=fallback)


def _sonic_exact(inputs: HeadroomInputs, asic: Asic) -> HeadroomResult:
    d = Derivation(model="sonic-mellanox", source=SOURCE)
    d.inputs = inputs_record(inputs)
    cell = d.constant("cell_size", asic.cell_size, asic.source("cell_size"))
    pl_kib = d.constant(
        "pipeline_latency_kib", asic.pipeline_latency_kib, asic.source("pipeline_latency_kib")
    )
    mpd_kib = d.constant(
        "mac_phy_delay_kib", asic.mac_phy_delay_kib, asic.source("mac_phy_delay_kib")
    )
    prt_kib = d.constant(
        "peer_response_time_kib", asic.peer_response_time_kib, asic.source("peer_response_time_kib")
    )
    d.constant("speed_of_light", SPEED_OF_LIGHT, "buffer_headroom_mellanox.lua [SRC]")
    speed, cable, mtu = inputs.speed_mbps, inputs.cable_m, inputs.port_mtu
    m, p = inputs.lossless_mtu, inputs.small_packet_percent
    eight_lanes = inputs.lanes == 8
    shp = inputs.shared_headroom_pool

    quanta = PAUSE_QUANTA.get(speed)
    if quanta is not None:
        d.constant("pause_quanta", quanta, "IEEE 802.3 Annex 31B.3.7 via the plugin's table [SRC]")
        peer = d.step(
            "peer_response",
            "quanta * 512 / 8",
            f"{quanta} * 512 / 8",
            quanta * PAUSE_QUANTUM_BITS / 8,
        )
    else:
        peer = d.step(
            "peer_response",
            "peer_response_time_kib * 1024",
            f"{num(prt_kib)} * 1024",
            prt_kib * KIB,
        )
    cable_bytes = d.step(
        "cable",
        "2 * L * S * 1e9 / speed_of_light / 8000",
        f"2 * {cable} * {speed} * 1e9 / {SPEED_OF_LIGHT} / 8000",
        2 * cable * speed * 1_000_000_000 / SPEED_OF_LIGHT / 8000,
    )
    gearbox = d.step(
        "gearbox",
        "S * gearbox_delay / 8192",
        f"{speed} * {num(inputs.gearbox_delay_ns)} / 8192",
        speed * inputs.gearbox_delay_ns / 8192,
    )
    tile = 0.0
    if asic.bytes_on_tile:
        tile = d.step(
            "bytes_on_tile",
            "S / 1000 * 120 / 8",
            f"{speed} / 1000 * 120 / 8",
            speed / 1000 * 120 / 8,
        )
    pipeline = pl_kib * KIB * (2 if eight_lanes else 1)
    d.step(
        "pipeline_latency",
        "pipeline_latency_kib * 1024" + (" * 2 (8 lanes)" if eight_lanes else ""),
        f"{num(pl_kib)} * 1024" + (" * 2" if eight_lanes else ""),
        pipeline,
    )
    mac_phy = d.step(
        "mac_phy_delay", "mac_phy_delay_kib * 1024", f"{num(mpd_kib)} * 1024", mpd_kib * KIB
    )
    w, occupancy = derive_cell_occupancy(d, cell, p, m)
    in_flight = d.step(
        "in_flight",
        "M + cable + 2 * gearbox + mac_phy + peer + tile",
        f"{mtu} + {num(cable_bytes)} + 2 * {num(gearbox)} + {num(mac_phy)} + {num(peer)} "
        f"+ {num(tile)}",
        mtu + cable_bytes + 2 * gearbox + mac_phy + peer + tile,
    )
    xoff = d.step(
        "xoff",
        "ceil_1KiB(m + D * occupancy)",
        f"ceil_1KiB({m} + {num(in_flight)} * {num(occupancy)})",
        ceil_to(m + in_flight * occupancy, KIB),
    )
    if asic.xoff_compensation_bytes:
        d.constant(
            "xoff_compensation_bytes",
            asic.xoff_compensation_bytes,
            asic.source("xoff_compensation_bytes"),
        )
        xoff = d.step(
            "xoff",
            "xoff + compensation",
            f"{int(xoff)} + {asic.xoff_compensation_bytes}",
            xoff + asic.xoff_compensation_bytes,
        )
    if not shp and p != 100:
        full = ceil_to(m + in_flight * w, KIB)
        if xoff + SMALL_PACKET_EXTRA < full:
            xoff = d.step(
                "xoff",
                "xoff + 2048 (xoff + 2048 < ceil_1KiB(m + D * w))",
                f"{int(xoff)} + 2048 ({int(xoff) + 2048} < {full})",
                xoff + SMALL_PACKET_EXTRA,
            )
    xon = d.step(
        "xon", "ceil_1KiB(pipeline_latency)", f"ceil_1KiB({num(pipeline)})", ceil_to(pipeline, KIB)
    )
    if shp:
        size = d.step(
            "size",
            "ceil_1KiB(xon)  (shared headroom pool holds xoff)",
            f"ceil_1KiB({int(xon)})",
            ceil_to(xon, KIB),
        )
    else:
        extra = mtu if eight_lanes else 0
        size = d.step(
            "size",
            "ceil_1KiB(xoff + xon" + (" + M (8 lanes))" if eight_lanes else ")"),
            f"ceil_1KiB({int(xoff)} + {int(xon)}" + (f" + {mtu})" if eight_lanes else ")"),
            ceil_to(xoff + xon + extra, KIB),
        )
    return HeadroomResult(
        xon=int(xon), xoff=int(xoff), size=int(size), derivation=d, model_xoff=int(xoff)
    )
