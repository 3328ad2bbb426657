"""NVIDIA ConnectX / BlueField (mlx5) host settings: a section of the server's shell script,
and the NVIDIA nic-configuration-operator resource.

Each knob and where it is documented:

* `mlnx_qos -i IF --trust dscp|pcp`, `--pfc 0,0,0,1,0,0,0,0` (PFC per priority 0..7),
  `--cable_len N` (metres; the NIC sizes its receive-buffer xoff/xon from it) and
  `--dscp2prio set,DSCP,PRIO`: mlnx_qos option help, Mellanox/mlnx-tools python/mlnx_qos
  @ 8fbfd9c; the `-i IF` report it prints is what `lossless lint --host-state` reads back.
  The script sets trust before dscp2prio ("trust and dscp2prio commands cannot be used at
  the same time") and changes a value only when the report shows another.
* DCQCN on a priority: `/sys/class/net/IF/ecn/roce_np/enable/PRIO` (notification point) and
  `/sys/class/net/IF/ecn/roce_rp/enable/PRIO` (reaction point), 1 or 0: NVIDIA DOCA
  "Explicit Congestion Notification" (MLNX_OFED/DOCA-OFED mlx5 driver); the NVIDIA operator
  writes the same files (pkg/configuration/utils.go ecnSysfsPath @ 8bfbeb3).
* Without /sys/class/net/IF/ecn (the upstream, inbox mlx5 driver has no ECN sysfs; only the
  DOCA-OFED / MLNX_OFED driver adds it) the script sets trust, PFC, the DSCP map, ToS, MTU
  and pause anyway and says ECN/DCQCN is not settable there: DCQCN is then what the firmware
  does, on for the priorities of its non-volatile ROCE_CC_PRIO_MASK_P1/P2 (mlxconfig), 255
  (every priority) by default: `mlxconfig query` reports ROCE_CC_PRIO_MASK_P1 255 and
  ROCE_CC_ALGORITHM_P1 ECN(0) on untouched NICs, and NVIDIA's nic-configuration-operator
  README (roceOptimized) sets that same 255. The CNP class and DCQCN parameters are then the
  firmware's too (CNP_DSCP_P1, CNP_802P_PRIO_P1, mlxconfig), which the script cannot set.
* CNP marking: `ecn/roce_np/cnp_dscp` and `ecn/roce_np/cnp_802p_prio` (the operator's
  pkg/spectrumx/spectrumx.go writes cnp_dscp @ 8bfbeb3; both in the MLNX_OFED ECN sysfs).
* DCQCN parameters: `ecn/roce_rp/<name>` and `ecn/roce_np/min_time_between_cnps`, names,
  units and ranges from NVIDIA DOCA "DCQCN CC Parameters" (dce_tcp_g, dce_tcp_rtt,
  initial_alpha_value, rate_to_set_on_first_cnp, rpg_min_dec_fac, rpg_min_rate) and Linux
  include/uapi/linux/dcbnl.h struct ieee_qcn (rpg_time_reset us, rpg_byte_reset bytes,
  rpg_threshold, rpg_max_rate, rpg_ai_rate and rpg_hai_rate Mb/s).
* RoCE traffic class of RDMA-CM connections: `cma_roce_tos -d DEV -t TOS` (mlnx-tools
  sbin/cma_roce_tos, which writes /sys/kernel/config/rdma_cm/DEV/ports/1/default_roce_tos);
  of every QP of the port where the MLNX_OFED driver has it:
  `/sys/class/infiniband/DEV/tc/1/traffic_class` (reads back as "Global tclass=N"; MLNX_OFED
  "RDMA over Converged Ethernet (RoCE)" user manual). NCCL does not use RDMA-CM: its traffic
  class is NCCL_IB_TC in the environment file (nccl_env.py). The ToS is DSCP << 2 | ECT(0)
  (106 for DSCP 26, NVIDIA's usual value; values.py cites why). cma_roce_tos -d DEV without
  -t prints the current ToS; it fails ("Module rdma_cm is not loaded or does not support
  configfs") without the rdma_cm module, which the script's checks find before any change.
* Tool capabilities: the options the script uses are looked up in `mlnx_qos --help` before
  any change (older mlnx-tools lack --trust, --dscp2prio or --cable_len).
* MTU: `ip link set dev IF mtu N` (iproute2 ip-link(8)); 802.3x pause off:
  `ethtool -A IF rx off tx off` (ethtool(8); docs/reference/physics.md 4 rule 7).
* The RDMA device of an interface: /sys/class/net/IF/device/infiniband/DEV (sysfs).

The nic-configuration-operator's NicConfigurationTemplate (configuration.net.nvidia.com/
v1alpha1) is rendered for one operator release (OPERATOR_RELEASES; the inventory's
fabric.nic_operator.version, default the newest release) and checked against that release's
CRD (tests/data/nic-configuration-operator/<tag>/, tests/test_operator_crds.py). Every field,
from config/crd/bases/configuration.net.nvidia.com_nicconfigurationtemplates.yaml and
pkg/configuration/configvalidation.go at each tag:

* spec.nodeSelector (labels, all must match) and spec.nicSelector.nicType (required; PCI
  device ID: 101d ConnectX-6 Dx, 1021 ConnectX-7, 1023 ConnectX-8, 1025 ConnectX-9, a2dc
  BlueField-3; docs/examples and pkg/spectrumx/prepareplan.go @ 8bfbeb3). The operator lists
  the templates of every namespace, and a NIC that several match gets no configuration and a
  "Several templates matching this device" event (internal/controller/template_matcher.go):
  lossless writes one template per node and NIC type, selected by kubernetes.io/hostname.
* spec.template.numVfs and linkType: required by every release's CRD (26.7 candidates:
  linkType optional for Network Bay).
  The operator writes SRIOV_EN=False NUM_OF_VFS=0 for numVfs 0, SRIOV_EN=True NUM_OF_VFS=N
  otherwise, and reboots the node when the firmware differs (ConstructNvParamMapFromTemplate).
* spec.template.roceOptimized {enabled, qos {trust, pfc, tos}}: trust, PFC and the RoCE ToS,
  set at runtime. cableLen, ecn {enabled, priority} and pauseFrames exist only from the 26.7
  release candidates: not rendered for a release without them (the script sets them).
  roceOptimized.enabled also writes the firmware CNP class CNP_DSCP_P<n>=4 and
  CNP_802P_PRIO_P<n>=6 and ROCE_CC_PRIO_MASK_P<n>=255 (consts.go CnpDscpParamBase,
  Cnp802pPrioParamBase).
* spec.template.rawNvConfig [{name, value}] (strings): applied after roceOptimized, so it
  overrides those CNP defaults; _P2 names are skipped on a one-port NIC (v1.3.1, 26.1.x:
  SecondPortPrefix; 26.4.x: ports beyond the NIC's). lossless sets CNP_DSCP_P1/P2 and
  CNP_802P_PRIO_P1/P2 to the plan's CNP class.

No field of a released NicConfigurationTemplate holds the DSCP-to-priority map, the MTU or
the DCQCN parameters: the script sets those.
"""

from __future__ import annotations

import io
import re
from dataclasses import dataclass
from typing import Any

from ruamel.yaml import YAML

from lossless.hosts.values import pfc_vector, traffic_class
from lossless.plan import NicPlan

NAME = "NVIDIA ConnectX (mlx5)"
TEMPLATE = "hosts/nvidia.sh.j2"
COMMANDS = {
    "mlnx_qos": "install mlnx-tools (DOCA-OFED or MLNX_OFED)",
    "cma_roce_tos": "install mlnx-tools (DOCA-OFED or MLNX_OFED)",
    "ip": "install iproute2",
    "ethtool": "install ethtool",
}

# Neutral DCQCN parameter name -> file under /sys/class/net/IF/ecn/.
DCQCN_KNOBS = {
    "alpha_g": "roce_rp/dce_tcp_g",
    "alpha_update_period_us": "roce_rp/dce_tcp_rtt",
    "initial_alpha": "roce_rp/initial_alpha_value",
    "rate_on_first_cnp_mbps": "roce_rp/rate_to_set_on_first_cnp",
    "min_decrease_percent": "roce_rp/rpg_min_dec_fac",
    "min_rate_mbps": "roce_rp/rpg_min_rate",
    "max_rate_mbps": "roce_rp/rpg_max_rate",
    "rate_increase_period_us": "roce_rp/rpg_time_reset",
    "rate_increase_bytes": "roce_rp/rpg_byte_reset",
    "rate_increase_threshold": "roce_rp/rpg_threshold",
    "ai_rate_mbps": "roce_rp/rpg_ai_rate",
    "hai_rate_mbps": "roce_rp/rpg_hai_rate",
    "cnp_interval_us": "roce_np/min_time_between_cnps",
}

# NIC model -> PCI device ID the operator selects by (see the module docstring).
NIC_TYPES = {
    ("6", "dx"): "101d",
    ("7", ""): "1021",
    ("8", ""): "1023",
    ("9", ""): "1025",
    ("bluefield", "3"): "a2dc",
}
# NVIDIA installs the Network Operator, and its nic-configuration-operator, into this
# namespace (NVIDIA Network Operator v25.7.0 "Quick Start Guide for Kubernetes": `helm install
# network-operator nvidia/network-operator -n nvidia-network-operator --create-namespace`);
# fabric.nic_operator.namespace changes it.
OPERATOR_NAMESPACE = "nvidia-network-operator"


@dataclass(frozen=True)
class OperatorRelease:
    """One nic-configuration-operator release lossless renders for, and what its
    NicConfigurationTemplate CRD has (tests/data/nic-configuration-operator/<tag>/)."""

    name: str  # as the release is called
    tag: str  # Mellanox/nic-configuration-operator tag whose CRD is vendored
    commit: str
    qos_fields: frozenset[str]  # properties of template.roceOptimized.qos
    raw_nv_config: bool  # template.rawNvConfig exists


_QOS_RELEASED = frozenset({"trust", "pfc", "tos"})
# fabric.nic_operator.version -> release (schemas/inventory.schema.json lists the same names).
# The CRD is the same at every tag of a line (v1.3.0 = v1.3.1, network-operator-v26.1.0 =
# v26.1.2, network-operator-v26.4.0 = v26.4.1): the newest tag of each is vendored.
OPERATOR_RELEASES = {
    "v1.3": OperatorRelease(
        "nic-configuration-operator v1.3",
        "v1.3.1",
        "af2917dd492467726089e98a6cf4718ed5efac1d",
        _QOS_RELEASED,
        True,
    ),
    "v26.1": OperatorRelease(
        "NVIDIA Network Operator v26.1",
        "network-operator-v26.1.2",
        "a2d21be2b4d58c78269d50dbf2c3f47fef217e9b",
        _QOS_RELEASED,
        True,
    ),
    "v26.4": OperatorRelease(
        "NVIDIA Network Operator v26.4",
        "network-operator-v26.4.1",
        "db87d5a5675392a1242c9a1305e3a4aafe54223c",
        _QOS_RELEASED,
        True,
    ),
}
DEFAULT_OPERATOR_VERSION = "v26.4"  # the newest release (26.7 has release candidates only)
# The ports whose firmware CNP class rawNvConfig sets: the two every release knows by name
# (v1.3.1 and 26.1.x set only CNP_*_P1/P2; a one-port NIC skips the _P2 entries).
CNP_PORTS = (1, 2)


def problems(nic: NicPlan) -> list[str]:
    """Settings of the plan mlx5 cannot take (none: every neutral DCQCN name has a knob)."""
    return [
        f"no mlx5 knob for DCQCN parameter {name}" for name in nic.dcqcn if name not in DCQCN_KNOBS
    ]


def context(nic: NicPlan) -> dict[str, Any]:
    """What the nvidia.sh.j2 macros print for one NIC."""
    priority = nic.roce_priority
    return {
        "interface": nic.name,
        "trust": nic.trust,
        "pfc": pfc_vector(nic.pfc_priorities or []),
        "cable_len": nic.cable_m,
        "dscp2prio": (
            [(nic.roce_dscp, nic.roce_priority), (nic.cnp_dscp, nic.cnp_priority)]
            if nic.trust == "dscp"
            else []
        ),
        "sysfs": [
            (f"roce_np/enable/{priority}", int(bool(nic.ecn_np))),
            (f"roce_rp/enable/{priority}", int(bool(nic.ecn_rp))),
            ("roce_np/cnp_dscp", nic.cnp_dscp),
            ("roce_np/cnp_802p_prio", nic.cnp_priority),
            *((DCQCN_KNOBS[name], value) for name, value in sorted(nic.dcqcn.items())),
        ],
        "tos": traffic_class(nic.roce_dscp or 0),
        "mtu": nic.mtu,
        # the mlnx_qos options the script uses, looked up in `mlnx_qos --help` first
        "qos_options": [
            "--trust",
            "--pfc",
            *(["--cable_len"] if nic.cable_m else []),
            *(["--dscp2prio"] if nic.trust == "dscp" else []),
        ],
    }


def nic_type(model: str | None) -> str | None:
    """The PCI device ID the operator selects this model by, if we know it."""
    match = re.search(
        r"(?:connectx|cx)-?\s*(\d+)\s*(dx|lx)?|(bluefield)-?\s*(\d)", model or "", re.I
    )
    if not match:
        return None
    key = (match[1], (match[2] or "").lower()) if match[1] else ("bluefield", match[4])
    return NIC_TYPES.get(key)


def _qos(nics: list[NicPlan], release: OperatorRelease) -> dict[str, Any]:
    """template.roceOptimized.qos: the fields the release's CRD has."""
    nic = nics[0]
    qos: dict[str, Any] = {
        "trust": nic.trust,
        "pfc": pfc_vector(nic.pfc_priorities or []),
        "tos": traffic_class(nic.roce_dscp or 0),
    }
    cables = [n.cable_m for n in nics if n.cable_m]
    if cables and "cableLen" in release.qos_fields:
        qos["cableLen"] = max(cables)  # one value per template: the longest cable is safe
    if "ecn" in release.qos_fields:
        qos["ecn"] = {"enabled": bool(nic.ecn_np), "priority": nic.roce_priority}
    if "pauseFrames" in release.qos_fields:
        qos["pauseFrames"] = {"enabled": bool(nic.link_pause)}
    return qos


def _raw_nv_config(nic: NicPlan) -> list[dict[str, str]]:
    """Firmware CNP class = the plan's, over the 4 and 6 roceOptimized writes (module doc)."""
    return [
        {"name": f"{param}_P{port}", "value": str(value)}
        for param, value in (("CNP_DSCP", nic.cnp_dscp), ("CNP_802P_PRIO", nic.cnp_priority))
        for port in CNP_PORTS
    ]


def _template_settings(nic: NicPlan) -> tuple[Any, ...]:
    """What one NicConfigurationTemplate must give all the NICs it selects."""
    return (
        nic.trust,
        tuple(nic.pfc_priorities or []),
        nic.roce_dscp,
        nic.roce_priority,
        nic.cnp_dscp,
        nic.cnp_priority,
        nic.ecn_np,
        nic.ecn_rp,
        nic.link_pause,
        nic.sriov_vfs,
    )


def operator_release(version: str | None) -> OperatorRelease:
    """The release of fabric.nic_operator.version (the schema allows only known ones)."""
    return OPERATOR_RELEASES[version or DEFAULT_OPERATOR_VERSION]


def operator_documents(
    server: str,
    nics: list[NicPlan],
    version: str | None = None,
    namespace: str | None = None,
) -> tuple[list[dict[str, Any]], list[str]]:
    """NicConfigurationTemplates for one server (one per NIC type) for an operator release,
    and notes on what the operator cannot express for it."""
    release = operator_release(version)
    by_type: dict[str, list[NicPlan]] = {}
    notes: list[str] = []
    for nic in nics:
        type_id = nic_type(nic.model)
        if type_id is None:
            notes.append(f"{server}:{nic.name}: no operator nicType known for {nic.model!r}")
            continue
        by_type.setdefault(type_id, []).append(nic)
    documents = []
    for type_id, group in by_type.items():
        names = ", ".join(n.name for n in group)
        if len({_template_settings(n) for n in group}) > 1:
            notes.append(
                f"{server}: NICs {names} differ in settings a NicConfigurationTemplate gives all "
                f"NICs of type {type_id} alike; no operator resource for them"
            )
            continue
        if "ecn" in release.qos_fields and group[0].ecn_np != group[0].ecn_rp:
            notes.append(
                f"{server}: NICs {names} enable only one of DCQCN NP/RP; the operator's ecn "
                "sets both; no operator resource for them"
            )
            continue
        name = re.sub(r"[^a-z0-9-]+", "-", f"lossless-{server}-{type_id}".lower()).strip("-")
        template: dict[str, Any] = {
            "numVfs": group[0].sriov_vfs or 0,  # required by every release's CRD
            "linkType": "Ethernet",
            "roceOptimized": {"enabled": True, "qos": _qos(group, release)},
        }
        if release.raw_nv_config:
            template["rawNvConfig"] = _raw_nv_config(group[0])
        documents.append(
            {
                "apiVersion": "configuration.net.nvidia.com/v1alpha1",
                "kind": "NicConfigurationTemplate",
                "metadata": {"name": name[:253], "namespace": namespace or OPERATOR_NAMESPACE},
                "spec": {
                    "nodeSelector": {"kubernetes.io/hostname": server},
                    "nicSelector": {"nicType": type_id},
                    "template": template,
                },
            }
        )
    return documents, notes


def operator_header(
    server: str, documents: list[dict[str, Any]], nics: list[NicPlan], version: str | None = None
) -> list[str]:
    """The file's comment lines: what the operator sets, what this release cannot (the script
    sets it), the SR-IOV consequence of numVfs, and the template-selection rule."""
    release = operator_release(version)
    nic = nics[0]
    lines = [
        f"For {release.name} (Mellanox/nic-configuration-operator {release.tag}, "
        f"commit {release.commit[:12]}; fabric.nic_operator.version).",
        "Set by the operator: trust, PFC and the RoCE ToS (roceOptimized.qos)"
        + (
            f"; the firmware CNP class CNP_DSCP_P1/P2={nic.cnp_dscp} and "
            f"CNP_802P_PRIO_P1/P2={nic.cnp_priority} (rawNvConfig, over the DSCP 4 and "
            "priority 6 that roceOptimized writes; in effect after the reboot the operator does)."
            if release.raw_nv_config
            else "."
        ),
    ]
    missing = [
        label
        for field_name, label in (
            ("cableLen", f"cable length {max((n.cable_m or 0) for n in nics)} m"),
            (
                "ecn",
                f"DCQCN NP {'on' if nic.ecn_np else 'off'}, RP {'on' if nic.ecn_rp else 'off'} "
                f"on priority {nic.roce_priority}",
            ),
            ("pauseFrames", f"link pause {'on' if nic.link_pause else 'off'}"),
        )
        if field_name not in release.qos_fields
    ]
    if not release.raw_nv_config:
        missing.insert(
            0,
            f"CNP class DSCP {nic.cnp_dscp} priority {nic.cnp_priority} "
            "(no rawNvConfig: the firmware keeps roceOptimized's DSCP 4, priority 6)",
        )
    if missing:
        lines.append(
            f"Not set by this operator release: {', '.join(missing)} (the script sets them)."
        )
    lines.append(
        "No field of a NicConfigurationTemplate: the DSCP map, the MTU and DCQCN parameters "
        f"({server}.sh sets them)."
    )
    vfs = sorted({d["spec"]["template"]["numVfs"] for d in documents})
    if vfs == [0]:
        lines.append(
            "WARNING numVfs: 0. Every release's CRD requires numVfs, and for 0 the operator "
            "writes SRIOV_EN=False NUM_OF_VFS=0 to the NIC firmware and reboots the node when "
            "that differs: a node that uses SR-IOV VFs loses them. Set host sriov_vfs in the "
            "inventory for such nodes before applying this file."
        )
    else:
        lines.append(
            f"numVfs {', '.join(map(str, vfs))} (host sriov_vfs): the operator writes SRIOV_EN "
            "and NUM_OF_VFS to the NIC firmware and reboots the node when they differ."
        )
    lines.append(
        f"Each template selects one NIC type on the node labelled kubernetes.io/hostname={server} "
        "only. The operator reads templates from every namespace and configures no NIC that "
        'several templates match ("Several templates matching this device"): delete or narrow '
        "any other NicConfigurationTemplate whose nodeSelector matches this node (an empty "
        "one matches every node) for these NIC types."
    )
    return lines


def operator_yaml(documents: list[dict[str, Any]]) -> str:
    """The documents as one YAML stream (ruamel: every string quoted where YAML needs it)."""
    yaml = YAML(typ="safe", pure=True)
    yaml.default_flow_style = False
    yaml.width = 200
    stream = io.StringIO()
    yaml.dump_all(documents, stream)
    return stream.getvalue()
