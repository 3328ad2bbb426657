"""Cisco NX-OS (Nexus 9000 Cloud Scale): CLI as `show running-config` prints it, in the layout
of Cisco's RoCE script and AI/ML blueprint (docs/reference/vendors.md section 2;
docs/vendors/nxos.md explains every line).

Sources, cited per line below:
* [SCRIPT] Cisco-engineer RoCE script `roce_enable.py` (Paresh Gupta, v0.60;
  docs/reference/vendors.md 2, Cisco-authored): class-maps `match dscp`,
  `policy-map type qos QOS_CLASSIFICATION`
  (`set qos-group`), network-qos `class type network-qos c-8q-nq3` / `mtu 9216` /
  `pause pfc-cos 3`, egress `c-out-8q-q3` `bandwidth remaining percent 50` + `random-detect
  ... ecn`, CNP queue `priority level 1`, `system qos` attachments, per interface
  `priority-flow-control mode on`, `priority-flow-control watch-dog-interval on` (global and
  per interface) and `service-policy type qos input`.
* [AZURE] Microsoft-validated Nexus 9000 QoS for Azure Local (docs/reference/vendors.md 2): the same
  structure, `pause pfc-cos 3` alone gives a no-drop class, class `mtu 9216`.
* [QOSG] Cisco Nexus 9000 Series NX-OS Quality of Service Configuration Guide, 10.5(x),
  "Configuring Priority Flow Control": the PFC watchdog works in watchdog intervals (poll
  100 ms), shuts a stuck no-drop queue after the shutdown multiplier and restores it after the
  auto-restore multiplier; on 9300-GX the `pause buffer-size ... pause-threshold ...
  resume-threshold` ingress configuration is mandatory above 100 m of cable
  (docs/reference/physics.md 2.4);
  release 7.x "Configuring a Priority Flow Control Watchdog Interval" (global
  `priority-flow-control watch-dog-interval on`, the same command per interface).
* [NXAPI] NX-API REST SDK 9.3(x): "Configuring Priority Flow Control" (the watchdog is the
  platform object `sys/pltfm/priorflowctrlwd`, `priority-flow-control fixed-restore
  multiplier`), "Configuring ECMP Load Balancing" (`ip load-sharing address
  source-destination ... rotate 43 universal-id 1`: rotate before universal-id).
* [TFNXOS] CiscoDevNet/terraform-provider-nxos gen/definitions/physical_interface.yaml:
  interface PFC mode auto/on/off, interface watchdog on/off (`ipqosPriorFlowCtrlWd`);
  queuing_qos_policy_map_match_class_map_priority.yaml: `priority level` (ipqosPriority
  `level`, 1 to 8).
* [NDFC] Nexus Dashboard fabric setting "Priority flow control watch-dog interval": 101 to
  1000 ms, blank for the system default 100 ms (CiscoDevNet ndfc provider docs).
* [QOSPRIO] Cisco Nexus 9000 NX-OS Quality of Service Configuration Guide, "Configuring
  Queuing and Scheduling", priority guidelines: the strict-priority queues must be the
  highest-numbered qos-groups, contiguous (q7, then q6, ...); Cisco's RoCE script [SCRIPT]
  accordingly puts CNP in qos-group 7 with `priority level 1` on `c-out-8q-q7`.
* [L2MTU] An L2 interface (switchport) takes only `mtu 1500` or the system jumbo MTU ("MTU on
  L2 interfaces can only be set to default or system-jumboMTU"); `system jumbomtu` is 9216 by
  default and not shown by `show running-config`; a routed interface (`no switchport`) takes
  its own MTU (docs/reference/vendors.md 0 and 2g; madnetworks.fr "MTU - Nexus 7000", the same
  NX-OS rule).

Classification is per interface (qos policy, first matching class wins, CNP's class first),
the no-drop class and class MTU are in the system network-qos policy, ECN and scheduling in
the egress queuing policy (system-wide, plus one per interface for ports whose ECN differs),
the PFC watchdog timers are switch-wide. Headroom bytes only when the inventory asks
(`headroom.override`): NX-OS sizes PFC headroom itself otherwise.
"""

from __future__ import annotations

import math
from typing import Any

from lossless.plan import (
    DevicePlan,
    EcnPlan,
    FabricPlan,
    HeadroomPlan,
    PortPlan,
    QosMaps,
    WatchdogPlan,
    replaced,
)
from lossless.vendors.facts import expressed_facts
from lossless.vendors.free_text import one_line, port_description
from lossless.vendors.grouping import group
from lossless.vendors.vendor import NotExpressed

TEMPLATE = "nxos/device.cfg.j2"
EXTENSION = "cfg"
QUEUES = 8
DEFAULT_JUMBO_MTU = 9216  # `system jumbomtu` [L2MTU]: never rendered, never lowered
DEFAULT_MTU = 1500  # an interface's MTU when it states none; an L2 port may take it [L2MTU]
# The qos-group (= egress queue in 8-queue mode) CNP is rendered in: the highest, so the one
# strict-priority queue is the highest-numbered one [QOSPRIO, SCRIPT]
CNP_QOS_GROUP = 7
# PFC watchdog defaults: interval (ms, the poll), shutdown multiplier (intervals a queue is
# stuck before it is shut: detection), auto-restore multiplier (intervals without pause
# frames before it is restored: restoration).
WATCHDOG_INTERVAL_MS = 100
WATCHDOG_SHUTDOWN_MULTIPLIER = 1
WATCHDOG_AUTO_RESTORE_MULTIPLIER = 10
# Largest interface MTU NX-OS accepts (`system jumbomtu` and `mtu` top out at 9216,
# docs/reference/vendors.md 0 and 2g) — LL118 reads it.
MAX_MTU = 9216
CLASSIFY = "QOS_CLASSIFY"
EGRESS = "QOS_EGRESS"
# PFC watchdog ranges [QOSG, NDFC]: interval (ms), shutdown and auto-restore multipliers
WATCHDOG_INTERVAL = (100, 1000)
SHUTDOWN_MULTIPLIER = (1, 10)
AUTO_RESTORE_MULTIPLIER = (1, 100)


def description(text: str) -> str:
    """A port's description as NX-OS reads `description TEXT`: the rest of the line, so one
    line of printable characters (Nexus 9000 interfaces guide, "Configuring the
    Description"; no quoting exists)."""
    return one_line(text)


def kbytes(value: int) -> str:
    """NX-OS WRED thresholds: kbytes where exact, else bytes."""
    return f"{value // 1000} kbytes" if value % 1000 == 0 else f"{value} bytes"


def dscp_list(dscps: list[int]) -> str:
    """`match dscp` value list: runs as ranges, comma separated (24-25,27-31)."""
    runs: list[list[int]] = []
    for dscp in sorted(dscps):
        if runs and dscp == runs[-1][-1] + 1:
            runs[-1].append(dscp)
        else:
            runs.append([dscp])
    return ",".join(str(r[0]) if len(r) == 1 else f"{r[0]}-{r[-1]}" for r in runs)


def classes(device: DevicePlan) -> list[dict[str, Any]]:
    """The classification classes, in match order: the CNP DSCP alone in its own class first
    (so no other class can catch it: first match wins), then RoCE, then any other planned
    class; DSCPs the plan leaves in traffic class 0 fall to `class-default` (qos-group 0)."""
    tc_of = device.maps.dscp_to_tc
    found: list[tuple[str, list[int], int]] = []
    if tc_of.get(device.cnp_dscp, 0) != 0:
        found.append(("CNP", [device.cnp_dscp], tc_of[device.cnp_dscp]))
    others = sorted(d for d, tc in tc_of.items() if tc != 0 and d != device.cnp_dscp)
    for tc, dscps in sorted(group(others, lambda d: tc_of[d]).items()):
        found.append(("ROCE" if tc == device.roce_priority else f"TC{tc}", dscps, tc))
    return [{"name": name, "dscps": dscp_list(dscps), "tc": tc} for name, dscps, tc in found]


def class_mtu(device: DevicePlan) -> int:
    """The network-qos class MTU: the system jumbo MTU, 9216, as Cisco's script and the Azure
    policy set it [SCRIPT, AZURE], or a larger port MTU. The class MTU bounds the frames of
    every Layer 2 port of the switch, including ports lossless does not own (a storage
    switchport at `mtu 9216`), so it is never set below the jumbo MTU."""
    return max([DEFAULT_JUMBO_MTU, *(p.mtu for p in device.ports.values())])


def routed(port: PortPlan) -> bool:
    """Whether the port is rendered routed (`no switchport`): as the inventory says
    (`routed`), else when it is a link to another switch at an MTU a switchport cannot take
    (neither 1500 nor the jumbo MTU [L2MTU]), as fabric links between switches are routed in
    Cisco's AI/ML blueprint (docs/reference/vendors.md 2). A port to a server (GPU ports in
    VLANs) stays a switchport (issue 39: making it routed for its MTU took it out of its
    VLAN)."""
    if port.routed is not None:
        return port.routed
    return port.peer_kind == "switch" and port.mtu not in (DEFAULT_MTU, DEFAULT_JUMBO_MTU)


def interface_mtu(port: PortPlan) -> int:
    """The `mtu` of the interface: a routed port takes its own; a switchport takes only 1500
    or the system jumbo MTU [L2MTU], which lossless never changes (a switch-wide setting
    other ports depend on), so a plan MTU between them is the jumbo MTU, 9216, the larger (a
    frame the plan allows is never refused)."""
    if routed(port) or port.mtu in (DEFAULT_MTU, DEFAULT_JUMBO_MTU):
        return port.mtu
    return DEFAULT_MTU if port.mtu < DEFAULT_MTU else DEFAULT_JUMBO_MTU


def _cnp_swap(device: DevicePlan) -> tuple[dict[int, int], dict[int, int]] | None:
    """(traffic class swap, queue swap) that moves the plan's CNP class and queue to qos-group
    and queue 7 [QOSPRIO], or None when CNP is already there or 7 is lossless (then nothing
    moves, and a lossless queue 7 says why)."""
    cnp_tc = device.cnp_priority
    cnp_queue = device.maps.tc_to_queue.get(cnp_tc, cnp_tc)
    lossless_tcs = set(device.lossless_priorities)
    lossless_queues = {
        device.maps.pfc_priority_to_queue.get(p, p) for p in device.lossless_priorities
    } | {q.queue for q in device.queues if q.lossless}
    if (cnp_tc, cnp_queue) == (CNP_QOS_GROUP, CNP_QOS_GROUP):
        return None
    if CNP_QOS_GROUP in lossless_tcs | lossless_queues or cnp_tc in lossless_tcs:
        return None
    return {cnp_tc: CNP_QOS_GROUP, CNP_QOS_GROUP: cnp_tc}, {
        cnp_queue: CNP_QOS_GROUP,
        CNP_QOS_GROUP: cnp_queue,
    }


def as_rendered(device: DevicePlan) -> DevicePlan:
    """The device's plan in NX-OS's terms, which a parsed config is compared with: each port at
    its interface MTU (a switchport's is 1500 or the jumbo MTU), CNP in qos-group 7 and queue
    c-out-8q-q7 [QOSPRIO, SCRIPT] (the plan's CNP traffic class, 6 in the example
    inventories, and 7 swap places; the qos-group is local to the switch: CNPs cross links by
    their DSCP, which does not change)."""
    device = replaced(
        device,
        ports={
            name: replaced(port, mtu=interface_mtu(port)) for name, port in device.ports.items()
        },
    )
    swap = _cnp_swap(device)
    if swap is None:
        return device
    tc, queue = swap

    def t(n: int) -> int:
        return tc.get(n, n)

    def q(n: int) -> int:
        return queue.get(n, n)

    maps = device.maps
    return replaced(
        device,
        cnp_priority=t(device.cnp_priority),
        maps=QosMaps(
            {dscp: t(c) for dscp, c in maps.dscp_to_tc.items()},
            {t(c): q(n) for c, n in maps.tc_to_queue.items()},
            {t(c): pg for c, pg in maps.tc_to_pg.items()},
            # PFC priorities (CoS on the wire) keep their no-drop queues: CNP is no PFC class
            dict(maps.pfc_priority_to_queue),
        ),
        queues=sorted(
            (replaced(plan, queue=q(plan.queue)) for plan in device.queues),
            key=lambda plan: plan.queue,
        ),
        ports={
            name: replaced(port, ecn=[replaced(e, queue=q(e.queue)) for e in port.ecn])
            for name, port in device.ports.items()
        },
    )


def _clamp(value: int, bounds: tuple[int, int]) -> int:
    return max(bounds[0], min(bounds[1], value))


def watchdog_settings(wd: WatchdogPlan) -> tuple[int, int, int]:
    """(interval ms, shutdown multiplier, auto-restore multiplier) for a planned watchdog: the
    interval is the poll, detection and restoration are whole intervals, rounded up, in the
    ranges NX-OS accepts [QOSG, NDFC]."""
    interval = _clamp(wd.poll_ms, WATCHDOG_INTERVAL)
    shutdown = _clamp(math.ceil(wd.detection_ms / interval), SHUTDOWN_MULTIPLIER)
    restore = _clamp(math.ceil(wd.restoration_ms / interval), AUTO_RESTORE_MULTIPLIER)
    return interval, shutdown, restore


def watchdog_timers(wd: WatchdogPlan) -> tuple[int, int, int]:
    """(poll, detection, restoration) in ms as an NX-OS switch runs the planned watchdog."""
    interval, shutdown, restore = watchdog_settings(wd)
    return interval, interval * shutdown, interval * restore


def load_sharing(device: DevicePlan) -> str:
    """`ip load-sharing` words: addresses and L4 ports, `rotate` (the plan's hash offset) before
    `universal-id` (its seed) [NXAPI]."""
    ecmp = device.ecmp
    words = ["address source-destination"]
    if ecmp.hashes_udp_source_port:
        words.append("port source-destination")
    if ecmp.hash_offset is not None:
        words.append(f"rotate {ecmp.hash_offset}")
    if ecmp.seed is not None:
        words.append(f"universal-id {ecmp.seed}")
    return " ".join(words)


def _ecn_key(port: PortPlan) -> tuple:
    return tuple((e.queue, e.min_bytes, e.max_bytes, e.probability_percent) for e in port.ecn)


def _egress_policy(name: str, device: DevicePlan, ecn: list[EcnPlan]) -> dict[str, Any]:
    plans = {q.queue: q for q in device.queues}
    marks = {e.queue: e for e in ecn}
    queues = []
    for queue in reversed(range(QUEUES)):
        plan, mark = plans.get(queue), marks.get(queue)
        queues.append(
            {
                "name": "c-out-8q-q-default" if queue == 0 else f"c-out-8q-q{queue}",
                "priority": plan is not None and plan.scheduler == "strict",
                "bandwidth": 0 if plan is None or plan.weight is None else plan.weight,
                "ecn": None
                if mark is None or plan is None or not plan.lossless
                else {
                    "min": kbytes(mark.min_bytes),
                    "max": kbytes(mark.max_bytes),
                    "probability": mark.probability_percent,
                },
            }
        )
    return {"name": name, "queues": queues}


def egress_policies(device: DevicePlan) -> tuple[list[dict[str, Any]], dict[str, str]]:
    """One egress queuing policy per distinct set of ECN thresholds of the lossless ports:
    the first is the system's, the others are attached to their ports (interface policies
    win over the system one). Returns the policies and port -> interface policy name."""
    lossless = [p for p in device.ports.values() if p.lossless]
    groups = list(group(lossless, _ecn_key).values()) or [[]]
    policies, attached = [], {}
    for index, ports in enumerate(groups):
        name = EGRESS if index == 0 else f"{EGRESS}_{index + 1}"
        policies.append(_egress_policy(name, device, ports[0].ecn if ports else []))
        if index:
            attached.update({p.name: name for p in ports})
    return policies, attached


def device_headroom(device: DevicePlan) -> HeadroomPlan | None:
    """The one ingress pause buffer of the switch (a system-wide policy): the largest of its
    lossless ports, so no port gets less than it needs; None unless the inventory asks for
    headroom bytes (`headroom.override`)."""
    if not device.headroom_settings.override:
        return None
    headrooms = [h for p in device.ports.values() if p.lossless for h in p.headroom]
    return max(headrooms, key=lambda h: (h.size, h.xoff)) if headrooms else None


def _ingress(device: DevicePlan, mtu: int) -> dict[str, Any] | None:
    """`pause buffer-size B pause-threshold P resume-threshold R` of the lossless queue, in
    bytes: B the headroom's size, P its xon (the fill level at which the switch sends PAUSE,
    leaving xoff bytes to absorb what is in flight), R one port MTU below P. Meaning of the
    three keywords per the QoS guide's "Configuring Pause Buffer Thresholds and Queue Limit
    Using Ingress Queuing Policy" and docs/reference/vendors.md 2c [UNV wording]."""
    headroom = device_headroom(device)
    if headroom is None:
        return None
    pause = headroom.size - headroom.xoff
    return {
        "queue": headroom.priority_group,  # PG N is the lossless queue N (qos-group N)
        "buffer_size": headroom.size,
        "pause": pause,
        "resume": max(0, pause - mtu),
    }


def context(device: DevicePlan, fabric: FabricPlan) -> dict[str, Any]:
    device = as_rendered(device)
    mtu = class_mtu(device)
    policies, attached = egress_policies(device)
    wd = device.watchdog
    interval, shutdown, restore = watchdog_settings(wd)
    return {
        "device": device,
        "classify": CLASSIFY,
        "classes": classes(device),
        "no_drop": [
            {"queue": queue, "cos": ",".join(map(str, priorities))}
            for queue, priorities in sorted(
                group(
                    device.lossless_priorities,
                    lambda p: device.maps.pfc_priority_to_queue.get(p, p),
                ).items()
            )
        ],
        # the network-qos class MTU; `system jumbomtu` is never rendered: its default 9216 is
        # the largest MTU NX-OS takes, and lowering it would refuse the `mtu 9216` of every
        # switchport lossless does not own [L2MTU]
        "mtu": mtu,
        # resume one frame of the largest port MTU below the pause threshold
        "ingress": _ingress(device, max((p.mtu for p in device.ports.values()), default=mtu)),
        "egress": policies,
        "watchdog": {
            "enabled": wd.enabled,
            # the interval only off its [SRC] default; the multipliers always (their
            # defaults are [UNV]: stating them is safe)
            "interval": interval if interval != WATCHDOG_INTERVAL_MS else None,
            "shutdown": shutdown,
            "restore": restore,
        },
        "load_sharing": load_sharing(device),
        "ports": [
            {
                "name": p.name,
                "description": description(port_description(p)),
                "mtu": p.mtu,
                "routed": routed(p),
                "lossless": p.lossless,
                "watchdog": bool(p.lossless and p.watchdog and p.watchdog.enabled),
                "egress": attached.get(p.name),
            }
            for p in device.ports.values()
        ],
    }


def expressed(device: DevicePlan) -> dict[str, Any]:
    """What an NX-OS config says about a device (compared on for round trip and drift). The
    watchdog is on or off per port, its timers switch-wide as NX-OS runs them (whole
    intervals); headroom (when the inventory asks for it, or a config states it) is the one
    system-wide pause buffer of the lossless ports."""
    facts = expressed_facts(
        device,
        (
            "mtu",
            "lossy_mtu",
            "lossless",
            "pfc_priorities",
            "ecn",
            "wred_drop_queues",
            "trust",
            "watchdog_enabled",
        ),
        (
            "dscp_to_tc",
            "pfc_priority_to_queue",
            "queues",
            "lossless_priorities",
            "roce",
            "cnp",
            "ecmp_seed",
            "ecmp_udp_source_port",
            "ecmp_hash_offset",
        ),
    )
    poll, detection, restoration = watchdog_timers(device.watchdog)
    enabled = device.watchdog.enabled
    facts["watchdog_poll_ms"] = poll if enabled else None
    facts["watchdog_timers"] = (detection, restoration) if enabled else None
    headroom = device_headroom(device)
    for port in device.ports.values():
        facts["ports"][port.name]["headroom"] = (
            [(headroom.priority_group, headroom.xon, headroom.xoff, headroom.size)]
            if headroom is not None and port.lossless
            else []
        )
    return facts


def _watchdog_rounding(device: DevicePlan) -> str | None:
    wd = device.watchdog
    planned = (wd.poll_ms, wd.detection_ms, wd.restoration_ms)
    if not wd.enabled or watchdog_timers(wd) == planned:
        return None
    poll, detection, restoration = watchdog_timers(wd)
    return (
        "NX-OS counts the watchdog in whole intervals of 100-1000 ms (shutdown multiplier "
        "1-10, auto-restore multiplier 1-100; QoS guide 10.5x 'Configuring Priority Flow "
        f"Control'): poll {wd.poll_ms}, detection {wd.detection_ms}, restoration "
        f"{wd.restoration_ms} ms are rendered as {poll}, {detection}, {restoration} ms"
    )


def _headroom_left_to_switch(device: DevicePlan) -> str | None:
    if device.headroom_settings.override:
        return None
    return (
        "NX-OS sizes PFC headroom itself; the ingress `pause buffer-size` is written only when "
        "the inventory asks (`headroom.override: true`), as the largest headroom of the "
        "switch's lossless ports (one system-wide policy)"
    )


# Plan values this config does not render (vendors/vendor.py PLAN_VALUES).
NOT_EXPRESSED: dict[str, NotExpressed] = {
    "ecmp.hash_fields": (
        "`ip load-sharing address source-destination port source-destination` hashes the "
        "addresses and L4 ports [NXAPI 'Configuring ECMP Load Balancing']; the IP protocol, "
        "IPv6 flow label and ingress interface have no keyword on that line"
    ),
    "ecmp.resilient": (
        "resilient ECMP is not rendered for NX-OS (Cloud Scale dynamic load balancing is a "
        "different, flowlet-based mechanism, docs/reference/vendors.md 2f [UNV])"
    ),
    "headroom.bytes": _headroom_left_to_switch,
    "pfc_watchdog.timers": _watchdog_rounding,
    "pfc_watchdog.port_timers": (
        "NX-OS watchdog timers are switch-wide (`priority-flow-control watch-dog interval`, "
        "`shutdown-multiplier`, `auto-restore multiplier`); the device's timers are rendered, "
        "per-port overrides cannot be"
    ),
    "pfc_watchdog.action": (
        "NX-OS's watchdog drops on a stuck no-drop queue; a port can only disable the action "
        "(syslog only: `disableAction` of ipqosPriorFlowCtrlWd [TFNXOS]), whose CLI keyword is "
        "not confirmed, so it is not rendered"
    ),
}
