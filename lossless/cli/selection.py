"""Which devices a command works on: --device takes names, comma lists and ranges written
as in the inventory (leaf[01:04],spine1), --os one or more operating systems."""

from __future__ import annotations

import argparse
from collections.abc import Iterable, Mapping
from typing import Any

from lossless.errors import UsageError
from lossless.inventory.schema import suggest
from lossless.model import Inventory
from lossless.text import ranges
from lossless.text.lists import comma_separated


def expand_names(specs: Iterable[str], option: str = "--device") -> list[str]:
    """Names in the order given, each once: "leaf[01:02],spine1" -> leaf01, leaf02, spine1."""
    names: list[str] = []
    try:
        for word in comma_separated(specs):
            names += [name for name in ranges.expand(word) if name not in names]
    except ValueError as error:  # RangeError is one too
        raise UsageError(f"{option}: {error}") from None
    return names


def select_devices(
    devices: Mapping[str, Any],
    specs: Iterable[str],
    source: str,
    os_names: Iterable[str] | None = None,
) -> list[str]:
    """The devices named by --device (all when none is named) that run one of `os_names`
    (any when none), in inventory order. A name the inventory lacks is a usage error."""
    named = expand_names(specs)
    for name in named:
        if name not in devices:
            raise UsageError(f"no device {name!r} in {source}{suggest(name, devices)}")
    wanted_os = set(os_names or ())
    chosen = [
        name
        for name, device in devices.items()
        if (not named or name in named) and (not wanted_os or device.os in wanted_os)
    ]
    if not chosen:
        raise UsageError("no device matches --device/--os")
    return chosen


def chosen_devices(inventory: Inventory, args: argparse.Namespace) -> list[str] | None:
    """The devices --device and --os name (None: every device, so the plan is whole)."""
    os_names = getattr(args, "os", None) or []
    if not args.device and not os_names:
        return None
    return select_devices(inventory.devices, args.device, args.inventory, os_names)
