"""`lossless render`: every switch's config into a folder (or one to stdout), `--check`
against a folder, and `--hosts`: the servers' files instead.

Why `render --hosts` and not a `hosts` command: in a pipeline the servers' files are one
more rendering of the same inventory, with the same output folder (-o), the same atomic,
byte-identical writes and the same `--check` drift gate; a separate verb would repeat all of
it. The flag renders only the hosts, so switch and host files go to folders of their own and
each `--check` sees only its own files.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from lossless.cli.inputs import load
from lossless.cli.selection import chosen_devices
from lossless.errors import UsageError
from lossless.inventory.schema import suggest
from lossless.model import Inventory
from lossless.plan import FabricPlan
from lossless.planner.fabric import plan_fabric
from lossless.text.grammar import plural
from lossless.text.printable import printable, printable_lines

if TYPE_CHECKING:
    from lossless.vendors.config_folder import FolderCheck
    from lossless.vendors.rendering import RenderedFile


def render_command(args: argparse.Namespace) -> int:
    from lossless.vendors.rendering import device_files, file_name, render_fabric

    if args.hosts or args.server:
        return _render_hosts(args)
    to_stdout = args.stdout or args.output == "-"
    if not to_stdout and args.output is None:
        raise UsageError("give -o DIR (the folder for the configs), or --stdout for one device")
    if to_stdout and (args.check or args.diff):
        raise UsageError("--stdout prints one config; --check and --diff compare a folder (-o DIR)")
    if args.diff and not args.check:
        raise UsageError("--diff goes with --check")
    inventory = load(args, "render")
    only = chosen_devices(inventory, args)
    selected = only or list(inventory.devices)
    if to_stdout and len(selected) != 1:
        raise UsageError(
            f"--stdout prints one device's config; {plural(len(selected), 'device')} match: "
            "name one with --device"
        )
    plan = plan_fabric(inventory, only, hosts=False)  # switch configs: no NIC plans
    if to_stdout:
        [text] = render_fabric(plan).values()
        sys.stdout.write(text)
        _print_render_notes(plan)
        return 0
    folder = Path(args.output)
    if args.check:
        every_file = [file_name(device) for device in inventory.devices.values()]
        names, text_of = device_files(plan)
        return _check(folder, names, text_of, every_file, args.diff)
    write_configs(folder, plan, inventory, sys.stdout, args.verbose)
    return 0


def write_configs(
    folder: Path,
    plan: FabricPlan,
    inventory: Inventory,
    out: TextIO,
    verbose: bool = False,
    rendered: dict[str, RenderedFile] | None = None,
) -> None:
    """Every planned device's config written into folder, and what the run did said to
    `out`: how many files changed, files no device renders; on stderr, what the OSes cannot
    express: one line, or with `verbose` every value and why. `rendered`: files known to
    hold a device's render (vendors.rendering.device_files)."""
    from lossless.report.not_expressed import not_expressed_lines, not_expressed_summary
    from lossless.system.writing import write_rendered
    from lossless.vendors.config_folder import orphan_files
    from lossless.vendors.rendering import device_files, file_name

    names, text_of = device_files(plan, rendered)
    report = write_rendered(folder, names, text_of)
    _print_render_notes(plan)
    print(f"{len(report.written)} written, {len(report.unchanged)} unchanged in {folder}", file=out)
    every_file = [file_name(device) for device in inventory.devices.values()]
    for name in orphan_files(folder, every_file):
        note = f"note: {folder / name} is no device's config in {inventory.file} (left in place)"
        print(printable(note), file=out)
    if verbose:
        for line in not_expressed_lines(plan.devices.values()):
            print(line, file=sys.stderr)
    elif summary := not_expressed_summary(plan.devices.values()):
        print(summary, file=sys.stderr)


def _print_render_notes(plan: FabricPlan) -> None:
    from lossless.vendors.rendering import render_notes

    for note in render_notes(plan):
        print(printable(f"note: {note}"), file=sys.stderr)


def _check(
    folder: Path,
    names: list[str],
    text_of: Callable[[int], str],
    every_file: list[str],
    diff: bool,
) -> int:
    """Exit 1 listing each file that is missing, changed or orphaned; with diff, the change."""
    from lossless.vendors.config_folder import check_folder

    check = check_folder(folder, names, text_of, every_file)
    outcome = 0 if check.clean else 1
    try:
        _print_check(check, folder, names, text_of, diff)
    except BrokenPipeError as error:  # `--check --diff | head`: the check already failed
        error.exit_code = outcome  # type: ignore[attr-defined]  # read by cli/main.py
        raise
    return outcome


def _print_check(
    check: FolderCheck,
    folder: Path,
    names: list[str],
    text_of: Callable[[int], str],
    diff: bool,
) -> None:
    from lossless.vendors.config_folder import unified_diff

    index = {name: number for number, name in enumerate(names)}
    for label, listed in (
        ("missing", check.missing),
        ("changed", check.changed),
        ("orphan", check.orphans),
    ):
        for name in listed:
            note = " (no device of the inventory renders it)" if label == "orphan" else ""
            print(printable(f"{label}: {folder / name}{note}"))
            if diff:  # the folder's files are what a pull request committed
                rendered = text_of(index[name]) if name in index else None
                sys.stdout.write(printable_lines(unified_diff(folder, name, rendered)))
    print(
        f"{len(check.missing)} missing, {len(check.changed)} changed, "
        f"{plural(len(check.orphans), 'orphan')}; {plural(len(names), 'file')} checked in {folder}"
    )
    sys.stdout.flush()  # a closed pipe is found here, while the outcome is known


def _render_hosts(args: argparse.Namespace) -> int:
    from lossless.hosts.plan import plan_hosts
    from lossless.hosts.render import render_hosts
    from lossless.system.writing import drift, write_atomically

    if not args.hosts:
        raise UsageError("--server selects servers for --hosts")
    if args.device or args.os:
        raise UsageError("--device and --os select switches; with --hosts use --server")
    if args.output in (None, "-") or args.stdout:
        raise UsageError("--hosts writes a folder: give -o DIR")
    inventory = load(args, "render")
    for name in args.server:
        if name not in inventory.servers:
            raise UsageError(
                f"no server {name!r} in {args.inventory}{suggest(name, inventory.servers)}"
            )
    result = render_hosts(plan_hosts(inventory), args.server or None)
    for note in result.notes:
        print(printable(f"lossless: {note}"), file=sys.stderr)
    if not result.files:
        raise UsageError("no server with a NIC lossless renders")
    folder = Path(args.output)
    if args.check:
        drifted = drift(folder, result.files)
        for name in drifted:
            print(f"drift: {folder / name}")
        print(f"{len(drifted)} of {plural(len(result.files), 'file')} differ from the inventory")
        return 1 if drifted else 0
    report = write_atomically(folder, result.files)
    print(f"{len(report.written)} written, {len(report.unchanged)} unchanged in {folder}")
    return 0
