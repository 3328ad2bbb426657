"""NX-OS offline diff: hier_config remediation lines for the part of the config lossless
owns, and what committing each does to traffic (IMPACT)."""

from __future__ import annotations

from lossless.vendors.impact import (
    DISRUPTIVE,
    HITLESS,
    PFC_DISAGREE,
    ImpactRule,
    description,
    rehash,
)

# Whole QoS domains lossless owns on NX-OS; other sections (its policy-maps and class-maps)
# only when the intended config has them. `system jumbomtu` is not one: it is switch-wide, the
# MTU every switchport lossless does not own depends on (an L2 port takes only 1500 or the
# jumbo MTU, render.py [L2MTU]); lossless never renders it, so a diff never lowers (or resets)
# it.
OWNED_SECTIONS = ("priority-flow-control ", "ip load-sharing ", "system qos")
OWNED_INTERFACE_LINES = (
    "mtu ",
    "description ",
    "priority-flow-control ",
    "service-policy type qos ",
    "service-policy type queuing ",
)
# A port the inventory says is routed is rendered `no switchport`. Only this exact line is
# owned, and only on the ports lossless routes: a port the inventory does not route keeps the
# mode the switch has it in (issue 39), so a running `no switchport` there is never undone.
# A switchport's own lines (`switchport access vlan ...`) are never owned.
ROUTED = "no switchport"


def diff(running: str, intended: str) -> list[str]:
    """NX-OS remediation lines (hier_config) for the lossless-owned part of the config. A running
    config that repeats a section (`interface X` twice) is merged first, as NX-OS reads it."""
    from hier_config import Platform

    from lossless.vendors.cli_tree import merged_text, parse_tree
    from lossless.vendors.nxos.parse import REPEATABLE
    from lossless.vendors.remediation import cli_remediation

    merged = merged_text(parse_tree(running, repeatable=REPEATABLE), indent="  ")
    return cli_remediation(
        Platform.CISCO_NXOS,
        _routed_only_where_intended(merged, _routed_ports(intended)),
        intended,
        lambda text: text.startswith(OWNED_SECTIONS),
        lambda line: line.startswith(OWNED_INTERFACE_LINES) or line == ROUTED,
    )


def _routed_ports(config: str) -> set[str]:
    """The interfaces a config of ours renders `no switchport`."""
    routed, interface = set(), None
    for line in config.splitlines():
        if line.startswith("interface "):
            interface = line
        elif line.strip() == ROUTED and interface:
            routed.add(interface)
    return routed


def _routed_only_where_intended(running: str, routed: set[str]) -> str:
    """The running config without its `no switchport` lines on the interfaces lossless does not
    route: their mode is the switch's, not a difference to remediate."""
    kept, interface = [], None
    for line in running.splitlines():
        if not line.startswith(" "):
            interface = line if line.startswith("interface ") else None
        elif line.strip() == ROUTED and interface not in routed:
            continue
        kept.append(line)
    return "\n".join(kept) + "\n"


# -- change impact (`lossless diff`: docs/change-impact.md) -------------------------------------
# What committing each remediation line does to traffic (docs/reference/vendors.md 11b): PFC on
# a port is set in both directions at once and does not flap it; on 9300-GX no-drop buffers
# are allocated when it turns on; the network-qos policy (no-drop classes, class MTU) carves
# the ingress buffer and is treated as disruptive. Rules see the line; `within` matches one of
# the sections it is in.
_IF = r"^interface (?P<port>\S+)"
_PFC_GUIDE = "docs/reference/vendors.md 11b item {} [SRC]"
_UNDOCUMENTED = "docs/reference/vendors.md 11b [UNV]"
_MAPS = "the qos-group RoCE lands in must match the link peer's"
IMPACT = (
    description(r"^(no )?description", within=_IF),
    ImpactRule(
        r"^no switchport$",
        DISRUPTIVE,
        "makes a switchport a routed port (the inventory says it is routed): its VLAN "
        "membership and Layer 2 settings go",
        "lossless/vendors/nxos/render.py [L2MTU], " + _UNDOCUMENTED,
        within=_IF,
    ),
    ImpactRule(
        r"^(no )?mtu ",
        DISRUPTIVE,
        "NX-OS does not document whether an interface MTU change keeps the link up: treated "
        "as disruptive",
        _UNDOCUMENTED,
        within=_IF,
    ),
    ImpactRule(
        r"^(no )?priority-flow-control watch-dog",
        HITLESS,
        "the port's PFC watchdog; it only watches no-drop queues",
        _UNDOCUMENTED,
        within=_IF,
    ),
    ImpactRule(
        r"^(no )?priority-flow-control mode",
        DISRUPTIVE,
        "turns PFC on or off on the port in both directions at once (no port flap; 9300-GX "
        "allocates or frees its no-drop buffers)" + PFC_DISAGREE,
        f"{_PFC_GUIDE.format(1)}, {_PFC_GUIDE.format(2)}, {_PFC_GUIDE.format(3)}",
        link=True,
        within=_IF,
    ),
    ImpactRule(
        r"^(no )?service-policy type qos ",
        HITLESS,
        "the port's DSCP classification; " + _MAPS,
        f"{_UNDOCUMENTED}, docs/reference/physics.md 4 rule 12",
        link=True,
        within=_IF,
    ),
    ImpactRule(
        r"^(no )?service-policy type queuing output",
        HITLESS,
        "the port's egress scheduling and ECN marking: no buffer, PFC or link change",
        _UNDOCUMENTED,
        within=_IF,
    ),
    ImpactRule(
        r"pause pfc-cos",
        DISRUPTIVE,
        "changes the system's no-drop classes: which priorities every PFC port pauses and "
        "honours, and the ingress buffer carved for them" + PFC_DISAGREE,
        f"{_PFC_GUIDE.format(2)}, {_PFC_GUIDE.format(3)}, {_UNDOCUMENTED}",
        link=True,
        within=r"^policy-map type network-qos ",
    ),
    ImpactRule(
        r"",
        DISRUPTIVE,
        "the network-qos policy (class MTU, no-drop classes) carves the ingress buffer of "
        "every port",
        f"docs/reference/vendors.md 2c [SRC], {_UNDOCUMENTED}",
        within=r"^policy-map type network-qos ",
    ),
    ImpactRule(
        r"^(no )?policy-map type network-qos ",
        DISRUPTIVE,
        "adds or removes a network-qos policy (no-drop classes, class MTU)" + PFC_DISAGREE,
        f"docs/reference/vendors.md 2c [SRC], {_UNDOCUMENTED}",
        link=True,
    ),
    ImpactRule(
        r"^(no )?service-policy type network-qos ",
        DISRUPTIVE,
        "attaches another network-qos policy to the system: no-drop classes and buffer "
        "carving of every port change" + PFC_DISAGREE,
        f"docs/reference/vendors.md 2c [SRC], {_UNDOCUMENTED}",
        link=True,
        within=r"^system qos",
    ),
    ImpactRule(
        r"pause buffer-size|^(no )?service-policy type queuing input",
        DISRUPTIVE,
        "the ingress PFC headroom (pause buffer and thresholds) of the no-drop class: a "
        "buffer re-allocation",
        "docs/reference/vendors.md 2c [2ND], " + _UNDOCUMENTED,
    ),
    ImpactRule(
        r"^(no )?service-policy type queuing output",
        HITLESS,
        "the system's egress scheduling and ECN marking: no buffer, PFC or link change",
        _UNDOCUMENTED,
        within=r"^system qos",
    ),
    ImpactRule(
        r"^(no )?(random-detect|bandwidth|priority level)",
        HITLESS,
        "egress scheduling or ECN marking thresholds: no buffer, PFC or link change",
        _UNDOCUMENTED,
        within=r"^policy-map type queuing ",
    ),
    ImpactRule(
        r"",
        HITLESS,
        "DSCP classification into qos-groups; " + _MAPS,
        f"{_UNDOCUMENTED}, docs/reference/physics.md 4 rule 12",
        link=True,
        within=r"^(class-map|policy-map) type qos ",
    ),
    ImpactRule(
        r"^(no )?(class-map|policy-map) type qos ",
        HITLESS,
        "adds or removes a DSCP classification; " + _MAPS,
        f"{_UNDOCUMENTED}, docs/reference/physics.md 4 rule 12",
        link=True,
    ),
    ImpactRule(
        r"^(no )?priority-flow-control (watch-dog|auto-restore|fixed-restore)",
        HITLESS,
        "PFC watchdog timers; the watchdog only watches no-drop queues",
        _UNDOCUMENTED,
    ),
    rehash(r"^(no )?ip load-sharing "),
    ImpactRule(
        r"^(no )?system jumbomtu ",
        HITLESS,
        "the largest MTU an interface may take; no interface changes with it",
        _UNDOCUMENTED,
    ),
)
