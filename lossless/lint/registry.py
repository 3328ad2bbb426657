"""The rule registry: every rule has a stable ID, a name, a severity, an explanation with
its source, and is a small function over a fabric, a device or a port plan."""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, TypeVar

from lossless.plan import DevicePlan, FabricPlan, PortPlan, located, shared_parts
from lossless.system.parallel import ordered_map
from lossless.text.lists import comma_separated

SEVERITIES = ("error", "warning")


@dataclass(frozen=True, order=True)
class Finding:
    source: str  # FILE:LINE:COL of the offending node
    rule: str
    severity: str
    message: str
    device: str | None = None
    port: str | None = None


@dataclass(frozen=True)
class Rule:
    id: str
    name: str
    severity: str
    scope: str  # "fabric", "device", "port", or "config" (raised when configs are read)
    explanation: str
    source: str
    check: Callable[..., Iterable[Any]]
    # The plan facts the rule judges (names of vendors.facts PORT_FACTS/DEVICE_FACTS): a
    # finding points where the first of them was stated (the config or inventory line).
    facts: tuple[str, ...] = ()
    # A port rule that reads only a port's settings (PORT_SETTINGS), never which port it is:
    # it runs once per group of a device's ports with the same settings, and each port of
    # the group gets its findings (tests/test_lint_registry.py holds such rules to it).
    settings_only: bool = False
    # The computed_once value the rule reads with others: they run in one worker process
    shares: str | None = None


RULES: dict[str, Rule] = {}


def rule(
    id: str,
    name: str,
    severity: str,
    scope: str,
    source: str,
    facts: tuple[str, ...] = (),
    *,
    settings_only: bool = False,
    shares: str | None = None,
):
    """Register a rule. The function's docstring is its explanation. It yields messages, or
    (severity, message) to change one finding's severity, or full Findings. `facts` names the
    plan facts it judges, so its findings point at the line that stated them.
    `settings_only`: a port rule that reads nothing of a port but PORT_SETTINGS and yields
    no full Findings; `shares`: the computed_once value it reads with other rules (see
    Rule)."""
    if severity not in SEVERITIES:
        raise ValueError(severity)
    if settings_only and scope != "port":
        raise ValueError(f"{id}: settings_only is for port rules")

    def register(check: Callable[..., Iterable[Any]]) -> Callable[..., Iterable[Any]]:
        if id in RULES:
            raise ValueError(f"rule {id} registered twice")
        explanation = " ".join((check.__doc__ or "").split())
        RULES[id] = Rule(
            id, name, severity, scope, explanation, source, check, facts, settings_only, shares
        )
        return check

    return register


def _finding(rule_: Rule, item: Any, source: str, device: str | None, port: str | None) -> Finding:
    if isinstance(item, Finding):
        return item
    severity, message = item if isinstance(item, tuple) else (rule_.severity, item)
    return Finding(source, rule_.id, severity, message, device, port)


# While lint() runs: name -> (fabric, what was computed from it); see computed_once.
_computed: dict[str, tuple[FabricPlan, Any]] | None = None
Computed = TypeVar("Computed")


def computed_once(name: str, fabric: FabricPlan, compute: Callable[[], Computed]) -> Computed:
    """What several rules derive alike from a fabric (the NIC-port pairs seven host rules
    walk, the deadlock analysis three rules report, the port groups of settings_only rules),
    computed once per lint() run: the plan cannot change while the rules read it. Outside
    lint() (a rule run on its own) it is computed each time."""
    if _computed is None:
        return compute()
    found = _computed.get(name)
    if found is None or found[0] is not fabric:
        found = _computed[name] = (fabric, compute())
    return found[1]


# What a port's settings are, for settings_only rules: everything of a PortPlan but which
# port it is (name, description, peer, cable, where it was stated, what it ignores).
PORT_SETTINGS = (
    "speed_mbps",
    "lanes",
    "mtu",
    "lossless",
    "pfc_priorities",
    "headroom",
    "ecn",
    "watchdog",
    "wred_drop_queues",
    "trust",
)


def _settings_key(port: PortPlan) -> tuple:
    """Equal for two ports of a device with the same settings (the headroom, ECN and
    watchdog by identity: plan.shared_parts)."""
    return (
        port.speed_mbps,
        port.lanes,
        port.mtu,
        port.lossless,
        tuple(port.pfc_priorities),
        shared_parts(port),
        tuple(port.wred_drop_queues),
        port.trust,
    )


def _port_groups(fabric: FabricPlan) -> dict[str, list[list[PortPlan]]]:
    """Per device, its ports grouped by settings, in port order (a 32k fabric's 98,304 ports
    make a few groups per switch)."""
    groups: dict[str, list[list[PortPlan]]] = {}
    for device in fabric.devices.values():
        by_key: dict[tuple, list[PortPlan]] = {}
        for port in device.ports.values():
            by_key.setdefault(_settings_key(port), []).append(port)
        groups[device.name] = list(by_key.values())
    return groups


def run_rule(rule_: Rule, fabric: FabricPlan) -> Iterator[Finding]:
    if rule_.scope == "config":
        return
    if rule_.scope == "fabric":
        for item in rule_.check(fabric):
            yield _finding(rule_, item, fabric.inventory, None, None)
        return
    groups = (
        computed_once("port groups", fabric, lambda: _port_groups(fabric))
        if rule_.settings_only
        else {}
    )
    for device in fabric.devices.values():
        if rule_.scope == "device":
            for item in rule_.check(device, fabric):
                yield _finding(rule_, item, located(device, *rule_.facts), device.name, None)
        elif rule_.settings_only:
            for group in groups[device.name]:
                for item in rule_.check(group[0], device, fabric):
                    if isinstance(item, Finding):
                        raise TypeError(f"{rule_.id} is settings_only: it yields messages")
                    for port in group:
                        source = located(port, *rule_.facts)
                        yield _finding(rule_, item, source, device.name, port.name)
        else:
            for port in device.ports.values():
                for item in rule_.check(port, device, fabric):
                    source = located(port, *rule_.facts)
                    yield _finding(rule_, item, source, device.name, port.name)


@dataclass
class LintResult:
    findings: list[Finding]
    suppressed: list[tuple[Finding, str]]  # with the reason written in the inventory

    @property
    def failed(self) -> bool:
        return any(f.severity == "error" for f in self.findings)


def suppression(fabric: FabricPlan, finding: Finding) -> str | None:
    """The reason an inline `lint_ignore` gives for skipping this finding, if any."""
    scopes = [fabric.lint_ignore]
    device = fabric.devices.get(finding.device or "")
    if device is not None:
        scopes.append(device.lint_ignore)
        if finding.port in device.ports:
            scopes.append(device.ports[finding.port].lint_ignore)
    for scope in scopes:
        if finding.rule in scope:
            return scope[finding.rule]
    return None


class UnknownRule(ValueError):
    """A rule named on the command line or in `lint_ignore` that does not exist."""


def registered_rules() -> dict[str, Rule]:
    from lossless.lint import rules  # noqa: F401  (registers the rules)

    return RULES


def find_rule(name: str) -> Rule | None:
    """The rule with this ID (any case) or this name."""
    rules = registered_rules()
    wanted = name.strip()
    by_id = rules.get(wanted.upper())
    if by_id is not None:
        return by_id
    return next((r for r in rules.values() if r.name == wanted.lower()), None)


def resolve_rules(names: Iterable[str]) -> list[str]:
    """The rule IDs named by `names`: each a comma list of rule IDs (LL112), ID prefixes
    (LL1) or rule names (ecn-before-pfc). Anything else, an empty entry included, raises
    UnknownRule: a typo or an empty CI variable must not silently turn a rule off."""
    rules = registered_rules()
    try:
        words = comma_separated(names, "rule name")
    except ValueError as error:
        raise UnknownRule(str(error)) from None
    chosen: list[str] = []
    for word in words:
        rule_ = find_rule(word)
        matches = (
            [rule_.id]
            if rule_ is not None
            else sorted(i for i in rules if i.startswith(word.upper()))
            if re.fullmatch(r"LL[0-9]*", word.upper())
            else []
        )
        if not matches:
            close = difflib.get_close_matches(
                word, [*rules, *(r.name for r in rules.values())], n=1, cutoff=0.6
            )
            hint = f' (did you mean "{close[0]}"?)' if close else ""
            raise UnknownRule(f"no rule {word!r}{hint}; `lossless rules` lists them")
        chosen += [m for m in matches if m not in chosen]
    return chosen


def lint(
    fabric: FabricPlan,
    select: Iterable[str] = (),
    ignore: Iterable[str] = (),
    extra: Iterable[Finding] = (),
    *,
    also: FabricPlan | None = None,
) -> LintResult:
    """Run the selected rules (see resolve_rules for how they are named); `extra` are
    findings made while reading configs (drift). `also`: a second plan of the same
    inventory (its configs read back, lint.configs.fabric_from_configs) judged in the same
    run; a finding both make is reported once, and the inventory's `lint_ignore` (in
    `fabric`) applies to both."""
    selected, ignored = resolve_rules(select), resolve_rules(ignore)
    chosen = [r for r in registered_rules().values() if _selected(r.id, selected, ignored)]
    found = _findings(fabric, chosen)
    if also is not None:
        found |= _findings(also, chosen)
    found |= {f for f in extra if _selected(f.rule, selected, ignored)}
    result = LintResult([], [])
    kept = []
    for finding in sorted(found, key=_order):
        reason = suppression(fabric, finding)
        if reason is None:
            kept.append(finding)
        else:
            result.suppressed.append((finding, reason))
    result.findings = one_per_cause(kept)
    return result


def _findings(fabric: FabricPlan, chosen: list[Rule]) -> set[Finding]:
    """What the chosen rules find in the plan, each finding once."""
    tasks = _tasks(chosen)
    global _computed
    _computed = {}
    try:
        if any(r.settings_only for r in chosen):  # made once here, before workers fork
            computed_once("port groups", fabric, lambda: _port_groups(fabric))
        batches = ordered_map(
            lambda index: [f for r in tasks[index] for f in run_rule(r, fabric)],
            len(tasks),
            chunk=1,
            worthwhile=sum(len(d.ports) for d in fabric.devices.values()) >= PORTS_FOR_WORKERS,
        )
        return {f for batch in batches for f in batch}
    finally:
        _computed = None


# From this many ports the rules run in worker processes (lossless.parallel), a few rules
# each; below it starting them costs more than it saves.
PORTS_FOR_WORKERS = 20_000


def _tasks(rules: list[Rule]) -> list[list[Rule]]:
    """The rules in groups for the workers: the rules that share a computed value together
    (it is computed once per process), those first (they are the heaviest), then each other
    rule on its own."""
    shared: dict[str, list[Rule]] = {}
    alone: list[list[Rule]] = []
    for rule_ in rules:
        if rule_.shares:
            shared.setdefault(rule_.shares, []).append(rule_)
        else:
            alone.append([rule_])
    return [*shared.values(), *alone]


def _order(finding: Finding) -> tuple:
    """Finding's own order (its fields in turn), as a plain tuple: fast to sort by."""
    return (
        finding.source,
        finding.rule,
        finding.severity,
        finding.message,
        finding.device,
        finding.port,
    )


SHOWN_SUBJECTS = 3


def one_per_cause(findings: list[Finding]) -> list[Finding]:
    """Findings of one rule with the same message at the same line have one cause (a fabric
    MTU, a switch-wide ECN policy, a shared profile): report it once, at that line, saying
    where else it applies, instead of once per port."""
    groups: dict[tuple[str, str, str, str], list[Finding]] = {}
    for finding in findings:
        key = (finding.source, finding.rule, finding.severity, finding.message)
        groups.setdefault(key, []).append(finding)
    merged = []
    for group in groups.values():
        first = group[0]
        if len(group) == 1:
            merged.append(first)
            continue
        devices = {f.device for f in group}
        subjects = [
            (f.port or "") if len(devices) == 1 else ":".join(x for x in (f.device, f.port) if x)
            for f in group
        ]
        shown = ", ".join(subjects[:SHOWN_SUBJECTS])
        more = len(subjects) - SHOWN_SUBJECTS
        where = f"{shown} and {more} more" if more > 0 else shown
        merged.append(
            Finding(
                first.source,
                first.rule,
                first.severity,
                f"{first.message} ({len(group)} ports on {len(devices)} devices: {where})"
                if len(devices) > 1
                else f"{first.message} ({len(group)} ports: {where})",
                first.device if len(devices) == 1 else None,
                None,
            )
        )
    return merged


def _selected(rule_id: str, select: list[str], ignore: list[str]) -> bool:
    return (not select or rule_id in select) and rule_id not in ignore


PortCheck = Callable[[PortPlan, DevicePlan, FabricPlan], Iterable[Any]]
DeviceCheck = Callable[[DevicePlan, FabricPlan], Iterable[Any]]


def blocking_errors(fabric: FabricPlan, devices: Iterable[str]) -> list[Finding]:
    """Error findings that concern these devices (or the whole fabric): what stops a push."""
    names = set(devices)
    return [
        f
        for f in lint(fabric).findings
        if f.severity == "error" and (f.device is None or f.device in names)
    ]
