"""The plan values a device's OS cannot say, grouped so a fabric of a thousand switches of
one OS gives one line, not a thousand."""

from __future__ import annotations

from collections.abc import Iterable

from lossless.plan import DevicePlan
from lossless.text.grammar import first_few
from lossless.vendors.registry import not_expressed


def not_expressed_lines(devices: Iterable[DevicePlan]) -> list[str]:
    groups: dict[tuple[str, tuple[tuple[str, str], ...]], list[str]] = {}
    for device in devices:
        values = tuple(not_expressed(device))
        if values:
            groups.setdefault((device.os, values), []).append(device.name)
    lines = []
    for (os_name, values), names in groups.items():
        lines.append(f"not expressed in {os_name} config ({first_few(names, 5)}):")
        lines += [f"  {what}: {why}" for what, why in values]
    return lines
