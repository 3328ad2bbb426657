#!/usr/bin/env python3
"""Does a planned port pause before it marks at its real fan-in? The evidence behind LL128
(docs/simulate.md, "Pausing before marking: LL128").

Run by hand: python3 benchmarks/pause_before_mark.py

For the lab, pod-2048 and a generated 4,096-GPU Clos, and for copies of the lab with the ECN
policy changed (each preset, Kmin above the trigger, Kmax far above it, a tiny Pmax), every
lossless port that other ports send into is simulated at its real fan-in with congestion
control off (the first mark and the first pause come before any rate cut; lint/dynamics.py
runs the same), each distinct scenario once. Printed per case: the distinct scenarios, those
that pause before they mark, what LL112 says of their switches (error, warning or nothing)
and the figures of one of them, and of the port that marks first by the least time.
"""

from __future__ import annotations

import re
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "inventories"))
sys.path.insert(0, str(REPO))

from generate_clos import generate  # noqa: E402

from lossless.inventory import load_inventory  # noqa: E402
from lossless.lint.dynamics import first_events  # noqa: E402
from lossless.lint.runner import lint  # noqa: E402
from lossless.planner.fabric import plan_fabric  # noqa: E402

LAB = REPO / "inventories" / "lab.yaml"
PLANNED = "ecn: {preset: nvidia, max_bytes: 500000}"
# (name, the lab's fabric-wide ECN policy instead of the planned one)
CASES = [
    ("lab as planned (nvidia, Kmax 500 kB)", PLANNED),
    ("preset nvidia (150 kB / 1.5 MB / 100 %)", "ecn: {preset: nvidia}"),
    ("preset sonic (1 MiB / 2 MiB / 5 %)", "ecn: {preset: sonic}"),
    ("preset cisco (150 kB / 3 MB / 7 %)", "ecn: {preset: cisco}"),
    ("preset dcqcn-scaled", "ecn: {preset: dcqcn-scaled}"),
    (
        "DCQCN paper (5 kB / 200 kB / 1 %)",
        "ecn: {min_bytes: 5000, max_bytes: 200000, probability_percent: 1}",
    ),
    (
        "Kmin above T (600 kB / 2 MB / 100 %)",
        "ecn: {min_bytes: 600000, max_bytes: 2000000, probability_percent: 100}",
    ),
    (
        "Kmax far above (150 kB / 10 MB / 100 %)",
        "ecn: {min_bytes: 150000, max_bytes: 10000000, probability_percent: 100}",
    ),
    (
        "Pmax tiny (150 kB / 500 kB / 1 %)",
        "ecn: {min_bytes: 150000, max_bytes: 500000, probability_percent: 1}",
    ),
    (
        "Kmax above, Pmax small (150 kB / 3 MB / 1 %)",
        "ecn: {min_bytes: 150000, max_bytes: 3000000, probability_percent: 1}",
    ),
    (
        "Kmax above, Pmax 10 % (150 kB / 1.5 MB / 10 %)",
        "ecn: {min_bytes: 150000, max_bytes: 1500000, probability_percent: 10}",
    ),
]


def survey(path: Path) -> str:
    plan = plan_fabric(load_inventory(str(path)))
    started = time.process_time()
    events, runs = first_events(plan)
    cpu = time.process_time() - started
    ll112: dict[str, str] = {}  # LL112 merges a switch's ports into one finding
    for f in lint(plan, select=["LL112"]).findings:
        for device in f.devices or (f.device or "",):
            ll112[device] = f.severity
    first = [(k, e) for k, e in events.items() if e.pauses_first]
    said = sorted({ll112.get(k[0], "none") for k, _ in first})
    verdicts = list(ll112.values())
    line = (
        f"{len(events):>5} ports {runs:>3} runs {cpu:>5.2f} s; LL112 on "
        f"{verdicts.count('error')} switches error, {verdicts.count('warning')} warning: "
        f"{len(first):>4} pause first (LL112 on them: {', '.join(said) or '-'})"
    )
    if first:
        (device, port), e = min(first, key=lambda item: item[1].margin_us)
        line += f"; e.g. {device} {port}: {e.text()}"
    closest = min(
        (e for e in events.values() if not e.pauses_first and e.first_pause_us is not None),
        key=lambda e: e.margin_us,
        default=None,
    )
    if closest is not None:
        line += f"; closest that marks first: {closest.text()}"
    return line


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        clos = Path(folder) / "clos-4096.yaml"
        clos.write_text(generate(4096, 128, "400G"))
        for name, path in (
            ("pod-2048", REPO / "inventories" / "pod-2048.yaml"),
            ("clos-4096 (generate_clos.py)", clos),
        ):
            print(f"{name:<48} {survey(path)}")
        text = LAB.read_text()
        assert PLANNED in text
        for name, policy in CASES:
            copy = Path(folder) / (re.sub(r"[^a-z0-9]+", "-", name.lower()) + ".yaml")
            copy.write_text(text.replace(PLANNED, policy))
            print(f"{name:<48} {survey(copy)}")


if __name__ == "__main__":
    main()
