"""Lint vendor configs: parse each into a DevicePlan and compare it with the plan.

With an inventory, each device's config is parsed on top of the device's plan (facts a
config cannot hold, like peers and the ASIC, come from the plan), the parsed plan replaces
the planned one for the rules, and every expressed setting that differs is LL200 drift.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from lossless.files import inside
from lossless.lint.registry import Finding
from lossless.plan import DevicePlan, FabricPlan
from lossless.vendors import vendor_for
from lossless.vendors.untrusted import parse_config_file


def _parser(os_name: str) -> Any:
    vendor = vendor_for(os_name)
    return vendor if hasattr(vendor, "parse_file") else None


def _inherit_pfc_trigger(parsed: DevicePlan, planned: DevicePlan | None) -> None:
    """A config holds ECN thresholds, not the PFC trigger; take the trigger from the plan."""
    if planned is None:
        return
    for port in parsed.ports.values():
        planned_port = planned.ports.get(port.name)
        planned_ecn = {e.queue: e for e in planned_port.ecn} if planned_port else {}
        for ecn in port.ecn:
            plan = planned_ecn.get(ecn.queue)
            if ecn.pfc_trigger_bytes is None and plan and plan.pfc_trigger_bytes is not None:
                ecn.pfc_trigger_bytes = plan.pfc_trigger_bytes
                ecn.queue_trigger_bytes = plan.queue_trigger_bytes  # T/f: the queue's limit
                limit = plan.queue_trigger_bytes or plan.pfc_trigger_bytes
                ecn.min_below_trigger = ecn.min_bytes < limit
                ecn.max_below_trigger = ecn.max_bytes <= limit


def drift(planned: DevicePlan, parsed: DevicePlan, vendor: Any) -> list[Finding]:
    want, have = vendor.expressed(planned), vendor.expressed(parsed)
    findings = []
    for key in sorted(set(want) - {"ports"}):
        if want[key] != have.get(key):
            findings.append(
                Finding(
                    parsed.source,
                    "LL200",
                    "error",
                    f"{key} is {have.get(key)} in the config, the plan has {want[key]}",
                    parsed.name,
                )
            )
    for name in sorted(set(want["ports"]) | set(have["ports"])):
        planned_port, parsed_port = want["ports"].get(name), have["ports"].get(name)
        source = parsed.ports[name].source if name in parsed.ports else parsed.source
        if parsed_port is None:
            findings.append(
                Finding(source, "LL200", "error", f"{name} is not in the config", parsed.name, name)
            )
            continue
        if planned_port is None:
            continue  # a port lossless does not plan is the device's own business
        for key in planned_port:
            if planned_port[key] != parsed_port[key]:
                findings.append(
                    Finding(
                        source,
                        "LL200",
                        "error",
                        f"{key} is {parsed_port[key]} in the config, "
                        f"the plan has {planned_port[key]}",
                        parsed.name,
                        name,
                    )
                )
    return findings


def fabric_from_configs(plan: FabricPlan, folder: Path) -> tuple[FabricPlan, list[Finding]]:
    fabric = copy.copy(plan)
    fabric.devices = dict(plan.devices)
    findings: list[Finding] = []
    for name, planned in plan.devices.items():
        vendor = _parser(planned.os)
        path = inside(folder, f"{name}.{vendor_for(planned.os).EXTENSION}", "--configs")
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
        parsed = parse_config_file(planned.os, str(path), name, hint=planned)
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
    device = parse_config_file(os_name, str(path), name)
    return FabricPlan(name=name, inventory=str(path), devices={name: device}, links=[])
