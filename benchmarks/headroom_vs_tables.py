#!/usr/bin/env python3
"""Planned headroom against every published Broadcom row (issue 26).

Run by hand from the repository root: python3 benchmarks/headroom_vs_tables.py [--markdown]

For each row of tests/data/vendor_headroom.csv (SONiC pg_profile_lookup.ini of Tomahawk 1-5
and Trident 2-4 SKUs at sonic-buildimage 086b03b) the plan is computed for the row's ASIC,
speed and cable in the SKU tables' setting (SONiC's default port MTU 9100, the ASIC's default
lanes, no gearbox, independent headroom unless the catalogue says the ASIC has a shared
headroom pool). Per family it prints the published rows, how many rows the plan is below
(xoff; xon against the row's xon_offset, or xon where the row has no xon_offset: the resume gap
in the plan's terms, lossless/vendors/sonic/platform.py headroom_from_profile; and the size a
SONiC Broadcom profile states, broadcom_pg_minimum, against the row's guaranteed minimum), and
the median and largest planned/published ratio of xoff and of size, per row.

"model" columns are the IEEE 802.1Qbb model alone (headroom_ieee.py), before the vendor
floor (headroom_floor.py).
"""

from __future__ import annotations

import csv
import statistics
import sys
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from lossless.asics import catalogue  # noqa: E402
from lossless.planner.headroom import compute_headroom  # noqa: E402
from lossless.planner.headroom_common import HeadroomInputs  # noqa: E402
from lossless.planner.headroom_ieee import ieee_headroom  # noqa: E402
from lossless.vendors.sonic.platform import broadcom_pg_minimum  # noqa: E402

DATA = REPO / "tests" / "data" / "vendor_headroom.csv"


def rows() -> list[dict[str, str]]:
    with DATA.open() as handle:
        return list(csv.DictReader(handle))


def inputs(asic: str, speed: int, cable: int) -> HeadroomInputs:
    """The SKU tables' setting: SONiC's default port MTU 9100, the catalogue's buffer mode."""
    model = catalogue()[asic]
    return HeadroomInputs(
        speed, cable, 9100, model.default_lanes(speed), 0, 1024, 50, model.shared_headroom_pool
    )


def published_gap(row: dict[str, str]) -> int:
    """The resume gap of a row in the plan's terms: xon_offset, or xon where not given."""
    return int(row["xon_offset"] or row["xon"])


@dataclass(frozen=True)
class FamilyFigures:
    asic: str
    rows: int
    below_xoff: int
    below_size: int
    below_xon: int
    median_xoff: float
    max_xoff: float
    median_size: float
    max_size: float
    model_median_xoff: float
    model_below_xoff: int


def guaranteed_minimum(row: dict[str, str]) -> int:
    """A row's size, or size - xoff in the older form whose size holds the headroom too."""
    size, xoff = int(row["size"]), int(row["xoff"])
    return size - xoff if size >= xoff else size


def measure(asic: str) -> FamilyFigures:
    model = catalogue()[asic]
    mine = [r for r in rows() if r["asic"] == asic]
    planned, alone = [], []
    for r in mine:
        args = (asic, int(r["speed_mbps"]), int(r["cable_m"]))
        planned.append(compute_headroom(inputs(*args), model))
        alone.append(ieee_headroom(inputs(*args), model))
    xoff = [p.xoff / int(r["xoff"]) for p, r in zip(planned, mine, strict=True)]
    # size: what a SONiC Broadcom profile states (the guaranteed minimum) against the row's
    size = [
        broadcom_pg_minimum(asic, 9100, int(r["speed_mbps"]), int(r["cable_m"]))
        / guaranteed_minimum(r)
        for r in mine
    ]
    model_xoff = [a.xoff / int(r["xoff"]) for a, r in zip(alone, mine, strict=True)]
    return FamilyFigures(
        asic=asic,
        rows=len(mine),
        below_xoff=sum(v < 1 for v in xoff),
        below_size=sum(v < 1 for v in size),
        below_xon=sum(p.xon < published_gap(r) for p, r in zip(planned, mine, strict=True)),
        median_xoff=statistics.median(xoff),
        max_xoff=max(xoff),
        median_size=statistics.median(size),
        max_size=max(size),
        model_median_xoff=statistics.median(model_xoff),
        model_below_xoff=sum(v < 1 for v in model_xoff),
    )


def families() -> list[str]:
    return sorted({r["asic"] for r in rows()})


def main() -> None:
    markdown = "--markdown" in sys.argv
    header = (
        "family",
        "rows",
        "below xoff",
        "below size",
        "below xon",
        "median xoff",
        "max xoff",
        "median size",
        "max size",
        "model median xoff",
        "model below xoff",
    )
    if markdown:
        print("| " + " | ".join(header) + " |")
        print("|" + "---|" * len(header))
    else:
        print("  ".join(f"{h:>11}" for h in header))
    for asic in families():
        f = measure(asic)
        cells = (
            f.asic,
            str(f.rows),
            str(f.below_xoff),
            str(f.below_size),
            str(f.below_xon),
            f"{f.median_xoff:.3f}",
            f"{f.max_xoff:.2f}",
            f"{f.median_size:.3f}",
            f"{f.max_size:.2f}",
            f"{f.model_median_xoff:.3f}",
            str(f.model_below_xoff),
        )
        if markdown:
            print("| " + " | ".join(cells) + " |")
        else:
            print("  ".join(f"{c:>11}" for c in cells))


if __name__ == "__main__":
    main()
