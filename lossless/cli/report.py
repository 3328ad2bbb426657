"""`lossless report`: an HTML page and a Markdown summary of the plan's numbers and the lint
findings."""

from __future__ import annotations

import argparse
from pathlib import Path

from lossless.cli.inputs import load
from lossless.cli.selection import select_devices
from lossless.errors import UsageError
from lossless.planner.fabric import plan_fabric

MAX_SIMULATE_MS = 100.0  # 1 million model steps per distinct scenario: about 25 s each


def report_command(args: argparse.Namespace) -> int:
    from lossless.lint.runner import lint
    from lossless.report.page import report_files
    from lossless.system.writing import write_atomically

    if not 0 < args.simulate_ms <= MAX_SIMULATE_MS:
        raise UsageError(f"--simulate-ms must be more than 0 and at most {MAX_SIMULATE_MS:g}")
    inventory = load(args, "report")
    shown = select_devices(inventory.devices, args.device, args.inventory) if args.device else None
    plan = plan_fabric(inventory)  # whole: the deadlock rules need every link
    simulate_s = None if args.no_simulate else args.simulate_ms / 1000
    files = report_files(inventory, plan, lint(plan), shown, simulate_s)
    folder = Path(args.output)
    written = write_atomically(folder, files)
    print(f"{len(written.written)} written, {len(written.unchanged)} unchanged in {folder}")
    return 0
