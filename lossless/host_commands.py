"""The host parts of the CLI commands: `render --hosts` and `lint --host-state`.

Why `render --hosts` and not a `hosts` command: in a pipeline the servers' files are one
more rendering of the same inventory, with the same output folder (-o), the same atomic,
byte-identical writes and the same `--check` drift gate; a separate verb would repeat all of
it. The flag renders only the hosts, so switch and host files go to folders of their own and
each `--check` sees only its own files.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from lossless.errors import UsageError
from lossless.hosts.plan import plan_nics
from lossless.hosts.render import render_hosts
from lossless.inventory import load_inventory
from lossless.inventory.schema import suggest
from lossless.lint.registry import Finding
from lossless.plan import FabricPlan
from lossless.system.writing import drift, write_atomically
from lossless.text.grammar import plural


def render_hosts_command(args: argparse.Namespace) -> int:
    if not args.hosts:
        raise UsageError("--server selects servers for --hosts")
    if args.device or args.os:
        raise UsageError("--device and --os select switches; with --hosts use --server")
    if args.output in (None, "-") or args.stdout:
        raise UsageError("--hosts writes a folder: give -o DIR")
    inventory = load_inventory(args.inventory)
    for name in args.server:
        if name not in inventory.servers:
            raise UsageError(
                f"no server {name!r} in {args.inventory}{suggest(name, inventory.servers)}"
            )
    hosts = FabricPlan(
        name=inventory.fabric_name,
        inventory=inventory.file,
        devices={},
        links=[],
        nics=plan_nics(inventory),
    )
    result = render_hosts(hosts, args.server or None)
    for note in result.notes:
        print(f"lossless: {note}", file=sys.stderr)
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


def read_host_state(plan: FabricPlan, folder_name: str) -> tuple[FabricPlan, list[Finding]]:
    from lossless.hosts.state import fabric_from_host_state

    folder = Path(folder_name)
    if not folder.is_dir():
        raise UsageError(f"--host-state: {folder} is not a folder")
    return fabric_from_host_state(plan, folder)
