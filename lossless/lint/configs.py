"""Lint vendor configs: parse each into a DevicePlan and compare it with the plan.

With an inventory, each device's config is parsed from an empty device that takes from the
plan only what a config cannot hold (peers, the ASIC: vendors/skeleton.py), the parsed plan
replaces the planned one for the rules, and every expressed setting that differs is LL200
drift.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path

from lossless.asics import catalogue
from lossless.asics.models import ModelMatch
from lossless.errors import InputError, Problem
from lossless.lint.drift import drift
from lossless.lint.registry import Finding
from lossless.plan import DevicePlan, EcnPlan, FabricPlan, replaced
from lossless.planner.pfc_trigger import config_trigger
from lossless.system.files import read_config
from lossless.system.parallel import ordered_map
from lossless.vendors.config_folder import find_backup, folder_entries
from lossless.vendors.registry import vendor_for
from lossless.vendors.rendering import RenderedFile, digest, render_device
from lossless.vendors.skeleton import skeleton_device
from lossless.vendors.untrusted import parse_config, parse_config_file
from lossless.vendors.vendor import Vendor


def _judged(ecn: EcnPlan, trigger_bytes: int, queue_trigger_bytes: int | None) -> EcnPlan:
    """A parsed ECN (which a config states without the PFC trigger) against the trigger T and
    the queue's share T/f: whether it marks before PFC fires."""
    limit = queue_trigger_bytes or trigger_bytes
    return replaced(
        ecn,
        pfc_trigger_bytes=trigger_bytes,
        queue_trigger_bytes=queue_trigger_bytes,
        min_below_trigger=ecn.min_bytes < limit,
        max_below_trigger=ecn.max_bytes <= limit,
    )


def _inherit_pfc_trigger(parsed: DevicePlan, planned: DevicePlan | None) -> None:
    """A config holds ECN thresholds, not the PFC trigger; take the trigger from the plan."""
    if planned is None:
        return
    for port in parsed.ports.values():
        planned_port = planned.ports.get(port.name)
        planned_ecn = {e.queue: e for e in planned_port.ecn} if planned_port else {}
        for index, ecn in enumerate(port.ecn):
            plan = planned_ecn.get(ecn.queue)
            if ecn.pfc_trigger_bytes is None and plan and plan.pfc_trigger_bytes is not None:
                port.ecn[index] = _judged(ecn, plan.pfc_trigger_bytes, plan.queue_trigger_bytes)


def fabric_from_configs(
    plan: FabricPlan,
    folder: Path,
    progress: Callable[[str], None] | None = None,
    rendered: dict[str, RenderedFile] | None = None,
) -> tuple[FabricPlan, list[Finding]]:
    """The plan with every device whose config is in `folder` replaced by the parsed config,
    and the findings made while reading them (LL200 drift, LL201 missing).

    Configs are found as `<device>.<ext>` or under the names backup tools use (Oxidized's bare
    device name, .cfg, .conf, ...). A config byte-identical to what lossless renders for the
    device cannot drift: it is not parsed and the device's plan stands for it; `rendered`
    (a mapping) then gets the file and the digest of its text, so a run that writes the
    configs too (`ci`) reads them back instead of rendering every device twice."""
    fabric = copy.copy(plan)
    fabric.devices = dict(plan.devices)
    findings: list[Finding] = []
    found: list[tuple[DevicePlan, Vendor, str]] = []  # (planned, its OS, config path)
    entries = folder_entries(folder, "--configs")
    for name, planned in plan.devices.items():
        if progress is not None:
            progress(name)
        vendor = vendor_for(planned.os)
        path = find_backup(folder, name, vendor.extension, "--configs", entries)
        if path is None:
            findings.append(
                Finding(
                    planned.source,
                    "LL201",
                    "warning",
                    f"no config for {name} in {folder}: checked from the inventory only",
                    name,
                )
            )
            continue
        found.append((planned, vendor, str(path)))

    def differing_text(index: int) -> str | bytes:
        """The config's text, or the digest of its text when it is byte for byte what
        lossless renders."""
        planned, _, config_path = found[index]
        text = read_config(config_path)
        return digest(text) if text == render_device(planned, plan) else text

    # read and rendered by worker processes on a large fabric (lossless.parallel): only the
    # text of a config that differs comes back
    texts = ordered_map(differing_text, len(found))
    unreadable: list[Problem] = []  # every config that does not parse, in one report
    for (planned, vendor, config_path), text in zip(found, texts, strict=True):
        if isinstance(text, bytes):
            if rendered is not None:
                rendered[planned.name] = RenderedFile(config_path, text)
            continue
        name = planned.name
        try:
            parsed = parse_config(planned.os, text, config_path, name, hint=planned)
        except InputError as error:
            unreadable.extend(error.problems)
            continue
        _inherit_pfc_trigger(parsed, planned)
        findings.extend(drift(planned, parsed, vendor))
        fabric.devices[name] = parsed
    if unreadable:
        raise InputError(unreadable)
    return fabric, findings


# What a config linted alone is judged for when the command line does not say: the DSCPs
# the hosts send by default (NVIDIA NICs and Cumulus `qos roce`: RoCE 26, CNP 48;
# docs/reference/physics.md 1).
DEFAULT_ROCE_DSCP, DEFAULT_CNP_DSCP = 26, 48


def fabric_from_config(
    path: Path,
    os_name: str,
    roce_dscp: int | None = None,
    cnp_dscp: int | None = None,
    hardware: ModelMatch | None = None,
) -> FabricPlan:
    """One config alone: a fabric of one device, facts the config lacks from a skeleton.

    Which DSCPs the hosts send is not in a switch config: the config's classes are judged for
    the ones given, else for the hosts' documented defaults, and the device records that they
    were assumed (rules say so where it matters). The hardware is `hardware` (--asic,
    --platform), else the model the config's header names, else unknown; a known ASIC gives
    the PFC trigger the config's ECN thresholds are judged against."""
    name = path.stem
    hint = skeleton_device(name, os_name, str(path))
    hint.roce_dscp = DEFAULT_ROCE_DSCP if roce_dscp is None else roce_dscp
    hint.cnp_dscp = DEFAULT_CNP_DSCP if cnp_dscp is None else cnp_dscp
    if hardware is not None:
        hint.asic, hint.platform = hardware.asic, hardware.platform
        hint.max_lossless_priorities = catalogue()[hardware.asic].max_lossless_priorities
    device = parse_config_file(os_name, str(path), name, hint=hint)
    for fact, given, flag in (
        ("roce_dscp", roce_dscp, "--roce-dscp"),
        ("cnp_dscp", cnp_dscp, "--cnp-dscp"),
    ):
        if given is None:
            device.assumed[fact] = f"assumed, the hosts' default; {flag} sets it"
    _judge_trigger(device)
    return FabricPlan(name=name, inventory=str(path), devices={name: device}, links=[])


def _judge_trigger(device: DevicePlan) -> None:
    """A config alone on known hardware: the PFC trigger its ECN thresholds must stay below
    (planner/pfc_trigger.config_trigger), on every ECN the config states."""
    if device.asic not in catalogue():
        return
    speeds = [p.speed_mbps for p in device.ports.values() if p.lossless and p.speed_mbps]
    stated_th = "headroom_settings" in device.sources
    trigger = config_trigger(
        device.asic,
        device.platform,
        min(speeds, default=0),
        len(device.lossless_priorities) or 1,
        device.headroom_settings.dynamic_th if stated_th else None,
    )
    if trigger is None or trigger.plan.queue_trigger_bytes is None:
        return
    device.pfc_trigger = plan = trigger.plan
    for port in device.ports.values():
        port.ecn = [
            ecn
            if ecn.pfc_trigger_bytes is not None or plan.trigger_bytes is None
            else _judged(ecn, plan.trigger_bytes, plan.queue_trigger_bytes)
            for ecn in port.ecn
        ]
