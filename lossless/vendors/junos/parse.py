"""Read a Juniper Junos config (QFX, brace or `set` format, ours or anyone's) back into a
DevicePlan: what the config states, Junos's documented defaults for what it leaves out, and
only what is applied to interfaces.

How Junos says it (sources in vendors/junos.py and docs/vendors/junos.md):
* DSCP -> forwarding class: the `classifiers dscp` applied to the port's unit (`class-of-service
  interfaces <port | et-* | all> unit <0 | *>`); code points as bits, `[ lists ]`, the default
  aliases (`af31`, `cs6`, `ef`, ...) or `code-point-aliases`. Code points the classifier does
  not list follow the Junos default DSCP classifier: 110000 (cs6) and 111000 (cs7) to
  network-control, every other to best-effort ("Default DSCP and DSCP IPv6 Classifiers").
  A port with no DSCP classifier uses that default classifier too [DEFAULTS].
* forwarding class -> queue: `forwarding-classes class <FC> queue-num <q> [no-loss
  pfc-priority <p>]`, and the default classes best-effort 0, fcoe 3 and no-loss 4 (lossless,
  priorities 3 and 4), network-control 7, mcast 8 [DEFAULTS].
* The plan's traffic class (TC) of a forwarding class: the PFC priority of a lossless class,
  the queue number of a lossy one. Junos gives a lossy class no priority of its own, so a
  lossy class whose queue number is a lossless class's PFC priority (the JVD puts CNP on
  queue 3 beside NO-LOSS priority 3) is named by the highest TC no other class uses.
* PFC: the congestion-notification profile of the port: `input dscp code-point <cp> pfc`
  (the priority is the `pfc-priority` of the no-loss class the code point is classified to;
  a code point classified to a lossy class has no priority to pause on, and pauses nothing
  [DSCPPFC]), `input ieee-802.1
  code-point <bits> pfc`, `input cable-length` (default 100 m), `pfc-watchdog` (defaults:
  poll 100 ms, detection 2 polls, recovery 200 ms) and `output ieee-802.1 code-point <bits>
  flow-control-queue <q>`: which queue a received pause of that priority stops. Without an
  output part, queues 3 and 4 stop for priorities 3 and 4 [CNP].
* Scheduling: the port's scheduler map; `priority strict-high` (with its transmit-rate cap),
  `transmit-rate percent`, ECN (`explicit-congestion-notification` and a drop profile) and
  WRED drop (a drop profile without ECN). With no scheduler map every queue is low priority.
* ECN fill levels are percent of the queue's buffer, the queue's share of the egress lossless
  partition (`shared-buffer egress buffer-partition lossless percent P`, 100 when the config
  sets none) of the PFC trigger the plan models (vendors/junos.py queue_buffer). They are
  converted back to bytes with the same formula; without an inventory they stay percent.
* MTU: the interface MTU counts the 14-byte Ethernet header: the plan's (IP) MTU is 14 less;
  an interface with no `mtu` has the default 1514, IP MTU 1500.
* ECMP: `enhanced-hash-key hash-seed seed-value`, the `enhanced-hash-key inet no-...` fields
  left out, `hash-key family inet layer-4`. A config with none of them says nothing (unknown).

Every fact records the statement that stated it (or the block of the port that lacks it), so
findings point at that line.
"""

from __future__ import annotations

import fnmatch
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from lossless.errors import InputError, Problem
from lossless.plan import DevicePlan, EcmpPlan, EcnPlan, PortPlan, QueuePlan, WatchdogPlan
from lossless.system.files import read_config
from lossless.vendors.junos.render import has_watchdog
from lossless.vendors.junos.statements import Config, Statement, read, values
from lossless.vendors.skeleton import classify_traffic, new_port, skeleton_device, unknown_ecmp

ETHERNET_HEADER = 14  # the interface MTU counts it (vendors/junos.py [MTU])
DEFAULT_INTERFACE_MTU = 1514  # Junos default media MTU of Ethernet: IP MTU 1500
DEFAULT_CABLE_M = 100  # `input cable-length` default (docs/reference/vendors.md 3c)
# docs/reference/vendors.md 3b
WATCHDOG_DEFAULTS = {"poll-interval": 100, "detection": 2, "recovery": 200}
# What a congestion-notification profile's `input` holds [CNP] ([DSCPPFC] for dscp)
PROFILE_INPUTS = ("cable-length", "dscp", "ieee-802.1")
DEFAULT_FLOW_CONTROL = {3: 3, 4: 4}  # output queues 3 and 4 pause for priorities 3, 4 [CNP]

# Default forwarding classes of QFX switches [DEFAULTS]: name -> (queue, lossless priority).
DEFAULT_CLASSES: dict[str, tuple[int, int | None]] = {
    "best-effort": (0, None),
    "fcoe": (3, 3),
    "no-loss": (4, 4),
    "network-control": (7, None),
    "mcast": (8, None),
}
# The default DSCP classifier: cs6 and cs7 to network-control, all else best-effort.
DEFAULT_NETWORK_CONTROL = {0b110000, 0b111000}
# Default DSCP code-point aliases ("Default DSCP Mappings", Junos CoS guide).
DSCP_ALIASES = {
    "be": 0,
    "cs1": 8,
    "af11": 10,
    "af12": 12,
    "af13": 14,
    "cs2": 16,
    "af21": 18,
    "af22": 20,
    "af23": 22,
    "cs3": 24,
    "af31": 26,
    "af32": 28,
    "af33": 30,
    "cs4": 32,
    "af41": 34,
    "af42": 36,
    "af43": 38,
    "cs5": 40,
    "ef": 46,
    "cs6": 48,
    "nc1": 48,
    "cs7": 56,
    "nc2": 56,
}
# Default IEEE 802.1 code-point aliases of QFX switches [DEFAULTS].
PRIORITY_ALIASES = {"be": 0, "be1": 1, "ef": 2, "ef1": 3, "af11": 4, "af12": 5, "nc1": 6, "nc2": 7}
_PORT = re.compile(r"[a-z]+-\d+/\d+/\d+(:\d+)?|ae\d+")
_SPEED = re.compile(r"(\d+)g$")
_COS = "class-of-service"
ECMP_BLOCK = ("forwarding-options", "enhanced-hash-key")


@dataclass
class _Class:
    queue: int
    priority: int | None  # PFC priority of a lossless class
    where: str


@dataclass
class _Profile:  # a congestion-notification profile
    where: str
    pfc_dscp: list[tuple[str, str]] = field(default_factory=list)  # (code point, where)
    pfc_priority: list[tuple[int, str]] = field(default_factory=list)
    cable: tuple[int, str] | None = None
    watchdog: dict[str, int] = field(default_factory=dict)
    watchdog_where: str | None = None
    output: dict[int, tuple[int, str]] = field(default_factory=dict)


@dataclass
class _Scheduler:
    where: str
    rate: int | None = None
    strict: str | None = None  # where `priority strict-high` is
    drop: str | None = None  # drop profile name
    drop_where: str | None = None
    ecn: str | None = None


@dataclass
class _Statements:
    """Every statement the parser knows, by kind, with where it was stated."""

    file: str
    config: Config
    interfaces: dict[str, dict[str, Any]] = field(default_factory=dict)
    aliases: dict[str, int] = field(default_factory=lambda: dict(DSCP_ALIASES))
    classifiers: dict[str, dict[str, Any]] = field(default_factory=dict)
    classes: dict[str, _Class] = field(default_factory=dict)
    profiles: dict[str, _Profile] = field(default_factory=dict)
    cos_interfaces: dict[str, dict[str, tuple[str, str]]] = field(default_factory=dict)
    scheduler_maps: dict[str, dict[str, tuple[str, str]]] = field(default_factory=dict)
    schedulers: dict[str, _Scheduler] = field(default_factory=dict)
    drop_profiles: dict[str, dict[str, Any]] = field(default_factory=dict)
    partitions: dict[str, tuple[int, str]] = field(default_factory=dict)
    units: dict[str, set[str]] = field(default_factory=dict)  # `interfaces PORT unit N`
    # the logical unit whose classifier a CoS interface's port takes, and where it is stated
    classifier_units: dict[str, tuple[str, int, int]] = field(default_factory=dict)
    hash: dict[str, Any] = field(default_factory=dict)
    # code points named by a word that is neither bits nor an alias (yet: aliases may follow),
    # and statements of a congestion-notification profile in a form Junos does not have
    unknown_points: list[tuple[str, Statement, dict[int, Any] | None, str]] = field(
        default_factory=list
    )
    problems: list[Problem] = field(default_factory=list)
    statement: Statement | None = None  # the statement being read

    def read(self, s: Statement) -> None:
        self.statement = s
        w, where = s.words, s.where(self.file)
        if w[0] == "interfaces" and len(w) >= 2:
            entry = self.interfaces.setdefault(w[1], {})
            if len(w) == 4 and w[2] in ("mtu", "speed"):
                entry[w[2]] = (w[3], where)
            elif len(w) >= 4 and w[2] == "unit":
                self.units.setdefault(w[1], set()).add(w[3])
        elif w[0] == _COS and len(w) >= 3:
            self._cos(w[1:], where)
        elif w[:2] == ("forwarding-options", "enhanced-hash-key") and len(w) >= 4:
            if w[2:4] == ("hash-seed", "seed-value") and len(w) == 5 and w[4].isdigit():
                self.hash["seed"] = (int(w[4]), where)
            elif w[2] == "inet":
                self.hash.setdefault("exclusions", {})[w[3]] = where
        elif w[:4] == ("forwarding-options", "hash-key", "family", "inet") and len(w) == 5:
            self.hash.setdefault("hash-key", {})[w[4]] = where

    def _cos(self, w: tuple[str, ...], where: str) -> None:
        kind = w[0]
        if kind == "code-point-aliases" and len(w) == 4 and w[1] == "dscp":
            if re.fullmatch(r"[01]{6}", w[3]):
                self.aliases[w[2]] = int(w[3], 2)
        elif kind == "classifiers" and w[1] == "dscp" and len(w) >= 4:
            classifier = self.classifiers.setdefault(
                w[2], {"codes": {}, "import": None, "where": where}
            )
            if w[3] == "import" and len(w) == 5:
                classifier["import"] = w[4]
            elif w[3] == "forwarding-class" and "code-points" in w:
                for name in values(w, w.index("code-points") + 1):
                    dscp = self.dscp(name)
                    if dscp is not None:
                        classifier["codes"][dscp] = (w[4], where)
                    else:
                        self._unknown(name, classifier["codes"], w[4])
        elif kind == "forwarding-classes" and len(w) >= 5:
            if w[1] == "class" and w[3] == "queue-num" and w[4].isdigit():
                rest = w[5:]
                priority = None
                if "pfc-priority" in rest and rest.index("pfc-priority") + 1 < len(rest):
                    priority = _int(rest[rest.index("pfc-priority") + 1])
                elif "no-loss" in rest:
                    priority = int(w[4])  # a lossless class with no priority: its queue's
                self.classes[w[2]] = _Class(int(w[4]), priority, where)
            elif w[1] == "queue" and w[2].isdigit():  # the older `queue <q> <class>` form
                self.classes[w[3]] = _Class(int(w[2]), None, where)
        elif kind == "congestion-notification-profile" and len(w) >= 3:
            if w[1] not in self.profiles:
                self.profiles[w[1]] = _Profile(self.block(where, _COS, kind, w[1]))
            self._profile(self.profiles[w[1]], w[2:], where)
        elif kind == "interfaces" and len(w) >= 4:
            entry = self.cos_interfaces.setdefault(w[1], {})
            if w[2] in ("congestion-notification-profile", "scheduler-map") and len(w) == 4:
                entry[w[2]] = (w[3], where)
            elif (
                w[2] == "unit"
                and w[4:6] == ("classifiers", "dscp")
                and len(w) == 7
                and (w[3] in ("0", "*") or "classifier" not in entry)
            ):
                entry["classifier"] = (w[6], where)
                assert self.statement is not None
                self.classifier_units[w[1]] = (w[3], self.statement.line, self.statement.column)
        elif kind == "scheduler-maps" and len(w) == 6 and w[2] == "forwarding-class":
            self.scheduler_maps.setdefault(w[1], {})[w[3]] = (w[5], where)
        elif kind == "schedulers" and len(w) >= 3:
            if w[1] not in self.schedulers:
                self.schedulers[w[1]] = _Scheduler(self.block(where, _COS, kind, w[1]))
            self._scheduler(self.schedulers[w[1]], w[2:], where)
        elif kind == "drop-profiles" and len(w) >= 4:
            profile = self.drop_profiles.setdefault(w[1], {"fill": [], "probability": []})
            rest = w[3:] if w[2] == "interpolate" else w[2:]
            for key in ("fill-level", "drop-probability"):
                if key in rest:
                    numbers = values(rest, rest.index(key) + 1)
                    target = profile["fill" if key == "fill-level" else "probability"]
                    target.extend(n for n in (_int(v) for v in numbers) if n is not None)
                    if key == "fill-level":
                        profile.setdefault("where", where)
                    else:
                        assert self.statement is not None
                        profile.setdefault(
                            "probability_at", (self.statement.line, self.statement.column)
                        )
        elif (
            kind == "shared-buffer"
            and len(w) == 6
            and w[2] == "buffer-partition"
            and w[4] == "percent"
            and w[5].isdigit()
        ):
            self.partitions[f"{w[1]} {w[3]}"] = (int(w[5]), where)

    def _unknown(self, name: str, codes: dict[int, Any] | None, fc: str = "") -> None:
        """A DSCP code point by a name not known yet: resolved once every alias is read."""
        assert self.statement is not None
        self.unknown_points.append((name, self.statement, codes, fc))

    def resolve(self) -> None:
        """Code points named before their alias was defined; a name that is neither six bits
        nor an alias is refused: Junos rejects the commit, and lossless will not guess what
        the line meant."""
        for name, statement, codes, fc in self.unknown_points:
            dscp = self.dscp(name)
            if dscp is not None:
                if codes is not None:
                    codes[dscp] = (fc, statement.where(self.file))
                continue
            self._problem(
                statement.line,
                statement.column,
                f"`{name}` is not a DSCP code point: six bits (`011010`), a default alias "
                "(`af31`) or one `code-point-aliases dscp` defines",
            )

    def check_classifier_units(self) -> None:
        """A DSCP classifier classifies the logical unit it is applied to. Unit 0 (or `*`)
        is read as the port's; another unit only where the config defines it on that port
        (`interfaces PORT unit N`). Otherwise which unit carries the port's traffic is not in
        the file: unit 0 would take Junos's default classifier, and lossless will not guess."""
        for port, (unit, line, column) in sorted(self.classifier_units.items()):
            if unit not in ("0", "*") and unit not in self.units.get(port, set()):
                self._problem(
                    line,
                    column,
                    f"{port}'s DSCP classifier is on unit {unit}, a logical unit the "
                    f"config does not define on {port}: which unit carries the port's "
                    "traffic is not in the file (unit 0 would classify by Junos's "
                    "default classifier); apply it to unit 0, or state the unit",
                )

    def check_ecn_curves(self) -> None:
        """A drop profile that marks ECN is read as RED's ramp, DCQCN's: 0 % at its first
        fill level (Kmin) up to its last probability (Pmax) at its last fill level (Kmax).
        A curve that starts above 0 %, or states no drop-probability, is another curve
        (Junos interpolates between the points it is given: "Configuring Drop Profile Maps",
        interpolate); lossless does not compare it with the plan, so it will not read it."""
        marking = {s.drop for s in self.schedulers.values() if s.ecn and s.drop}
        for name in sorted(marking):
            profile = self.drop_profiles.get(name)
            if profile is None or len(profile["fill"]) < 2:
                continue
            if not profile["probability"]:
                file, line, column = profile["where"].rsplit(":", 2)
                self._problem(
                    int(line),
                    int(column),
                    f"drop profile {name} marks ECN but states no drop-probability: "
                    "lossless reads a marking curve from 0 % at the first fill level to "
                    "Pmax at the last, as `drop-probability [ 0 PMAX ]` states it",
                    file=file,
                )
            elif profile["probability"][0] != 0:
                line, column = profile["probability_at"]
                self._problem(
                    line,
                    column,
                    f"drop profile {name} marks {profile['probability'][0]} % already at "
                    "its first fill level: lossless reads ECN as RED's ramp from 0 % at "
                    "Kmin (DCQCN's), so a curve starting above 0 % is not compared; "
                    "state `drop-probability [ 0 PMAX ]`",
                )

    def _refuse(self, message: str, word: str | None = None) -> None:
        """A problem at the statement, or at the block it is in whose header has `word`
        (`ieee-1604.1 {` in the brace format, where the statement is the leaf below it)."""
        assert self.statement is not None
        line, column = self.statement.line, self.statement.column
        words = self.statement.words
        if word is not None and word in words:
            found = self.config.block_line(*words[: words.index(word) + 1])
            if found is not None:
                line, column = found
        self._problem(line, column, message)

    def _problem(self, line: int, column: int, message: str, file: str | None = None) -> None:
        """A problem at FILE:LINE:COLUMN (the config's file unless named)."""
        self.problems.append(Problem(file or self.file, line, column, "", message))

    def _profile(self, profile: _Profile, w: tuple[str, ...], where: str) -> None:
        if w[0] in ("input", "output") and (
            len(w) < 2 or w[1] not in (("ieee-802.1",) if w[0] == "output" else PROFILE_INPUTS)
        ):
            # [CNP]: input {cable-length; dscp; ieee-802.1}, output {ieee-802.1}
            known = "ieee-802.1" if w[0] == "output" else ", ".join(PROFILE_INPUTS)
            self._refuse(
                f"`{' '.join(w[:2])}` is not a congestion-notification-profile statement "
                f"(under `{w[0]}` Junos has {known})",
                w[1] if len(w) > 1 else None,
            )
            return
        if w[0] == "pfc-watchdog":
            profile.watchdog_where = profile.watchdog_where or where
            if len(w) == 3 and w[1] in WATCHDOG_DEFAULTS and w[2].isdigit():
                profile.watchdog[w[1]] = int(w[2])
        elif w[:2] == ("input", "cable-length") and len(w) == 3 and w[2].isdigit():
            profile.cable = (int(w[2]), where)
        elif w[0] == "input" and len(w) >= 5 and w[2] == "code-point" and "pfc" in w:
            points = values(w, 3)
            if w[1] == "dscp":
                profile.pfc_dscp.extend((p, where) for p in points)
                for point in points:
                    if self.dscp(point) is None:
                        self._unknown(point, None)
            elif w[1] == "ieee-802.1":
                for point in points:
                    priority = self._priority(point)
                    if priority is not None:
                        profile.pfc_priority.append((priority, where))
        elif w[:3] == ("output", "ieee-802.1", "code-point") and "flow-control-queue" in w:
            queues = values(w, w.index("flow-control-queue") + 1)
            for point in values(w, 3):
                priority = self._priority(point)
                if priority is not None and queues and queues[0].isdigit():
                    profile.output[priority] = (int(queues[0]), where)

    def _priority(self, point: str) -> int | None:
        """An IEEE 802.1p code point (three bits or an alias); another word is refused."""
        priority = _priority(point)
        if priority is None:
            self._refuse(
                f"`{point}` is not an IEEE 802.1 code point: three bits (`011`) or an "
                "alias (`ef1`)",
                point,
            )
        return priority

    @staticmethod
    def _scheduler(scheduler: _Scheduler, w: tuple[str, ...], where: str) -> None:
        if w[0] == "transmit-rate" and len(w) >= 3 and w[1] == "percent":
            scheduler.rate = _int(w[2])
        elif w[:2] == ("priority", "strict-high"):
            scheduler.strict = where
        elif w[0] == "drop-profile-map" and "drop-profile" in w:
            scheduler.drop = w[w.index("drop-profile") + 1] if w[-1] != "drop-profile" else None
            scheduler.drop_where = where
        elif w == ("explicit-congestion-notification",):
            scheduler.ecn = where

    def block(self, fallback: str, *path: str) -> str:
        """Where a block (`name {`, or the first `set` line under it) is, else `fallback`."""
        found = self.config.block_line(*path)
        return f"{self.file}:{found[0]}:{found[1]}" if found else fallback

    def dscp(self, name: str) -> int | None:
        if re.fullmatch(r"[01]{6}", name):
            return int(name, 2)
        return self.aliases.get(name)


def _int(text: str) -> int | None:
    return int(text) if text.isdigit() else None


def _priority(point: str) -> int | None:
    if re.fullmatch(r"[01]{3}", point):
        return int(point, 2)
    return PRIORITY_ALIASES.get(point)


def _most_common(items: list[Any]) -> Any:
    """The item most ports share (the first of equals), or None."""
    if not items:
        return None
    counts = Counter(items)  # Counter keeps first-seen order; max keeps the first of equals
    return max(counts, key=lambda item: counts[item])


class _Reader:
    """The parsed device, built from the statements in the order the facts depend on."""

    def __init__(self, st: _Statements, hint: DevicePlan | None, name: str, source: str):
        self.st, self.hint = st, hint
        self.device = skeleton_device(name, "junos", st.file, hint)
        self.device.source = source
        self.classes = {
            fc: _Class(q, p, source) for fc, (q, p) in DEFAULT_CLASSES.items()
        } | st.classes
        # CoS entries that name many ports, most specific first (`all` last)
        self.patterns = sorted(
            (n for n in st.cos_interfaces if not _PORT.fullmatch(n)),
            key=lambda p: (p == "all", -len(p), p),
        )
        self.port_names = self._port_names()

    def _port_names(self) -> list[str]:
        """Physical ports the config names (interfaces, CoS interfaces) and, with an
        inventory, its ports that a CoS wildcard (`et-*`, `all`) covers."""
        names = [n for n in self.st.interfaces if _PORT.fullmatch(n)]
        names += [n for n in self.st.cos_interfaces if _PORT.fullmatch(n) and n not in names]
        # a port broken out into sub-ports (et-0/0/0 -> et-0/0/0:0, :1) carries no traffic
        parents = {n.rsplit(":", 1)[0] for n in names if ":" in n}
        names = [n for n in names if n not in parents]
        if self.hint is not None:
            seen = set(names)
            names += [
                n
                for n in self.hint.ports
                if n not in seen and any(_matches(n, p) for p in self.patterns)
            ]
        return names

    def setting(self, port: str, key: str) -> tuple[str, str] | None:
        """The CoS setting of a port: its own, else the most specific wildcard's, else all's."""
        own = self.st.cos_interfaces.get(port, {})
        if key in own:
            return own[key]
        for pattern in (p for p in self.patterns if _matches(port, p)):
            if key in self.st.cos_interfaces[pattern]:
                return self.st.cos_interfaces[pattern][key]
        return None

    def classify(self, classifier: str | None) -> dict[int, tuple[str, str]]:
        """DSCP -> (forwarding class, where) of a classifier; unlisted code points follow
        what it imports, else the default classifier."""
        default = {
            d: ("network-control" if d in DEFAULT_NETWORK_CONTROL else "best-effort", "")
            for d in range(64)
        }
        chain, seen = [], set()
        while classifier in self.st.classifiers and classifier not in seen:
            seen.add(classifier)
            chain.append(self.st.classifiers[classifier])
            classifier = self.st.classifiers[classifier]["import"]
        table = dict(default)
        for entry in reversed(chain):  # the classifier's own code points win over imports
            table.update(entry["codes"])
        return table


def _matches(port: str, pattern: str) -> bool:
    return pattern == "all" or fnmatch.fnmatchcase(port, pattern)


def parse(text: str, file: str, name: str, hint: DevicePlan | None = None) -> DevicePlan:
    config: Config = read(text, file)
    st = _Statements(file, config)
    for statement in config.statements:
        st.read(statement)
    st.resolve()
    st.check_ecn_curves()
    st.check_classifier_units()
    if st.problems:
        raise InputError(st.problems)
    reader = _Reader(st, hint, name, f"{file}:1:1")
    device = reader.device
    names = reader.port_names
    classifier_of = {p: reader.setting(p, "classifier") for p in names}
    profile_of = {p: reader.setting(p, "congestion-notification-profile") for p in names}
    map_of = {p: reader.setting(p, "scheduler-map") for p in names}

    # Device-wide facts come from what most lossless ports use (or any CoS interface entry).
    def chosen(per_port: dict[str, Any], key: str) -> tuple[str, str] | None:
        lossless = [v for p, v in per_port.items() if v and profile_of.get(p)]
        candidates = lossless or [v for v in per_port.values() if v]
        candidates = candidates or [e[key] for e in st.cos_interfaces.values() if key in e]
        return _most_common(candidates)

    device_classifier = chosen(classifier_of, "classifier")
    tables = {c: reader.classify(c) for c in {v[0] for v in classifier_of.values() if v}}
    dscp_to_class = reader.classify(device_classifier[0] if device_classifier else None)
    device_map = chosen(map_of, "scheduler-map")
    scheduler_map = st.scheduler_maps.get(device_map[0], {}) if device_map else {}
    tc_of = _traffic_classes(reader.classes, {c for c, _ in dscp_to_class.values()}, scheduler_map)

    maps = device.maps
    maps.dscp_to_tc = {d: tc_of.get(fc, 0) for d, (fc, _) in dscp_to_class.items()}
    for fc, tc in tc_of.items():
        maps.tc_to_queue[tc] = reader.classes[fc].queue
    roce_dscp_where = dscp_to_class[device.roce_dscp][1]
    # a DSCP the config leaves to the default classifier: judged where classifiers are applied
    applied = _where(device_classifier) or st.block(device.source, _COS, "interfaces")
    _record(device.sources, ("dscp_to_tc", "roce"), roce_dscp_where or applied)
    cnp_where = dscp_to_class[device.cnp_dscp][1]
    _record(device.sources, ("cnp",), cnp_where or applied)

    partition = st.partitions.get("egress lossless", (100, ""))[0]
    ports: dict[str, PortPlan] = {}
    for port_name in names:
        # a port whose unit applies no DSCP classifier classifies by the default one [DEFAULTS]
        applied_here = classifier_of[port_name]
        table = tables[applied_here[0]] if applied_here else reader.classify(None)
        ports[port_name] = _port(
            reader,
            port_name,
            table,
            tc_of,
            (profile_of[port_name], map_of[port_name], classifier_of[port_name]),
            partition,
        )
    device.ports = ports
    device.lossless_priorities = sorted({p for port in ports.values() for p in port.pfc_priorities})

    # Which queue a pause of each priority stops: the output part of the lossless ports' profile
    # (the plan holds one map per switch: a profile of lossless ports that pauses otherwise
    # than the inventory plans is the one read, so that it is judged, at its lines).
    device_profile = chosen(profile_of, "congestion-notification-profile")
    profile = st.profiles.get(device_profile[0]) if device_profile else None
    queue_of = {tc: reader.classes[fc].queue for fc, tc in tc_of.items()}
    deviating = _deviating_profile(reader, device, profile_of, queue_of)
    profile = deviating or profile
    if profile is not None:
        flow = _flow(profile)
        for priority in device.lossless_priorities:
            maps.pfc_priority_to_queue.pop(priority, None)
        maps.pfc_priority_to_queue.update(flow)
        lines = [w for _, w in profile.output.values()]
        _record(device.sources, ("pfc_priority_to_queue",), lines[0] if lines else profile.where)
    lossless_queues = {maps.tc_to_queue.get(p, p) for p in device.lossless_priorities} | {
        maps.pfc_priority_to_queue.get(p, p) for p in device.lossless_priorities
    }
    device.queues = _queues(reader, scheduler_map, lossless_queues, device)
    if device_map:
        device.sources.setdefault("queues", device_map[1])
    lossless_classes = [
        c for fc, c in reader.classes.items() if fc in tc_of and c.priority is not None
    ]
    if lossless_classes:
        _record(device.sources, ("lossless_priorities", "tc_to_queue"), lossless_classes[0].where)

    watchdogs = [p.watchdog for p in ports.values() if p.lossless and p.watchdog]
    if watchdogs:
        device.watchdog = watchdogs[0]
    device.ecmp = _ecmp(st, device)
    device.buffer_partitions = {k: v for k, (v, _) in sorted(st.partitions.items())}
    device.sources["buffer_partitions"] = min(
        (w for _, w in st.partitions.values()),
        key=_line_number,
        default=st.block(device.source, _COS),
    )
    classify_traffic(device)
    # CNP scheduling is judged at the CNP class's scheduler (where `priority strict-high` goes)
    cnp_class = dscp_to_class[device.cnp_dscp][0]
    cnp_scheduler = st.schedulers.get(scheduler_map.get(cnp_class, ("", ""))[0])
    if cnp_scheduler is not None:
        device.sources["queues"] = cnp_scheduler.strict or cnp_scheduler.where
    device.headroom_known = False  # Junos sizes headroom itself from the cable length
    return device


def _flow(profile: _Profile) -> dict[int, int]:
    """Which queue a received pause of each priority stops, by the profile's output part; an
    explicit output part replaces the default: other priorities pause no queue [CNP]."""
    if profile.output:
        return {p: q for p, (q, _) in profile.output.items()}
    return dict(DEFAULT_FLOW_CONTROL)


def _deviating_profile(
    reader: _Reader,
    device: DevicePlan,
    profile_of: dict[str, tuple[str, str] | None],
    queue_of: dict[int, int],
) -> _Profile | None:
    """The first profile of a lossless port that, for one of the port's lossless priorities,
    pauses another queue than the one its lossless class is queued in (`queue_of`: TC ->
    queue), or none: the switch sends pause on one priority and honours it elsewhere."""
    for name, port in device.ports.items():
        reference = profile_of.get(name)
        profile = reader.st.profiles.get(reference[0]) if reference else None
        if profile is None or not port.lossless:
            continue
        flow = _flow(profile)
        if any(flow.get(p) != queue_of.get(p) for p in port.pfc_priorities):
            return profile
    return None


def _traffic_classes(
    classes: dict[str, _Class], classified: set[str], scheduler_map: dict[str, Any]
) -> dict[str, int]:
    """The plan's TC of each unicast forwarding class traffic uses (module docstring)."""
    used = [
        fc for fc in classes if (fc in classified or fc in scheduler_map) and classes[fc].queue < 8
    ]
    tc: dict[str, int] = {}
    for fc in used:
        priority = classes[fc].priority
        if priority is not None:
            tc[fc] = priority
    priorities = set(tc.values())
    lossy = sorted((fc for fc in used if fc not in tc), key=lambda fc: classes[fc].queue)
    for fc in lossy:  # a lossy class keeps its queue number unless a PFC priority has it
        if classes[fc].queue not in priorities:
            tc[fc] = classes[fc].queue
    free = [t for t in range(7, -1, -1) if t not in set(tc.values())]
    for fc in lossy:
        if fc in tc:
            continue
        queue = classes[fc].queue
        sharing = [tc[other] for other in lossy if other in tc and classes[other].queue == queue]
        tc[fc] = sharing[0] if sharing else free.pop(0) if free else queue
    return tc


def _port(
    reader: _Reader,
    name: str,
    table: dict[int, tuple[str, str]],
    tc_of: dict[str, int],
    settings: tuple[tuple[str, str] | None, ...],
    partition: int,
) -> PortPlan:
    """A port: MTU and speed, PFC of its congestion-notification profile, and the ECN and
    WRED of its scheduler map (`settings`: the profile, map and classifier it uses)."""
    profile_ref, map_ref, classifier_ref = settings
    st = reader.st
    interface = st.interfaces.get(name, {})
    header = _port_block(st, name)
    port = new_port(reader.hint, name, header, mtu=DEFAULT_INTERFACE_MTU - ETHERNET_HEADER)
    sources = port.sources
    if "mtu" in interface and interface["mtu"][0].isdigit():
        port.mtu = int(interface["mtu"][0]) - ETHERNET_HEADER
        sources["mtu"] = interface["mtu"][1]
    if "speed" in interface and (speed := _SPEED.match(interface["speed"][0])):
        port.speed_mbps = int(speed.group(1)) * 1000
        sources["speed_mbps"] = interface["speed"][1]
    cos_where = _where(profile_ref) or st.block(header, _COS, "interfaces", name)
    classified_where = _where(classifier_ref) or st.block(header, _COS, "interfaces", name)
    profile = st.profiles.get(profile_ref[0]) if profile_ref else None
    # PFC priority -> where it is stated: the pfc-priority of the lossless class a `pfc` code
    # point is classified to. A DSCP-based PFC code point pauses on its class's pfc-priority
    # and on nothing else: a code point classified to a lossy class (no `no-loss
    # pfc-priority`) has no priority to pause on, so the port sends no pause for it [DSCPPFC].
    # Such a code point is judged at the statement that classifies it (or, when no classifier
    # lists it, where the port's classifier is applied): that is what sent it to a lossy class.
    priorities: dict[int, str] = {}
    unpaused: list[str] = []  # where a pfc code point is classified to a lossy class
    if profile is not None:
        for point, _ in profile.pfc_dscp:
            dscp = st.dscp(point)
            if dscp is None or table[dscp][0] not in tc_of:
                continue
            fc, listed = table[dscp]
            cls = reader.classes[fc]
            if cls.priority is None:
                unpaused.append(listed or classified_where)
                continue
            priorities.setdefault(tc_of[fc], cls.where)
        for priority, where in profile.pfc_priority:
            priorities.setdefault(priority, where)
    port.pfc_priorities = sorted(priorities)
    port.lossless = bool(priorities)
    # judged where the priority the inventory does not plan is stated (PFC added on CNP's
    # priority), else the first priority's statement
    planned = reader.hint.ports.get(name) if reader.hint is not None else None
    unplanned = [p for p in port.pfc_priorities if planned and p not in planned.pfc_priorities]
    shown = (unplanned or port.pfc_priorities)[:1]
    first_pfc = priorities[shown[0]] if shown else unpaused[0] if unpaused else cos_where
    _record(sources, ("pfc_priorities", "lossless"), first_pfc)
    if port.lossless and profile is not None:
        cable, where = profile.cable or (DEFAULT_CABLE_M, profile.where)
        port.cable_m = float(cable)
        sources["cable_m"] = where
        timers = WATCHDOG_DEFAULTS | profile.watchdog
        poll = timers["poll-interval"]
        port.watchdog = WatchdogPlan(
            profile.watchdog_where is not None,
            poll * timers["detection"],
            timers["recovery"],
            poll,
            "drop",
        )
        # A platform without the watchdog [WDOG] lacks it switch-wide, not per profile: judged
        # once, where the profiles are (as the plan is, at its one pfc_watchdog line)
        lacking = reader.device.platform and not has_watchdog(reader.device)
        profiles = st.block(profile.where, _COS, "congestion-notification-profile")
        _record(
            sources,
            ("watchdog", "watchdog_enabled"),
            profiles if lacking else profile.watchdog_where or profile.where,
        )
    scheduler_map = st.scheduler_maps.get(map_ref[0], {}) if map_ref else {}
    _scheduling(reader, port, scheduler_map, tc_of, partition, _where(map_ref) or header)
    if profile is not None and port.lossless:
        # A pause of a lossless priority stops the output queue the profile names (queues 3
        # and 4 by default): when that is not the class's queue, judge ECN and the lossless
        # queue at that statement (or at the profile that lacks it).
        queue_of = {tc: reader.classes[fc].queue for fc, tc in tc_of.items()}
        for priority in port.pfc_priorities:
            paused = (
                profile.output.get(priority, (None, ""))
                if profile.output  # an explicit output part replaces the default [CNP]
                else (DEFAULT_FLOW_CONTROL.get(priority), "")
            )
            if paused[0] != queue_of.get(priority):
                sources["ecn"] = paused[1] or profile.where
                break
    return port


def _port_block(st: _Statements, name: str) -> str:
    """Where the port is first stated: its interface block, else its CoS interface block."""
    fallback = st.block(f"{st.file}:1:1", _COS, "interfaces", name)
    return st.block(fallback, "interfaces", name)


def _scheduling(
    reader: _Reader,
    port: PortPlan,
    scheduler_map: dict[str, tuple[str, str]],
    tc_of: dict[str, int],
    partition: int,
    map_where: str,
) -> None:
    """ECN of the port's lossless queues and the queues it WRED-drops on."""
    st, sources = reader.st, port.sources
    drops, ecn = [], []
    missing = map_where  # where a lossless queue without ECN is scheduled
    for fc, (scheduler_name, _) in scheduler_map.items():
        cls = reader.classes.get(fc)
        scheduler = st.schedulers.get(scheduler_name)
        if cls is None or scheduler is None or cls.queue >= 8:
            continue
        profile = st.drop_profiles.get(scheduler.drop or "")
        if profile is not None and not scheduler.ecn:
            drops.append((cls.queue, scheduler.drop_where))
        lossless = port.lossless and tc_of.get(fc) in port.pfc_priorities
        # ECN is read on whatever queue marks it: the rules decide which queues must (a queue
        # PFC stops marks nothing here only if the config says so, not because its class is
        # classified to another priority)
        if port.lossless and scheduler.ecn and profile and len(profile["fill"]) >= 2:
            ecn.append(_ecn(reader, port, cls.queue, tc_of.get(fc, 0), profile, partition))
        elif lossless:
            missing = scheduler.where
    port.wred_drop_queues = sorted(q for q, _ in drops)
    if drops:
        sources["wred_drop_queues"] = drops[0][1] or map_where
    port.ecn = sorted(ecn, key=lambda e: e.queue)
    _record(sources, ("ecn", "ecn_percent"), ecn[0].derivation if ecn else missing)


def _ecn(
    reader: _Reader, port: PortPlan, queue: int, priority: int, profile: dict, partition: int
) -> EcnPlan:
    """Fill levels back to bytes of the queue buffer: the plan's PFC trigger for the port's
    priority (the inventory's model of the switch) times the egress lossless partition."""
    low, high = profile["fill"][0], profile["fill"][-1]
    probability = profile["probability"][-1] if profile["probability"] else 100
    trigger = None
    hint = reader.hint
    planned = hint.ports.get(port.name) if hint is not None else None
    if planned is not None and hint is not None:
        planned_queue = hint.maps.pfc_priority_to_queue.get(priority, priority)
        trigger = next((e.pfc_trigger_bytes for e in planned.ecn if e.queue == planned_queue), None)
    if trigger:
        buffer = trigger * partition / 100
        low, high = int(low * buffer // 100), int(high * buffer // 100)
    # the derivation field carries where the drop profile is, for the port's sources
    return EcnPlan(
        queue,
        low,
        high,
        probability,
        None,
        trigger,
        low < trigger if trigger else None,
        high <= trigger if trigger else None,
        profile.get("where", ""),
    )


def _queues(
    reader: _Reader,
    scheduler_map: dict[str, tuple[str, str]],
    lossless: set[int],
    device: DevicePlan,
) -> list[QueuePlan]:
    """Egress scheduling of the device's scheduler map; a strict-high queue's weight is its
    transmit-rate cap. No scheduler map: Junos default scheduling, every queue low priority."""
    queues: dict[int, QueuePlan] = {}
    for fc, (name, _) in scheduler_map.items():
        cls, scheduler = reader.classes.get(fc), reader.st.schedulers.get(name)
        if cls is None or scheduler is None or cls.queue >= 8 or cls.queue in queues:
            continue
        strict = scheduler.strict is not None
        traffic = "roce" if cls.queue in lossless else "cnp" if strict else "default"
        queues[cls.queue] = QueuePlan(
            cls.queue,
            "strict" if strict else "dwrr",
            scheduler.rate,
            cls.queue in lossless,
            traffic,
        )
        if strict:
            device.sources.setdefault("queues", scheduler.strict or scheduler.where)
    return [queues[q] for q in sorted(queues)]


def _ecmp(st: _Statements, device: DevicePlan) -> EcmpPlan:
    """ECMP as the config states it; unknown when it states nothing about hashing."""
    if not st.hash:
        return unknown_ecmp()
    fields = ["src-ip", "dst-ip", "ip-protocol", "src-port", "dst-port"]
    exclusions = st.hash.get("exclusions", {})
    names = {
        "no-ipv4-source-address": "src-ip",
        "no-ipv4-destination-address": "dst-ip",
        "no-protocol": "ip-protocol",
        "no-l4-source-port": "src-port",
        "no-l4-destination-port": "dst-port",
    }
    removed = {names[e] for e in exclusions if e in names}
    hash_key = st.hash.get("hash-key", {})
    # `hash-key family inet`: layer-4 adds the L4 ports; layer-3 is required: "If you omit
    # the layer-3 statement, the management process removes the hash-key statement from the
    # configuration and the router behaves as if you specified layer-3" (Juniper, "family
    # inet (Forwarding Options Hash Key)", juniper.net/documentation/en_US/junos12.3/topics/
    # reference/configuration-statement/family-edit-forwarding-options-hash-key-inet.html)
    if hash_key and ("layer-4" not in hash_key or "layer-3" not in hash_key):
        removed |= {"src-port", "dst-port"}
    fields = [f for f in fields if f not in removed]
    seed = st.hash.get("seed")
    sources = device.sources
    sources["ecmp_seed"] = seed[1] if seed else st.block(device.source, *ECMP_BLOCK)
    where = next(iter(exclusions.values()), None) or next(iter(hash_key.values()), None)
    if where:
        _record(sources, ("ecmp_hash_fields", "ecmp_udp_source_port"), where)
    return EcmpPlan(
        fields,
        seed[0] if seed else None,
        "set in the config" if seed else "not in the config",
        False,
        "src-port" in fields,
    )


def _record(sources: dict[str, str], facts: tuple[str, ...], where: str) -> None:
    for fact in facts:
        if where:
            sources[fact] = where


def _where(reference: tuple[str, str] | None) -> str:
    return reference[1] if reference else ""


def _line_number(where: str) -> int:
    parts = where.rsplit(":", 2)
    return int(parts[1]) if len(parts) == 3 and parts[1].isdigit() else 0


def parse_file(path: str, name: str, hint: DevicePlan | None = None) -> DevicePlan:
    return parse(read_config(path), path, name, hint)
