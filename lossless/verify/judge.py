"""A snapshot judged against the plan: each planned port's state beside its plan, its state
in the baseline and its link peer's state (rules.PortView), each device's (rules.DeviceView),
the state rules run over them, and the findings through lint() so that `lint_ignore`,
--select/--ignore and one finding per cause apply as they do to lint's own findings.
check_baseline refuses a baseline that cannot be one of the state (another OS, read later)."""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from lossless.errors import InputError, Problem
from lossless.lint.catalogue import registered_rules
from lossless.lint.registry import Finding, Rule, finding_of
from lossless.lint.runner import LintResult, lint
from lossless.observed import DeviceState, PortState
from lossless.plan import DevicePlan, FabricPlan
from lossless.verify import rules as _rules  # noqa: F401  (registers the state rules)
from lossless.verify.collect import Snapshot, lossless_queues
from lossless.verify.rules import JUDGES, READS_PEER, DeviceView, PortView

__all__ = [
    "DeviceRead",
    "Judged",
    "baseline_problem",
    "check_baseline",
    "judge",
    "judge_alone",
    "judge_links",
    "kept",
    "lossless_queues",
    "port_views",
    "refuse_baseline",
    "state_of",
    "state_rules",
]

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
) -> LintResult:
    """The findings of the state rules (those of `select`, default all, but `ignore`) over
    the plan's devices (or those named) as `now` shows them, deltas taken from `before`
    when given: a live read's (`verify --live`, a push's gate), judged in this process, as
    a fork would copy napalm's connection threads mid-work. Saved state is judged where it
    is read instead (verify/saved.py)."""
    names = [n for n in plan.devices if devices is None or n in devices]
    rules = state_rules()

    def peer_state(peer: str) -> PortState | None:
        peer_device, _, peer_port = peer.partition(":")
        found = now.devices.get(peer_device)
        return found.ports.get(peer_port) if found is not None else None

    def judged(index: int) -> list[Finding]:
        name = names[index]
        earlier = before.devices.get(name) if before is not None else None
        read = DeviceRead.of(now, name)
        return list(_findings(plan, name, read, earlier, before is not None, rules, peer_state))

    findings = [finding for index in range(len(names)) for finding in judged(index)]
    return lint(plan, list(select) or [STATE_RULES], ignore, extra=findings, read=STATE_SCOPES)


@dataclass(frozen=True)
class DeviceRead:
    """One device as read: its state, or why it could not be read (failure) and the
    FILE:LINE:COL of the output that made it fail, where one did."""

    state: DeviceState | None
    failure: str = ""
    failed_at: str | None = None

    @classmethod
    def of(cls, snapshot: Snapshot, name: str) -> DeviceRead:
        state = snapshot.devices.get(name)
        if state is not None:
            return cls(state)
        return cls(
            None, snapshot.failures.get(name, "not in the snapshot"), snapshot.failed_at.get(name)
        )


def _findings(
    plan: FabricPlan,
    name: str,
    read: DeviceRead,
    earlier: DeviceState | None,
    baseline: bool,
    rules: list[Rule],
    peer_state: Callable[[str], PortState | None],
    links_later: bool = False,
) -> Iterator[Finding]:
    """The findings of one device: the device rules', then each port's. baseline: one was
    given (earlier is the device in it). links_later: the READS_PEER rules are left out on
    ports with a switch peer (judge_saved runs them once the peer is read)."""
    device = plan.devices[name]
    state = read.state
    device_view = DeviceView(device, state, earlier, "" if state else read.failure, baseline)
    for rule_ in rules:
        if rule_.scope == "state-device":
            for item in rule_.check(device_view):
                yield finding_of(rule_, item, _device_source(device, read), name, None)
    if state is None:
        return
    port_rules = [r for r in rules if r.scope == "state"]
    alone = [r for r in port_rules if r.id not in READS_PEER] if links_later else port_rules
    for view in port_views(plan, device, state, earlier, peer_state, baseline):
        yield from _port_findings(view, alone if view.peer else port_rules)


def _port_findings(view: PortView, rules: list[Rule]) -> Iterator[Finding]:
    """The port rules' findings over one port's view, each where what it judges was read."""
    for rule_ in rules:
        source = view.now.at(*JUDGES.get(rule_.id, ()))
        for item in rule_.check(view):
            yield finding_of(rule_, item, source, view.device.name, view.port.name)


def _device_source(device: DevicePlan, read: DeviceRead) -> str:
    """Where a device finding points: the output that made the device fail, else its first
    output (line 1), else the folder it was read from, else the inventory's device."""
    state = read.state
    if state is not None:
        return state.at or state.source or device.source
    return read.failed_at or device.source


# The PortState fields the link rules read (of a port and of its peer), in a fixed order
LINK_FIELDS = tuple(sorted({f for rule_id in READS_PEER for f in JUDGES.get(rule_id, ())}))
# A port's state as the link rules read it: its source, LINK_FIELDS' values, and where each
# of them was read ((field, FILE:LINE:COL), ...): a tuple and two strings, about 300 bytes,
# where a PortState with its empty counters is about 900 and a port's whole state 5 KB
Kept = tuple[str, tuple[Any, ...], tuple[tuple[str, str], ...]]


@dataclass(frozen=True)
class Judged:
    """A device judged where it was read (judge_saved): its findings but those of the link
    rules (READS_PEER) on its ports with a switch peer, and those ports' state as the link
    rules read it (Kept), for this process to judge once both ends are read."""

    findings: list[Finding]
    links: dict[str, Kept]  # port -> its state as kept


def judge_alone(
    plan: FabricPlan,
    name: str,
    read: DeviceRead,
    earlier: DeviceState | None,
    baseline: bool,
    rules: list[Rule],
) -> Judged:
    """The device judged by what it shows alone (see Judged)."""
    found = list(_findings(plan, name, read, earlier, baseline, rules, _no_peer, links_later=True))
    state = read.state
    if state is None:
        return Judged(found, {})
    ports = plan.devices[name].ports
    links = {}
    for port_name, port_state in state.ports.items():
        port = ports.get(port_name)
        if port is not None and port.peer and port.peer_kind == "switch":
            links[port_name] = kept(port_state)
    return Judged(found, links)


def _no_peer(peer: str) -> None:
    return None


def kept(state: PortState) -> Kept:
    """What the link rules read of a port's state (LINK_FIELDS, and where each was read)."""
    values = tuple(getattr(state, field_name) for field_name in LINK_FIELDS)
    sources = tuple((f, state.sources[f]) for f in LINK_FIELDS if f in state.sources)
    return state.source, values, sources


def state_of(name: str, ends: Kept) -> PortState:
    """The port's state as kept: LINK_FIELDS and their sources, nothing else."""
    source, values, sources = ends
    state = PortState(name, source, sources=dict(sources))
    for field_name, value in zip(LINK_FIELDS, values, strict=True):
        setattr(state, field_name, value)
    return state


def judge_links(plan: FabricPlan, judged: Mapping[str, Judged], rules: list[Rule]) -> list[Finding]:
    """The link rules (READS_PEER) on the ports judge_alone left to them, each beside its
    peer's state as judge_alone kept it."""
    link_rules = [r for r in rules if r.id in READS_PEER]

    def peer_state(peer: str) -> PortState | None:
        peer_device, _, peer_port = peer.partition(":")
        found = judged.get(peer_device)
        ends = found.links.get(peer_port) if found is not None else None
        return state_of(peer_port, ends) if ends is not None else None

    findings: list[Finding] = []
    for name, verdict in judged.items():
        if not verdict.links:
            continue
        device = plan.devices[name]
        ports = {port: state_of(port, ends) for port, ends in verdict.links.items()}
        state = DeviceState(name, device.os, "", ports=ports)
        for view in port_views(plan, device, state, None, peer_state, False):
            findings += _port_findings(view, link_rules)
    return findings


def check_baseline(now: Snapshot, before: Snapshot, baseline: str) -> None:
    """A baseline that cannot be one of `now`: a device of another OS in it, or read after
    now. Bad input (exit 2) naming the baseline and the device."""
    problems = [
        baseline_problem(name, state, before.devices.get(name))
        for name, state in sorted(now.devices.items())
    ]
    refuse_baseline(baseline, problems)


def refuse_baseline(baseline: str, problems: Iterable[str | None]) -> None:
    """Bad input (exit 2) naming the baseline, with each problem found (None: none)."""
    found = [Problem(baseline, 1, 1, "", p) for p in problems if p]
    if found:
        raise InputError(found)


def baseline_problem(name: str, state: DeviceState, earlier: DeviceState | None) -> str | None:
    """Why the device's state in a baseline cannot be a baseline of its state now, if so."""
    if earlier is None:
        return None
    if earlier.os != state.os:
        return (
            f"{name} is {earlier.os[:40]!r} in the baseline but {state.os} now: "
            "a baseline of another fabric?"
        )
    if earlier.collected_at and state.collected_at and earlier.collected_at > state.collected_at:
        return (
            f"{name} was read later in the baseline ({earlier.collected_at:.0f}) than "
            f"now ({state.collected_at:.0f}): are --state and --baseline swapped?"
        )
    return None


def port_views(
    plan: FabricPlan,
    device: DevicePlan,
    state: DeviceState,
    earlier: DeviceState | None,
    peer_state: Callable[[str], PortState | None],
    baseline: bool = False,
) -> Iterator[PortView]:
    """A view of each planned port the state shows, beside its switch peer's state as
    `peer_state` ("device:port") gives it (baseline: one was given, so a counter it lacks
    has no delta)."""
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
        peer = port.peer if port.peer_kind == "switch" else None
        yield PortView(
            device,
            port,
            port_state,
            earlier.ports.get(port_name) if earlier is not None else None,
            seconds if seconds is None or seconds > 0 else None,
            peer,
            peer_state(peer) if peer else None,
            {p: queues[p] for p in port.pfc_priorities if p in queues} if port.lossless else {},
            baseline or earlier is not None,
        )
