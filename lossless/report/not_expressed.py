"""The plan values a device's OS cannot say, grouped so a fabric of a thousand switches of
one OS gives one line, not a thousand: a one-line summary for every render, the details
(`render -v`, `lossless plan`) with the source shorthands of the vendor tables spelt out.

The shorthands are the pinned upstream snapshots of docs/reference/README.md ("Pinned
upstream snapshots": `bi:` sonic-buildimage, `swss:` sonic-swss, `util:` sonic-utilities)
and the Arista EOS User Manual (`um-eos`, https://www.arista.com/en/um-eos).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from lossless.plan import DevicePlan
from lossless.text.grammar import first_few, plural
from lossless.vendors.registry import not_expressed

Groups = dict[tuple[str, tuple[tuple[str, str], ...]], list[str]]

_REPOSITORIES = {"bi": "sonic-buildimage", "swss": "sonic-swss", "util": "sonic-utilities"}
_SHORT_REPO = re.compile(r"\b(bi|swss|util):(?=[\w.-]+/)")
_UM_EOS = re.compile(r"\bum-eos\b")


def _groups(devices: Iterable[DevicePlan]) -> Groups:
    groups: Groups = {}
    for device in devices:
        values = tuple(not_expressed(device))
        if values:
            groups.setdefault((device.os, values), []).append(device.name)
    return groups


def spelt_out(text: str) -> str:
    """A vendor note with its source shorthands written as names a reader can look up."""
    text = _SHORT_REPO.sub(lambda m: f"{_REPOSITORIES[m.group(1)]} ", text)
    return _UM_EOS.sub("Arista EOS User Manual", text)


def not_expressed_lines(devices: Iterable[DevicePlan]) -> list[str]:
    """Every value per OS and group of devices, with why its config cannot say it."""
    lines = []
    for (os_name, values), names in _groups(devices).items():
        lines.append(f"not expressed in {os_name} config ({first_few(names, 5)}):")
        lines += [f"  {what}: {spelt_out(why)}" for what, why in values]
    if lines:
        lines.append(
            "  (sonic-buildimage, sonic-swss, sonic-utilities: at the commits pinned in "
            "docs/reference/README.md)"
        )
    return lines


def not_expressed_summary(devices: Iterable[DevicePlan]) -> str | None:
    """One line: how many plan values no config states, and where the list is; None when
    every value is in the configs."""
    groups = _groups(devices)
    if not groups:
        return None
    values = sum(len(values) * len(names) for (_, values), names in groups.items())
    device_count = sum(len(names) for names in groups.values())
    verb = "is" if values == 1 else "are"
    return (
        f"note: {plural(values, 'plan value')} on {plural(device_count, 'device')} {verb} not "
        "in the configs (the OS's default or its own computation applies): "
        "render -v or `lossless plan` lists them"
    )
