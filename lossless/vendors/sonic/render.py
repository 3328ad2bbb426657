"""SONiC: a config_db.json fragment with the QoS, buffer and hash tables lossless owns
(docs/reference/sonic.md section 4; pinned snapshots `bi:` sonic-buildimage, `swss:` sonic-swss).

Values are strings, as config_db.json stores them. Pools, lossy profiles, the lossy PG 0,
lossy queues' buffers and port lanes stay the device's (the buffer templates of every SKU
define ingress_lossless_pool, egress_lossless_profile and egress_lossy_profile). Why each
table is what it is (docs/vendors/sonic.md has the long form):

* DEVICE_METADATA|localhost buffer_model: the buffer model the fragment is written for
  (platform.buffer_model); `diff` refuses a switch running the other model.
* DSCP_TO_TC_MAP: all 64 DSCPs, so nothing is left to the SAI default (a DSCP missing from a
  bound map goes to the port's default TC 0, SAI_PORT_ATTR_QOS_DEFAULT_TC).
* BUFFER_PG of a lossless PG (one key per run of PGs, `Ethernet0|3-4`, as buffermgrd writes):
  - dynamic model: profile "NULL": buffermgrd computes the headroom from speed, cable length,
    MTU and lanes with the formula the plan uses (docs/reference/sonic.md 1, byte-exact on
    Spectrum), so
    the fragment holds CABLE_LENGTH, LOSSLESS_TRAFFIC_PATTERN and
    DEFAULT_LOSSLESS_BUFFER_PARAMETER instead of bytes. With `policy.headroom.override` the
    plan's bytes go into a static profile named `lossless_override_...`, a name buffermgrd
    never generates (`swss:cfgmgr/buffermgrdyn.cpp` getDynamicProfileName makes
    pg_lossless_<speed>_<cable>..._profile), so it cannot collide with its own profiles;
    buffermgrdyn takes a non-NULL profile as a headroom override (doUpdateBufferPgTask).
  - traditional model: the profile is named pg_lossless_<speed>_<cable>_profile, the name
    buffermgrd gives the port (`swss:cfgmgr/buffermgr.cpp` doSpeedUpdateTask), because it
    reuses an existing profile of that name and rewrites the PG to its own otherwise. Ports
    sharing the name get the largest headroom of them. On Broadcom the profile is in the
    vendor's form (platform.broadcom_form).
* SWITCH_HASH|GLOBAL ecmp_hash: the plan's hash fields (sonic-hash.yang; switchorch's
  generic hash, `swss:orchagent/switchorch.cpp`: SONiC 202311 and later; IPV6_FLOW_LABEL
  202505 and later). Seed, offset and resilient hashing are not CONFIG_DB settings in any
  release (NOT_EXPRESSED: SEED_REASON).
"""

from __future__ import annotations

from typing import Any

from lossless.plan import (
    HEADROOM_BY_SWITCH,
    HEADROOM_FROM_CONFIG,
    DevicePlan,
    FabricPlan,
    PortPlan,
    replaced,
    shared_parts,
)
from lossless.text.units import whole_metres
from lossless.vendors.facts import expressed_facts
from lossless.vendors.sonic import buffer_terms
from lossless.vendors.sonic.buffer_terms import (
    LOSSLESS_POOL,
    profile_text,
    shared_headroom_pool,
)
from lossless.vendors.sonic.device_type import TIER_TYPE, tier_seed
from lossless.vendors.sonic.platform import (
    DYNAMIC,
    broadcom_form,
    broadcom_pg_minimum,
    buffer_model,
    headroom_from_profile,
)
from lossless.vendors.vendor import NotExpressed

TEMPLATE = "sonic/config_db.json.j2"
EXTENSION = "json"
MAP_NAME = "ROCE"
EGRESS_LOSSLESS_PROFILE = "egress_lossless_profile"
NULL_PROFILE = "NULL"
# Cable lengths every pg_profile_lookup.ini of sonic-buildimage has a row for
# (docs/reference/sonic.md 3:
# the TH, TD2, TD3, TH3 and Spectrum tables list 5m, 40m and 300m).
TABLE_CABLE_ROWS = (5, 40, 300)
# Inventory hash field -> SONiC's (sonic-hash.yang): what the renderer writes and the parser
# reads back.
HASH_FIELDS: dict[str, tuple[str, ...]] = {
    "src-ip": ("SRC_IP",),
    "dst-ip": ("DST_IP",),
    "ip-protocol": ("IP_PROTOCOL",),
    "src-port": ("L4_SRC_PORT",),
    "dst-port": ("L4_DST_PORT",),
    "ipv6-flow-label": ("IPV6_FLOW_LABEL",),
    "ingress-interface": ("IN_PORT",),
    "inner-headers": (
        "INNER_SRC_IP",
        "INNER_DST_IP",
        "INNER_IP_PROTOCOL",
        "INNER_L4_SRC_PORT",
        "INNER_L4_DST_PORT",
    ),
}


def scheduler_name(traffic: str) -> str:
    return f"scheduler.{traffic}"


def wred_profile_name(min_bytes: int, max_bytes: int, probability: int) -> str:
    return f"ROCE_{min_bytes}_{max_bytes}_P{probability}"


def renders_null(device: DevicePlan) -> bool:
    """Lossless PGs left to the switch: dynamic buffer model and no override."""
    return buffer_model(device.asic) == DYNAMIC and not device.headroom_settings.override


def buffer_profile_name(device: DevicePlan, port: PortPlan) -> str:
    cable = f"{whole_metres(port.cable_m or 0)}m"
    if buffer_model(device.asic) != DYNAMIC:
        return f"pg_lossless_{port.speed_mbps}_{cable}_profile"  # buffermgr.cpp's own name
    name = f"lossless_override_{port.speed_mbps}_{cable}_mtu{port.mtu}_{port.lanes}lane"
    if device.headroom_settings.gearbox_delay_ns:
        name += f"_gearbox{device.headroom_settings.gearbox_delay_ns:g}ns"
    return name


def lossless_profiles(device: DevicePlan) -> dict[str, dict[str, str]]:
    """Profile name -> fields of the static lossless profiles the device gets (none when the
    switch sizes headroom); ports sharing a name get the largest headroom of them."""
    if renders_null(device):
        return {}
    largest: dict[str, tuple[int, int, int]] = {}
    minimums: dict[str, int] = {}  # Broadcom form: the profile's guaranteed minimum
    broadcom = broadcom_form(device.asic)
    for port in device.ports.values():
        for h in port.headroom if port.lossless else []:
            name = buffer_profile_name(device, port)
            xon, xoff, size = largest.get(name, (h.xon, h.xoff, h.size))
            largest[name] = (max(xon, h.xon), max(xoff, h.xoff), max(size, h.size))
            if broadcom:
                cable = whole_metres(port.cable_m or 0)
                minimum = broadcom_pg_minimum(device.asic, port.mtu, port.speed_mbps, cable)
                minimums[name] = max(minimums.get(name, 0), minimum)
    threshold = str(device.headroom_settings.dynamic_th)
    profiles = {}
    for name, (xon, xoff, size) in largest.items():
        if broadcom:
            fields = {
                "pool": LOSSLESS_POOL,
                "size": str(minimums[name]),
                "xon": "0",
                "xoff": str(xoff),
                "xon_offset": str(xon),
                "dynamic_th": threshold,
            }
        else:
            fields = {
                "pool": LOSSLESS_POOL,
                "xon": str(xon),
                "xoff": str(xoff),
                "size": str(size),
                "dynamic_th": threshold,
            }
        profiles[name] = fields
    return profiles


def _pg_runs(pgs: list[int]) -> list[str]:
    """[3, 4, 6] -> ['3-4', '6']: buffermgrd's keys for runs of lossless PGs."""
    runs: list[list[int]] = []
    for pg in sorted(set(pgs)):
        if runs and pg == runs[-1][-1] + 1:
            runs[-1].append(pg)
        else:
            runs.append([pg])
    return [str(r[0]) if len(r) == 1 else f"{r[0]}-{r[-1]}" for r in runs]


def _map(mapping: dict[int, int]) -> dict[str, str]:
    return {str(k): str(v) for k, v in sorted(mapping.items())}


def _queue_range(queues: list[int]) -> str:
    return "-".join(str(q) for q in sorted({min(queues), max(queues)}))


def _device_metadata(device: DevicePlan) -> dict[str, str]:
    """The buffer model, and the tier's type where lossless owns it (device_type.py: the
    ECMP hash seed orchagent derives from it)."""
    metadata = {"buffer_model": buffer_model(device.asic)}
    if device.tier_type:
        metadata["type"] = TIER_TYPE[device.role]
    return metadata


def as_rendered(device: DevicePlan) -> DevicePlan:
    """The device's plan in SONiC's terms: its ECMP seed is the one orchagent derives from the
    tier's DEVICE_METADATA type where lossless owns it, else unknown (the switch's own type
    decides; the plan's per-switch seed is never in CONFIG_DB)."""
    owned = device.tier_type
    seed = tier_seed(device.role) if owned else None
    source = f"DEVICE_METADATA type {TIER_TYPE[device.role]}" if owned else "not owned"
    return replaced(device, ecmp=replaced(device.ecmp, seed=seed, seed_source=source))


def config_db(device: DevicePlan, fabric: FabricPlan) -> dict[str, Any]:
    lossless_ports = [p for p in device.ports.values() if p.lossless]
    dynamic = buffer_model(device.asic) == DYNAMIC
    tables: dict[str, Any] = {
        "DEVICE_METADATA": {"localhost": _device_metadata(device)},
        "PORT": _port_table(device),
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
        "BUFFER_PROFILE": lossless_profiles(device),
        "BUFFER_PG": {},
        "BUFFER_QUEUE": {},
        "PORT_QOS_MAP": {"global": {"dscp_to_tc_map": MAP_NAME}},
        "PFC_WD": {},
    }
    if device.ecmp.hash_fields:
        tables["SWITCH_HASH"] = {
            "GLOBAL": {"ecmp_hash": [f for h in device.ecmp.hash_fields for f in HASH_FIELDS[h]]}
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
    port_entries = _PortEntries(tables, device, pfc_to_pg)
    for port in lossless_ports:
        port_entries.add(port)
    if device.watchdog.enabled and lossless_ports:
        tables["PFC_WD"]["GLOBAL"] = {"POLL_INTERVAL": str(device.watchdog.poll_ms)}
    settings = device.headroom_settings
    if dynamic:  # the inputs of buffermgrd's headroom formula (docs/reference/sonic.md 1.2)
        tables["LOSSLESS_TRAFFIC_PATTERN"] = {
            "AZURE": {
                "mtu": str(settings.lossless_mtu),
                "small_packet_percentage": str(settings.small_packet_percent),
            }
        }
        parameters = {"default_dynamic_th": str(settings.dynamic_th)}
        if settings.shared_headroom_pool:
            parameters["over_subscribe_ratio"] = str(device.budget.over_subscribe_ratio)
        tables["DEFAULT_LOSSLESS_BUFFER_PARAMETER"] = {"AZURE": parameters}
    if settings.shared_headroom_pool:
        tables["BUFFER_POOL"] = {
            LOSSLESS_POOL: {
                "type": "ingress",
                "mode": "dynamic",
                "xoff": str(device.budget.shared_headroom_pool_bytes),
            }
        }
    return {name: table for name, table in sorted(tables.items()) if table}


def _port_table(device: DevicePlan) -> dict[str, dict[str, str]]:
    """PORT: MTU and speed of every port (ports alike share one entry)."""
    entries: dict[tuple[int, int], dict[str, str]] = {}
    table = {}
    for port in device.ports.values():
        key = (port.mtu, port.speed_mbps)
        if key not in entries:
            entries[key] = {"mtu": str(port.mtu), "speed": str(port.speed_mbps)}
        table[port.name] = entries[key]
    return table


def device_uses_pfc_to_pg(device: DevicePlan) -> bool:
    return device.asic.startswith(("spectrum", "sonic-vs"))


class _PortEntries:
    """Each lossless port's entries in the device's tables. Ports alike (same watchdog, ECN,
    PGs and buffer profile) get the same entries under their own keys: the entries are
    worked out once per kind of port, as (table, key suffix, entry) to add, and are one
    object each (json_text.dumps_tables writes a shared entry once)."""

    def __init__(self, tables: dict[str, Any], device: DevicePlan, pfc_to_pg: bool):
        self.tables, self.device, self.pfc_to_pg = tables, device, pfc_to_pg
        self.priorities = ",".join(str(p) for p in device.lossless_priorities)
        self.null = renders_null(device)
        self.kinds: dict[tuple, list[tuple[str, str, Any]]] = {}
        # the same entries by what the port's plan is made of (plan.shared_parts, and what
        # the buffer profile's name says), which finds most ports' entries fast
        self.by_parts: dict[tuple, list[tuple[str, str, Any]]] = {}

    def add(self, port: PortPlan) -> None:
        parts = (shared_parts(port), port.cable_m, port.speed_mbps, port.mtu, port.lanes)
        entries = self.by_parts.get(parts)
        if entries is None:
            entries = self.by_parts[parts] = self._entries_of(port)
        for table, suffix, entry in entries:
            self.tables[table][port.name + suffix] = entry

    def _entries_of(self, port: PortPlan) -> list[tuple[str, str, Any]]:
        watchdog = port.watchdog if port.watchdog and port.watchdog.enabled else None
        kind = (
            None
            if watchdog is None
            else (watchdog.action, watchdog.detection_ms, watchdog.restoration_ms),
            tuple((e.queue, e.min_bytes, e.max_bytes, e.probability_percent) for e in port.ecn),
            tuple(h.priority_group for h in port.headroom),
            None if self.null or not port.headroom else buffer_profile_name(self.device, port),
        )
        entries = self.kinds.get(kind)
        if entries is None:
            entries = self.kinds[kind] = self._entries(*kind)
        return entries

    def _entries(
        self,
        watchdog: tuple[str, int, int] | None,
        ecn: tuple[tuple[int, int, int, int], ...],
        pgs: tuple[int, ...],
        profile: str | None,
    ) -> list[tuple[str, str, Any]]:
        qos = {
            "dscp_to_tc_map": MAP_NAME,
            "tc_to_queue_map": MAP_NAME,
            "tc_to_pg_map": MAP_NAME,
            "pfc_to_queue_map": MAP_NAME,
            "pfc_enable": self.priorities,
        }
        if self.pfc_to_pg:
            qos["pfc_to_pg_map"] = MAP_NAME
        entries: list[tuple[str, str, Any]] = []
        if watchdog is not None:
            qos["pfcwd_sw_enable"] = self.priorities
            action, detection_ms, restoration_ms = watchdog
            entries.append(
                (
                    "PFC_WD",
                    "",
                    {
                        "action": action,
                        "detection_time": str(detection_ms),
                        "restoration_time": str(restoration_ms),
                    },
                )
            )
        entries.append(("PORT_QOS_MAP", "", qos))
        for queue in self.device.queues:
            entry = {"scheduler": scheduler_name(queue.traffic)}
            for number, low, high, probability in ecn:
                if number == queue.queue:
                    wred = wred_profile_name(low, high, probability)
                    entry["wred_profile"] = wred
                    self.tables["WRED_PROFILE"][wred] = _wred(low, high, probability)
            entries.append(("QUEUE", f"|{queue.queue}", entry))
        if pgs:
            buffer_pg = {"profile": NULL_PROFILE if profile is None else profile}
            entries += [("BUFFER_PG", f"|{run}", buffer_pg) for run in _pg_runs(list(pgs))]
        lossless_queues = [q.queue for q in self.device.queues if q.lossless]
        if lossless_queues:
            entries.append(
                (
                    "BUFFER_QUEUE",
                    f"|{_queue_range(lossless_queues)}",
                    {"profile": EGRESS_LOSSLESS_PROFILE},
                )
            )
        return entries


def _wred(min_bytes: int, max_bytes: int, probability: int) -> dict[str, str]:
    entry = {"ecn": "ecn_all"}
    for colour in ("green", "yellow", "red"):
        entry[f"wred_{colour}_enable"] = "true"
        entry[f"{colour}_min_threshold"] = str(min_bytes)
        entry[f"{colour}_max_threshold"] = str(max_bytes)
        entry[f"{colour}_drop_probability"] = str(probability)
    return entry


def context(device: DevicePlan, fabric: FabricPlan) -> dict[str, Any]:
    """The tables; the template writes them as config_db.json does (the json_tables filter)."""
    return {"config_db": config_db(device, fabric)}


def expressed(device: DevicePlan) -> dict[str, Any]:
    """What a config_db fragment says about a device (compared on for round trip and drift).

    A planned PG's headroom is compared as the fragment states it: sized by the switch
    (profile NULL), or the values of the profile the port shares."""
    facts = expressed_facts(
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
            "ecmp_hash_fields",
            "ecmp_udp_source_port",
        ),
    )
    _buffer_facts(device, facts)
    seed = device.ecmp.seed if device.from_config else as_rendered(device).ecmp.seed
    if seed is not None:  # the tier type's seed, where a plan owns it or a config says
        facts["ecmp_seed"] = seed
    profiles: dict[str, dict[str, str]] | None = None
    stated: list[tuple[int, int | None, int | None, int | None]]
    for port in device.ports.values():
        if not port.headroom or any(
            h.model in (HEADROOM_FROM_CONFIG, HEADROOM_BY_SWITCH) for h in port.headroom
        ):
            continue  # read from a config: already as the config states it
        if renders_null(device):
            stated = [(h.priority_group, None, None, None) for h in port.headroom]
        else:
            if profiles is None:
                profiles = lossless_profiles(device)
            fields = profiles[buffer_profile_name(device, port)]
            values = headroom_from_profile(
                {
                    f: int(v)
                    for f, v in fields.items()
                    if f in ("xon", "xoff", "size", "xon_offset")
                },
                broadcom_form(device.asic),
                device.headroom_settings.shared_headroom_pool,
            )
            stated = [(h.priority_group, *values) for h in port.headroom]
        facts["ports"][port.name]["headroom"] = sorted(stated)
    return facts


def _pfc_to_pg_judged(
    mapping: dict[int, int], lossless: list[int], tc_to_pg: dict[int, int]
) -> dict[int, int | None]:
    """The PFC priority to PG map where it acts on lossless traffic: the PG of each lossless
    priority (None: the map has none for it), and every priority the map gives a lossless PG
    (the PGs that fill with lossless traffic and pause)."""
    pgs = {tc_to_pg.get(p, 0) for p in lossless}
    judged: dict[int, int | None] = {p: mapping.get(p) for p in lossless}
    judged.update({p: pg for p, pg in mapping.items() if pg in pgs})
    return judged


def _lossless_queues(device: DevicePlan) -> set[int]:
    """The queues PFC pauses: each lossless priority's (MAP_PFC_PRIORITY_TO_QUEUE)."""
    mapping = device.maps.pfc_priority_to_queue
    return {mapping.get(p, p) for p in device.lossless_priorities}


def _buffer_facts(device: DevicePlan, facts: dict[str, Any]) -> None:
    """What SONiC's buffer tables state beyond the plan's neutral facts: which PG's fill
    pauses which priority (NVIDIA Spectrum and the VS only: Broadcom SAI does not support the
    map, and SONiC renders it for mellanox and barefoot, bi:files/build_templates/
    qos_config.j2), the lossless queues' egress profile, the lossless PGs' static profiles
    and ingress_lossless_pool. A parsed config states them (DevicePlan.stated and
    PortPlan.stated, as the parser read them); a plan's are what render writes."""
    parsed = device.from_config
    # a config whose hardware is not known says it is for such an ASIC by binding the map
    if device_uses_pfc_to_pg(device) or (parsed and device.stated.get("pfc_priority_to_pg")):
        mapping = (
            device.stated.get("pfc_priority_to_pg", {})
            if parsed
            else {p: device.maps.tc_to_pg[p] for p in device.lossless_priorities}
        )
        facts["pfc_priority_to_pg"] = _pfc_to_pg_judged(
            mapping, device.lossless_priorities, device.maps.tc_to_pg
        )
    settings = device.headroom_settings
    if parsed:
        facts["shared_headroom_pool"] = device.stated.get("shared_headroom_pool", "off")
        if "headroom_settings" in device.stated:  # dynamic model: what the config leaves out
            facts["headroom_settings"] = device.stated["headroom_settings"]
    else:
        dynamic = buffer_model(device.asic) == DYNAMIC
        facts["shared_headroom_pool"] = (
            shared_headroom_pool(
                device.budget.shared_headroom_pool_bytes,
                device.budget.over_subscribe_ratio if dynamic else None,
            )
            if settings.shared_headroom_pool
            else "off"
        )
    # the shared headroom pool is its own fact here (shared_headroom_pool): one finding
    mtu, small, _, dynamic_th = facts["headroom_settings"]
    facts["headroom_settings"] = (mtu, small, None, dynamic_th)
    profiles = None if parsed or renders_null(device) else lossless_profiles(device)
    broadcom = broadcom_form(device.asic)
    # the lossless queues on egress_lossless_profile (another queue on it carries nothing
    # lossless and is not judged): all of them where the plan renders the BUFFER_QUEUE entry
    lossless = _lossless_queues(device)
    for port in device.ports.values():
        entry = facts["ports"][port.name]
        if parsed:
            egress = port.stated.get("egress_lossless_queues", [])
            entry["egress_lossless_queues"] = (
                sorted(lossless & set(egress)) if port.lossless else None
            )
            entry["lossless_profile"] = port.stated.get("lossless_profile")
            continue
        entry["egress_lossless_queues"] = sorted(lossless) if port.lossless else None
        entry["lossless_profile"] = None
        if profiles is not None and port.lossless and port.headroom:
            text = profile_text(profiles[buffer_profile_name(device, port)], broadcom)
            entry["lossless_profile"] = {h.priority_group: text for h in port.headroom}


# What a difference in a buffer fact does on the switch (VENDOR.consequences, said by drift)
CONSEQUENCES = buffer_terms.CONSEQUENCES


def _switch_table_reason(field: str, values: str) -> str:
    return (
        f"SONiC takes {field} only from APPL_DB SWITCH_TABLE:switch, which swssconfig loads at "
        "swss start from switch.json, rendered by switch.json.j2 from DEVICE_METADATA type "
        f"({values}) (bi:dockers/docker-orchagent/switch.json.j2; orchagent reads it from "
        "APP_SWITCH_TABLE only: swss:orchagent/orchdaemon.cpp, switchorch.cpp). CONFIG_DB's "
        "SWITCH_HASH|GLOBAL has ecmp_hash and lag_hash (SONiC 202311 and later) and "
        "ecmp_hash_algorithm and lag_hash_algorithm, but no seed or offset in any release "
        "(bi:src/sonic-yang-models/yang-models/sonic-hash.yang, 202305 to 086b03bd)"
    )


SEED_REASON = _switch_table_reason(
    "ecmp_hash_seed",
    "ToRRouter 0, LeafRouter 10, SpineRouter 25, FabricSpineRouter 40, UpperSpineRouter 50, "
    "plus DEVICE_METADATA namespace_id",
)
NOT_EXPRESSED: dict[str, NotExpressed] = {
    "ecmp.seed": SEED_REASON,
    "ecmp.hash_offset": _switch_table_reason("ecmp_hash_offset", "LeafRouter 10, others 0"),
    "ecmp.resilient": (
        "SONiC has no switch-wide resilient ECMP hashing in CONFIG_DB (only fine-grained ECMP "
        "groups, FG_NHG, for listed prefixes: swss:orchagent/fgnhgorch.cpp)"
    ),
    "headroom.bytes": lambda device: (
        "the switch computes it (dynamic buffer model, BUFFER_PG profile NULL) with the "
        "formula the plan uses (docs/reference/sonic.md 1); policy.headroom.override renders "
        "the plan's bytes"
        if renders_null(device)
        else None
    ),
    "headroom.cable_rows": lambda device: _cable_rows_note(device),
}


def _cable_rows_note(device: DevicePlan) -> str | None:
    """On a traditional-model switch buffermgrd looks CABLE_LENGTH up in the SKU's
    pg_profile_lookup.ini; a length with no row logs an error on every port event (it then
    leaves the rendered profile in place: buffermgr.cpp doSpeedUpdateTask)."""
    if buffer_model(device.asic) == DYNAMIC:
        return None
    lengths = sorted(
        {
            whole_metres(p.cable_m or 0)
            for p in device.ports.values()
            if p.lossless and whole_metres(p.cable_m or 0) not in TABLE_CABLE_ROWS
        }
    )
    if not lengths:
        return None
    shown = ", ".join(f"{m}m" for m in lengths)
    return (
        f"CABLE_LENGTH {shown}: pg_profile_lookup.ini tables have rows for 5m, 40m and 300m; "
        "buffermgrd logs 'No PG profile configured for speed ... and cable length ...' for "
        "these ports and keeps the rendered profile (swss:cfgmgr/buffermgr.cpp)"
    )
