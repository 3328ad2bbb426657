"""EOS offline diff: hier_config remediation lines for the part of the config lossless owns,
and what committing each does to traffic (IMPACT)."""

from __future__ import annotations

import re

from lossless.vendors.impact import (
    DISRUPTIVE,
    HITLESS,
    PFC_DISAGREE,
    ImpactRule,
    description,
    rehash,
)

# Whole QoS domains lossless owns on EOS; other sections only when the intended config has them.
OWNED_SECTIONS = (
    "qos map ",
    "priority-flow-control ",
    "platform trident mmu ",
    "ip load-sharing trident fields ",
    "ip load-sharing trident seed ",
)
# A port's speed is stated only off the platform's default (render.states_speed), so a running
# config that states the default (`speed 400g-8`) would be negated, and `no speed` re-trains
# the link. A diff never removes or resets a port's speed: a `no speed` is dropped; a speed the
# plan states and the switch does not run is set (one `speed` line, disruptive in IMPACT).
_NO_SPEED = re.compile(r"^\s+no speed\b")
# Lines under our interfaces that lossless owns: its own, and per-interface QoS that would
# override the profile (a stale `priority-flow-control priority 4 no-drop` or tx-queue block).
OWNED_INTERFACE_LINES = (
    "mtu ",
    "speed ",
    "description ",
    "service-profile ",
    "tx-queue ",
    "uc-tx-queue ",
    "priority-flow-control ",
    "qos trust ",
)


def diff(running: str, intended: str) -> list[str]:
    """EOS remediation lines (hier_config) for the lossless-owned part of the config. A running
    config that repeats a section (`interface X` twice) is merged first, as EOS reads it."""
    from hier_config import Platform

    from lossless.vendors.cli_tree import merged_text, parse_tree
    from lossless.vendors.remediation import cli_remediation

    lines = cli_remediation(
        Platform.ARISTA_EOS,
        merged_text(parse_tree(running)),
        intended,
        lambda text: text.startswith(OWNED_SECTIONS),
        lambda line: line.startswith(OWNED_INTERFACE_LINES),
    )
    lines = [line for line in lines if not _NO_SPEED.match(line)]
    # an interface left with nothing to change is not listed
    return [
        line
        for index, line in enumerate(lines)
        if not (
            line.startswith("interface ")
            and (index + 1 == len(lines) or not lines[index + 1].startswith(" "))
        )
    ]


# -- change impact (`lossless diff`: docs/change-impact.md) -------------------------------------
# What committing each remediation line does to traffic. EOS documents none of these effects
# (docs/reference/vendors.md 11a [UNV]): buffer, PFC and link settings are treated as
# disruptive, marking thresholds, schedulers, maps and timers as hitless. Rules see the line;
# `within` matches one of the sections it is in.
_IF = r"^interface (?P<port>\S+)"
_PROFILE = r"^qos profile "
_UNDOCUMENTED = "docs/reference/vendors.md 11a [UNV]"
_MAPS = "the priority and queue RoCE uses must match the link peer's"
IMPACT = (
    description(r"^(no )?description", within=_IF),
    ImpactRule(
        r"^(no )?speed ",
        DISRUPTIVE,
        "the link re-trains at the new speed: the port goes down and up",
        _UNDOCUMENTED,
        within=_IF,
    ),
    ImpactRule(
        r"^(no )?mtu ",
        DISRUPTIVE,
        "EOS does not document whether an MTU change keeps the link up or re-sizes the "
        "port's headroom: treated as disruptive",
        _UNDOCUMENTED,
        within=_IF,
    ),
    ImpactRule(
        r"^(no )?(service-profile|priority-flow-control) ",
        DISRUPTIVE,
        "changes the port's PFC no-drop priorities and queue settings at once" + PFC_DISAGREE,
        _UNDOCUMENTED,
        link=True,
        within=_IF,
    ),
    ImpactRule(
        r"^(no )?qos trust ",
        HITLESS,
        "re-classifies by DSCP; " + _MAPS,
        _UNDOCUMENTED,
        link=True,
        within=f"{_IF}|{_PROFILE}",
    ),
    ImpactRule(
        r"^(no )?(uc-)?tx-queue |^(no )?(priority|bandwidth)|^(no )?random-detect",
        HITLESS,
        "a stale per-port queue setting: scheduling or ECN marking, no buffer change",
        _UNDOCUMENTED,
        within=_IF,
    ),
    ImpactRule(
        r"^(no )?priority-flow-control pause watchdog",
        HITLESS,
        "PFC watchdog on the profile's ports; it only watches queues",
        _UNDOCUMENTED,
        within=_PROFILE,
    ),
    ImpactRule(
        r"^(no )?priority-flow-control ",
        DISRUPTIVE,
        "changes which priorities every port with this QoS profile pauses and honours (their "
        "no-drop buffers)" + PFC_DISAGREE,
        _UNDOCUMENTED,
        link=True,
        within=_PROFILE,
    ),
    ImpactRule(
        r"^(no )?random-detect ecn",
        HITLESS,
        "ECN marking thresholds: no buffer, PFC or link change",
        _UNDOCUMENTED,
        within=_PROFILE,
    ),
    ImpactRule(
        r"^(no )?(priority|bandwidth)|^(no )?(uc-)?tx-queue ",
        HITLESS,
        "egress scheduling (strict priority, bandwidth share): no buffer, PFC or link change",
        _UNDOCUMENTED,
        within=_PROFILE,
    ),
    ImpactRule(
        r"^(no )?qos profile ",
        DISRUPTIVE,
        "adds or removes a whole QoS profile (the PFC and queues of its ports)" + PFC_DISAGREE,
        _UNDOCUMENTED,
        link=True,
    ),
    ImpactRule(
        r"^(no )?qos map ",
        HITLESS,
        "DSCP and traffic-class maps; " + _MAPS,
        f"{_UNDOCUMENTED}, docs/reference/physics.md 4 rule 12",
        link=True,
    ),
    ImpactRule(
        r"^(no )?priority-flow-control pause watchdog",
        HITLESS,
        "PFC watchdog timers and action; the watchdog only watches queues",
        _UNDOCUMENTED,
    ),
    ImpactRule(
        r"^(no )?platform trident mmu queue profile",
        DISRUPTIVE,
        "re-carves the ingress headroom of every port using the MMU profile (a buffer "
        "re-allocation)",
        _UNDOCUMENTED,
    ),
    rehash(r"^(no )?ip load-sharing "),
    ImpactRule(
        r"^(no )?hardware counter feature ecn",
        HITLESS,
        "an ECN counter: no forwarding change",
        _UNDOCUMENTED,
    ),
)
