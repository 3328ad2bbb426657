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

What `config apply-patch` (SONiC's Generic Config Updater, GCU) refuses is never in the patch:
GCU diffs the running config against the patched one and runs per-table field validators on
every operation (`util:generic_config_updater/gcu_field_operation_validators.conf.json`,
`util:generic_config_updater/field_operation_validators.py`); one refused operation fails the
whole patch. So:

* BUFFER_POOL: no field may change (conf "Shared/headroom pool size changes" lists none). A
  shared headroom pool `xoff` that differs is held back.
* BUFFER_PROFILE: a whole profile may be added; of an existing one only `dynamic_th` and
  `xoff` may be replaced (and `packet_discard_action` added or replaced). An existing
  profile needing any other change (size, xon, xon_offset) is held back whole, and so is one
  a port the plan does not have uses (the change would be theirs too: buffermgrd gives every
  port of a speed and cable length the same pg_lossless_<speed>_<cable>_profile,
  `swss:cfgmgr/buffermgr.cpp` doSpeedUpdateTask, which also re-points the PG to that name on
  every port event, so a profile under another name would not stay on a traditional switch).
* PFC_WD: the validator matches fields, so a patch creating the whole table is refused;
  held back when the switch has no PFC_WD table.

`held_back` says what was held back, where the running config has it and how to apply it
(in a maintenance window, outside the patch). A BUFFER_PG / BUFFER_QUEUE key of ours never
overlaps a range key of the same port (`|3` beside `|3-4`): a running range that already
gives our priorities or queues the profile we want is left as it is; otherwise it is removed
(before ours is added) and its other members get their old profile back under their own keys.
"""

from __future__ import annotations

import json
import shlex
from typing import Any

from jsonpointer import escape

from lossless.text.natural import natural_key
from lossless.vendors.impact import DISRUPTIVE, HITLESS, ImpactRule, rehash
from lossless.vendors.sonic.config_db import load_config_db, reference

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
GUARDED = "DEVICE_METADATA"  # compared, never patched, but for the type lossless owns
OWNED_TYPE = (
    "type"  # DEVICE_METADATA|localhost type where the fragment sets it (policy.ecmp.device_type)
)
DEFAULT_BUFFER_MODEL = "traditional"  # bi:files/build_templates/init_cfg.json.j2
# What GCU lets a patch do to a field of an existing BUFFER_PROFILE (the conf's scenarios
# "Dynamic threshold tuning", "PG headroom modification", "Packet trimming eligibility
# modification"; a whole profile may be added, removed or replaced:
# buffer_profile_config_update_validator, sonic-utilities 202511 and later).
GCU_PROFILE_FIELDS = {
    "dynamic_th": ("replace",),
    "xoff": ("replace",),
    "packet_discard_action": ("add", "replace"),
}
RANGE_TABLES = ("BUFFER_PG", "BUFFER_QUEUE")  # keys <port>|<n> or <port>|<n>-<m>
_GCU = "sonic-utilities generic_config_updater/gcu_field_operation_validators.conf.json"


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

    def users(self, profile: str) -> list[str]:
        """Running BUFFER_PG keys of ports the fragment does not plan that use a profile."""
        pgs = self.table("BUFFER_PG") or {}
        return sorted(
            key
            for key, fields in pgs.items()
            if isinstance(fields, dict)
            and reference(fields.get("profile", "")) == profile
            and not set(_ports_of(key)) <= self.ports
        )

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
    missing = sorted(scope.ports - set(ports), key=natural_key)
    if missing:
        raise ValueError(
            f"{', '.join(missing)}: not a port of the running config_db (a patch would create it)"
        )


def diff(running_text: str, intended_text: str) -> list[dict[str, Any]]:
    """RFC 6902 operations from the running config_db.json to the intended fragment, in
    table, key and field order within each phase (_phase); only operations GCU accepts
    (what it refuses is in held_back)."""
    ops, _held = _changes(running_text, intended_text)
    return ops


def held_back(
    running_text: str, intended_text: str, running_file: str = "config_db.json"
) -> list[str]:
    """The changes the patch leaves out because `config apply-patch` refuses them (or they
    would change ports the plan does not have): each names the entry, where the running
    config has it (FILE:LINE:COL), the change and how to apply it."""
    _ops, held = _changes(running_text, intended_text)
    if not held:
        return []
    db = load_config_db(running_text, running_file)
    return [f"{db.at(*path)}: {text}" for path, text in held]


def _changes(
    running_text: str, intended_text: str
) -> tuple[list[dict[str, Any]], list[tuple[tuple[str, ...], str]]]:
    running = _object(json.loads(running_text), "the running config_db")
    intended = json.loads(intended_text)
    scope = _Scope(running, intended)
    _check_guards(scope)
    ops: list[dict[str, Any]] = _type_ops(scope)
    held: list[tuple[tuple[str, ...], str]] = []
    for table in sorted((set(intended) | set(STALE_CHECKED)) - {GUARDED}):
        owned = scope.entries(table)
        existing = scope.table(table)
        if existing is None:
            added = {key: want for key, want in owned.items() if want is not None}
            if not added:
                continue
            if table in ("BUFFER_POOL", "PFC_WD"):
                held.append(((), _refused_table(table, added)))
                continue
            ops.append({"op": "add", "path": f"/{escape(table)}", "value": added})
            continue
        split: set[str] = set()
        if table in RANGE_TABLES:
            split = _unoverlap(table, owned, existing)
        for key in sorted(owned, key=natural_key):
            want = owned[key]
            if key in split:
                ops.append({"op": "remove", "path": f"/{escape(table)}/{escape(key)}"})
                continue
            if key not in existing:
                if want is not None:
                    ops.append(
                        {"op": "add", "path": f"/{escape(table)}/{escape(key)}", "value": want}
                    )
                continue
            have = _object(existing[key], f"{table}|{key}")
            entry_ops = _entry_ops(table, key, have, want)
            refusal = _refusal(scope, table, key, entry_ops)
            if refusal:
                held.append(((table, key), refusal))
            else:
                ops += entry_ops
    return sorted(ops, key=_phase), held


def _type_ops(scope: _Scope) -> list[dict[str, Any]]:
    """DEVICE_METADATA|localhost type, where the fragment sets it (lossless owns it): the
    one field of DEVICE_METADATA a patch changes (its YANG pattern lists the tier types, so
    GCU takes it)."""
    wanted = scope.intended.get(GUARDED, {}).get("localhost", {}).get(OWNED_TYPE)
    if wanted is None:
        return []
    metadata = _object(
        (scope.table(GUARDED) or {}).get("localhost", {}), "DEVICE_METADATA|localhost"
    )
    path = f"/{GUARDED}/localhost/{OWNED_TYPE}"
    if OWNED_TYPE not in metadata:
        return [{"op": "add", "path": path, "value": wanted}]
    if metadata[OWNED_TYPE] != wanted:
        return [{"op": "replace", "path": path, "value": wanted}]
    return []


def _members(key: str) -> set[int]:
    """The priorities or queues of a range key: 'Ethernet0|3-4' -> {3, 4}."""
    low, _, high = key.rpartition("|")[2].partition("-")
    if not low.isdigit() or not (high or low).isdigit():
        return set()
    return set(range(int(low), int(high or low) + 1))


def _runs(members: set[int]) -> list[str]:
    runs: list[list[int]] = []
    for member in sorted(members):
        if runs and member == runs[-1][-1] + 1:
            runs[-1].append(member)
        else:
            runs.append([member])
    return [str(r[0]) if len(r) == 1 else f"{r[0]}-{r[-1]}" for r in runs]


def _unoverlap(
    table: str, owned: dict[str, dict[str, Any] | None], existing: dict[str, Any]
) -> set[str]:
    """Keep our range keys from overlapping the switch's (`|3` beside `|3-4`), in `owned`:
    a running key that already gives ours the profile we want makes ours unneeded; any other
    overlapping running key is split (returned: removed whole, before ours are added), its
    members we do not set keeping its fields under their own keys."""
    ours: dict[str, set[int]] = {}
    for key, want in owned.items():
        if want is not None:
            ours.setdefault(_ports_of(key)[0], set()).update(_members(key))
    split: set[str] = set()
    for key in sorted(k for k, want in owned.items() if want is not None and k not in existing):
        want = owned[key]
        port, members = _ports_of(key)[0], _members(key)
        for other in sorted(existing):
            others = _members(other)
            if (
                other == key
                or owned.get(other, {}) is None  # ours, removed anyway
                or _ports_of(other) != [port]
                or not members & others
            ):
                continue
            fields = _object(existing[other], f"{table}|{other}")
            if (
                other not in split
                and members <= others
                and want is not None
                and all(reference(fields.get(f, "")) == v for f, v in want.items())
            ):
                del owned[key]  # the running range already says it
                break
            if other not in split:
                split.add(other)
                owned[other] = None
                for run in _runs(others - ours[port]):
                    owned[f"{port}|{run}"] = dict(fields)
    return split


def _refusal(scope: _Scope, table: str, key: str, entry_ops: list[dict[str, Any]]) -> str | None:
    """Why GCU would refuse (or the patch must not make) these changes of one entry."""
    if not entry_ops:
        return None
    changes = ", ".join(_change_text(scope, table, key, op) for op in entry_ops)
    if table == "BUFFER_POOL":
        return (
            f"BUFFER_POOL|{key} {changes}: `config apply-patch` refuses every BUFFER_POOL "
            f'change ({_GCU}, "Shared/headroom pool size changes" lists no field since '
            f"202511); {_by_hand(table, key, entry_ops)}"
        )
    if table != "BUFFER_PROFILE":
        return None
    refused = [
        op["path"].rsplit("/", 1)[1]
        for op in entry_ops
        if op["op"] not in GCU_PROFILE_FIELDS.get(op["path"].rsplit("/", 1)[1], ())
    ]
    users = scope.users(key)
    if not refused and not users:
        return None
    why = []
    if refused:
        why.append(
            f"`config apply-patch` refuses changing {', '.join(sorted(set(refused)))} of an "
            f"existing profile ({_GCU}: only dynamic_th and xoff may be replaced)"
        )
    if users:
        why.append(
            f"ports the plan does not have use it ({', '.join(users)}): their headroom would "
            "change too"
        )
    return f"BUFFER_PROFILE|{key} {changes}: {'; '.join(why)}; {_by_hand(table, key, entry_ops)}"


def _by_hand(table: str, key: str, entry_ops: list[dict[str, Any]]) -> str:
    """The CONFIG_DB commands that make an entry's held-back changes, outside the patch."""
    # every word quoted: a removed field's name comes from the running config
    entry = shlex.quote(f"{table}|{key}")
    sets = [
        f"{shlex.quote(op['path'].rsplit('/', 1)[1])} {shlex.quote(str(op['value']))}"
        for op in entry_ops
        if "value" in op
    ]
    gone = [shlex.quote(op["path"].rsplit("/", 1)[1]) for op in entry_ops if "value" not in op]
    commands = [f"sudo sonic-db-cli CONFIG_DB hset {entry} {' '.join(sets)}"] if sets else []
    commands += [f"sudo sonic-db-cli CONFIG_DB hdel {entry} {' '.join(gone)}"] if gone else []
    return (
        "apply it outside the patch, in a maintenance window (it re-programs the buffers of "
        f"every port using it): `{'`, `'.join(commands)}`, then `sudo config save -y`"
    )


def _change_text(scope: _Scope, table: str, key: str, op: dict[str, Any]) -> str:
    field = op["path"].rsplit("/", 1)[1]
    have = (scope.table(table) or {}).get(key, {}).get(field, "unset")
    return f"{field} {have} -> {op.get('value', 'removed')}"


def _refused_table(table: str, added: dict[str, Any]) -> str:
    keys = ", ".join(sorted(added))
    if table == "BUFFER_POOL":
        how = "; ".join(
            _by_hand(table, key, [{"path": f"/{f}", "value": v} for f, v in fields.items()])
            for key, fields in sorted(added.items())
        )
        return (
            f"BUFFER_POOL ({keys}) is not in the running config: `config apply-patch` refuses "
            f"every BUFFER_POOL change ({_GCU}); {how}"
        )
    return (
        f"PFC_WD ({keys}) is not in the running config: `config apply-patch` refuses creating "
        f"the table (its PFC_WD validator matches fields, not entries: {_GCU}); start the "
        "watchdog with `pfcwd start_default` or `config load` of the rendered config_db.json, "
        "then diff again"
    )


def _phase(op: dict[str, Any]) -> int:
    """Order for a reader and for tools that apply operations one by one: our named objects
    first (maps, schedulers, profiles), then the removal of buffer range keys (so a range is
    free before the keys taking its place are added), then what references the named
    objects, other removals last."""
    table = op["path"].split("/")[1]
    if op["op"] == "remove":
        whole_entry = op["path"].count("/") == 2
        return 1 if table in RANGE_TABLES and whole_entry else 3
    return 0 if OWNED_FIELDS.get(table, ALL) == ALL else 2


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
        r" /DEVICE_METADATA/localhost/type$",
        HITLESS,
        "sets the switch's tier type: orchagent takes the new ECMP hash seed only when swss "
        "restarts (switch.json is rendered then: schedule a `config reload`, which rehashes "
        "every flow); type also selects BGP and other templates",
        "lossless/vendors/sonic/device_type.py, bi:dockers/docker-orchagent/switch.json.j2 [SRC]",
    ),
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
