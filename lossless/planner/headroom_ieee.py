"""IEEE 802.1Qbb headroom for ASICs without a published vendor formula (Broadcom, Cisco).

The delay components of docs/reference/physics.md 2.1 (IEEE 802.1Qbb Annex N as decomposed by
Cisco Press,
ch. 7), each in bit times at the port speed, give the wire bytes that can still arrive after
the receiver decides to pause; the cell occupancy turns them into buffer bytes:

    W    = [ (8*M + 160) + 672 + 2*D_intf + 2*D_gearbox + 2*L*t_m*C + D_resp ] / 8
                                              wire bytes that arrive meanwhile, M = port MTU
    w    = max over frame sizes s of ceil(s / cell) * cell / (s + 20)
         = cell / 84 for cells of 84 B and more: every 64-byte frame and its 20 bytes of
           preamble and gap take a whole cell (254 / 84 = 3.02 on Tomahawk 3/4/5)
    pb   = 100 * 64 / ((p * 64 + (100 - p) * m) / 100)   the byte share of small frames
           when p % of the frames are 64 B and the rest lossless-MTU (m) frames
    occ  = (100 - pb + pb * w) / 100
    xoff = ceil_cell(W * occ + ceil_cell(M))   the frame the sender has started, stored whole
    xon  = ceil_cell(max(2*M, pipeline_latency))
    size = xoff + xon                     (shared headroom pool: size = xon)

The small-packet share is SONiC's own (docs/reference/sonic.md 1.4 steps 6-7, sonic-swss
cfgmgr/buffer_headroom_mellanox.lua, the same inventory inputs small_packet_percent and
lossless_mtu, default 50 % and 1024 B, SONiC's LOSSLESS_TRAFFIC_PATTERN): only that share of
the bytes in flight is small frames wasting cell space; the rest fill their cells. p = 100
gives the worst case, w alone (issue 26's model). w is the exact waste of a 64-byte frame on
the wire rather than SONiC's ceil(cell / 64), which counts no gap or preamble and rounds up
(4 instead of 3.02 for 254-byte cells). Some published tables grow by w per metre of cable
(catalogue.yaml, cell_size sources), so by more than this occupancy: compute_headroom never
lets xoff fall below them (headroom_floor.py), and beyond their longest cable carries their
slope on.

xon is the resume gap: it must hold what the pipeline still delivers after XON is decided
(the ASIC's pipeline latency, SONiC's xon) and at least two largest frames.

Choices that make it conservative, all documented in explain output:
* the sender's last frame is a full port-MTU frame (the switch cannot enforce the RoCE MTU);
* the cable delay is 5.13 ns/m, single-mode fibre at 65 % of c (Cisco white paper c11-542809),
  slower than the 5.05 ns/m of SONiC's plugin;
* interface (PHY/MAC/FEC) delay: the Cisco Press values at 10/25/40/100G, taken as an
  envelope: a speed gets the longest published delay *time* of any listed speed up to it.
  Above 100G the 100G time (1228.8 ns per end) is held [UNV]. IEEE 802.3 bounds the
  sublayer delays per speed (802.3bs Clause 116.4 with the Clause 119 PCS, Clause 120 PMA
  and RS-FEC delay constraints for 200/400GbE; 802.3cd for 50/100/200G PAM4; 802.3ck for
  100G-per-lane; 802.3df Clause 169.4 for 800GbE; Clause 91 RS-FEC at 100G), but the
  tables were not found in any source we could read (issue 26 searched documentation,
  web pages, issues and code for the Clause 119/120/91 "delay constraints" in bit times and
  pause quanta: only the 1000BASE-H PHY's 6000 bit times turned up). Until they are read,
  the 100G time stays: it is what puts Tomahawk 3/4/5 and Trident 4 at 2-3x the published
  tables at 400G and 800G (docs/headroom.md), and a shorter delay without a source could
  plan below a real link's need;
* peer response: IEEE 802.3 Annex 31B pause quanta; a speed between table entries takes the
  quanta of the next listed speed above it; above 400G the 400G response *time* is held
  (905 quanta at 400G -> 1810 at 800G, 3620 at 1.6T). SONiC's table has 905 at 800G, which
  a SONiC maintainer attributes to IEEE (sonic-swss PR 2860 [2ND], 802.3df text not seen);
  1810 is the larger, so the safer, of the two.
"""

from __future__ import annotations

import math
from functools import cache

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
    "IEEE 802.1Qbb delay model, docs/reference/physics.md 2.1 (Cisco Press ch. 7 decomposition), "
    "cell occupancy of SONiC's small-packet share (docs/headroom.md)"
)
# 96 bit times inter-frame gap + 64 of preamble/SFD (IEEE 802.3, docs/reference/physics.md 2.1
# [2ND])
FRAME_OVERHEAD_BITS = 160
WIRE_OVERHEAD_BYTES = FRAME_OVERHEAD_BITS // 8  # the same 20 bytes per frame [DERIVED]
MIN_FRAME_BYTES = 64  # IEEE 802.3 minimum frame [SRC]
# 64-byte PFC frame plus gap and preamble (docs/reference/physics.md 2.1 [2ND])
PFC_FRAME_BITS = 672
# single-mode fibre, 65 % of c: 513 ns per 100 m (Cisco c11-542809, docs/reference/physics.md 1
# [2ND])
CABLE_NS_PER_M = 5.13
# PHY/MAC/FEC latency per end, bit times (Cisco Press ch. 7 [2ND]).
INTERFACE_DELAY_BITS: dict[int, int] = {10_000: 8192, 25_000: 6144, 40_000: 24576, 100_000: 122880}
# Annex 31B as tabulated by SONiC up to 400G [SRC]; its 800G entry is discussed above.
IEEE_PAUSE_QUANTA = {speed: q for speed, q in PAUSE_QUANTA.items() if speed <= 400_000}


def interface_delay_bits(speed_mbps: int) -> tuple[float, str]:
    """Interface delay at this speed (bit times), and how it was obtained.

    The delay *time* is the longest published time of any listed speed up to this one, so
    a speed never gets a shorter interface delay than a slower standard: this envelope
    lifts the printed 25G value, which docs/reference/physics.md 2.1 notes "looks low against 10G".
    """
    times = {s: bits / (s / 1000) for s, bits in INTERFACE_DELAY_BITS.items()}  # ns
    eligible = [s for s in times if s <= speed_mbps] or [min(times)]
    reference = max(eligible, key=lambda s: (times[s], s))
    bits = times[reference] * speed_mbps / 1000
    if reference == speed_mbps:
        return bits, "Cisco Press ch. 7 value [2ND]"
    above = (
        "; IEEE 802.3bs/cd/ck/df sublayer delay maxima (Clauses 116.4, 119, 120, 169.4) "
        "not found to cite [UNV]"
        if speed_mbps > max(INTERFACE_DELAY_BITS)
        else ""
    )
    return (
        bits,
        f"the {reference // 1000}G delay time ({num(times[reference])} ns, the longest "
        f"published up to this speed) at {speed_mbps // 1000 or speed_mbps}"
        f"{'G' if speed_mbps >= 1000 else 'M'} [DERIVED]{above}",
    )


def pause_quanta(speed_mbps: int) -> tuple[float, str]:
    if speed_mbps in IEEE_PAUSE_QUANTA:
        source = "IEEE 802.3 Annex 31B.3.7 (docs/reference/physics.md 2.1) [SRC]"
        return IEEE_PAUSE_QUANTA[speed_mbps], source
    top = max(IEEE_PAUSE_QUANTA)
    if speed_mbps > top:
        return (
            IEEE_PAUSE_QUANTA[top] * speed_mbps / top,
            f"the {top // 1000}G response time held: {IEEE_PAUSE_QUANTA[top]} x "
            f"{num(speed_mbps / top)} [DERIVED]; SONiC uses 905 at 800G, which its "
            "maintainers say IEEE gives 400G and 800G alike (sonic-swss PR 2860) [2ND]: "
            "the larger is kept",
        )
    reference = min(s for s in IEEE_PAUSE_QUANTA if s > speed_mbps)
    return (
        IEEE_PAUSE_QUANTA[reference],
        f"not in the Annex 31B table: the {reference} Mb/s value [DERIVED]",
    )


@cache
def worst_case_occupancy(cell_size: int, mtu: int) -> float:
    """Buffer bytes per wire byte when every frame is the size that wastes the most cell space.

    A frame of s bytes plus 20 bytes of gap and preamble on the wire fills ceil(s/cell)
    cells. The ratio is largest for the smallest frame (s = 64) or for a frame one byte
    longer than a whole cell (s = cell + 1); both are checked."""
    sizes = [MIN_FRAME_BYTES] + [cell_size + 1] * (MIN_FRAME_BYTES <= cell_size + 1 <= mtu)
    return max(math.ceil(s / cell_size) * cell_size / (s + WIRE_OVERHEAD_BYTES) for s in sizes)


def ieee_headroom(inputs: HeadroomInputs, asic: Asic) -> HeadroomResult:
    d = Derivation(model="ieee-8021qbb", source=SOURCE)
    d.inputs = inputs_record(inputs)
    speed, cable, mtu = inputs.speed_mbps, inputs.cable_m, inputs.port_mtu
    cell = d.constant("cell_size", asic.cell_size, asic.source("cell_size"))
    d.constant("cable_ns_per_m", CABLE_NS_PER_M, "Cisco white paper c11-542809, SMF at 0.65c [2ND]")
    intf, intf_source = interface_delay_bits(speed)
    d.constant("interface_delay_bits", intf, intf_source)
    quanta, quanta_source = pause_quanta(speed)
    d.constant("pause_quanta", quanta, quanta_source)

    frame = d.step(
        "receiver_frame", "8 * M + 160", f"8 * {mtu} + 160", 8 * mtu + FRAME_OVERHEAD_BITS, "bit"
    )
    d.step("pfc_frame", "672", "672", PFC_FRAME_BITS, "bit")
    d.step("interface", "2 * D_intf", f"2 * {num(intf)}", 2 * intf, "bit")
    gearbox = d.step(
        "gearbox",
        "2 * gearbox_delay * C",
        f"2 * {num(inputs.gearbox_delay_ns)}e-9 * {speed}e6",
        2 * inputs.gearbox_delay_ns * speed / 1000,
        "bit",
    )
    cable_bits = d.step(
        "cable",
        "2 * L * t_m * C",
        f"2 * {cable} * {CABLE_NS_PER_M}e-9 * {speed}e6",
        2 * cable * CABLE_NS_PER_M * speed / 1000,
        "bit",
    )
    response = d.step(
        "peer_response",
        "quanta * 512",
        f"{num(quanta)} * 512",
        quanta * PAUSE_QUANTUM_BITS,
        "bit",
    )
    total_bits = frame + PFC_FRAME_BITS + 2 * intf + gearbox + cable_bits + response
    in_flight = d.step(
        "in_flight",
        "wire bytes: sum of the above / 8",
        f"({num(frame)} + 672 + {num(2 * intf)} + {num(gearbox)} + {num(cable_bits)} + "
        f"{num(response)}) / 8",
        total_bits / 8,
    )
    _, occupancy = derive_cell_occupancy(d, cell, inputs.small_packet_percent, inputs.lossless_mtu)
    # The frame the sender has started must finish: one largest frame, stored whole.
    sender = d.step("sender_frame", "ceil_cell(M)", f"ceil_{cell}({mtu})", ceil_to(mtu, cell))
    xoff = d.step(
        "xoff",
        "ceil_cell(W * occupancy + sender_frame)",
        f"ceil_{cell}({num(in_flight)} * {num(occupancy)} + {int(sender)})",
        ceil_to(in_flight * occupancy + sender, cell),
    )
    pipeline = asic.pipeline_latency_kib * 1024
    if pipeline:
        d.constant(
            "pipeline_latency_kib", asic.pipeline_latency_kib, asic.source("pipeline_latency_kib")
        )
    xon = d.step(
        "xon",
        "ceil_cell(max(2 * M, pipeline_latency))",
        f"ceil_{cell}(max(2 * {mtu}, {num(pipeline)}))",
        ceil_to(max(2 * mtu, pipeline), cell),
    )
    if inputs.shared_headroom_pool:
        size = d.step("size", "xon  (shared headroom pool holds xoff)", f"{int(xon)}", xon)
    else:
        size = d.step("size", "xoff + xon", f"{int(xoff)} + {int(xon)}", xoff + xon)
    return HeadroomResult(
        xon=int(xon), xoff=int(xoff), size=int(size), derivation=d, model_xoff=int(xoff)
    )
