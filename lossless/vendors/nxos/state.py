"""Cisco NX-OS (Nexus 9000): the operational QoS state of a switch from its show commands'
JSON (`| json`, NX-API cli_show bodies), for `lossless verify`.

NX-API JSON nests rows as TABLE_<x>: {ROW_<x>: row or [rows]} (one row is an object, several
a list). Commands and where their shapes come from:

* `show interface | json`: TABLE_interface.ROW_interface[].interface / state (napalm's
  nxos driver, napalm/nxos/nxos.py get_interfaces). NX-OS shows when the link last flapped
  (eth_link_flapped, a duration) but no count of flaps: link_changes stays None.
* `show interface priority-flow-control | json`: TABLE_module.ROW_module.TABLE_pfc_interface.
  ROW_pfc_interface[].if_name_str / admin / oper / rx-stats / tx-stats (public NX-API
  collectors, e.g. a Nexus Prometheus exporter parsing this body). rx-stats/tx-stats are the
  CLI's RxPPP/TxPPP columns: the port's pause frames of every priority together. They fill
  pause_rx_frames/pause_tx_frames; per priority (pfc_rx/pfc_tx) they come from `show queuing
  interface` where it shows them, else `unread` says which priorities were paused is not
  shown.
* `show queuing pfc-queue detail | json`: TABLE_module.ROW_module.TABLE_queuing_interface.
  ROW_queuing_interface[] and, per qos group, TABLE_qosgrp_stats.ROW_qosgrp_stats[] with
  TABLE_qosgrp_stats_entry.ROW_qosgrp_stats_entry[] {q-stat-type: "Shutdown" | "Restored" |
  ..., and the value in q-shutdown, q-restored, ...}. Two shapes are read, as a group's
  fields come:
  - Cisco's published schema (Nexus 9000 NX-OS Show Commands 9.3(x), "show queuing
    pfc-queue"): the row's if_name_str and wd-status, and the group's eq-qosgrp,
    eq-qosgrp-state, pfc-configured and pfc-cos as separate fields;
  - one combined string, as Cisco's Nexus Traffic Monitor reads it (github.com/paregupt/
    nexus_traffic_monitor telegraf/nexus_traffic_monitor_high_frequency.py
    parse_pfcqueuedetail): if_name_str "Ethernet1/1 Interface PFC watchdog: [Enabled]",
    eq-qosgrp "3 [Active] PFC [YES] PFC-COS [3]" (the CLI text's group title).
  The PFC-enabled priorities of a port are the PFC-COS of its qos groups with PFC YES, when
  the port's PFC is operationally on. A group of neither shape leaves the port's PFC
  priorities unknown and says so naming the group (never "PFC off").
* `show queuing interface | json`: TABLE_module.ROW_module.TABLE_queuing_interface.
  ROW_queuing_interface[] with dir "Egress", TABLE_qosgrp_egress_stats.
  ROW_qosgrp_egress_stats[].eq-qosgrp and TABLE_qosgrp_egress_stats_entry.
  ROW_qosgrp_egress_stats_entry[] {eq-stat-type "Tx" | "Dropped" | ..., eq-stat-units "Pkts" |
  "Byts", eq-uc-stat-value, eq-oobfc-uc-stat-value, eq-mc-stat-value} (the Nexus exporter
  above and Cisco's schema of `show queuing`; a "WRED/AFD & Tail Drop" row, the CLI's
  wording on some releases (unverified), is also read as drops, "WD & Tail Drop" (the
  watchdog's) is not). Egress queue n is qos group n (c-out-8q-q<n>). The schema also gives
  a row's PFC pause counts per CoS: TABLE_pfc_stats.ROW_pfc_stats[] {cos, tx-pause-count,
  rx-pause-count} (the CLI's "PFC_COS QOS_Group TxPause TxCount RxPause RxCount" table):
  where a port shows them they fill pfc_rx/pfc_tx. Two parts are assumptions to confirm on a
  switch (tests/data/verify/README.md): the row's interface name in if_name_str, and the ECN
  marked row as an eq-stat-type containing "ECN".
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
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
from lossless.text.grammar import first_few

COMMANDS: dict[str, str] = {
    "interface": "show interface | json",
    "pfc": "show interface priority-flow-control | json",
    "pfc_queue": "show queuing pfc-queue detail | json",
    "queuing": "show queuing interface | json",
}

WHAT = {
    "interface": "link state",
    "pfc": "PFC operational mode and pause frames",
    "pfc_queue": "PFC priorities and PFC watchdog",
    "queuing": "egress queue counters and ECN marked packets",
}

# The output each kind of state the rules need comes from (observed.unknown_kinds); NX-OS
# shows no ingress drops here
NEEDS: dict[str, str] = {
    OPER: "interface",
    PFC: "pfc_queue",
    PAUSE: "pfc",
    QUEUE: "queuing",
    WATCHDOG: "pfc_queue",
}

# Unread where no port showed per-CoS pause counts (TABLE_pfc_stats of `show queuing
# interface`): the per-port counts do not say which priority was paused
PER_PRIORITY = (
    "which priorities were paused",
    "no per-CoS pause counts (TABLE_pfc_stats) in `show queuing interface`; the per-port "
    "RxPPP/TxPPP (rx-stats/tx-stats of `show interface priority-flow-control`) do not say",
)

MAX_ROWS = 100_000  # rows read from one table: bounded work on a hostile output
_ETHERNET = re.compile(r"(?i)^(?:eth|ethernet)\s*(\d[\d/.]*)")
_QOS_GROUP = re.compile(r"^\s*(\d)\b")
# A qos group's title as one string: "3 [Active] PFC [YES] PFC-COS [3]" (CoS a list: "3,4")
_GROUP_TITLE = re.compile(
    r"^\s*\d\s*\[\s*(\w+)\s*\]\s*PFC\s*\[\s*(YES|NO)\s*\](?:\s*PFC-COS\s*\[([\d,\s]*)\])?",
    re.IGNORECASE,
)
_TITLE_SHAPE = '"N [state] PFC [YES|NO] PFC-COS [c]"'
_GROUP_KEY = '"eq-qosgrp"'
_COS_LIST = re.compile(r"^\s*\d(?:\s*,\s*\d)*\s*$")
_UNIT_VALUES = ("eq-uc-stat-value", "eq-oobfc-uc-stat-value", "eq-mc-stat-value")


def commands(device: DevicePlan) -> dict[str, str]:
    """The show commands for a device: the same for every NX-OS switch."""
    return dict(COMMANDS)


def read(outputs: Mapping[str, Output], device: DevicePlan) -> DeviceState:
    state = DeviceState(device=device.name, os="nxos", source=output_folder(outputs))
    names = {_canonical(name): name for name in device.ports}
    readers: dict[str, Reader] = {
        "interface": _read_interface,
        "pfc_queue": _read_pfc_queue,  # before "pfc": the priorities its oper state enables
        "pfc": _read_pfc,
        "queuing": _read_queuing,
    }
    read_outputs(state, outputs, readers, names, COMMANDS, WHAT)
    if not any(port.pfc_rx for port in state.ports.values()):
        state.unread.append(PER_PRIORITY)
    return state


def _canonical(name: str) -> str:
    """Eth1/1, ethernet1/1 and Ethernet1/1 alike (text after the name, as in if_name_str's
    "Ethernet1/1 Interface PFC watchdog: ...", is ignored)."""
    match = _ETHERNET.match(name.strip())
    return f"ethernet{match.group(1)}" if match else name.strip().lower()


def _rows(table: Any, row: str) -> list[dict[str, Any]]:
    """The rows of an NX-API table: ROW_<x> is one object or a list of them."""
    found = object_or_empty(table).get(row)
    rows = found if isinstance(found, list) else [found]
    return [r for r in rows[:MAX_ROWS] if isinstance(r, dict)]


def _modules(data: dict[str, Any]) -> list[dict[str, Any]]:
    return _rows(data.get("TABLE_module"), "ROW_module")


def _port(state: DeviceState, name: str, output: Output, raw: str, *fields: str) -> PortState:
    """The port's state, created on first sight with the output it was first seen in; the
    fields (PortState.sources keys) the caller reads from this output point at it."""
    where = output.at(json.dumps(raw))
    if name not in state.ports:
        state.ports[name] = PortState(name=name, source=where)
    state.ports[name].sources.update(dict.fromkeys(fields, where))
    return state.ports[name]


def _planned(row: dict[str, Any], key: str, names: dict[str, str]) -> tuple[str, str] | None:
    """(plan name, name as in the output) of a row's port, None for a port not planned."""
    raw = row.get(key)
    if not isinstance(raw, str):
        return None
    name = names.get(_canonical(raw))
    return (name, raw) if name is not None else None


def _read_interface(output: Output, names: dict[str, str], state: DeviceState) -> None:
    for row in _rows(json_object(output).get("TABLE_interface"), "ROW_interface"):
        found = _planned(row, "interface", names)
        if found is None:
            continue
        port = _port(state, found[0], output, found[1], "oper_up")
        status = row.get("state")
        port.oper_up = status == "up" if isinstance(status, str) else None


def _read_pfc(output: Output, names: dict[str, str], state: DeviceState) -> None:
    for module in _modules(json_object(output)):
        for row in _rows(module.get("TABLE_pfc_interface"), "ROW_pfc_interface"):
            found = _planned(row, "if_name_str", names)
            if found is None:
                continue
            port = _port(state, found[0], output, found[1], "pause_rx_frames")
            port.pause_rx_frames = counter(row.get("rx-stats"))
            port.pause_tx_frames = counter(row.get("tx-stats"))
            oper = row.get("oper")
            if not isinstance(oper, str):
                port.pfc_enabled = None
            elif oper.strip().lower() == "off":
                port.pfc_enabled = ()
                port.sources["pfc_enabled"] = port.sources["pause_rx_frames"]
            elif oper.strip().lower() != "on":
                port.pfc_enabled = None
            # oper On: the priorities pfc-queue detail showed stay (None if it did not)


def _read_pfc_queue(output: Output, names: dict[str, str], state: DeviceState) -> None:
    unreadable: list[str] = []
    for module in _modules(json_object(output)):
        for row in _rows(module.get("TABLE_queuing_interface"), "ROW_queuing_interface"):
            found = _planned(row, "if_name_str", names)
            if found is None:
                continue
            port = _port(state, found[0], output, found[1], "pfc_enabled", "watchdog")
            enabled = _watchdog_switch(row)
            groups = _rows(row.get("TABLE_qosgrp_stats"), "ROW_qosgrp_stats")
            shown = [_group_pfc(group) for group in groups]
            readable = [pfc for pfc in shown if pfc is not None]
            if not groups or len(readable) < len(groups):
                port.pfc_enabled = None  # not shown, or of neither shape: unknown, never off
                unreadable += [found[0]] if groups else []
                continue
            for group, pfc in zip(groups, readable, strict=True):
                for priority in pfc.cos:
                    _record_watchdog(group, priority, enabled, pfc.stormed, port)
            port.pfc_enabled = tuple(sorted({p for pfc in readable for p in pfc.cos}))
    if unreadable:
        state.unread.append(
            (
                f"PFC priorities of {first_few(unreadable, 6)}",
                f"a qos group of neither shape: eq-qosgrp {_TITLE_SHAPE} or eq-qosgrp-state, "
                f"pfc-configured and pfc-cos ({output.at(_GROUP_KEY)})",
            )
        )


def _watchdog_switch(row: dict[str, Any]) -> bool | None:
    """The port's watchdog: wd-status (the schema's) or the if_name_str header's
    "Ethernet1/1 Interface PFC watchdog: [Enabled]"."""
    status = row.get("wd-status", row.get("if_name_str"))
    text = status.lower() if isinstance(status, str) else ""
    if "enabled" in text:
        return True
    return False if "disabled" in text else None


@dataclass(frozen=True)
class _GroupPfc:
    """What a qos group shows of PFC: the CoS it is lossless for (none with PFC NO) and
    whether the watchdog has shut it down (a storm now)."""

    cos: tuple[int, ...]
    stormed: bool


def _group_pfc(group: dict[str, Any]) -> _GroupPfc | None:
    """A qos group's PFC in either shape (the module's docstring), None when neither."""
    title = group.get("eq-qosgrp")
    if "pfc-configured" in group:  # the schema's separate fields
        state, configured, cos = (
            _bare(group.get(key)) for key in ("eq-qosgrp-state", "pfc-configured", "pfc-cos")
        )
    elif isinstance(title, str) and (match := _GROUP_TITLE.match(title)) is not None:
        state, configured, cos = match.group(1), match.group(2), match.group(3)
    else:
        return None
    if configured is None or configured.upper() not in ("YES", "NO") or state is None:
        return None
    if configured.upper() == "NO":
        return _GroupPfc((), state.lower() == "shutdown")
    if cos is None or not _COS_LIST.match(cos):
        return None
    return _GroupPfc(tuple(sorted({int(c) for c in cos.split(",")})), state.lower() == "shutdown")


def _bare(value: Any) -> str | None:
    """A schema field as text without the CLI's brackets ("[YES]" or "YES"; 3 as "3")."""
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return value.strip().strip("[]").strip() if isinstance(value, str) else None


def _record_watchdog(
    group: dict[str, Any], priority: int, enabled: bool | None, stormed: bool, port: PortState
) -> None:
    """The watchdog of a PFC qos group, on the priority it is lossless for."""
    stats = _stats(_rows(group.get("TABLE_qosgrp_stats_entry"), "ROW_qosgrp_stats_entry"))
    port.watchdog[priority] = WatchdogCounters(
        enabled=enabled,
        storms_detected=stats.get("shutdown"),
        storms_restored=stats.get("restored"),
        stormed=stormed,
    )


def _stats(entries: list[dict[str, Any]]) -> dict[str, int | None]:
    """{stat name (lower case): value} of watchdog stat rows: q-stat-type names the stat and
    the row's other q- field holds its value."""
    stats: dict[str, int | None] = {}
    for entry in entries:
        label = entry.get("q-stat-type")
        values = [v for k, v in entry.items() if k != "q-stat-type" and k.startswith("q-")]
        if isinstance(label, str) and len(values) == 1:
            stats[label.strip().lower()] = counter(values[0])
    return stats


def _read_queuing(output: Output, names: dict[str, str], state: DeviceState) -> None:
    for module in _modules(json_object(output)):
        for row in _rows(module.get("TABLE_queuing_interface"), "ROW_queuing_interface"):
            found = _planned(row, "if_name_str", names)
            if found is None:
                continue
            if "TABLE_pfc_stats" in row:
                _read_pause_per_cos(row, _port(state, found[0], output, found[1], "pfc_rx"))
            if row.get("dir") != "Egress":
                continue
            port = _port(state, found[0], output, found[1], "queues", "ecn")
            for group in _rows(row.get("TABLE_qosgrp_egress_stats"), "ROW_qosgrp_egress_stats"):
                _read_group(group, port)


def _read_pause_per_cos(row: dict[str, Any], port: PortState) -> None:
    """TABLE_pfc_stats: pause frames sent and received per CoS (Cisco's schema of `show
    queuing`)."""
    for stats in _rows(row.get("TABLE_pfc_stats"), "ROW_pfc_stats"):
        cos = counter(stats.get("cos"))
        if cos is None or cos > 7:
            continue
        for counts, key in ((port.pfc_rx, "rx-pause-count"), (port.pfc_tx, "tx-pause-count")):
            value = counter(stats.get(key))
            if value is not None:
                counts[cos] = value


def _read_group(group: dict[str, Any], port: PortState) -> None:
    match = _QOS_GROUP.match(str(group.get("eq-qosgrp")))
    if match is None:
        return
    queue = port.queues.setdefault(int(match.group(1)), QueueCounters())
    entries = _rows(group.get("TABLE_qosgrp_egress_stats_entry"), "ROW_qosgrp_egress_stats_entry")
    for entry in entries:
        kind, units = str(entry.get("eq-stat-type")), entry.get("eq-stat-units")
        if units != "Pkts":
            continue
        total = _sum(entry)
        if kind == "Tx":
            queue.tx_packets = total
        elif kind == "Dropped" or kind.startswith("WRED/AFD & Tail Drop"):
            queue.dropped_packets = total
        elif "ecn" in kind.lower():
            queue.ecn_marked_packets = total


def _sum(entry: dict[str, Any]) -> int | None:
    """Unicast + OOBFC unicast + multicast of a stat row (None when any is unreadable)."""
    counts = [counter(entry[key]) for key in _UNIT_VALUES if key in entry]
    return None if not counts or None in counts else sum(counts)  # type: ignore[arg-type]
