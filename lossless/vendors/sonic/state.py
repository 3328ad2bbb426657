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
  SAI_QUEUE_STAT_PACKETS / _DROPPED_PACKETS / _WRED_DROPPED_PACKETS /
  _WRED_ECN_MARKED_PACKETS (`queuestat`, `show queue wredcounters`),
  SAI_INGRESS_PRIORITY_GROUP_STAT_DROPPED_PACKETS (`pg-drop`), and on the queues the PFC
  watchdog watches PFC_WD_STATUS ("operational" / "stormed") and
  PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED / _RESTORED (`pfcwd show stats`; sonic-utilities
  pfcwd/main.py, the orchagent pfc_detect_*.lua scripts, tests/mock_tables/counters_db.json).
* APPL_DB PORT_TABLE (`port_table`): oper_status, alias, and flap_count, which portsorch
  increments on every oper-status change, up and down (sonic-swss orchagent/portsorch.cpp
  updateDbPortFlapCount; `show interfaces flap` prints it).
* CONFIG_DB PORT_QOS_MAP (`port_qos_map`): pfc_enable, the priorities qosorch programs into
  the port's SAI_PORT_ATTR_PRIORITY_FLOW_CONTROL bitmask (sonic-swss orchagent/qosorch.cpp;
  `pfc show priority` prints it). SONiC has no DCBX: what qosorch applied is what runs. A
  port without the entry, or without pfc_enable, gets no PFC programmed: PFC off ().
  pfcwd_sw_enable, where present, is the priorities the watchdog may watch (qosorch hands
  it to pfcwdorch instead of pfc_enable; sonic-swss PR 2114): a lossless priority not in it
  is not watched.

The watchdog: pfcwdorch writes PFC_WD_STATUS (and its counters) into the COUNTERS hash of
each queue it starts watching, and deletes those fields when it stops watching it (pfcwd
stop, or not applied to the port: PfcWdOrch unregisterFromWdDb). So a planned lossless
queue whose counters were read without PFC_WD_STATUS is not watched (enabled False), not
unknown: its counters show the queue, and the absence is what pfcwd leaves.

A counter of 2^64 - 1 is SAI's "unsupported" and reads as unknown (observed.UNSUPPORTED).

Queue numbers are SONiC's queue indexes (the `:3` of "Ethernet0:3"); the watchdog is keyed
by queue (SONiC watches queues), ingress drops by priority group. SONiC has no device-wide
watchdog switch (PFC_WD is per port), so DeviceState.watchdog_enabled stays None.
"""

from __future__ import annotations

from collections.abc import Mapping
from itertools import repeat
from typing import Any

from lossless.observed import (
    INGRESS,
    LINK,
    OPER,
    PAUSE,
    PFC,
    QUEUE,
    UNSUPPORTED,
    WATCHDOG,
    DeviceState,
    Output,
    PortState,
    QueueCounters,
    WatchdogCounters,
    counter,
)
from lossless.plan import DevicePlan, PortPlan

COMMANDS: dict[str, str] = {
    "counters": "sonic-db-dump -n COUNTERS_DB -k 'COUNTERS*' -y",
    "port_table": "sonic-db-dump -n APPL_DB -k 'PORT_TABLE:*' -y",
    "port_qos_map": "sonic-db-dump -n CONFIG_DB -k 'PORT_QOS_MAP|*' -y",
}
# The output each kind of state the rules need comes from (observed.unknown_kinds)
NEEDS: dict[str, str] = {
    OPER: "port_table",
    LINK: "port_table",
    PFC: "port_qos_map",
    PAUSE: "counters",
    QUEUE: "counters",
    INGRESS: "counters",
    WATCHDOG: "counters",
}
# A count no switch reaches (SAI counters are 64-bit): larger is junk, not a counter
MAX_COUNTER = 2**64
_MAX_DIGITS = 20
PRIORITIES = range(8)
_STORMED = "stormed"
# (priority, its pause frames received, sent) in a port's COUNTERS hash
_PFC_COUNTERS = tuple(
    (p, f"SAI_PORT_STAT_PFC_{p}_RX_PKTS", f"SAI_PORT_STAT_PFC_{p}_TX_PKTS") for p in PRIORITIES
)

Hashes = dict[str, dict[str, str]]
_TEXT = repeat(str)  # isinstance's second argument, for every field


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
    counters = _Counters(dumps["counters"], outputs["counters"]) if "counters" in dumps else None
    for port, plan in device.ports.items():
        name = names.get(port, port)
        state.ports[port] = _port(port, plan, name, outputs, dumps, counters)
    return state


def _port(
    port: str,
    plan: PortPlan,
    name: str,
    outputs: Mapping[str, Output],
    dumps: dict[str, Hashes],
    counters: _Counters | None,
) -> PortState:
    """A planned port's state (a missing PORT_TABLE entry leaves its oper state unknown:
    verify says so, observed.unknown_kinds)."""
    result = PortState(name=port, source=_source(name, outputs, dumps))
    if "port_table" in dumps:
        entry = dumps["port_table"].get(f"PORT_TABLE:{name}")
        if entry is not None:
            _link(result, entry)
            result.sources["oper_up"] = outputs["port_table"].at(f'"PORT_TABLE:{name}"')
    watchable = None
    if "port_qos_map" in dumps:
        qos = dumps["port_qos_map"].get(f"PORT_QOS_MAP|{name}", {})
        # no entry or no pfc_enable: qosorch programs no PFC on the port
        result.pfc_enabled = _priorities(qos.get("pfc_enable", ""))
        result.sources["pfc_enabled"] = outputs["port_qos_map"].at(f'"PORT_QOS_MAP|{name}"')
        if "pfcwd_sw_enable" in qos:
            watchable = _priorities(qos["pfcwd_sw_enable"])
    if counters is not None:
        lossless = tuple(plan.pfc_priorities) if plan.lossless else ()
        counters.fill(result, name, lossless, watchable)
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
    # portsorch's count of oper-status changes, up and down; missing, or not a whole number
    # ("N/A", "40.0"), it stays unknown and verify says so naming the port
    port.link_changes = counter(entry.get("flap_count"))


class _Counters:
    """COUNTERS_DB: each port's queues and priority groups found in one pass of the maps."""

    def __init__(self, hashes: Hashes, output: Output):
        self.hashes, self.output = hashes, output
        self.ports = hashes.get("COUNTERS_PORT_NAME_MAP", {})
        self.queue_oids = hashes.get("COUNTERS_QUEUE_NAME_MAP", {}).values()
        self.group_oids = hashes.get("COUNTERS_PG_NAME_MAP", {}).values()
        self.queues = _by_port(hashes.get("COUNTERS_QUEUE_NAME_MAP", {}))
        self.groups = _by_port(hashes.get("COUNTERS_PG_NAME_MAP", {}))
        self._where: dict[str, str] | None = None

    def stats(self, oid: str) -> dict[str, str]:
        return self.hashes.get(f"COUNTERS:{oid}", {})

    def at(self, oid: str) -> str:
        """Where an object's counters are. All are found on the first ask, in the dump's
        order (its keys sorted): one scan of the dump, not one per ask (Output.at)."""
        if self._where is None:
            oids = [*self.ports.values(), *self.queue_oids, *self.group_oids]
            keys = sorted({f"COUNTERS:{o}" for o in oids if f"COUNTERS:{o}" in self.hashes})
            self._where = {key: self.output.at(f'"{key}"') for key in keys}
        return self._where.get(f"COUNTERS:{oid}") or self.output.at(f'"COUNTERS:{oid}"')

    def fill(
        self,
        port: PortState,
        name: str,
        lossless: tuple[int, ...],
        watchable: tuple[int, ...] | None,
    ) -> None:
        """The port's counters; lossless: the plan's PFC priorities (pfcwd watches queue p
        for priority p, pfcwdorch.cpp); watchable: pfcwd_sw_enable where it is set."""
        if name in self.ports:
            stats = self.stats(self.ports[name])
            port.sources["pfc_rx"] = self.at(self.ports[name])
            for priority, rx, tx in _PFC_COUNTERS:
                _put(port.pfc_rx, priority, stats.get(rx))
                _put(port.pfc_tx, priority, stats.get(tx))
        queues = self.queues.get(name, {})
        for queue, oid in sorted(queues.items()):
            stats = self.stats(oid)
            port.queues[queue] = QueueCounters(
                tx_packets=_optional(stats.get("SAI_QUEUE_STAT_PACKETS")),
                dropped_packets=_dropped(stats),
                ecn_marked_packets=_optional(stats.get("SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS")),
            )
            if "PFC_WD_STATUS" in stats:
                port.watchdog[queue] = _watchdog(stats)
        for queue in lossless:
            if queue in queues:
                port.sources.setdefault("queues", self.at(queues[queue]))
                port.sources.setdefault("watchdog", self.at(queues[queue]))
                if queue not in port.watchdog or (watchable is not None and queue not in watchable):
                    port.watchdog[queue] = WatchdogCounters(enabled=False)  # see the docstring
        for group, oid in sorted(self.groups.get(name, {}).items()):
            if "ingress_drops" not in port.sources:
                port.sources["ingress_drops"] = self.at(oid)
            drops = self.stats(oid).get("SAI_INGRESS_PRIORITY_GROUP_STAT_DROPPED_PACKETS")
            _put(port.ingress_drops, group, drops)


def _dropped(stats: dict[str, str]) -> int | None:
    """A queue's drops: SAI_QUEUE_STAT_DROPPED_PACKETS, or its WRED drops
    (SAI_QUEUE_STAT_WRED_DROPPED_PACKETS) where they are more. SAI does not say whether the
    first includes the second (saiqueue.h), and ASICs differ: the larger is what the queue
    dropped at least, never a count it did not (the sum would be, where one includes the
    other). Unknown when the first is: WRED drops alone are not all the drops."""
    dropped = _optional(stats.get("SAI_QUEUE_STAT_DROPPED_PACKETS"))
    wred = _optional(stats.get("SAI_QUEUE_STAT_WRED_DROPPED_PACKETS"))
    return None if dropped is None else max(dropped, wred or 0)


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
    value = _optional(text)
    if value is not None:
        counters[key] = value


def _optional(text: str | None) -> int | None:
    """A counter, None when absent or UNSUPPORTED."""
    value = None if text is None else _count(text)
    return None if value == UNSUPPORTED else value


def _count(text: str) -> int:
    """A Redis counter: a decimal string of a 64-bit unsigned number."""
    if not isinstance(text, str) or not text.isascii() or not text.isdigit():
        raise ValueError(f"counter {str(text)[:40]!r} is not a number")
    value = int(text) if len(text) <= _MAX_DIGITS else MAX_COUNTER
    if value >= MAX_COUNTER:
        raise ValueError(f"counter {text[:40]!r} is larger than a 64-bit counter")
    return value


def _hashes(output: Output) -> Hashes:
    """A sonic-db-dump of hashes: {key: {"type": "hash", "value": {field: string}}}."""
    try:
        data: Any = output.parsed
    except RecursionError:
        raise ValueError(f"{output.source}: JSON nested too deep") from None
    if not isinstance(data, dict):
        raise TypeError(f"{output.source}: not a sonic-db-dump (an object of keys expected)")
    hashes: Hashes = {}
    for key, item in data.items():
        if not isinstance(item, dict) or item.get("type") != "hash":
            continue  # a key of another type (a string, a set) is nothing read here
        value = item.get("value")
        # map: the check of each field in C (a dump holds ~40,000 fields per switch)
        if not isinstance(value, dict) or not all(map(isinstance, value.values(), _TEXT)):
            raise TypeError(f"{output.source}: {key[:60]} is not a hash of strings")
        hashes[key] = value
    return hashes
