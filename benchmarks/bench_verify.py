#!/usr/bin/env python3
"""Speed and memory of `lossless verify --state` (and with --baseline) as fabrics grow.

Run by hand: python3 benchmarks/bench_verify.py [--sizes 2048,8192,32768] [--keep DIR]
(goal, issue 37: 32,768 GPUs judged in <= 10 s, with --baseline <= 20 s, <= 1 GiB)

Generates rail-optimised fabrics (inventories/generate_clos.py, 64-port leaves, 128-port
spines, one plane per rail, the five OSes in turn), synthesizes a clean saved state for
every device from the lab recordings (verify_state.py: tests/data/verify/lab/after and
before, each planned port a renamed copy of a lab port of the same OS), then runs the CLI
as a subprocess and reports wall time and max RSS of each run, and ms per device so growth
beyond linear shows up as a rising ratio.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "inventories"))
sys.path.insert(0, str(HERE))

from generate_clos import generate  # noqa: E402
from verify_state import generate as generate_state  # noqa: E402

LOSSLESS = [sys.executable, "-m", "lossless"]


def run(args: list[str]) -> tuple[float, float, float, float, int, str]:
    """(wall s, CPU s, max RSS MB, peak PSS sum MB, exit code, last line of stdout) of one
    CLI run. CPU time (user + system, its worker processes included) is what the run costs
    on a machine other work shares, where wall time measures the others too. Max RSS is the
    largest process's; the PSS sum is the peak over the process and its workers together
    (/proc/PID/smaps_rollup, sampled every 100 ms: pages the forked workers share counted
    once), which is what the machine must hold."""
    started = time.perf_counter()
    with tempfile.TemporaryFile() as out:
        child = subprocess.Popen(LOSSLESS + args, stdout=out, stderr=subprocess.DEVNULL, cwd=REPO)
        pss_peak = 0
        while True:
            pid, status, usage = os.wait4(child.pid, os.WNOHANG)
            if pid:
                break
            pss_peak = max(pss_peak, _pss_of_tree(child.pid))
            time.sleep(0.1)
        child.returncode = os.waitstatus_to_exitcode(status)
        wall = time.perf_counter() - started
        out.seek(0)
        lines = out.read().decode("utf-8", "replace").strip().splitlines()
    cpu = usage.ru_utime + usage.ru_stime
    rss = usage.ru_maxrss / 1024
    return wall, cpu, rss, pss_peak / 1024, child.returncode, lines[-1] if lines else ""


def _pss_of_tree(pid: int) -> int:
    """The PSS (kB) of a process and its descendants now; 0 where /proc has no smaps_rollup."""
    total, pending = 0, [pid]
    while pending:
        current = pending.pop()
        try:
            with open(f"/proc/{current}/smaps_rollup") as rollup:
                total += next(int(line.split()[1]) for line in rollup if line.startswith("Pss:"))
            for task in os.listdir(f"/proc/{current}/task"):
                with open(f"/proc/{current}/task/{task}/children") as children:
                    pending.extend(int(c) for c in children.read().split())
        except (OSError, StopIteration, ValueError):  # gone meanwhile, or no such file here
            continue
    return total


def calibration() -> float:
    """CPU seconds of a fixed pure-Python loop: how fast this machine is right now (the
    same loop as bench_pipeline.py's)."""
    started = time.process_time()
    sum(range(30_000_000))
    return time.process_time() - started


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="2048,8192,32768")
    parser.add_argument(
        "--keep", help="a folder to generate into (and reuse) instead of a temp one"
    )
    options = parser.parse_args()
    sizes = [int(s) for s in options.sizes.split(",")]
    print(f"machine: sum(range(30,000,000)) takes {calibration():.2f} CPU s (scale by it)")
    print(
        f"{'gpus':>6} {'devices':>7} {'ports':>6} {'state MB':>8} {'mode':>9} "
        f"{'wall s':>7} {'CPU s':>6} {'RSS MB':>7} {'PSS sum':>7} {'ms/device':>9}  result"
    )
    with tempfile.TemporaryDirectory() as temp:
        root = Path(options.keep or temp)
        root.mkdir(parents=True, exist_ok=True)
        for gpus in sizes:
            inventory = root / f"clos-{gpus}.yaml"
            if not inventory.exists():
                inventory.write_text(
                    generate(
                        gpus,
                        64,
                        "400G",
                        spine_radix=128,
                        planes=True,
                        oses=("sonic", "cumulus", "eos", "nxos", "junos"),
                    )
                )
            sizes_mb = 0.0
            for which in ("after", "before"):
                folder = root / f"st{gpus}-{which}"
                if not folder.exists():
                    stats = generate_state(inventory, folder, which)
                    sizes_mb = stats["bytes"] / 1e6
            if not sizes_mb:
                sizes_mb = (
                    sum(f.stat().st_size for f in (root / f"st{gpus}-after").rglob("*")) / 1e6
                )
            devices = sum(1 for p in (root / f"st{gpus}-after").iterdir() if p.is_dir())
            ports = gpus * 3  # leaves: 64 ports (32 GPU, 32 up); spines: the 32 uplinks' far ends
            for mode, extra in (("state", []), ("baseline", ["--baseline", f"st{gpus}-before"])):
                wall, cpu, rss, pss, code, last = run(
                    ["verify", str(inventory), "--state", str(root / f"st{gpus}-after")]
                    + [e if e.startswith("-") else str(root / e) for e in extra]
                )
                print(
                    f"{gpus:>6} {devices:>7} {ports:>6} {sizes_mb:>8.0f} {mode:>9} {wall:>7.2f} "
                    f"{cpu:>6.2f} {rss:>7.0f} {pss:>7.0f} {1000 * wall / devices:>9.1f}  "
                    f"rc={code} {last}",
                    flush=True,
                )
        print(f"machine at the end: the same loop takes {calibration():.2f} CPU s")


if __name__ == "__main__":
    main()
