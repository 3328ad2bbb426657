"""Plans for what a config alone cannot say (linting a config without an inventory).

A parser starts from the inventory's plan of the device when there is one; otherwise from
these skeletons, whose unknown facts are chosen so that no rule fires on them: no ASIC
(headroom is not recomputed, the budget is not checked), ECMP assumed fine, no peers.
"""

from __future__ import annotations

from lossless.plan import (
    BudgetPlan,
    DevicePlan,
    EcmpPlan,
    HeadroomSettings,
    PortPlan,
    QosMaps,
    WatchdogPlan,
)

UNKNOWN = "unknown"


def skeleton_device(name: str, os_name: str, file: str) -> DevicePlan:
    identity = {p: p for p in range(8)}
    return DevicePlan(
        name=name,
        role="leaf",
        os=os_name,
        asic=UNKNOWN,
        platform=None,
        mgmt=None,
        roce_dscp=26,
        roce_priority=3,
        cnp_dscp=48,
        cnp_priority=6,
        lossless_priorities=[],
        max_lossless_priorities=8,
        maps=QosMaps(
            dict.fromkeys(range(64), 0), dict(identity), dict.fromkeys(range(8), 0), dict(identity)
        ),
        queues=[],
        ecmp=EcmpPlan([], 0, "not in the config", False, True),
        watchdog=WatchdogPlan(False, 0, 0, 0, "drop"),
        headroom_settings=HeadroomSettings(1024, 50, False, None, 0),
        budget=BudgetPlan(None, "none", 0, 0, 0, None, 0, None, None, None, 0, None, ""),
        ports={},
        source=f"{file}:1:1",
    )


def skeleton_port(name: str, source: str) -> PortPlan:
    return PortPlan(
        name=name,
        description="",
        speed_mbps=0,
        lanes=0,
        mtu=0,
        peer=None,
        peer_kind=None,
        cable_m=None,
        lossless=False,
        pfc_priorities=[],
        headroom=[],
        ecn=[],
        watchdog=None,
        source=source,
    )
