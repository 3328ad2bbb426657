"""The published vendor table as a floor: headroom = max(model, table row where one exists).

The rows are SONiC's pg_profile_lookup.ini tables of every SKU of an ASIC (vendor_headroom.csv
in lossless/asics). Where SKUs disagree the highest row counts. How a row is read for the
port's speed and cable, most direct first:

* the rows at the port's speed and at every lower speed (headroom grows with speed, so a
  faster port needs at least as much as a slower one on the same cable);
* never below a row at this cable length or a shorter one (headroom grows with the cable);
* between two published cable lengths, the straight line through them (the tables are
  linear in the cable: cell/84 bytes per round-trip wire byte);
* beyond the longest published cable, the last two points' slope carried on.
"""

from __future__ import annotations

import dataclasses
import math
from collections import defaultdict
from dataclasses import dataclass
from functools import cache

from lossless.asics import Asic, VendorHeadroomRow, vendor_headroom_rows
from lossless.planner.derivation import num
from lossless.planner.headroom_common import HeadroomInputs, HeadroomResult, ceil_to


@dataclass(frozen=True)
class VendorFloor:
    xoff: int  # bytes the planned xoff must not go below
    rule: str  # how the rows were read for this speed and cable
    rows: tuple[VendorHeadroomRow, ...]  # the published rows it rests on

    def source(self) -> str:
        return f"{self.rule}: " + "; ".join(row.cite() for row in self.rows)


def _highest_per_cable(rows: list[VendorHeadroomRow]) -> dict[int, VendorHeadroomRow]:
    points: dict[int, VendorHeadroomRow] = {}
    for row in sorted(rows, key=lambda r: (r.cable_m, r.xoff, r.file)):
        if row.cable_m not in points or row.xoff > points[row.cable_m].xoff:
            points[row.cable_m] = row
    return points


def _floor_at_speed(rows: list[VendorHeadroomRow], cable_m: int, where: str) -> VendorFloor:
    points = _highest_per_cable(rows)
    cables = sorted(points)
    shorter = [c for c in cables if c <= cable_m] or cables[:1]
    best = max((points[c] for c in shorter), key=lambda r: r.xoff)
    floor = VendorFloor(best.xoff, f"highest row at {best.cable_m} m or shorter{where}", (best,))
    longer = [c for c in cables if c > cable_m]
    if longer and cable_m > cables[0]:
        low, high = points[shorter[-1]], points[longer[0]]
        line = low.xoff + (high.xoff - low.xoff) * (cable_m - low.cable_m) / (
            high.cable_m - low.cable_m
        )
        rule = f"straight line between {low.cable_m} m and {high.cable_m} m{where}"
        candidate = VendorFloor(math.ceil(line), rule, (low, high))
    elif not longer and len(cables) >= 2 and cable_m > cables[-1]:
        low, high = points[cables[-2]], points[cables[-1]]
        slope = max(0.0, (high.xoff - low.xoff) / (high.cable_m - low.cable_m))
        rule = (
            f"{high.cable_m} m row plus the {low.cable_m}-{high.cable_m} m slope "
            f"({num(slope)} B/m){where}"
        )
        candidate = VendorFloor(
            math.ceil(high.xoff + slope * (cable_m - high.cable_m)), rule, (low, high)
        )
    else:
        return floor
    return candidate if candidate.xoff > floor.xoff else floor


@cache
def _rows_by_table_and_speed() -> dict[str, dict[int, list[VendorHeadroomRow]]]:
    tables: dict[str, dict[int, list[VendorHeadroomRow]]] = defaultdict(lambda: defaultdict(list))
    for row in vendor_headroom_rows():
        tables[row.table][row.speed_mbps].append(row)
    return tables


@cache
def vendor_floor(table: str, speed_mbps: int, cable_m: int) -> VendorFloor | None:
    """The published requirement for this speed and cable: the highest of the floors read
    at this speed and at every lower speed of the tables (a faster port needs at least as
    much headroom as a slower one on the same cable)."""
    by_speed = _rows_by_table_and_speed().get(table, {})
    floors = [
        _floor_at_speed(
            by_speed[speed],
            cable_m,
            "" if speed == speed_mbps else f", {speed // 1000}G rows",
        )
        for speed in sorted((s for s in by_speed if s <= speed_mbps), reverse=True)
    ]  # from the port's own speed down, so a tie names the port's speed
    return max(floors, key=lambda f: f.xoff, default=None)


def apply_vendor_floor(
    result: HeadroomResult, inputs: HeadroomInputs, asic: Asic
) -> HeadroomResult:
    """The model's result, its xoff raised to the vendor table where that is higher."""
    if asic.vendor_headroom_table is None:
        return result
    floor = vendor_floor(asic.vendor_headroom_table, inputs.speed_mbps, inputs.cable_m)
    d = result.derivation
    if floor is None:
        d.notes.append(
            f"no published {asic.vendor_headroom_table} table row at or below "
            f"{inputs.speed_mbps // 1000}G: the model stands alone"
        )
        return dataclasses.replace(result, model_xoff=result.xoff)
    d.constant("vendor_floor_xoff", floor.xoff, floor.source())
    cell = asic.cell_size
    xoff = int(
        d.step(
            "xoff",
            "max(model xoff, ceil_cell(vendor table floor))",
            f"max({result.xoff}, ceil_{cell}({floor.xoff}))",
            max(result.xoff, ceil_to(floor.xoff, cell)),
        )
    )
    if xoff == result.xoff:
        return dataclasses.replace(
            result,
            model_xoff=result.xoff,
            vendor_floor_xoff=floor.xoff,
            vendor_floor_source=floor.source(),
        )
    # The reserved size holds xoff unless a shared headroom pool does (then size = xon).
    size = result.size
    if not inputs.shared_headroom_pool:
        size = int(
            d.step(
                "size",
                "model size + (xoff - model xoff)",
                f"{result.size} + ({xoff} - {result.xoff})",
                result.size + xoff - result.xoff,
            )
        )
    return dataclasses.replace(
        result,
        xoff=xoff,
        size=size,
        model_xoff=result.xoff,
        vendor_floor_xoff=floor.xoff,
        vendor_floor_source=floor.source(),
    )
