"""Which devices a command works on: --device takes names, comma lists and ranges written
as in the inventory (leaf[01:04],spine1), --os one or more operating systems."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from lossless import ranges
from lossless.errors import UsageError
from lossless.inventory.schema import suggest


def expand_names(specs: Iterable[str], option: str = "--device") -> list[str]:
    """Names in the order given, each once: "leaf[01:02],spine1" -> leaf01, leaf02, spine1."""
    names: list[str] = []
    for spec in specs:
        for item in spec.split(","):
            word = item.strip()
            if not word:
                raise UsageError(f"{option}: empty name in {spec!r}")
            try:
                expanded = ranges.expand(word)
            except ranges.RangeError as error:
                raise UsageError(f"{option}: {error}") from None
            names += [name for name in expanded if name not in names]
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
