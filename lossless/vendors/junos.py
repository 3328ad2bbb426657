"""Juniper Junos (QFX), brace format with one statement per line
(docs/reference/vendors.md section 3).

DSCP classifier to forwarding classes (RoCE no-loss with its PFC priority, CNP strict-high),
a congestion-notification profile per cable length (DSCP-based PFC, cable-length in metres,
PFC watchdog), schedulers with ECN drop profiles whose fill levels are percent of the buffer
the lossless queue can use: the PFC trigger of the plan (docs/reference/physics.md 3.4).
"""

from __future__ import annotations

import math
import re
from typing import Any

from lossless.plan import DevicePlan, FabricPlan, PortPlan
from lossless.units import whole_metres
from lossless.vendors.common import earliest_ecn, expressed_facts, group
from lossless.vendors.junos_parse import parse, parse_file  # noqa: F401  (this OS's parser)

TEMPLATE = "junos/device.conf.j2"
EXTENSION = "conf"
ROCE_CLASS = "NO-LOSS"
CNP_CLASS = "CNP"
DEFAULT_CLASS = "best-effort"


def code_point(dscp: int) -> str:
    return format(dscp, "06b")


def fill_percent(value: int, buffer: int | None) -> int:
    """A byte threshold as percent of the queue's usable buffer, 1..100 (rounded up)."""
    if not buffer:
        return 100
    return max(1, min(100, math.ceil(100 * value / buffer)))


def pfc_profile_name(port: PortPlan) -> str:
    return f"ROCE_PFC_{whole_metres(port.cable_m or 0)}M"


def context(device: DevicePlan, fabric: FabricPlan) -> dict[str, Any]:
    lossless = [p for p in device.ports.values() if p.lossless]
    queues = {q.traffic: q for q in device.queues}
    ecn = earliest_ecn(lossless)
    wd = device.watchdog
    profiles = [
        {
            "name": name,
            "cable_m": whole_metres(ports[0].cable_m or 0),
        }
        for name, ports in group(lossless, pfc_profile_name).items()
    ]
    return {
        "roce_class": ROCE_CLASS,
        "cnp_class": CNP_CLASS,
        "default_class": DEFAULT_CLASS,
        "roce_code_point": code_point(device.roce_dscp),
        "cnp_code_point": code_point(device.cnp_dscp),
        "roce_queue": queues["roce"].queue,
        "roce_priority": device.roce_priority,
        "roce_priority_bits": format(device.roce_priority, "03b"),
        "cnp_queue": queues["cnp"].queue,
        "roce_rate": queues["roce"].weight,
        "default_rate": queues["default"].weight,
        "ecn": None
        if ecn is None
        else {
            "low": fill_percent(ecn.min_bytes, ecn.pfc_trigger_bytes),
            "high": fill_percent(ecn.max_bytes, ecn.pfc_trigger_bytes),
            "probability": ecn.probability_percent,
        },
        "watchdog": None
        if not wd.enabled
        else {
            "poll": wd.poll_ms,
            "detection": max(1, math.ceil(wd.detection_ms / wd.poll_ms)),
            "recovery": wd.restoration_ms,
        },
        "pfc_profiles": profiles,
        "ports": [
            {
                "name": p.name,
                "description": p.description or (f"peer {p.peer}" if p.peer else ""),
                "mtu": p.mtu,
                "pfc_profile": pfc_profile_name(p) if p.lossless else None,
            }
            for p in device.ports.values()
        ],
        "hash_ports": device.ecmp.hashes_udp_source_port,
    }


def expressed(device: DevicePlan) -> dict[str, Any]:
    """What a Junos config says about a device (compared on for round trip and drift). ECN
    thresholds are compared as the fill-level percentages Junos holds."""
    facts = expressed_facts(
        device,
        ("mtu", "lossless", "pfc_priorities", "cable_m", "watchdog_enabled"),
        (
            "dscp_to_tc",
            "tc_to_queue",
            "queues",
            "lossless_priorities",
            "roce",
            "cnp",
            "watchdog_poll_ms",
            "ecmp_udp_source_port",
        ),
    )
    for port in device.ports.values():
        facts["ports"][port.name]["ecn_percent"] = sorted(
            (
                e.queue,
                fill_percent(e.min_bytes, e.pfc_trigger_bytes),
                fill_percent(e.max_bytes, e.pfc_trigger_bytes),
                e.probability_percent,
            )
            for e in port.ecn
        )
    return facts


OWNED_STATEMENTS = ("set class-of-service ", "set forwarding-options hash-key ")
_INTERFACE_LINE = re.compile(r"set interfaces (\S+) (mtu|description) ")


# Plan values this config does not render (vendors/__init__.py PLAN_VALUES).
NOT_EXPRESSED = {
    "ecmp.seed": "Junos hash seed not rendered yet",
    "ecmp.hash_offset": "Junos has no hash offset in our output",
    "ecmp.resilient": "Junos resilient hashing not rendered yet",
    "headroom.bytes": "Junos sizes PFC headroom from the cable-length of the CNP profile",
}

DIFF_KIND = "set-commands"


def diff(running: str, intended: str) -> list[str]:
    """Junos `set`/`delete` statements for the lossless-owned part of the config: all of
    class-of-service and the hash key, and the MTU and description of our interfaces."""
    from hier_config import Platform

    from lossless.vendors.remediation import set_line_remediation

    ours = {m.group(1) for m in _INTERFACE_LINE.finditer(intended)}
    ours |= set(re.findall(r"^    (\S+) \{$", intended.split("class-of-service {")[0], re.M))

    def owns(statement: str) -> bool:
        match = _INTERFACE_LINE.match(statement + " ")
        return statement.startswith(OWNED_STATEMENTS) or bool(match and match.group(1) in ours)

    return set_line_remediation(Platform.JUNIPER_JUNOS, running, intended, owns)
