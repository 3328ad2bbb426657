"""What a Cumulus Linux 5.x switch does where its NVUE configuration says nothing, and what
the `qos roce` preset sets, each with its source. The parser starts from these, so a setting a
config leaves out means what the switch would do, not what the plan wants.

Sources (CumulusNetworks/docs, the public source of docs.nvidia.com/networking-ethernet-software):
  QOS   content/cumulus-linux-514/Layer-1-and-Switch-Ports/Quality-of-Service/_index.md
  ROCE  content/cumulus-linux-514/.../Quality-of-Service/RDMA-over-Converged-Ethernet-RoCE.md
        (and the cumulus-linux-516 page of the same name for lossy-multi-tc and `state`)
  PORT  content/cumulus-linux-514/Layer-1-and-Switch-Ports/Interface-Configuration-and-
        Management/Switch-Port-Attributes.md
  ECMP  content/cumulus-linux-514/Layer-3/Routing/Equal-Cost-Multipath-Load-Sharing.md
  BQM   content/cumulus-linux-50/Layer-1-and-Switch-Ports/Buffer-and-Queue-Management/_index.md
"""

from __future__ import annotations

from dataclasses import dataclass

# PORT "MTU": "ifupdown2 assigns 9216 as the default MTU setting".
MTU = 9216

# BQM "Classification": "By default 802.1p COS markings are trusted"; untagged routed IP
# traffic then takes the port's default switch priority, 0 (QOS "Classification" table).
TRUST = "l2"
PORT_DEFAULT_SP = 0
# Whether a trust mode classifies routed (untagged) IP packets by DSCP (QOS table: `l3` and
# `both` accept the DSCP of IP packets; `l2` and `port` use the default priority).
TRUST_USES_DSCP = {"l2": False, "l3": True, "both": True, "port": False}

# QOS "Trust DSCP": with DSCP trusted and no mapping, DSCP d goes to switch priority d // 8
# (so 24-31 share RoCE's priority 3 and 48-55 CNP's priority 6).
DSCP_TO_SP = {dscp: dscp // 8 for dscp in range(64)}

# QOS "Egress Queues": "By default switch priority values map directly to the matching
# egress queue"; NVUE calls the egress queue the traffic class.
SP_TO_TC = {sp: sp for sp in range(8)}

# QOS "Egress Scheduler": the default profile gives queues 0,2,4,6 12 % and 1,3,5,7 13 %.
# Each entry: traffic class -> (mode, bw-percent or None for strict).
SCHEDULER: dict[int, tuple[str, int | None]] = {
    tc: ("dwrr", 12 if tc % 2 == 0 else 13) for tc in range(8)
}


@dataclass(frozen=True)
class Ecn:
    """One traffic class of a congestion-control profile."""

    ecn: bool
    red: bool
    min_bytes: int
    max_bytes: int
    probability: int


# QOS "Congestion Control (ECN)": default-global marks ECN on queue 0, 150000-1500000 bytes,
# RED disabled. Fields a profile leaves out take these values (ECN on, RED off, probability
# 100 as every NVIDIA example shows).
ECN = {0: Ecn(True, False, 150_000, 1_500_000, 100)}
ECN_FIELDS = Ecn(True, False, 150_000, 1_500_000, 100)

# QOS "Port Groups / PFC": cable length "The default is `10` meters"; rx and tx "The default
# value is enable".
PFC_CABLE_M = 10

# QOS "PFC Watchdog": "The default polling interval is 100 milliseconds. The default number of
# polling intervals is 3." The watchdog restores PFC after a polling interval without pause
# frames: restoration is one interval, and its action is to drop.
WATCHDOG_POLL_MS = 100
WATCHDOG_ROBUSTNESS = 3

# ECMP "ECMP Hashing" table: the default of each `nv set system forwarding ecmp-hash` field.
ECMP_HASH = {
    "ip-protocol": True,
    "source-ip": True,
    "destination-ip": True,
    "source-port": True,
    "destination-port": True,
    "ipv6-label": True,
    "ingress-interface": False,
    "inner-ip-protocol": False,
    "inner-source-ip": False,
    "inner-destination-ip": False,
    "inner-source-port": False,
    "inner-destination-port": False,
    "inner-ipv6-label": False,
}


@dataclass(frozen=True)
class RocePreset:
    """What `nv set qos roce mode <mode>` configures on every port."""

    trust: str
    dscp_to_sp: dict[int, int]
    sp_to_tc: dict[int, int]
    scheduler: dict[int, tuple[str, int | None]]
    ecn: dict[int, Ecn]
    pfc_priorities: tuple[int, ...]
    cable_m: int


# ROCE "Default RoCE Configuration" table and `nv show qos roce`: trust pcp,dscp; SP 3 -> TC 3
# (RoCE), SP 6 -> TC 6 (CNP), others -> TC 0; ETS TC 6 strict, TC 3 and TC 0 DWRR 50 %; ECN on
# TC 3 at 150000-1500000 bytes (shown as 146.48 KB / 1.43 MB), probability 100; the DSCP map
# stays the default DSCP // 8; lossless modes only: PFC on SP 3, cable length 100 m.
_ROCE_ECN = Ecn(True, False, 150_000, 1_500_000, 100)
_ROCE_SP_TO_TC = {sp: sp if sp in (3, 6) else 0 for sp in range(8)}
_ROCE_ETS: dict[int, tuple[str, int | None]] = {
    0: ("dwrr", 50),
    3: ("dwrr", 50),
    6: ("strict", None),
}
# ROCE (5.16) "lossy-multi-tc" `nv show qos roce`: packet trimming, no PFC, every TC DWRR
# (4/8/18/22/22/22/4/0 %), its own DSCP map, ECN on TCs 1-3 at 163-234 KB (KiB), probability 5.
_MULTI_TC_DSCP = {
    **dict.fromkeys(range(64), 0),
    **dict.fromkeys((1, 2), 1),
    **dict.fromkeys((3, 4), 2),
    **dict.fromkeys((5, 6), 3),
    **dict.fromkeys(range(11, 41), 4),
    **dict.fromkeys(range(41, 51), 5),
}
_MULTI_TC_ECN = Ecn(True, False, 163 * 1024, 234 * 1024, 5)

ROCE_PRESETS = {
    "lossless": RocePreset(
        "both", DSCP_TO_SP, _ROCE_SP_TO_TC, _ROCE_ETS, {3: _ROCE_ECN}, (3,), 100
    ),
    # ROCE "Single Shared Buffer Pool": as lossless; its `nv show qos roce` marks TCs 0 and 3.
    "lossless-single-ipool": RocePreset(
        "both", DSCP_TO_SP, _ROCE_SP_TO_TC, _ROCE_ETS, {0: _ROCE_ECN, 3: _ROCE_ECN}, (3,), 100
    ),
    "lossy": RocePreset("both", DSCP_TO_SP, _ROCE_SP_TO_TC, _ROCE_ETS, {3: _ROCE_ECN}, (), 100),
    "lossy-multi-tc": RocePreset(
        "both",
        _MULTI_TC_DSCP,
        dict(SP_TO_TC),
        {tc: ("dwrr", weight) for tc, weight in enumerate((4, 8, 18, 22, 22, 22, 4, 0))},
        {tc: _MULTI_TC_ECN for tc in (1, 2, 3)},
        (),
        PFC_CABLE_M,
    ),
}
# ROCE: "The command `nv set qos roce` and `nv set qos roce mode lossless` are equivalent."
ROCE_MODE = "lossless"
