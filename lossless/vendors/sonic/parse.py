"""Read a SONiC config_db.json (ours, a hand-edited one, or a switch's full running config)
back into a DevicePlan, with the file:line of every fact read.

Only what is bound counts: maps through a port's PORT_QOS_MAP (the DSCP map also through
`global`), schedulers and WRED profiles through QUEUE, buffer profiles through BUFFER_PG.
Every table keyed by port is indexed by port once, so reading is linear in ports. Keys in
the older forms are read too: comma-joined ports (`Ethernet0,Ethernet4|3-4`), index ranges
and references written `[BUFFER_PROFILE|name]`.

What the config leaves out takes SONiC's default (sources in docs/vendors/sonic.md):
* a DSCP no bound map lists, or every DSCP when no map is bound: TC 0, the port's default TC
  (SAI_PORT_ATTR_QOS_DEFAULT_TC, default 0, SAI inc/saiport.h; qosorch.cpp hands SAI only
  the listed entries); TC to queue and PFC priority to queue: identity; TC to PG: PG 0;
* port MTU 9100 (swss DEFAULT_MTU, docs/reference/sonic.md 4);
* PFC watchdog: only the priorities in `pfcwd_sw_enable` are watched
  (swss:orchagent/pfcwdorch.cpp getLosslessTcsForPort), poll interval 100 ms without
  PFC_WD|GLOBAL (swss:orchagent/orchdaemon.cpp PFC_WD_POLL_MSECS), action drop
  (pfcwdorch.cpp);
* buffer model traditional without DEVICE_METADATA buffer_model (buffermgrd.sh starts the
  dynamic mode only for "dynamic");
* a SCHEDULER without `type`: SAI's default, SAI_SCHEDULING_TYPE_WRR (qosorch.cpp sets the
  type only where stated; saischeduler.h);
* a lossless profile's `xon`: 0 (SAI_BUFFER_PROFILE_ATTR_XON_TH default); its pool, size and
  threshold, and ingress_lossless_pool's type, have none (mandatory on create);
* on a dynamic-model switch, LOSSLESS_TRAFFIC_PATTERN mtu and small_packet_percentage and
  DEFAULT_LOSSLESS_BUFFER_PARAMETER default_dynamic_th have none either: without them
  buffermgrd sizes no lossless PG (read as not set, never the plan's).
A lossless PG whose profile is "NULL" (or a `headroom_type: dynamic` profile) on a
dynamic-model switch is sized by the switch (HEADROOM_BY_SWITCH); on a traditional switch a
NULL profile is a reference bufferorch cannot resolve: no headroom. ASIC from DEVICE_METADATA
platform/hwsku where known (platform.hardware_from_metadata), else the inventory's.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterator
from typing import Any

from lossless.plan import (
    HEADROOM_BY_SWITCH,
    HEADROOM_FROM_CONFIG,
    DevicePlan,
    EcmpPlan,
    EcnPlan,
    HeadroomPlan,
    PortPlan,
    QueuePlan,
    WatchdogPlan,
    replaced,
)
from lossless.system.files import read_config
from lossless.vendors.skeleton import (
    UNKNOWN,
    classify_traffic,
    learn_hardware,
    model_name,
    new_port,
    queue_plan,
    skeleton_device,
    unknown_hardware,
)
from lossless.vendors.sonic.buffer_terms import (
    LOSSLESS_POOL,
    profile_text,
    shared_headroom_pool,
)
from lossless.vendors.sonic.config_db import ConfigDb, load_config_db, reference
from lossless.vendors.sonic.device_type import SOURCE as SEED_SOURCE
from lossless.vendors.sonic.device_type import is_whole_config, seed_of
from lossless.vendors.sonic.platform import (
    DYNAMIC,
    asic_vendor,
    broadcom_form,
    hardware_from_metadata,
    headroom_from_profile,
)
from lossless.vendors.sonic.render import EGRESS_LOSSLESS_PROFILE, HASH_FIELDS

DEFAULT_MTU = 9100
DEFAULT_POLL_MS = 100
NULL_PROFILE = "NULL"
# Map bindings of PORT_QOS_MAP: plan attribute, map table, binding field, default.
MAPS = (
    ("dscp_to_tc", "DSCP_TO_TC_MAP", "dscp_to_tc_map", range(64), lambda k: 0),
    ("tc_to_queue", "TC_TO_QUEUE_MAP", "tc_to_queue_map", range(8), lambda k: k),
    ("tc_to_pg", "TC_TO_PRIORITY_GROUP_MAP", "tc_to_pg_map", range(8), lambda k: 0),
    (
        "pfc_priority_to_queue",
        "MAP_PFC_PRIORITY_TO_QUEUE",
        "pfc_to_queue_map",
        range(8),
        lambda k: k,
    ),
)
# PORT_QOS_MAP fields a lossless port binds like the first one's (MAPS, and the map of which
# PG's fill sends a pause on which priority, SAI_PORT_ATTR_QOS_PFC_PRIORITY_TO_PRIORITY_GROUP_MAP)
PFC_TO_PG = ("PFC_PRIORITY_TO_PRIORITY_GROUP_MAP", "pfc_to_pg_map")
# WRED_PROFILE `ecn` modes that mark green packets (sonic-yang sonic-wred-profile, SAI
# sai_ecn_mark_mode_t)
GREEN_ECN = ("ecn_green", "ecn_green_yellow", "ecn_green_red", "ecn_all")
_RANGE = re.compile(r"(\d{1,2})(?:-(\d{1,2}))?")


class _Keyed:
    """A table keyed by port ("Ethernet0", "Ethernet0,Ethernet4", "Ethernet0|3-4"), indexed
    by port once: port -> [(key, index part, fields)] in file order."""

    def __init__(self, db: ConfigDb, name: str):
        self.by_port: dict[str, list[tuple[str, str, dict[str, Any]]]] = {}
        for key, fields in db.table(name).items():
            ports, _, index = key.partition("|")
            for port in ports.split(","):
                self.by_port.setdefault(port, []).append((key, index, fields))

    def of(self, port: str) -> list[tuple[str, str, dict[str, Any]]]:
        return self.by_port.get(port, [])


class _Reader:
    def __init__(self, db: ConfigDb, name: str, hint: DevicePlan | None):
        self.db, self.hint = db, hint
        self.device = skeleton_device(name, "sonic", db.file, hint)
        metadata = db.table("DEVICE_METADATA").get("localhost", {})
        hardware = hardware_from_metadata(
            model_name(metadata.get("platform")), model_name(metadata.get("hwsku"))
        )
        if hardware is not None and self.device.asic == UNKNOWN:  # a config alone
            where = db.at("DEVICE_METADATA", "localhost", hardware.key)
            if hardware.match is not None:
                learn_hardware(self.device, hardware.match, hardware.name, where)
            else:  # named, but not a chip the catalogue has: said, not guessed at
                unknown_hardware(self.device, hardware.name, where, hardware.chip)
        elif hardware is not None and hardware.match is not None:
            self.device.asic = hardware.match.asic
        self.dscp_map: str | None = None  # the DSCP_TO_TC_MAP bound, for the class lines
        self.ratio_at = db.at("DEFAULT_LOSSLESS_BUFFER_PARAMETER")
        self.scope: list[PortPlan] = []  # the ports device-wide facts are read from
        self.dynamic = metadata.get("buffer_model") == DYNAMIC
        self.qos = _Keyed(db, "PORT_QOS_MAP")
        self.queues = _Keyed(db, "QUEUE")
        self.pgs = _Keyed(db, "BUFFER_PG")
        self.buffer_queues = _Keyed(db, "BUFFER_QUEUE")
        self.watchdogs = _Keyed(db, "PFC_WD")
        self.profiles = db.table("BUFFER_PROFILE")
        self.wred = db.table("WRED_PROFILE")
        self.cables: dict[str, tuple[str, str]] = {}  # port -> (CABLE_LENGTH key, length)
        for key, lengths in db.table("CABLE_LENGTH").items():
            for port, length in lengths.items():
                self.cables[port] = (key, length)
        self._settings()

    # -- helpers ---------------------------------------------------------------------------

    def _indices(self, path: tuple[str, ...], text: str) -> list[int]:
        match = _RANGE.fullmatch(text)
        if not match:
            raise self.db.error(path, f"expected an index or a range like 3-4, not {text!r}")
        first, last = int(match.group(1)), int(match.group(2) or match.group(1))
        return list(range(first, last + 1))

    def _queue_indices(self, path: tuple[str, ...], text: str) -> list[int]:
        """A BUFFER_QUEUE key's queues as bufferorch reads them (Orch::parseIndexRange): a
        range, else the number stoul reads from the start, so a list like `3,4` is queue 3
        alone (older configs write one; YANG's qindex pattern has no commas)."""
        leading = re.match(r"\d{1,2}(?=,)", text)
        return [int(leading.group())] if leading else self._indices(path, text)

    def _qos_entry(self, port: str) -> tuple[str | None, dict[str, Any]]:
        """The port's PORT_QOS_MAP fields (entries naming it merged in file order) and the key
        of the last one."""
        entries = self.qos.of(port)
        merged: dict[str, Any] = {}
        for _, _, fields in entries:
            merged.update(fields)
        return (entries[-1][0] if entries else None), merged

    # -- device-wide -----------------------------------------------------------------------

    def _settings(self) -> None:
        """The inputs of buffermgrd's headroom computation and the shared headroom pool.

        On a dynamic-model switch a setting the config leaves out is not set (stated as None):
        SONiC has no default for it. buffer_headroom_mellanox.lua reads LOSSLESS_TRAFFIC_PATTERN
        mtu and small_packet_percentage and computes with them (nil without them: the script
        fails, calculateHeadroomSize logs 'Lua scripts for headroom calculation were not
        executed successfully'), and buffermgrdyn.cpp refreshPgsForPort does nothing while
        default_dynamic_th is empty ('Nothing to be done since either the buffer pool or
        default threshold is not ready'): the lossless PGs get no headroom either way."""
        db, settings, sources = self.db, self.device.headroom_settings, self.device.sources
        mtu = small = dynamic_th = None
        patterns = db.table("LOSSLESS_TRAFFIC_PATTERN")
        pattern_path: tuple[str, ...] = ("LOSSLESS_TRAFFIC_PATTERN",)
        for key, pattern in patterns.items():
            path = pattern_path = ("LOSSLESS_TRAFFIC_PATTERN", key)
            if "mtu" in pattern:
                mtu = settings.lossless_mtu = db.integer((*path, "mtu"), pattern["mtu"])
            if "small_packet_percentage" in pattern:
                small = settings.small_packet_percent = db.integer(
                    (*path, "small_packet_percentage"), pattern["small_packet_percentage"]
                )
            sources["headroom_settings"] = db.at(*path)
        ratio = None
        parameter_path: tuple[str, ...] = ("DEFAULT_LOSSLESS_BUFFER_PARAMETER",)
        for key, parameters in db.table("DEFAULT_LOSSLESS_BUFFER_PARAMETER").items():
            path = parameter_path = ("DEFAULT_LOSSLESS_BUFFER_PARAMETER", key)
            if "default_dynamic_th" in parameters:
                dynamic_th = settings.dynamic_th = db.integer(
                    (*path, "default_dynamic_th"), parameters["default_dynamic_th"]
                )
            if "over_subscribe_ratio" in parameters:
                ratio = db.integer(
                    (*path, "over_subscribe_ratio"), parameters["over_subscribe_ratio"]
                )
                self.ratio_at = db.at(*path, "over_subscribe_ratio")
            sources.setdefault("headroom_settings", db.at(*path))
        pool = db.table("BUFFER_POOL").get(LOSSLESS_POOL, {})
        pool_xoff = (
            db.integer(("BUFFER_POOL", LOSSLESS_POOL, "xoff"), pool["xoff"])
            if pool.get("xoff")
            else 0
        )
        settings.shared_headroom_pool = bool(pool_xoff) or bool(ratio)
        settings.over_subscribe_ratio = ratio
        if self.dynamic:
            self.device.stated["headroom_settings"] = (
                mtu,
                small,
                settings.shared_headroom_pool,
                dynamic_th,
            )
            # a finding about a setting left out points at the entry that should state it
            if mtu is None or small is None:
                sources["headroom_settings"] = db.at(*pattern_path)
            elif dynamic_th is None:
                sources["headroom_settings"] = db.at(*parameter_path)
        self._pool(pool, pool_xoff, ratio)

    def _pool(self, pool: dict[str, Any], xoff: int, ratio: int | None) -> None:
        """The shared headroom pool as the switch takes it (buffer_terms.shared_headroom_pool). A
        stated ingress_lossless_pool xoff sizes it whatever the ratio says (buffermgrdyn.cpp
        refreshSharedHeadroomPool: 'enabled by size -> config or remove ratio: no action';
        buffer_pool_mellanox.lua divides by the ratio only when xoff is 0); with only a ratio,
        buffermgrd sizes it (the PGs' xoff less the private headroom, over the ratio). A pool
        entry without `type` is not created (SAI mandatory on create). Its `mode` does not
        change the lossless PGs: bufferorch sets a profile's threshold mode from its own
        dynamic_th (and SAI's default pool mode is dynamic, saibuffer.h)."""
        db, device = self.db, self.device
        ratio = ratio if self.dynamic else None  # buffermgrd reads it in the dynamic model only
        untyped = bool(pool) and "type" not in pool
        if not pool and not ratio:
            return  # off, and no entry says so: the default where the plan has none either
        text = shared_headroom_pool(xoff or None, ratio, untyped)
        device.stated["shared_headroom_pool"] = text
        if xoff and not untyped:
            where = db.at("BUFFER_POOL", LOSSLESS_POOL, "xoff")
        elif pool or not ratio:  # the pool's entry, where its xoff is or should be
            where = db.at("BUFFER_POOL", LOSSLESS_POOL)
        else:
            where = self.ratio_at
        device.sources["shared_headroom_pool"] = where

    def device_plan(self) -> DevicePlan:
        device, db = self.device, self.db
        device.ports = {name: self._port(name, fields) for name, fields in db.table("PORT").items()}
        # Device-wide facts come from the ports the inventory plans (a full running config
        # has others, the switch's own business), from all of them without an inventory.
        planned = [p for p in device.ports.values() if self.hint and p.name in self.hint.ports]
        ports = self.scope = planned or list(device.ports.values())
        device.lossless_priorities = sorted({p for port in ports for p in port.pfc_priorities})
        first = next((p for p in ports if p.lossless), None)
        self._maps(first)
        if first is not None:
            device.sources["lossless_priorities"] = first.sources.get("pfc_priorities", "")
            self._queues(first)
            self._one_qos_per_switch(first, [p for p in ports if p.lossless])
        classify_traffic(device)
        self._class_sources()
        self._watchdog()
        self._ecmp()
        device.source = f"{db.file}:1:1"
        return device

    def _maps(self, first: PortPlan | None) -> None:
        db, maps, sources = self.db, self.device.maps, self.device.sources
        _, bindings = self._qos_entry(first.name) if first else (None, {})
        global_qos = db.table("PORT_QOS_MAP").get("global", {})
        for attribute, table, field, keys, default in MAPS:
            name = bindings.get(field)
            if name is None and field == "dscp_to_tc_map":
                name = global_qos.get(field)  # switch-level map (qosorch handleGlobalQosMap)
            mapping = {k: default(k) for k in keys}
            bound = self._bound_map(table, name)
            if bound is not None:
                map_name, pairs = bound
                for path, index, target in pairs:
                    if index not in keys:
                        raise db.error(path, f"{table} has no entry {index}")
                    mapping[index] = target
                sources[attribute] = db.at(table, map_name)
                if attribute == "dscp_to_tc":
                    self.dscp_map = map_name
            setattr(maps, attribute, mapping)
        self._pfc_to_pg(first, bindings)

    def _bound_map(
        self, table: str, name: Any
    ) -> tuple[str, Iterator[tuple[tuple[str, str, str], int, int]]] | None:
        """The map a binding names (`[TABLE|NAME]` or `NAME`): its name and its entries, each
        read as integers, with where it stands, as they are taken; None where the binding
        names no entry of the table (not bound, or bound to a map the file lacks)."""
        db = self.db
        entries = db.table(table).get(reference(name)) if isinstance(name, str) else None
        if entries is None:
            return None
        map_name = reference(str(name))

        def pairs() -> Iterator[tuple[tuple[str, str, str], int, int]]:
            for key, value in entries.items():
                path = (table, map_name, key)
                yield path, db.integer(path, key), db.integer(path, value)

        return map_name, pairs()

    def _pfc_to_pg(self, first: PortPlan | None, bindings: dict[str, Any]) -> None:
        """Which PG's fill sends a pause on which priority: the PFC_PRIORITY_TO_PRIORITY_GROUP_MAP
        the first lossless port binds, as it lists them ({} when none is bound: SAI binds no map,
        SAI_PORT_ATTR_QOS_PFC_PRIORITY_TO_PRIORITY_GROUP_MAP default SAI_NULL_OBJECT_ID, saiport.h;
        what the ASIC then pauses on is not SAI's to say). render.expressed judges it where the
        ASIC takes the map (NVIDIA Spectrum; Broadcom SAI does not support it)."""
        db, sources = self.db, self.device.sources
        table, field = PFC_TO_PG
        name = bindings.get(field)
        mapping: dict[int, int] = {}
        bound = self._bound_map(table, name)
        if bound is not None:
            map_name, pairs = bound
            for path, priority, pg in pairs:
                if priority not in range(8) or pg not in range(8):
                    raise db.error(path, f"{table} maps a PFC priority 0-7 to a PG 0-7")
                mapping[priority] = pg
            sources["pfc_priority_to_pg"] = db.at(table, map_name)
        elif first is not None:  # where the binding is, or should be
            key = self._qos_entry(first.name)[0] or first.name
            sources["pfc_priority_to_pg"] = db.at(
                "PORT_QOS_MAP", key, *((field,) if field in bindings else ())
            )
        self.device.stated["pfc_priority_to_pg"] = mapping

    def _one_qos_per_switch(self, first: PortPlan, lossless: list[PortPlan]) -> None:
        """A plan has one set of QoS maps and one egress scheduling per switch, read from the
        first lossless port: a lossless port that binds other maps or schedulers is refused
        at its entry (judged by the first port's, its own would be dropped unread)."""
        db = self.db
        _, bindings = self._qos_entry(first.name)
        want = {f: bindings.get(f) for f in [*(m[2] for m in MAPS), PFC_TO_PG[1]]}
        schedulers = self._schedulers(first.name)
        for port in lossless:
            key, own = self._qos_entry(port.name)
            for field, name in want.items():
                if own.get(field) != name and not (
                    field == "dscp_to_tc_map" and own.get(field) is None and name is None
                ):
                    path = ("PORT_QOS_MAP", key or port.name)
                    raise db.error(
                        path,
                        f"{port.name} binds {field} {own.get(field) or 'none'}, {first.name} "
                        f"{name or 'none'}: lossless judges one set of QoS maps per switch",
                    )
            own_schedulers = self._schedulers(port.name)
            for queue, name in schedulers.items():  # a queue the first port leaves out is
                if own_schedulers.get(queue) != name:  # judged there (its default)
                    raise db.error(
                        ("QUEUE", f"{port.name}|{queue}"),
                        f"{port.name} queue {queue} takes scheduler "
                        f"{own_schedulers.get(queue, 'none')}, {first.name}'s {name}: lossless "
                        "judges one egress scheduling per switch",
                    )

    def _schedulers(self, port: str) -> dict[int, str]:
        """Queue -> the SCHEDULER a port's QUEUE entries bind."""
        bound: dict[int, str] = {}
        for key, index, fields in self.queues.of(port):
            if "scheduler" in fields:
                for queue in self._indices(("QUEUE", key), index):
                    bound[queue] = reference(str(fields["scheduler"]))
        return bound

    def _class_sources(self) -> None:
        """RoCE and CNP classes point at the DSCP map's entry for their DSCP."""
        device = self.device
        if self.dscp_map is None:
            return
        for fact, dscp in (("roce", device.roce_dscp), ("cnp", device.cnp_dscp)):
            device.sources[fact] = self.db.at("DSCP_TO_TC_MAP", self.dscp_map, str(dscp))

    def _queues(self, port: PortPlan) -> None:
        db, device = self.db, self.device
        schedulers = db.table("SCHEDULER")
        lossless = {device.maps.pfc_priority_to_queue.get(p, p) for p in device.lossless_priorities}
        queues: dict[int, QueuePlan] = {}
        untyped: str | None = None
        for key, index, fields in self.queues.of(port.name):
            if "scheduler" not in fields:
                continue
            name = reference(db.text(("QUEUE", key, "scheduler"), fields["scheduler"]))
            scheduler = schedulers.get(name, {})
            # without `weight` SAI's default applies: SAI_SCHEDULER_ATTR_SCHEDULING_WEIGHT 1
            # (saischeduler.h); qosorch.cpp sets the weight only where stated
            weight = (
                db.integer(("SCHEDULER", name, "weight"), scheduler["weight"])
                if "weight" in scheduler
                else 1
            )
            # qosorch.cpp (handleSchedulerTable) hands SAI a scheduling type only where `type`
            # is stated: without it the scheduler is SAI's default, SAI_SCHEDULING_TYPE_WRR
            # (saischeduler.h), round robin by packets, not DWRR's by bytes
            kind = scheduler.get("type")
            if kind is not None and kind not in SCHEDULER_TYPES:
                # sonic-scheduler.yang allows these three; orchagent refuses any other
                # ("Unknown scheduler type") and creates no scheduler for it
                raise db.error(
                    ("SCHEDULER", name, "type"),
                    f"expected one of {', '.join(SCHEDULER_TYPES)}, not {kind!r}",
                )
            strict = kind == "STRICT"
            shared = "wrr" if kind in (None, "WRR") else "dwrr"
            for queue in self._indices(("QUEUE", key), index):
                queues[queue] = queue_plan(queue, strict, weight, lossless, shared)
            device.sources.setdefault("queues", db.at("QUEUE", key, "scheduler"))
            if kind is None and name in schedulers and untyped is None:
                untyped = db.at("SCHEDULER", name)  # the entry that should state its type
        if untyped is not None:
            device.sources["queues"] = untyped
        if queues:
            device.queues = [queues[q] for q in sorted(queues)]

    def _watchdog(self) -> None:
        device, db = self.device, self.db
        poll = DEFAULT_POLL_MS
        wd_global = db.table("PFC_WD").get("GLOBAL", {})
        if "POLL_INTERVAL" in wd_global:
            poll = db.integer(("PFC_WD", "GLOBAL", "POLL_INTERVAL"), wd_global["POLL_INTERVAL"])
            device.sources["watchdog_poll_ms"] = db.at("PFC_WD", "GLOBAL", "POLL_INTERVAL")
        for port in device.ports.values():
            if port.watchdog is not None:
                port.watchdog = replaced(port.watchdog, poll_ms=poll)
        enabled = [p.watchdog for p in self.scope if p.watchdog and p.watchdog.enabled]
        device.watchdog = (
            copy.copy(enabled[0]) if enabled else WatchdogPlan(False, 0, 0, poll, "drop")
        )

    def _ecmp(self) -> None:
        db, device = self.db, self.device
        hashing = db.table("SWITCH_HASH").get("GLOBAL", {})
        if "ecmp_hash" in hashing:
            value = hashing["ecmp_hash"]
            listed = value if isinstance(value, list) else [f for f in value.split(",") if f]
            named = [name for name, fields in HASH_FIELDS.items() if set(fields) <= set(listed)]
            known = {f for name in named for f in HASH_FIELDS[name]}
            fields = named + [f.lower() for f in listed if f not in known]
            device.ecmp = EcmpPlan(fields, None, "not in CONFIG_DB", False, "L4_SRC_PORT" in listed)
            where = db.at("SWITCH_HASH", "GLOBAL", "ecmp_hash")
            device.sources["ecmp_hash_fields"] = device.sources["ecmp_udp_source_port"] = where
        # else the switch's default hash: unknown, not judged
        self._seed()

    def _seed(self) -> None:
        """The hash seed orchagent gets from DEVICE_METADATA type (device_type.py); a whole
        config_db without a type gets 0; a fragment that states none says nothing."""
        db, device = self.db, self.device
        metadata = db.table("DEVICE_METADATA").get("localhost", {})
        path = ("DEVICE_METADATA", "localhost")
        namespace = metadata.get("namespace_id")
        offset = db.integer((*path, "namespace_id"), namespace) if namespace is not None else 0
        if "type" in metadata:
            kind = db.text((*path, "type"), metadata["type"])
            how = f"DEVICE_METADATA type {kind}"
            device.sources["ecmp_seed"] = db.at(*path, "type")
        elif is_whole_config(metadata):
            kind, how = None, "no DEVICE_METADATA type"
            device.sources["ecmp_seed"] = db.at(*path)
        else:
            return
        seed = seed_of(kind, offset)
        device.ecmp = replaced(
            device.ecmp, seed=seed, seed_source=f"{how}: seed {seed} ({SEED_SOURCE})"
        )
        device.tier_type = kind is not None

    # -- ports -----------------------------------------------------------------------------

    def _port(self, name: str, fields: dict[str, Any]) -> PortPlan:
        db = self.db
        port = new_port(self.hint, name, db.at("PORT", name), mtu=DEFAULT_MTU)
        sources = port.sources
        for field, attribute in (("speed", "speed_mbps"), ("mtu", "mtu")):
            if field in fields:
                setattr(port, attribute, db.integer(("PORT", name, field), fields[field]))
                sources[attribute] = db.at("PORT", name, field)
        if "lanes" in fields:
            port.lanes = len(db.integers(("PORT", name, "lanes"), fields["lanes"]))
        key, qos = self._qos_entry(name)
        if key is not None:
            port.source = db.at("PORT_QOS_MAP", key)
            if "pfc_enable" in qos:
                port.pfc_priorities = sorted(
                    set(db.integers(("PORT_QOS_MAP", key, "pfc_enable"), qos["pfc_enable"]))
                )
                sources["pfc_priorities"] = db.at("PORT_QOS_MAP", key, "pfc_enable")
                sources["lossless"] = sources["pfc_priorities"]
        port.lossless = bool(port.pfc_priorities)
        if name in self.cables:
            cable_key, length = self.cables[name]
            path = ("CABLE_LENGTH", cable_key, name)
            text = db.text(path, length)
            if not re.fullmatch(r"\d{1,6}m", text):
                raise db.error(path, f"expected a cable length like 5m, not {text!r}")
            port.cable_m = float(text[:-1])
            sources["cable_m"] = db.at(*path)
        port.headroom = self._headroom(port)
        if port.lossless:
            self._egress(port)
        self._ecn(port)
        port.watchdog = self._port_watchdog(port, key, qos)
        return port

    def _headroom(self, port: PortPlan) -> list[HeadroomPlan]:
        db, result = self.db, []
        for key, index, fields in self.pgs.of(port.name):
            if "profile" not in fields:
                continue
            name = reference(db.text(("BUFFER_PG", key, "profile"), fields["profile"]))
            profile = self.profiles.get(name)
            by_switch = self.dynamic and (
                name == NULL_PROFILE or (profile or {}).get("headroom_type") == "dynamic"
            )
            if by_switch:
                values, model, where = (0, 0, 0), HEADROOM_BY_SWITCH, db.at("BUFFER_PG", key)
            elif profile is not None and "xoff" in profile:
                values = self._profile_headroom(name, profile)
                model, where = HEADROOM_FROM_CONFIG, db.at("BUFFER_PROFILE", name, "xoff")
                text = self._profile_text(name, profile)
                for pg in self._indices(("BUFFER_PG", key), index):
                    port.stated.setdefault("lossless_profile", {})[pg] = text
                port.sources.setdefault("lossless_profile", db.at("BUFFER_PROFILE", name))
            else:  # a lossy profile, or NULL (no headroom at all) on a traditional switch
                if name == NULL_PROFILE:
                    port.sources.setdefault("headroom", db.at("BUFFER_PG", key))
                continue
            port.sources.setdefault("headroom", where)
            for pg in self._indices(("BUFFER_PG", key), index):
                result.append(HeadroomPlan(pg, *values, model=model, derivation=where))
        return sorted(result, key=lambda h: h.priority_group)

    def _broadcom(self, profile: dict[str, Any]) -> bool:
        asic = self.device.asic
        return broadcom_form(asic) or (asic_vendor(asic) is None and "xon_offset" in profile)

    def _profile_text(self, name: str, profile: dict[str, Any]) -> str:
        """The fields of a lossless PG's static profile beside its headroom, in words
        (buffer_terms.profile_text). Each is a SAI attribute bufferorch sets: pool, size and
        dynamic_th are mandatory on create (a profile without one is not created); xon is
        SAI_BUFFER_PROFILE_ATTR_XON_TH, default 0 (saibuffer.h)."""
        path = ("BUFFER_PROFILE", name)
        fields: dict[str, str] = {}
        if "pool" in profile:
            fields["pool"] = reference(self.db.text((*path, "pool"), profile["pool"]))
        for field in ("size", "xon", "dynamic_th", "static_th"):
            if field in profile:
                fields[field] = str(self.db.integer((*path, field), profile[field]))
        return profile_text(fields, self._broadcom(profile))

    def _egress(self, port: PortPlan) -> None:
        """The queues of a lossless port on the egress lossless profile (BUFFER_QUEUE). Every
        SKU's buffer template defines `egress_lossless_profile` for the lossless queues and
        `egress_lossy_profile` for the others (bi:files/build_templates/buffers_config.j2);
        a queue on another profile, or on none, is admitted by a lossy egress limit, where PFC
        does not apply: it drops once the limit is reached."""
        db, queues = self.db, []
        lossless_at: str | None = None
        other_at: str | None = None
        for key, index, fields in self.buffer_queues.of(port.name):
            if "profile" not in fields:
                continue
            name = reference(db.text(("BUFFER_QUEUE", key, "profile"), fields["profile"]))
            if name == EGRESS_LOSSLESS_PROFILE:
                queues += self._queue_indices(("BUFFER_QUEUE", key), index)
                lossless_at = lossless_at or db.at("BUFFER_QUEUE", key)
            else:
                other_at = other_at or db.at("BUFFER_QUEUE", key)
        port.stated["egress_lossless_queues"] = sorted(set(queues))
        # where the lossless queue's entry is, or should be
        port.sources["egress_lossless_queues"] = (
            lossless_at
            or other_at
            or (db.at("BUFFER_QUEUE") if db.table("BUFFER_QUEUE") else port.source)
        )

    def _profile_headroom(self, name: str, profile: dict[str, Any]) -> tuple[int, int, int]:
        numbers: dict[str, int] = {
            field: self.db.integer(("BUFFER_PROFILE", name, field), profile[field])
            for field in ("xon", "xoff", "size", "xon_offset")
            if field in profile
        }
        broadcom = self._broadcom(numbers)
        return headroom_from_profile(
            numbers, broadcom, self.device.headroom_settings.shared_headroom_pool
        )

    def _ecn(self, port: PortPlan) -> None:
        db = self.db
        for key, index, fields in self.queues.of(port.name):
            if "wred_profile" not in fields:
                continue
            name = reference(db.text(("QUEUE", key, "wred_profile"), fields["wred_profile"]))
            profile = self.wred.get(name)
            if profile is None:
                continue
            where = db.at("WRED_PROFILE", name)
            queues = self._indices(("QUEUE", key), index)
            port.sources.setdefault("ecn", where)  # also where a profile that drops should mark
            # RoCE is green (no policer colours it): marking needs green WRED enabled and an
            # `ecn` mode that marks green (SAI_WRED_ATTR_GREEN_ENABLE, default false)
            if profile.get("ecn") in GREEN_ECN and profile.get("wred_green_enable") == "true":
                path = ("WRED_PROFILE", name)
                low, high, probability = (
                    db.integer((*path, field), profile.get(field, "0"))
                    for field in (
                        "green_min_threshold",
                        "green_max_threshold",
                        "green_drop_probability",
                    )
                )
                port.ecn += [
                    EcnPlan(q, low, high, probability, None, None, None, None, where)
                    for q in queues
                ]
            elif any(profile.get(f"wred_{c}_enable") == "true" for c in ("green", "yellow", "red")):
                port.wred_drop_queues += queues
                port.sources.setdefault("wred_drop_queues", where)
        port.ecn.sort(key=lambda e: e.queue)
        if port.ecn:
            port.sources["ecn"] = port.ecn[0].derivation  # the marking profile, if one
        elif "ecn" not in port.sources:  # no WRED profile bound: the lossless queue's entry
            for key, index, _ in self.queues.of(port.name):
                if set(self._indices(("QUEUE", key), index)) & set(port.pfc_priorities):
                    port.sources["ecn"] = db.at("QUEUE", key)
                    break
        port.wred_drop_queues.sort()

    def _port_watchdog(
        self, port: PortPlan, qos_key: str | None, qos: dict[str, Any]
    ) -> WatchdogPlan | None:
        if not port.lossless:
            return None
        db = self.db
        entries = self.watchdogs.of(port.name)
        watched = (
            set(
                db.integers(
                    ("PORT_QOS_MAP", str(qos_key), "pfcwd_sw_enable"), qos["pfcwd_sw_enable"]
                )
            )
            if "pfcwd_sw_enable" in qos
            else set()
        )
        if entries and set(port.pfc_priorities) <= watched:
            where = db.at("PFC_WD", entries[-1][0])
        elif qos_key is not None:  # where the watchdog would be turned on for the port
            field = ("pfcwd_sw_enable",) if "pfcwd_sw_enable" in qos else ()
            where = db.at("PORT_QOS_MAP", qos_key, *field)
        else:
            where = port.source
        port.sources["watchdog"] = port.sources["watchdog_enabled"] = where
        if not entries:
            return WatchdogPlan(False, 0, 0, DEFAULT_POLL_MS, "drop")
        key, _, fields = entries[-1]
        path = ("PFC_WD", key)
        detection = (
            db.integer((*path, "detection_time"), fields["detection_time"])
            if "detection_time" in fields
            else 0
        )
        restoration = (
            db.integer((*path, "restoration_time"), fields["restoration_time"])
            if "restoration_time" in fields
            else 0
        )
        enabled = bool(detection) and set(port.pfc_priorities) <= watched
        action = db.text((*path, "action"), fields.get("action", "drop"))
        return WatchdogPlan(enabled, detection, restoration, DEFAULT_POLL_MS, action)


SCHEDULER_TYPES = ("STRICT", "WRR", "DWRR")  # sonic-scheduler.yang, leaf type


def parse(text: str, file: str, name: str, hint: DevicePlan | None = None) -> DevicePlan:
    return _Reader(load_config_db(text, file), name, hint).device_plan()


def parse_file(path: str, name: str, hint: DevicePlan | None = None) -> DevicePlan:
    return parse(read_config(path), path, name, hint)
