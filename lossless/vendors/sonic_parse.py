"""Read a SONiC config_db.json (ours, a hand-edited one, or a switch's running config) back
into a DevicePlan, with the file:line of what was read.

JSON is read with the json module; one pass of a tokenizer notes where each table and entry
key was written, so findings point at the line.
What config_db cannot say (ASIC, role, peers, ECMP, budget) comes from `hint`, the device's
plan from the inventory when there is one.
"""

from __future__ import annotations

import bisect
import copy
import json
import re
from typing import Any

from lossless.errors import InputError, Problem
from lossless.inventory.yamlsource import Document
from lossless.plan import (
    DevicePlan,
    EcnPlan,
    HeadroomPlan,
    PortPlan,
    QueuePlan,
    WatchdogPlan,
)
from lossless.vendors.common import classify_traffic, queue_plan, read_config
from lossless.vendors.skeleton import new_port, skeleton_device


def _ints(text: str) -> list[int]:
    return [int(x) for x in str(text).split(",") if x.strip()]


def _map(table: dict[str, Any], name: str | None) -> dict[int, int] | None:
    if not name or name not in table:
        return None
    return {int(k): int(v) for k, v in table[name].items()}


def _cable_m(text: str) -> float | None:
    text = str(text)
    return float(text[:-1]) if text.endswith("m") and text[:-1].isdigit() else None


def parse(text: str, file: str, name: str, hint: DevicePlan | None = None) -> DevicePlan:
    document = _json_document(text, file)
    db: dict[str, Any] = document.data
    device = skeleton_device(name, "sonic", file, hint)
    where = _Where(document)
    ports_table = db.get("PORT", {})
    qos_table = db.get("PORT_QOS_MAP", {})
    cables = db.get("CABLE_LENGTH", {}).get("AZURE", {})
    ports: dict[str, PortPlan] = {}
    for port_name in ports_table:
        port = new_port(hint, port_name, where.at("PORT", port_name))
        fields = ports_table[port_name]
        port.source = where.at("PORT", port_name)
        if "speed" in fields:
            port.speed_mbps = int(fields["speed"])
        if "mtu" in fields:
            port.mtu = int(fields["mtu"])
        if "lanes" in fields:
            port.lanes = len(_ints(fields["lanes"]))
        qos = qos_table.get(port_name, {})
        port.pfc_priorities = _ints(qos.get("pfc_enable", ""))
        port.lossless = bool(port.pfc_priorities)
        if port_name in qos_table:
            port.source = where.at("PORT_QOS_MAP", port_name)
        port.cable_m = _cable_m(cables[port_name]) if port_name in cables else None
        port.headroom = _headroom(db, port_name, where)
        port.ecn = _ecn(db, port_name, where)
        port.wred_drop_queues = _wred_drop(db, port_name)
        port.watchdog = _watchdog(db, port_name, qos, device.watchdog.poll_ms)
        ports[port_name] = port
    device.ports = ports
    _device_facts(device, db, dscps_known=hint is not None)
    device.source = f"{file}:1:1"
    return device


_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"\s*:|[{}\[\]]|"(?:[^"\\]|\\.)*"')


def _json_document(text: str, file: str) -> Document:
    """The JSON data, with the 1-based line and column of every key of the first two levels
    (tables and their entries)."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise InputError(
            [Problem(file, error.lineno, error.colno, "", f"JSON: {error.msg}")]
        ) from None
    if not isinstance(data, dict):
        raise InputError([Problem(file, 1, 1, "", "expected a JSON object of CONFIG_DB tables")])
    document = Document(file=file, data=data)
    line_starts = [0] + [m.end() for m in re.finditer("\n", text)]
    path: list[str] = []
    depth = 0
    for match in _TOKENS.finditer(text):
        token = match.group()
        if token in "{[":
            depth += 1
        elif token in "}]":
            depth -= 1
            del path[depth:]
        elif token.endswith(":") and depth in (1, 2):
            key = json.loads(token[:-1].rstrip())
            del path[depth - 1 :]
            path.append(key)
            line = bisect.bisect_right(line_starts, match.start())
            column = match.start() - line_starts[line - 1] + 1
            document.key_marks[tuple(path)] = (line, column)
    return document


class _Where:
    def __init__(self, document: Document):
        self.document = document

    def at(self, *path: str) -> str:
        line, column = self.document.mark(tuple(path), key=True)
        return f"{self.document.file}:{line}:{column}"


def _headroom(db: dict[str, Any], port: str, where: _Where) -> list[HeadroomPlan]:
    result = []
    profiles = db.get("BUFFER_PROFILE", {})
    for key, fields in db.get("BUFFER_PG", {}).items():
        name, _, pgs = key.partition("|")
        profile = profiles.get(fields.get("profile", ""))
        if name != port or profile is None or "xoff" not in profile:
            continue
        for pg in _pg_range(pgs):
            result.append(
                HeadroomPlan(
                    priority_group=pg,
                    xon=int(profile.get("xon", 0)),
                    xoff=int(profile["xoff"]),
                    size=int(profile.get("size", 0)),
                    model="config",
                    derivation=where.at("BUFFER_PROFILE", fields["profile"]),
                )
            )
    return result


def _pg_range(text: str) -> list[int]:
    first, _, last = text.partition("-")
    return list(range(int(first), int(last or first) + 1))


def _ecn(db: dict[str, Any], port: str, where: _Where) -> list[EcnPlan]:
    result = []
    profiles = db.get("WRED_PROFILE", {})
    for key, fields in db.get("QUEUE", {}).items():
        name, _, queue = key.partition("|")
        profile = profiles.get(fields.get("wred_profile", ""))
        if name != port or profile is None or profile.get("ecn", "ecn_none") == "ecn_none":
            continue
        result.append(
            EcnPlan(
                queue=int(queue),
                min_bytes=int(profile.get("green_min_threshold", 0)),
                max_bytes=int(profile.get("green_max_threshold", 0)),
                probability_percent=int(profile.get("green_drop_probability", 0)),
                preset=None,
                pfc_trigger_bytes=None,
                min_below_trigger=None,
                max_below_trigger=None,
                derivation=where.at("WRED_PROFILE", fields["wred_profile"]),
            )
        )
    return sorted(result, key=lambda e: e.queue)


def _wred_drop(db: dict[str, Any], port: str) -> list[int]:
    """Queues whose WRED profile drops instead of marking (ecn_none with WRED enabled)."""
    queues = []
    profiles = db.get("WRED_PROFILE", {})
    for key, fields in db.get("QUEUE", {}).items():
        name, _, queue = key.partition("|")
        profile = profiles.get(fields.get("wred_profile", ""), {})
        enabled = any(profile.get(f"wred_{c}_enable") == "true" for c in ("green", "yellow", "red"))
        if name == port and enabled and profile.get("ecn", "ecn_none") == "ecn_none":
            queues.append(int(queue))
    return sorted(queues)


def _watchdog(
    db: dict[str, Any], port: str, qos: dict[str, Any], poll_ms: int
) -> WatchdogPlan | None:
    entry = db.get("PFC_WD", {}).get(port)
    if not _ints(qos.get("pfc_enable", "")):
        return None
    if entry is None or not qos.get("pfcwd_sw_enable"):
        return WatchdogPlan(False, 0, 0, poll_ms, "drop")
    poll = int(db.get("PFC_WD", {}).get("GLOBAL", {}).get("POLL_INTERVAL", poll_ms))
    return WatchdogPlan(
        enabled=True,
        detection_ms=int(entry.get("detection_time", 0)),
        restoration_ms=int(entry.get("restoration_time", 0)),
        poll_ms=poll,
        action=entry.get("action", "drop"),
    )


def _device_facts(device: DevicePlan, db: dict[str, Any], dscps_known: bool) -> None:
    qos_entries = [v for k, v in db.get("PORT_QOS_MAP", {}).items() if k != "global"]
    first = next(
        (q for q in qos_entries if q.get("pfc_enable")), qos_entries[0] if qos_entries else {}
    )
    maps = device.maps
    for attribute, table, field in (
        ("dscp_to_tc", "DSCP_TO_TC_MAP", "dscp_to_tc_map"),
        ("tc_to_queue", "TC_TO_QUEUE_MAP", "tc_to_queue_map"),
        ("tc_to_pg", "TC_TO_PRIORITY_GROUP_MAP", "tc_to_pg_map"),
        ("pfc_priority_to_queue", "MAP_PFC_PRIORITY_TO_QUEUE", "pfc_to_queue_map"),
    ):
        parsed = _map(db.get(table, {}), first.get(field))
        if parsed is not None:
            setattr(maps, attribute, parsed)
    lossless = sorted({p for port in device.ports.values() for p in port.pfc_priorities})
    device.lossless_priorities = lossless
    schedulers = db.get("SCHEDULER", {})
    lossless_port = next((p for p in device.ports.values() if p.lossless), None)
    queues: list[QueuePlan] = []
    for key, fields in sorted(db.get("QUEUE", {}).items()):
        name, _, queue_text = key.partition("|")
        if lossless_port is None or name != lossless_port.name:
            continue
        scheduler = schedulers.get(fields.get("scheduler", ""), {})
        queue = int(queue_text)
        strict = scheduler.get("type") == "STRICT"
        lossless_queues = {maps.pfc_priority_to_queue.get(p, p) for p in lossless}
        queues.append(queue_plan(queue, strict, int(scheduler.get("weight", 0)), lossless_queues))
    if queues:
        device.queues = sorted(queues, key=lambda q: q.queue)
    classify_traffic(device, dscps_known)
    wd_global = db.get("PFC_WD", {}).get("GLOBAL")
    if wd_global:
        device.watchdog.poll_ms = int(wd_global.get("POLL_INTERVAL", device.watchdog.poll_ms))
    enabled = [p.watchdog for p in device.ports.values() if p.watchdog]
    if enabled:
        device.watchdog = copy.deepcopy(enabled[0])
    settings = device.headroom_settings
    pattern = db.get("LOSSLESS_TRAFFIC_PATTERN", {}).get("AZURE", {})
    settings.lossless_mtu = int(pattern.get("mtu", settings.lossless_mtu))
    settings.small_packet_percent = int(
        pattern.get("small_packet_percentage", settings.small_packet_percent)
    )
    parameters = db.get("DEFAULT_LOSSLESS_BUFFER_PARAMETER", {}).get("AZURE", {})
    settings.dynamic_th = int(parameters.get("default_dynamic_th", settings.dynamic_th))
    pool_xoff = int(db.get("BUFFER_POOL", {}).get("ingress_lossless_pool", {}).get("xoff", 0) or 0)
    ratio = parameters.get("over_subscribe_ratio")
    settings.shared_headroom_pool = bool(pool_xoff) or bool(ratio and int(ratio))
    settings.over_subscribe_ratio = int(ratio) if ratio else None


def parse_file(path: str, name: str, hint: DevicePlan | None = None) -> DevicePlan:
    return parse(read_config(path), path, name, hint)
