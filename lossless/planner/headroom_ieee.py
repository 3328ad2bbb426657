"""IEEE 802.1Qbb headroom for ASICs without a published vendor formula (Broadcom, Cisco).

The delay components of docs/reference/physics.md 2.1 (IEEE 802.1Qbb Annex N as decomposed
by Cisco Press, ch. 7), each in bit times at the port speed, then inflated by the same
cell-occupancy factor SONiC uses and rounded up to whole buffer cells:

    H = [ (8*MTU_port + 160) + 672 + 2*D_intf + 2*D_gearbox + 2*L*t_m*C + D_resp
          + (8*MTU_port + 160) ] / 8
    xoff = ceil_cell(H * occupancy)
    xon  = ceil_cell(max(2*MTU_port, pipeline_latency))
    size = xoff + xon                     (shared headroom pool: size = xon)

xon is the resume gap: it must hold what the pipeline still delivers after XON is decided
(the ASIC's pipeline latency, SONiC's xon) and at least two largest frames.

Choices that make it conservative, all documented in explain output:
* the sender's last frame is a full port-MTU frame (the switch cannot enforce the RoCE MTU);
* the cable delay is 5.13 ns/m, single-mode fibre at 65 % of c (Cisco white paper c11-542809),
  slower than the 5.05 ns/m of SONiC's plugin;
* interface (PHY/MAC/FEC) delay: the Cisco Press values at 10/25/40/100G, taken as an
  envelope: a speed gets the longest published delay *time* of any listed speed up to it
  (above 100G: the 100G time; below 10G: the 10G time);
* peer response: IEEE 802.3 Annex 31B pause quanta; a speed missing from the table takes
  the quanta of the next listed speed above it.
"""

from __future__ import annotations

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
    "IEEE 802.1Qbb delay model, docs/reference/physics.md 2.1 (Cisco Press ch. 7 decomposition)"
)
FRAME_OVERHEAD_BITS = 160  # 96 bit times inter-frame gap + 64 preamble/SFD
PFC_FRAME_BITS = 672  # 64-byte PFC frame plus gap and preamble
CABLE_NS_PER_M = 5.13  # single-mode fibre, 65 % of c: 513 ns per 100 m (Cisco c11-542809)
# PHY/MAC/FEC latency per end, bit times (Cisco Press ch. 7 [2ND]).
INTERFACE_DELAY_BITS: dict[int, int] = {10_000: 8192, 25_000: 6144, 40_000: 24576, 100_000: 122880}


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
    return (
        bits,
        f"the {reference // 1000}G delay time ({num(times[reference])} ns, the longest "
        f"published up to this speed) at {speed_mbps // 1000 or speed_mbps}"
        f"{'G' if speed_mbps >= 1000 else 'M'} [DERIVED]",
    )


def pause_quanta(speed_mbps: int) -> tuple[int, str]:
    if speed_mbps in PAUSE_QUANTA:
        source = "IEEE 802.3 Annex 31B.3.7 (docs/reference/physics.md 2.1) [SRC]"
        return PAUSE_QUANTA[speed_mbps], source
    above = [s for s in sorted(PAUSE_QUANTA) if s > speed_mbps]
    reference = above[0] if above else max(PAUSE_QUANTA)
    return (
        PAUSE_QUANTA[reference],
        f"not in the Annex 31B table: the {reference} Mb/s value [DERIVED]",
    )


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
        "peer_response", "quanta * 512", f"{quanta} * 512", quanta * PAUSE_QUANTUM_BITS, "bit"
    )
    d.step("sender_frame", "8 * M + 160", f"8 * {mtu} + 160", frame, "bit")
    total_bits = 2 * frame + PFC_FRAME_BITS + 2 * intf + gearbox + cable_bits + response
    in_flight = d.step(
        "in_flight",
        "sum of the above / 8",
        f"({num(frame)} + 672 + {num(2 * intf)} + {num(gearbox)} + {num(cable_bits)} + "
        f"{num(response)} + {num(frame)}) / 8",
        total_bits / 8,
    )
    _, occupancy = derive_cell_occupancy(d, cell, inputs.small_packet_percent, inputs.lossless_mtu)
    xoff = d.step(
        "xoff",
        "ceil_cell(H * occupancy)",
        f"ceil_{cell}({num(in_flight)} * {num(occupancy)})",
        ceil_to(in_flight * occupancy, cell),
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
    return HeadroomResult(xon=int(xon), xoff=int(xoff), size=int(size), derivation=d)
