"""Small helpers the host vendor modules share: traffic-class byte, PFC vector, comments.

The traffic class (IPv4 ToS / IPv6 traffic class byte) a host gives its RoCE traffic is the
DSCP in the six high bits and the ECN field in the two low bits (RFC 3168 section 5: 00
Not-ECT, 10 ECT(0), 01 ECT(1), 11 CE). A switch marks congestion (CE) only on ECN-capable
packets; a Not-ECT packet in a congested queue is dropped or left unmarked, and DCQCN never
slows its sender. The NIC sends the traffic class software gives it: NVIDIA's own defaults
carry ECT(0) in it rather than rely on the NIC to set it:
* UCX: UCX_IB_TRAFFIC_CLASS "auto" selects 106 on RoCEv2 (openucx/ucx
  src/uct/ib/base/ib_iface.c, uct_ib_iface_config_table "TRAFFIC_CLASS"), 106 = DSCP 26 << 2
  | ECT(0).
* NVIDIA's "Lossless RoCE configuration for Linux drivers in DSCP-based QoS mode" community
  page sets `cma_roce_tos -d DEV -t 106` and `echo 106 > .../tc/1/traffic_class` (as sites
  following it quote it: ImperialCollegeLondon/rcs-node-config
  nodetype/cx3/05_configure_roce.sh "DSCP 26 + an ECN bit ( 26<<2 | 2 )", att/netarbiter
  nvmf/setup-nic-lossless-layer3.sh).
No NVIDIA document found says the mlx5 NIC sets ECT itself for RDMA-CM or verbs (NCCL) QPs;
NCCL_IB_TC is used as given ("the InfiniBand traffic class field", NCCL user guide). With
ECT(0) in the byte the packets are ECN-capable either way (a NIC that set ECT itself would
send the same byte), so lossless renders DSCP << 2 | ECT(0), and reads back only the DSCP
(value >> 2) when it compares a host's state with the plan.
"""

from __future__ import annotations

import re

from lossless.plan import NicPlan

ECT0 = 0b10  # ECN field "ECN-Capable Transport (0)" (RFC 3168 section 5)


def traffic_class(dscp: int) -> int:
    """The IP traffic class (ToS) byte of RoCE traffic with a DSCP: the DSCP in the six high
    bits, ECT(0) in the ECN field (26 -> 106; see the module docstring)."""
    return dscp << 2 | ECT0


def dscp_of(traffic_class_byte: int) -> int:
    """The DSCP of a traffic class (ToS) byte: its six high bits, whatever the ECN field."""
    return traffic_class_byte >> 2


def pfc_vector(priorities: list[int]) -> str:
    """PFC enable per priority 0..7 as mlnx_qos and the NVIDIA operator take it: 0,0,0,1,0,0,0,0."""
    return ",".join("1" if p in priorities else "0" for p in range(8))


def describe(nic: NicPlan) -> str:
    """One line about a NIC for a comment: interface, model, cable peer (printable text only)."""
    model = re.sub(r"[^A-Za-z0-9 ._/+-]", "?", nic.model or "no model")[:60]
    peer = f", cabled to {nic.peer}" if nic.peer else ", not cabled to a switch"
    return f"{nic.name} ({model}){peer}"
