"""Small helpers the vendor modules share (grouping, number formatting)."""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Iterable
from typing import Any, TypeVar

T = TypeVar("T")
K = TypeVar("K", bound=Hashable)


def group(items: Iterable[T], key: Callable[[T], K]) -> dict[K, list[T]]:
    """Items grouped by key, groups in order of first appearance."""
    groups: dict[K, list[T]] = {}
    for item in items:
        groups.setdefault(key(item), []).append(item)
    return groups


def seconds(ms: int, decimals: int) -> str:
    """Milliseconds as seconds with at most `decimals` decimals: 200 -> '0.2'."""
    text = f"{ms / 1000:.{decimals}f}".rstrip("0").rstrip(".")
    return text or "0"


def queue_plan(queue: int, strict: bool, weight: int | None, lossless_queues: set[int]) -> Any:
    """A parsed queue: lossless ones carry RoCE, a strict one carries CNP, the rest default."""
    from lossless.plan import QueuePlan

    lossless = queue in lossless_queues
    traffic = "roce" if lossless else ("cnp" if strict else "default")
    return QueuePlan(
        queue, "strict" if strict else "dwrr", None if strict else weight, lossless, traffic
    )


def read_config(path: str) -> str:
    """A config file's text (a regular file, size-capped, UTF-8), or bad input naming it."""
    from lossless.system.files import read_text

    return read_text(path, "config")


def earliest_ecn(ports: Iterable[Any]) -> Any:
    """For an OS whose ECN is set once for the whole switch: of the lossless ports' ECN plans,
    the one that marks earliest (smallest max threshold), or None."""
    return min(
        (e for p in ports if p.lossless for e in p.ecn), key=lambda e: e.max_bytes, default=None
    )


def top_level_lines(text: str) -> dict[str, int]:
    """1-based line number of each unindented line of a CLI config (first occurrence)."""
    lines: dict[str, int] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if line and not line[0].isspace():
            lines.setdefault(line.rstrip(), number)
    return lines


def classify_traffic(device: Any, dscps_known: bool) -> None:
    """The classes a parsed config gives RoCE and CNP traffic.

    With the inventory (`dscps_known`), the DSCPs are what the hosts send and the classes are
    whatever the config maps those DSCPs to, so a config that puts DSCP 26 in a lossy class
    says so. A config alone does not say which DSCPs the hosts use: RoCE is then taken as the
    lossless priority and CNP as the class of the strict-priority queue, each one's DSCP the
    lowest mapped to it."""
    maps = device.maps
    if dscps_known:
        device.roce_priority = maps.dscp_to_tc.get(device.roce_dscp, 0)
        device.cnp_priority = maps.dscp_to_tc.get(device.cnp_dscp, 0)
        return
    if device.lossless_priorities:
        device.roce_priority = device.lossless_priorities[0]
        dscps = sorted(d for d, tc in maps.dscp_to_tc.items() if tc == device.roce_priority)
        if dscps:
            device.roce_dscp = dscps[0]
    strict = [q for q in device.queues if q.scheduler == "strict"]
    if strict:
        cnp_tc = next(
            (tc for tc, q in sorted(maps.tc_to_queue.items()) if q == strict[0].queue), None
        )
        if cnp_tc is not None:
            device.cnp_priority = cnp_tc
            dscps = sorted(d for d, tc in maps.dscp_to_tc.items() if tc == cnp_tc)
            if dscps:
                device.cnp_dscp = dscps[0]


PORT_FACTS: dict[str, Callable[[Any], Any]] = {
    "speed_mbps": lambda p: p.speed_mbps,
    "lanes": lambda p: p.lanes,
    "mtu": lambda p: p.mtu,
    "lossless": lambda p: p.lossless,
    "pfc_priorities": lambda p: sorted(p.pfc_priorities),
    "cable_m": lambda p: math.ceil(p.cable_m) if p.lossless and p.cable_m else None,
    # a PG the switch sizes itself has no bytes in the config: (pg, None, None, None)
    "headroom": lambda p: sorted(
        (h.priority_group, None, None, None)
        if h.by_switch
        else (h.priority_group, h.xon, h.xoff, h.size)
        for h in p.headroom
    ),
    "ecn": lambda p: sorted(
        (e.queue, e.min_bytes, e.max_bytes, e.probability_percent) for e in p.ecn
    ),
    "wred_drop_queues": lambda p: sorted(p.wred_drop_queues),
    "trust": lambda p: p.trust,
    "watchdog_enabled": lambda p: bool(p.watchdog and p.watchdog.enabled),
    "watchdog": lambda p: (
        None
        if p.watchdog is None
        else (
            p.watchdog.enabled,
            p.watchdog.detection_ms,
            p.watchdog.restoration_ms,
            p.watchdog.action,
        )
    ),
}

DEVICE_FACTS: dict[str, Callable[[Any], Any]] = {
    "dscp_to_tc": lambda d: dict(d.maps.dscp_to_tc),
    "tc_to_queue": lambda d: dict(d.maps.tc_to_queue),
    "tc_to_pg": lambda d: dict(d.maps.tc_to_pg),
    "pfc_priority_to_queue": lambda d: dict(d.maps.pfc_priority_to_queue),
    "queues": lambda d: [(q.queue, q.scheduler, q.weight, q.lossless, q.traffic) for q in d.queues],
    "lossless_priorities": lambda d: sorted(d.lossless_priorities),
    "roce": lambda d: (d.roce_dscp, d.roce_priority),
    "cnp": lambda d: (d.cnp_dscp, d.cnp_priority),
    "watchdog_poll_ms": lambda d: d.watchdog.poll_ms if d.watchdog.enabled else None,
    # switch-wide watchdog timers (an OS whose timers are not per port compares these)
    "watchdog_timers": lambda d: (
        (d.watchdog.detection_ms, d.watchdog.restoration_ms) if d.watchdog.enabled else None
    ),
    "ecmp_seed": lambda d: d.ecmp.seed,
    "ecmp_udp_source_port": lambda d: d.ecmp.hashes_udp_source_port,
    "ecmp_hash_fields": lambda d: sorted(d.ecmp.hash_fields),
    "ecmp_hash_offset": lambda d: d.ecmp.hash_offset,
    "ecmp_resilient": lambda d: d.ecmp.resilient,
    "buffer_partitions": lambda d: dict(d.buffer_partitions),
    "headroom_settings": lambda d: (
        d.headroom_settings.lossless_mtu,
        d.headroom_settings.small_packet_percent,
        d.headroom_settings.shared_headroom_pool,
        d.headroom_settings.dynamic_th,
    ),
}


def expressed_facts(device: Any, port_facts: Iterable[str], device_facts: Iterable[str]) -> dict:
    """The facts of a device plan an OS's config can express: what a parsed config is compared
    on, for the round trip and for drift."""
    port_keys, device_keys = list(port_facts), list(device_facts)
    facts: dict[str, Any] = {key: DEVICE_FACTS[key](device) for key in device_keys}
    facts["ports"] = {
        port.name: {key: PORT_FACTS[key](port) for key in port_keys}
        for port in device.ports.values()
    }
    return facts
