#!/usr/bin/env python3
"""Planned Broadcom headroom against the published tables and SONiC's QoS tests (issue 39).

Run by hand from the repository root:

    python3 benchmarks/headroom_vs_tables.py [--markdown] [--before REF]

`--before REF` also measures the lossless package of git revision REF (extracted with
`git archive` to a temporary folder) and prints its table first: before and after in one run.

Per family of tests/data/vendor_headroom.csv (SONiC pg_profile_lookup.ini of Tomahawk 1-5 and
Trident 2-4 SKUs at sonic-buildimage 086b03b), the plan is computed in the SKU tables'
setting (SONiC's default port MTU 9100, LOSSLESS_TRAFFIC_PATTERN mtu 1024 and 50 % small
packets, the ASIC's default lanes, no gearbox, the catalogue's shared-headroom-pool setting):

* below: rows the plan is under, for xoff, the resume gap (xon against the row's xon_offset,
  lossless/vendors/sonic/platform.py headroom_from_profile) and the size a SONiC Broadcom
  profile states (broadcom_pg_minimum, against the row's guaranteed minimum). Must be 0.
* vs highest row: planned xoff / the highest published xoff at the same speed and cable, per
  published point at the speeds the catalogue says the ASIC runs; median and worst (goal
  median <= 1.10, worst <= 1.5).
* vs qos_params: planned xoff / the headroom SONiC's own PFC test exercises, (trig_ingr_drp -
  trig_pfc) cells, per row of tests/data/qos_params/qos_params_headroom.csv (sonic-mgmt
  tests/qos/files/qos_params.<asic>.yaml); median (goal <= 1.5). "row/qos" is the same for
  the highest published row at that speed and cable: the least any plan that is never below
  a row can reach.
"""

from __future__ import annotations

import csv
import json
import statistics
import subprocess
import sys
import tempfile
from collections import defaultdict
from dataclasses import asdict, dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DATA = REPO / "tests" / "data" / "vendor_headroom.csv"
QOS_PARAMS = REPO / "tests" / "data" / "qos_params" / "qos_params_headroom.csv"


def read(path: Path) -> list[dict[str, str]]:
    with path.open() as handle:
        return list(csv.DictReader(handle))


def point(row: dict[str, str]) -> tuple[int, int]:
    return int(row["speed_mbps"]), int(row["cable_m"])


def guaranteed_minimum(row: dict[str, str]) -> int:
    """A row's size, or size - xoff in the older form whose size holds the headroom too."""
    size, xoff = int(row["size"]), int(row["xoff"])
    return size - xoff if size >= xoff else size


@dataclass(frozen=True)
class FamilyFigures:
    asic: str
    rows: int
    below: int  # rows with xoff, xon_offset or size under the plan's
    points: int
    median: float  # planned / highest row at the same speed and cable
    worst: float
    worst_at: str
    qos_rows: int
    qos_median: float  # planned / SONiC qos_params headroom
    floor_qos_median: float  # highest published row / qos_params headroom


def measure(asic: str) -> FamilyFigures:
    from lossless.asics import catalogue
    from lossless.planner.headroom import compute_headroom
    from lossless.planner.headroom_common import HeadroomInputs
    from lossless.vendors.sonic.platform import broadcom_pg_minimum

    model = catalogue()[asic]

    def plan(speed: int, cable: int):
        inputs = HeadroomInputs(
            speed, cable, 9100, model.default_lanes(speed), 0, 1024, 50, model.shared_headroom_pool
        )
        return compute_headroom(inputs, model)

    mine = [r for r in read(DATA) if r["asic"] == asic]
    highest: dict[tuple[int, int], int] = defaultdict(int)
    for r in mine:
        highest[point(r)] = max(highest[point(r)], int(r["xoff"]))
    below = 0
    for r in mine:
        planned = plan(*point(r))
        below += (
            planned.xoff < int(r["xoff"])
            or planned.xon < int(r["xon_offset"] or r["xon"])
            or broadcom_pg_minimum(asic, 9100, *point(r)) < guaranteed_minimum(r)
        )
    ratios = {
        key: plan(*key).xoff / value
        for key, value in highest.items()
        if key[0] in model.speeds_mbps
    }
    worst = max(ratios, key=lambda key: ratios[key])
    qos = [r for r in read(QOS_PARAMS) if r["asic"] == asic]
    qos_ratios = [plan(*point(r)).xoff / int(r["headroom_bytes"]) for r in qos]
    floor_qos = [highest[point(r)] / int(r["headroom_bytes"]) for r in qos if point(r) in highest]
    return FamilyFigures(
        asic=asic,
        rows=len(mine),
        below=below,
        points=len(ratios),
        median=statistics.median(ratios.values()),
        worst=ratios[worst],
        worst_at=f"{worst[0] // 1000}G {worst[1]} m",
        qos_rows=len(qos),
        qos_median=statistics.median(qos_ratios) if qos_ratios else float("nan"),
        floor_qos_median=statistics.median(floor_qos) if floor_qos else float("nan"),
    )


HEADER = (
    "family",
    "rows",
    "below",
    "points",
    "median vs highest row",
    "worst",
    "worst at",
    "qos_params rows",
    "median vs qos_params",
    "row/qos median",
)


def cells(f: FamilyFigures) -> tuple[str, ...]:
    def ratio(value: float) -> str:
        return "-" if value != value else f"{value:.2f}"  # NaN: no qos_params rows

    return (
        f.asic,
        str(f.rows),
        str(f.below),
        str(f.points),
        ratio(f.median),
        ratio(f.worst),
        f.worst_at,
        str(f.qos_rows),
        ratio(f.qos_median),
        ratio(f.floor_qos_median),
    )


def table(figures: list[FamilyFigures], markdown: bool) -> str:
    if markdown:
        lines = ["| " + " | ".join(HEADER) + " |", "|" + "---|" * len(HEADER)]
        lines += ["| " + " | ".join(cells(f)) + " |" for f in figures]
    else:
        widths = [max(len(h), 10) for h in HEADER]
        lines = ["  ".join(h.rjust(w) for h, w in zip(HEADER, widths, strict=True))]
        lines += [
            "  ".join(c.rjust(w) for c, w in zip(cells(f), widths, strict=True)) for f in figures
        ]
    return "\n".join(lines)


def families() -> list[str]:
    return sorted({r["asic"] for r in read(DATA)})


def measure_revision(ref: str) -> list[FamilyFigures]:
    """The figures of the lossless package at git revision `ref`, measured by this script."""
    with tempfile.TemporaryDirectory() as folder:
        archive = subprocess.run(
            ["git", "-C", str(REPO), "archive", ref, "lossless"], check=True, capture_output=True
        ).stdout
        subprocess.run(["tar", "-x", "-C", folder], input=archive, check=True)
        answer = subprocess.run(
            [sys.executable, __file__, "--json", "--root", folder],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
    return [FamilyFigures(**f) for f in json.loads(answer)]


def main(argv: list[str]) -> None:
    root = argv[argv.index("--root") + 1] if "--root" in argv else str(REPO)
    sys.path.insert(0, root)
    if "--json" in argv:
        print(json.dumps([asdict(measure(asic)) for asic in families()]))
        return
    markdown = "--markdown" in argv
    if "--before" in argv:
        ref = argv[argv.index("--before") + 1]
        print(f"before ({ref}):\n{table(measure_revision(ref), markdown)}\n")
        print("after (this checkout):")
    print(table([measure(asic) for asic in families()], markdown))


if __name__ == "__main__":
    main(sys.argv[1:])
