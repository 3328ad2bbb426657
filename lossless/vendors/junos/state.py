"""Juniper Junos (QFX): the operational QoS state of a switch from its show commands' JSON
(`| display json`), for `lossless verify`.

Junos JSON is the XML RPC reply with every leaf a list of {"data": text}:
{"interface-information": [{"physical-interface": [{"name": [{"data": "et-0/0/0"}], ...}]}]}.
Commands and where their elements come from:

* `show interfaces extensive | display json`: physical-interface name, oper-status,
  output-error-list/carrier-transitions ("number of times the interface has gone from down
  to up": link_changes) and ethernet-mac-pfc-statistics[] {mac-pfc-dot1p,
  input-mac-pfc-frames, output-mac-pfc-frames} (the text's "MAC Priority Flow Control
  Statistics"): Juniper, show interfaces extensive, juniper.net/documentation/us/en/
  software/junos/interfaces-ethernet-switches/topics/ref/command/
  show-interfaces-extensive.html, and a public Junos 22.4 XML recording of it (Apstra
  telemetry example "Interface Flap").
* `show interfaces queue | display json`: queue-counters/queue[] {queue-number,
  queue-counters-trans-packets, queue-counters-total-drop-packets} (genieparser's Junos
  `show interfaces queue` golden output, github.com/CiscoTestAutomation/genieparser; Juniper,
  show interfaces queue, .../cos/topics/ref/command/show-interfaces-queue.html). The ECN-CE
  count ("ECN-CE packets" in the text) is read from queue-counters-ecn-ce-packets, an element
  name to confirm on a switch (tests/data/verify/README.md).

What Junos does not show here stays unknown: the priorities PFC is operationally on (Junos
shows the congestion-notification profile a port uses, whose priorities are configuration),
and the PFC watchdog, which QFX5220 does not have (Juniper, AI-ML Data Center Feature Guide,
PFC Watchdog: QFX5230-64CD and QFX5240 only); neither is a fault of the switch.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from lossless.observed import (
    LINK,
    OPER,
    PAUSE,
    QUEUE,
    DeviceState,
    Output,
    PortState,
    QueueCounters,
    Reader,
    counter,
    json_object,
    output_folder,
    read_outputs,
)
from lossless.plan import DevicePlan

COMMANDS: dict[str, str] = {
    "interfaces": "show interfaces extensive | display json",
    "queues": "show interfaces queue | display json",
}

WHAT = {
    "interfaces": "link state, link flaps and PFC pause frames",
    "queues": "egress queue counters and ECN marked packets",
}

# The output each kind of state the rules need comes from (observed.unknown_kinds): Junos
# shows neither the operational PFC priorities (see `read`) nor ingress drops here, and
# QFX5220 has no watchdog
NEEDS: dict[str, str] = {
    OPER: "interfaces",
    LINK: "interfaces",
    PAUSE: "interfaces",
    QUEUE: "queues",
}

MAX_ITEMS = 100_000  # elements read from one list: bounded work on a hostile output
ECN_MARKED = "queue-counters-ecn-ce-packets"


def commands(device: DevicePlan) -> dict[str, str]:
    """The show commands for a device: the same for every Junos switch."""
    return dict(COMMANDS)


def read(outputs: Mapping[str, Output], device: DevicePlan) -> DeviceState:
    state = DeviceState(device=device.name, os="junos", source=output_folder(outputs))
    names = {name.strip().lower(): name for name in device.ports}
    readers: dict[str, Reader] = {
        "interfaces": _read_interfaces,
        "queues": _read_queues,
    }
    read_outputs(state, outputs, readers, names, COMMANDS, WHAT)
    state.unread.append(
        (
            "PFC operational priorities",
            "Junos shows a port's congestion-notification profile, not the priorities PFC "
            "is operationally on",
        )
    )
    return state


def _items(node: Any, key: str) -> list[dict[str, Any]]:
    """The elements named key under a node (Junos JSON: always a list of objects)."""
    found = node.get(key) if isinstance(node, dict) else None
    if not isinstance(found, list):
        return []
    return [item for item in found[:MAX_ITEMS] if isinstance(item, dict)]


def _leaf(node: Any, key: str) -> str | None:
    """The text of a leaf element ([{"data": text}]), None when absent or not text."""
    found = node.get(key) if isinstance(node, dict) else None
    if type(found) is list and found and type(found[0]) is dict:  # the usual shape, at once
        data = found[0].get("data")
    else:
        items = _items(node, key)
        data = items[0].get("data") if items else None
    return data.strip() if isinstance(data, str) else None


def _count(node: Any, key: str) -> int | None:
    return counter(_leaf(node, key))


def _interfaces(output: Output) -> list[dict[str, Any]]:
    data = json_object(output)
    if "interface-information" not in data:
        raise KeyError(f"{output.source}: no interface-information")
    return [
        p for i in _items(data, "interface-information") for p in _items(i, "physical-interface")
    ]


def _port(
    interface: dict[str, Any],
    names: dict[str, str],
    output: Output,
    state: DeviceState,
    *fields: str,
) -> PortState | None:
    """The planned port an interface element describes (None: not planned); the fields
    (PortState.sources keys) the caller reads from this output point at it."""
    raw = _leaf(interface, "name")
    name = names.get(raw.lower()) if raw is not None else None
    if raw is None or name is None:
        return None
    where = output.at(json.dumps(raw))
    if name not in state.ports:
        state.ports[name] = PortState(name=name, source=where)
    state.ports[name].sources.update(dict.fromkeys(fields, where))
    return state.ports[name]


def _read_interfaces(output: Output, names: dict[str, str], state: DeviceState) -> None:
    for interface in _interfaces(output):
        port = _port(interface, names, output, state, "oper_up", "link_changes", "pfc_rx")
        if port is None:
            continue
        status = _leaf(interface, "oper-status")
        port.oper_up = status == "up" if status is not None else None
        errors = _items(interface, "output-error-list")
        port.link_changes = _count(errors[0], "carrier-transitions") if errors else None
        for pfc in _items(interface, "ethernet-mac-pfc-statistics"):
            priority = _count(pfc, "mac-pfc-dot1p")
            if priority is None or priority > 7:
                continue
            received, sent = (
                _count(pfc, k) for k in ("input-mac-pfc-frames", "output-mac-pfc-frames")
            )
            if received is not None:
                port.pfc_rx[priority] = received
            if sent is not None:
                port.pfc_tx[priority] = sent


def _read_queues(output: Output, names: dict[str, str], state: DeviceState) -> None:
    for interface in _interfaces(output):
        port = _port(interface, names, output, state, "queues", "ecn")
        if port is None:
            continue
        for counters in _items(interface, "queue-counters"):
            for queue in _items(counters, "queue"):
                number = _count(queue, "queue-number")
                if number is None or number > 15:
                    continue
                port.queues[number] = QueueCounters(
                    tx_packets=_count(queue, "queue-counters-trans-packets"),
                    dropped_packets=_count(queue, "queue-counters-total-drop-packets"),
                    ecn_marked_packets=_count(queue, ECN_MARKED),
                )
