"""LL128: a planned port that PFC pauses before ECN marks, at its real fan-in, in time
(lossless/simulate/, docs/simulate.md "Pausing before marking: LL128").

LL112 judges the thresholds one by one against the queue level at which PFC fires with every
PG of the switch congested. Whether the port's first marked frame leaves before its first
PG asks for a pause at its real fan-in also depends on how fast the queue climbs through the
marking ramp: with Kmax above the trigger and a small Pmax (the Cisco preset's 7 %, the
DCQCN paper's 1 %) few frames are marked on the way up, and a switch with few senders pauses
first. The fluid model answers it for each port.

Cost, bounded: congestion control is off (nothing is cut before the first mark, so the first
mark and the first pause are the same as with DCQCN), each run lasts only until the first
pause must have come (the pool filled at the senders' excess rate, `_duration`), ports are
grouped so that each device builds one scenario per kind of port, alike switches are worked
out once, and equal scenarios (the same numbers, whatever the names and the senders' order)
run once. pod-2048: 3 runs (a leaf's server ports and uplinks, a spine's ports) for 6,144
ports.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

from lossless.lint.groups import cable_groups
from lossless.lint.registry import Finding, rule
from lossless.plan import DevicePlan, FabricPlan, PortPlan, located
from lossless.simulate.key import scenario_key
from lossless.simulate.scenario import Scenario, ScenarioError, scenario
from lossless.text.grammar import first_few

STEP_S = 100.0 * 1e-9  # the model's default step, as `lossless simulate` converts --step 100
LONGEST_S = 10e-3  # no run is longer (the pool of a slow port filled at a small excess)
# Scenarios already worked out in this process, by their order-free key: a run depends on
# nothing else, and one process lints the same plan more than once (ci's plan and config
# passes, a library caller linting many configs against one inventory). Bounded: a key is a
# few hundred bytes and its events a small record.
_WORKED_OUT: dict[tuple, Events | None] = {}
_WORKED_OUT_MAX = 4096


@dataclasses.dataclass(frozen=True)
class Events:
    """The first ECN mark and the first pause of one scenario's run (us; None: none)."""

    senders: int
    first_mark_us: float | None
    first_pause_us: float | None
    queue_at_pause: int | None  # bytes in the egress queue when the first PG paused
    kmin: int
    kmax: int
    pmax_percent: float
    trigger: int
    run_us: float

    @property
    def pauses_first(self) -> bool:
        return self.first_pause_us is not None and (
            self.first_mark_us is None or self.first_pause_us < self.first_mark_us
        )

    @property
    def margin_us(self) -> float:
        """How long the first mark comes before the first pause (negative: after it)."""
        if self.first_pause_us is None:
            return float("inf")
        mark = self.first_mark_us if self.first_mark_us is not None else self.run_us
        return self.first_pause_us - mark

    def text(self) -> str:
        mark = (
            f"no frame is marked in the {self.run_us:g} us simulated"
            if self.first_mark_us is None
            else f"the first marked frame leaves at {self.first_mark_us:g} us"
        )
        pause = (
            "no PG pauses"
            if self.first_pause_us is None
            else f"the first PG pauses its sender at {self.first_pause_us:g} us with "
            f"{self.queue_at_pause:,} B in the queue"
        )
        return (
            f"{self.senders}:1 at line rate: {pause}, {mark} (Kmin {self.kmin:,} B, "
            f"Kmax {self.kmax:,} B, Pmax {self.pmax_percent:g} %, PFC trigger "
            f"{self.trigger:,} B a PG)"
        )


def _duration(sc: Scenario) -> float | None:
    """How long until the first pause must have come; None when the senders cannot outrun
    the port. The pool's threshold is alpha (B' - S), B' the pool less the other PGs' share
    and S the senders' shared bytes: when S reaches N alpha B' / (1 + N alpha) (N x T, the
    plan's trigger, with the planner's other PGs in place), the PG that holds the most holds
    at least S / N, the threshold, and has paused. S grows at the senders' excess over the
    port's speed; their bytes arrive a cable later."""
    excess = (sum(s.speed_bps for s in sc.senders) - sc.speed_bps) / 8
    if excess <= 0:
        return None
    n = len(sc.senders)
    pool = max(0.0, sc.pool_bytes - max(0, sc.sharing_pgs - n) * sc.trigger)
    shared = n * sc.alpha * pool / (1 + n * sc.alpha)
    longest = max(s.propagation_s for s in sc.senders)
    return min(LONGEST_S, 1.1 * shared / excess + 2 * longest + 2e-6)


def _events(sc: Scenario) -> Events | None:
    duration = _duration(sc)
    if duration is None:
        return None
    # numpy's import (80 ms) only when a port is simulated: every lint loads this module
    from lossless.simulate.fluid import simulate

    r = simulate(sc, None, duration, step_s=STEP_S)
    pause = r.first_pause_s
    queue_at_pause = None if pause is None else int(r.queue[round(pause / r.step_s)])
    return Events(
        senders=len(sc.senders),
        first_mark_us=None if r.first_mark_s is None else round(r.first_mark_s * 1e6, 1),
        first_pause_us=None if pause is None else round(pause * 1e6, 1),
        queue_at_pause=queue_at_pause,
        kmin=sc.kmin,
        kmax=sc.kmax,
        pmax_percent=round(sc.pmax * 100, 3),
        trigger=sc.trigger,
        run_us=round(r.duration_s * 1e6, 1),
    )


def _worked_out(key: tuple, sc: Scenario) -> Events | None:
    if key not in _WORKED_OUT:
        if len(_WORKED_OUT) >= _WORKED_OUT_MAX:
            _WORKED_OUT.pop(next(iter(_WORKED_OUT)))  # the oldest first
        _WORKED_OUT[key] = _events(sc)
    return _WORKED_OUT[key]


def _kind(port: PortPlan) -> tuple:
    """Two ports with the same kind send alike and, as egress ports of alike switches, give
    the same scenario up to the senders' order: the same speed, cable, MTU, headroom (its
    derivation's name holds every input of the model, the device's name not among them)
    and ECN thresholds."""
    return (
        port.speed_mbps,
        port.cable_m,
        port.mtu,
        tuple(tuple(vars(h).values()) for h in port.headroom),
        tuple((e.queue, e.min_bytes, e.max_bytes, e.probability_percent) for e in port.ecn),
    )


def _kinds(feeding: list[PortPlan], groups: list[list[PortPlan]]) -> list[tuple]:
    """Each feeding port's _kind, worked out once per group of the device's ports with
    equal settings and cables (lint.groups.cable_groups): all in a group are of one kind."""
    kind_of: dict[str, tuple] = {}
    for group in groups:
        kind_of.update(dict.fromkeys((p.name for p in group), _kind(group[0])))
    return [kind_of[p.name] for p in feeding]


def _order_free(sc: Scenario) -> tuple:
    key = scenario_key(sc)
    return (*key[:-1], tuple(sorted(key[-1])))


def _feeding(device: DevicePlan) -> list[PortPlan]:
    """The lossless ports with a peer: each one's senders are the others (scenario.fan_in)."""
    feeding = [p for p in device.ports.values() if p.lossless and p.peer]
    return feeding if len(feeding) > 1 else []


def _shape(device: DevicePlan, kinds: list[tuple]) -> tuple:
    """Equal for two switches whose ports give the same scenarios, port by port: the PFC
    trigger, the RoCE priority's PG and queue, and the kind of every port that sends."""
    trigger = device.pfc_trigger
    return (
        None
        if trigger is None
        else tuple(v for k, v in vars(trigger).items() if k != "derivation"),
        device.maps.tc_to_pg.get(device.roce_priority, device.roce_priority),
        device.maps.tc_to_queue.get(device.roce_priority, device.roce_priority),
        tuple(kinds),
    )


def first_events(fabric: FabricPlan) -> tuple[dict[tuple[str, str], Events], int]:
    """The first mark and pause of every lossless port with ECN that another lossless port
    sends into, at its real fan-in, for those that can congest (a port that cannot be
    simulated or whose senders cannot outrun it is left out); and the runs it took. Alike
    switches are worked out once, a device's alike ports once, equal scenarios once."""
    done: dict[tuple, Events | None] = {}
    found: dict[tuple[str, str], Events] = {}
    for device, feeding, events in _device_runs(fabric, done):
        for port, e in zip(feeding, events, strict=True):
            if e is not None:
                found[(device.name, port.name)] = e
    return found, sum(1 for e in done.values() if e is not None)


def _device_runs(
    fabric: FabricPlan, done: dict[tuple, Events | None]
) -> Iterator[tuple[DevicePlan, list[PortPlan], list[Events | None]]]:
    """Each device, its feeding ports and their events (see first_events): alike switches
    share one list of events, the same object (`done`: the scenarios run, by key)."""
    by_shape: dict[tuple, list[Events | None]] = {}
    groups = cable_groups(fabric)
    for device in fabric.devices.values():
        feeding = _feeding(device)
        kinds = _kinds(feeding, groups[device.name])
        shape = _shape(device, kinds)
        events = by_shape.get(shape)
        if events is None:
            events = by_shape[shape] = _device_events(fabric, device, feeding, kinds, done)
        yield device, feeding, events


def _device_events(
    fabric: FabricPlan,
    device: DevicePlan,
    feeding: list[PortPlan],
    kinds: list[tuple],
    done: dict[tuple, Events | None],
) -> list[Events | None]:
    """Each feeding port's events (None: not simulated), one scenario per kind of port."""
    by_kind: dict[tuple, Events | None] = {}
    events = []
    for port, kind in zip(feeding, kinds, strict=True):
        if kind not in by_kind:
            by_kind[kind] = None
            if port.ecn:
                try:
                    sc = scenario(fabric, device.name, port.name, None)
                except ScenarioError:
                    sc = None
                if sc is not None:
                    key = _order_free(sc)
                    if key not in done:
                        done[key] = _worked_out(key, sc)
                    by_kind[kind] = done[key]
        events.append(by_kind[kind])
    return events


@rule(
    "LL128",
    "pause-before-mark",
    "warning",
    "fabric",
    "docs/simulate.md (Pausing before marking); Zhu et al., SIGCOMM 2015, section 3",
    facts=("ecn",),
    shares="cable groups",
)
def pause_before_mark(fabric: FabricPlan) -> Iterator[Finding]:
    """At its real fan-in (every other lossless port of the switch sending at line rate), a
    port's first PG reaches the PFC trigger before the port's first ECN-marked frame leaves:
    PFC, not DCQCN, slows the senders, and pauses spread upstream. The fluid model of
    `lossless simulate` (congestion control off: the first mark comes before any rate cut)
    with the plan's thresholds, pool and headroom decides it; Kmax above the trigger with a
    small Pmax marks too few frames on the queue's way up."""
    by_line: dict[tuple[str, str], list[tuple[PortPlan, Events]]] = {}
    # a list of events alike switches share -> the ports (by number) that pause first
    pausing: dict[int, list[tuple[int, Events]]] = {}
    for device, feeding, alike in _device_runs(fabric, {}):
        first = pausing.get(id(alike))
        if first is None:
            first = pausing[id(alike)] = [
                (i, e) for i, e in enumerate(alike) if e is not None and e.pauses_first
            ]
        for i, e in first:
            port = feeding[i]
            by_line.setdefault((device.name, located(port, "ecn")), []).append((port, e))
    # one finding per switch and line that states the thresholds (one cause), naming its
    # ports, with the figures of the port whose pause comes first by the most
    for (device_name, source), found in by_line.items():
        port, events = min(found, key=lambda item: item[1].margin_us)
        names = [p.name for p, _ in found]
        where = (
            f"port {port.name}"
            if len(found) == 1
            else f"{len(found)} ports ({first_few(names, 3)}); the worst, {port.name}"
        )
        yield Finding(
            source,
            "LL128",
            "warning",
            f"PFC pauses before ECN marks at the real fan-in of {where}: {events.text()}; "
            f"`lossless simulate --device {device_name} --port {port.name}` shows it in time",
            device_name,
            port.name if len(found) == 1 else None,
        )
