#!/usr/bin/env python3
"""Time to render and to parse one Cumulus NVUE config, on pod-sized switches.

Run by hand: python3 benchmarks/bench_cumulus.py

Generates the rail-optimised fabric of inventories/generate_clos.py with every switch on
Cumulus (swpN ports), plans it once, then times rendering every device's NVUE fragment and
parsing it back (with the device's plan as the hint, as `lint --configs` does), best of 3
runs, and prints milliseconds per device and per port.
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
from lossless.planner.fabric import plan_fabric  # noqa: E402
from lossless.vendors.cumulus import parse as cumulus_parse  # noqa: E402
from lossless.vendors.rendering import render_device  # noqa: E402


def cumulus_inventory(gpus: int, radix: int) -> str:
    """The generated SONiC fabric, on Cumulus: Ethernet[a:b:4] -> swp[a/4+1:b/4+1]."""
    text = generate(gpus, radix, "400G").replace("os: sonic", "os: cumulus")
    return re.sub(
        r"Ethernet\[(\d+):(\d+):4\]",
        lambda m: f"swp[{int(m[1]) // 4 + 1}:{int(m[2]) // 4 + 1}]",
        text,
    )


def best_of(runs: int, action) -> float:
    best = float("inf")
    for _ in range(runs):
        started = time.perf_counter()
        action()
        best = min(best, time.perf_counter() - started)
    return best


def main() -> None:
    print(f"{'gpus':>6} {'radix':>5} {'devices':>7} {'render ms/dev':>13} {'parse ms/dev':>12}")
    with tempfile.TemporaryDirectory() as folder:
        for gpus, radix in ((2048, 64), (2048, 128)):
            path = Path(folder) / f"clos-{gpus}-{radix}.yaml"
            path.write_text(cumulus_inventory(gpus, radix))
            plan = plan_fabric(load_inventory(path))
            devices = list(plan.devices.values())
            texts = {d.name: render_device(d, plan) for d in devices}

            def render_all(devices=devices, plan=plan) -> None:
                for device in devices:
                    render_device(device, plan)

            def parse_all(devices=devices, texts=texts) -> None:
                for device in devices:
                    cumulus_parse.parse(
                        texts[device.name], f"{device.name}.yaml", device.name, device
                    )

            render_s = best_of(3, render_all)
            parse_s = best_of(3, parse_all)
            print(
                f"{gpus:>6} {radix:>5} {len(devices):>7} "
                f"{1000 * render_s / len(devices):>13.2f} {1000 * parse_s / len(devices):>12.2f}"
            )


if __name__ == "__main__":
    main()
