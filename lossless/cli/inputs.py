"""The inventory a command works on: the one named, or the one in this folder when none is
(what lets the pre-commit hooks run with no `args`), loaded with the lint rules its
`lint_ignore` may name."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Collection
from pathlib import Path

from lossless.errors import UsageError
from lossless.inventory import load_inventory
from lossless.model import Inventory
from lossless.text.printable import printable


def inventory_path(args: argparse.Namespace, command: str) -> str:
    """args.inventory, or the inventory found here (said on stderr) when none is given."""
    if args.inventory is None:
        from lossless.inventory.discover import the_inventory

        args.inventory = the_inventory(command)
        print(printable(f"lossless {command}: inventory {args.inventory}"), file=sys.stderr)
    path: str = args.inventory
    return path


def load(args: argparse.Namespace, command: str) -> Inventory:
    """The command's inventory, validated and resolved (bad input: InputError)."""
    return load_inventory(inventory_path(args, command), _rule_ids)


def _rule_ids() -> Collection[str]:
    """Every lint rule's ID; asked for only when an inventory has a `lint_ignore` (the rules
    import the planner's models and the vendors)."""
    from lossless.lint.catalogue import registered_rules

    return registered_rules()


def folder(name: str, option: str) -> Path:
    """A folder the command reads (--configs, --running, --host-state): a usage error if not."""
    path = Path(name)
    if not path.is_dir():
        raise UsageError(f"{option}: {path} is not a folder")
    return path
