#!/usr/bin/env python3
"""Speed of validate, plan and render as fabrics grow.

Run by hand: python3 benchmarks/bench_plan.py

Generates rail-optimised fabrics of 2,048 to 8,192 GPUs with inventories/generate_clos.py,
then times loading+validation, planning, the JSON plan and rendering every device, best of
3 runs each, and
reports time per device so growth beyond linear shows up as a rising ratio.
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "inventories"))
sys.path.insert(0, str(REPO))

from generate_clos import generate  # noqa: E402

from lossless.inventory import load_inventory  # noqa: E402
from lossless.planner.fabric import plan_fabric  # noqa: E402
from lossless.vendors.rendering import render_fabric  # noqa: E402


def best_of(runs: int, action):
    best, result = float("inf"), None
    for _ in range(runs):
        started = time.perf_counter()
        result = action()
        best = min(best, time.perf_counter() - started)
    return best, result


def main() -> None:
    print(
        f"{'gpus':>6} {'devices':>7} {'ports':>6} {'load s':>7} {'plan s':>7} {'json s':>7} "
        f"{'render s':>8} {'ms/device':>9}"
    )
    with tempfile.TemporaryDirectory() as folder:
        for gpus in (2048, 4096, 8192):
            path = Path(folder) / f"clos-{gpus}.yaml"
            path.write_text(generate(gpus, 128, "400G"))
            load_s, inventory = best_of(3, lambda p=path: load_inventory(p))
            plan_s, plan = best_of(3, lambda inv=inventory: plan_fabric(inv))
            json_s, _ = best_of(3, lambda pl=plan: json.dumps(pl.to_dict()))
            render_s, _ = best_of(3, lambda pl=plan: render_fabric(pl))
            devices = len(inventory.devices)
            ports = sum(len(d.ports) for d in inventory.devices.values())
            total = load_s + plan_s + json_s + render_s
            print(
                f"{gpus:>6} {devices:>7} {ports:>6} {load_s:>7.3f} {plan_s:>7.3f} {json_s:>7.3f} "
                f"{render_s:>8.3f} {1000 * total / devices:>9.2f}"
            )


if __name__ == "__main__":
    main()
