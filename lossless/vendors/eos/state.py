"""Arista EOS: the operational QoS state of a switch from its show commands' JSON (`| json`,
eAPI), for `lossless verify`.

Commands and where their JSON shapes come from:

* `show interfaces | json`: interfaces.<name>.lineProtocolStatus, interfaceCounters.
  linkStatusChanges (ANTA's VerifyInterfacesCounterDetails unit data,
  github.com/aristanetworks/anta tests/units/anta_tests/test_interfaces.py).
  linkStatusChanges counts every status change (down and up): it is kept as counted and
  judged as growth since a baseline (LL311).
* `show interfaces counters queue detail | json`: egressQueueCounters.interfaces.<name>.
  ucastQueues.trafficClasses.TC<n>.dropPrecedences.DP<m>.droppedPackets (ANTA
  VerifyInterfacesEgressQueueDrops, anta/tests/interfaces.py and its unit data). The queues
  are keyed by traffic class: TC<n> is the number reported as queue n. Classes (and drop
  precedences) counted together are one range key, TC0-2 (DP0-2) (ANTA's unit data and
  anta/tools.py get_value_by_range_key): the group's drops are each of its classes' (a drop
  there may be any of them's; `unread` says which classes are counted together). The
  transmitted count is not in the published shape, so tx_packets stays None.
* `show interfaces counters queue drops | json` (VOQ platforms only, VOQ_PLATFORM: Arista
  7280R, 7500R, 7700R, 7800R, whose Jericho chips drop in the ingress virtual output queues,
  ANTA VerifyInterfacesVoqAndEgressQueueDrops): interfaces.<name>.trafficClasses.<TC>.
  {ingressVoqCounters, egressQueueCounters}.countersSum.droppedPackets; a queue's drops are
  both together there.
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
    LINK,
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
from lossless.text.grammar import first_few

# Each `| json revision N` where the reader's keys are those of revision N (the revision
# ANTA's test asks for; eAPI answers revision 1 of a model unless asked, ANTA anta/models.py
# AntaCommand, and `| json revision N` asks the CLI for revision N, ANTA's developer guide):
# the keys stay the same when EOS moves a model to a new revision. The status and watchdog
# outputs' revision is not known (no public capture): not pinned.
COMMANDS: dict[str, str] = {
    "interfaces": "show interfaces | json revision 1",
    "pfc_status": "show priority-flow-control status | json",
    "queue_counters": "show interfaces counters queue detail | json revision 1",
    "ecn_counters": "show qos interfaces ecn counters queue | json revision 1",
    "pfc_watchdog": "show priority-flow-control counters watchdog | json",
    "pfc_counters": "show priority-flow-control counters | json revision 3",
}
# Collected on VOQ platforms only (voq_platform)
VOQ_COMMANDS: dict[str, str] = {
    "queue_drops": "show interfaces counters queue drops | json revision 1",
}

# What each stem gives, for `unread` when it is missing
WHAT = {
    "interfaces": "link state and link flaps",
    "pfc_status": "PFC operational status and watchdog",
    "queue_counters": "egress queue drops",
    "ecn_counters": "ECN marked packets",
    "pfc_watchdog": "PFC watchdog storm counters",
    "pfc_counters": "PFC pause frames",
    "queue_drops": "ingress VOQ and egress queue drops",
}

# The output each kind of state the rules need comes from (observed.unknown_kinds); EOS
# shows no ingress drops here
NEEDS: dict[str, str] = {
    OPER: "interfaces",
    LINK: "interfaces",
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
DROPPED = "droppedPackets"
_TRAFFIC_CLASS = re.compile(r"^TC(\d)(?:-(\d))?$")
# Arista's VOQ platforms (Jericho chips): 7280R, 7500R, 7700R, 7800R and their R2/R3
# generations (ANTA VerifyInterfacesVoqAndEgressQueueDrops), DCS- prefixed or not
_VOQ_PLATFORM = re.compile(r"(?i)^(?:DCS-)?7(?:280|500|700|800)[A-Z0-9]*R")


def voq_platform(device: DevicePlan) -> bool:
    """The device is an Arista VOQ platform: its drops are in the ingress VOQs too."""
    return bool(device.platform and _VOQ_PLATFORM.match(device.platform.strip()))


def commands(device: DevicePlan) -> dict[str, str]:
    """The show commands for a device: the same for every EOS switch, and the VOQ drops on
    VOQ platforms."""
    return {**COMMANDS, **(VOQ_COMMANDS if voq_platform(device) else {})}


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
    if voq_platform(device):
        readers["queue_drops"] = _read_voq_drops  # after queue_counters: both drops together
    read_outputs(state, outputs, readers, names, commands(device), WHAT)
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
        port = _port(state, name, output, raw, "oper_up", "link_changes")
        status = details.get("lineProtocolStatus")
        port.oper_up = status == "up" if isinstance(status, str) else None
        counters = object_or_empty(details.get("interfaceCounters"))
        # every change, down and up, as EOS counts them (a port up since boot shows 2 or 4 on
        # vEOS, not an odd number): judged as growth since a baseline, never halved
        port.link_changes = counter(counters.get("linkStatusChanges"))


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
    grouped: dict[str, list[str]] = {}
    for name, raw, details in _planned(interfaces, names):
        port = _port(state, name, output, raw, "queues")
        classes = object_or_empty(object_or_empty(details.get("ucastQueues")).get("trafficClasses"))
        for label, counters in classes.items():
            dropped = _dropped(object_or_empty(counters).get("dropPrecedences"))
            for queue in _classes(str(label), name, grouped):
                port.queues.setdefault(queue, QueueCounters()).dropped_packets = dropped
    _say_grouped(state, grouped)


def _read_voq_drops(output: Output, names: dict[str, str], state: DeviceState) -> None:
    """Drops in the ingress VOQs and the egress queue of each traffic class, together."""
    grouped: dict[str, list[str]] = {}
    for name, raw, details in _planned(json_object(output).get("interfaces"), names):
        port = _port(state, name, output, raw, "queues")
        for label, counters in object_or_empty(details.get("trafficClasses")).items():
            parts = [
                counter(object_or_empty(object_or_empty(part).get("countersSum")).get(DROPPED))
                for part in (
                    object_or_empty(counters).get("ingressVoqCounters"),
                    object_or_empty(counters).get("egressQueueCounters"),
                )
            ]
            dropped = None if None in parts else sum(p for p in parts if p is not None)
            for queue in _classes(str(label), name, grouped):
                port.queues.setdefault(queue, QueueCounters()).dropped_packets = dropped
    _say_grouped(state, grouped)


def _classes(label: str, port: str, grouped: dict[str, list[str]]) -> range:
    """The traffic classes a key counts: TC3 -> 3, TC0-2 -> 0, 1, 2 (the port noted in
    grouped under the key); none for another key."""
    match = _TRAFFIC_CLASS.match(label)
    if match is None:
        return range(0)
    first = int(match.group(1))
    last = int(match.group(2)) if match.group(2) is not None else first
    if last > first:
        grouped.setdefault(label, []).append(port)
    return range(first, last + 1)


def _say_grouped(state: DeviceState, grouped: dict[str, list[str]]) -> None:
    """One `unread` entry per range key: which class of the group dropped is not shown."""
    for label, ports in sorted(grouped.items()):
        entry = (
            f"which of traffic classes {label.removeprefix('TC')} dropped",
            f"EOS counts them together ({label}) on {first_few(ports, 4)}: the group's drops "
            "are judged as each one's",
        )
        if entry not in state.unread:
            state.unread.append(entry)


def _dropped(precedences: Any) -> int | None:
    """Drops of a queue: the sum over its drop precedences (None when any is unreadable)."""
    counts = [
        counter(object_or_empty(p).get(DROPPED)) for p in object_or_empty(precedences).values()
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
