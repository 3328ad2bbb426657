"""The rules `lossless verify` judges a running fabric by (LL301-LL311, docs/verify.md).

Each is a lint rule (lint/registry.py: ID, name, severity, explanation, source) over what a
switch reports rather than over a plan: a port rule (scope "state") reads a PortView, the
planned port beside its state now, its state in the baseline snapshot and the state of the
switch port at the other end of its cable; a device rule (scope "state-device") reads a
DeviceView. verify/judge.py makes the views and runs the rules; the lint machinery
(suppressions, one finding per cause, every output format) does the rest.

Counters are judged as deltas: since the baseline snapshot with --baseline, else since the
switch last cleared them (boot or `clear counters`). A counter that went backwards was
cleared in between: what it holds now counted since then (LL309 says so). With a baseline, a
counter the baseline lacks (its device, port or output) has no delta: it is not judged, and
LL310 says the baseline did not cover it (a since-boot count is not growth since then).

A port finding points at where the reader read what the rule judged (JUDGES: the PortState
fields, PortState.at), not at where the port was first seen.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from lossless.lint.registry import rule
from lossless.observed import DeviceState, PortState, QueueCounters, WatchdogCounters
from lossless.plan import DevicePlan, PortPlan
from lossless.text.grammar import first_few, plural

# IEEE 802.3 Annex 31B: a PFC frame pauses a priority for up to 65,535 quanta of 512 bit
# times each; LL307 bounds the paused time by that.
MAX_PAUSE_QUANTA = 65_535
BITS_PER_QUANTUM = 512
# LL307 warns when the pause frames a priority received (or sent) could keep it paused this
# share of the time or more.
PAUSED_SHARE_WARNING = 0.10

Read = Callable[[PortState], int | None]  # one counter of a port's state


@dataclass(frozen=True)
class PortView:
    device: DevicePlan
    port: PortPlan
    now: PortState
    before: PortState | None  # the baseline's state of the port (None: no baseline)
    seconds: float | None  # between the baseline and now, when both say when they were read
    peer: str | None  # "device:port" of the planned switch port at the other end
    peer_now: PortState | None
    queues: dict[int, int]  # lossless priority -> the OS's egress queue carrying it
    baseline: bool = False  # a baseline was given (before None then: it lacks the port)

    @property
    def span(self) -> str:
        """The time the counters' deltas cover, as words."""
        if self.before is None:
            return "since the counters were last cleared"
        if self.seconds is None:
            return "since the baseline"
        return f"in the {self.seconds:,.0f} s since the baseline"

    def delta(self, read: Read) -> int | None:
        """A counter's growth: now minus the baseline; None when not shown now, or when a
        baseline was given that lacks it. Without a baseline, or when the counter went
        backwards (cleared in between), what it holds."""
        now = read(self.now)
        if now is None:
            return None
        if not self.baseline and self.before is None:
            return now
        earlier = read(self.before) if self.before is not None else None
        if earlier is None:
            return None
        return now if now < earlier else now - earlier


@dataclass(frozen=True)
class DeviceView:
    device: DevicePlan
    now: DeviceState | None  # None: the device could not be read
    before: DeviceState | None
    failure: str  # why it could not be read ("" when it was)
    baseline: bool = False  # a baseline was given (before None then: it lacks the device)


# The port rules that read the link peer's state (PortView.peer_now), and of it only its
# JUDGES fields, as of their own port (judge.judge_saved runs them once both ends are read,
# over those fields alone: tests/test_verify_streamed.py)
READS_PEER = frozenset({"LL301"})

# Rule -> the PortState fields (PortState.sources keys) it judges: its finding points at
# where the first of them was read
JUDGES: dict[str, tuple[str, ...]] = {
    "LL301": ("pfc_enabled",),
    "LL302": ("queues",),
    "LL303": ("ecn", "queues"),
    "LL304": ("watchdog",),
    "LL305": ("watchdog_state", "watchdog"),
    "LL306": ("pfc_rx",),
    "LL307": ("pfc_rx", "pause_rx_frames"),
    "LL308": ("ingress_drops",),
    "LL311": ("oper_up", "link_changes"),
}


# -- links and PFC -------------------------------------------------------------------------


@rule("LL301", "pfc-not-operational", "error", "state", "docs/reference/physics.md")
def pfc_not_operational(view: PortView) -> Iterator[str | tuple[str, str]]:
    """PFC is not operationally enabled on the priorities the plan makes lossless (or is on
    for a priority the plan leaves lossy). A port without PFC on a priority neither pauses
    its link peer when its headroom fills nor stops sending when the peer pauses it: the
    lossless traffic of that priority drops at one end of the link."""
    shown = view.now.pfc_enabled
    if shown is None:
        return
    planned = set(view.port.pfc_priorities) if view.port.lossless else set()
    off, extra = sorted(planned - set(shown)), sorted(set(shown) - planned)
    if off:
        peer = ""
        if view.peer:
            peer_on = view.peer_now.pfc_enabled if view.peer_now is not None else None
            peer = (
                f"; {view.peer} runs PFC on {_priorities(peer_on)}"
                if peer_on
                else f"; {view.peer} has PFC off there too"
                if peer_on is not None
                else ""
            )
        yield (
            f"PFC is operationally off for {_priorities(off)} (plan: "
            f"{_priorities(sorted(planned))}, on: {_priorities(sorted(shown)) or 'none'}){peer}"
        )
    if extra:
        yield (
            "warning",
            f"PFC is operationally on for {_priorities(extra)}, which the plan leaves lossy",
        )


@rule("LL306", "pause-on-lossy-priority", "warning", "state", "docs/reference/physics.md")
def pause_on_lossy_priority(view: PortView) -> Iterator[str]:
    """Pause frames arrived for a priority this port does not run PFC on: the link peer
    treats that priority as lossless and pauses it, which this end ignores (the two ends
    disagree on PFC)."""
    planned = set(view.port.pfc_priorities) if view.port.lossless else set()
    for priority in sorted(set(view.now.pfc_rx) - planned):
        received = view.delta(_pause_rx(priority))
        if received:
            peer = f" from {view.peer}" if view.peer else ""
            yield (
                f"received {received:,} pause frames{peer} for priority {priority}, which is "
                f"lossy here, {view.span}"
            )


@rule("LL307", "pause-rate", "warning", "state", "docs/reference/physics.md")
def pause_rate(view: PortView) -> Iterator[str]:
    """A lossless priority was paused (or paused its peer) so often between the snapshots
    that, at up to 65,535 quanta of 512 bit times per frame (IEEE 802.3 Annex 31B), it could
    have been paused 10 % of the time or more: sustained congestion that ECN is not
    relieving, or a pause storm the watchdog has not caught."""
    if view.seconds is None or view.seconds <= 0 or not view.port.lossless:
        return
    pause_seconds = MAX_PAUSE_QUANTA * BITS_PER_QUANTUM / (view.port.speed_mbps * 1e6)
    for verb, per_priority, per_port in (
        ("received", _pause_rx, _pause_rx_total),
        ("sent", _pause_tx, _pause_tx_total),
    ):
        for frames, what in _pauses(view, per_priority, per_port):
            rate = frames / view.seconds
            share = min(1.0, rate * pause_seconds)
            if share >= PAUSED_SHARE_WARNING:
                yield (
                    f"{verb} {rate:,.0f} pause frames/s {what} {view.span}: paused up to "
                    f"{share:.0%} of the time"
                )


def _pauses(
    view: PortView, per_priority: Callable[[int], Read], per_port: Read
) -> Iterator[tuple[int, str]]:
    """(pause frames, 'on priority N') of each lossless priority with frames; where the OS
    counts pause frames per port only (EOS, NX-OS), the port's, 'on the port (all
    priorities)'."""
    counted = False
    for priority in view.port.pfc_priorities:
        frames = view.delta(per_priority(priority))
        counted = counted or frames is not None
        if frames:
            yield frames, f"on priority {priority}"
    if not counted:
        frames = view.delta(per_port)
        if frames:
            yield frames, "on the port (all priorities)"


# -- queues and buffers --------------------------------------------------------------------


@rule("LL302", "lossless-queue-drops", "error", "state", "docs/reference/physics.md")
def lossless_queue_drops(view: PortView) -> Iterator[str]:
    """An egress queue that carries a lossless priority dropped packets. PFC exists so that
    it never does: the queue was not paused in time (the peer ignores pause, PFC is off on
    one end) or the watchdog dropped a stormed queue. The message says whether ECN marked
    anything on the queue in the same time: none means ECN never slowed the senders."""
    for priority, queue in sorted(view.queues.items()):
        if queue not in view.now.queues:
            continue
        dropped = view.delta(_dropped(queue))
        if not dropped:
            continue
        marked = view.delta(_marked(queue))
        ecn = (
            ", and ECN marked none: ECN is not marking before the queue overflows"
            if marked == 0
            else f" (ECN marked {marked:,})"
            if marked
            else ""
        )
        yield (
            f"egress queue {queue} (priority {priority}, lossless) dropped {dropped:,} "
            f"packets {view.span}{ecn}"
        )


@rule("LL303", "ecn-not-marking", "warning", "state", "docs/reference/physics.md")
def ecn_not_marking(view: PortView) -> Iterator[str]:
    """The link peer paused a lossless priority (its egress queue here had to wait) and the
    queue marked no packet with ECN in the same time: congestion is handled by PFC alone,
    DCQCN never slows the senders, and pauses spread upstream (ECN thresholds above the
    queue depth PFC holds it at, or ECN off on the queue)."""
    for priority, queue in sorted(view.queues.items()):
        if queue not in view.now.queues:
            continue
        paused = view.delta(_pause_rx(priority))
        what = f"priority {priority} was paused"
        if paused is None and len(view.queues) == 1:  # the OS counts pauses per port only
            paused, what = view.delta(_pause_rx_total), "the port was paused (all priorities)"
        marked = view.delta(_marked(queue))
        dropped = view.delta(_dropped(queue))
        if paused and marked == 0 and not dropped:  # with drops, LL302 says it
            yield (
                f"{what} {paused:,} times {view.span} and egress queue {queue} (priority "
                f"{priority}) marked no packet with ECN"
            )


@rule("LL308", "ingress-buffer-drops", "error", "state", "docs/reference/physics.md")
def ingress_buffer_drops(view: PortView) -> Iterator[str]:
    """Packets of a lossless priority were dropped at ingress for lack of buffer: the
    headroom filled before the peer stopped (headroom too small for the cable, or the peer
    ignores pause) or the lossless pool ran out."""
    if not view.port.lossless:
        return
    groups = {h.priority_group for h in view.port.headroom}
    for key in sorted(set(view.port.pfc_priorities) | groups):
        if key not in view.now.ingress_drops:
            continue
        dropped = view.delta(_ingress(key))
        if dropped:
            priority = key in view.port.pfc_priorities
            what = "priority" if priority else "priority group"
            yield (
                f"dropped {dropped:,} packets of lossless {what} {key} at ingress "
                f"{view.span}: the headroom or the lossless pool overflowed"
            )


# -- the watchdog --------------------------------------------------------------------------


@rule("LL304", "pfc-storm", "error", "state", "docs/reference/physics.md")
def pfc_storm(view: PortView) -> Iterator[str]:
    """The PFC watchdog found a pause storm on a lossless priority (a peer pausing it without
    end, typically a stuck NIC), or the priority is in one now: while it lasts the watchdog
    drops (or forwards without pause) that priority's traffic."""
    for priority in view.port.pfc_priorities if view.port.lossless else ():
        watched = view.now.watchdog.get(priority)
        if watched is None:
            continue
        storms = view.delta(_storms(priority))
        restored = view.delta(_restored(priority))
        if watched.stormed:
            yield f"priority {priority} is in a PFC storm now: the watchdog has taken it over"
        elif storms:
            back = f", {restored:,} restored" if restored is not None else ""
            yield (
                f"the PFC watchdog detected {plural(storms, 'pause storm')} on priority "
                f"{priority} {view.span}{back}"
            )


@rule("LL305", "watchdog-not-operational", "error", "state", "docs/reference/physics.md")
def watchdog_not_operational(view: PortView) -> Iterator[str]:
    """The plan has the PFC watchdog watch this port's lossless priorities and the switch
    reports it is not: a pause storm from a stuck peer would stop the priority for good and
    spread."""
    if not (view.port.lossless and view.port.watchdog and view.port.watchdog.enabled):
        return
    off = [
        p
        for p in view.port.pfc_priorities
        if p in view.now.watchdog and view.now.watchdog[p].enabled is False
    ]
    if off:
        yield f"the PFC watchdog is not watching {_priorities(off)} (the plan has it on)"


@rule("LL312", "watchdog-off", "error", "state-device", "docs/reference/physics.md")
def watchdog_off(view: DeviceView) -> Iterator[str]:
    """The switch's PFC watchdog is switched off as a whole while the plan has it watch
    lossless ports."""
    planned = any(
        p.lossless and p.watchdog and p.watchdog.enabled for p in view.device.ports.values()
    )
    if planned and view.now is not None and view.now.watchdog_enabled is False:
        yield "the PFC watchdog is off on this switch (the plan has it watch the lossless ports)"


# -- links ---------------------------------------------------------------------------------


@rule("LL311", "link-down", "warning", "state", "docs/reference/physics.md")
def link_down(view: PortView) -> Iterator[str]:
    """A planned port is down, or its link went down between the snapshots: every flap
    drops what was in flight and, on a fabric link, moves flows to other paths."""
    if view.now.oper_up is False:
        peer = f" (to {view.peer})" if view.peer else ""
        yield f"the link is down{peer}"
        return
    if view.before is not None:
        changes = view.delta(_changes)
        if changes:  # up (or not shown) now: it went down and came back
            yield (
                f"the link went down and came back {view.span} (its link state change "
                f"counter grew by {changes:,})"
            )


# -- the state itself ----------------------------------------------------------------------


@rule("LL309", "counters-reset", "warning", "state-device", "docs/verify.md")
def counters_reset(view: DeviceView) -> Iterator[str]:
    """Counters went backwards between the baseline and now (cleared, or the switch or
    its counter process restarted): each is judged from zero, so a delta covers less time
    than the baseline says."""
    if view.now is None or view.before is None:
        return
    ports, counters = [], []
    for name, port in view.now.ports.items():
        if name in view.before.ports:
            back = _went_back(port, view.before.ports[name])
            if back:
                ports.append(name)
                counters += [c for c in back if c not in counters]
    if ports:
        yield (
            f"counters went backwards since the baseline on {plural(len(ports), 'port')} "
            f"({first_few(ports, 4)}): {first_few(counters, 4)}; cleared or restarted, "
            "judged from zero"
        )


@rule("LL310", "state-unread", "warning", "state-device", "docs/verify.md")
def state_unread(view: DeviceView) -> Iterator[str | tuple[str, str]]:
    """What verify could not read of a switch: a switch it could not read at all is an error
    (nothing was checked); an output it lacks is a warning naming what was not checked."""
    if view.now is None:
        yield ("error", f"not verified: {view.failure}")
        return
    missing = [p for p in view.device.ports if p not in view.now.ports]
    if missing:
        yield f"no state for {plural(len(missing), 'planned port')}: {first_few(missing, 4)}"
    for what, why in view.now.unread:
        yield f"not checked: {what} ({why})"
    yield from _uncovered(view)


def _uncovered(view: DeviceView) -> Iterator[str]:
    """What a given baseline lacks of what is shown now: its counters have no delta."""
    if not view.baseline or view.now is None:
        return
    if view.before is None:
        yield (
            "the baseline does not cover this switch: its counters were not judged "
            "(collect the baseline from the same switches)"
        )
        return
    planned = [p for p in view.now.ports if p in view.device.ports]
    absent = [p for p in planned if p not in view.before.ports]
    if absent:
        yield (
            f"the baseline does not cover {plural(len(absent), 'port')} "
            f"({first_few(absent, 4)}): their counters were not judged"
        )
    lacking = [
        p
        for p in planned
        if p in view.before.ports and _lacks(view.now.ports[p], view.before.ports[p])
    ]
    if lacking:
        yield (
            f"the baseline lacks counters shown now on {plural(len(lacking), 'port')} "
            f"({first_few(lacking, 4)}): those counters were not judged"
        )


# -- helpers -------------------------------------------------------------------------------


def _priorities(priorities: Iterable[int] | None) -> str:
    """'priority 3', 'priorities 3, 4', or '' for none."""
    values = list(priorities or ())
    if not values:
        return ""
    word = "priority" if len(values) == 1 else "priorities"
    return f"{word} {', '.join(map(str, values))}"


def _pause_rx(priority: int) -> Read:
    return lambda state: state.pfc_rx.get(priority)


def _pause_tx(priority: int) -> Read:
    return lambda state: state.pfc_tx.get(priority)


def _pause_rx_total(state: PortState) -> int | None:
    return state.pause_rx_frames


def _pause_tx_total(state: PortState) -> int | None:
    return state.pause_tx_frames


def _dropped(queue: int) -> Read:
    return lambda state: _queue(state, queue).dropped_packets


def _marked(queue: int) -> Read:
    return lambda state: _queue(state, queue).ecn_marked_packets


def _ingress(key: int) -> Read:
    return lambda state: state.ingress_drops.get(key)


def _storms(priority: int) -> Read:
    return lambda state: _watch(state, priority).storms_detected


def _restored(priority: int) -> Read:
    return lambda state: _watch(state, priority).storms_restored


def _changes(state: PortState) -> int | None:
    return state.link_changes


def _queue(state: PortState, queue: int) -> QueueCounters:
    return state.queues.get(queue) or QueueCounters()


def _watch(state: PortState, priority: int) -> WatchdogCounters:
    return state.watchdog.get(priority) or WatchdogCounters()


# A port's counters as LL309 and LL310 compare them with the baseline's, in the order LL309
# names them: (name, field) of each single counter; (field, name with its key) of each table
# of counters (whole numbers, never None) by priority or group; then each queue's packets,
# drops and ECN marks, and the watchdog's storms by priority (_went_back). A name is
# formatted only when reported: of the millions of counters of a large fabric, only those
# that went backwards are named.
_SINGLE = (
    ("link state changes", "link_changes"),
    ("pause frames received", "pause_rx_frames"),
    ("pause frames sent", "pause_tx_frames"),
)
_KEYED = (
    ("pfc_rx", "priority {} pause frames received"),
    ("pfc_tx", "priority {} pause frames sent"),
    ("ingress_drops", "priority group {} ingress drops"),
)
_NO_QUEUE = QueueCounters()


def _back(x: int | None, y: int | None) -> bool:
    return x is not None and y is not None and x < y


def _went_back(now: PortState, before: PortState) -> list[str]:
    """The counters of the port lower now than in the baseline (a counter either does not
    show is not compared), named in the order of _SINGLE, _KEYED, _PER_QUEUE, _STORMS, each
    table by key. Written out field by field: it runs for every port of the fabric."""
    back = [what for what, field in _SINGLE if _back(getattr(now, field), getattr(before, field))]
    for field, what in _KEYED:
        mine, theirs = getattr(now, field), getattr(before, field)
        common = mine.keys() & theirs.keys()
        if common:
            back += [what.format(key) for key in sorted(common) if mine[key] < theirs[key]]
    for queue in sorted(now.queues.keys() & before.queues.keys()):
        a, b = now.queues[queue], before.queues[queue]
        if _back(a.tx_packets, b.tx_packets):
            back.append(f"queue {queue} packets")
        if _back(a.dropped_packets, b.dropped_packets):
            back.append(f"queue {queue} drops")
        if _back(a.ecn_marked_packets, b.ecn_marked_packets):
            back.append(f"queue {queue} ECN marks")
    for priority in sorted(now.watchdog.keys() & before.watchdog.keys()):
        if _back(now.watchdog[priority].storms_detected, before.watchdog[priority].storms_detected):
            back.append(f"priority {priority} watchdog storms")
    return back


def _lacks(now: PortState, before: PortState) -> bool:
    """A counter of the port shown now that the baseline does not show."""
    if any(getattr(now, f) is not None and getattr(before, f) is None for _, f in _SINGLE):
        return True
    for field, _ in _KEYED:
        if not getattr(now, field).keys() <= getattr(before, field).keys():
            return True
    for queue, a in now.queues.items():
        b = before.queues.get(queue) or _NO_QUEUE
        if (
            (a.tx_packets is not None and b.tx_packets is None)
            or (a.dropped_packets is not None and b.dropped_packets is None)
            or (a.ecn_marked_packets is not None and b.ecn_marked_packets is None)
        ):
            return True
    return any(
        w.storms_detected is not None and _watch(before, p).storms_detected is None
        for p, w in now.watchdog.items()
    )
