#!/usr/bin/env python3
"""Speed of the host plan and `render --hosts` as fabrics grow.

Run by hand: python3 benchmarks/bench_hosts.py

Generates rail-optimised fabrics of 2,048 to 8,192 GPUs (8 ConnectX-7 NICs per
server) with inventories/generate_clos.py, then times planning every NIC (inheritance from
its switch port) and rendering every server's script, operator resource and NCCL
environment, best of 3 runs each, and reports time per server so growth beyond linear
shows up as a rising ratio.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "inventories"))
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from bench_plan import best_of  # noqa: E402
from generate_clos import generate  # noqa: E402

from lossless.hosts.plan import plan_nics  # noqa: E402
from lossless.hosts.render import render_hosts  # noqa: E402
from lossless.inventory import load_inventory  # noqa: E402
from lossless.plan import FabricPlan  # noqa: E402


def main() -> None:
    print(f"{'gpus':>6} {'servers':>7} {'nics':>6} {'plan s':>7} {'render s':>8} {'ms/server':>9}")
    with tempfile.TemporaryDirectory() as folder:
        for gpus in (2048, 4096, 8192):
            path = Path(folder) / f"clos-{gpus}.yaml"
            text = generate(gpus, 128, "400G")  # its NICs name no model: make them ConnectX-7
            nics = "]: {speed: 400G}\nlinks"
            path.write_text(text.replace(nics, nics.replace("}", ", model: ConnectX-7}")))
            inventory = load_inventory(path)
            plan_s, nics = best_of(3, lambda inv=inventory: plan_nics(inv))
            hosts = FabricPlan(inventory.fabric_name, str(path), {}, [], nics)
            render_s, files = best_of(3, lambda h=hosts: render_hosts(h))
            assert len(files.files) == 3 * len(inventory.servers) + 1
            servers = len(inventory.servers)
            total = plan_s + render_s
            print(
                f"{gpus:>6} {servers:>7} {len(nics):>6} {plan_s:>7.3f} {render_s:>8.3f} "
                f"{1000 * total / servers:>9.2f}"
            )


if __name__ == "__main__":
    main()
