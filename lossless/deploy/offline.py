"""Offline diff: rendered intent against running-config backups (Oxidized, RANCID: one file
per device), in each OS's own terms, over the part of the config lossless owns; each change
with its impact on traffic, and the order the devices take them in (docs/change-impact.md)."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lossless.deploy.impact import (
    ChangeImpact,
    classify,
    disruptive,
    impact_counts,
    impact_lines,
    impact_summary,
)
from lossless.deploy.order import ChangeOrder, change_order
from lossless.plan import DevicePlan, FabricPlan
from lossless.system.files import read_config
from lossless.system.parallel import ordered_map
from lossless.text.grammar import plural
from lossless.text.printable import inert_json, printable
from lossless.vendors.config_folder import find_backup, folder_entries
from lossless.vendors.registry import vendor_for
from lossless.vendors.rendering import render_device
from lossless.vendors.untrusted import diff_config, held_back_config


@dataclass
class DeviceDiff:
    device: str
    os: str
    kind: str  # remediation, set-commands, json-patch, nvue-commands
    backup: str | None
    changes: list[Any] = field(default_factory=list)
    apply: str = ""  # how to apply the changes on the switch (the vendor's apply_hint), if told
    impacts: list[ChangeImpact] = field(default_factory=list)  # per change unit
    # changes the diff leaves out because the switch's apply tool refuses them, each with
    # how to apply it otherwise (SONiC GCU: BUFFER_POOL, a profile unplanned ports share)
    held_back: list[str] = field(default_factory=list)

    @property
    def status(self) -> str:
        if self.backup is None:
            return "missing-backup"
        return "changed" if self.changes or self.held_back else "unchanged"


def offline_diff(plan: FabricPlan, folder: Path) -> list[DeviceDiff]:
    """Each device's diff from its backup, in plan order (by worker processes on a large
    fabric: lossless.parallel)."""
    devices = list(plan.devices.values())
    entries = folder_entries(folder)
    return list(
        ordered_map(lambda index: _device_diff(devices[index], plan, folder, entries), len(devices))
    )


def _device_diff(
    device: DevicePlan, plan: FabricPlan, folder: Path, entries: dict[str, os.DirEntry[str]]
) -> DeviceDiff:
    vendor = vendor_for(device.os)
    backup = find_backup(folder, device.name, vendor.extension, entries=entries)
    result = DeviceDiff(device.name, device.os, vendor.diff_kind, None, apply=vendor.apply_hint)
    if backup is not None:
        result.backup = str(backup)
        intended = render_device(device, plan)
        # a backup byte-identical to the render has nothing to change (not parsed)
        if read_config(str(backup)) != intended:
            result.changes = diff_config(device.os, str(backup), intended)
            result.impacts = classify(device.os, result.kind, result.changes)
            result.held_back = held_back_config(device.os, str(backup), intended)
    return result


def diff_order(plan: FabricPlan, diffs: list[DeviceDiff]) -> ChangeOrder:
    """The phases of the changed devices; a device without a backup is unknown."""
    return change_order(
        plan,
        {d.device: (d.impacts if d.backup is not None else None) for d in diffs},
        unchanged_phase=False,
    )


def change_count(item: DeviceDiff) -> int:
    """The changes a device's diff makes: one per change unit (lossless.deploy.impact), so an
    enclosing `interface Ethernet1/1` line of a remediation, which changes nothing by itself,
    is not counted."""
    return len(item.impacts)


def summary(diffs: list[DeviceDiff]) -> dict[str, int]:
    counts = {"changed": 0, "unchanged": 0, "missing-backup": 0}
    for item in diffs:
        counts[item.status] += 1
    return counts


def render_text(diffs: list[DeviceDiff], order: ChangeOrder) -> str:
    """The diffs for people: each line printable (a backup's lines are the device's text:
    lossless.text.printable), a change of several lines shown on one."""
    lines = []
    for item in diffs:
        if item.status == "missing-backup":
            lines.append(f"{item.device} ({item.os}): no running-config backup")
            continue
        changes = plural(change_count(item), "change")
        phase = order.phase_of(item.device)
        impact = f", {len(disruptive(item.impacts))} disruptive" + (
            f", phase {phase}" if phase else ""
        )
        lines.append(
            f"{item.device} ({item.os}, {item.kind}, {item.backup}): {changes}"
            + (impact if item.changes else "")
        )
        lines += [f"    {c if isinstance(c, str) else json.dumps(c)}" for c in item.changes]
        if item.changes and item.apply:
            lines.append(f"    # {item.apply}")
        lines += [f"    # held back (apply it yourself): {held}" for held in item.held_back]
        if item.impacts:
            lines.append("  impact:")
            lines += impact_lines(item.impacts)
    lines += order.lines()
    counts = summary(diffs)
    lines.append(
        f"summary: {counts['changed']} changed, {counts['unchanged']} unchanged, "
        f"{counts['missing-backup']} missing backup; "
        + impact_summary({d.device: d.impacts for d in diffs})
    )
    return "\n".join(map(printable, lines))


def render_json(diffs: list[DeviceDiff], order: ChangeOrder) -> str:
    """The diff as JSON (json.dumps escapes every control character); inert_json keeps a
    backup's `##[` from being a CI runner's command when the file is printed."""
    impacts = {d.device: d.impacts for d in diffs}
    return inert_json(
        json.dumps(
            {
                "devices": [
                    {
                        "device": d.device,
                        "os": d.os,
                        "kind": d.kind,
                        "backup": d.backup,
                        "status": d.status,
                        "changes": d.changes,
                        "change_count": change_count(d),  # lines that open a section are not
                        "impacts": [i.to_dict() for i in d.impacts],
                        **({"held_back": d.held_back} if d.held_back else {}),
                        "phase": order.phase_of(d.device),
                        **({"apply": d.apply} if d.apply else {}),
                    }
                    for d in diffs
                ],
                "order": order.to_dict(),
                "summary": {**summary(diffs), **impact_counts(impacts)},
            },
            indent=2,
        )
    )
