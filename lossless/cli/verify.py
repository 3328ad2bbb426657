"""`lossless verify INVENTORY (--live | --state DIR)`: the running fabric's operational QoS
state and counters judged against the plan (docs/verify.md), in lint's report formats and
exit codes: 0 clean, 1 an error finding (a planned port without PFC, drops on a lossless
queue, a pause storm, a switch that could not be read), 2 bad input."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from lossless.cli.inputs import folder, load
from lossless.cli.selection import select_devices
from lossless.errors import UsageError
from lossless.planner.fabric import plan_fabric
from lossless.text.printable import printable


def verify_command(args: argparse.Namespace) -> int:
    from lossless.cli.lint import ReportRun
    from lossless.verify.judge import check_baseline, judge, state_rules

    if bool(args.live) == bool(args.state):
        raise UsageError("give --live (ask the switches through napalm) or --state DIR")
    run = ReportRun(args)
    ids = [r.id for r in state_rules()]
    select = [i for i in run.select if i in ids]
    typed = any(who == "--select" for who, _ in run.options.select)
    # a settings file's select names lint's rules too: one naming no state rule selects none
    # of verify's out, where a typed --select naming none is a mistake
    run.check_rules("verify", ids, run.select if typed and not select else select)
    with run.notes(), run.bad_input_reported([]):
        inventory = load(args, "verify")
        chosen = select_devices(inventory.devices, args.device, args.inventory, [])
        plan = plan_fabric(inventory, chosen or None, hosts=False)
        if run.select and not select:
            run.note("the selected rules hold no state rule: every state rule runs")
        if args.state:  # judged device by device, where it is read
            return run.finish(_judged_saved(args, plan, select, run.ignore), plan)
        now = _live(args, plan)
        before = _baseline(args.baseline, plan) if args.baseline else None
        if before is not None:
            check_baseline(now, before, args.baseline)
        if args.snapshot:
            _save(args.snapshot, now)
        # judged in this process: after a live read a fork would copy napalm's connection
        # threads mid-work
        return run.finish(judge(plan, now, before, select, run.ignore), plan)


def _judged_saved(args: argparse.Namespace, plan, select: list[str], ignore):  # -> LintResult
    """--state DIR judged where each switch is read (verify.saved), the snapshot written as
    it is read with --snapshot (through a temporary file: bad input leaves none)."""
    from lossless.system.writing import write_streamed
    from lossless.verify.saved import judge_saved

    state = folder(args.state, "--state")
    before = _baseline(args.baseline, plan, whole=False) if args.baseline else None
    if not args.snapshot:
        return judge_saved(plan, state, before, args.baseline, select, ignore)
    verdicts = []
    target = Path(args.snapshot)
    write_streamed(
        target,
        lambda stream: verdicts.append(
            judge_saved(plan, state, before, args.baseline, select, ignore, snapshot=stream)
        ),
        "--snapshot",
    )
    print(printable(f"lossless: snapshot written to {target}"), file=sys.stderr)
    return verdicts[0]


def _live(args: argparse.Namespace, plan):  # -> Snapshot
    from lossless.cli.deploy import _deployer, _require_deploy_extra
    from lossless.deploy.report import ProgressReporter

    _require_deploy_extra()
    devices = list(plan.devices.values())
    with ProgressReporter(len(devices), "verify") as progress:
        return _deployer(args, plan).read_state(devices, progress)


def _baseline(path_text: str, plan, whole: bool = True):  # -> Snapshot | Path
    """--baseline: a snapshot file (`--snapshot`) or a folder of saved outputs; whole
    False: the folder itself, each device read where it is judged (verify.saved)."""
    from lossless.verify.collect import load_snapshot, snapshot_from_folder

    path = Path(path_text)
    if path.is_dir():
        found = folder(path_text, "--baseline")
        return snapshot_from_folder(plan, found, baseline=True) if whole else found
    return load_snapshot(path)


def _save(file: str, snapshot) -> None:
    """Written as it is made (a 32k fabric's is hundreds of MB), through a temporary file
    and a rename."""
    from lossless.system.writing import write_streamed
    from lossless.verify.collect import write_snapshot

    target = Path(file)
    write_streamed(target, lambda stream: write_snapshot(stream, snapshot), "--snapshot")
    print(printable(f"lossless: snapshot written to {target}"), file=sys.stderr)
