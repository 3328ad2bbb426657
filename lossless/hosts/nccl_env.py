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
  Before NCCL 2.21 the default GID index was 0 (NVIDIA/nccl v2.20.5-1 src/transport/net_ib.cc
  `NCCL_PARAM(IbGidIndex, "IB_GID_INDEX", 0)`; -1 from v2.21.5-1), on mlx5 a RoCE v1 GID: the
  file says so when the inventory sets no gid_index.
* NCCL_IB_HCA: the RDMA devices NCCL uses; unset, every one it finds (a frontend NIC's too,
  outside the lossless class). `=` before the list matches the names exactly, not as
  prefixes (NCCL user guide, NCCL_IB_HCA; NVIDIA/nccl v2.21.5-1 net_ib.cc `searchExact`).
  The inventory names interfaces, so it is written only when every NIC of the server has
  its `rdma_device`.
* SR-IOV: a VF's netdev has no DCB interface (trust, PFC, ETS): the mlx5 driver gives one to
  the PF only (Linux drivers/net/ethernet/mellanox/mlx5/core/en_dcbnl.c
  mlx5e_dcbnl_build_netdev: vport_group_manager), so the port's trust and PFC that the host
  script sets on the PF are what the VFs' packets meet; the traffic class of the QPs is the
  process's, so a pod on a VF needs this file's variables in its own environment.
"""

from __future__ import annotations

from lossless.hosts.values import traffic_class
from lossless.plan import NicPlan

TEMPLATE = "hosts/nccl.env.j2"


def environment(nics: list[NicPlan]) -> tuple[list[tuple[str, str]], list[str]]:
    """(name, value) pairs for one server, and the problems: the variables hold one value per
    process, so every NIC of the server must use one RoCE DSCP and one GID index, and
    NCCL_IB_HCA lists every NIC's own RDMA device or none."""
    dscps = sorted({n.roce_dscp for n in nics if n.roce_dscp is not None})
    gids = sorted({n.gid_index for n in nics if n.gid_index is not None})
    problems = []
    if len(dscps) > 1:
        problems.append(f"NICs use RoCE DSCPs {dscps}; NCCL_IB_TC takes one traffic class")
    if len(gids) > 1 or (gids and any(n.gid_index is None for n in nics)):
        problems.append("NICs differ in gid_index; NCCL_IB_GID_INDEX takes one GID index")
    problems += _device_problems(nics)
    if problems or not dscps:
        return [], problems
    entries = [
        ("NCCL_IB_TC", str(traffic_class(dscps[0]))),
        ("UCX_IB_TRAFFIC_CLASS", str(traffic_class(dscps[0]))),
    ]
    if gids:
        entries += [("NCCL_IB_GID_INDEX", str(gids[0])), ("UCX_IB_GID_INDEX", str(gids[0]))]
    if nics and all(n.rdma_device for n in nics):
        # exact names (=): mlx5_1 must not also match mlx5_10
        entries.append(("NCCL_IB_HCA", "=" + ",".join(str(n.rdma_device) for n in nics)))
    return entries, []


def _device_problems(nics: list[NicPlan]) -> list[str]:
    """rdma_device on some NICs but not all (NCCL_IB_HCA would leave the others out), or one
    device named for two NICs (a NIC range written with one rdma_device)."""
    named = [n for n in nics if n.rdma_device]
    if not named:
        return []
    problems = []
    missing = [n.name for n in nics if not n.rdma_device]
    if missing:
        problems.append(
            f"rdma_device is not set on {', '.join(missing)}: NCCL_IB_HCA would leave "
            f"{'it' if len(missing) == 1 else 'them'} out"
        )
    by_device: dict[str, list[str]] = {}
    for nic in named:
        by_device.setdefault(str(nic.rdma_device), []).append(nic.name)
    for device, names in by_device.items():
        if len(names) > 1:
            problems.append(
                f"NICs {', '.join(names)} name one rdma_device {device}: each NIC has its own "
                "(set it on each NIC, not on a range)"
            )
    return problems


def notes(nics: list[NicPlan]) -> list[str]:
    """Comment lines: what the file leaves to NCCL and UCX, and what to set by hand."""
    lines = []
    if not any(n.gid_index is not None for n in nics):
        lines += [
            "NCCL_IB_GID_INDEX and UCX_IB_GID_INDEX unset: NCCL (2.21+) and UCX pick the RoCE "
            "v2 GID",
            "NCCL before 2.21 uses GID index 0 unless told (NVIDIA/nccl v2.20.5-1 "
            "src/transport/net_ib.cc), a RoCE v1 GID: set host gid_index to the index of the "
            "NIC's RoCE v2 GID with its IPv4 address (`show_gids`, or `ibv_devinfo -v -d DEV`)",
        ]
    if not any(n.rdma_device for n in nics):
        lines.append(
            "NCCL_IB_HCA unset: NCCL uses every RDMA device of the server, also one outside "
            "the lossless class (a frontend NIC's); set rdma_device on each NIC (`rdma link "
            "show` maps mlx5_0 to eth0) to write NCCL_IB_HCA==DEV,... (NCCL user guide)"
        )
    vfs = [n.name for n in nics if n.sriov_vfs]
    if vfs:
        lines += [
            f"SR-IOV VFs on {', '.join(vfs)}: a pod on a VF needs NCCL_IB_TC and "
            "UCX_IB_TRAFFIC_CLASS (and the GID index) from this file in its own environment, "
            "and NCCL_IB_HCA naming the VF's RDMA device as the pod sees it, not the PF's",
            "A VF has no trust or PFC of its own: the PF's, which the host script sets, apply "
            "to the port the VFs share (mlx5: DCB on the PF only, en_dcbnl.c)",
        ]
    return lines
