"""Cumulus Linux 5.x's operational QoS state, read from NVUE's JSON (`lossless verify`).

NVUE shows QoS state per interface, so the commands are per planned port (`commands(device)`;
stems "<what>-<port>"), each `nv show ... -o json` (NVIDIA Cumulus Linux 5.x user guide,
Quality of Service and Monitoring Interfaces with NVUE; NVUE command reference, Show
Commands, docs.nvidia.com/networking-ethernet-software/ and github.com/CumulusNetworks/docs).
The JSON keys are the names the text tables print:

* `link-<port>`: `nv show interface <port> link` — oper-status (or state), and
  stats.carrier-transitions, the kernel's carrier changes (up and down both count).
* `roce-<port>`: `nv show interface <port> qos roce status` — pfc.pfc-priority,
  pfc.rx-enabled, pfc.tx-enabled: the priorities PFC runs on in the port's RoCE mode
  (NVUE's only per-port view of the PFC priorities that are in effect).
* `qos-counters-<port>`: `nv show interface <port> counters qos` (5.5 and later; 5.4 said
  `qos counters`) — egress-queue-stats per traffic class (tx-frames, tx-uc-buffer-discards,
  wred-discards, and ecn-marked-frames where the release shows it: scripts that read an
  SN5600's JSON read it there (github.com/aliaydemir/lldpq-src-edt
  lldpq/process_pfc_ecn_data.py, github.com/AtlanticBob/hpft-implementation
  validation/run/run.sh); the 5.5 guide's table does not show it), ingress-buffer-stats
  per priority group (rx-buffer-discards), pfc-stats per switch priority (rx-pause-frames,
  tx-pause-frames). The JSON counters are frame counts, though the text table prints some
  with a byte suffix.
* `pfc-watchdog-<port>`: `nv show interface <port> qos pfc-watchdog` (5.6 and later) —
  state, and status per traffic class: status OK / DEADLOCK and deadlock-count. NVUE counts
  no restorations, so WatchdogCounters.storms_restored stays None.

Queue numbers are NVUE's traffic classes (egress queues); the watchdog is keyed by traffic
class as NVUE shows it, ingress drops by priority group. Cumulus has no device-wide watchdog
switch (it is set per interface), so DeviceState.watchdog_enabled stays None.
"""

from __future__ import annotations

from collections.abc import Mapping
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
)
from lossless.plan import DevicePlan

# stem prefix -> (command with {port}, what it gives)
PER_PORT: dict[str, tuple[str, str]] = {
    "link": ("nv show interface {port} link -o json", "oper status and link flaps"),
    "roce": ("nv show interface {port} qos roce status -o json", "operational PFC priorities"),
    "qos-counters": (
        "nv show interface {port} counters qos -o json",
        "PFC pause, queue and ingress drop counters",
    ),
    "pfc-watchdog": ("nv show interface {port} qos pfc-watchdog -o json", "PFC watchdog state"),
}
# The output each kind of state the rules need comes from (observed.unknown_kinds)
NEEDS: dict[str, str] = {
    OPER: "link-{port}",
    LINK: "link-{port}",
    PFC: "roce-{port}",
    PAUSE: "qos-counters-{port}",
    QUEUE: "qos-counters-{port}",
    INGRESS: "qos-counters-{port}",
    WATCHDOG: "pfc-watchdog-{port}",
}
# PortState.sources key -> (the output it is read from, the key it is read at)
SOURCES: dict[str, tuple[str, str]] = {
    "oper_up": ("link", "stats"),
    "link_changes": ("link", "carrier-transitions"),
    "pfc_enabled": ("roce", "pfc-priority"),
    "pfc_rx": ("qos-counters", "pfc-stats"),
    "queues": ("qos-counters", "egress-queue-stats"),
    "ecn": ("qos-counters", "egress-queue-stats"),
    "ingress_drops": ("qos-counters", "ingress-buffer-stats"),
    "watchdog": ("pfc-watchdog", "status"),
}
# A count no switch reaches (the ASIC's counters are 64-bit): larger is junk
MAX_COUNTER = 2**64
_MAX_DIGITS = 20
_CLASSES = 8  # switch priorities, traffic classes and priority groups are 0-7
_YES = {"yes", "enabled", "enable", "on", "true"}
_NO = {"no", "disabled", "disable", "off", "false"}


def stem(what: str, port: str) -> str:
    return f"{what}-{port}"


def commands(device: DevicePlan) -> dict[str, str]:
    """Four `nv show` commands per planned port."""
    return {
        stem(what, port): command.format(port=port)
        for port in device.ports
        for what, (command, _) in PER_PORT.items()
    }


def read(outputs: Mapping[str, Output], device: DevicePlan) -> DeviceState:
    state = DeviceState(device=device.name, os="cumulus", source="")
    for port in device.ports:
        trees = {}
        for what, (command, gives) in PER_PORT.items():
            output = outputs.get(stem(what, port))
            if output is None:
                why = f"{stem(what, port)} ({command.format(port=port)}) not collected"
                state.unread.append((f"{port} {gives}", why))
            else:
                trees[what] = _tree(output)
        main = next((outputs[stem(w, port)] for w in PER_PORT if w in trees), None)
        result = _port(port, trees, "" if main is None else main.at(port))
        for field, (what, key) in SOURCES.items():
            if what in trees:
                result.sources[field] = outputs[stem(what, port)].at(f'"{key}"')
        state.ports[port] = result
    return state


def _port(port: str, trees: dict[str, dict[str, Any]], source: str) -> PortState:
    result = PortState(name=port, source=source)
    if "link" in trees:
        _link(result, trees["link"])
    if "roce" in trees:
        result.pfc_enabled = _pfc(trees["roce"].get("pfc"))
    if "qos-counters" in trees:
        _counters(result, trees["qos-counters"])
    if "pfc-watchdog" in trees:
        _watchdog(result, trees["pfc-watchdog"])
    return result


def _link(port: PortState, link: dict[str, Any]) -> None:
    status = link.get("oper-status", link.get("state"))
    if isinstance(status, dict):  # NVUE's enum as a key: "state": {"up": {}}
        status = next(iter(status), None) if len(status) == 1 else None
    if isinstance(status, str):
        port.oper_up = status.lower() == "up"
    stats = _object(link.get("stats", {}), "link stats")
    if "carrier-transitions" in stats:
        # the kernel's count of carrier changes, both ways: judged as growth since a baseline
        port.link_changes = _optional(stats["carrier-transitions"])


def _pfc(pfc: Any) -> tuple[int, ...] | None:
    """The priorities PFC is on, () when off, None when the output has no pfc section."""
    if pfc is None:
        return None
    pfc = _object(pfc, "pfc")
    if "pfc-priority" not in pfc:
        return None
    priorities = _priorities(pfc["pfc-priority"])
    directions = [_flag(pfc[key]) for key in ("rx-enabled", "tx-enabled") if key in pfc]
    # a priority that is paused one way only is not lossless: PFC counts as on when both
    # directions are (or when the output does not say)
    return priorities if all(directions) else ()


def _counters(port: PortState, tree: dict[str, Any]) -> None:
    for key, stats in _classes(tree, "pfc-stats").items():
        _put(port.pfc_rx, key, stats.get("rx-pause-frames"))
        _put(port.pfc_tx, key, stats.get("tx-pause-frames"))
    for key, stats in _classes(tree, "egress-queue-stats").items():
        port.queues[key] = QueueCounters(
            tx_packets=_optional(stats.get("tx-frames")),
            dropped_packets=_drops(stats),
            ecn_marked_packets=_optional(stats.get("ecn-marked-frames")),
        )
    for key, stats in _classes(tree, "ingress-buffer-stats").items():
        _put(port.ingress_drops, key, stats.get("rx-buffer-discards"))


def _drops(stats: dict[str, Any]) -> int | None:
    """Tail drops (tx-uc-buffer-discards) and WRED drops of a traffic class."""
    parts = [_optional(stats.get(k)) for k in ("tx-uc-buffer-discards", "wred-discards")]
    if all(part is None for part in parts):
        return None
    return sum(part for part in parts if part is not None)


def _watchdog(port: PortState, tree: dict[str, Any]) -> None:
    state = tree.get("state")
    enabled = None if state is None else _flag(state)
    classes = _classes(tree, "status")
    for key, status in classes.items():
        word = status.get("status")
        port.watchdog[key] = WatchdogCounters(
            enabled=enabled,
            storms_detected=_optional(status.get("deadlock-count")),
            stormed=None if not isinstance(word, str) else word.upper() == "DEADLOCK",
        )
    if enabled is False and not classes:
        # no traffic class listed: the watchdog is off on the priorities PFC runs on
        for priority in port.pfc_enabled or ():
            port.watchdog[priority] = WatchdogCounters(enabled=False)


def _classes(tree: dict[str, Any], key: str) -> dict[int, dict[str, Any]]:
    """{"3": {...}} of a table keyed by priority, traffic class or priority group."""
    table = _object(tree.get(key, {}), key)
    found = {}
    for name, stats in table.items():
        if not (name.isascii() and name.isdigit() and int(name) < _CLASSES):
            raise ValueError(f"{key}: {name[:20]!r} is not a class 0-7")
        found[int(name)] = _object(stats, f"{key}.{name}")
    return found


def _priorities(value: Any) -> tuple[int, ...]:
    """pfc-priority: 3, "3" or "3,4" ("" when none)."""
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str):
        raise TypeError("pfc-priority is not a priority list")
    parts = [part.strip() for part in value.split(",") if part.strip()]
    if not all(p.isascii() and p.isdigit() and len(p) == 1 and int(p) < _CLASSES for p in parts):
        raise ValueError(f"pfc-priority {value[:40]!r} is not a list of priorities 0-7")
    return tuple(sorted({int(p) for p in parts}))


def _flag(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.lower() in _YES | _NO:
        return value.lower() in _YES
    raise ValueError(f"{str(value)[:40]!r} is neither on nor off")


def _put(counters: dict[int, int], key: int, value: Any) -> None:
    counted = _optional(value)
    if counted is not None:
        counters[key] = counted


def _optional(value: Any) -> int | None:
    """A counter, None when absent or UNSUPPORTED."""
    if type(value) is int and 0 <= value < UNSUPPORTED:  # most: a JSON number, checked here
        return value
    counted = None if value is None else _count(value)
    return None if counted == UNSUPPORTED else counted


def _count(value: Any) -> int:
    """A counter: a JSON number, or its decimal text."""
    if isinstance(value, str) and value.isascii() and value.isdigit():
        if len(value) > _MAX_DIGITS:
            raise ValueError(f"counter {value[:40]!r} is larger than a 64-bit counter")
        value = int(value)
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"counter {str(value)[:40]!r} is not a number")
    if not 0 <= value < MAX_COUNTER:
        raise ValueError(f"counter {str(value)[:40]} is not a 64-bit counter")
    return value


def _object(value: Any, what: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise TypeError(f"{what} is not an object")
    return value


def _tree(output: Output) -> dict[str, Any]:
    """NVUE's JSON: one object."""
    try:
        data = output.parsed
    except RecursionError:
        raise ValueError(f"{output.source}: JSON nested too deep") from None
    return _object(data, output.source)
