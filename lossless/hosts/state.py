"""Lint hosts' saved NIC state (`lossless lint INVENTORY --host-state DIR`).

DIR holds what collect-host-state.sh saves: DIR/<server>/<interface>/ (see
lossless/vendors/nvidia_state.py). Each NIC's state is read into a NicPlan that replaces
the planned one, so the host rules (LL109, LL130-LL138) compare the NIC as it is with the
switch port at the other end of its cable; every setting that differs from the plan is LL210
host drift, at the file and line it was read from. A NIC's state without one of its files
(sysfs.txt, say) is one LL211 for the NIC naming the settings left unchecked.
"""

from __future__ import annotations

import copy
import os
from collections.abc import Collection
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


# The settings each file of an NVIDIA NIC's saved state shows (hosts/nvidia_state.py reads
# them; "dcqcn": every DCQCN parameter). A file missing from the state is one LL211 naming
# the settings it leaves unchecked, not an LL210 for each of them.
STATE_FILES = {
    nvidia_state.QOS_FILE: ("trust", "pfc_priorities", "cable_m", "roce_priority"),
    nvidia_state.SYSFS_FILE: (
        "speed_mbps",
        "mtu",
        "roce_dscp",
        "cnp_dscp",
        "cnp_priority",
        "ecn_np",
        "ecn_rp",
        "dcqcn",
    ),
    nvidia_state.PAUSE_FILE: ("link_pause",),
}


def _finding(nic: NicPlan, source: str, rule: str, severity: str, message: str) -> Finding:
    device, _, port = (nic.peer or "").partition(":")
    text = f"{nic.server}:{nic.name}: {message}"
    return Finding(source, rule, severity, text, device or None, port or None)


def _missing(nic: NicPlan, message: str) -> Finding:
    """LL211 at the NIC's line in the inventory: it is checked from the inventory alone."""
    return _finding(nic, nic.source, "LL211", "warning", message)


def _shown(value: Any) -> str:
    return "not in the saved state" if value is None else f"{value} on the host"


def host_drift(planned: NicPlan, state: NicPlan, unchecked: Collection[str] = ()) -> list[Finding]:
    """LL210 for every setting the state shows otherwise than the plan (or not at all), but
    those `unchecked` (STATE_FILES names: their file is not in the state)."""
    findings = []
    for name in STATE_FIELDS:
        if name in unchecked:
            continue
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
    for name, want in ({} if "dcqcn" in unchecked else planned.dcqcn).items():
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
            absent = [name for name in STATE_FILES if not _saved(folder, nic_folder, name)]
            unchecked = {setting for name in absent for setting in STATE_FILES[name]}
            reasons = [_absent_files(nic, nic_folder, absent, unchecked)] if absent else []
            if nvidia_state.SYSFS_FILE not in absent:
                reasons += _not_in_sysfs(nic, state, unchecked)
            if reasons:  # one finding per NIC, whatever its state lacks
                findings.append(_missing(nic, "; ".join(reasons)))
            findings += host_drift(nic, state, unchecked)
            fabric.nics[f"{server}:{nic.name}"] = state
    return fabric, findings


# What the inbox (upstream) mlx5 driver does not expose in sysfs: the ECN knobs exist only
# with MLNX_OFED/DOCA; DCQCN then runs as the firmware sets it (ROCE_CC_PRIO_MASK, every
# priority by default), so the plan's ECN settings cannot be read back (issue 27)
_ECN_SETTINGS = ("cnp_dscp", "cnp_priority", "ecn_np", "ecn_rp", "dcqcn")


def _not_in_sysfs(nic: NicPlan, state: NicPlan, unchecked: set[str]) -> list[str]:
    """What a saved sysfs.txt cannot tell, added to `unchecked`, as LL211 says it: the RoCE
    class without tc/1/traffic_class (RDMA-CM's ToS is not NCCL's class), the ECN settings
    on a driver without the ECN knobs."""
    reasons = []
    if state.roce_dscp is None and nic.roce_dscp is not None:
        unchecked.add("roce_dscp")
        reasons.append(
            "RoCE class unknown: no tc/1/traffic_class in sysfs.txt (MLNX_OFED/DOCA only; "
            "RDMA-CM's default_roce_tos is not the class NCCL sends with, NCCL_IB_TC is)"
        )
    no_ecn = (
        state.ecn_np is None and state.ecn_rp is None and state.cnp_dscp is None and not state.dcqcn
    )
    if no_ecn and (nic.ecn_np or nic.ecn_rp):
        unchecked.update(_ECN_SETTINGS)
        reasons.append(
            "no ECN knobs in sysfs.txt (the inbox mlx5 driver has none): DCQCN runs as the "
            "firmware sets it (every priority by default); ECN, CNP class and DCQCN "
            "parameters not checked"
        )
    return reasons


def _saved(root: Path, nic_folder: Path, name: str) -> bool:
    path = _inside(root, nic_folder, name)
    return path is not None and path.is_file()


def _absent_files(nic: NicPlan, nic_folder: Path, absent: list[str], unchecked: set[str]) -> str:
    """What LL211 says of a NIC's state that lacks some of its files: which, and the planned
    settings left unchecked (each would otherwise be an LL210 "not in the saved state")."""
    settings = [n for n in STATE_FIELDS if n in unchecked and getattr(nic, n) is not None]
    if "dcqcn" in unchecked:
        settings += [f"DCQCN {name}" for name in nic.dcqcn]
    files = " or ".join([", ".join(absent[:-1]), absent[-1]] if len(absent) > 1 else absent)
    text = f"no {files} in {nic_folder}"
    return f"{text}: {', '.join(settings)} not checked" if settings else text
