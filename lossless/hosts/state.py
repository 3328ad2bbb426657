"""Lint hosts' saved NIC state (`lossless lint INVENTORY --host-state DIR`).

DIR holds what collect-host-state.sh saves: DIR/<server>/<interface>/ (see
lossless/vendors/nvidia_state.py). Each NIC's state is read into a NicPlan that replaces
the planned one, so the host rules (LL109, LL130-LL135) compare the NIC as it is with the
switch port at the other end of its cable; every setting that differs from the plan is LL210
host drift, at the file and line it was read from.
"""

from __future__ import annotations

import copy
import os
from pathlib import Path
from typing import Any

from lossless.hosts import nvidia, nvidia_state
from lossless.hosts.vendors import host_vendor
from lossless.lint.registry import Finding
from lossless.plan import FabricPlan, NicPlan
from lossless.system.files import inside
from lossless.vendors.grouping import group

# The settings a saved state shows, compared with the plan.
STATE_FIELDS = (
    "speed_mbps",
    "mtu",
    "trust",
    "pfc_priorities",
    "roce_dscp",
    "roce_priority",
    "cnp_dscp",
    "cnp_priority",
    "ecn_np",
    "ecn_rp",
    "link_pause",
    "cable_m",
)


def _finding(nic: NicPlan, source: str, rule: str, severity: str, message: str) -> Finding:
    device, _, port = (nic.peer or "").partition(":")
    text = f"{nic.server}:{nic.name}: {message}"
    return Finding(source, rule, severity, text, device or None, port or None)


def _missing(nic: NicPlan, message: str) -> Finding:
    """LL211 at the NIC's line in the inventory: it is checked from the inventory alone."""
    return _finding(nic, nic.source, "LL211", "warning", message)


def _shown(value: Any) -> str:
    return "not in the saved state" if value is None else f"{value} on the host"


def host_drift(planned: NicPlan, state: NicPlan) -> list[Finding]:
    """LL210 for every setting the state shows otherwise than the plan (or not at all)."""
    findings = []
    for name in STATE_FIELDS:
        want, have = getattr(planned, name), getattr(state, name)
        if want is not None and want != have:
            findings.append(
                _finding(
                    state,
                    state.where(name),
                    "LL210",
                    "error",
                    f"{name} is {_shown(have)}, the plan has {want}",
                )
            )
    for name, want in planned.dcqcn.items():
        have = state.dcqcn.get(name)
        if have != want:
            findings.append(
                _finding(
                    state,
                    state.where(f"dcqcn.{name}"),
                    "LL210",
                    "error",
                    f"DCQCN {name} is {_shown(have)}, the plan has {want}",
                )
            )
    return findings


def _inside(root: Path, folder: Path, name: str) -> Path | None:
    """folder/name (folder is root or a folder of it); None for a name that is not one entry
    (names come from the inventory): no saved state. A symlink that leads outside root (the
    state came from hosts) is refused, a usage error naming it, as `lint --configs` does."""
    if name in ("", ".", "..") or "/" in name or os.sep in name:
        return None
    return inside(folder, name, "--host-state", root)


def fabric_from_host_state(plan: FabricPlan, folder: Path) -> tuple[FabricPlan, list[Finding]]:
    """The plan with every NIC whose state is saved in folder replaced by that state, and the
    drift and missing-state findings."""
    planned = plan.planned_nics()  # before the copy: it takes the planned NICs, not the planner
    fabric = copy.copy(plan)
    fabric.nics = dict(planned)
    findings: list[Finding] = []
    for server, nics in group(planned.values(), lambda n: n.server).items():
        server_folder = _inside(folder, folder, server)
        if server_folder is None or not server_folder.is_dir():
            findings.append(_missing(nics[0], f"no saved state in {folder / server}"))
            continue
        for nic in nics:
            if host_vendor(nic.model) is not nvidia:
                model = nic.model or "model-less"
                findings.append(_missing(nic, f"the state of {model} NICs is not read yet"))
                continue
            nic_folder = _inside(folder, server_folder, nic.name)
            if nic_folder is None or not nic_folder.is_dir():
                findings.append(_missing(nic, f"no saved state in {server_folder / nic.name}"))
                continue
            state = nvidia_state.parse_state(nic_folder, nic, root=folder)
            findings += host_drift(nic, state)
            fabric.nics[f"{server}:{nic.name}"] = state
    return fabric, findings
