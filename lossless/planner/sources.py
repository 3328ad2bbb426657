"""Where the inventory stated each fact of a plan: the line a finding about it points at.

A port's MTU, ECN or watchdog comes from the most specific policy layer that sets it (the
fabric, a role, a device, a port profile or the port); a fact left at the built-in default
points at the port or device itself. A change of the fabric MTU then gives one finding at
the fabric's `mtu:` line, not one per port at each port's line.
"""

from __future__ import annotations

from lossless.model import Endpoint, Inventory, Location
from lossless.plan import DevicePlan

# plan fact (vendors.common PORT_FACTS / DEVICE_FACTS) -> policy keys, most specific first
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


def attach_sources(plans: dict[str, DevicePlan], inventory: Inventory) -> None:
    """Fill `sources` of every device and port plan from the inventory's policy origins. Ports
    of one range share one origin mapping, and so one sources mapping."""
    memo: dict[int, dict[str, str]] = {}  # id of an origin mapping (alive for the call)
    linked: dict[tuple[int, Location], dict[str, str]] = {}  # the same, with a link's line
    for plan in plans.values():
        device = inventory.devices[plan.name]
        plan.sources = _sources(device.policy_origin, DEVICE_FACT_POLICY)
        for name, port_plan in plan.ports.items():
            origin = device.ports[name].policy_origin
            if id(origin) not in memo:
                memo[id(origin)] = _sources(origin, PORT_FACT_POLICY)
            port_plan.sources = memo[id(origin)]
            link = inventory.link_at(Endpoint(plan.name, name))
            if link is not None:  # the cable length is the link's
                key = (id(origin), link.where)
                if key not in linked:
                    linked[key] = {**memo[id(origin)], "cable_m": str(link.where)}
                port_plan.sources = linked[key]
