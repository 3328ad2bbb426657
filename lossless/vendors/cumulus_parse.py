"""Read a Cumulus Linux NVUE startup YAML (`- set:` tree, as `nv config show -o yaml` prints
it) back into a DevicePlan, with the file:line of what was read.

What NVUE says: DSCP -> switch-priority -> traffic-class maps, ETS per traffic class, ECN of
the congestion-control profile, PFC profiles (priorities, cable length) per interface, the PFC
watchdog (polling interval x robustness = detection), MTU and speed per interface, the ECMP
hash seed and fields. Headroom bytes are not in it: Cumulus derives them from cable-length.
"""

from __future__ import annotations

import contextlib
import copy
from typing import Any

from ruamel.yaml.nodes import SequenceNode

from lossless.inventory.yamlsource import parse_yaml_text
from lossless.plan import DevicePlan, EcnPlan, WatchdogPlan
from lossless.units import parse_speed
from lossless.vendors.common import classify_traffic, queue_plan, read_config
from lossless.vendors.skeleton import new_port, skeleton_device

PROFILE = "default-global"


def parse(text: str, file: str, name: str, hint: DevicePlan | None = None) -> DevicePlan:
    document = parse_yaml_text(text, file, top=SequenceNode)
    tree: dict[str, Any] = {}
    index = 0
    for position, operation in enumerate(document.data):
        if isinstance(operation, dict) and isinstance(operation.get("set"), dict):
            tree, index = operation["set"], position
    device = skeleton_device(name, "cumulus", file, hint)
    qos = tree.get("qos", {})
    maps = device.maps
    maps.dscp_to_tc = dict.fromkeys(range(64), 0)
    switch_priority = {
        int(dscp): int(entry.get("switch-priority", 0))
        for dscp, entry in qos.get("mapping", {}).get(PROFILE, {}).get("dscp", {}).items()
    }
    traffic_class = {
        int(sp): int(entry.get("traffic-class", sp))
        for sp, entry in qos.get("egress-queue-mapping", {})
        .get(PROFILE, {})
        .get("switch-priority", {})
        .items()
    }
    for dscp, sp in switch_priority.items():
        maps.dscp_to_tc[dscp] = sp
    maps.tc_to_queue = {p: traffic_class.get(p, p) for p in range(8)}
    pfc_profiles = qos.get("pfc", {})
    ecn_classes = qos.get("congestion-control", {}).get(PROFILE, {}).get("traffic-class", {})
    watchdog_settings = qos.get("pfc-watchdog")
    watchdog = WatchdogPlan(False, 0, 0, 0, "drop")
    if isinstance(watchdog_settings, dict):
        poll = int(watchdog_settings.get("polling-interval", 100))  # NVUE default 100 ms
        robustness = int(watchdog_settings.get("robustness", 3))  # NVUE default 3
        base = device.watchdog
        watchdog = WatchdogPlan(
            True, poll * robustness, base.restoration_ms or poll * robustness, poll, base.action
        )
    ports = {}
    for port_name, entry in tree.get("interface", {}).items():
        line, column = document.mark((index, "set", "interface", port_name), key=True)
        source = f"{file}:{line}:{column}"
        port = new_port(hint, port_name, source)
        port.source = source
        link = entry.get("link", {})
        if "mtu" in link:
            port.mtu = int(link["mtu"])
        if "speed" in link:
            with contextlib.suppress(ValueError):  # a speed we do not know: keep the plan's
                port.speed_mbps = parse_speed(str(link["speed"]))
        port_qos = entry.get("qos", {})
        profile = pfc_profiles.get(port_qos.get("pfc", {}).get("profile", ""), {})
        priorities = sorted(int(p) for p in profile.get("switch-priority", {}))
        port.lossless = bool(priorities)
        port.pfc_priorities = priorities
        port.cable_m = float(profile["cable-length"]) if "cable-length" in profile else None
        port.ecn = [
            EcnPlan(
                int(tc),
                int(e.get("min-threshold", 0)),
                int(e.get("max-threshold", 0)),
                int(e.get("probability", 100)),
                None,
                None,
                None,
                None,
                source,
            )
            for tc, e in sorted(ecn_classes.items(), key=lambda item: int(item[0]))
            if port.lossless
            and e.get("ecn", "enable") == "enable"
            and maps.tc_to_queue.get(int(tc), int(tc))
            in [maps.tc_to_queue.get(p, p) for p in priorities]
        ]
        port.wred_drop_queues = sorted(
            maps.tc_to_queue.get(int(tc), int(tc))
            for tc, e in ecn_classes.items()
            if e.get("red") == "enable"
        )
        port.watchdog = None
        if port.lossless:
            port.watchdog = copy.copy(watchdog)
            port.watchdog.enabled = watchdog.enabled and "pfc-watchdog" in port_qos
        ports[port_name] = port
    device.ports = ports
    device.lossless_priorities = sorted({p for port in ports.values() for p in port.pfc_priorities})
    lossless_queues = {maps.tc_to_queue.get(p, p) for p in device.lossless_priorities}
    scheduler = qos.get("egress-scheduler", {}).get(PROFILE, {}).get("traffic-class", {})
    device.queues = [
        queue_plan(int(tc), e.get("mode") == "strict", int(e.get("bw-percent", 0)), lossless_queues)
        for tc, e in sorted(scheduler.items(), key=lambda item: int(item[0]))
    ]
    device.watchdog = watchdog
    forwarding = tree.get("system", {}).get("forwarding", {})
    if "hash-seed" in forwarding:
        device.ecmp.seed = int(forwarding["hash-seed"])
    if "ecmp-hash" in forwarding:
        device.ecmp.hashes_udp_source_port = forwarding["ecmp-hash"].get("source-port") == "on"
    classify_traffic(device, dscps_known=hint is not None)
    device.headroom_known = False  # Cumulus sizes headroom from cable-length
    device.source = f"{file}:1:1"
    return device


def parse_file(path: str, name: str, hint: DevicePlan | None = None) -> DevicePlan:
    return parse(read_config(path), path, name, hint)
