"""Read a Juniper Junos config (brace format, as `show configuration` prints it) back into a
DevicePlan. hier_config turns the braces into `set` statements, which are read here.

What Junos says: DSCP classifiers to forwarding classes, their queues and PFC priorities,
congestion-notification profiles (DSCP PFC, cable length, PFC watchdog) per interface,
schedulers (strict-high, transmit rates, ECN drop profiles as percent fill levels), MTU, and
whether ECMP hashes layer 4. ECN fill levels are percent of the lossless queue's usable buffer,
the plan's PFC trigger (vendors/junos.py); without a plan they stay percentages of a trigger
of 100, which keeps the ECN rules meaningful.
"""

from __future__ import annotations

import copy
import re
from typing import Any

from hier_config import Platform, get_hconfig

from lossless.plan import DevicePlan, EcnPlan, WatchdogPlan
from lossless.vendors.common import classify_traffic, queue_plan, read_config
from lossless.vendors.skeleton import new_port, skeleton_device

DEFAULT_CLASS_QUEUES = {"best-effort": 0}  # QFX default forwarding class [UNV for others]
_COS = "set class-of-service "


def _statements(text: str) -> list[str]:
    return [child.text for child in get_hconfig(Platform.JUNIPER_JUNOS, text).children]


def _block_lines(text: str) -> dict[str, int]:
    """Line of the first `<name> {` block of each name (interfaces come first in the file)."""
    lines: dict[str, int] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if stripped.endswith(" {"):
            lines.setdefault(stripped[:-2], number)
    return lines


def parse(text: str, file: str, name: str, hint: DevicePlan | None = None) -> DevicePlan:
    statements = _statements(text)
    blocks = _block_lines(text)
    device = skeleton_device(name, "junos", file, hint)
    mtus: dict[str, int] = {}
    code_points: dict[int, str] = {}  # dscp -> forwarding class
    classes: dict[str, dict[str, Any]] = {
        fc: {"queue": q, "pfc": None} for fc, q in DEFAULT_CLASS_QUEUES.items()
    }
    profiles: dict[str, dict[str, Any]] = {}
    interface_profile: dict[str, str] = {}
    interface_map: dict[str, str] = {}
    scheduler_maps: dict[str, dict[str, str]] = {}
    schedulers: dict[str, dict[str, Any]] = {}
    drop_profiles: dict[str, dict[str, int]] = {}
    layer4 = False
    for s in statements:
        if m := re.fullmatch(r"set interfaces (\S+) mtu (\d+)", s):
            mtus[m.group(1)] = int(m.group(2))
        elif m := re.fullmatch(
            _COS + r"classifiers dscp \S+ forwarding-class (\S+) loss-priority \S+ "
            r"code-points ([01]{6})",
            s,
        ):
            code_points[int(m.group(2), 2)] = m.group(1)
        elif m := re.fullmatch(
            _COS + r"forwarding-classes class (\S+) queue-num (\d+)(?: no-loss pfc-priority (\d))?",
            s,
        ):
            classes[m.group(1)] = {
                "queue": int(m.group(2)),
                "pfc": int(m.group(3)) if m.group(3) else None,
            }
        elif m := re.fullmatch(_COS + r"congestion-notification-profile (\S+) (.+)", s):
            profile = profiles.setdefault(m.group(1), {"pfc": False, "cable": None, "watchdog": {}})
            rest = m.group(2)
            if c := re.fullmatch(r"input cable-length (\d+)", rest):
                profile["cable"] = int(c.group(1))
            elif re.fullmatch(r"input dscp code-point [01]{6} pfc", rest):
                profile["pfc"] = True
            elif w := re.fullmatch(r"pfc-watchdog (poll-interval|detection|recovery) (\d+)", rest):
                profile["watchdog"][w.group(1)] = int(w.group(2))
            elif rest == "pfc-watchdog":
                profile["watchdog"].setdefault("on", 1)
        elif m := re.fullmatch(_COS + r"interfaces (\S+) congestion-notification-profile (\S+)", s):
            interface_profile[m.group(1)] = m.group(2)
        elif m := re.fullmatch(_COS + r"interfaces (\S+) scheduler-map (\S+)", s):
            interface_map[m.group(1)] = m.group(2)
        elif m := re.fullmatch(
            _COS + r"scheduler-maps (\S+) forwarding-class (\S+) scheduler (\S+)", s
        ):
            scheduler_maps.setdefault(m.group(1), {})[m.group(2)] = m.group(3)
        elif m := re.fullmatch(_COS + r"schedulers (\S+) (.+)", s):
            entry = schedulers.setdefault(
                m.group(1), {"strict": False, "rate": None, "drop": None, "ecn": False}
            )
            rest = m.group(2)
            if r := re.fullmatch(r"transmit-rate percent (\d+)", rest):
                entry["rate"] = int(r.group(1))
            elif rest == "priority strict-high":
                entry["strict"] = True
            elif d := re.search(r"drop-profile (\S+)$", rest):
                entry["drop"] = d.group(1)
            elif rest == "explicit-congestion-notification":
                entry["ecn"] = True
        elif m := re.fullmatch(
            _COS
            + r"drop-profiles (\S+) interpolate (fill-level|drop-probability) \[ (\d+) (\d+) \]",
            s,
        ):
            drop = drop_profiles.setdefault(m.group(1), {})
            drop[m.group(2)] = int(m.group(4))
            if m.group(2) == "fill-level":
                drop["low"] = int(m.group(3))
        elif re.fullmatch(r"set forwarding-options hash-key family inet layer-4", s):
            layer4 = True
    no_loss = {fc: c for fc, c in classes.items() if c["pfc"] is not None}
    maps = device.maps
    maps.dscp_to_tc = dict.fromkeys(range(64), 0)
    maps.tc_to_queue = {p: p for p in range(8)}
    for dscp, fc in code_points.items():
        cls = classes.get(fc)
        if cls is not None:
            tc = cls["pfc"] if cls["pfc"] is not None else cls["queue"]
            maps.dscp_to_tc[dscp] = tc
            maps.tc_to_queue[tc] = cls["queue"]
    priorities = sorted(c["pfc"] for c in no_loss.values())
    ports = {}
    for port_name, mtu in mtus.items():
        source = f"{file}:{blocks.get(port_name, 1)}:1"
        port = new_port(hint, port_name, source)
        port.source, port.mtu = source, mtu
        port_profile = profiles.get(interface_profile.get(port_name, ""))
        port.lossless = bool(port_profile and port_profile["pfc"] and priorities)
        port.pfc_priorities = priorities if port.lossless else []
        port.cable_m = (
            float(port_profile["cable"])
            if port.lossless and port_profile and port_profile["cable"]
            else None
        )
        port.watchdog = None
        if port.lossless and port_profile is not None:
            wd = port_profile["watchdog"]
            poll = wd.get("poll-interval", 100)  # Junos defaults: 100 ms, 2 polls, 200 ms
            port.watchdog = WatchdogPlan(
                bool(wd), poll * wd.get("detection", 2), wd.get("recovery", 200), poll, "drop"
            )
        port.ecn = _ecn(
            port,
            scheduler_maps.get(interface_map.get(port_name, ""), {}),
            schedulers,
            drop_profiles,
            classes,
            no_loss,
            hint,
        )
        # A drop profile without explicit-congestion-notification drops instead of marking.
        port_map = scheduler_maps.get(interface_map.get(port_name, ""), {})
        port.wred_drop_queues = sorted(
            classes[fc]["queue"]
            for fc, name in port_map.items()
            if fc in classes
            and schedulers.get(name, {}).get("drop")
            and not schedulers.get(name, {}).get("ecn")
        )
        ports[port_name] = port
    device.ports = ports
    device.lossless_priorities = priorities
    first_map = next(iter(scheduler_maps.values()), {})
    device.queues = sorted(
        (
            queue_plan(
                classes[fc]["queue"],
                bool(schedulers.get(s, {}).get("strict")),
                schedulers.get(s, {}).get("rate"),
                {classes[name]["queue"] for name in no_loss},
            )
            for fc, s in first_map.items()
            if fc in classes
        ),
        key=lambda q: q.queue,
    )
    watchdogs = [p.watchdog for p in ports.values() if p.watchdog]
    if watchdogs:
        device.watchdog = copy.copy(watchdogs[0])
    device.ecmp.hashes_udp_source_port = layer4
    classify_traffic(device, dscps_known=hint is not None)
    device.headroom_known = False  # Junos sizes headroom from cable-length
    device.source = f"{file}:1:1"
    return device


def _ecn(port, scheduler_map, schedulers, drop_profiles, classes, no_loss, hint) -> list[EcnPlan]:
    if not port.lossless:
        return []
    planned = hint.ports.get(port.name) if hint is not None else None
    triggers = {e.queue: e.pfc_trigger_bytes for e in planned.ecn} if planned else {}
    result = []
    for fc in no_loss:
        scheduler = schedulers.get(scheduler_map.get(fc, ""), {})
        drop = drop_profiles.get(scheduler.get("drop") or "", {})
        if not scheduler.get("ecn") or "fill-level" not in drop:
            continue
        queue = classes[fc]["queue"]
        trigger = triggers.get(queue)
        low, high = drop["low"], drop["fill-level"]
        if trigger:  # percent of the PFC trigger back to bytes (floor keeps the same percent)
            low, high = low * trigger // 100, high * trigger // 100
        else:  # no plan: thresholds stay in percent, of a trigger of 100 (percent)
            trigger = 100
        result.append(
            EcnPlan(
                queue,
                low,
                high,
                drop.get("drop-probability", 100),
                None,
                trigger,
                None,
                None,
                port.source,
            )
        )
    return result


def parse_file(path: str, name: str, hint: DevicePlan | None = None) -> DevicePlan:
    return parse(read_config(path), path, name, hint)
