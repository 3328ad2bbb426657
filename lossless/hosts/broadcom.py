"""Broadcom NetXtreme-E (Thor/Thor2, bnxt_re) host settings: a section of the server's script.

The knobs and where they are documented:

* `bnxt_setupcc.sh -d DEV -i IF -m MODE -r PRIO -s DSCP -c CNP_PRIO -p CNP_DSCP -u 4`: the
  script Broadcom ships with the bnxt_re driver (usage text of version 233.2.77.9): MODE 1 PFC
  only, 2 DCQCN only, 3 both; -r/-s RoCE priority and DSCP, -c/-p CNP priority and DSCP;
  `-u 4` programs ETS, PFC and the DSCP map through iproute2's `dcb` (no Broadcom QoS tool
  needed); DCQCN goes to /sys/kernel/config/bnxt_re/DEV/ports/1/cc (roce_dscp, cnp_dscp,
  roce_prio, cnp_prio, ecn_enable, apply) and the RDMA-CM ToS to DSCP << 2. Juniper's AI JVD
  with AMD GPUs configures Thor2 NICs the same way ("DCQCN configuration for RDMA Traffic on
  NICs": RoCE DSCP 26 on priority 3, CNP DSCP 48; bnxt_setupcc.sh).
* The change check reads `dcb pfc show dev IF prio-pfc` and `dcb -N app show dev IF
  dscp-prio` (iproute2 dcb-pfc(8), dcb-app(8)); bnxt_setupcc.sh clears and re-adds PFC and
  the map, so the script runs it only when they differ from the plan.
* MTU `ip link set dev IF mtu N`, 802.3x pause off `ethtool -A IF rx off tx off` (as for
  NVIDIA; bnxt_setupcc.sh turns pause off too).

Not rendered (each refused with the reason): DCQCN rate parameters (bnxt_setupcc.sh sets
none), PCP trust, PFC on other priorities than the RoCE one, DCQCN NP without RP or the other
way round (the bnxt_re cc knob is one switch).
"""

from __future__ import annotations

from typing import Any

from lossless.plan import NicPlan

NAME = "Broadcom NetXtreme-E (bnxt_re)"
TEMPLATE = "hosts/broadcom.sh.j2"
COMMANDS = {
    "bnxt_setupcc.sh": "install Broadcom's bnxt_re driver package (it ships the script)",
    "dcb": "install iproute2 (the dcb tool)",
    "ip": "install iproute2",
    "ethtool": "install ethtool",
}


def _mode(nic: NicPlan) -> int | None:
    """bnxt_setupcc.sh -m: 1 PFC only, 2 DCQCN only, 3 both; None when it cannot say the plan."""
    pfc = nic.pfc_priorities or []
    if nic.ecn_np != nic.ecn_rp or pfc not in ([], [nic.roce_priority]):
        return None
    if pfc and nic.ecn_np:
        return 3
    if pfc:
        return 1
    return 2 if nic.ecn_np else None


def problems(nic: NicPlan) -> list[str]:
    found = []
    if nic.trust != "dscp":
        found.append(f"trust {nic.trust}: bnxt_setupcc.sh sets DSCP-based PFC only")
    if _mode(nic) is None:
        found.append(
            f"PFC on {nic.pfc_priorities} with DCQCN NP {nic.ecn_np}/RP {nic.ecn_rp}: "
            "bnxt_setupcc.sh sets PFC on the RoCE priority or none, and DCQCN on or off"
        )
    if nic.dcqcn:
        found.append(f"DCQCN parameters {', '.join(sorted(nic.dcqcn))}: not set by bnxt_setupcc.sh")
    return found


def context(nic: NicPlan) -> dict[str, Any]:
    """What the broadcom.sh.j2 macros print for one NIC."""
    pfc = nic.pfc_priorities or []
    return {
        "interface": nic.name,
        "mode": _mode(nic),
        "roce_priority": nic.roce_priority,
        "roce_dscp": nic.roce_dscp,
        "cnp_priority": nic.cnp_priority,
        "cnp_dscp": nic.cnp_dscp,
        "prio_pfc": " ".join(f"{p}:{'on' if p in pfc else 'off'}" for p in range(8)),
        "mtu": nic.mtu,
    }
