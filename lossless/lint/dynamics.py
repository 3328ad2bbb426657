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
grouped so that each device builds one scenario per kind of port, and equal scenarios (the
same numbers, whatever the names and the senders' order) run once. pod-2048: 2 runs.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator

from lossless.lint.registry import Finding, rule
from lossless.plan import DevicePlan, FabricPlan, PortPlan, located
from lossless.simulate.fluid import simulate
from lossless.simulate.scenario import Scenario, ScenarioError, scenario
from lossless.simulate.worst import scenario_key

STEP_S = 100.0 * 1e-9  # the model's default step, as `lossless simulate` converts --step 100
LONGEST_S = 10e-3  # no run is longer (the pool of a slow port filled at a small excess)


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


def _kind(port: PortPlan) -> tuple:
    """Two ports of a device with the same kind give the same scenario as egress ports, up
    to the senders' order: the same speed, cable, MTU, headroom and ECN."""
    return (
        port.speed_mbps,
        port.cable_m,
        port.mtu,
        tuple(tuple(vars(h).values()) for h in port.headroom),
        tuple(tuple(vars(e).values()) for e in port.ecn),
    )


def _order_free(sc: Scenario) -> tuple:
    key = scenario_key(sc)
    return (*key[:-1], tuple(sorted(key[-1])))


def first_events(
    fabric: FabricPlan, ports: Iterable[tuple[str, str]]
) -> tuple[dict[tuple[str, str], Events], int]:
    """The first mark and pause of each (device, port) that can congest at its real fan-in
    (ports that cannot be simulated or cannot congest are left out), and the runs it took."""
    by_kind: dict[tuple[str, tuple], tuple[Scenario, tuple] | None] = {}
    done: dict[tuple, Events | None] = {}
    found: dict[tuple[str, str], Events] = {}
    for device_name, port_name in ports:
        device = fabric.devices[device_name]
        kind = (device_name, _kind(device.ports[port_name]))
        if kind not in by_kind:
            try:
                sc = scenario(fabric, device_name, port_name, None)
                by_kind[kind] = (sc, _order_free(sc))
            except ScenarioError:
                by_kind[kind] = None
        built = by_kind[kind]
        if built is None:
            continue
        sc, key = built
        if key not in done:
            done[key] = _events(sc)
        events = done[key]
        if events is not None:
            found[(device_name, port_name)] = events
    return found, sum(1 for e in done.values() if e is not None)


def _simulated(fabric: FabricPlan) -> dict[tuple[str, str], Events]:
    """Every lossless port with ECN that another lossless port sends into (fan_in, counted
    once per device), simulated."""
    ports = []
    for device in fabric.devices.values():
        feeding = [p for p in device.ports.values() if p.lossless and p.peer]
        if len(feeding) > 1:
            ports += [(device.name, p.name) for p in feeding if p.ecn]
    return first_events(fabric, ports)[0]


@rule(
    "LL128",
    "pause-before-mark",
    "warning",
    "fabric",
    "docs/simulate.md (Pausing before marking); Zhu et al., SIGCOMM 2015, section 3",
    facts=("ecn",),
)
def pause_before_mark(fabric: FabricPlan) -> Iterator[Finding]:
    """At its real fan-in (every other lossless port of the switch sending at line rate), a
    port's first PG reaches the PFC trigger before the port's first ECN-marked frame leaves:
    PFC, not DCQCN, slows the senders, and pauses spread upstream. The fluid model of
    `lossless simulate` (congestion control off: the first mark comes before any rate cut)
    with the plan's thresholds, pool and headroom decides it; Kmax above the trigger with a
    small Pmax marks too few frames on the queue's way up."""
    for (device_name, port_name), events in _simulated(fabric).items():
        if not events.pauses_first:
            continue
        device: DevicePlan = fabric.devices[device_name]
        port = device.ports[port_name]
        yield Finding(
            located(port, "ecn"),
            "LL128",
            "warning",
            f"PFC pauses before ECN marks at the port's real fan-in: {events.text()}; "
            f"`lossless simulate --device {device_name} --port PORT` shows it in time",
            device_name,
            port_name,
        )
