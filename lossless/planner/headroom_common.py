"""Pieces both headroom models use: pause quanta, cell occupancy, rounding, inputs and result."""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

from lossless.planner.derivation import Derivation, num

# IEEE 802.3 Annex 31B.3.7 peer response time in pause quanta (512 bit times), as tabulated
# by SONiC's headroom plugin (docs/reference/physics.md 2.1 item 5 [SRC]). 800G reuses the 400G
# value; a
# SONiC maintainer says IEEE defines it so (sonic-swss PR 2860 review [2ND], the 802.3df text
# was not checked). It halves the response *time*, so the IEEE model uses 1810 (see
# headroom_ieee.py). Keys are Mb/s.
PAUSE_QUANTA: dict[int, int] = {
    100: 1,
    1_000: 2,
    10_000: 67,
    25_000: 80,
    40_000: 118,
    50_000: 147,
    100_000: 394,
    200_000: 453,
    400_000: 905,
    800_000: 905,
}
PAUSE_QUANTUM_BITS = 512


def ceil_to(value: float, unit: int) -> int:
    """Round up to a whole number of units (1 KiB steps, or buffer cells)."""
    return unit * math.ceil(value / unit)


def worst_case_cell_factor(cell_size: int) -> int:
    """Cells a minimum frame can waste, rounded up as SONiC does
    (docs/reference/sonic.md 1.4 step 6)."""
    if cell_size > 128:
        return math.ceil(cell_size / 64)
    return math.ceil(2 * cell_size / (1 + cell_size))


def small_packet_byte_share(percent: float, lossless_mtu: int) -> float:
    """Share of bytes (%) carried in 64-byte frames when `percent` of frames are small."""
    return 100 * 64 / ((percent * 64 + (100 - percent) * lossless_mtu) / 100)


@dataclass(frozen=True)
class HeadroomInputs:
    """Everything a headroom model needs besides the ASIC constants."""

    speed_mbps: int
    cable_m: int  # whole metres (SONiC takes only whole metres; we round up)
    port_mtu: int
    lanes: int
    gearbox_delay_ns: float
    lossless_mtu: int
    small_packet_percent: int
    shared_headroom_pool: bool


@dataclass(frozen=True)
class HeadroomResult:
    xon: int
    xoff: int
    size: int
    derivation: Derivation
    model_xoff: int = 0  # xoff of the model alone, before any vendor floor (0: same as xoff)
    vendor_floor_xoff: int | None = None  # the published-table floor, where one applies
    vendor_floor_source: str | None = None  # the published row(s) the floor rests on
    fallback: str | None = None  # set when the model had no value for an input and used one


def derive_cell_occupancy(
    d: Derivation, cell_size: int, percent: int, lossless_mtu: int
) -> tuple[int, float]:
    """Record and return the worst-case cell factor w and the cell occupancy factor
    (100 - pb + pb * w) / 100 with pb the byte share of small frames
    (docs/reference/sonic.md 1.4 steps 6-7)."""
    w = worst_case_cell_factor(cell_size)
    d.step(
        "cell_factor",
        "ceil(cell / 64) if cell > 128 else ceil(2 * cell / (1 + cell))",
        f"cell = {cell_size}",
        w,
        "",
    )
    pb = d.step(
        "small_packet_bytes_percent",
        "100 * 64 / ((p * 64 + (100 - p) * m) / 100)",
        f"100 * 64 / (({percent} * 64 + (100 - {percent}) * {lossless_mtu}) / 100)",
        small_packet_byte_share(percent, lossless_mtu),
        "%",
    )
    occupancy = d.step(
        "cell_occupancy",
        "(100 - pb + pb * w) / 100",
        f"(100 - {num(pb)} + {num(pb)} * {w}) / 100",
        (100 - pb + pb * w) / 100,
        "",
    )
    return w, occupancy


def inputs_record(inputs: HeadroomInputs) -> dict[str, object]:
    return dataclasses.asdict(inputs)
