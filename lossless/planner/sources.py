"""Where the inventory stated each fact of a plan: the line a finding about it points at.

A port's MTU, ECN or watchdog comes from the most specific policy layer that sets it (the
fabric, a role, a device, a port profile or the port); a fact left at the built-in default
points at the port or device itself. A change of the fabric MTU then gives one finding at
the fabric's `mtu:` line, not one per port at each port's line.
"""

from __future__ import annotations

from lossless.model import Device, Link, Location, Port

# plan fact (vendors.facts PORT_FACTS / DEVICE_FACTS) -> policy keys, most specific first
PORT_FACT_POLICY = {
    "mtu": ("mtu",),
    "ecn": ("ecn",),
    "watchdog": ("pfc_watchdog",),
    "watchdog_enabled": ("pfc_watchdog.enabled", "pfc_watchdog"),
    "pfc_priorities": ("roce.data.priority", "roce.data", "roce"),
    "lossless": ("roce.data.priority", "roce.data", "roce"),
    "headroom": ("headroom",),
}
DEVICE_FACT_POLICY = {
    "dscp_to_tc": ("roce",),
    "roce": ("roce.data", "roce"),
    "cnp": ("roce.cnp", "roce"),
    "lossless_priorities": ("roce.data.priority", "roce.data", "roce"),
    "queues": ("scheduler", "roce"),
    "watchdog_poll_ms": ("pfc_watchdog.poll_ms", "pfc_watchdog"),
    "watchdog_timers": ("pfc_watchdog",),
    "ecmp_seed": ("ecmp.seed", "ecmp"),
    "ecmp_udp_source_port": ("ecmp.hash_fields", "ecmp"),
    "ecmp_hash_fields": ("ecmp.hash_fields", "ecmp"),
    "ecmp_resilient": ("ecmp.resilient", "ecmp"),
    "headroom_settings": ("headroom",),
    "budget": ("headroom",),
}


def _sources(origin: dict[str, Location], facts: dict[str, tuple[str, ...]]) -> dict[str, str]:
    sources = {}
    for fact, keys in facts.items():
        where = next((origin[key] for key in keys if key in origin), None)
        if where is not None:
            sources[fact] = str(where)
    return sources


class Sources:
    """The sources of device and port plans. Ports of one range share one origin mapping,
    and so one sources mapping; so do those whose cable is stated on one link line, and the
    devices of one range."""

    def __init__(self) -> None:
        # keyed by the id of an origin mapping: the inventory keeps each alive for the run
        self._by_origin: dict[int, dict[str, str]] = {}
        self._by_device_origin: dict[int, dict[str, str]] = {}
        self._linked: dict[tuple[int, Location], dict[str, str]] = {}

    def of_device(self, device: Device) -> dict[str, str]:
        origin = device.policy_origin
        sources = self._by_device_origin.get(id(origin))
        if sources is None:
            sources = self._by_device_origin[id(origin)] = _sources(origin, DEVICE_FACT_POLICY)
        return sources

    def of_port(self, port: Port, link: Link | None) -> dict[str, str]:
        origin = port.policy_origin
        sources = self._by_origin.get(id(origin))
        if sources is None:
            sources = self._by_origin[id(origin)] = _sources(origin, PORT_FACT_POLICY)
        if link is None:
            return sources
        key = (id(origin), link.where)  # the cable length is the link's
        linked = self._linked.get(key)
        if linked is None:
            linked = self._linked[key] = {**sources, "cable_m": str(link.where)}
        return linked
