"""PFC deadlock rules (LL140-LL142) over the fabric's topology; the analysis is
lossless/planner/deadlock.py (routing model, why a Clos is safe, what breaks it)."""

from __future__ import annotations

from lossless.lint.registry import Finding, computed_once, rule
from lossless.plan import FabricPlan
from lossless.planner.deadlock import Channel, DeadlockReport, check_deadlock

SOURCE = "Hu et al., HotNets 2016 (cyclic buffer dependency); Guo et al., SIGCOMM 2016"


def _report(fabric: FabricPlan) -> DeadlockReport:
    """One analysis per lint run for the three rules. A plan of some devices only (`lint
    --device`) has part of the topology: routes computed on it would bounce where the whole
    fabric does not, so it is not judged (lint the whole inventory)."""
    if not fabric.complete:
        return DeadlockReport()
    return computed_once("deadlock", fabric, lambda: check_deadlock(fabric))


def _path(channels: list[Channel]) -> str:
    return " | ".join(str(c) for c in channels)


@rule("LL140", "pfc-deadlock-cycle", "error", "fabric", SOURCE, shares="deadlock")
def pfc_deadlock_cycle(fabric: FabricPlan):
    """The lossless class has no cyclic buffer dependency with every link up: with PFC on
    every hop of a cycle, the switches on it can pause each other forever (PFC deadlock).
    A Clos routed up and then down has none; links between two leaves or two spines,
    single-homed leaves and servers that forward make routes bounce and can close one."""
    for finding in _report(fabric).findings:
        if finding.kind == "cycle":
            yield Finding(
                finding.path[0].source,
                "LL140",
                "error",
                f"cyclic buffer dependency (PFC deadlock) on {_path(finding.path)}",
            )


@rule("LL141", "pfc-deadlock-after-failure", "error", "fabric", SOURCE, shares="deadlock")
def pfc_deadlock_after_failure(fabric: FabricPlan):
    """No single link failure creates a cyclic buffer dependency: when a link goes down,
    routes that bounce (down to a leaf and up again) can close a cycle that was not there."""
    for finding in _report(fabric).findings:
        if finding.kind == "cycle-after-failure" and finding.failed is not None:
            failed = finding.failed
            yield Finding(
                failed.source,
                "LL141",
                "error",
                f"with {failed.sender}:{failed.sender_port} - "
                f"{failed.receiver}:{failed.receiver_port} down, cyclic buffer dependency "
                f"(PFC deadlock) on {_path(finding.path)}",
            )


@rule("LL142", "lossless-bounce", "warning", "fabric", SOURCE, shares="deadlock")
def lossless_bounce(fabric: FabricPlan):
    """Lossless routes go up and then down (valley-free). A route that comes down to a
    router and goes up again, or crosses a link between two routers of the same tier,
    breaks the order that keeps a Clos free of PFC deadlocks, even where no cycle closes
    yet. One finding per router where traffic bounces."""
    by_router: dict[str, list[list[Channel]]] = {}
    for finding in _report(fabric).findings:
        if finding.kind == "bounce":
            by_router.setdefault(finding.path[0].receiver, []).append(finding.path)
    for router, paths in sorted(by_router.items()):
        first = paths[0]
        more = f" and {len(paths) - 1} more" if len(paths) > 1 else ""
        yield Finding(
            first[0].source,
            "LL142",
            "warning",
            f"lossless traffic bounces at {router}: {_path(first)}{more}",
            router if router in fabric.devices else None,
        )
