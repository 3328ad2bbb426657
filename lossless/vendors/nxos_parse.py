"""Read a Cisco NX-OS config (as `show running-config` prints it) back into a DevicePlan,
through hier_config's tree of the text.

What NX-OS says: DSCP classification (class-maps and the qos policy's qos-groups), the no-drop
classes and MTU of the network-qos policy, the ingress pause buffer (system-wide), egress
scheduling and ECN (system-wide, so every lossless port gets the lossless queue's ECN), ECMP
load-sharing, and per interface MTU, PFC mode and the watchdog switch. Watchdog timers are not
in the config; they and other facts (ASIC, peers, speeds) come from `hint`.
"""

from __future__ import annotations

import copy
import re
from typing import Any

from hier_config import Platform, get_hconfig

from lossless.plan import DevicePlan, EcnPlan, WatchdogPlan
from lossless.vendors.common import classify_traffic, queue_plan, read_config, top_level_lines
from lossless.vendors.skeleton import new_port, skeleton_device

_UNITS = {"bytes": 1, "kbytes": 1000, "mbytes": 1_000_000}
_ECN = re.compile(
    r"random-detect minimum-threshold (\d+) (\w+) maximum-threshold (\d+) (\w+)"
    r"(?: drop-probability (\d+))?.* ecn$"
)


def _queue(class_name: str) -> int | None:
    """c-out-8q-q3 -> 3, c-out-8q-q-default -> 0, c-8q-nq3 -> 3."""
    if class_name.endswith("default"):
        return 0
    match = re.search(r"q(\d)$", class_name)
    return int(match.group(1)) if match else None


def _children(node: Any) -> list[Any]:
    return list(node.children)


def parse(text: str, file: str, name: str, hint: DevicePlan | None = None) -> DevicePlan:
    tree = get_hconfig(Platform.CISCO_NXOS, text)
    lines = top_level_lines(text)
    device = skeleton_device(name, "nxos", file, hint)
    class_dscps: dict[str, list[int]] = {}
    qos_groups: dict[str, int] = {}
    no_drop: list[int] = []
    egress: dict[int, dict[str, Any]] = {}
    ecmp_seed: int | None = None
    interfaces = []
    for node in tree.children:
        text_ = node.text
        if match := re.fullmatch(r"class-map type qos match-(?:all|any) (\S+)", text_):
            for child in _children(node):
                if matched := re.fullmatch(r"match dscp ([\d ,-]+)", child.text):
                    class_dscps[match.group(1)] = _numbers(matched.group(1))
        elif re.fullmatch(r"policy-map type qos \S+", text_):
            for class_node in _children(node):
                cls = re.fullmatch(r"class (\S+)", class_node.text)
                for child in _children(class_node):
                    group = re.fullmatch(r"set qos-group (\d)", child.text)
                    if group and cls:
                        qos_groups[cls.group(1)] = int(group.group(1))
        elif re.fullmatch(r"policy-map type network-qos \S+", text_):
            for class_node in _children(node):
                for child in _children(class_node):
                    if pause := re.fullmatch(r"pause pfc-cos ([\d ,]+)", child.text):
                        no_drop.extend(_numbers(pause.group(1)))
        elif re.fullmatch(r"policy-map type queuing \S+", text_):
            for class_node in _children(node):
                cls = re.fullmatch(r"class type queuing (c-out-\S+)", class_node.text)
                if not cls:
                    continue
                queue = _queue(cls.group(1))
                entry: dict[str, Any] = {
                    "strict": False,
                    "weight": None,
                    "ecn": None,
                    "drop": False,
                }
                for child in (c.text for c in _children(class_node)):
                    if child.startswith("priority level"):
                        entry["strict"] = True
                    elif weight := re.fullmatch(r"bandwidth (?:remaining )?percent (\d+)", child):
                        entry["weight"] = int(weight.group(1))
                    elif ecn := _ECN.match(child):
                        entry["ecn"] = (
                            int(ecn.group(1)) * _UNITS.get(ecn.group(2), 1),
                            int(ecn.group(3)) * _UNITS.get(ecn.group(4), 1),
                            int(ecn.group(5) or 100),
                        )
                    elif child.startswith("random-detect "):  # WRED without `ecn`: drops
                        entry["drop"] = True
                if queue is not None:
                    egress[queue] = entry
        elif seed := re.match(r"ip load-sharing address .*universal-id (\d+)", text_):
            ecmp_seed = int(seed.group(1))
            device.ecmp.hashes_udp_source_port = " port " in f" {text_} "
        elif match := re.fullmatch(r"interface (\S+)", text_):
            interfaces.append((match.group(1), node, lines.get(text_, 1)))
    maps = device.maps
    maps.dscp_to_tc = dict.fromkeys(range(64), 0)
    for class_name, dscps in class_dscps.items():
        for dscp in dscps:
            maps.dscp_to_tc[dscp] = qos_groups.get(class_name, 0)
    maps.tc_to_queue = {p: p for p in range(8)}  # qos-group N is queue N in 8-queue mode
    if ecmp_seed is not None:
        device.ecmp.seed = ecmp_seed
    lossless_queues = set(no_drop)
    ports = {}
    for port_name, node, line in interfaces:
        source = f"{file}:{line}:1"
        port = new_port(hint, port_name, source)
        port.source = source
        children = [c.text for c in _children(node)]
        for child in children:
            if mtu := re.fullmatch(r"mtu (\d+)", child):
                port.mtu = int(mtu.group(1))
        port.lossless = "priority-flow-control mode on" in children and bool(no_drop)
        port.pfc_priorities = sorted(no_drop) if port.lossless else []
        watchdog_on = "priority-flow-control watch-dog-interval on" in children
        if port.lossless:
            base = port.watchdog or device.watchdog or WatchdogPlan(False, 0, 0, 0, "drop")
            port.watchdog = copy.copy(base)
            port.watchdog.enabled = watchdog_on
        else:
            port.watchdog = None
        port.ecn = [
            EcnPlan(q, e["ecn"][0], e["ecn"][1], e["ecn"][2], None, None, None, None, source)
            for q, e in sorted(egress.items())
            if port.lossless and q in lossless_queues and e["ecn"]
        ]
        port.wred_drop_queues = [q for q, e in sorted(egress.items()) if e["drop"]]
        ports[port_name] = port
    device.ports = ports
    device.lossless_priorities = sorted(set(no_drop))
    device.queues = [
        queue_plan(q, e["strict"], e["weight"], lossless_queues)
        for q, e in sorted(egress.items())
        if e["strict"] or e["weight"]
    ]
    classify_traffic(device, dscps_known=hint is not None)
    device.headroom_known = False  # per-port headroom is not in an NX-OS config
    device.source = f"{file}:1:1"
    return device


def _numbers(text: str) -> list[int]:
    numbers: list[int] = []
    for part in re.split(r"[ ,]+", text.strip()):
        first, _, last = part.partition("-")
        if first.isdigit():
            numbers.extend(range(int(first), int(last or first) + 1))
    return numbers


def parse_file(path: str, name: str, hint: DevicePlan | None = None) -> DevicePlan:
    return parse(read_config(path), path, name, hint)
