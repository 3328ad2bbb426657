"""Read an Arista EOS config (ours or hand-written, as `show running-config` prints it) back
into a DevicePlan, through hier_config's tree of the text.

What EOS says: DSCP and traffic-class maps, watchdog defaults, qos profiles (trust, PFC
no-drop priorities, watchdog, tx-queue scheduling and ECN) and interfaces (MTU, speed and
lanes, service-profile). Anything else (ASIC, peers, cable lengths) comes from `hint`.
"""

from __future__ import annotations

import copy
import re
from typing import Any

from hier_config import Platform, get_hconfig

from lossless.asics import catalogue
from lossless.plan import DevicePlan, EcnPlan, WatchdogPlan
from lossless.vendors.common import classify_traffic, queue_plan, read_config, top_level_lines
from lossless.vendors.skeleton import new_port, skeleton_device

_ECN = re.compile(
    r"random-detect ecn minimum-threshold (\d+) (\w+) maximum-threshold (\d+) (\w+)"
    r"(?: max-mark-probability (\d+))?"
)
_UNITS = {"bytes": 1, "kbytes": 1000, "mbytes": 1_000_000}
_SPEED = re.compile(r"(\d+)g(?:-(\d+))?$")


def _seconds_ms(text: str) -> int:
    return round(float(text) * 1000)


def _bytes(value: str, unit: str, cell: int) -> int:
    if unit == "segments":
        return int(value) * cell
    return int(value) * _UNITS.get(unit, 1)


def _profile(node: Any, cell: int) -> dict[str, Any]:
    profile: dict[str, Any] = {
        "pfc": False,
        "no_drop": [],
        "watchdog": False,
        "queues": {},
        "ecn": {},
        "drop": set(),
    }
    for child in node.children:
        text = child.text
        if text == "priority-flow-control on":
            profile["pfc"] = True
        elif match := re.fullmatch(r"priority-flow-control priority (\d) no-drop", text):
            profile["no_drop"].append(int(match.group(1)))
        elif text == "priority-flow-control pause watchdog":
            profile["watchdog"] = True
        elif match := re.fullmatch(r"(?:uc-)?tx-queue (\d)", text):
            queue = int(match.group(1))
            entry: dict[str, Any] = {"strict": False, "weight": None}
            for line in (c.text for c in child.children):
                if line == "priority strict":
                    entry["strict"] = True
                elif bandwidth := re.fullmatch(r"bandwidth (?:guaranteed )?percent (\d+)", line):
                    entry["weight"] = int(bandwidth.group(1))
                elif line.startswith("random-detect drop"):
                    profile["drop"].add(queue)
                elif ecn := _ECN.match(line):
                    profile["ecn"][queue] = (
                        _bytes(ecn.group(1), ecn.group(2), cell),
                        _bytes(ecn.group(3), ecn.group(4), cell),
                        int(ecn.group(5) or 100),
                    )
            profile["queues"][queue] = entry
    return profile


def parse(text: str, file: str, name: str, hint: DevicePlan | None = None) -> DevicePlan:
    tree = get_hconfig(Platform.ARISTA_EOS, text)
    lines = top_level_lines(text)
    device = skeleton_device(name, "eos", file, hint)
    asic = catalogue().get(device.asic)
    cell = asic.cell_size if asic else 256
    maps = device.maps
    maps.dscp_to_tc = dict.fromkeys(range(64), 0)
    maps.tc_to_queue = {p: p for p in range(8)}
    # EOS's watchdog defaults; action errdisable unless set (docs/reference/vendors.md 1b)
    watchdog = WatchdogPlan(False, 0, 0, 0, "errdisable")
    profiles: dict[str, dict[str, Any]] = {}
    interfaces = []
    for node in tree.children:
        text = node.text
        if match := re.fullmatch(r"qos map dscp ([\d ]+) to traffic-class (\d)", text):
            for dscp in match.group(1).split():
                maps.dscp_to_tc[int(dscp)] = int(match.group(2))
        elif match := re.fullmatch(r"qos map traffic-class ([\d ]+) to tx-queue (\d)", text):
            for tc in match.group(1).split():
                maps.tc_to_queue[int(tc)] = int(match.group(2))
        elif match := re.fullmatch(
            r"priority-flow-control pause watchdog default "
            r"(timeout|polling-interval|recovery-time) ([\d.]+)",
            text,
        ):
            key = {
                "timeout": "detection_ms",
                "polling-interval": "poll_ms",
                "recovery-time": "restoration_ms",
            }[match.group(1)]
            setattr(watchdog, key, _seconds_ms(match.group(2)))
        elif match := re.fullmatch(r"priority-flow-control pause watchdog action (\S+)", text):
            watchdog.action = match.group(1)
        elif match := re.fullmatch(r"qos profile (\S+)", text):
            profiles[match.group(1)] = _profile(node, cell)
        elif match := re.fullmatch(r"interface (\S+)", text):
            interfaces.append((match.group(1), node, lines.get(text, 1)))
    ports = {}
    for port_name, node, line in interfaces:
        source = f"{file}:{line}:1"
        port = new_port(hint, port_name, source)
        port.source = source
        profile = None
        for child in (c.text for c in node.children):
            if match := re.fullmatch(r"mtu (\d+)", child):
                port.mtu = int(match.group(1))
            elif match := re.fullmatch(r"speed (?:forced )?(\S+)", child):
                speed = _SPEED.match(match.group(1))
                if speed:
                    port.speed_mbps = int(speed.group(1)) * 1000
                    if speed.group(2):
                        port.lanes = int(speed.group(2))
            elif match := re.fullmatch(r"service-profile (\S+)", child):
                profile = profiles.get(match.group(1))
        lossless = bool(profile and profile["pfc"] and profile["no_drop"])
        port.lossless = lossless
        port.pfc_priorities = sorted(profile["no_drop"]) if lossless and profile else []
        port.ecn = (
            [
                EcnPlan(q, lo, hi, p, None, None, None, None, source)
                for q, (lo, hi, p) in sorted(profile["ecn"].items())
            ]
            if lossless and profile
            else []
        )
        port.wred_drop_queues = sorted(profile["drop"]) if profile else []
        port.watchdog = None
        if lossless and profile:
            port.watchdog = copy.copy(watchdog)
            port.watchdog.enabled = profile["watchdog"]
        ports[port_name] = port
    device.ports = ports
    device.lossless_priorities = sorted({p for port in ports.values() for p in port.pfc_priorities})
    used = next((p for p in profiles.values() if p["pfc"] and p["no_drop"]), None)
    if used is not None:
        lossless_queues = {maps.tc_to_queue.get(p, p) for p in used["no_drop"]}
        device.queues = [
            queue_plan(q, e["strict"], e["weight"], lossless_queues)
            for q, e in sorted(used["queues"].items())
        ]
    device.watchdog = copy.copy(watchdog)
    device.watchdog.enabled = bool(used and used["watchdog"])
    classify_traffic(device, dscps_known=hint is not None)
    device.headroom_known = False  # EOS sizes headroom itself (no knob outside Trident MMU)
    device.source = f"{file}:1:1"
    return device


def parse_file(path: str, name: str, hint: DevicePlan | None = None) -> DevicePlan:
    return parse(read_config(path), path, name, hint)
