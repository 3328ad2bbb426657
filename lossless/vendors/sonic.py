"""SONiC: a config_db.json fragment with the QoS and buffer tables
(docs/reference/sonic.md section 4).

Values are strings, as config_db.json stores them. The fragment holds what lossless owns:
maps, PORT_QOS_MAP, schedulers, WRED, queues, lossless buffer profiles and PGs, cable
lengths, PFC watchdog, port MTU and speed. Pools, lossy profiles and port lanes stay the
device's (the buffer templates of every SKU define ingress_lossless_pool,
egress_lossless_profile and egress_lossy_profile).
"""

from __future__ import annotations

import json
from typing import Any

from lossless.plan import DevicePlan, FabricPlan, PortPlan
from lossless.units import whole_metres
from lossless.vendors.common import expressed_facts
from lossless.vendors.sonic_parse import parse, parse_file  # noqa: F401  (this OS's parser)

TEMPLATE = "sonic/config_db.json.j2"
EXTENSION = "json"
MAP_NAME = "ROCE"
LOSSLESS_POOL = "ingress_lossless_pool"
EGRESS_LOSSLESS_PROFILE = "egress_lossless_profile"
EGRESS_LOSSY_PROFILE = "egress_lossy_profile"
DEFAULT_PORT_MTU = 9100
# Mellanox and Barefoot SONiC map PFC priority to PG explicitly (docs/reference/sonic.md 4).
PFC_TO_PG_VENDORS = {"nvidia", "sonic"}


def scheduler_name(traffic: str) -> str:
    return f"scheduler.{traffic}"


def wred_profile_name(min_bytes: int, max_bytes: int, probability: int) -> str:
    return f"ROCE_{min_bytes}_{max_bytes}_P{probability}"


def buffer_profile_name(port: PortPlan) -> str:
    """SONiC's own naming (buffermgrdyn getDynamicProfileName): pg_lossless_<speed>_<cable>m
    [_mtu<mtu>][_8lane]_profile."""
    cable = whole_metres(port.cable_m or 0)
    name = f"pg_lossless_{port.speed_mbps}_{cable}m"
    if port.mtu != DEFAULT_PORT_MTU:
        name += f"_mtu{port.mtu}"
    if port.lanes == 8:
        name += "_8lane"
    return name + "_profile"


def _map(mapping: dict[int, int]) -> dict[str, str]:
    return {str(k): str(v) for k, v in sorted(mapping.items())}


def _queue_range(queues: list[int]) -> str:
    return "-".join(str(q) for q in sorted({min(queues), max(queues)}))


def config_db(device: DevicePlan, fabric: FabricPlan) -> dict[str, Any]:
    lossless_ports = [p for p in device.ports.values() if p.lossless]
    priorities = ",".join(str(p) for p in device.lossless_priorities)
    tables: dict[str, Any] = {
        "PORT": {
            p.name: {"mtu": str(p.mtu), "speed": str(p.speed_mbps)} for p in device.ports.values()
        },
        "CABLE_LENGTH": {
            "AZURE": {p.name: f"{whole_metres(p.cable_m or 0)}m" for p in lossless_ports}
        },
        "DSCP_TO_TC_MAP": {MAP_NAME: _map(device.maps.dscp_to_tc)},
        "TC_TO_QUEUE_MAP": {MAP_NAME: _map(device.maps.tc_to_queue)},
        "TC_TO_PRIORITY_GROUP_MAP": {MAP_NAME: _map(device.maps.tc_to_pg)},
        "MAP_PFC_PRIORITY_TO_QUEUE": {MAP_NAME: _map(device.maps.pfc_priority_to_queue)},
        "SCHEDULER": {},
        "WRED_PROFILE": {},
        "QUEUE": {},
        "BUFFER_PROFILE": {},
        "BUFFER_PG": {},
        "BUFFER_QUEUE": {},
        "PORT_QOS_MAP": {"global": {"dscp_to_tc_map": MAP_NAME}},
        "PFC_WD": {},
    }
    pfc_to_pg = device_uses_pfc_to_pg(device)
    if pfc_to_pg:
        tables["PFC_PRIORITY_TO_PRIORITY_GROUP_MAP"] = {
            MAP_NAME: {str(p): str(device.maps.tc_to_pg[p]) for p in device.lossless_priorities}
        }
    for queue in device.queues:
        entry = (
            {"type": "STRICT"}
            if queue.scheduler == "strict"
            else {"type": "DWRR", "weight": str(queue.weight)}
        )
        tables["SCHEDULER"][scheduler_name(queue.traffic)] = entry
    for port in device.ports.values():
        _port_tables(tables, device, port, pfc_to_pg, priorities)
    if device.watchdog.enabled and lossless_ports:
        tables["PFC_WD"]["GLOBAL"] = {"POLL_INTERVAL": str(device.watchdog.poll_ms)}
    settings = device.headroom_settings
    tables["LOSSLESS_TRAFFIC_PATTERN"] = {
        "AZURE": {
            "mtu": str(settings.lossless_mtu),
            "small_packet_percentage": str(settings.small_packet_percent),
        }
    }
    parameters = {"default_dynamic_th": str(settings.dynamic_th)}
    if settings.shared_headroom_pool:
        parameters["over_subscribe_ratio"] = str(device.budget.over_subscribe_ratio)
        tables["BUFFER_POOL"] = {
            LOSSLESS_POOL: {
                "type": "ingress",
                "mode": "dynamic",
                "xoff": str(device.budget.shared_headroom_pool_bytes),
            }
        }
    tables["DEFAULT_LOSSLESS_BUFFER_PARAMETER"] = {"AZURE": parameters}
    return {name: table for name, table in sorted(tables.items()) if table}


def device_uses_pfc_to_pg(device: DevicePlan) -> bool:
    return device.asic.startswith(("spectrum", "sonic-vs"))


def _port_tables(
    tables: dict[str, Any], device: DevicePlan, port: PortPlan, pfc_to_pg: bool, priorities: str
) -> None:
    if not port.lossless:
        return
    name = port.name
    qos = {
        "dscp_to_tc_map": MAP_NAME,
        "tc_to_queue_map": MAP_NAME,
        "tc_to_pg_map": MAP_NAME,
        "pfc_to_queue_map": MAP_NAME,
        "pfc_enable": priorities,
    }
    if pfc_to_pg:
        qos["pfc_to_pg_map"] = MAP_NAME
    if port.watchdog and port.watchdog.enabled:
        qos["pfcwd_sw_enable"] = priorities
        tables["PFC_WD"][name] = {
            "action": port.watchdog.action,
            "detection_time": str(port.watchdog.detection_ms),
            "restoration_time": str(port.watchdog.restoration_ms),
        }
    tables["PORT_QOS_MAP"][name] = qos
    for queue in device.queues:
        entry = {"scheduler": scheduler_name(queue.traffic)}
        for ecn in port.ecn:
            if ecn.queue == queue.queue:
                profile = wred_profile_name(ecn.min_bytes, ecn.max_bytes, ecn.probability_percent)
                entry["wred_profile"] = profile
                tables["WRED_PROFILE"][profile] = _wred(
                    ecn.min_bytes, ecn.max_bytes, ecn.probability_percent
                )
        tables["QUEUE"][f"{name}|{queue.queue}"] = entry
    for headroom in port.headroom:
        profile = buffer_profile_name(port)
        tables["BUFFER_PROFILE"][profile] = {
            "pool": LOSSLESS_POOL,
            "xon": str(headroom.xon),
            "xoff": str(headroom.xoff),
            "size": str(headroom.size),
            "dynamic_th": str(device.headroom_settings.dynamic_th),
        }
        tables["BUFFER_PG"][f"{name}|{headroom.priority_group}"] = {"profile": profile}
    lossless_queues = [q.queue for q in device.queues if q.lossless]
    if lossless_queues:
        tables["BUFFER_QUEUE"][f"{name}|{_queue_range(lossless_queues)}"] = {
            "profile": EGRESS_LOSSLESS_PROFILE
        }


def _wred(min_bytes: int, max_bytes: int, probability: int) -> dict[str, str]:
    entry = {"ecn": "ecn_all"}
    for colour in ("green", "yellow", "red"):
        entry[f"wred_{colour}_enable"] = "true"
        entry[f"{colour}_min_threshold"] = str(min_bytes)
        entry[f"{colour}_max_threshold"] = str(max_bytes)
        entry[f"{colour}_drop_probability"] = str(probability)
    return entry


def context(device: DevicePlan, fabric: FabricPlan) -> dict[str, Any]:
    return {"config_db_json": json.dumps(config_db(device, fabric), indent=4, sort_keys=True)}


def expressed(device: DevicePlan) -> dict[str, Any]:
    """What a config_db fragment says about a device (compared on for round trip and drift)."""
    return expressed_facts(
        device,
        (
            "speed_mbps",
            "mtu",
            "lossless",
            "pfc_priorities",
            "cable_m",
            "headroom",
            "ecn",
            "watchdog",
        ),
        (
            "dscp_to_tc",
            "tc_to_queue",
            "tc_to_pg",
            "pfc_priority_to_queue",
            "queues",
            "lossless_priorities",
            "roce",
            "cnp",
            "watchdog_poll_ms",
            "headroom_settings",
        ),
    )


# Plan values this fragment does not render yet (vendors/__init__.py PLAN_VALUES).
NOT_EXPRESSED = {
    "ecmp.seed": "ECMP hashing lives in SONiC's SWITCH_HASH / switch.json, not rendered yet",
    "ecmp.hash_offset": "ECMP hashing lives in SONiC's SWITCH_HASH / switch.json, not rendered yet",
    "ecmp.hash_fields": "ECMP hashing lives in SONiC's SWITCH_HASH / switch.json, not rendered yet",
    "ecmp.resilient": "not rendered yet",
}

DIFF_KIND = "json-patch"
OWNED_PORT_FIELDS = ("mtu", "speed")
# Tables keyed by port ("Ethernet0" or "Ethernet0|3"): every entry of our ports is ours.
PORT_KEYED = ("PORT_QOS_MAP", "QUEUE", "BUFFER_PG", "BUFFER_QUEUE", "PFC_WD")


def diff(running: str, intended: str) -> list[dict[str, Any]]:
    """RFC 6902 JSON patch (what `config apply-patch` takes) from a running config_db.json to
    the intended fragment, over what lossless owns: our entries of named tables (never other
    profiles or maps), every entry of our ports in port-keyed tables, our ports' cable
    lengths, and only mtu and speed of PORT."""
    import jsonpatch

    current, wanted = json.loads(running), json.loads(intended)
    ports = set(wanted.get("PORT", {}))
    scoped: dict[str, Any] = {}
    for table, entries in wanted.items():
        have = current.get(table, {})
        if table == "PORT":
            scoped[table] = {
                key: {f: v for f, v in have[key].items() if f in OWNED_PORT_FIELDS}
                for key in entries
                if key in have
            }
        elif table == "CABLE_LENGTH":
            scoped[table] = {
                key: {p: v for p, v in have.get(key, {}).items() if p in ports}
                for key in entries
                if key in have
            }
        elif table in PORT_KEYED:
            scoped[table] = {
                key: fields
                for key, fields in have.items()
                if key in entries or key.split("|")[0] in ports
            }
        else:
            scoped[table] = {key: fields for key, fields in have.items() if key in entries}
        if table not in current:
            del scoped[table]
    return list(jsonpatch.make_patch(scoped, wanted))
