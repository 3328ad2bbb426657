"""SONiC's operational QoS state, read from its Redis databases (`lossless verify`).

SONiC keeps what its `show` commands print in Redis. Of the commands that print these
counters only `show queue counters` has a JSON form (`queuestat -j`); `show pfc counters`,
`pfcwd show stats`, `show priority-group drop counters` and `show interfaces flap` print
tables. So lossless reads the databases they read, dumped read-only as JSON by
`sonic-db-dump` (sonic-net/sonic-buildimage src/sonic-py-common/sonic_py_common/
sonic_db_dump_load.py, redis-dump-load's format `{"KEY": {"type": "hash", "value":
{FIELD: VALUE}}}`, github.com/p/redis-dump-load redisdl.py):

* COUNTERS_DB (`counters`): COUNTERS_PORT_NAME_MAP / COUNTERS_QUEUE_NAME_MAP ("Ethernet0:3")
  / COUNTERS_PG_NAME_MAP name -> SAI object id, and `COUNTERS:<oid>` hashes of SAI
  statistics: SAI_PORT_STAT_PFC_<p>_RX_PKTS / _TX_PKTS (what `pfcstat` prints),
  SAI_QUEUE_STAT_PACKETS / _DROPPED_PACKETS / _WRED_ECN_MARKED_PACKETS (`queuestat`),
  SAI_INGRESS_PRIORITY_GROUP_STAT_DROPPED_PACKETS (`pg-drop`), and on the queues the PFC
  watchdog watches PFC_WD_STATUS ("operational" / "stormed") and
  PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED / _RESTORED (`pfcwd show stats`; sonic-utilities
  pfcwd/main.py, the orchagent pfc_detect_*.lua scripts, tests/mock_tables/counters_db.json).
* APPL_DB PORT_TABLE (`port_table`): oper_status, alias, and flap_count, which portsorch
  increments on every oper-status change, up and down (sonic-swss orchagent/portsorch.cpp
  updateDbPortFlapCount; `show interfaces flap` prints it).
* CONFIG_DB PORT_QOS_MAP (`port_qos_map`): pfc_enable, the priorities qosorch programs into
  the port's SAI_PORT_ATTR_PRIORITY_FLOW_CONTROL bitmask (sonic-swss orchagent/qosorch.cpp;
  `pfc show priority` prints it). SONiC has no DCBX: what qosorch applied is what runs.

Queue numbers are SONiC's queue indexes (the `:3` of "Ethernet0:3"); the watchdog is keyed
by queue (SONiC watches queues), ingress drops by priority group. SONiC has no device-wide
watchdog switch (PFC_WD is per port), so DeviceState.watchdog_enabled stays None.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from lossless.observed import DeviceState, Output, PortState, QueueCounters, WatchdogCounters
from lossless.plan import DevicePlan

COMMANDS: dict[str, str] = {
    "counters": "sonic-db-dump -n COUNTERS_DB -k 'COUNTERS*' -y",
    "port_table": "sonic-db-dump -n APPL_DB -k 'PORT_TABLE:*' -y",
    "port_qos_map": "sonic-db-dump -n CONFIG_DB -k 'PORT_QOS_MAP|*' -y",
}
# A count no switch reaches (SAI counters are 64-bit): larger is junk, not a counter
MAX_COUNTER = 2**64
_MAX_DIGITS = 20
PRIORITIES = range(8)
_STORMED = "stormed"

Hashes = dict[str, dict[str, str]]


def commands(device: DevicePlan) -> dict[str, str]:
    """The same three dumps for every SONiC switch."""
    return dict(COMMANDS)


def read(outputs: Mapping[str, Output], device: DevicePlan) -> DeviceState:
    state = DeviceState(device=device.name, os="sonic", source="")
    dumps = {stem: _hashes(outputs[stem]) for stem in COMMANDS if stem in outputs}
    for stem, what in (
        ("port_table", "oper status and link flaps"),
        ("counters", "PFC pause, queue, ingress drop and watchdog counters"),
        ("port_qos_map", "operational PFC priorities"),
    ):
        if stem not in dumps:
            state.unread.append((what, f"{stem} ({COMMANDS[stem]}) not collected"))
    names = _os_names(dumps.get("port_table", {}))
    counters = _Counters(dumps["counters"]) if "counters" in dumps else None
    for port in device.ports:
        name = names.get(port, port)
        state.ports[port] = _port(port, name, outputs, dumps, counters, state)
    return state


def _port(
    port: str,
    name: str,
    outputs: Mapping[str, Output],
    dumps: dict[str, Hashes],
    counters: _Counters | None,
    state: DeviceState,
) -> PortState:
    result = PortState(name=port, source=_source(name, outputs, dumps))
    if "port_table" in dumps:
        entry = dumps["port_table"].get(f"PORT_TABLE:{name}")
        if entry is None:
            state.unread.append((f"{port} oper status", f"no PORT_TABLE:{name} in port_table"))
        else:
            _link(result, entry)
    if "port_qos_map" in dumps:
        qos = dumps["port_qos_map"].get(f"PORT_QOS_MAP|{name}")
        if qos is not None and "pfc_enable" in qos:
            result.pfc_enabled = _priorities(qos["pfc_enable"])
    if counters is not None:
        counters.fill(result, name)
    return result


def _source(name: str, outputs: Mapping[str, Output], dumps: dict[str, Hashes]) -> str:
    """Where the port's state was read: its PORT_TABLE entry, else its name in a dump."""
    if "port_table" in dumps:
        return outputs["port_table"].at(f'"PORT_TABLE:{name}"')
    for stem in dumps:
        return outputs[stem].at(f'"{name}"')
    return ""


def _link(port: PortState, entry: dict[str, str]) -> None:
    status = entry.get("oper_status")
    port.oper_up = None if status is None else status == "up"
    if "flap_count" in entry:
        # portsorch counts every oper-status change and a port starts down: the changes
        # alternate up, down, up..., so the down transitions are half of them, rounded down
        port.link_flaps = _count(entry["flap_count"]) // 2


class _Counters:
    """COUNTERS_DB: each port's queues and priority groups found in one pass of the maps."""

    def __init__(self, hashes: Hashes):
        self.hashes = hashes
        self.ports = hashes.get("COUNTERS_PORT_NAME_MAP", {})
        self.queues = _by_port(hashes.get("COUNTERS_QUEUE_NAME_MAP", {}))
        self.groups = _by_port(hashes.get("COUNTERS_PG_NAME_MAP", {}))

    def stats(self, oid: str) -> dict[str, str]:
        return self.hashes.get(f"COUNTERS:{oid}", {})

    def fill(self, port: PortState, name: str) -> None:
        if name in self.ports:
            stats = self.stats(self.ports[name])
            for priority in PRIORITIES:
                _put(port.pfc_rx, priority, stats.get(f"SAI_PORT_STAT_PFC_{priority}_RX_PKTS"))
                _put(port.pfc_tx, priority, stats.get(f"SAI_PORT_STAT_PFC_{priority}_TX_PKTS"))
        for queue, oid in sorted(self.queues.get(name, {}).items()):
            stats = self.stats(oid)
            port.queues[queue] = QueueCounters(
                tx_packets=_optional(stats.get("SAI_QUEUE_STAT_PACKETS")),
                dropped_packets=_optional(stats.get("SAI_QUEUE_STAT_DROPPED_PACKETS")),
                ecn_marked_packets=_optional(stats.get("SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS")),
            )
            if "PFC_WD_STATUS" in stats:
                port.watchdog[queue] = _watchdog(stats)
        for group, oid in sorted(self.groups.get(name, {}).items()):
            drops = self.stats(oid).get("SAI_INGRESS_PRIORITY_GROUP_STAT_DROPPED_PACKETS")
            _put(port.ingress_drops, group, drops)


def _watchdog(stats: dict[str, str]) -> WatchdogCounters:
    """A queue the watchdog watches (pfcwd writes PFC_WD_STATUS only on those)."""
    return WatchdogCounters(
        enabled=True,
        storms_detected=_optional(stats.get("PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED")),
        storms_restored=_optional(stats.get("PFC_WD_QUEUE_STATS_DEADLOCK_RESTORED")),
        stormed=stats["PFC_WD_STATUS"] == _STORMED,
    )


def _by_port(names: dict[str, str]) -> dict[str, dict[int, str]]:
    """{"Ethernet0:3": oid} as {"Ethernet0": {3: oid}}."""
    found: dict[str, dict[int, str]] = {}
    for key, oid in names.items():
        port, colon, index = key.rpartition(":")
        if colon and index.isdigit() and len(index) <= 3:
            found.setdefault(port, {})[int(index)] = oid
    return found


def _os_names(port_table: Hashes) -> dict[str, str]:
    """A plan port named by the OS's alias ("etp1a") -> its SONiC name ("Ethernet0")."""
    names = {}
    for key, entry in port_table.items():
        name = key.removeprefix("PORT_TABLE:")
        if "alias" in entry and entry["alias"] != name:
            names[entry["alias"]] = name
    for key in port_table:
        name = key.removeprefix("PORT_TABLE:")
        names[name] = name  # a port's own name wins over another port's alias
    return names


def _priorities(text: str) -> tuple[int, ...]:
    """pfc_enable "3,4" (or "" when PFC is off)."""
    values = [part.strip() for part in text.split(",") if part.strip()]
    priorities = sorted({int(value) for value in values if value.isdigit() and len(value) == 1})
    if len(priorities) != len(set(values)) or any(p not in PRIORITIES for p in priorities):
        raise ValueError(f"pfc_enable {text[:40]!r} is not a list of priorities 0-7")
    return tuple(priorities)


def _put(counters: dict[int, int], key: int, text: str | None) -> None:
    if text is not None:
        counters[key] = _count(text)


def _optional(text: str | None) -> int | None:
    return None if text is None else _count(text)


def _count(text: str) -> int:
    """A Redis counter: a decimal string of a 64-bit unsigned number."""
    if not isinstance(text, str) or not text.isascii() or not text.isdigit():
        raise ValueError(f"counter {str(text)[:40]!r} is not a number")
    if len(text) > _MAX_DIGITS or int(text) >= MAX_COUNTER:
        raise ValueError(f"counter {text[:40]!r} is larger than a 64-bit counter")
    return int(text)


def _hashes(output: Output) -> Hashes:
    """A sonic-db-dump of hashes: {key: {"type": "hash", "value": {field: string}}}."""
    try:
        data: Any = json.loads(output.text)
    except RecursionError:
        raise ValueError(f"{output.source}: JSON nested too deep") from None
    if not isinstance(data, dict):
        raise TypeError(f"{output.source}: not a sonic-db-dump (an object of keys expected)")
    hashes: Hashes = {}
    for key, item in data.items():
        if not isinstance(item, dict) or item.get("type") != "hash":
            continue  # a key of another type (a string, a set) is nothing read here
        value = item.get("value")
        if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
            raise TypeError(f"{output.source}: {key[:60]} is not a hash of strings")
        hashes[key] = value
    return hashes
