"""Arista EOS: the operational QoS state of a switch from its show commands' JSON (`| json`,
eAPI), for `lossless verify`.

Commands and where their JSON shapes come from:

* `show interfaces | json`: interfaces.<name>.lineProtocolStatus, interfaceCounters.
  linkStatusChanges (ANTA's VerifyInterfacesCounterDetails unit data,
  github.com/aristanetworks/anta tests/units/anta_tests/test_interfaces.py).
  linkStatusChanges counts every status change (down and up), not only downs: a link
  flap is half of them (as SONiC's flap_count, sonic/state.py).
* `show interfaces counters queue detail | json`: egressQueueCounters.interfaces.<name>.
  ucastQueues.trafficClasses.TC<n>.dropPrecedences.DP<m>.droppedPackets (ANTA
  VerifyInterfacesEgressQueueDrops, anta/tests/interfaces.py and its unit data). The queues
  are keyed by traffic class: TC<n> is the number reported as queue n. The transmitted
  count is not in the published shape, so tx_packets stays None.
* `show qos interfaces ecn counters queue | json`: intfQueueCounters.<name>.queueCounters.
  <queue> = marked packets as text, "-" where ECN is not configured on the queue (ANTA
  VerifyInterfacesECNCounters).
* `show priority-flow-control counters watchdog | json`: interfaces.<name>.txQueues.<queue>.
  stuckCount / recoveryCount; an interface is absent until its first watchdog event (Meta's
  DNE-TaaC, github.com/facebook/DNE-TaaC
  taac/health_checks/device_health_checks/pfc_wd_health_check.py).
* `show priority-flow-control status | json`: per-port PFC status (the CLI's "E/D" enabled and
  "A/I" active flags, the no-drop priorities and the watchdog). Its JSON keys are not in any
  public recording we found: the reader takes interfaceStatuses.<name>.{enabled, active,
  priorities, watchdogEnabled}, an assumption to confirm on a switch (tests/data/verify/
  README.md).

* `show priority-flow-control counters | json`: interfaceCounters.<name>.{rxFrames, txFrames}
  (ANTA VerifyInterfacesPFCCounters, anta/tests/interfaces.py and its unit data). These are
  the port's pause frames of every priority together: they fill pause_rx_frames /
  pause_tx_frames; pfc_rx/pfc_tx (per priority) stay empty and `unread` says that which
  priorities were paused is not shown.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from lossless.observed import (
    OPER,
    PAUSE,
    PFC,
    QUEUE,
    WATCHDOG,
    DeviceState,
    Output,
    PortState,
    QueueCounters,
    Reader,
    WatchdogCounters,
    counter,
    json_object,
    object_or_empty,
    output_folder,
    read_outputs,
)
from lossless.plan import DevicePlan

COMMANDS: dict[str, str] = {
    "interfaces": "show interfaces | json",
    "pfc_status": "show priority-flow-control status | json",
    "queue_counters": "show interfaces counters queue detail | json",
    "ecn_counters": "show qos interfaces ecn counters queue | json",
    "pfc_watchdog": "show priority-flow-control counters watchdog | json",
    "pfc_counters": "show priority-flow-control counters | json",
}

# What each stem gives, for `unread` when it is missing
WHAT = {
    "interfaces": "link state and link flaps",
    "pfc_status": "PFC operational status and watchdog",
    "queue_counters": "egress queue drops",
    "ecn_counters": "ECN marked packets",
    "pfc_watchdog": "PFC watchdog storm counters",
    "pfc_counters": "PFC pause frames",
}

# The output each kind of state the rules need comes from (observed.unknown_kinds); EOS
# shows no ingress drops here
NEEDS: dict[str, str] = {
    OPER: "interfaces",
    PFC: "pfc_status",
    PAUSE: "pfc_counters",
    QUEUE: "queue_counters",
    WATCHDOG: "pfc_status",
}

# Always unread: EOS counts pause frames per port, so the priority they paused is unknown
PER_PRIORITY = (
    "which priorities were paused",
    "EOS counts PFC pause frames per port only: rxFrames/txFrames of "
    "`show priority-flow-control counters`",
)

_ETHERNET = re.compile(r"(?i)^(?:et|eth|ethernet)\s*(\d[\d/.]*)$")
_TRAFFIC_CLASS = re.compile(r"^TC(\d)$")


def commands(device: DevicePlan) -> dict[str, str]:
    """The show commands for a device: the same for every EOS switch."""
    return dict(COMMANDS)


def read(outputs: Mapping[str, Output], device: DevicePlan) -> DeviceState:
    state = DeviceState(device=device.name, os="eos", source=output_folder(outputs))
    names = _port_names(device)
    readers: dict[str, Reader] = {
        "interfaces": _read_interfaces,
        "pfc_status": _read_pfc_status,
        "queue_counters": _read_queue_drops,
        "ecn_counters": _read_ecn,
        "pfc_watchdog": _read_watchdog,
        "pfc_counters": _read_pause_frames,
    }
    read_outputs(state, outputs, readers, names, COMMANDS, WHAT)
    state.unread.append(PER_PRIORITY)
    return state


def _no_event_yet(state: DeviceState, listed: set[str]) -> None:
    """EOS lists a port in the watchdog counters only after its first event (DNE-TaaC): a
    priority the status shows watched, on a port absent from the counters, has had no storm.
    (The status is read before the counters.)"""
    for port in state.ports.values():
        if port.name in listed:
            continue
        for watchdog in port.watchdog.values():
            if watchdog.enabled and watchdog.storms_detected is None:
                watchdog.storms_detected = 0
                watchdog.storms_restored = 0


def _port_names(device: DevicePlan) -> dict[str, str]:
    """Canonical form of each planned port -> its plan name (Et1/1 and Ethernet1/1 alike)."""
    return {_canonical(name): name for name in device.ports}


def _canonical(name: str) -> str:
    match = _ETHERNET.match(name.strip())
    return f"ethernet{match.group(1)}" if match else name.strip().lower()


def _port(state: DeviceState, name: str, output: Output, raw: str, *fields: str) -> PortState:
    """The port's state, created on first sight with the output it was first seen in; the
    fields (PortState.sources keys) the caller reads from this output point at it."""
    where = output.at(json.dumps(raw))
    if name not in state.ports:
        state.ports[name] = PortState(name=name, source=where)
    state.ports[name].sources.update(dict.fromkeys(fields, where))
    return state.ports[name]


def _planned(section: Any, names: dict[str, str]) -> list[tuple[str, str, dict[str, Any]]]:
    """(plan name, name in the output, its object) for each planned port in a name-keyed
    section; ports not in the plan are skipped."""
    found = []
    for raw, value in object_or_empty(section).items():
        name = names.get(_canonical(str(raw)))
        if name is not None:
            found.append((name, str(raw), object_or_empty(value)))
    return found


def _read_interfaces(output: Output, names: dict[str, str], state: DeviceState) -> None:
    for name, raw, details in _planned(json_object(output).get("interfaces"), names):
        port = _port(state, name, output, raw, "oper_up", "link_flaps")
        status = details.get("lineProtocolStatus")
        port.oper_up = status == "up" if isinstance(status, str) else None
        counters = object_or_empty(details.get("interfaceCounters"))
        # every change, down and up, alternating: the downs are half of them, rounded down
        changes = counter(counters.get("linkStatusChanges"))
        port.link_flaps = None if changes is None else changes // 2


def _read_pfc_status(output: Output, names: dict[str, str], state: DeviceState) -> None:
    for name, raw, status in _planned(json_object(output).get("interfaceStatuses"), names):
        port = _port(state, name, output, raw, "pfc_enabled", "watchdog_state")
        priorities = _priorities(status.get("priorities"))
        enabled, active = status.get("enabled"), status.get("active")
        if enabled is False or active is False:
            port.pfc_enabled = ()
        elif enabled is True and active is True and priorities is not None:
            port.pfc_enabled = priorities
        watching = status.get("watchdogEnabled")
        if isinstance(watching, bool):
            for priority in priorities or ():
                port.watchdog.setdefault(priority, WatchdogCounters()).enabled = watching


def _priorities(value: Any) -> tuple[int, ...] | None:
    if not isinstance(value, list):
        return None
    found = {p for p in value if isinstance(p, int) and not isinstance(p, bool) and 0 <= p <= 7}
    return tuple(sorted(found)) if len(found) == len(value) else None


def _read_queue_drops(output: Output, names: dict[str, str], state: DeviceState) -> None:
    interfaces = object_or_empty(json_object(output).get("egressQueueCounters")).get("interfaces")
    for name, raw, details in _planned(interfaces, names):
        port = _port(state, name, output, raw, "queues")
        classes = object_or_empty(object_or_empty(details.get("ucastQueues")).get("trafficClasses"))
        for label, counters in classes.items():
            match = _TRAFFIC_CLASS.match(str(label))
            if match is None:
                continue
            queue = port.queues.setdefault(int(match.group(1)), QueueCounters())
            queue.dropped_packets = _dropped(object_or_empty(counters).get("dropPrecedences"))


def _dropped(precedences: Any) -> int | None:
    """Drops of a queue: the sum over its drop precedences (None when any is unreadable)."""
    counts = [
        counter(object_or_empty(p).get("droppedPackets"))
        for p in object_or_empty(precedences).values()
    ]
    if not counts or any(c is None for c in counts):
        return None
    return sum(c for c in counts if c is not None)


def _read_ecn(output: Output, names: dict[str, str], state: DeviceState) -> None:
    for name, raw, details in _planned(json_object(output).get("intfQueueCounters"), names):
        port = _port(state, name, output, raw, "ecn")
        for label, marked in object_or_empty(details.get("queueCounters")).items():
            if str(label).isdigit() and len(str(label)) <= 2:
                queue = port.queues.setdefault(int(label), QueueCounters())
                queue.ecn_marked_packets = counter(marked)  # "-": ECN not on this queue


def _read_watchdog(output: Output, names: dict[str, str], state: DeviceState) -> None:
    listed = _planned(json_object(output).get("interfaces"), names)
    _no_event_yet(state, {name for name, _, _ in listed})
    for name, raw, details in listed:
        port = _port(state, name, output, raw, "watchdog")
        for label, counters in object_or_empty(details.get("txQueues")).items():
            if not (str(label).isdigit() and len(str(label)) <= 2):
                continue
            watchdog = port.watchdog.setdefault(int(label), WatchdogCounters())
            watchdog.storms_detected = counter(object_or_empty(counters).get("stuckCount"))
            watchdog.storms_restored = counter(object_or_empty(counters).get("recoveryCount"))


def _read_pause_frames(output: Output, names: dict[str, str], state: DeviceState) -> None:
    for name, raw, counters in _planned(json_object(output).get("interfaceCounters"), names):
        port = _port(state, name, output, raw, "pause_rx_frames")
        port.pause_rx_frames = counter(counters.get("rxFrames"))
        port.pause_tx_frames = counter(counters.get("txFrames"))
