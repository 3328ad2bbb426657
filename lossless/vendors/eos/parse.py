"""Read an Arista EOS config (ours, AVD-rendered, hand-written or a full `show running-config`)
back into a DevicePlan: what the config states, and EOS's own default for what it leaves out.

Read: `qos map dscp|traffic-class`, `interface defaults` MTU, PFC watchdog defaults, `qos
profile`s (trust, PFC, watchdog, tx-queue / uc-tx-queue scheduling, ECN and WRED), Ethernet
interfaces (MTU, speed, switchport, trust, per-interface PFC and queues, `service-profile`
only when that profile exists) and `ip load-sharing trident fields`. Settings on the
interface win over its profile's. Every fact records the line that stated it.

EOS defaults applied for what a config leaves out (docs/vendors/eos.md lists the sources):
* DSCP -> traffic class DSCP/8 (DSCP 24-31 -> TC 3, 48-55 -> TC 6); traffic class N ->
  tx-queue N;
* every tx-queue strict priority unless `no priority`;
* trust: DSCP on a routed port (`no switchport`), CoS on a switchport (EOS's default mode);
* MTU 1500 (unless `interface defaults` sets one); speed: the platform's default;
* PFC off; watchdog off, action errdisable;
* ECMP hash on source/destination IP and L4 ports and the ingress interface.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from lossless.asics import catalogue
from lossless.plan import DevicePlan, EcnPlan, PortPlan, QueuePlan, WatchdogPlan
from lossless.system.files import read_config
from lossless.vendors.cli_tree import Node, check_config_of, not_read, parse_tree
from lossless.vendors.eos.render import DEFAULT_HASH_FIELDS, HASH_FIELDS, platform_speed
from lossless.vendors.skeleton import (
    UNKNOWN,
    classify_traffic,
    learn_platform,
    new_port,
    skeleton_device,
)

DEFAULT_MTU = 1500
DEFAULT_WATCHDOG_ACTION = "errdisable"

_ECN = re.compile(
    r"random-detect ecn minimum-threshold (\d+) (\w+) maximum-threshold (\d+) (\w+)"
    r"(?: max-mark-probability (\d+))?(?: weight (\d+))?"
)
# ECN threshold units (EOS `random-detect ecn minimum-threshold`; AVD's schema allows the
# same six): bytes per unit, or per unit of time at the port's line rate (a time threshold is
# the queue that drains in that time).
_UNITS = {"bytes": 1, "kbytes": 1000, "mbytes": 1_000_000}
_TIME_UNITS = {"microseconds": 1e-6, "milliseconds": 1e-3}
# The WRED averaging weight EOS takes (0: the instantaneous queue, what DCQCN needs).
_MAX_WEIGHT = 15
_SPEED = re.compile(r"(?:forced )?(\d+)(g|m)?(?:full)?(?:-(\d))?")
_QUEUE = re.compile(r"(?:uc-)?tx-queue (\d+)")
QUEUES = 8  # tx-queues 0-7 (EOS: `tx-queue <0-7>`)
_WATCHDOG_TIMER = re.compile(
    r"priority-flow-control pause watchdog port timer timeout ([\d.]+) "
    r"polling-interval ([\d.]+|auto) recovery-time ([\d.]+)(?: forced)?"
)


def _ms(text: str) -> int:
    return round(float(text) * 1000)


@dataclass
class _Stated:
    """A value and where it was stated."""

    value: Any
    source: str


@dataclass
class _QosBlock:
    """What a `qos profile` or an interface states about QoS (None: not stated there)."""

    trust: _Stated | None = None
    pfc: _Stated | None = None  # bool
    no_drop: dict[int, _Stated] = field(default_factory=dict)  # priority -> no-drop (bool)
    watchdog: _Stated | None = None  # bool
    watchdog_action: _Stated | None = None
    watchdog_timers: _Stated | None = None  # (timeout ms, poll ms, recovery ms)
    queues: dict[int, dict[str, _Stated]] = field(default_factory=dict)
    source: str = ""  # the `qos profile` or `interface` line

    def over(self, base: _QosBlock | None) -> _QosBlock:
        """This block's statements over `base`'s (the interface over its profile)."""
        if base is None:
            return self
        queues = {q: dict(s) for q, s in base.queues.items()}
        for queue, stated in self.queues.items():
            # the profile's block stays the queue's place (what it lacks belongs there)
            kept = queues.setdefault(queue, {})
            kept.update({k: v for k, v in stated.items() if k != "header" or k not in kept})
        return _QosBlock(
            trust=self.trust or base.trust,
            pfc=self.pfc or base.pfc,
            no_drop={**base.no_drop, **self.no_drop},
            watchdog=self.watchdog or base.watchdog,
            watchdog_action=self.watchdog_action or base.watchdog_action,
            watchdog_timers=self.watchdog_timers or base.watchdog_timers,
            queues=queues,
            source=base.source,
        )


@dataclass(frozen=True)
class _Ecn:
    """A `random-detect ecn` line's thresholds as written (converted at the port's speed)."""

    low: tuple[int, str]
    high: tuple[int, str]
    probability: int
    weight: int


def _read_queue(node: Node, file: str) -> dict[str, _Stated]:
    stated: dict[str, _Stated] = {}
    for child in node:
        text, where = child.text, f"{file}:{child.line}:1"
        if text == "priority strict":
            stated["strict"] = _Stated(True, where)
        elif text == "no priority":
            stated["strict"] = _Stated(False, where)
        elif bandwidth := re.fullmatch(r"bandwidth (?:guaranteed )?percent (\d+)", text):
            stated["weight"] = _Stated(int(bandwidth.group(1)), where)
        elif text.startswith("random-detect drop"):
            stated["wred_drop"] = _Stated(True, where)
        elif text.startswith("random-detect ecn minimum-threshold"):
            stated["ecn"] = _Stated(_read_ecn(text, file, child.line), where)
    return stated


def _read_ecn(text: str, file: str, line: int) -> _Ecn:
    ecn = _ECN.fullmatch(text)
    units = (*_UNITS, *_TIME_UNITS, "segments")
    if not ecn or ecn.group(2) not in units or ecn.group(4) not in units:
        raise not_read(file, line, "EOS", text, f"is not read: thresholds take {', '.join(units)}")
    weight = int(ecn.group(6) or 0)
    if weight > _MAX_WEIGHT:
        raise not_read(file, line, "EOS", text, f"has a weight above {_MAX_WEIGHT}")
    low, high = (int(ecn.group(1)), ecn.group(2)), (int(ecn.group(3)), ecn.group(4))
    return _Ecn(low, high, int(ecn.group(5) or 100), weight)


def _bytes(threshold: tuple[int, str], cell: int, speed_mbps: int) -> int:
    value, unit = threshold
    if unit in _TIME_UNITS:
        return round(value * _TIME_UNITS[unit] * speed_mbps * 1_000_000 / 8)
    return value * (cell if unit == "segments" else _UNITS[unit])


def _read_qos(node: Node, file: str) -> _QosBlock:
    """The QoS statements of a profile or an interface (other statements are ignored)."""
    block = _QosBlock(source=f"{file}:{node.line}:1")
    for child in node:
        text, where = child.text, f"{file}:{child.line}:1"
        if match := re.fullmatch(r"qos trust (dscp|cos)", text):
            block.trust = _Stated(match.group(1), where)
        elif text == "no qos trust":
            block.trust = _Stated("none", where)
        elif text in ("priority-flow-control on", "priority-flow-control mode on"):
            block.pfc = _Stated(True, where)
        elif text in ("no priority-flow-control", "priority-flow-control mode off"):
            block.pfc = _Stated(False, where)
        elif match := re.fullmatch(r"priority-flow-control priority ([0-7]) (no-drop|drop)", text):
            block.no_drop[int(match.group(1))] = _Stated(match.group(2) == "no-drop", where)
        elif text == "priority-flow-control pause watchdog":
            block.watchdog = _Stated(True, where)
        elif text == "no priority-flow-control pause watchdog":
            block.watchdog = _Stated(False, where)
        elif match := re.fullmatch(r"priority-flow-control pause watchdog port action (\S+)", text):
            block.watchdog_action = _Stated(match.group(1), where)
        elif match := _WATCHDOG_TIMER.fullmatch(text):
            timeout, poll, recovery = match.groups()
            poll_ms = _ms(poll) if poll != "auto" else None
            block.watchdog_timers = _Stated((_ms(timeout), poll_ms, _ms(recovery)), where)
        elif match := _QUEUE.fullmatch(text):
            queue = int(match.group(1))
            if queue >= QUEUES:
                raise not_read(file, child.line, "EOS", text, f"names no queue (0-{QUEUES - 1})")
            stated = block.queues.setdefault(queue, {"header": _Stated(None, where)})
            stated.update(_read_queue(child, file))
        elif text.startswith("priority-flow-control priority "):
            raise not_read(file, child.line, "EOS", text, "names no priority (0-7) or action")
    return block


# Statements only another OS writes at the top level (the OS they belong to).
_FOREIGN = (
    (
        re.compile(r"(feature |system qos|policy-map type (network-qos|queuing) |version \d).*"),
        "NX-OS",
    ),
)
# Top-level statements an EOS config is made of (one is enough to say it is EOS).
_EOS_WORDS = re.compile(
    r"(interface|qos|priority-flow-control|hostname|platform|hardware|ip|ipv6|router|vlan|"
    r"spanning-tree|username|management|service|transceiver|no|ntp|logging|snmp-server|aaa|"
    r"boot|daemon|vrf|mlag|load-balance|port-channel|dcbx|policy-map|class-map|queue-monitor|"
    r"switchport|monitor|event-handler|banner|dns|errdisable|lldp|mac|route-map|"
    r"prefix-list|access-list|peer-filter|agent|terminal|clock|tacacs-server|radius-server|"
    r"sflow|tap|ptp|system|redundancy|cvx|end)\b"
)


def check_is_eos(text: str, tree: Node, file: str) -> None:
    """Bad input (exit 2) naming the line when the file is another OS's config or no config."""
    check_config_of(text, tree, file, "EOS", _FOREIGN, _EOS_WORDS)


def _speed(token: str) -> tuple[int, int] | None:
    """EOS speed tokens: 400g-8, 100g-2, 100gfull, 25g, 10000full, forced 40gfull."""
    match = _SPEED.fullmatch(token)
    if not match:
        return None
    number, unit, lanes = match.groups()
    mbps = int(number) * 1000 if unit == "g" else int(number)
    return mbps, int(lanes) if lanes else 0


@dataclass
class _Globals:
    """Switch-wide statements the ports and the device read."""

    mtu: _Stated | None = None
    watchdog: dict[str, _Stated] = field(default_factory=dict)  # key -> ms or action
    profiles: dict[str, _QosBlock] = field(default_factory=dict)
    tc_lines: dict[int, str] = field(default_factory=dict)  # traffic class -> its tx-queue line


def _qos_map(
    text: str, key: str, keys: int, target: str, file: str, line: int
) -> tuple[list[int], int]:
    """`qos map <key> <k>... to <target> <t>`: the keys (0 to keys-1) and the target (0-7)."""
    match = re.fullmatch(rf"qos map {key} ([\d ]+) to {target} (\d+)", text)
    values = [int(v) for v in match.group(1).split()] if match else []
    if not match or max(values) >= keys or int(match.group(2)) >= QUEUES:
        why = f"is not read: {key} 0-{keys - 1} to {target} 0-{QUEUES - 1}"
        raise not_read(file, line, "EOS", text, why)
    return values, int(match.group(2))


def _read_globals(tree: Node, device: DevicePlan, file: str) -> _Globals:
    seen = _Globals()
    maps, sources = device.maps, device.sources
    for node in tree:
        text, where = node.text, f"{file}:{node.line}:1"
        if text.startswith("qos map dscp ") and " to traffic-class " in text:
            dscps, tc = _qos_map(text, "dscp", 64, "traffic-class", file, node.line)
            for dscp in dscps:
                maps.dscp_to_tc[dscp] = tc
                if dscp == device.roce_dscp:
                    sources["roce"] = sources["dscp_to_tc"] = where
                elif dscp == device.cnp_dscp:
                    sources["cnp"] = where
            sources.setdefault("dscp_to_tc", where)
        elif text.startswith("qos map traffic-class ") and " to tx-queue " in text:
            tcs, queue = _qos_map(text, "traffic-class", 8, "tx-queue", file, node.line)
            for tc in tcs:
                maps.tc_to_queue[tc] = queue
                seen.tc_lines[tc] = where
            sources.setdefault("tc_to_queue", where)
        elif text == "interface defaults":
            for child in node:
                if match := re.fullmatch(r"mtu (\d+)", child.text):
                    seen.mtu = _Stated(int(match.group(1)), f"{file}:{child.line}:1")
        elif match := re.fullmatch(
            r"priority-flow-control pause watchdog default "
            r"(timeout|polling-interval|recovery-time) ([\d.]+)",
            text,
        ):
            seen.watchdog[match.group(1)] = _Stated(_ms(match.group(2)), where)
        elif match := re.fullmatch(r"priority-flow-control pause watchdog action (\S+)", text):
            seen.watchdog["action"] = _Stated(match.group(1), where)
        elif text == "priority-flow-control pause watchdog override action drop":
            # every port's watchdog drops, whatever action it is given (AVD writes it with
            # the errdisable default: `priority_flow_control.watchdog.override_action_drop`)
            seen.watchdog["override"] = _Stated("drop", where)
        elif match := re.fullmatch(r"qos profile (\S+)", text):
            seen.profiles[match.group(1)] = _read_qos(node, file)
        elif match := re.fullmatch(r"ip load-sharing trident fields ip((?: \S+)*)", text):
            fields = [HASH_FIELDS[k] for k in match.group(1).split() if k in HASH_FIELDS]
            device.ecmp.hash_fields = fields
            device.ecmp.hashes_udp_source_port = "src-port" in fields
            device.ecmp.seed_source = where
            sources["ecmp_udp_source_port"] = sources["ecmp_hash_fields"] = where
        elif match := re.fullmatch(r"ip load-sharing \S+ (?:seed )?(\d+)", text):
            device.ecmp.seed = int(match.group(1))
            sources["ecmp_seed"] = where
        elif text.startswith("ip hardware fib ecmp resilience "):
            device.ecmp.resilient = True
            sources["ecmp_resilient"] = where
    return seen


def _port(
    name: str, node: Node, seen: _Globals, device: DevicePlan, hint: DevicePlan | None, file: str
) -> tuple[PortPlan, _QosBlock]:
    header = f"{file}:{node.line}:1"
    port = new_port(hint, name, header, mtu=int(seen.mtu.value) if seen.mtu else DEFAULT_MTU)
    if seen.mtu:
        port.sources["mtu"] = seen.mtu.source
    port.speed_mbps, port.lanes = platform_speed(device)
    routed = False
    profile: _QosBlock | None = None
    profile_line = header
    for child in node:
        text, where = child.text, f"{file}:{child.line}:1"
        if match := re.fullmatch(r"mtu (\d+)", text):
            port.mtu, port.sources["mtu"] = int(match.group(1)), where
        elif match := re.fullmatch(r"speed (.+)", text):
            parsed = _speed(match.group(1))
            if parsed:
                port.speed_mbps, port.lanes = parsed
                port.sources["speed_mbps"] = port.sources["lanes"] = where
        elif text == "no switchport":
            routed = True
        elif text.startswith("description "):
            port.description = text.removeprefix("description ")
        elif match := re.fullmatch(r"service-profile (\S+)", text):
            # A profile that does not exist applies nothing (EOS accepts the line).
            profile = seen.profiles.get(match.group(1))
            profile_line = profile.source if profile else where
    block = _read_qos(node, file).over(profile)
    # A QoS fact the config leaves out points at the profile that would state it (or the
    # `service-profile` line naming a profile that does not exist).
    for fact in ("lossless", "pfc_priorities", "ecn", "watchdog", "trust", "wred_drop_queues"):
        port.sources.setdefault(fact, profile_line)
    _apply_qos(port, block, routed, seen, device)
    return port, block


def _cell(device: DevicePlan) -> int:
    asic = catalogue().get(device.asic)
    return asic.cell_size if asic else 256


def _apply_qos(
    port: PortPlan, block: _QosBlock, routed: bool, seen: _Globals, device: DevicePlan
) -> None:
    sources = port.sources
    if block.trust:
        port.trust, sources["trust"] = str(block.trust.value), block.trust.source
    else:
        port.trust = "dscp" if routed else "cos"
    no_drop = sorted(p for p, stated in block.no_drop.items() if stated.value)
    port.lossless = bool(block.pfc and block.pfc.value and no_drop)
    if block.pfc:
        sources["lossless"] = block.pfc.source
    if no_drop:  # the last no-drop statement: an added priority is the one a rule judges
        sources["pfc_priorities"] = max(
            (block.no_drop[p].source for p in no_drop), key=lambda s: int(s.split(":")[-2])
        )
    port.pfc_priorities = no_drop if port.lossless else []
    port.ecn, port.wred_drop_queues = [], []
    for queue, stated in sorted(block.queues.items()):
        if "wred_drop" in stated:
            port.wred_drop_queues.append(queue)
            sources["wred_drop_queues"] = stated["wred_drop"].source
        if port.lossless and "ecn" in stated:
            ecn, where = stated["ecn"].value, stated["ecn"].source
            cell, speed = _cell(device), port.speed_mbps
            if not speed and {ecn.low[1], ecn.high[1]} & set(_TIME_UNITS):
                file, line, _ = where.rsplit(":", 2)
                raise not_read(
                    file,
                    int(line),
                    "EOS",
                    f"random-detect ecn ... {ecn.low[1]}",
                    f"cannot be read in bytes: {port.name}'s speed is not in the config "
                    "(a `speed` line, or --platform for the platform's default)",
                )
            low, high = _bytes(ecn.low, cell, speed), _bytes(ecn.high, cell, speed)
            port.ecn.append(
                EcnPlan(
                    queue,
                    low,
                    high,
                    ecn.probability,
                    None,
                    None,
                    None,
                    None,
                    where,
                    weight=ecn.weight,
                )
            )
            sources["ecn"] = where
    _ecn_source(port, block, device)
    port.watchdog = _watchdog(block, seen) if port.lossless else None
    if port.lossless and block.watchdog:
        sources["watchdog"] = block.watchdog.source


def _ecn_source(port: PortPlan, block: _QosBlock, device: DevicePlan) -> None:
    """ECN is judged on the port's lossless queues: where one lacks it, at that queue's block
    (or the profile when the queue has none), else at the lossless queue's ECN line, never at
    another queue's."""
    lossless = sorted({device.maps.tc_to_queue.get(p, p) for p in port.pfc_priorities})
    marked = {e.queue: e.derivation for e in port.ecn}
    unmarked = [q for q in lossless if q not in marked]
    if unmarked:
        header = block.queues.get(unmarked[0], {}).get("header")
        port.sources["ecn"] = header.source if header else block.source
    elif lossless:
        port.sources["ecn"] = marked[lossless[0]]


def _watchdog(block: _QosBlock, seen: _Globals) -> WatchdogPlan:
    """The port's watchdog: enabled by its profile/interface, timers from the port timer or the
    switch-wide defaults, action from the port or the switch (default errdisable)."""
    defaults = {
        k: int(v.value) for k, v in seen.watchdog.items() if k not in ("action", "override")
    }
    timeout, poll, recovery = (
        defaults.get("timeout", 0),
        defaults.get("polling-interval", 0),
        defaults.get("recovery-time", 0),
    )
    if block.watchdog_timers:
        timeout, port_poll, recovery = block.watchdog_timers.value
        poll = port_poll if port_poll is not None else poll
    action = seen.watchdog.get("override") or block.watchdog_action or seen.watchdog.get("action")
    return WatchdogPlan(
        enabled=bool(block.watchdog and block.watchdog.value),
        detection_ms=timeout,
        restoration_ms=recovery,
        poll_ms=poll,
        action=str(action.value) if action else DEFAULT_WATCHDOG_ACTION,
    )


def _queues(device: DevicePlan, block: _QosBlock | None) -> list[QueuePlan]:
    """All eight queues as the block states them, strict where it does not (EOS default)."""
    lossless_queues = {device.maps.tc_to_queue.get(p, p) for p in device.lossless_priorities}
    cnp_queue = device.maps.tc_to_queue.get(device.cnp_priority, device.cnp_priority)
    stated = block.queues if block else {}
    queues = []
    for queue in range(8):
        entry = stated.get(queue, {})
        strict = bool(entry["strict"].value) if "strict" in entry else True
        weight = None if strict or "weight" not in entry else int(entry["weight"].value)
        lossless = queue in lossless_queues
        traffic = "roce" if lossless else ("cnp" if queue == cnp_queue and strict else "default")
        queues.append(QueuePlan(queue, "strict" if strict else "dwrr", weight, lossless, traffic))
    return queues


def _queue_source(block: _QosBlock | None) -> str | None:
    """Where the scheduling is stated: the first tx-queue of the block, else the block."""
    for _, entry in sorted(block.queues.items()) if block else ():
        if "header" in entry:
            return entry["header"].source
    return block.source if block else None


# The header `show running-config` prints: `! device: leaf1 (DCS-7060DX5-32, EOS-4.32.2F)`
_DEVICE_HEADER = re.compile(r"! device: \S+ \(([^,()\s]+), EOS-[^)\s]*\)")


def _learn_model(text: str, device: DevicePlan, file: str) -> None:
    """The switch model of a running config's header, among its first lines."""
    for number, line in enumerate(text.splitlines()[:10], start=1):
        if match := _DEVICE_HEADER.fullmatch(line.strip()):
            learn_platform(device, match.group(1), f"{file}:{number}:1")
            return


def parse(text: str, file: str, name: str, hint: DevicePlan | None = None) -> DevicePlan:
    tree = parse_tree(text)
    check_is_eos(text, tree, file)
    device = skeleton_device(name, "eos", file, hint)
    if device.asic == UNKNOWN:  # a config alone, no --asic: the header's model, if any
        _learn_model(text, device, file)
    maps = device.maps
    # EOS default map, DSCP/8 [UM]. Not verified for DSCP 0-15: a recollection has 0-7 -> TC 1,
    # 8-15 -> TC 0, and no Arista source for either was found (docs/vendors/eos.md, "The
    # default DSCP map is not verified"); from DSCP 16 up (RoCE 26 -> 3, CNP 48 -> 6) both agree.
    maps.dscp_to_tc = {dscp: dscp // 8 for dscp in range(64)}
    maps.tc_to_queue = {tc: tc for tc in range(8)}
    device.ecmp.hash_fields = list(DEFAULT_HASH_FIELDS)
    device.ecmp.hashes_udp_source_port = True
    device.ecmp.seed_source = "EOS default hash fields"
    seen = _read_globals(tree, device, file)
    ports: dict[str, PortPlan] = {}
    blocks: dict[str, _QosBlock] = {}
    for node in tree:
        if match := re.fullmatch(r"interface (Ethernet\S+)", node.text):
            port, block = _port(match.group(1), node, seen, device, hint, file)
            ports[port.name], blocks[port.name] = port, block
    device.ports = ports
    device.lossless_priorities = sorted({p for port in ports.values() for p in port.pfc_priorities})
    first_lossless = next((p for p in ports.values() if p.lossless), None)
    # the scheduling of the first lossless port, else of the first port that states one (a
    # profile whose PFC line is missing still schedules its queues)
    stating = (blocks[name] for name in ports if blocks[name].queues)
    used = blocks.get(first_lossless.name) if first_lossless else next(stating, None)
    if first_lossless is not None:
        device.sources["lossless_priorities"] = first_lossless.sources.get(
            "pfc_priorities", first_lossless.source
        )
    classify_traffic(device)
    if device.roce_priority in seen.tc_lines:  # the line that sends RoCE's class to a queue
        device.sources["tc_to_queue"] = seen.tc_lines[device.roce_priority]
    device.queues = _queues(device, used)
    if where := _queue_source(used):
        device.sources["queues"] = where
    for queue, entry in sorted(used.queues.items()) if used else ():
        if "header" in entry:  # a rule about one queue points at its block (`queues.N`)
            device.sources[f"queues.{queue}"] = entry["header"].source
    device.watchdog = (
        first_lossless.watchdog
        if first_lossless and first_lossless.watchdog
        else _watchdog(_QosBlock(), seen)
    )
    if "polling-interval" in seen.watchdog:
        device.sources["watchdog_poll_ms"] = seen.watchdog["polling-interval"].source
    device.headroom_known = False  # EOS sizes headroom itself (no knob outside Trident MMU)
    device.source = f"{file}:1:1"
    return device


def parse_file(path: str, name: str, hint: DevicePlan | None = None) -> DevicePlan:
    return parse(read_config(path), path, name, hint)
