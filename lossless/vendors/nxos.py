"""Cisco NX-OS (Nexus 9000 Cloud Scale), CLI as `show running-config` prints it
(docs/reference/vendors.md section 2).

DSCP classification per interface (qos policy), the no-drop class and MTU in the system
network-qos policy, headroom in the ingress queuing policy (bytes), ECN and scheduling in the
egress queuing policy. The system policies apply to every port, so the ingress headroom is
the largest of the device's lossless ports.
"""

from __future__ import annotations

from typing import Any

from lossless.plan import DevicePlan, FabricPlan
from lossless.vendors.common import earliest_ecn, expressed_facts, group
from lossless.vendors.nxos_parse import parse, parse_file  # noqa: F401  (this OS's parser)

TEMPLATE = "nxos/device.cfg.j2"
EXTENSION = "cfg"
QUEUES = 8


def kbytes(value: int) -> str:
    """NX-OS WRED thresholds: kbytes where exact, else bytes."""
    return f"{value // 1000} kbytes" if value % 1000 == 0 else f"{value} bytes"


def context(device: DevicePlan, fabric: FabricPlan) -> dict[str, Any]:
    classes = []
    for tc, dscps in group(
        sorted(d for d, tc in device.maps.dscp_to_tc.items() if tc != 0),
        lambda d: device.maps.dscp_to_tc[d],
    ).items():
        names = {device.roce_priority: "ROCE", device.cnp_priority: "CNP"}
        name = names.get(tc, f"TC{tc}")
        classes.append({"name": name, "dscps": " ".join(map(str, dscps)), "qos_group": tc})
    lossless_ports = [p for p in device.ports.values() if p.lossless]
    headrooms = [h for p in lossless_ports for h in p.headroom]
    largest = max(headrooms, key=lambda h: h.size) if headrooms else None
    mtu = max((p.mtu for p in device.ports.values()), default=9216)
    # One egress policy for the whole switch: take the thresholds that mark earliest.
    ecn = earliest_ecn(lossless_ports)
    plans = {q.queue: q for q in device.queues}
    egress = []
    for queue in reversed(range(QUEUES)):
        plan = plans.get(queue)
        egress.append(
            {
                "name": "c-out-8q-q-default" if queue == 0 else f"c-out-8q-q{queue}",
                "priority": plan is not None and plan.scheduler == "strict",
                "bandwidth": 0 if plan is None or plan.weight is None else plan.weight,
                "ecn": None
                if plan is None or not plan.lossless or ecn is None
                else {
                    "min": kbytes(ecn.min_bytes),
                    "max": kbytes(ecn.max_bytes),
                    "probability": ecn.probability_percent,
                },
            }
        )
    return {
        "device": device,
        "classes": classes,
        "no_drop": [
            {"queue": device.maps.pfc_priority_to_queue[p], "cos": p}
            for p in device.lossless_priorities
        ],
        "mtu": mtu,
        # pause-threshold: fill level at which PAUSE is sent, leaving xoff of headroom;
        # resume-threshold: one port MTU below it. Keyword semantics [UNV],
        # docs/reference/vendors.md 2c.
        "ingress": None
        if largest is None
        else {
            "queue": largest.priority_group,
            "buffer_size": largest.size,
            "pause": largest.size - largest.xoff,
            "resume": max(0, largest.size - largest.xoff - mtu),
        },
        "egress": egress,
        "watchdog": device.watchdog.enabled,
        "ecmp_seed": device.ecmp.seed,
        "hash_ports": device.ecmp.hashes_udp_source_port,
        "ports": list(device.ports.values()),
    }


def expressed(device: DevicePlan) -> dict[str, Any]:
    """What an NX-OS config says about a device (compared on for round trip and drift)."""
    return expressed_facts(
        device,
        ("mtu", "lossless", "pfc_priorities", "ecn", "watchdog_enabled"),
        (
            "dscp_to_tc",
            "queues",
            "lossless_priorities",
            "roce",
            "cnp",
            "ecmp_seed",
            "ecmp_udp_source_port",
        ),
    )


OWNED_SECTIONS = ("priority-flow-control ", "ip load-sharing ", "system qos")
OWNED_INTERFACE_LINES = (
    "mtu ",
    "description ",
    "priority-flow-control ",
    "service-policy type qos ",
)


# Plan values this config does not render (vendors/__init__.py PLAN_VALUES).
NOT_EXPRESSED = {
    "ecmp.hash_offset": "`ip load-sharing ... rotate` not rendered yet",
    "ecmp.resilient": "NX-OS resilient hashing not rendered yet",
    "pfc_watchdog.timers": "only `priority-flow-control watch-dog-interval on` is rendered",
}

DIFF_KIND = "remediation"


def diff(running: str, intended: str) -> list[str]:
    """NX-OS remediation lines (hier_config) for the lossless-owned part of the config."""
    from hier_config import Platform

    from lossless.vendors.remediation import cli_remediation

    return cli_remediation(
        Platform.CISCO_NXOS,
        running,
        intended,
        lambda text: text.startswith(OWNED_SECTIONS),
        lambda line: line.startswith(OWNED_INTERFACE_LINES),
    )
