"""Read a Cisco NX-OS config (ours, Cisco's RoCE script style, hand-written, or a full
`show running-config`) back into a DevicePlan: what the config states, and NX-OS's own default
for what it leaves out (docs/vendors/nxos.md lists the sources).

Only what is active counts. A network-qos or queuing policy acts only when `system qos`
attaches it (a queuing or qos policy also when an interface does; the interface's wins); a
policy-map nobody attaches, or an attachment naming no policy, changes nothing. A qos
(classification) policy classifies first match in its class order; DSCPs no class matches take
`class-default`'s qos-group (0 unless it sets one). qos-group N is egress queue N (8-queue mode).

NX-OS defaults applied for what a config leaves out:
* no qos policy on a port: every packet in qos-group 0 (nothing classified, trust "none");
* network-qos: the default policy, no no-drop class, class MTU 1500 (also of a class the
  attached policy lists without `mtu`); on a switchport the default class's MTU bounds best
  effort's frames (qos-group 0), the no-drop class's RoCE's;
* `priority` without `level`: level 1, the highest;
* egress queuing: the default 8-queue policy, every queue round robin, queue 0 100 %, the
  others 0 %, no strict queue, no ECN;
* interface MTU 1500; ports are switchports (Layer 2) unless `no switchport` (or
  `no system default switchport`); an L2 port's MTU is 1500 or the system jumbo MTU
  (`system jumbomtu`, default 9216), any other value is refused by NX-OS, and L2 frames are
  bounded by the network-qos class MTU;
* PFC mode auto (PFC only after a DCBX negotiation: lossless treats it as off);
* PFC watchdog off; interval 100 ms, shutdown multiplier 1, auto-restore multiplier 10;
* ECMP: unknown (NX-OS picks a random universal-id per switch).

Every fact records the line that stated it; a fact a missing line would state points at the
statement that should say it (the interface, the policy-map class, `system qos`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from lossless.errors import InputError, Problem
from lossless.plan import DevicePlan, EcnPlan, HeadroomPlan, PortPlan, WatchdogPlan
from lossless.system.files import read_config
from lossless.vendors.cli_tree import Node, check_config_of, not_read, parse_tree
from lossless.vendors.nxos.render import (
    DEFAULT_JUMBO_MTU,
    QUEUES,
    WATCHDOG_AUTO_RESTORE_MULTIPLIER,
    WATCHDOG_INTERVAL_MS,
    WATCHDOG_SHUTDOWN_MULTIPLIER,
)
from lossless.vendors.skeleton import classify_traffic, new_port, queue_plan, skeleton_device

DEFAULT_MTU = 1500  # interface MTU
DEFAULT_CLASS_MTU = 1500  # class MTU of the default network-qos policy
# The default 8-queue egress policy: queue -> bandwidth remaining percent, all round robin.
DEFAULT_EGRESS_WEIGHTS = {0: 100}
MAX_RANGE = 1024  # ports one `interface Ethernet1/1-N` statement may name

# RFC 2474/2597/3246 names NX-OS accepts in `match dscp`
DSCP_NAMES = {
    "default": 0,
    "ef": 46,
    **{f"cs{n}": 8 * n for n in range(8)},
    **{f"af{c}{d}": 8 * c + 2 * d for c in range(1, 5) for d in range(1, 4)},
}
_UNITS = {"bytes": 1, "kbytes": 1000, "mbytes": 1_000_000}
_ECN = re.compile(
    r"random-detect minimum-threshold (\d+) (bytes|kbytes|mbytes) "
    r"maximum-threshold (\d+) (bytes|kbytes|mbytes)(?: drop-probability (\d+))?"
    r"(?: weight (\d+))? ecn"
)
MAX_WRED_WEIGHT = 15  # `random-detect ... weight <0-15>`
# `priority [level N]`: strict-priority levels from 1, the highest (`priority` alone is level
# 1), to 8, the range of NX-OS's model object for it (ipqosPriority `level`, 1-8:
# terraform-provider-nxos gen/definitions/queuing_qos_policy_map_match_class_map_priority.yaml,
# render.py [TFNXOS]); a strict queue is served while no strict queue of a lower level has a
# frame (Nexus 9000 QoS Configuration Guide, "Configuring Queuing and Scheduling", render.py
# [QOSPRIO]). lossless renders CNP's queue alone at level 1.
MAX_PRIORITY_LEVEL = 8
# The largest class MTU NX-OS takes (as the interface's: render.py MAX_MTU) [L2MTU]
MAX_CLASS_MTU = DEFAULT_JUMBO_MTU
_PAUSE_BUFFER = re.compile(
    r"pause buffer-size (\d+) pause-threshold (\d+) resume-threshold (\d+)(?: .*)?"
)
_ETHERNET = re.compile(r"(?:ethernet|eth|e)\s*(\d+(?:/\d+)*)(?:\s*-\s*(\d+))?", re.IGNORECASE)
# `match dscp` lines of one class-map all count (cli_tree keeps them side by side)
REPEATABLE = ("match ",)


@dataclass(frozen=True)
class Stated:
    """A value and the line that stated it."""

    value: Any
    line: int


# --------------------------------------------------------------------------- not NX-OS


# Statements only another OS writes at the top level (the OS they belong to).
_FOREIGN = (
    (
        re.compile(
            r"(qos map |qos profile |platform trident |hardware counter feature |"
            r"ip load-sharing trident |priority-flow-control pause watchdog|management api |"
            r"daemon TerminAttr|interface defaults$|transceiver qsfp |queue-monitor ).*"
        ),
        "Arista EOS",
    ),
)
# Top-level statements an NX-OS config is made of (one is enough to say it is NX-OS).
_NXOS_WORDS = re.compile(
    r"(feature|system|policy-map|class-map|interface|hostname|switchname|version|vdc|vrf|"
    r"vlan|ip|ipv6|hardware|priority-flow-control|router|username|no|boot|line|snmp-server|"
    r"ntp|logging|aaa|copp|rmon|spanning-tree|cfs|nxapi|license|service|clock|vpc|"
    r"errdisable|lldp|route-map|object-group|mac|control-plane|tacacs-server|radius-server|"
    r"ssh|callhome|fabric|evpn|nv|bfd|key|track|event|monitor|qos|ptp|role|port-channel|"
    r"policy|class|power|cdp|udld|macsec|telemetry|end)\b"
)


def check_is_nxos(text: str, tree: Node, file: str) -> None:
    """Bad input (exit 2) naming the line when the file is another OS's config or no config."""
    check_config_of(text, tree, file, "NX-OS", _FOREIGN, _NXOS_WORDS)


# --------------------------------------------------------------------------- values


def numbers(text: str, limit: int = 64) -> list[int]:
    """NX-OS value lists: `24,26`, `24-31`, `3 4`, DSCP names (`af31`, `ef`); values from 0
    to `limit` - 1 (a range is cut there, so `0-999999999` costs nothing)."""
    values: list[int] = []
    for part in re.split(r"[ ,]+", text.strip().lower()):
        first, _, last = part.partition("-")
        if first in DSCP_NAMES and not last:
            values.append(DSCP_NAMES[first])
        elif first.isdigit() and (not last or last.isdigit()):
            values.extend(range(min(int(first), limit), min(int(last or first) + 1, limit)))
    return values


def ethernet_names(spec: str, file: str, line: int) -> list[str]:
    """`Ethernet1/1`, `Eth1/1-4, Ethernet1/10`, `e1/1` -> full Ethernet names; [] when the
    interface is not an Ethernet port."""
    names = []
    for part in spec.split(","):
        match = _ETHERNET.fullmatch(part.strip())
        if not match:
            return []
        base, end = match.groups()
        if end is None:
            names.append(f"Ethernet{base}")
            continue
        prefix, _, first = base.rpartition("/")
        if int(end) - int(first) >= MAX_RANGE:
            raise InputError(
                [
                    Problem(
                        file,
                        line,
                        1,
                        "",
                        f"interface range `{part.strip()}` names more than {MAX_RANGE} ports",
                    )
                ]
            )
        lead = f"{prefix}/" if prefix else ""
        names.extend(f"Ethernet{lead}{n}" for n in range(int(first), int(end) + 1))
    return names


def queue_of(class_name: str, class_maps: dict[str, int]) -> int | None:
    """Queue of a network-qos or queuing class: c-8q-nq3, c-out-8q-q3, c-in-q3, c-out-q3 -> 3;
    the `-default` classes -> 0; a user class-map -> its `match qos-group`."""
    if re.fullmatch(r"c-(?:8q-nq|nq|out-8q-q|out-q|in-q|in-8q-q)-default", class_name):
        return 0
    if match := re.fullmatch(r"c-(?:8q-nq|nq|out-8q-q|out-q|in-q|in-8q-q)(\d)", class_name):
        return int(match.group(1))
    return class_maps.get(class_name)


# --------------------------------------------------------------------------- policies


@dataclass
class ClassMap:
    """A `class-map type qos`: the DSCPs it matches, each with the line that matches it."""

    dscps: dict[int, int] = field(default_factory=dict)


@dataclass
class QosPolicy:
    """A `policy-map type qos`: classes in order, each with the qos-group it sets."""

    line: int
    classes: list[tuple[str, Stated | None, int]] = field(default_factory=list)  # name, group, line

    def classify(self, class_maps: dict[str, ClassMap]) -> dict[int, Stated]:
        """DSCP -> qos-group (with the line that decides it), first matching class wins."""
        default = next(
            ((group, line) for name, group, line in self.classes if name == "class-default"),
            (None, self.line),
        )
        result = {}
        for dscp in range(64):
            for name, group, _ in self.classes:
                matched = class_maps.get(name)
                if matched is not None and dscp in matched.dscps:
                    value = group.value if group else 0
                    result[dscp] = Stated(value, matched.dscps[dscp])
                    break
            else:
                group, line = default
                result[dscp] = group if group else Stated(0, line)
        return result


@dataclass
class NetworkClass:
    """A class of a network-qos policy: its no-drop PFC priorities and MTU."""

    line: int
    pause_cos: Stated | None = None  # list of priorities
    mtu: Stated | None = None
    buffer: Stated | None = None  # (size, pause, resume) where the family takes it here


@dataclass
class QueuingClass:
    """A class of a queuing policy (egress scheduling and ECN, ingress pause buffer)."""

    line: int
    strict: Stated | None = None  # the strict-priority level (`priority` alone: 1)
    weight: Stated | None = None
    ecn: Stated | None = None  # (min bytes, max bytes, probability)
    wred_drop: Stated | None = None
    buffer: Stated | None = None  # (size, pause threshold, resume threshold)


@dataclass
class Policy:
    line: int
    classes: dict[int, Any] = field(default_factory=dict)  # queue -> NetworkClass/QueuingClass


@dataclass
class Config:
    """The switch-wide statements of an NX-OS config."""

    class_maps: dict[str, ClassMap] = field(default_factory=dict)
    qos: dict[str, QosPolicy] = field(default_factory=dict)
    network: dict[str, Policy] = field(default_factory=dict)
    queuing: dict[str, Policy] = field(default_factory=dict)
    system: dict[str, Stated] = field(default_factory=dict)  # attachment kind -> policy name
    system_line: int = 1  # `system qos`, where a missing attachment is reported
    jumbo: Stated | None = None
    routed_default: bool = False  # `no system default switchport`
    watchdog: dict[str, Stated] = field(default_factory=dict)
    ecmp: Stated | None = None  # the `ip load-sharing address` statement

    def attached(self, kind: str, interface: dict[str, Stated] | None = None) -> Stated | None:
        """The policy name attached for `kind` (e.g. "queuing output"): the interface's, else
        the system's; only a name that exists as a policy of that type."""
        kinds: dict[str, dict[str, Any]] = {
            "network-qos": self.network,
            "queuing input": self.queuing,
            "queuing output": self.queuing,
            "qos input": self.qos,
        }
        policies = kinds[kind]
        for where in (interface or {}, self.system):
            if kind in where:
                return where[kind] if where[kind].value in policies else None
        return None


_ATTACH = re.compile(r"service-policy type (network-qos|queuing (?:input|output)|qos input) (\S+)")


def _attachments(node: Node) -> dict[str, Stated]:
    found = {}
    for child in node:
        if match := _ATTACH.fullmatch(child.text):
            found[match.group(1)] = Stated(match.group(2), child.line)
    return found


def _read_class_map(node: Node) -> ClassMap:
    match_all = "match-any" not in node.text
    lines: list[dict[int, int]] = []
    for child in node:
        if match := re.fullmatch(r"match (dscp|precedence) (.+)", child.text):
            if match.group(1) == "precedence":  # the top three bits of the DSCP
                values = [8 * p + d for p in numbers(match.group(2), 8) for d in range(8)]
            else:
                values = numbers(match.group(2))
            lines.append(dict.fromkeys(values, child.line))
    matched: dict[int, int] = {}
    if match_all and lines:  # every `match` must hold: the DSCPs all lines name
        common = set.intersection(*(set(entry) for entry in lines))
        matched = {dscp: max(entry[dscp] for entry in lines) for dscp in common}
    else:
        for entry in lines:
            for dscp, line in entry.items():
                matched.setdefault(dscp, line)
    return ClassMap(matched)


def _read_qos_policy(node: Node) -> QosPolicy:
    policy = QosPolicy(node.line)
    for class_node in node:
        if match := re.fullmatch(r"class (?:type qos )?(\S+)(?: .*)?", class_node.text):
            group = next(
                (
                    Stated(int(m.group(1)), child.line)
                    for child in class_node
                    if (m := re.fullmatch(r"set qos-group (\d)", child.text))
                ),
                None,
            )
            policy.classes.append((match.group(1), group, class_node.line))
    return policy


def _buffer(match: re.Match[str], line: int) -> Stated:
    return Stated(tuple(int(v) for v in match.groups()), line)


def _network_statement(entry: NetworkClass, text: str, line: int) -> None:
    if (mtu := re.fullmatch(r"mtu (\d+)", text)) and int(mtu.group(1)) > MAX_CLASS_MTU:
        raise _NotRead(line, text, f"is above NX-OS's largest MTU, {MAX_CLASS_MTU}")
    if pause := re.fullmatch(r"pause (?:no-drop )?pfc-cos ([\d ,-]+)", text):
        entry.pause_cos = Stated(numbers(pause.group(1), 8), line)
    elif mtu := re.fullmatch(r"mtu (\d+)", text):
        entry.mtu = Stated(int(mtu.group(1)), line)
    elif buffer := _PAUSE_BUFFER.fullmatch(text):
        entry.buffer = _buffer(buffer, line)


def _queuing_statement(entry: QueuingClass, text: str, line: int) -> None:
    if text == "priority" or text.startswith("priority "):
        level = re.fullmatch(r"priority(?: level (\d+))?", text)
        if level is None or not 1 <= int(level.group(1) or 1) <= MAX_PRIORITY_LEVEL:
            raise _NotRead(line, text, f"is not `priority [level 1-{MAX_PRIORITY_LEVEL}]`")
        entry.strict = Stated(int(level.group(1) or 1), line)
    elif weight := re.fullmatch(r"bandwidth (?:remaining )?percent (\d+)", text):
        entry.weight = Stated(int(weight.group(1)), line)
    elif ecn := _ECN.fullmatch(text):
        low, low_unit, high, high_unit, probability, averaging = ecn.groups()
        thresholds = (int(low) * _UNITS[low_unit], int(high) * _UNITS[high_unit])
        if int(averaging or 0) > MAX_WRED_WEIGHT:
            raise _NotRead(line, text, f"has a weight above {MAX_WRED_WEIGHT}")
        entry.ecn = Stated((*thresholds, int(probability or 100), int(averaging or 0)), line)
    elif text.startswith("random-detect ") and text.endswith(" ecn"):
        raise _NotRead(line, text, "is not read (thresholds in bytes, kbytes or mbytes)")
    elif text.startswith("random-detect ") and not text.endswith(" ecn"):
        entry.wred_drop = Stated(True, line)  # WRED without `ecn`: it drops
    elif buffer := _PAUSE_BUFFER.fullmatch(text):
        entry.buffer = _buffer(buffer, line)


class _NotRead(Exception):
    """A statement of a policy lossless reads that it cannot read (parse() places it)."""

    def __init__(self, line: int, statement: str, why: str):
        super().__init__(why)
        self.line, self.statement, self.why = line, statement, why


def _read_policy(
    node: Node,
    kind: str,
    class_maps: dict[str, int],
    new_class: Callable[[int], Any],
    read: Callable[[Any, str, int], None],
) -> Policy:
    """A network-qos or queuing policy-map: its classes by queue (`new_class(line)`), each
    read statement by statement (`read(class, text, line)`)."""
    policy = Policy(node.line)
    for class_node in node:
        match = re.fullmatch(rf"class type {kind} (\S+)", class_node.text)
        queue = queue_of(match.group(1), class_maps) if match else None
        if queue is None:
            if match:  # a class NX-OS would refuse: no system class, no class-map of the name
                raise _NotRead(class_node.line, class_node.text, "names no queue")
            continue
        if queue in policy.classes:
            raise _NotRead(class_node.line, class_node.text, "is a queue the policy has already")
        entry = policy.classes[queue] = new_class(class_node.line)
        for child in class_node:
            read(entry, child.text, child.line)
    return policy


def read_config_tree(tree: Node) -> Config:
    """The switch-wide statements: class-maps, policy-maps, `system qos`, MTU, watchdog,
    load sharing. Policy-maps are kept by name; what is attached is decided later."""
    seen = Config()
    group_maps: dict[str, int] = {}  # network-qos / queuing class-map -> its qos-group
    for node in tree:
        if re.fullmatch(r"class-map type (?:network-qos|queuing) (?:match-\S+ )?(\S+)", node.text):
            for child in node:
                if group := re.fullmatch(r"match qos-group (\d)", child.text):
                    group_maps[node.text.split()[-1]] = int(group.group(1))
    for node in tree:
        text, line = node.text, node.line
        if match := re.fullmatch(r"class-map type qos (?:match-(?:all|any) )?(\S+)", text):
            seen.class_maps[match.group(1)] = _read_class_map(node)
        elif match := re.fullmatch(r"policy-map type qos (\S+)", text):
            seen.qos[match.group(1)] = _read_qos_policy(node)
        elif match := re.fullmatch(r"policy-map type network-qos (\S+)", text):
            seen.network[match.group(1)] = _read_policy(
                node, "network-qos", group_maps, NetworkClass, _network_statement
            )
        elif match := re.fullmatch(r"policy-map type queuing (\S+)", text):
            seen.queuing[match.group(1)] = _read_policy(
                node, "queuing", group_maps, QueuingClass, _queuing_statement
            )
        elif text == "system qos":
            seen.system_line = line
            seen.system.update(_attachments(node))
        elif match := re.fullmatch(r"system jumbomtu (\d+)", text):
            seen.jumbo = Stated(int(match.group(1)), line)
        elif text in ("no system default switchport", "system default switchport"):
            seen.routed_default = text.startswith("no ")
        elif match := re.fullmatch(r"priority-flow-control watch-dog-interval (on|off)", text):
            seen.watchdog["enabled"] = Stated(match.group(1) == "on", line)
        elif match := re.fullmatch(
            r"priority-flow-control (?:watch-dog (interval|shutdown-multiplier)|"
            r"(auto-restore) multiplier) (\d+)",
            text,
        ):
            seen.watchdog[match.group(1) or match.group(2)] = Stated(int(match.group(3)), line)
        elif text.startswith("ip load-sharing address "):
            seen.ecmp = Stated(text, line)
    return seen


# --------------------------------------------------------------------------- the device


@dataclass(frozen=True)
class NoDrop:
    """A no-drop class of the attached network-qos policy."""

    priorities: list[int]  # `pause pfc-cos`
    line: int  # of the `pause pfc-cos` statement
    buffer: Stated | None  # a pause buffer stated in the class


@dataclass
class _Switch:
    """What every port reads: the config, the active network-qos policy and watchdog."""

    config: Config
    file: str
    network: Policy | None  # the attached network-qos policy (None: NX-OS's default)
    network_line: int  # its line, or where its attachment is missing (`system qos`)
    no_drop: dict[int, NoDrop]  # queue -> its no-drop class
    timers: tuple[int, int, int]  # interval, detection, restoration (ms)

    def at(self, line: int) -> str:
        return f"{self.file}:{line}:1"

    def missing(self, kind: str) -> int:
        """Where an attachment of `kind` is (naming no policy) or would be: `system qos`."""
        return self.config.system.get(kind, Stated(None, self.config.system_line)).line

    @property
    def priorities(self) -> list[int]:
        return sorted({p for c in self.no_drop.values() for p in c.priorities})

    @property
    def no_drop_line(self) -> int:
        """The last no-drop statement (an added priority is the one a rule judges), or where
        the network-qos policy would state one."""
        return max((c.line for c in self.no_drop.values()), default=self.network_line)


def _switch(config: Config, file: str) -> _Switch:
    attached = config.attached("network-qos")
    network = config.network[attached.value] if attached else None
    no_drop = {
        queue: NoDrop(cls.pause_cos.value, cls.pause_cos.line, cls.buffer)
        for queue, cls in (network.classes.items() if network else ())
        if cls.pause_cos and cls.pause_cos.value
    }
    switch = _Switch(config, file, network, 0, no_drop, _timers(config))
    switch.network_line = network.line if network else switch.missing("network-qos")
    return switch


def _timers(config: Config) -> tuple[int, int, int]:
    wd = config.watchdog
    interval = wd["interval"].value if "interval" in wd else WATCHDOG_INTERVAL_MS
    shutdown = (
        wd["shutdown-multiplier"].value
        if "shutdown-multiplier" in wd
        else WATCHDOG_SHUTDOWN_MULTIPLIER
    )
    restore = wd["auto-restore"].value if "auto-restore" in wd else WATCHDOG_AUTO_RESTORE_MULTIPLIER
    return interval, interval * shutdown, interval * restore


@dataclass
class _Interface:
    """The statements of one Ethernet port (from every section naming it, later wins)."""

    line: int
    settings: dict[str, Stated] = field(default_factory=dict)
    attached: dict[str, Stated] = field(default_factory=dict)
    description: str = ""


def _read_interface(entry: _Interface, node: Node) -> None:
    for child in node:
        text, line = child.text, child.line
        if match := re.fullmatch(r"mtu (\d+)", text):
            entry.settings["mtu"] = Stated(int(match.group(1)), line)
        elif text in ("switchport", "no switchport"):
            entry.settings["routed"] = Stated(text == "no switchport", line)
        elif match := re.fullmatch(r"priority-flow-control mode (on|off|auto)", text):
            entry.settings["pfc"] = Stated(match.group(1), line)
        elif match := re.fullmatch(r"priority-flow-control watch-dog-interval (on|off)", text):
            entry.settings["watchdog"] = Stated(match.group(1) == "on", line)
        elif match := re.fullmatch(r"speed (\d+)", text):
            entry.settings["speed"] = Stated(int(match.group(1)), line)
        elif text.startswith("description "):
            entry.description = text.removeprefix("description ")
    entry.attached.update(_attachments(node))


def _port_mtu(port: PortPlan, entry: _Interface, switch: _Switch) -> None:
    """Interface MTU; on a switchport only 1500 or the system jumbo MTU is accepted (another
    value is refused by NX-OS, so the port stays at 1500), and the network-qos class MTU
    bounds L2 frames."""
    config, settings = switch.config, entry.settings
    stated = settings.get("mtu")
    port.mtu = stated.value if stated else DEFAULT_MTU
    if stated:
        port.sources["mtu"] = switch.at(stated.line)
    routed = settings["routed"].value if "routed" in settings else config.routed_default
    port.routed = routed
    if "routed" in settings:
        port.sources["routed"] = switch.at(settings["routed"].line)
    pfc = settings.get("pfc")
    if routed and not (switch.no_drop and pfc is not None and pfc.value == "on"):
        return
    # A switchport's frames are bounded by its class MTU; on a routed port the no-drop class
    # MTU still carves the class's ingress buffer (docs/reference/vendors.md 2g: it "drives
    # ingress buffer carving"): lossless frames above it are not provided for.
    if not routed:
        jumbo = config.jumbo.value if config.jumbo else DEFAULT_JUMBO_MTU
        if port.mtu not in (DEFAULT_MTU, jumbo):
            port.mtu = DEFAULT_MTU
    # the class RoCE is paused in (else the default class) bounds its frames; on a switchport
    # the default class (qos-group 0) bounds best effort's frames (port.lossy_mtu)
    interface_mtu = port.mtu
    paused = set(switch.no_drop) if routed else set(switch.no_drop) or {0}
    bound = min((_class_mtu(switch, q) for q in paused), key=lambda s: s.value)
    if bound.value < port.mtu:
        port.mtu, port.sources["mtu"] = bound.value, switch.at(bound.line)
    lossy = _class_mtu(switch, 0)
    if not routed and lossy.value < interface_mtu and 0 not in paused:
        port.lossy_mtu, port.sources["lossy_mtu"] = lossy.value, switch.at(lossy.line)


def _class_mtu(switch: _Switch, queue: int) -> Stated:
    """The MTU of the attached network-qos policy's class of `queue`: its `mtu`, else 1500
    (NX-OS's class MTU) at the class's line, or where the policy or its attachment would be."""
    network = switch.network
    cls = network.classes.get(queue) if network else None
    if cls is None:
        return Stated(DEFAULT_CLASS_MTU, switch.network_line)
    return cls.mtu or Stated(DEFAULT_CLASS_MTU, cls.line)


def _pfc(port: PortPlan, entry: _Interface, switch: _Switch) -> None:
    pfc = entry.settings.get("pfc")
    pfc_on = pfc is not None and pfc.value == "on"
    port.lossless = pfc_on and bool(switch.no_drop)
    where = switch.no_drop_line if pfc_on else (pfc.line if pfc else entry.line)
    port.sources["lossless"] = port.sources["pfc_priorities"] = switch.at(where)
    port.pfc_priorities = switch.priorities if port.lossless else []


def _egress(port: PortPlan, entry: _Interface, switch: _Switch) -> None:
    """ECN and WRED drop of the port's egress queuing policy (the interface's or system's)."""
    config = switch.config
    attached = config.attached("queuing output", entry.attached)
    policy = config.queuing[attached.value] if attached else None
    port.ecn, port.wred_drop_queues = [], []
    sources = port.sources
    where = policy.line if policy else switch.missing("queuing output")
    sources["ecn"] = sources["wred_drop_queues"] = switch.at(where)
    for queue, cls in sorted(policy.classes.items()) if policy else ():
        if cls.wred_drop:
            port.wred_drop_queues.append(queue)
            sources["wred_drop_queues"] = switch.at(cls.wred_drop.line)
        if queue in switch.no_drop:  # no ECN here: the WRED line that drops instead, or the class
            sources["ecn"] = switch.at(cls.wred_drop.line if cls.wred_drop else cls.line)
            if port.lossless and cls.ecn:
                low, high, probability, weight = cls.ecn.value
                stated = switch.at(cls.ecn.line)
                port.ecn.append(
                    EcnPlan(
                        queue,
                        low,
                        high,
                        probability,
                        None,
                        None,
                        None,
                        None,
                        stated,
                        weight=weight,
                    )
                )
                sources["ecn"] = stated


def _headroom(port: PortPlan, entry: _Interface, switch: _Switch) -> bool:
    """The pause buffer of the port's lossless queues, where the config states one (ingress
    queuing policy, or the network-qos class on families that take it there): xon is the
    pause threshold, xoff what the buffer holds above it. True when the config states one."""
    config = switch.config
    attached = config.attached("queuing input", entry.attached)
    ingress = config.queuing[attached.value] if attached else None
    port.sources["headroom"] = switch.at(
        ingress.line if ingress else switch.missing("queuing input")
    )
    stated = False
    for queue, no_drop in sorted(switch.no_drop.items()):
        cls = ingress.classes.get(queue) if ingress else None
        buffer = (cls.buffer if cls else None) or no_drop.buffer
        if buffer is None:
            continue
        stated = True
        size, pause, _ = buffer.value
        port.sources["headroom"] = switch.at(buffer.line)
        if port.lossless:
            port.headroom.append(
                HeadroomPlan(queue, pause, max(0, size - pause), size, "nxos-config", "")
            )
    return stated


def _watchdog(port: PortPlan, entry: _Interface, switch: _Switch) -> None:
    config = switch.config
    stated = entry.settings.get("watchdog") or config.watchdog.get("enabled")
    port.sources["watchdog"] = port.sources["watchdog_enabled"] = switch.at(
        stated.line if stated else entry.line
    )
    if not port.lossless:
        port.watchdog = None
        return
    poll, detection, restoration = switch.timers
    enabled = bool(stated and stated.value)
    port.watchdog = WatchdogPlan(enabled, detection, restoration, poll, "drop")


def _trust(port: PortPlan, entry: _Interface, switch: _Switch) -> None:
    """DSCP when a qos policy classifies the port's traffic, none when no policy does (NX-OS
    then puts every packet in qos-group 0)."""
    attached = switch.config.attached("qos input", entry.attached)
    port.trust = "dscp" if attached else "none"
    stated = entry.attached.get("qos input") or switch.config.system.get("qos input")
    port.sources["trust"] = switch.at(stated.line if stated else entry.line)


def _interfaces(tree: Node, file: str) -> dict[str, _Interface]:
    interfaces: dict[str, _Interface] = {}
    for node in tree:
        if match := re.fullmatch(r"interface (.+)", node.text):
            for name in ethernet_names(match.group(1), file, node.line):
                entry = interfaces.setdefault(name, _Interface(node.line))
                _read_interface(entry, node)
    return interfaces


def _ecmp(device: DevicePlan, config: Config, file: str) -> None:
    """`ip load-sharing address source-destination [port source-destination] [rotate N]
    [concatenation] [universal-id N]`; unstated parts stay unknown."""
    if config.ecmp is None:
        return
    text, where = config.ecmp.value, f"{file}:{config.ecmp.line}:1"
    ecmp = device.ecmp
    words = text.split()
    fields = []
    if (address := _after(words, "address")) is not None:
        fields += [f for f, w in (("src-ip", "source"), ("dst-ip", "destination")) if w in address]
    if (port := _after(words, "port")) is not None:
        fields += [f for f, w in (("src-port", "source"), ("dst-port", "destination")) if w in port]
    ecmp.hash_fields = fields
    ecmp.hashes_udp_source_port = "src-port" in fields
    ecmp.seed_source = where
    if (rotate := _after(words, "rotate")) is not None and rotate.isdigit():
        ecmp.hash_offset = int(rotate)
    if (seed := _after(words, "universal-id")) is not None and seed.isdigit():
        ecmp.seed = int(seed)
    for fact in ("ecmp_seed", "ecmp_udp_source_port", "ecmp_hash_fields", "ecmp_hash_offset"):
        device.sources[fact] = where


def _after(words: list[str], keyword: str) -> str | None:
    return words[words.index(keyword) + 1] if keyword in words[:-1] else None


def _classification(
    config: Config, interfaces: dict[str, _Interface], ports: Iterable[PortPlan]
) -> dict[int, Stated]:
    """DSCP -> qos-group of the qos policy that classifies the switch's RoCE traffic: the one
    of the first lossless port, else of the first port with one, else the system's; without
    any, everything is qos-group 0 (reported at `system qos`)."""
    ordered = sorted(ports, key=lambda p: not p.lossless)
    for port in ordered:
        attached = config.attached("qos input", interfaces[port.name].attached)
        if attached:
            return config.qos[attached.value].classify(config.class_maps)
    attached = config.attached("qos input")
    if attached:
        return config.qos[attached.value].classify(config.class_maps)
    return dict.fromkeys(range(64), Stated(0, config.system_line))


def parse(text: str, file: str, name: str, hint: DevicePlan | None = None) -> DevicePlan:
    tree = parse_tree(text, repeatable=REPEATABLE)
    check_is_nxos(text, tree, file)
    try:
        config = read_config_tree(tree)
    except _NotRead as error:
        raise not_read(file, error.line, "NX-OS", error.statement, error.why) from None
    device = skeleton_device(name, "nxos", file, hint)
    switch = _switch(config, file)
    interfaces = _interfaces(tree, file)
    ports: dict[str, PortPlan] = {}
    headroom_stated = False
    for port_name, entry in interfaces.items():
        port = new_port(hint, port_name, switch.at(entry.line))
        port.description = entry.description
        if "speed" in entry.settings:
            port.speed_mbps = entry.settings["speed"].value
            port.sources["speed_mbps"] = switch.at(entry.settings["speed"].line)
        _port_mtu(port, entry, switch)
        _pfc(port, entry, switch)
        _egress(port, entry, switch)
        headroom_stated = _headroom(port, entry, switch) or headroom_stated
        _watchdog(port, entry, switch)
        _trust(port, entry, switch)
        ports[port_name] = port
    device.ports = ports

    maps, sources = device.maps, device.sources
    classes = _classification(config, interfaces, ports.values())
    maps.dscp_to_tc = {dscp: stated.value for dscp, stated in classes.items()}
    maps.tc_to_queue = {tc: tc for tc in range(QUEUES)}  # qos-group N is queue N (8q mode)
    for queue, cls in switch.no_drop.items():
        for priority in cls.priorities:
            maps.pfc_priority_to_queue[priority] = queue
    device.lossless_priorities = switch.priorities
    sources["lossless_priorities"] = switch.at(switch.no_drop_line)
    _device_queues(device, config, interfaces, switch)
    _device_watchdog(device, config, switch)
    _ecmp(device, config, file)
    device.headroom_known = device.headroom_settings.override = headroom_stated
    classify_traffic(device)
    sources["roce"] = sources["dscp_to_tc"] = switch.at(classes[device.roce_dscp].line)
    sources["cnp"] = switch.at(classes[device.cnp_dscp].line)
    device.source = f"{file}:1:1"
    return device


def _device_queues(
    device: DevicePlan, config: Config, interfaces: dict[str, _Interface], switch: _Switch
) -> None:
    """Egress scheduling of the switch: the system queuing policy (or the first lossless
    port's own), else NX-OS's default 8-queue policy. Queues with no bandwidth and no priority
    carry nothing and are left out, as the plan leaves them out."""
    first = next((p for p in device.ports.values() if p.lossless), None)
    attached = config.attached("queuing output", interfaces[first.name].attached if first else None)
    lossless_queues = set(switch.no_drop)
    if attached is None:
        device.queues = [
            queue_plan(q, False, w, lossless_queues) for q, w in DEFAULT_EGRESS_WEIGHTS.items()
        ]
        device.sources["queues"] = switch.at(switch.missing("queuing output"))
        return
    policy = config.queuing[attached.value]
    device.queues = []
    for q, c in sorted(policy.classes.items()):
        # a finding about one queue points at the line that schedules it, else its class
        stated = c.strict or c.weight
        device.sources[f"queues.{q}"] = switch.at(stated.line if stated else c.line)
        if c.strict or (c.weight and c.weight.value):
            weight = c.weight.value if c.weight else None
            device.queues.append(queue_plan(q, bool(c.strict), weight, lossless_queues))
        if c.strict and c.strict.value != 1:
            device.strict_levels[q] = c.strict.value
    device.sources["queues"] = switch.at(policy.line)


def _device_watchdog(device: DevicePlan, config: Config, switch: _Switch) -> None:
    """The switch-wide watchdog: on with the global `watch-dog-interval on` (off by default),
    or where a lossless port turns it on for itself, with the global timers."""
    interval, detection, restoration = switch.timers
    enabled = config.watchdog.get("enabled")
    on = bool(enabled and enabled.value) or any(
        p.lossless and p.watchdog is not None and p.watchdog.enabled for p in device.ports.values()
    )
    device.watchdog = WatchdogPlan(on, detection, restoration, interval, "drop")
    wd = config.watchdog
    for fact, keys in (
        ("watchdog_poll_ms", ("interval", "enabled")),
        ("watchdog_timers", ("shutdown-multiplier", "auto-restore", "interval", "enabled")),
    ):
        stated = next((wd[key] for key in keys if key in wd), None)
        if stated is not None:
            device.sources[fact] = switch.at(stated.line)


def parse_file(path: str, name: str, hint: DevicePlan | None = None) -> DevicePlan:
    return parse(read_config(path), path, name, hint)
