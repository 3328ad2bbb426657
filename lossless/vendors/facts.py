"""The facts of a plan a config can state, by name: what a parsed config is compared on (the
round trip, drift LL200) and what a finding points at (a plan's `sources`, a rule's `facts`).
Each OS's `expressed` picks the facts its config can say."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from typing import Any

PORT_FACTS: dict[str, Callable[[Any], Any]] = {
    "speed_mbps": lambda p: p.speed_mbps,
    "lanes": lambda p: p.lanes,
    "mtu": lambda p: p.mtu,
    "lossy_mtu": lambda p: p.lossy_mtu,
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


def _scheduler(queue: Any, levels: dict[int, int]) -> str:
    level = levels.get(queue.queue, 1) if queue.scheduler == "strict" else 1
    return queue.scheduler if level == 1 else f"{queue.scheduler} at priority level {level}"


DEVICE_FACTS: dict[str, Callable[[Any], Any]] = {
    "dscp_to_tc": lambda d: dict(d.maps.dscp_to_tc),
    "tc_to_queue": lambda d: dict(d.maps.tc_to_queue),
    "tc_to_pg": lambda d: dict(d.maps.tc_to_pg),
    "pfc_priority_to_queue": lambda d: dict(d.maps.pfc_priority_to_queue),
    # a strict queue below the highest level (NX-OS `priority level 2`) says its level: the
    # plan's is the highest, 1
    "queues": lambda d: [
        (q.queue, _scheduler(q, d.strict_levels), q.weight, q.lossless, q.traffic) for q in d.queues
    ],
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
