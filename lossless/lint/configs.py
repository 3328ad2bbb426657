"""Lint vendor configs: parse each into a DevicePlan and compare it with the plan.

With an inventory, each device's config is parsed on top of the device's plan (facts a
config cannot hold, like peers and the ASIC, come from the plan), the parsed plan replaces
the planned one for the rules, and every expressed setting that differs is LL200 drift.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from lossless.lint.drift import drift
from lossless.lint.registry import Finding
from lossless.plan import DevicePlan, FabricPlan
from lossless.vendors import vendor_for


def _parser(os_name: str) -> Any:
    vendor = vendor_for(os_name)
    return vendor if hasattr(vendor, "parse_file") else None


def _inherit_pfc_trigger(parsed: DevicePlan, planned: DevicePlan | None) -> None:
    """A config holds ECN thresholds, not the PFC trigger; take the trigger from the plan."""
    if planned is None:
        return
    for port in parsed.ports.values():
        planned_port = planned.ports.get(port.name)
        triggers = {e.queue: e.pfc_trigger_bytes for e in planned_port.ecn} if planned_port else {}
        for ecn in port.ecn:
            trigger = triggers.get(ecn.queue)
            if ecn.pfc_trigger_bytes is None and trigger is not None:
                ecn.pfc_trigger_bytes = trigger
                ecn.min_below_trigger = ecn.min_bytes < trigger
                ecn.max_below_trigger = ecn.max_bytes <= trigger


def fabric_from_configs(plan: FabricPlan, folder: Path) -> tuple[FabricPlan, list[Finding]]:
    fabric = copy.copy(plan)
    fabric.devices = dict(plan.devices)
    findings: list[Finding] = []
    for name, planned in plan.devices.items():
        vendor = _parser(planned.os)
        path = folder / f"{name}.{vendor_for(planned.os).EXTENSION}"
        if vendor is None or not path.is_file():
            reason = f"no parser for {planned.os} yet" if vendor is None else f"no {path}"
            findings.append(
                Finding(
                    planned.source,
                    "LL201",
                    "warning",
                    f"{reason}: checked from the inventory only",
                    name,
                )
            )
            continue
        parsed = vendor.parse_file(str(path), name, hint=planned)
        _inherit_pfc_trigger(parsed, planned)
        findings.extend(drift(planned, parsed, vendor))
        fabric.devices[name] = parsed
    return fabric, findings


def fabric_from_config(path: Path, os_name: str) -> FabricPlan:
    """One config alone: a fabric of one device, facts the config lacks from a skeleton."""
    vendor = _parser(os_name)
    if vendor is None:
        raise ValueError(f"no parser for {os_name} yet")
    name = path.stem
    device = vendor.parse_file(str(path), name)
    return FabricPlan(name=name, inventory=str(path), devices={name: device}, links=[])
