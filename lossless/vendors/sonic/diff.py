"""The RFC 6902 JSON patch (what SONiC's `config apply-patch` takes) from a switch's running
config_db.json to the rendered fragment, touching only what lossless owns.

Removing a buffer entry on SONiC is not neutral: a BUFFER_PG or BUFFER_QUEUE entry that goes
away takes the PG's or queue's reserved buffer with it, and a pool without `size` is resized
by the switch. So the patch is built entry by entry and field by field from an explicit
ownership list, never by diffing whole tables:

* our named entries (the ROCE maps, our schedulers, WRED and lossless buffer profiles): every
  field;
* entries of our ports (the fragment's PORT keys), only the fields lossless sets: PORT mtu and
  speed, the QoS bindings and `pfc_enable`/`pfcwd_sw_enable` of PORT_QOS_MAP, the watchdog
  timers of PFC_WD, `scheduler`/`wred_profile` of QUEUE, `profile` of BUFFER_PG/BUFFER_QUEUE,
  the port's CABLE_LENGTH;
* a few fields of shared entries: the shared headroom pool (`xoff`) of ingress_lossless_pool,
  the headroom-model inputs, the ECMP hash fields, the watchdog poll interval.

An entry of one of our ports that the fragment no longer has is removed only when it is ours:
a QUEUE entry bound to our scheduler or WRED profile, a BUFFER_PG entry holding lossless
headroom (profile NULL or a profile with xoff). The lossy PG 0, the lossy queues' buffers,
other queues' schedulers, pools, lossy profiles and every other table stay as they are, and
an entry that also holds fields we do not own loses only our fields.

Refused (ValueError, reported as bad input): a switch running another buffer model than the
fragment is written for (to the traditional model a NULL profile is no headroom), and a
fragment port the switch does not have (the patch would create a port).
"""

from __future__ import annotations

import json
from typing import Any

from jsonpointer import escape

from lossless.vendors.impact import DISRUPTIVE, HITLESS, ImpactRule, rehash
from lossless.vendors.sonic.config_db import reference

ALL = "all"  # every field of our own named entries
RENDERED = "rendered"  # only the fields the fragment has (CABLE_LENGTH: our ports' lengths)
QOS_FIELDS = frozenset(
    {
        "dscp_to_tc_map",
        "tc_to_queue_map",
        "tc_to_pg_map",
        "pfc_to_queue_map",
        "pfc_to_pg_map",
        "pfc_enable",
        "pfcwd_sw_enable",
    }
)
OWNED_FIELDS: dict[str, Any] = {
    "PORT": frozenset({"mtu", "speed"}),
    "CABLE_LENGTH": RENDERED,
    "PORT_QOS_MAP": QOS_FIELDS,
    "PFC_WD": frozenset({"action", "detection_time", "restoration_time", "POLL_INTERVAL"}),
    "QUEUE": frozenset({"scheduler", "wred_profile"}),
    "BUFFER_PG": frozenset({"profile"}),
    "BUFFER_QUEUE": frozenset({"profile"}),
    "BUFFER_POOL": frozenset({"xoff"}),
    "DEFAULT_LOSSLESS_BUFFER_PARAMETER": frozenset({"default_dynamic_th", "over_subscribe_ratio"}),
    "LOSSLESS_TRAFFIC_PATTERN": frozenset({"mtu", "small_packet_percentage"}),
    "SWITCH_HASH": frozenset({"ecmp_hash"}),
}
# Tables where an entry of our port can be ours although the fragment no longer has it.
STALE_CHECKED = ("PORT_QOS_MAP", "PFC_WD", "QUEUE", "BUFFER_PG")
GUARDED = "DEVICE_METADATA"  # compared, never patched
DEFAULT_BUFFER_MODEL = "traditional"  # bi:files/build_templates/init_cfg.json.j2


def _ports_of(key: str) -> list[str]:
    return key.partition("|")[0].split(",")


def _object(value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ValueError(f"{where} is not a JSON object in the running config_db")
    return value


class _Scope:
    """What of the running config lossless owns, from the intended fragment."""

    def __init__(self, running: dict[str, Any], intended: dict[str, Any]):
        self.running, self.intended = running, intended
        self.ports = set(intended.get("PORT", {}))
        self.schedulers = set(intended.get("SCHEDULER", {}))
        self.wred_profiles = set(intended.get("WRED_PROFILE", {}))

    def table(self, name: str) -> dict[str, Any] | None:
        if name not in self.running:
            return None
        return _object(self.running[name], name)

    def entries(self, table: str) -> dict[str, dict[str, Any] | None]:
        """Owned keys -> the fragment's entry, or None for an entry of ours to remove."""
        owned: dict[str, dict[str, Any] | None] = dict(self.intended.get(table, {}))
        running = self.table(table) or {}
        if table in STALE_CHECKED:
            for key, fields in running.items():
                ports = _ports_of(key)
                if key in owned or len(ports) != 1 or ports[0] not in self.ports:
                    continue
                if self._ours(table, _object(fields, f"{table}|{key}")):
                    owned[key] = None
        return owned

    def _ours(self, table: str, fields: dict[str, Any]) -> bool:
        if table in ("PORT_QOS_MAP", "PFC_WD"):
            return True  # only our fields of it are touched
        if table == "QUEUE":
            return (
                reference(fields.get("scheduler", "")) in self.schedulers
                or reference(fields.get("wred_profile", "")) in self.wred_profiles
            )
        return self._lossless_profile(reference(fields.get("profile", "")))  # BUFFER_PG

    def _lossless_profile(self, name: str) -> bool:
        if name == "NULL" or name in self.intended.get("BUFFER_PROFILE", {}):
            return True
        profile = (self.table("BUFFER_PROFILE") or {}).get(name)
        return isinstance(profile, dict) and (
            "xoff" in profile or profile.get("headroom_type") == "dynamic"
        )


def _owned(table: str, want: dict[str, Any] | None, field: str) -> bool:
    rule = OWNED_FIELDS.get(table, ALL)
    if rule == ALL:
        return True
    if rule == RENDERED:
        return want is not None and field in want
    return field in rule


def _entry_ops(
    table: str, key: str, have: dict[str, Any], want: dict[str, Any] | None
) -> list[dict[str, Any]]:
    path = f"/{escape(table)}/{escape(key)}"
    mine = [f for f in sorted(have) if _owned(table, want, f)]
    if want is None:
        if len(mine) == len(have):
            return [{"op": "remove", "path": path}]
        return [{"op": "remove", "path": f"{path}/{escape(f)}"} for f in mine]
    ops = []
    for field in sorted(set(mine) | {f for f in want if _owned(table, want, f)}):
        where = f"{path}/{escape(field)}"
        if field not in want:
            ops.append({"op": "remove", "path": where})
        elif field not in have:
            ops.append({"op": "add", "path": where, "value": want[field]})
        elif have[field] != want[field]:
            ops.append({"op": "replace", "path": where, "value": want[field]})
    return ops


def _check_guards(scope: _Scope) -> None:
    wanted = scope.intended.get(GUARDED, {}).get("localhost", {}).get("buffer_model")
    if wanted is None:
        return
    metadata = (scope.table(GUARDED) or {}).get("localhost", {})
    running = _object(metadata, "DEVICE_METADATA|localhost").get(
        "buffer_model", DEFAULT_BUFFER_MODEL
    )
    if running != wanted:
        raise ValueError(
            f"the switch runs the {running} buffer model (DEVICE_METADATA|localhost "
            f"buffer_model) and the fragment is written for the {wanted} model; change the "
            "switch's buffer model first (a NULL lossless profile means no headroom to the "
            "traditional model)"
        )
    ports = scope.table("PORT") or {}
    missing = sorted(scope.ports - set(ports))
    if missing:
        raise ValueError(
            f"{', '.join(missing)}: not a port of the running config_db (a patch would create it)"
        )


def diff(running_text: str, intended_text: str) -> list[dict[str, Any]]:
    """RFC 6902 operations from the running config_db.json to the intended fragment, in
    table, key and field order within each phase (_phase)."""
    running = _object(json.loads(running_text), "the running config_db")
    intended = json.loads(intended_text)
    scope = _Scope(running, intended)
    _check_guards(scope)
    ops: list[dict[str, Any]] = []
    for table in sorted((set(intended) | set(STALE_CHECKED)) - {GUARDED}):
        owned = scope.entries(table)
        existing = scope.table(table)
        if existing is None:
            added = {key: want for key, want in owned.items() if want is not None}
            if added:
                ops.append({"op": "add", "path": f"/{escape(table)}", "value": added})
            continue
        for key in sorted(owned):
            want = owned[key]
            if key not in existing:
                if want is not None:
                    ops.append(
                        {"op": "add", "path": f"/{escape(table)}/{escape(key)}", "value": want}
                    )
                continue
            have = _object(existing[key], f"{table}|{key}")
            ops += _entry_ops(table, key, have, want)
    return sorted(ops, key=_phase)


def _phase(op: dict[str, Any]) -> int:
    """Order for a reader and for tools that apply operations one by one: our named objects
    first (maps, schedulers, profiles), then what references them, removals last."""
    if op["op"] == "remove":
        return 2
    table = op["path"].split("/")[1]
    return 0 if OWNED_FIELDS.get(table, ALL) == ALL else 1


# -- change impact (`lossless diff`: docs/change-impact.md) -------------------------------------
# What applying each operation does to traffic, from how orchagent and the buffer managers
# apply it (docs/reference/sonic.md 6). Rules see "<op> /TABLE/KEY/field" (an add of a whole
# table or entry is judged field by field); `port` names the port whose link a change couples.
_SWSS = "docs/reference/sonic.md 6 item {} [SRC]"
_BUFFERS = (
    "re-programs buffers while the port carries traffic (SONiC leaves it to the operator to "
    "apply them before the port is up)"
)
IMPACT = (
    ImpactRule(
        r" /BUFFER_PG/(?P<port>[^/|,]+)",
        DISRUPTIVE,
        "changes the headroom of a lossless priority group: " + _BUFFERS,
        _SWSS.format(1),
    ),
    ImpactRule(
        r" /BUFFER_QUEUE/(?P<port>[^/|,]+)",
        DISRUPTIVE,
        "changes a queue's buffer profile: " + _BUFFERS,
        _SWSS.format(1),
    ),
    ImpactRule(
        r" /(BUFFER_PROFILE|BUFFER_POOL)/",
        DISRUPTIVE,
        "resizes a buffer profile or pool (every priority group using it): " + _BUFFERS,
        _SWSS.format(1),
    ),
    ImpactRule(
        r" /(CABLE_LENGTH|DEFAULT_LOSSLESS_BUFFER_PARAMETER|LOSSLESS_TRAFFIC_PATTERN)/",
        DISRUPTIVE,
        "an input of the headroom formula: the lossless priority groups get new headroom and "
        "the pools are re-sized",
        _SWSS.format(2),
    ),
    ImpactRule(
        r" /PORT/(?P<port>[^/]+)/speed$",
        DISRUPTIVE,
        "the port goes down to change speed (auto-negotiation off) and its headroom is re-computed",
        f"{_SWSS.format(3)}, {_SWSS.format(2)}",
    ),
    ImpactRule(
        r" /PORT/(?P<port>[^/]+)/mtu$",
        DISRUPTIVE,
        "the port's lossless headroom is re-computed from the new MTU and re-programmed "
        "(dynamic buffer model)",
        _SWSS.format(2),
    ),
    ImpactRule(
        r" /PORT_QOS_MAP/(?P<port>[^/]+)/pfc_enable$",
        DISRUPTIVE,
        "sets which priorities the port pauses and honours, at once on the live port: "
        "lossless traffic is dropped while the two ends of the link disagree",
        _SWSS.format(4),
        link=True,
    ),
    ImpactRule(
        r" /PORT_QOS_MAP/(?P<port>[^/]+)/pfcwd_sw_enable$",
        HITLESS,
        "turns the PFC watchdog on or off for a priority; it only watches queues",
        _SWSS.format(6),
    ),
    ImpactRule(
        r" /PORT_QOS_MAP/(?P<port>[^/]+)",
        HITLESS,
        "re-binds the port's QoS maps in place; which priority group and queue RoCE uses must "
        "match the link peer's",
        f"{_SWSS.format(4)}, docs/reference/physics.md 4 rule 12",
        link=True,
    ),
    ImpactRule(
        r" /(DSCP_TO_TC_MAP|TC_TO_QUEUE_MAP|TC_TO_PRIORITY_GROUP_MAP|MAP_PFC_PRIORITY_TO_QUEUE"
        r"|PFC_PRIORITY_TO_PRIORITY_GROUP_MAP)/",
        HITLESS,
        "map entries are modified in place; the priority group and queue RoCE lands in must "
        "match the link peer's",
        f"{_SWSS.format(5)}, docs/reference/physics.md 4 rule 12",
        link=True,
    ),
    ImpactRule(
        r" /WRED_PROFILE/",
        HITLESS,
        "ECN marking thresholds, modified in place",
        _SWSS.format(5),
    ),
    ImpactRule(
        r" /(SCHEDULER|QUEUE)/",
        HITLESS,
        "scheduler weights and the queue's scheduler / WRED binding, modified in place",
        _SWSS.format(5),
    ),
    ImpactRule(
        r" /PFC_WD/",
        HITLESS,
        "PFC watchdog timers: the port's watchdog restarts with them",
        _SWSS.format(6),
    ),
    rehash(r" /SWITCH_HASH/"),
)
