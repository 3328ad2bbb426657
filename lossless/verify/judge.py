"""A snapshot judged against the plan: each planned port's state beside its plan, its state
in the baseline and its link peer's state (rules.PortView), each device's (rules.DeviceView),
the state rules run over them, and the findings through lint() so that `lint_ignore`,
--select/--ignore and one finding per cause apply as they do to lint's own findings.
check_baseline refuses a baseline that cannot be one of the state (another OS, read later)."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator

from lossless.errors import InputError, Problem
from lossless.lint.catalogue import registered_rules
from lossless.lint.registry import Finding, Rule, finding_of
from lossless.lint.runner import LintResult, lint
from lossless.observed import DeviceState
from lossless.plan import DevicePlan, FabricPlan
from lossless.system.parallel import ordered_map
from lossless.verify import rules as _rules  # noqa: F401  (registers the state rules)
from lossless.verify.collect import Snapshot, lossless_queues
from lossless.verify.rules import JUDGES, DeviceView, PortView

__all__ = ["check_baseline", "judge", "lossless_queues", "port_views", "state_rules"]

STATE_SCOPES = ("state", "state-device")
# What --select names by default: every state rule
STATE_RULES = "LL3"


def state_rules() -> list[Rule]:
    return [r for r in registered_rules().values() if r.scope in STATE_SCOPES]


def judge(
    plan: FabricPlan,
    now: Snapshot,
    before: Snapshot | None = None,
    select: Iterable[str] = (),
    ignore: Iterable[str] = (),
    devices: Collection[str] | None = None,
    in_workers: bool = False,
) -> LintResult:
    """The findings of the state rules (those of `select`, default all, but `ignore`) over
    the plan's devices (or those named) as `now` shows them, deltas taken from `before`
    when given. in_workers: a large fabric's devices are judged in forked worker processes
    too (system/parallel.py; `verify`, never a push, whose napalm threads a fork would copy
    mid-work), their findings in the same order."""
    names = [n for n in plan.devices if devices is None or n in devices]
    rules = state_rules()

    def judged(index: int) -> list[Finding]:
        return list(_findings(plan, names[index], now, before, rules))

    findings = [
        finding
        for found in ordered_map(judged, len(names), worthwhile=None if in_workers else False)
        for finding in found
    ]
    return lint(plan, list(select) or [STATE_RULES], ignore, extra=findings, read=STATE_SCOPES)


def _findings(
    plan: FabricPlan, name: str, now: Snapshot, before: Snapshot | None, rules: list[Rule]
) -> Iterator[Finding]:
    """The findings of one device: the device rules', then each port's."""
    device = plan.devices[name]
    state = now.devices.get(name)
    earlier = before.devices.get(name) if before is not None else None
    failure = now.failures.get(name, "not in the snapshot")
    device_view = DeviceView(device, state, earlier, "" if state else failure, before is not None)
    for rule_ in rules:
        if rule_.scope == "state-device":
            for item in rule_.check(device_view):
                yield finding_of(rule_, item, _device_source(device, now), name, None)
    if state is None:
        return
    port_rules = [r for r in rules if r.scope == "state"]
    for view in port_views(plan, device, state, earlier, now, before is not None):
        for rule_ in port_rules:
            source = view.now.at(*JUDGES.get(rule_.id, ()))
            for item in rule_.check(view):
                yield finding_of(rule_, item, source, name, view.port.name)


def _device_source(device: DevicePlan, now: Snapshot) -> str:
    """Where a device finding points: the output that made the device fail, else its first
    output (line 1), else the folder it was read from, else the inventory's device."""
    state = now.devices.get(device.name)
    if state is not None:
        return state.at or state.source or device.source
    return now.failed_at.get(device.name, device.source)


def check_baseline(now: Snapshot, before: Snapshot, baseline: str) -> None:
    """A baseline that cannot be one of `now`: a device of another OS in it, or read after
    now. Bad input (exit 2) naming the baseline and the device."""
    problems = []
    for name, state in sorted(now.devices.items()):
        earlier = before.devices.get(name)
        if earlier is None:
            continue
        if earlier.os != state.os:
            problems.append(
                f"{name} is {earlier.os[:40]!r} in the baseline but {state.os} now: "
                "a baseline of another fabric?"
            )
        elif (
            earlier.collected_at
            and state.collected_at
            and earlier.collected_at > state.collected_at
        ):
            problems.append(
                f"{name} was read later in the baseline ({earlier.collected_at:.0f}) than "
                f"now ({state.collected_at:.0f}): are --state and --baseline swapped?"
            )
    if problems:
        raise InputError([Problem(baseline, 1, 1, "", p) for p in problems])


def port_views(
    plan: FabricPlan,
    device: DevicePlan,
    state: DeviceState,
    earlier: DeviceState | None,
    now: Snapshot,
    baseline: bool = False,
) -> Iterator[PortView]:
    """A view of each planned port the state shows (baseline: one was given, so a counter
    it lacks has no delta)."""
    seconds = (
        state.collected_at - earlier.collected_at
        if earlier is not None and state.collected_at and earlier.collected_at
        else None
    )
    queues = lossless_queues(device)
    for port_name, port_state in state.ports.items():
        port = device.ports.get(port_name)
        if port is None:
            continue
        peer_state = None
        peer = port.peer if port.peer_kind == "switch" else None
        if peer:
            peer_device, _, peer_port = peer.partition(":")
            peer_device_state = now.devices.get(peer_device)
            if peer_device_state is not None:
                peer_state = peer_device_state.ports.get(peer_port)
        yield PortView(
            device,
            port,
            port_state,
            earlier.ports.get(port_name) if earlier is not None else None,
            seconds if seconds is None or seconds > 0 else None,
            peer,
            peer_state,
            {p: queues[p] for p in port.pfc_priorities if p in queues} if port.lossless else {},
            baseline or earlier is not None,
        )
