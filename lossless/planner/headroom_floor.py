"""The published vendor table as a floor: headroom = max(model, table row where one exists).

The rows are SONiC's pg_profile_lookup.ini tables of every SKU of an ASIC (vendor_headroom.csv
in lossless/asics). Three figures of a row are floors (issue 26: "never below the vendor's
table, size included"):

* xoff, the headroom above the pause point;
* size, a Broadcom PG's guaranteed minimum (the older Celestica form's size - xoff): not
  the plan's size (its reserved headroom) but what a SONiC Broadcom profile states as
  `size`, which lossless/vendors/sonic/platform.py broadcom_pg_minimum floors with it;
* the resume gap: the row's xon_offset (every Broadcom row has one; a row without it would
  use its xon). That is the plan's xon in Broadcom form
  (lossless/vendors/sonic/platform.py headroom_from_profile).

Where SKUs disagree the highest row counts. How the rows are read for the port's speed and
cable, most direct first (the same for each figure):

* the rows at the port's speed; where no table publishes that speed, the rows of every lower
  speed (headroom grows with speed, so a faster port needs at least as much as a slower one
  on the same cable). Where a speed is published, its rows are the vendors' word for it: a
  slower speed's rows are not carried up (issue 39: Tomahawk 5's NH-4010 publishes a flat
  612,140 B for its 2x25G ports and no 40G row; carried up, 40G planned 5.7x the highest
  40G row);
* never below a row at this cable length or a shorter one (headroom grows with the cable);
* between two published cable lengths, the straight line through them, rounded up (the
  tables are linear in the cable: cell/84 bytes per round-trip wire byte);
* beyond the longest published cable, the last two points' slope carried on.
"""

from __future__ import annotations

import csv
import dataclasses
import math
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

from lossless.asics import VENDOR_HEADROOM_FILE, Asic, VendorHeadroomRow, vendor_headroom_rows
from lossless.planner.derivation import Derivation, num
from lossless.planner.headroom_common import HeadroomInputs, HeadroomResult, ceil_to

FIELDS = ("xoff", "xon")  # the plan's figures the table floors (size: broadcom_pg_minimum)


@cache
def _xon_offsets() -> dict[tuple[str, int, int], int]:
    """(file, speed, cable) -> the row's xon_offset, where the table has that column."""
    with VENDOR_HEADROOM_FILE.open(newline="") as handle:
        return {
            (row["file"], int(row["speed_mbps"]), int(row["cable_m"])): int(row["xon_offset"])
            for row in csv.DictReader(handle)
            if row["xon_offset"]
        }


def published_gap(row: VendorHeadroomRow) -> int:
    """The resume gap a row publishes: its xon_offset, or its xon where it has none."""
    return _xon_offsets().get((row.file, row.speed_mbps, row.cable_m), row.xon)


def guaranteed_minimum(row: VendorHeadroomRow) -> int:
    """A row's guaranteed minimum: its `size`, except in the older table form whose size
    also holds the headroom (Celestica DS3000/Silverstone: size 56,368 = xoff 55,120 +
    1,248), where it is size - xoff."""
    return row.size - row.xoff if row.size >= row.xoff else row.size


FIELD_VALUE: dict[str, Callable[[VendorHeadroomRow], int]] = {
    "xoff": lambda row: row.xoff,
    "size": guaranteed_minimum,
    "xon": published_gap,
}
FIELD_LABEL = {"xoff": "xoff", "size": "size", "xon": "xon_offset"}


def cite(row: VendorHeadroomRow, field: str) -> str:
    return (
        f"{row.speed_mbps // 1000}G {row.cable_m}m {FIELD_LABEL[field]} "
        f"{FIELD_VALUE[field](row)} in sonic-net/sonic-buildimage {row.file} @ "
        f"{row.commit[:7]} [SRC]"
    )


@dataclass(frozen=True)
class VendorFloor:
    field: str  # "xoff", "size" or "xon" (the published resume gap, xon_offset)
    value: int  # bytes the planned figure must not go below
    rule: str  # how the rows were read for this speed and cable
    rows: tuple[VendorHeadroomRow, ...]  # the published rows it rests on

    @property
    def xoff(self) -> int:
        """The floor's bytes (kept from when the floor was xoff only)."""
        return self.value

    def source(self) -> str:
        return f"{self.rule}: " + "; ".join(cite(row, self.field) for row in self.rows)


def _highest_per_cable(rows: list[VendorHeadroomRow], field: str) -> dict[int, VendorHeadroomRow]:
    value = FIELD_VALUE[field]
    points: dict[int, VendorHeadroomRow] = {}
    for row in sorted(rows, key=lambda r: (r.cable_m, value(r), r.file)):
        if row.cable_m not in points or value(row) > value(points[row.cable_m]):
            points[row.cable_m] = row
    return points


def _floor_at_speed(
    rows: list[VendorHeadroomRow], cable_m: int, where: str, field: str
) -> VendorFloor:
    value = FIELD_VALUE[field]
    points = _highest_per_cable(rows, field)
    cables = sorted(points)
    shorter = [c for c in cables if c <= cable_m] or cables[:1]
    best = max((points[c] for c in shorter), key=value)
    floor = VendorFloor(
        field, value(best), f"highest row at {best.cable_m} m or shorter{where}", (best,)
    )
    longer = [c for c in cables if c > cable_m]
    if longer and cable_m > cables[0]:
        low, high = points[shorter[-1]], points[longer[0]]
        line = value(low) + (value(high) - value(low)) * (cable_m - low.cable_m) / (
            high.cable_m - low.cable_m
        )
        rule = f"straight line between {low.cable_m} m and {high.cable_m} m{where}"
        candidate = VendorFloor(field, math.ceil(line), rule, (low, high))
    elif not longer and len(cables) >= 2 and cable_m > cables[-1]:
        low, high = points[cables[-2]], points[cables[-1]]
        slope = max(0.0, (value(high) - value(low)) / (high.cable_m - low.cable_m))
        rule = (
            f"{high.cable_m} m row plus the {low.cable_m}-{high.cable_m} m slope "
            f"({num(slope)} B/m){where}"
        )
        candidate = VendorFloor(
            field, math.ceil(value(high) + slope * (cable_m - high.cable_m)), rule, (low, high)
        )
    else:
        return floor
    return candidate if candidate.value > floor.value else floor


@cache
def _rows_by_table_and_speed() -> dict[str, dict[int, list[VendorHeadroomRow]]]:
    tables: dict[str, dict[int, list[VendorHeadroomRow]]] = defaultdict(lambda: defaultdict(list))
    for row in vendor_headroom_rows():
        tables[row.table][row.speed_mbps].append(row)
    return tables


@cache
def vendor_floor(
    table: str, speed_mbps: int, cable_m: int, field: str = "xoff"
) -> VendorFloor | None:
    """The published requirement on one figure (xoff, size or xon) for this speed and cable:
    the floor read at this speed where the tables publish it, else the highest of the floors
    read at every lower speed (a faster port needs at least as much headroom as a slower one
    on the same cable)."""
    if field not in FIELD_VALUE:
        raise ValueError(f"no vendor floor for {field!r}: one of {', '.join(FIELD_VALUE)}")
    by_speed = _rows_by_table_and_speed().get(table, {})
    if speed_mbps in by_speed:
        return _floor_at_speed(by_speed[speed_mbps], cable_m, "", field)
    floors = [
        _floor_at_speed(
            by_speed[speed],
            cable_m,
            "" if speed == speed_mbps else f", {speed // 1000}G rows",
            field,
        )
        for speed in sorted((s for s in by_speed if s < speed_mbps), reverse=True)
    ]  # from the port's speed down, so a tie names the fastest
    return max(floors, key=lambda f: f.value, default=None)


def _raise(d: Derivation, name: str, planned: int, floor: VendorFloor, cell: int) -> int:
    """max(planned, the floor in whole cells), recorded as a step when the floor is higher."""
    floored = ceil_to(floor.value, cell)
    if floored <= planned:
        return planned
    return int(
        d.step(
            name,
            f"max({name}, ceil_cell(vendor table {FIELD_LABEL[floor.field]}))",
            f"max({planned}, ceil_{cell}({floor.value}))",
            floored,
        )
    )


def apply_vendor_floor(
    result: HeadroomResult, inputs: HeadroomInputs, asic: Asic
) -> HeadroomResult:
    """The model's result with xoff and xon (the resume gap, Broadcom's xon_offset) each
    raised to the vendor table where that is higher; size keeps holding xon (and xoff,
    without a shared headroom pool)."""
    table = asic.vendor_headroom_table
    if table is None:
        return result
    floors = {f: vendor_floor(table, inputs.speed_mbps, inputs.cable_m, f) for f in FIELDS}
    d = result.derivation
    xoff_floor = floors["xoff"]
    if xoff_floor is None:
        d.notes.append(
            f"no published {table} table row at or below "
            f"{inputs.speed_mbps // 1000}G: the model stands alone"
        )
        return dataclasses.replace(result, model_xoff=result.xoff)
    cell = asic.cell_size
    d.constant("vendor_floor_xoff", xoff_floor.value, xoff_floor.source())
    xoff = int(
        d.step(
            "xoff",
            "max(model xoff, ceil_cell(vendor table floor))",
            f"max({result.xoff}, ceil_{cell}({xoff_floor.value}))",
            max(result.xoff, ceil_to(xoff_floor.value, cell)),
        )
    )
    xon_floor = floors["xon"]
    assert xon_floor is not None  # the same rows as xoff's
    xon = result.xon
    if ceil_to(xon_floor.value, cell) > xon:
        d.constant("vendor_floor_xon_offset", xon_floor.value, xon_floor.source())
        xon = _raise(d, "xon", xon, xon_floor, cell)
    # The reserved size holds xon, and xoff unless a shared headroom pool does. (The vendor's
    # `size`, a Broadcom PG's guaranteed minimum, is not the plan's size: it floors what the
    # SONiC profile states, vendors/sonic/platform.py broadcom_pg_minimum.)
    size = result.size + (xon - result.xon)
    if not inputs.shared_headroom_pool:
        size += xoff - result.xoff
    if size != result.size:
        held = "xon" if inputs.shared_headroom_pool else "xon + xoff"
        size = int(
            d.step(
                "size",
                f"model size + the floors' raise of {held}",
                f"{result.size} + {size - result.size}",
                size,
            )
        )
    return dataclasses.replace(
        result,
        xon=xon,
        xoff=xoff,
        size=size,
        model_xoff=result.xoff,
        vendor_floor_xoff=xoff_floor.value,
        vendor_floor_source=xoff_floor.source(),
    )
