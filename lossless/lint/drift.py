"""Drift (LL200): the settings a parsed config states that differ from the plan, said in a
network engineer's terms, at the line of the config that states them.

The facts compared are what the device's OS can express (`vendor.expressed`): a fact the
config leaves out reads as the OS default or "not set", so a missing line is drift too.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from lossless.lint.registry import Finding
from lossless.plan import DevicePlan, located
from lossless.text.ranges import runs
from lossless.text.units import format_speed
from lossless.vendors.vendor import Vendor

NOT_SET = "not set"


def _plain(value: Any) -> str:
    if value is None:
        return NOT_SET
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list | tuple):
        return ",".join(str(v) for v in value) if value else "none"
    return str(value)


def _ms(value: Any) -> str:
    return NOT_SET if value is None else f"{value} ms"


def _speed(value: Any) -> str:
    return NOT_SET if not value else format_speed(value)


def _metres(value: Any) -> str:
    return NOT_SET if value is None else f"{value} m"


def _class(value: Any) -> str:
    dscp, priority = value
    return f"DSCP {dscp} in TC {priority}"


def _watchdog(value: Any) -> str:
    if value is None:
        return NOT_SET
    enabled, detection, restoration, action = value
    if not enabled:
        return "off"
    return f"on, detection {detection} ms, restoration {restoration} ms, action {action}"


def _timers(value: Any) -> str:
    if value is None:
        return NOT_SET
    detection, restoration = value
    return f"detection {detection} ms, restoration {restoration} ms"


def _headroom_settings(value: Any) -> str:
    """The inputs of a switch's own headroom computation; one the config leaves out (None)
    is not set: the switch has no default for it."""
    mtu, small, shared, dynamic_th = value
    # (shared None: an OS that states the shared headroom pool as a fact of its own)
    pool = (
        ""
        if shared is None
        else ("shared headroom pool, " if shared else "no shared headroom pool, ")
    )
    small_text = NOT_SET if small is None else f"{small}%"
    return (
        f"lossless MTU {_plain(mtu)}, small packets {small_text}, {pool}"
        f"dynamic_th {_plain(dynamic_th)}"
    )


def _queue_list(value: Any) -> str:
    if value is None:
        return NOT_SET
    return "queue " + runs(list(value)) if value else "none"


# fact -> (label, format of one value); facts whose values are keyed collections are compared
# entry by entry instead (KEYED below).
LABELS: dict[str, tuple[str, Callable[[Any], str]]] = {
    "speed_mbps": ("speed", _speed),
    "lanes": ("lanes", _plain),
    "mtu": ("MTU", _plain),
    "lossy_mtu": (
        "MTU of the traffic outside the lossless class",
        lambda v: "the port's MTU" if v is None else str(v),
    ),
    "lossless": ("lossless (PFC on)", _plain),
    "pfc_priorities": ("PFC priorities", _plain),
    "cable_m": ("cable length", _metres),
    "watchdog_enabled": ("PFC watchdog", lambda v: "on" if v else "off"),
    "watchdog": ("PFC watchdog", _watchdog),
    "lossless_priorities": ("lossless priorities", _plain),
    "roce": ("RoCE class", _class),
    "cnp": ("CNP class", _class),
    "watchdog_poll_ms": ("PFC watchdog poll interval", _ms),
    "watchdog_timers": ("PFC watchdog timers", _timers),
    "ecmp_seed": ("ECMP hash seed", _plain),
    "ecmp_udp_source_port": ("ECMP hash on the UDP source port", _plain),
    "ecmp_hash_fields": ("ECMP hash fields", _plain),
    "ecmp_hash_offset": ("ECMP hash offset", _plain),
    "ecmp_resilient": ("ECMP resilient hashing", _plain),
    "wred_drop_queues": ("queues with WRED drop", _plain),
    "trust": ("QoS trust (what ingress traffic is classified by)", _plain),
    "headroom_settings": ("headroom model settings", _headroom_settings),
    "egress_lossless_queues": ("lossless egress buffer profile", _queue_list),
    "shared_headroom_pool": ("shared headroom pool", _plain),
}


def _map_entries(value: dict) -> dict[Any, str]:
    """A map's entries as text; an entry an OS's facts list with no value is not set."""
    return {key: NOT_SET if entry is None else str(entry) for key, entry in value.items()}


def _percent_entries(value: dict) -> dict[Any, str]:
    return {key: f"{entry}%" for key, entry in value.items()}


def _text_entries(value: dict) -> dict[Any, str]:
    """Entries that are already words (a buffer profile's or pool's fields)."""
    return {key: NOT_SET if entry is None else str(entry) for key, entry in value.items()}


def _queue_entries(value: list) -> dict[Any, str]:
    entries = {}
    for queue, scheduler, weight, lossless, traffic in value:
        share = "" if weight is None else f" {weight}%"
        if scheduler.startswith("strict"):  # a strict queue's weight, where an OS has one, is
            # its cap; "strict at priority level 2": below the highest level (NX-OS)
            how = scheduler if weight is None else f"{scheduler}, capped at {weight}%"
        elif scheduler == "wrr":  # round robin by packets, the weight a share of packets
            how = f"WRR (by packets), weight {weight}"
        else:
            how = f"DWRR{share}"
        entries[queue] = f"{how}{', lossless' if lossless else ''} ({traffic})"
    return entries


def _headroom_entries(value: list) -> dict[Any, str]:
    return {
        pg: "sized by the switch" if xon is None else f"xon {xon} xoff {xoff} size {size} B"
        for pg, xon, xoff, size in value
    }


def _ecn_entries(value: list) -> dict[Any, str]:
    return {q: f"min {lo} max {hi} B, {p}%" for q, lo, hi, p in value}


def _fill_entries(value: list) -> dict[Any, str]:
    return {q: f"{lo}-{hi}% of the queue buffer, {p}%" for q, lo, hi, p in value}


# fact -> (label, name of one entry, entries of a value)
KEYED: dict[str, tuple[str, str, Callable[[Any], dict[Any, str]]]] = {
    "dscp_to_tc": ("DSCP to traffic-class map", "DSCP", _map_entries),
    "tc_to_queue": ("traffic-class to queue map", "TC", _map_entries),
    "tc_to_pg": ("traffic-class to priority-group map", "TC", _map_entries),
    "pfc_priority_to_queue": ("PFC priority to queue map", "priority", _map_entries),
    "buffer_partitions": ("shared-buffer partitions", "partition", _percent_entries),
    "queues": ("egress scheduling", "queue", _queue_entries),
    "headroom": ("PFC headroom", "PG", _headroom_entries),
    "ecn": ("ECN", "queue", _ecn_entries),
    "ecn_percent": ("ECN fill levels", "queue", _fill_entries),
    # which PG's fill sends a pause on which priority (SONiC PFC_PRIORITY_TO_PRIORITY_GROUP_MAP)
    "pfc_priority_to_pg": ("PFC priority to priority-group map", "priority", _map_entries),
    "lossless_profile": ("lossless PG buffer profile", "PG", _text_entries),
}


def _order(key: Any) -> tuple[int, Any]:
    return (0, key) if isinstance(key, int) else (1, str(key))


def describe(fact: str, have: Any, want: Any) -> str:
    """One line saying how the config's value of a fact differs from the plan's."""
    if fact in KEYED:
        label, entry_name, entries = KEYED[fact]
        have_entries = entries(have) if have is not None else {}
        want_entries = entries(want) if want is not None else {}
        by_change: dict[tuple[str, str], list[Any]] = {}
        for key in sorted(set(have_entries) | set(want_entries), key=_order):
            pair = (have_entries.get(key, NOT_SET), want_entries.get(key, NOT_SET))
            if pair[0] != pair[1]:
                by_change.setdefault(pair, []).append(key)
        changes = [
            f"{entry_name} {runs(keys)}: {config} in the config, {plan} in the plan"
            for (config, plan), keys in by_change.items()
        ]
        return f"{label}: " + "; ".join(changes)
    label, show = LABELS.get(fact, (fact.replace("_", " "), _plain))
    return f"{label} is {show(have)} in the config, {show(want)} in the plan"


# What a priority that is no longer lossless takes with it: a port's headroom, ECN and PFC
# watchdog are set for its lossless class (each OS's parser reads them for lossless ports
# only), and the switch's lossless priorities, watchdog timers and lossless queues follow.
# One cause is one finding: these are folded into the PFC finding, which names them.
LOST_WITH_PFC_PORT = (
    "lossless",
    "cable_m",
    "headroom",
    "lossless_profile",
    "egress_lossless_queues",
    "ecn",
    "ecn_percent",
    "watchdog",
    "watchdog_enabled",
)
LOST_WITH_PFC_DEVICE = (
    "lossless_priorities",
    "pfc_priority_to_pg",
    "watchdog_poll_ms",
    "watchdog_timers",
)
# A port fact a config does not state at all because another fact's line is missing or
# wrong (a lossless profile without xoff is no lossless profile: SONiC) is that finding's.
FOLDED_INTO = {"lossless_profile": "headroom"}
# The switch-wide watchdog timers are compared where the watchdog runs: where the config
# turns it off on a port the plan has it on, that is the finding (the timers the config
# states are not "not set").
LOST_WITH_WATCHDOG_DEVICE = ("watchdog_poll_ms", "watchdog_timers")


def _watchdog_off(want: dict, have: dict) -> bool:
    """The plan runs the port's watchdog and the config does not."""
    for key in ("watchdog", "watchdog_enabled"):
        if key in want:
            planned, read = want[key], have.get(key)
            on = planned[0] if isinstance(planned, tuple) else bool(planned)
            off = read is None or (read[0] is False if isinstance(read, tuple) else not read)
            return on and off
    return False


def _lost(want: dict, have: dict) -> list[int]:
    """The planned PFC priorities a port's config does not make lossless."""
    if "pfc_priorities" not in want:
        return []
    return sorted(set(want["pfc_priorities"]) - set(have["pfc_priorities"]))


def _without_lossless(queues: list) -> list:
    """Egress scheduling without which queue is lossless (the PFC finding says it)."""
    return [
        (queue, scheduler, weight, False, "default" if traffic == "roce" else traffic)
        for queue, scheduler, weight, _, traffic in queues
    ]


# The facts that decide which queue carries RoCE and CNP (and so which queue the egress
# scheduling calls lossless, roce or cnp)
CARRIED_BY = ("dscp_to_tc", "tc_to_queue", "pfc_priority_to_queue", "roce", "cnp")


def _carried_elsewhere(want: dict, have: dict) -> bool:
    """The queues are scheduled as planned, and differ only in which of them carries RoCE or
    CNP, which a map the config states differently decides: that map's finding is the one
    (the scheduling lines are as planned)."""

    def scheduling(queues: list | None) -> list:
        return [(queue, scheduler, weight) for queue, scheduler, weight, *_ in queues or []]

    return scheduling(want["queues"]) == scheduling(have.get("queues")) and any(
        key in want and want[key] != have.get(key) for key in CARRIED_BY
    )


def _only_unset(want: dict, have: dict | None, priorities: set[int]) -> bool:
    """A priority-keyed map (TC or PFC priority -> queue) differs only in entries of
    `priorities` that the config's map lacks: each OS's map is compared where traffic uses
    it, and those priorities are lossy here, which their PFC finding says. (The config's line
    still states the queue: "not set" would be untrue of the file.)"""
    have = have or {}
    differ = {k for k in want.keys() | have.keys() if want.get(k) != have.get(k)}
    return bool(differ) and all(k in priorities and k not in have for k in differ)


def _only_classes(want: dict, have: dict) -> bool:
    """The DSCP map differs only in RoCE's or CNP's DSCP, whose class the config also states
    otherwise: the "RoCE class" / "CNP class" finding is the one (one cause, one finding)."""
    dscps = {
        want[fact][0] for fact in ("roce", "cnp") if fact in want and want[fact] != have.get(fact)
    }
    planned, read = want["dscp_to_tc"], have.get("dscp_to_tc") or {}
    differ = {d for d in planned.keys() | read.keys() if planned.get(d) != read.get(d)}
    return bool(differ) and differ <= dscps


def _what_is_lost(lost: list[int]) -> str:
    which = ", ".join(str(p) for p in lost)
    return (
        f": priority {which} is lossy here, so its headroom, ECN marking and PFC watchdog, "
        "and the switch's lossless queue, are not applied"
        if len(lost) == 1
        else f": priorities {which} are lossy here, so their headroom, ECN marking and PFC "
        "watchdog, and the switch's lossless queues, are not applied"
    )


def _without_size(headroom: list | None) -> list:
    """A port's headroom without each PG's reserved size (what the shared headroom pool sets)."""
    return [entry[:3] for entry in headroom or []]


def _one_queue(parsed: DevicePlan, want: list, have: list | None) -> str | None:
    """Where the config states the one queue whose scheduling differs from the plan's (its
    `queues.N` source: the line that schedules it, or its block), when one queue differs."""
    planned, read = {e[0]: e for e in want}, {e[0]: e for e in have or []}
    differ = [q for q in planned.keys() | read.keys() if planned.get(q) != read.get(q)]
    return parsed.sources.get(f"queues.{differ[0]}") if len(differ) == 1 else None


def _said(vendor: Vendor, fact: str, have: Any, want: Any) -> str:
    """The difference, and what the switch then does where its OS says (Vendor.consequences)."""
    message = describe(fact, have, want)
    consequence = vendor.consequences.get(fact)
    said = consequence(have, want) if consequence is not None else None
    return f"{message}: {said}" if said else message


def drift(planned: DevicePlan, parsed: DevicePlan, vendor: Vendor) -> list[Finding]:
    """LL200 findings: every fact the OS can express whose parsed value differs from the plan
    (the plan in the OS's own terms where its vendor says how it renders it: `as_rendered`;
    a `planned` read from a config, our rendered one, is in those terms already). A planned
    lossless priority the config leaves lossy is one finding per port, naming what it takes
    with it (LOST_WITH_PFC_*), not one per consequence."""
    intended = planned if planned.from_config else vendor.as_rendered(planned)
    want, have = vendor.expressed(intended), vendor.expressed(parsed)
    findings = []
    lost_anywhere = any(
        _lost(wanted, have["ports"][name])
        for name, wanted in want["ports"].items()
        if name in have["ports"]
    )
    watchdog_off = any(
        _watchdog_off(wanted, have["ports"][name])
        for name, wanted in want["ports"].items()
        if name in have["ports"]
    )
    # a PG's reserved headroom (size) is xon with a shared headroom pool and xon + xoff
    # without one: where the config's pool differs, that finding says it, not every PG's
    pool_differs = "shared_headroom_pool" in want and want["shared_headroom_pool"] != have.get(
        "shared_headroom_pool"
    )
    lost_priorities = {
        p
        for name, wanted in want["ports"].items()
        if name in have["ports"]
        for p in _lost(wanted, have["ports"][name])
    }
    for key in sorted(set(want) - {"ports"}):
        if lost_anywhere and key in LOST_WITH_PFC_DEVICE:
            continue
        if key in ("tc_to_queue", "pfc_priority_to_queue") and _only_unset(
            want[key], have.get(key), lost_priorities
        ):
            continue
        if key == "dscp_to_tc" and _only_classes(want, have):
            continue
        if watchdog_off and key in LOST_WITH_WATCHDOG_DEVICE:
            continue
        if (
            lost_anywhere
            and key == "queues"
            and _without_lossless(want[key]) == _without_lossless(have.get(key) or [])
        ):
            continue
        if key == "queues" and _carried_elsewhere(want, have):
            continue
        if want[key] != have.get(key):
            findings.append(
                Finding(
                    (_one_queue(parsed, want[key], have.get(key)) if key == "queues" else None)
                    or located(parsed, key),
                    "LL200",
                    "error",
                    _said(vendor, key, have.get(key), want[key]),
                    parsed.name,
                    facts=(key,),
                )
            )
    for name in sorted(set(want["ports"]) | set(have["ports"])):
        planned_port, parsed_port = want["ports"].get(name), have["ports"].get(name)
        port = parsed.ports.get(name)
        if parsed_port is None or port is None:
            findings.append(
                Finding(
                    parsed.source,
                    "LL200",
                    "error",
                    f"{name} is not in the config",
                    parsed.name,
                    name,
                )
            )
            continue
        if planned_port is None:
            continue  # a port lossless does not plan is the device's own business
        lost = _lost(planned_port, parsed_port)
        for key in planned_port:
            if lost and key in LOST_WITH_PFC_PORT:
                continue
            folded = FOLDED_INTO.get(key)
            if (
                folded is not None
                and parsed_port.get(key) is None
                and planned_port.get(folded) != parsed_port.get(folded)
            ):
                continue  # not read at all, for the cause the other fact's finding names
            if (
                key == "headroom"
                and pool_differs
                and _without_size(planned_port[key]) == _without_size(parsed_port.get(key))
            ):
                continue
            if planned_port[key] != parsed_port.get(key):
                message = _said(vendor, key, parsed_port.get(key), planned_port[key])
                if key == "pfc_priorities" and lost:
                    message += _what_is_lost(lost)
                findings.append(
                    Finding(
                        located(port, key),
                        "LL200",
                        "error",
                        message,
                        parsed.name,
                        name,
                        facts=(key,),
                    )
                )
    return findings
