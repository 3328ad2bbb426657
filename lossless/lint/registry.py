"""The rule registry: every rule has a stable ID, a name, a severity, an explanation with
its source, and is a small function over a fabric, a device or a port plan. A module of rules
registers them when imported (lint/catalogue.py imports every such module); lint/runner.py
runs them."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, TypeVar

from lossless.plan import FabricPlan

SEVERITIES = ("error", "warning")


@dataclass(frozen=True, order=True)
class Finding:
    source: str  # FILE:LINE:COL of the offending node
    rule: str
    severity: str
    message: str
    device: str | None = None
    port: str | None = None
    # The devices a finding concerns when `device` alone does not say (one cause on the ports
    # of several devices, the switches on a deadlock cycle): reports count it against each.
    # No lint output format prints it (lint.runner.affected reads it).
    devices: tuple[str, ...] = ()
    # The facts of the device (or its port) whose value the finding is about (names of
    # vendors.facts PORT_FACTS/DEVICE_FACTS): LL200 drift says which fact a config states
    # otherwise, a link or host rule which switch fact differs from the other end's; lint
    # folds the second into the first (lint/consequences.py). Not printed, not compared.
    facts: tuple[str, ...] = field(default=(), compare=False)


@dataclass(frozen=True)
class Rule:
    id: str
    name: str
    severity: str
    # "fabric", "device", "port"; "config" (raised when configs are read); "state" and
    # "state-device" (`lossless verify`: a port's or a switch's operational state, verify/)
    scope: str
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
    # A port rule whose verdict (finding anything or not) rests on nothing of a port but
    # PORT_SETTINGS and its cable lengths (its cable_m, its link's: FabricPlan.link_cable_m):
    # it runs once per group of a device's ports with the same settings and cables, and
    # port by port in a group where it finds something (so its messages may name the port).
    by_cable: bool = False
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
    by_cable: bool = False,
    shares: str | None = None,
):
    """Register a rule. The function's docstring is its explanation. It yields messages, or
    (severity, message) to change one finding's severity, or full Findings. `facts` names the
    plan facts it judges, so its findings point at the line that stated them.
    `settings_only`: a port rule that reads nothing of a port but PORT_SETTINGS and yields
    no full Findings; `by_cable`: a port rule whose verdict rests on the port's settings and
    cable lengths only; `shares`: the computed_once value it reads with other rules (see
    Rule)."""
    if severity not in SEVERITIES:
        raise ValueError(severity)
    for flag, value in (("settings_only", settings_only), ("by_cable", by_cable)):
        if value and scope != "port":
            raise ValueError(f"{id}: {flag} is for port rules")
    if settings_only and by_cable:
        raise ValueError(f"{id}: a rule is grouped by settings_only or by_cable, not both")

    def register(check: Callable[..., Iterable[Any]]) -> Callable[..., Iterable[Any]]:
        if id in RULES:
            raise ValueError(f"rule {id} registered twice")
        explanation = " ".join((check.__doc__ or "").split())
        RULES[id] = Rule(
            id,
            name,
            severity,
            scope,
            explanation,
            source,
            check,
            facts,
            settings_only,
            by_cable,
            shares,
        )
        return check

    return register


def finding_of(
    rule_: Rule, item: Any, source: str, device: str | None, port: str | None
) -> Finding:
    """What a rule yielded (a message, (severity, message) or a Finding) as a Finding."""
    if isinstance(item, Finding):
        return item
    severity, message = item if isinstance(item, tuple) else (rule_.severity, item)
    return Finding(source, rule_.id, severity, message, device, port)


# While lint() runs: name -> (fabric, what was computed from it); see computed_once.
_computed: dict[str, tuple[FabricPlan, Any]] | None = None
Computed = TypeVar("Computed")


@contextmanager
def computing_once() -> Iterator[None]:
    """While this lasts (one lint() run), computed_once keeps what it computes."""
    global _computed
    _computed = {}
    try:
        yield
    finally:
        _computed = None


def keeping_computed() -> bool:
    """Whether computed_once keeps what it computes (a lint() run is on)."""
    return _computed is not None


def computed_once(name: str, fabric: FabricPlan, compute: Callable[[], Computed]) -> Computed:
    """What several rules derive alike from a fabric (the NIC-port pairs the host rules
    walk, the deadlock analysis three rules report, the port groups of settings_only rules,
    the link ends between switches the link rules walk), computed once per lint() run:
    the plan cannot change while the rules read it. Outside lint() (a rule run on its own)
    it is computed each time."""
    if _computed is None:
        return compute()
    found = _computed.get(name)
    if found is None or found[0] is not fabric:
        found = _computed[name] = (fabric, compute())
    return found[1]


def forget(name: str) -> None:
    """Let go of a computed_once value before the lint() run ends: the rules that share it
    (Rule.shares, run as one task) are done with it."""
    if _computed is not None:
        _computed.pop(name, None)


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
