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
  class is NCCL_IB_TC in the environment file (nccl_env.py).
* MTU: `ip link set dev IF mtu N` (iproute2 ip-link(8)); 802.3x pause off:
  `ethtool -A IF rx off tx off` (ethtool(8); docs/reference/physics.md 4 rule 7).
* The RDMA device of an interface: /sys/class/net/IF/device/infiniband/DEV (sysfs).

The nic-configuration-operator's NicConfigurationTemplate (configuration.net.nvidia.com/
v1alpha1, Mellanox/nic-configuration-operator api/v1alpha1/nicconfigurationtemplate_types.go
@ 8bfbeb3) holds trust, pfc, tos, cableLen, ecn {enabled, priority} and pauseFrames under
template.roceOptimized.qos (ecn, cableLen and pauseFrames since network-operator 26.7), and
selects NICs by nicType (PCI device ID: 101d ConnectX-6 Dx, 1021 ConnectX-7, 1023 ConnectX-8,
1025 ConnectX-9, a2dc BlueField-3; docs/examples and pkg/spectrumx/prepareplan.go). It has no
field for the CNP class, the DSCP-to-priority map, the MTU or DCQCN parameters: the script
sets those.
"""

from __future__ import annotations

import io
import re
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
OPERATOR_NAMESPACE = "network-operator"  # as in the operator's docs/examples


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
        "ecn_probe": f"roce_np/enable/{priority}",
        "sysfs": [
            (f"roce_np/enable/{priority}", int(bool(nic.ecn_np))),
            (f"roce_rp/enable/{priority}", int(bool(nic.ecn_rp))),
            ("roce_np/cnp_dscp", nic.cnp_dscp),
            ("roce_np/cnp_802p_prio", nic.cnp_priority),
            *((DCQCN_KNOBS[name], value) for name, value in sorted(nic.dcqcn.items())),
        ],
        "tos": traffic_class(nic.roce_dscp or 0),
        "mtu": nic.mtu,
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


def _qos(nics: list[NicPlan]) -> dict[str, Any]:
    nic = nics[0]
    qos: dict[str, Any] = {
        "trust": nic.trust,
        "pfc": pfc_vector(nic.pfc_priorities or []),
        "tos": traffic_class(nic.roce_dscp or 0),
    }
    cables = [n.cable_m for n in nics if n.cable_m]
    if cables:
        qos["cableLen"] = max(cables)  # one value per template: the longest cable is safe
    qos["ecn"] = {"enabled": bool(nic.ecn_np), "priority": nic.roce_priority}
    qos["pauseFrames"] = {"enabled": bool(nic.link_pause)}
    return qos


def _template_settings(nic: NicPlan) -> tuple[Any, ...]:
    """What one NicConfigurationTemplate must give all the NICs it selects."""
    return (
        nic.trust,
        tuple(nic.pfc_priorities or []),
        nic.roce_dscp,
        nic.roce_priority,
        nic.ecn_np,
        nic.ecn_rp,
        nic.link_pause,
        nic.sriov_vfs,
    )


def operator_documents(server: str, nics: list[NicPlan]) -> tuple[list[dict[str, Any]], list[str]]:
    """NicConfigurationTemplates for one server (one per NIC type), and notes on what the
    operator cannot express for it."""
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
        if group[0].ecn_np != group[0].ecn_rp:
            notes.append(
                f"{server}: NICs {names} enable only one of DCQCN NP/RP; the operator's ecn "
                "sets both; no operator resource for them"
            )
            continue
        name = re.sub(r"[^a-z0-9-]+", "-", f"lossless-{server}-{type_id}".lower()).strip("-")
        documents.append(
            {
                "apiVersion": "configuration.net.nvidia.com/v1alpha1",
                "kind": "NicConfigurationTemplate",
                "metadata": {"name": name[:253], "namespace": OPERATOR_NAMESPACE},
                "spec": {
                    "nodeSelector": {"kubernetes.io/hostname": server},
                    "nicSelector": {"nicType": type_id},
                    "template": {
                        "numVfs": group[0].sriov_vfs or 0,
                        "linkType": "Ethernet",
                        "roceOptimized": {"enabled": True, "qos": _qos(group)},
                    },
                },
            }
        )
    return documents, notes


def operator_yaml(documents: list[dict[str, Any]]) -> str:
    """The documents as one YAML stream (ruamel: every string quoted where YAML needs it)."""
    yaml = YAML(typ="safe", pure=True)
    yaml.default_flow_style = False
    yaml.width = 200
    stream = io.StringIO()
    yaml.dump_all(documents, stream)
    return stream.getvalue()
