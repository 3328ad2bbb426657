"""Juniper Junos on QFX5220/5230/5240 (Junos OS Evolved): class of service for RoCE v2 in the
brace format `show configuration` prints, one statement per line, as Juniper's AI data-centre
JVD configures it.

Sources, cited per line below and in docs/vendors/junos.md:

[JVD]      Juniper AI data-centre JVD DCQCN and DLB configlets, github.com/Juniper/
           terraform-apstra-examples ai-cluster-jvd/configlet_dcqcn.tf and configlet_dlb.tf
           (commit 28d884d, 2024-10-07; the shared-buffer partitions, ingress lossless 80 /
           lossless-headroom 10 / lossy 10 and egress lossless 90 / lossy 10, as of
           configlet_dcqcn.tf commit 0966905).
[APSTRA]   Apstra 6.1 "Create and Import a DCQCN Configlet", juniper.net/documentation/us/en/
           software/apstra6.1/apstra-connectorops-rnic-configurator-guide/topics/concept/
           apstra-connectorops-rnic-configurator-guide-dcqcn-configlets.html
[DEFAULTS] "Understanding Default CoS Settings" and "Understanding Default CoS Scheduling and
           Classification", juniper.net/documentation/us/en/software/junos/traffic-mgmt-qfx/
           topics/concept/cos-qfx-series-default-settings-understanding.html and
           .../cos-qfx-series-default-scheduling-classification-understanding.html
[SCHED]    "Understanding CoS Scheduling Behavior and Configuration Considerations",
           .../traffic-mgmt-qfx/topics/concept/
           cos-qfx-series-scheduling-behavior-configuration-considerations-understanding.html
[WRED]     "Configuring CoS WRED Drop Profiles", .../traffic-mgmt-qfx/topics/task/
           cos-drop-profiles-qfx-series-cli.html
[BUFFER]   "Understanding CoS Buffer Configuration" and "buffer-partition (Ingress/Egress)",
           .../traffic-mgmt-qfx/topics/concept/cos-qfx-series-buffer-configuration-
           understanding.html
[CNP]      "Configure CoS PFC with Congestion Notification Profiles", .../traffic-mgmt-qfx/
           topics/task/cos-congestion-notification-qfx-series-cli.html
[DSCPPFC]  "Configuring DSCP-based PFC for Layer 3 Untagged Traffic", juniper.net/documentation/
           en_US/junos/topics/task/configuration/cos-configuring-l3-dscp-pfc.html: "PFC on the
           QFX Series can only send pause frames corresponding to PFC priority code points", so
           the DSCP "must be mapped to a 3-bit PFC priority" by a DSCP classifier to a
           forwarding class with `no-loss` and `pfc-priority` ("The no-loss option is
           required"); and the `pfc-priority` statement page (.../pfc-priority-edit-class-of-
           service-forwarding-classes.html): it "defines the PFC priority to use in pause
           frames when PFC is triggered by a configured DSCP value".
[YANG]     Juniper/yang 23.4/23.4R1-EVO/native/conf-and-rpcs/conf/models/
           junos-conf-forwarding-options@2023-01-01.yang (enhanced-hash-key)
[WDOG]     "PFC Watchdog", AI-ML Data Center Feature Guide (Junos OS Evolved), juniper.net/
           documentation/us/en/software/junos/ai-ml-evo/topics/topic-map/pfc-watchdog.html:
           "Starting in Junos OS Evolved Release 23.4R2, this feature is supported on these
           platforms: QFX5230-64CD, QFX5240-64OD, QFX5240-64QD"; one action (drop, the
           default, or forward) on every port.
[MTU]      "Media MTU Sizes by Interface Type" / "Setting the Protocol MTU": the interface
           (media) MTU of Ethernet counts the 14-byte header; the IP MTU is 14 bytes less.
"""

from __future__ import annotations

import math
import re
from typing import Any

from lossless.errors import InputError, Problem
from lossless.plan import (
    DevicePlan,
    EcnPlan,
    FabricPlan,
    PortPlan,
    QosMaps,
    QueuePlan,
    WatchdogPlan,
    replaced,
)
from lossless.text.units import whole_metres
from lossless.vendors.facts import expressed_facts
from lossless.vendors.free_text import one_line, port_description
from lossless.vendors.grouping import earliest_ecn, group
from lossless.vendors.vendor import NotExpressed

TEMPLATE = "junos/device.conf.j2"
EXTENSION = "conf"

# Forwarding classes and their queues.
ROCE_CLASS = "NO-LOSS"  # [JVD] [APSTRA]: class NO-LOSS queue-num 4 no-loss pfc-priority 3
ROCE_QUEUE = 4  # [JVD] [APSTRA]; queue 3 holds the default lossless fcoe class [DEFAULTS]
CNP_CLASS = "CNP"  # [APSTRA] class CNP, strict-high
DEFAULT_CLASS = "best-effort"  # default class on queue 0 [DEFAULTS]
NC_CLASS = "network-control"  # default class on queue 7 [DEFAULTS]
NC_QUEUE = 7
CLASS_OF = {"roce": ROCE_CLASS, "cnp": CNP_CLASS, "default": DEFAULT_CLASS}

# Transmit rates (percent of the port). A scheduler map gives classes it leaves out no
# bandwidth [DEFAULTS], so network-control (routing protocols) gets a guaranteed share.
CNP_RATE = 5  # [APSTRA] s2-cnp transmit-rate percent 5; caps strict-high [SCHED]
NC_RATE = 5  # Junos default scheduler: network-control transmit-rate percent 5
# ("Default Schedulers Overview", juniper.net/documentation/us/en/software/junos/cos/topics/
# concept/schedulers-default-cos-config-guide.html)

# Shared-buffer partitions, percent of the shared buffer, as the JVD commits them [JVD]
# (configlet_dcqcn.tf commit 0966905, `shared-buffer`): ingress lossless 80, lossless-headroom
# 10, lossy 10; egress lossless 90, lossy 10. Each side sums to 100 (a commit check [BUFFER]);
# ingress and egress are separate pools, and the JVD's own ingress and egress lossless shares
# differ (80 and 90): the egress lossless share does not follow the ingress one.
JVD_HEADROOM_PERCENT = 10
JVD_LOSSY_PERCENT = 10
JVD_EGRESS_LOSSLESS_PERCENT = 90
JVD_EGRESS_LOSSY_PERCENT = 10
MIN_LOSSLESS_PERCENT = 5  # the smallest lossless partition Junos takes [BUFFER]
JVD_FILL_LEVELS = (20, 60)  # [JVD] dp1, used only when the plan has no queue buffer

# Platforms Juniper documents the PFC watchdog (`pfc-watchdog`) on [WDOG]: QFX5230 and
# QFX5240 (Junos OS Evolved 23.4R2 and later). Elsewhere (QFX5220, QFX5130, QFX5120) it is not
# rendered and the plan lists it as not expressed.
WATCHDOG_PLATFORMS = ("QFX5230", "QFX5240")
WATCHDOG_SOURCE = (
    "Juniper 'PFC Watchdog' (AI-ML Data Center Feature Guide, Junos OS Evolved): supported "
    "from 23.4R2 on QFX5230-64CD, QFX5240-64OD and QFX5240-64QD only"
)

ETHERNET_HEADER = 14  # [MTU]
MAX_INTERFACE_MTU = 9216  # QFX jumbo interface MTU (docs/reference/vendors.md section 0)

# Plan hash fields -> the enhanced-hash-key inet statement that leaves each out [YANG].
HASH_EXCLUSIONS = {
    "src-ip": "no-ipv4-source-address",
    "dst-ip": "no-ipv4-destination-address",
    "ip-protocol": "no-protocol",
    "src-port": "no-l4-source-port",
    "dst-port": "no-l4-destination-port",
}


def description(text: str) -> str:
    """A port's description inside Junos's double quotes: one line, with `\\` and `"`
    escaped by a backslash as Junos writes them, so no text can close the string and open a
    statement or a block (`description "a\\"b";`)."""
    return one_line(text).replace("\\", "\\\\").replace('"', '\\"')


# The Junos switches of the catalogue's Tomahawk 4 and 5: QFX5230 and QFX5240 (Juniper
# datasheets, lossless/asics/models.py), the platforms with the watchdog
WATCHDOG_ASICS = ("tomahawk-4", "tomahawk-5")


def has_watchdog(device: DevicePlan) -> bool:
    """Whether the device's platform has the PFC watchdog [WDOG]: a QFX5230 or QFX5240, named
    by its platform or, where none is stated, by its ASIC (Tomahawk 4 and 5 Junos switches
    are those). Otherwise it is not assumed to have it."""
    if device.platform:
        return device.platform.upper().startswith(WATCHDOG_PLATFORMS)
    return device.asic in WATCHDOG_ASICS


def code_point(dscp: int) -> str:
    return format(dscp, "06b")


def pfc_profile_name(port: PortPlan) -> str:
    return f"ROCE_PFC_{whole_metres(port.cable_m or 0)}M"


def queue_buffer(ecn: EcnPlan, partitions: dict[str, int]) -> float | None:
    """Bytes of buffer the lossless queue can hold, which Junos fill levels are percent of
    [WRED]: the queue's dynamic share of the egress lossless partition. The plan's PFC trigger
    is that share of the whole shared buffer, alpha*B/(1 + n*alpha) (docs/reference/physics.md
    3.4); the partition holds P percent of it, so the queue's share is P/100 of the trigger."""
    if not ecn.pfc_trigger_bytes:
        return None
    return ecn.pfc_trigger_bytes * partitions.get("egress lossless", 100) / 100


def fill_percent(value: int, buffer: float) -> int:
    """A byte threshold as a whole percent of the queue buffer, rounded half up, 1..100."""
    return max(1, min(100, math.floor(100 * value / buffer + 0.5)))


def fill_levels(ecn: EcnPlan, partitions: dict[str, int]) -> tuple[int, int]:
    """The drop profile's fill levels for an ECN plan: percent of the queue buffer, or the
    JVD's levels when the plan knows no buffer (unknown ASIC buffer size)."""
    buffer = queue_buffer(ecn, partitions)
    if buffer is None:
        return JVD_FILL_LEVELS
    low, high = fill_percent(ecn.min_bytes, buffer), fill_percent(ecn.max_bytes, buffer)
    return low, max(high, min(low + 1, 100))


def _levels_of(ecn: EcnPlan, partitions: dict[str, int]) -> tuple[int, int]:
    """The fill levels an ECN plan stands for: its bytes as percent of the queue buffer, or,
    with no PFC trigger known (a config read without an inventory), the percents it holds."""
    buffer = queue_buffer(ecn, partitions)
    if buffer is None:
        return ecn.min_bytes, ecn.max_bytes
    return fill_percent(ecn.min_bytes, buffer), fill_percent(ecn.max_bytes, buffer)


def partitions(device: DevicePlan) -> dict[str, int]:
    """Shared-buffer partitions: the JVD's, with an ingress lossless-headroom share large
    enough for the headroom the plan reserves (budget.total_headroom_bytes of the ASIC's
    buffer), taken from the ingress lossless share; the egress partitions are the JVD's."""
    budget = device.budget
    headroom = JVD_HEADROOM_PERCENT
    if budget.buffer_bytes and budget.total_headroom_bytes:
        needed = math.ceil(100 * budget.total_headroom_bytes / budget.buffer_bytes)
        headroom = min(max(headroom, needed), 100 - JVD_LOSSY_PERCENT - MIN_LOSSLESS_PERCENT)
    lossless = 100 - headroom - JVD_LOSSY_PERCENT
    return {
        "ingress lossless": lossless,
        "ingress lossless-headroom": headroom,
        "ingress lossy": JVD_LOSSY_PERCENT,
        # the egress pool has no headroom: the JVD's 90/10 whatever the ingress headroom takes
        "egress lossless": JVD_EGRESS_LOSSLESS_PERCENT,
        "egress lossy": JVD_EGRESS_LOSSY_PERCENT,
    }


def as_rendered(device: DevicePlan, *, ports: bool = True) -> DevicePlan:
    """The device's plan in the terms of its Junos config, which a parsed config is compared
    with: RoCE on queue 4 (the plan's RoCE queue and queue 4 swap places), transmit rates
    that leave room for CNP's cap and network-control, the shared-buffer partitions, ECN at
    the bytes the rendered fill levels mean, watchdog detection in whole polls. ports=False:
    the ports stay the plan's (their ECN and watchdog in the plan's terms), for the template,
    which takes only their names, MTUs, cables and descriptions."""
    roce = next((q.queue for q in device.queues if q.traffic == "roce"), ROCE_QUEUE)

    def junos_queue(queue: int) -> int:
        return ROCE_QUEUE if queue == roce else roce if queue == ROCE_QUEUE else queue

    share = 100 - CNP_RATE - NC_RATE  # what DWRR queues divide, in the plan's proportions
    queues = []
    for q in device.queues:
        weight = CNP_RATE if q.scheduler == "strict" else (q.weight or 0) * share // 100
        queues.append(replaced(q, queue=junos_queue(q.queue), weight=weight))
    if all(q.queue != NC_QUEUE for q in queues):
        queues.append(QueuePlan(NC_QUEUE, "dwrr", NC_RATE, False, "default"))
    maps = device.maps
    shares = partitions(device)
    first = earliest_ecn(device.ports.values())
    levels = fill_levels(first, shares) if first else None
    rendered_ports = {}
    watchdog_ok = has_watchdog(device)
    for name, port in device.ports.items() if ports else ():
        ecn = []
        for e in port.ecn:
            buffer = queue_buffer(e, shares)
            assert levels is not None  # a port with ECN makes `first` exist
            low, high = (
                (int(levels[0] * buffer // 100), int(levels[1] * buffer // 100))
                if buffer
                else levels
            )
            ecn.append(replaced(e, queue=junos_queue(e.queue), min_bytes=low, max_bytes=high))
        watchdog = port.watchdog
        if watchdog is not None and watchdog.enabled and watchdog.poll_ms and watchdog_ok:
            polls = max(1, math.ceil(watchdog.detection_ms / watchdog.poll_ms))
            watchdog = replaced(watchdog, detection_ms=polls * watchdog.poll_ms)
        elif watchdog is not None:  # not rendered: the config reads as Junos's default timers
            watchdog = WatchdogPlan(False, 200, 200, 100, watchdog.action)
        rendered_ports[name] = replaced(port, ecn=ecn, watchdog=watchdog)
    return replaced(
        device,
        maps=QosMaps(
            dict(maps.dscp_to_tc),
            {tc: junos_queue(q) for tc, q in maps.tc_to_queue.items()},
            dict(maps.tc_to_pg),
            {p: junos_queue(q) for p, q in maps.pfc_priority_to_queue.items()},
        ),
        queues=sorted(queues, key=lambda q: q.queue),
        ports=rendered_ports if ports else device.ports,
        buffer_partitions=shares,
    )


def _interface_mtu(port: PortPlan) -> int:
    """The plan's MTU is the IP MTU; Junos's interface MTU counts the Ethernet header [MTU]."""
    mtu = port.mtu + ETHERNET_HEADER
    if mtu > MAX_INTERFACE_MTU:
        file, line, column = _location(port.source)
        raise InputError(
            [
                Problem(
                    file,
                    line,
                    column,
                    port.name,
                    f"MTU {port.mtu} needs a Junos interface MTU of {mtu} (14 bytes of Ethernet "
                    f"header on top), above the QFX maximum of {MAX_INTERFACE_MTU}",
                )
            ]
        )
    return mtu


def _location(source: str) -> tuple[str, int, int]:
    match = re.fullmatch(r"(.*):(\d+):(\d+)", source)
    return (match.group(1), int(match.group(2)), int(match.group(3))) if match else (source, 1, 1)


def context(device: DevicePlan, fabric: FabricPlan) -> dict[str, Any]:
    junos = as_rendered(device, ports=False)
    queues = {q.traffic: q for q in junos.queues if q.queue != NC_QUEUE or q.traffic != "default"}
    classes = {q.queue: CLASS_OF[traffic] for traffic, q in queues.items()}
    tc_class = {tc: classes.get(q, DEFAULT_CLASS) for tc, q in junos.maps.tc_to_queue.items()}
    code_points = group(sorted(junos.maps.dscp_to_tc), lambda d: tc_class[junos.maps.dscp_to_tc[d]])
    lossless = [p for p in junos.ports.values() if p.lossless]
    first = earliest_ecn(device.ports.values())
    wd = junos.watchdog
    return {
        "roce_class": ROCE_CLASS,
        "cnp_class": CNP_CLASS,
        "default_class": DEFAULT_CLASS,
        "nc_class": NC_CLASS,
        # every DSCP in the classifier, so no code point falls to the default classifier
        "classifier": [
            {"class": name, "code_points": [code_point(d) for d in dscps]}
            for name, dscps in sorted(code_points.items(), key=lambda item: _class_order(item[0]))
        ],
        "roce_code_point": code_point(device.roce_dscp),
        "roce_queue": queues["roce"].queue,
        "roce_priority": device.roce_priority,
        "roce_priority_bits": format(device.roce_priority, "03b"),
        "cnp_queue": queues["cnp"].queue,
        "cnp_rate": queues["cnp"].weight,
        "roce_rate": queues["roce"].weight,
        "default_rate": queues["default"].weight,
        "nc_rate": NC_RATE,
        "ecn": None
        if first is None
        else dict(zip(("low", "high"), fill_levels(first, junos.buffer_partitions), strict=True))
        | {"probability": first.probability_percent},
        "partitions": junos.buffer_partitions,
        # only where the platform has it [WDOG]; elsewhere NOT_EXPRESSED says so
        "watchdog": None
        if not (wd.enabled and has_watchdog(device))
        else {
            "poll": wd.poll_ms,
            "detection": max(1, math.ceil(wd.detection_ms / wd.poll_ms)),
            "recovery": wd.restoration_ms,
        },
        "pfc_profiles": [
            {"name": name, "cable_m": whole_metres(ports[0].cable_m or 0)}
            for name, ports in group(lossless, pfc_profile_name).items()
        ],
        "ports": [
            {
                "name": p.name,
                "description": description(port_description(p)),
                "mtu": _interface_mtu(p),
                "pfc_profile": pfc_profile_name(p) if p.lossless else None,
            }
            for p in junos.ports.values()
        ],
        "hash_seed": device.ecmp.seed,
        "hash_exclusions": [
            statement
            for field, statement in HASH_EXCLUSIONS.items()
            if field not in device.ecmp.hash_fields
        ],
        # the JVD's hash-key (configlet_dlb.tf): layer-4 while any port is a hash field
        "hash_ports": bool({"src-port", "dst-port"} & set(device.ecmp.hash_fields)),
    }


def _class_order(name: str) -> int:
    order = [ROCE_CLASS, CNP_CLASS, DEFAULT_CLASS]
    return order.index(name) if name in order else len(order)


def expressed(device: DevicePlan) -> dict[str, Any]:
    """What a Junos config says about a device, compared for the round trip and for drift
    (a plan goes through `as_rendered` first, so both sides are in Junos's terms). Queue maps
    are compared where traffic uses them: the TCs the DSCP map uses, the PFC priorities that
    are lossless."""
    facts = expressed_facts(
        device,
        ("mtu", "lossless", "pfc_priorities", "cable_m", "watchdog", "wred_drop_queues"),
        (
            "dscp_to_tc",
            "queues",
            "lossless_priorities",
            "roce",
            "cnp",
            "ecmp_seed",
            "ecmp_hash_fields",
            "ecmp_udp_source_port",
            "buffer_partitions",
        ),
    )
    for port in device.ports.values():
        facts["ports"][port.name]["ecn_percent"] = sorted(
            (e.queue, *_levels_of(e, device.buffer_partitions), e.probability_percent)
            for e in port.ecn
        )
    maps = device.maps
    used = set(maps.dscp_to_tc.values())
    facts["tc_to_queue"] = {tc: q for tc, q in maps.tc_to_queue.items() if tc in used}
    facts["pfc_priority_to_queue"] = {
        p: maps.pfc_priority_to_queue.get(p) for p in device.lossless_priorities
    }
    return facts


# Plan values this config does not render (vendors/vendor.py PLAN_VALUES).
NOT_EXPRESSED: dict[str, NotExpressed] = {
    "ecmp.hash_offset": (
        "Junos OS Evolved's enhanced-hash-key has a seed and a hash function but no offset "
        "(Juniper/yang 23.4R1-EVO junos-conf-forwarding-options)"
    ),
    "ecmp.resilient": (
        "Junos resilient ECMP is a routing-policy action (`then load-balance consistent-hash` "
        "exported to the forwarding table), part of the fabric's routing policy (Apstra's PPLB "
        "export), which lossless does not own"
    ),
    "headroom.bytes": "Junos sizes PFC headroom from the cable-length of the CNP profile",
    "pfc_watchdog": lambda device: _no_watchdog(device),
}


def _no_watchdog(device: DevicePlan) -> str | None:
    """Why the planned PFC watchdog is not rendered: the platform does not have it [WDOG]."""
    if has_watchdog(device):
        return None
    platform = (
        device.platform
        or "a switch whose platform is not stated (inventory `platform`, lint --platform)"
    )
    return (
        f"the PFC watchdog itself (`pfc-watchdog`) is not rendered for {platform}: "
        f"{WATCHDOG_SOURCE}; PFC storms and deadlocks on this switch are not broken by a "
        "watchdog"
    )
