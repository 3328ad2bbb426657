"""A snapshot judged against the plan: each planned port's state beside its plan, its state
in the baseline and its link peer's state (rules.PortView), each device's (rules.DeviceView),
the state rules run over them, and the findings through lint() so that `lint_ignore`,
--select/--ignore and one finding per cause apply as they do to lint's own findings."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator

from lossless.lint.catalogue import registered_rules
from lossless.lint.registry import Finding, Rule, finding_of
from lossless.lint.runner import LintResult, lint
from lossless.observed import DeviceState
from lossless.plan import DevicePlan, FabricPlan
from lossless.vendors.registry import vendor_for
from lossless.verify import rules as _rules  # noqa: F401  (registers the state rules)
from lossless.verify.collect import Snapshot
from lossless.verify.rules import DeviceView, PortView

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
    when given."""
    findings = list(_findings(plan, now, before, devices))
    return lint(plan, list(select) or [STATE_RULES], ignore, extra=findings)


def _findings(
    plan: FabricPlan, now: Snapshot, before: Snapshot | None, devices: Collection[str] | None
) -> Iterator[Finding]:
    port_rules = [r for r in state_rules() if r.scope == "state"]
    device_rules = [r for r in state_rules() if r.scope == "state-device"]
    for name, device in plan.devices.items():
        if devices is not None and name not in devices:
            continue
        state = now.devices.get(name)
        earlier = before.devices.get(name) if before is not None else None
        failure = now.failures.get(name, "not in the snapshot")
        device_view = DeviceView(device, state, earlier, "" if state else failure)
        source = state.source if state is not None else device.source
        for rule_ in device_rules:
            for item in rule_.check(device_view):
                yield finding_of(rule_, item, source, name, None)
        if state is None:
            continue
        for view in port_views(plan, device, state, earlier, now):
            for rule_ in port_rules:
                for item in rule_.check(view):
                    yield finding_of(rule_, item, view.now.source, name, view.port.name)


def port_views(
    plan: FabricPlan,
    device: DevicePlan,
    state: DeviceState,
    earlier: DeviceState | None,
    now: Snapshot,
) -> Iterator[PortView]:
    """A view of each planned port the state shows."""
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
        )


def lossless_queues(device: DevicePlan) -> dict[int, int]:
    """Lossless priority -> the egress queue the device's OS carries it in (its numbering:
    Junos moves RoCE to queue 4, Vendor.as_rendered)."""
    rendered = vendor_for(device.os).as_rendered(device)
    return {
        p: rendered.maps.pfc_priority_to_queue[p]
        for p in rendered.lossless_priorities
        if p in rendered.maps.pfc_priority_to_queue
    }
