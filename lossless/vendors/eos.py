"""Arista EOS: CLI as `show running-config` prints it (docs/reference/vendors.md section 1).

Maps are global (`qos map`), per-port QoS lives in `qos profile`s applied with
`service-profile`: one profile per distinct set of ECN thresholds. Watchdog timers are in
seconds. Headroom bytes go to a Trident MMU queue profile on Trident ASICs; other EOS
platforms size headroom themselves (no knob), so there the plan's headroom is informational.
"""

from __future__ import annotations

from typing import Any

from lossless.plan import DevicePlan, EcnPlan, FabricPlan, PortPlan
from lossless.vendors.common import expressed_facts, group, seconds
from lossless.vendors.eos_parse import parse, parse_file  # noqa: F401  (this OS's parser)

TEMPLATE = "eos/device.cfg.j2"
EXTENSION = "cfg"
PROFILE = "ROCE_LOSSLESS"


def threshold(value: int) -> str:
    """ECN threshold in the largest EOS unit that holds it exactly."""
    if value % 1_000_000 == 0:
        return f"{value // 1_000_000} mbytes"
    if value % 1000 == 0:
        return f"{value // 1000} kbytes"
    return f"{value} bytes"


def speed(port: PortPlan) -> str:
    return f"{port.speed_mbps // 1000}g-{port.lanes}"


def _ecn_key(port: PortPlan) -> tuple:
    return tuple((e.queue, e.min_bytes, e.max_bytes, e.probability_percent) for e in port.ecn)


def _profile(name: str, device: DevicePlan, ecn: list[EcnPlan]) -> dict[str, Any]:
    by_queue = {e.queue: e for e in ecn}
    queues = []
    for queue in device.queues:
        mark = by_queue.get(queue.queue)
        queues.append(
            {
                "id": queue.queue,
                "strict": queue.scheduler == "strict",
                "bandwidth": queue.weight,
                "ecn": None
                if mark is None
                else {
                    "min": threshold(mark.min_bytes),
                    "max": threshold(mark.max_bytes),
                    "probability": mark.probability_percent,
                },
            }
        )
    return {"name": name, "queues": queues}


def context(device: DevicePlan, fabric: FabricPlan) -> dict[str, Any]:
    lossless = [p for p in device.ports.values() if p.lossless]
    groups = group(lossless, _ecn_key)
    profiles = []
    profile_of: dict[str, str] = {}
    for index, ports in enumerate(groups.values()):
        name = PROFILE if index == 0 else f"{PROFILE}_{index + 1}"
        profiles.append(_profile(name, device, ports[0].ecn))
        for port in ports:
            profile_of[port.name] = name
    maps = device.maps
    dscp_maps = [(d, tc) for d, tc in sorted(maps.dscp_to_tc.items()) if tc != 0]
    wd = device.watchdog
    trident = device.asic.startswith("trident")
    return {
        "device": device,
        "dscp_maps": dscp_maps,
        "tc_queue_maps": sorted({(tc, maps.tc_to_queue[tc]) for _, tc in dscp_maps}),
        "lossless_priorities": device.lossless_priorities,
        "watchdog": {
            "enabled": wd.enabled,
            "timeout": seconds(wd.detection_ms, 2),
            "polling": seconds(wd.poll_ms, 3),
            "recovery": seconds(wd.restoration_ms, 2),
            "action": "drop" if wd.action == "drop" else "notify-only",
        },
        "profiles": profiles,
        "ports": [
            {
                "name": p.name,
                "description": p.description or (f"peer {p.peer}" if p.peer else ""),
                "mtu": p.mtu,
                "speed": speed(p),
                "profile": profile_of.get(p.name),
                "ecn_queues": [e.queue for e in p.ecn],
            }
            for p in device.ports.values()
        ],
        "mmu": _mmu(device) if trident else None,
    }


def _mmu(device: DevicePlan) -> dict[str, Any] | None:
    """Trident MMU profile: the largest lossless headroom of the device (conservative)."""
    headrooms = [h for p in device.ports.values() for h in p.headroom]
    if not headrooms:
        return None
    largest = max(headrooms, key=lambda h: h.size)
    return {
        "name": "ROCE_MMU",
        "pg": largest.priority_group,
        "headroom": largest.xoff,
        "reserved": largest.xon,
    }


def expressed(device: DevicePlan) -> dict[str, Any]:
    """What an EOS config says about a device (compared on for round trip and drift).
    The watchdog action is compared as EOS has it: drop, or notify-only for anything else."""
    facts = expressed_facts(
        device,
        ("speed_mbps", "lanes", "mtu", "lossless", "pfc_priorities", "ecn", "watchdog"),
        (
            "dscp_to_tc",
            "tc_to_queue",
            "queues",
            "lossless_priorities",
            "roce",
            "cnp",
            "watchdog_poll_ms",
        ),
    )
    for port in facts["ports"].values():
        if port["watchdog"] is not None:
            enabled, detection, restoration, action = port["watchdog"]
            port["watchdog"] = (
                enabled,
                detection,
                restoration,
                "drop" if action == "drop" else "notify-only",
            )
    return facts


# Whole QoS domains lossless owns on EOS; other sections only when the intended config has them.
OWNED_SECTIONS = (
    "qos map ",
    "priority-flow-control ",
    "hardware counter feature ecn",
    "platform trident mmu ",
)
OWNED_INTERFACE_LINES = ("mtu ", "speed ", "description ", "service-profile ", "tx-queue ")


# Plan values this config does not render (vendors/__init__.py PLAN_VALUES).
NOT_EXPRESSED = {
    "ecmp.seed": "EOS load-balance seed not rendered yet",
    "ecmp.hash_offset": "EOS has no per-switch hash offset in our output yet",
    "ecmp.hash_fields": "EOS load-balance fields not rendered yet",
    "ecmp.resilient": "EOS resilient ECMP not rendered yet",
    "headroom.bytes": "EOS sizes PFC headroom itself (only Trident MMU takes bytes)",
}

DIFF_KIND = "remediation"


def diff(running: str, intended: str) -> list[str]:
    """EOS remediation lines (hier_config) for the lossless-owned part of the config."""
    from hier_config import Platform

    from lossless.vendors.remediation import cli_remediation

    return cli_remediation(
        Platform.ARISTA_EOS,
        running,
        intended,
        lambda text: text.startswith(OWNED_SECTIONS),
        lambda line: line.startswith(OWNED_INTERFACE_LINES),
    )
