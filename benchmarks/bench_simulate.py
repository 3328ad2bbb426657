#!/usr/bin/env python3
"""Time of `lossless simulate`'s model: 64 senders, 10 ms simulated (the goal: 5 s or less).

Run by hand: python3 benchmarks/bench_simulate.py [SENDERS] [MS]

Plans leaf1 of inventories/lab.yaml (Spectrum-4, 400G), builds the scenario of its port
Ethernet0 with SENDERS senders (64) and runs the fluid model with DCQCN for MS milliseconds
(10) in steps of 100 ns, best of 3. Prints wall and CPU seconds (the CPU time is what the
model costs; the wall time also counts other processes sharing the machine) and the run's
headline figures.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from lossless.inventory import load_inventory  # noqa: E402
from lossless.planner.fabric import plan_fabric  # noqa: E402
from lossless.simulate.dcqcn import dcqcn  # noqa: E402
from lossless.simulate.fluid import simulate  # noqa: E402
from lossless.simulate.scenario import scenario  # noqa: E402

GOAL_S = 5.0


def main() -> int:
    senders = int(sys.argv[1]) if len(sys.argv) > 1 else 64
    ms = float(sys.argv[2]) if len(sys.argv) > 2 else 10.0
    plan = plan_fabric(load_inventory(str(REPO / "inventories" / "lab.yaml")), ["leaf1"])
    sc = scenario(plan, "leaf1", "Ethernet0", senders)
    walls, cpus = [], []
    for _ in range(3):
        wall, cpu = time.perf_counter(), time.process_time()
        result = simulate(sc, dcqcn(), ms / 1000)
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    print(
        f"{senders} senders, {ms:g} ms simulated ({len(result.queue):,} steps): "
        f"best wall {min(walls):.2f} s, best CPU {min(cpus):.2f} s (goal {GOAL_S:g} s)"
    )
    print(
        f"first mark {result.first_mark_s}, first pause {result.first_pause_s}, "
        f"paused {result.paused_share:.4f}, dropped {result.dropped_bytes:.0f} B, "
        f"throughput {result.throughput_bps.sum() / 1e9:.1f} Gb/s, "
        f"fairness {result.fairness:.3f}"
    )
    return 0 if min(cpus) <= GOAL_S else 1


if __name__ == "__main__":
    sys.exit(main())
