"""Offline diff: rendered intent against running-config backups (Oxidized, RANCID: one file
per device), in each OS's own terms, over the part of the config lossless owns."""

from __future__ import annotations

import inspect
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lossless.errors import InputError, Problem
from lossless.plan import FabricPlan
from lossless.render import render_device
from lossless.vendors import vendor_for
from lossless.vendors.common import read_config

BACKUP_SUFFIXES = ("", ".cfg", ".conf", ".txt", ".json", ".yaml")


@dataclass
class DeviceDiff:
    device: str
    os: str
    kind: str  # remediation, set-commands, json-patch, nvue-commands
    backup: str | None
    changes: list[Any] = field(default_factory=list)
    apply: str = ""  # how to apply the changes on the switch (vendor APPLY_HINT), if told

    @property
    def status(self) -> str:
        if self.backup is None:
            return "missing-backup"
        return "changed" if self.changes else "unchanged"


def find_backup(folder: Path, device: str, extension: str) -> Path | None:
    for suffix in (f".{extension}", *BACKUP_SUFFIXES):
        candidate = folder / f"{device}{suffix}"
        if candidate.is_file():
            return candidate
    return None


def offline_diff(plan: FabricPlan, folder: Path) -> list[DeviceDiff]:
    diffs = []
    for device in plan.devices.values():
        vendor = vendor_for(device.os)
        backup = find_backup(folder, device.name, vendor.EXTENSION)
        result = DeviceDiff(
            device.name, device.os, vendor.DIFF_KIND, None, apply=getattr(vendor, "APPLY_HINT", "")
        )
        if backup is not None:
            result.backup = str(backup)
            try:
                # A vendor whose diff reads the backup with line marks takes its file name.
                named = "running_file" in inspect.signature(vendor.diff).parameters
                result.changes = vendor.diff(
                    read_config(str(backup)),
                    render_device(device, plan),
                    **({"running_file": str(backup)} if named else {}),
                )
            except (ValueError, KeyError, TypeError) as error:  # malformed backup
                raise InputError(
                    [Problem(str(backup), 1, 1, "", f"cannot read backup: {error}")]
                ) from None
            except Exception as error:  # hier_config's own errors (duplicate sections, ...)
                if type(error).__module__.startswith("hier_config"):
                    raise InputError(
                        [Problem(str(backup), 1, 1, "", f"cannot read backup: {error}")]
                    ) from None
                raise
        diffs.append(result)
    return diffs


def summary(diffs: list[DeviceDiff]) -> dict[str, int]:
    counts = {"changed": 0, "unchanged": 0, "missing-backup": 0}
    for item in diffs:
        counts[item.status] += 1
    return counts


def render_text(diffs: list[DeviceDiff]) -> str:
    lines = []
    for item in diffs:
        if item.status == "missing-backup":
            lines.append(f"{item.device} ({item.os}): no running-config backup")
            continue
        lines.append(
            f"{item.device} ({item.os}, {item.kind}, {item.backup}): {len(item.changes)} change(s)"
        )
        lines += [f"    {c if isinstance(c, str) else json.dumps(c)}" for c in item.changes]
        if item.changes and item.apply:
            lines.append(f"    # {item.apply}")
    counts = summary(diffs)
    lines.append(
        f"summary: {counts['changed']} changed, {counts['unchanged']} unchanged, "
        f"{counts['missing-backup']} missing backup"
    )
    return "\n".join(lines)


def render_json(diffs: list[DeviceDiff]) -> str:
    return json.dumps(
        {
            "devices": [
                {
                    "device": d.device,
                    "os": d.os,
                    "kind": d.kind,
                    "backup": d.backup,
                    "status": d.status,
                    "changes": d.changes,
                    **({"apply": d.apply} if d.apply else {}),
                }
                for d in diffs
            ],
            "summary": summary(diffs),
        },
        indent=2,
    )
