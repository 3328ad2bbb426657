"""`lossless export TARGET`: the plan as another tool's input. `anta`: an Arista ANTA test
catalog (YAML) for the inventory's EOS devices (docs/anta.md). `state-script`: the bash
script that saves the switches' show outputs for `lossless verify --state` (docs/verify.md).

An inventory with no EOS device (or a --device selection without one) has nothing to export:
a usage error (exit 2), so a pipeline does not hand ANTA an empty catalog that passes. EOS
devices the selection skips are named on stderr."""

from __future__ import annotations

import argparse
import sys

from lossless.cli.inputs import load
from lossless.cli.outputs import write_text
from lossless.cli.selection import select_devices
from lossless.errors import UsageError
from lossless.planner.fabric import plan_fabric
from lossless.text.grammar import plural
from lossless.text.printable import printable


def export_command(args: argparse.Namespace) -> int:
    if args.target == "state-script":
        return _state_script(args)
    return _anta(args)


def _state_script(args: argparse.Namespace) -> int:
    """The collection script of `verify --state` for the selected switches."""
    from lossless.verify.script import collection_script

    inventory = load(args, "export")
    chosen = select_devices(inventory.devices, args.device, args.inventory)
    plan = plan_fabric(inventory, chosen or None, hosts=False)
    script = collection_script(plan)
    target = write_text(args.output, script)
    if target is not None:
        print(printable(f"wrote {target} (run it as: bash {target} DIR)"))
    return 0


def _anta(args: argparse.Namespace) -> int:
    from lossless.report.anta_catalog import (
        ANTA_OS,
        anta_catalog,
        catalog_size,
        catalog_text,
    )

    inventory = load(args, "export")
    chosen = select_devices(inventory.devices, args.device, args.inventory)
    eos = [name for name in chosen if inventory.devices[name].os == ANTA_OS]
    if not eos:
        raise UsageError(
            f"no EOS device {'selected' if args.device else 'in ' + args.inventory}: "
            "ANTA tests Arista EOS switches, so there is no catalog to write"
        )
    if args.device:
        for name in chosen:
            if name not in eos:
                os_name = inventory.devices[name].os
                print(printable(f"lossless: {name} ({os_name}) skipped: not EOS"), file=sys.stderr)
    plan = plan_fabric(inventory, eos, hosts=False)
    catalog = anta_catalog(plan.devices[name] for name in eos)
    if not catalog:
        raise UsageError(f"no ANTA test applies: {', '.join(eos)} list no port")
    text = catalog_text(catalog, args.inventory)
    target = write_text(args.output, text)
    if target is not None:
        counted = f"{plural(catalog_size(catalog), 'test')} for {plural(len(eos), 'EOS device')}"
        print(printable(f"wrote {target} (ANTA catalog: {counted})"))
    return 0
