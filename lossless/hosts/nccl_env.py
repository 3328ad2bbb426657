"""The NCCL and UCX environment that puts a server's RDMA traffic in its NICs' RoCE class.

NCCL sets up its QPs with verbs, not RDMA-CM, so the NIC's default RoCE ToS does not reach it:
* NCCL_IB_TC: "the InfiniBand traffic class field" of NCCL's QPs (NCCL user guide,
  Environment Variables; default -1, the device default: NVIDIA/nccl v2.31.2-1
  src/transport/net_ib/connect.cc `NCCL_PARAM(IbTc, "IB_TC", -1)`). For RoCE v2 it is the
  IP traffic class byte: DSCP << 2 with ECT(0) in the two low ECN bits, 106 for DSCP 26, the
  value UCX picks by default on RoCE v2 (values.py says why the ECN bits are set here).
* NCCL_IB_GID_INDEX: the RoCE GID (same guide; default -1: NCCL picks it, since NCCL 2.21
  the RoCE v2 GID of NCCL_SOCKET_FAMILY: Juniper AI JVD, "How to run NCCL tests using
  autoconfigured IPv6 address"). Written only when the inventory sets gid_index.
* UCX_IB_TRAFFIC_CLASS and UCX_IB_GID_INDEX: the same for UCX (openucx/ucx
  docs/source/faq.md, RoCE: "How to specify DSCP priority?"; UCX picks the GID by default,
  and traffic class 106 on RoCE v2: src/uct/ib/base/ib_iface.c "TRAFFIC_CLASS" "auto").
"""

from __future__ import annotations

from lossless.hosts.values import traffic_class
from lossless.plan import NicPlan

TEMPLATE = "hosts/nccl.env.j2"


def environment(nics: list[NicPlan]) -> tuple[list[tuple[str, str]], list[str]]:
    """(name, value) pairs for one server, and the problems: the variables hold one value per
    process, so every NIC of the server must use one RoCE DSCP and one GID index."""
    dscps = sorted({n.roce_dscp for n in nics if n.roce_dscp is not None})
    gids = sorted({n.gid_index for n in nics if n.gid_index is not None})
    problems = []
    if len(dscps) > 1:
        problems.append(f"NICs use RoCE DSCPs {dscps}; NCCL_IB_TC takes one traffic class")
    if len(gids) > 1 or (gids and any(n.gid_index is None for n in nics)):
        problems.append("NICs differ in gid_index; NCCL_IB_GID_INDEX takes one GID index")
    if problems or not dscps:
        return [], problems
    entries = [
        ("NCCL_IB_TC", str(traffic_class(dscps[0]))),
        ("UCX_IB_TRAFFIC_CLASS", str(traffic_class(dscps[0]))),
    ]
    if gids:
        entries += [("NCCL_IB_GID_INDEX", str(gids[0])), ("UCX_IB_GID_INDEX", str(gids[0]))]
    return entries, []


def notes(nics: list[NicPlan]) -> list[str]:
    if any(n.gid_index is not None for n in nics):
        return []
    return [
        "NCCL_IB_GID_INDEX and UCX_IB_GID_INDEX unset: NCCL (2.21+) and UCX pick the RoCE v2 GID"
    ]
