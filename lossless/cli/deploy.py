"""`lossless diff` (what would change on each switch: against running-config backups, or
live through napalm, dry run) and `lossless push` (load the rendered configs, canary first,
in the change order, with commit-confirm and a post-check, the running configs saved first)."""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from lossless.cli.extras import require_extra
from lossless.cli.inputs import folder, load
from lossless.cli.selection import chosen_devices
from lossless.errors import UsageError
from lossless.plan import FabricPlan
from lossless.planner.fabric import plan_fabric
from lossless.text.printable import printable

if TYPE_CHECKING:
    from lossless.deploy.live import Deployer


def diff_command(args: argparse.Namespace) -> int:
    from lossless.deploy.impact import disruptive
    from lossless.deploy.offline import diff_order, offline_diff, render_json, render_text

    inventory = load(args, "diff")
    devices = chosen_devices(inventory, args)
    if args.live:
        _require_deploy_extra()
        from lossless.deploy.live import live_order
        from lossless.deploy.report import ProgressReporter, render_results

        plan = plan_fabric(inventory, devices)
        planned = list(plan.devices.values())
        with ProgressReporter(len(planned), "live diff") as progress:
            results = _deployer(args, plan).diff(planned, progress)
        print(render_results(results, args.format, live_order(plan, results)), end="")
        failed = any(r.failed for r in results)
        changed = any(r.status == "would-change" for r in results)
        impacts = [i for r in results for i in r.impacts]
    else:
        if not args.running:
            raise UsageError("give --running DIR (backups of the running configs) or --live")
        running = folder(args.running, "--running")
        plan = plan_fabric(inventory, devices)
        diffs = offline_diff(plan, running)
        order = diff_order(plan, diffs)
        print(render_json(diffs, order) if args.format == "json" else render_text(diffs, order))
        failed, changed = False, any(d.changes for d in diffs)
        impacts = [i for d in diffs for i in d.impacts]
    gate = args.fail_on == "disruptive" and bool(disruptive(impacts))
    return 1 if failed or (args.exit_code and changed) or gate else 0


def push_command(args: argparse.Namespace) -> int:
    _require_deploy_extra()
    from lossless.deploy.report import ProgressReporter, render_results
    from lossless.lint.report import text
    from lossless.lint.runner import blocking_errors

    inventory = load(args, "push")
    if not args.device and not args.all:
        raise UsageError("name the devices to push with --device (repeat), or --all")
    chosen = set(inventory.devices if args.all else chosen_devices(inventory, args) or ())
    if args.canary < 0 or args.batch_size < 1 or args.revert_in < 0:
        raise UsageError("--canary >= 0, --batch-size >= 1 and --revert-in >= 0")
    if (args.settle < 0 or args.rollback_on_gate_failure) and not args.gate:
        raise UsageError("--settle and --rollback-on-gate-failure are for --gate")
    if args.settle < 0:
        raise UsageError("--settle takes seconds >= 0")
    if args.backup is not None and not args.commit:
        raise UsageError("--backup saves the running configs before a commit: add --commit")
    from lossless.deploy.live import PushGate, check_backup, napalm_driver

    plan = plan_fabric(inventory)
    selected = [d for name, d in plan.devices.items() if name in chosen]
    # percentages of the devices pushed: those napalm has a driver for
    waves = _waves(args.wave, sum(1 for d in selected if napalm_driver(d)))
    gate = None
    if args.gate:
        if not args.commit:
            raise UsageError("--gate verifies committed waves: add --commit")
        gate = PushGate(args.settle, args.rollback_on_gate_failure)
    backup = _backup_folder(args) if args.commit else None
    if backup is not None:
        check_backup(backup)
    errors = blocking_errors(plan, (d.name for d in selected))
    if errors:
        print(text(errors))
        print("push refused: fix the lint errors first")
        return 1
    # each device is read (its running config), then pushed
    with ProgressReporter(2 * len(selected), "push") as progress:
        results, push = _deployer(args, plan).push(
            selected,
            args.commit,
            args.canary,
            args.batch_size,
            args.revert_in,
            progress,
            split_links=args.split_links,
            waves=waves,
            gate=gate,
            backup=backup,
        )
    print(render_results(results, args.format, push.order, push), end="")
    if push.backup:
        print(
            printable(f"lossless: running configs before the push saved in {push.backup}"),
            file=sys.stderr,
        )
    if push.gate_failed or push.stopped is not None:
        return 1
    unsupported = [r.device for r in results if r.status == "no-driver"]
    if args.commit and unsupported and not args.skip_unsupported:
        print(
            f"lossless: not pushed (no napalm driver): {', '.join(unsupported)}; "
            "--skip-unsupported accepts that",
            file=sys.stderr,
        )
        return 1
    return 1 if any(r.failed or r.status == "skipped" for r in results) else 0


def _waves(texts: list[str], total: int) -> list[int] | None:
    """--wave sizes as device counts (None: not given)."""
    if not texts:
        return None
    from lossless.deploy.order import wave_sizes

    try:
        return wave_sizes(texts, total)
    except ValueError as error:
        raise UsageError(str(error)) from None


def _backup_folder(args: argparse.Namespace) -> Path:
    """--backup, or a new folder named by the time (UTC) under the user's state folder
    ($XDG_STATE_HOME/lossless/push-backups where it is an absolute path, else ~/.local/state:
    the XDG Base Directory place for state that outlives a run), never the current folder: a
    push runs from a fabric repository, and running configs hold secrets a `git add -A` would
    commit. With --mock, in the mock folder (a rehearsal leaves nothing behind)."""
    if args.backup is not None:
        return Path(args.backup)
    if args.mock:
        where = Path(args.mock)
    else:
        # the XDG Base Directory spec: a relative path in $XDG_STATE_HOME is invalid, ignored
        state = Path(os.environ.get("XDG_STATE_HOME", ""))
        if not state.is_absolute():
            state = Path.home() / ".local" / "state"
        where = state / "lossless" / "push-backups"
    stem = "lossless-backup-" + time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    folder, number = where / stem, 1
    while folder.exists() or folder.is_symlink():  # two pushes in one second
        number += 1
        folder = where / f"{stem}-{number}"
    return folder


def _require_deploy_extra() -> None:
    """The live steps need the optional napalm/nornir extra: say so, not a traceback."""
    require_extra(
        "deploy",
        "live diff and push need napalm and nornir",
        ("napalm", "nornir_napalm.plugins.connections", "lossless.deploy.live"),
    )


def _deployer(args: argparse.Namespace, plan: FabricPlan) -> Deployer:
    from lossless.deploy.credentials import CredentialStore
    from lossless.deploy.live import Deployer

    if args.workers < 1:
        raise UsageError("--workers must be at least 1")
    return Deployer(plan, CredentialStore(args.credentials), args.mock, args.workers)
