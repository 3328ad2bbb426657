"""DSCP -> traffic class -> queue / priority group maps, PFC priorities and schedulers."""

from __future__ import annotations

from lossless.inventory.defaults import DEFAULT_TC
from lossless.model import Policy, WatchdogPolicy
from lossless.plan import QosMaps, QueuePlan, WatchdogPlan

PRIORITIES = range(8)


def plan_maps(policy: Policy) -> QosMaps:
    data, cnp = policy.roce.data, policy.roce.cnp
    dscp_to_tc = dict.fromkeys(range(64), DEFAULT_TC)
    dscp_to_tc[cnp.dscp] = cnp.priority
    dscp_to_tc[data.dscp] = data.priority
    identity = {p: p for p in PRIORITIES}
    # Only the lossless class has a priority group of its own; the rest share PG 0.
    tc_to_pg = dict.fromkeys(PRIORITIES, 0)
    tc_to_pg[data.priority] = data.priority
    return QosMaps(
        dscp_to_tc=dscp_to_tc,
        tc_to_queue=dict(identity),
        tc_to_pg=tc_to_pg,
        pfc_priority_to_queue=dict(identity),
    )


def plan_queues(policy: Policy) -> list[QueuePlan]:
    """RoCE data DWRR and lossless, CNP strict priority, everything else DWRR on queue 0."""
    data, cnp = policy.roce.data.priority, policy.roce.cnp.priority
    queues = {
        DEFAULT_TC: QueuePlan(
            DEFAULT_TC, "dwrr", policy.scheduler.default_weight, False, "default"
        ),
        data: QueuePlan(data, "dwrr", policy.scheduler.roce_weight, True, "roce"),
        cnp: QueuePlan(cnp, "strict", None, False, "cnp"),
    }
    return [queues[q] for q in sorted(queues)]


def plan_watchdog(policy: WatchdogPolicy) -> WatchdogPlan:
    return WatchdogPlan(
        enabled=policy.enabled,
        detection_ms=policy.detection_ms,
        restoration_ms=policy.restoration_ms,
        poll_ms=policy.poll_ms,
        action=policy.action,
    )
