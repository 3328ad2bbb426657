"""PFC deadlock rules (LL140-LL142) over the fabric's topology; the analysis is
lossless/planner/deadlock.py (routing model, why a Clos is safe, what breaks it)."""

from __future__ import annotations

from lossless.lint.registry import Finding, computed_once, rule
from lossless.plan import FabricPlan
from lossless.planner.deadlock import Channel, DeadlockReport, Failure, check_deadlock
from lossless.text.grammar import first_few

SOURCE = "Hu et al., HotNets 2016 (cyclic buffer dependency); Guo et al., SIGCOMM 2016"

# Destinations or links a partial-check warning names before "and N more": enough to see
# which part of the fabric was left out, short enough for one line of CI output (the counts
# say how much).
NAMED = 10


def _report(fabric: FabricPlan) -> DeadlockReport:
    """One analysis per lint run for the three rules. A plan of some devices only (`lint
    --device`) has part of the topology: routes computed on it would bounce where the whole
    fabric does not, so it is not judged (lint the whole inventory)."""
    if not fabric.complete:
        return DeadlockReport()
    return computed_once("deadlock", fabric, lambda: check_deadlock(fabric))


def _path(channels: list[Channel]) -> str:
    return " | ".join(str(c) for c in channels)


def _on(fabric: FabricPlan, channels: list[Channel]) -> tuple[str, ...]:
    """The switches a cycle runs through, in its order: the devices the finding concerns."""
    names = dict.fromkeys(n for c in channels for n in (c.sender, c.receiver))
    return tuple(n for n in names if n in fabric.devices)


def _link(channel: Channel) -> str:
    return f"{channel.sender}:{channel.sender_port} - {channel.receiver}:{channel.receiver_port}"


def _failure(failure: Failure) -> str:
    """A failure case as a warning lists it: the cable, or the switch that reboots."""
    if failure.cable is not None:
        return _link(failure.cable)
    return f"{failure.switch} reboot"


def _failed_at(fabric: FabricPlan, failure: Failure) -> str:
    """The inventory line of the failed cable, or where the rebooting switch is defined."""
    if failure.cable is not None:
        return failure.cable.source
    return _defined_at(fabric, failure.switch or "")


def _named(names: list[str]) -> str:
    return first_few(names, NAMED)


def _incomplete(report: DeadlockReport) -> str:
    return (
        f"PFC deadlock check incomplete: its work budget ({report.budget:,} units, "
        f"docs/deadlock.md) ran out"
    )


def _defined_at(fabric: FabricPlan, router: str) -> str:
    """Where a router (a switch, or a server that forwards) is defined in the inventory."""
    device = fabric.devices.get(router)
    return device.source if device is not None else fabric.forwarding_servers.get(router, "")


@rule("LL140", "pfc-deadlock-cycle", "error", "fabric", SOURCE, shares="deadlock")
def pfc_deadlock_cycle(fabric: FabricPlan):
    """The lossless class has no cyclic buffer dependency with every link up: with PFC on
    every hop of a cycle, the switches on it can pause each other forever (PFC deadlock).
    A Clos routed up and then down has none; links between two leaves or two spines,
    single-homed leaves and servers that forward make routes bounce and can close one. One
    finding per cycle (a cycle and its reverse over the same links are one). When
    the check's work budget runs out before every destination is routed (a hostile or huge
    inventory), a warning names the destinations whose traffic was not checked."""
    report = _report(fabric)
    for finding in report.findings:
        if finding.kind == "cycle":
            yield Finding(
                finding.path[0].source,
                "LL140",
                "error",
                f"cyclic buffer dependency (PFC deadlock) on {_path(finding.path)}",
                devices=_on(fabric, finding.path),
            )
    if report.unrouted:
        routed = report.destinations - len(report.unrouted)
        yield Finding(
            _defined_at(fabric, report.unrouted[0]),
            "LL140",
            "warning",
            f"{_incomplete(report)} after routing {routed} of {report.destinations} "
            f"destinations as written: cycles through the traffic toward "
            f"{_named(report.unrouted)} are not checked",
        )


@rule("LL141", "pfc-deadlock-after-failure", "error", "fabric", SOURCE, shares="deadlock")
def pfc_deadlock_after_failure(fabric: FabricPlan):
    """No single failure creates a cyclic buffer dependency: when a cable goes down or a
    switch reboots (all its links down at once), routes that bounce (down to a leaf and up
    again) can close a cycle that was not there. One finding per failure case that closes a
    cycle, naming the cable or the switch. When the check's work budget runs out first, a
    warning names the failure cases not checked."""
    report = _report(fabric)
    for finding in report.findings:
        if finding.kind == "cycle-after-failure" and finding.failed is not None:
            failed = finding.failed
            when = (
                f"with {_link(failed.cable)} down"
                if failed.cable is not None
                else f"after {failed.switch} reboots (all its links down at once)"
            )
            more = f" (and {finding.more} more cycles)" if finding.more else ""
            yield Finding(
                _failed_at(fabric, failed),
                "LL141",
                "error",
                f"{when}, cyclic buffer dependency (PFC deadlock) on {_path(finding.path)}{more}",
                devices=_on(fabric, finding.path),
            )
    if report.unchecked:
        how = (
            f" ({report.failures_parallel} leave a parallel cable up, "
            f"{report.failures_harmless} leave every endpoint's routes as they were, "
            f"{report.failures_analysed} analysed)"
            if report.failures_checked
            else ""
        )
        yield Finding(
            _failed_at(fabric, report.unchecked[0]),
            "LL141",
            "warning",
            f"{_incomplete(report)} with {len(report.unchecked)} of {report.failures} failure "
            f"cases ({report.links} cables down, {report.switches} switch reboots) not checked: "
            f"{_named([_failure(f) for f in report.unchecked])}; "
            f"{report.failures_checked} checked{how}",
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
