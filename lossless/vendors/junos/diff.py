"""Junos offline diff: the `delete`/`set` statements that take a running config (brace or
`set` format) to ours, over what lossless owns only, and what committing each does to traffic
(IMPACT)."""

from __future__ import annotations

from lossless.vendors.impact import (
    DISRUPTIVE,
    HITLESS,
    PFC_DISAGREE,
    ImpactRule,
    description,
    rehash,
)
from lossless.vendors.junos.statements import Statement, read

# Which part of a statement names the object lossless owns: a running statement is ours when
# it starts with the owned prefix of one of our statements (or an ALWAYS_OWNED prefix).
_OWNED_DEPTH = {
    "classifiers": 4,  # class-of-service classifiers dscp ROCE_DSCP
    "forwarding-classes": 4,  # class-of-service forwarding-classes class NO-LOSS
    "drop-profiles": 3,
    "congestion-notification-profile": 3,
    "scheduler-maps": 3,
    "schedulers": 3,
    "shared-buffer": 5,  # class-of-service shared-buffer ingress buffer-partition lossless
}
ALWAYS_OWNED = (("forwarding-options", "enhanced-hash-key", "inet"),)
_SINGLE_VALUE = {
    "mtu",
    "description",
    "percent",
    "seed-value",
    "cable-length",
    "poll-interval",
    "detection",
    "recovery",
    "priority",
    "scheduler-map",
    "congestion-notification-profile",
    "dscp",
}


def _owned_prefix(words: tuple[str, ...]) -> tuple[str, ...]:
    if words[0] == "class-of-service":
        if words[1] == "interfaces":
            return words[:-1]  # one setting of our port, not the port's whole CoS
        return words[: _OWNED_DEPTH.get(words[1], 3)]
    return words[:3]  # interfaces PORT mtu, forwarding-options enhanced-hash-key hash-seed


def _effective(statements: list[Statement]) -> set[tuple[str, ...]]:
    """Statements as the switch holds them: of a single-value leaf stated twice (a repeated
    section), the last one."""
    last: dict[tuple[str, ...], tuple[str, ...]] = {}
    for s in statements:
        words = s.words
        key = words[:-1] if len(words) > 1 and words[-2] in _SINGLE_VALUE else words
        last[key] = words
    return set(last.values())


def diff(running: str, intended: str) -> list[str]:
    """Junos `delete`/`set` commands that take the running config to ours, for what lossless
    owns only: our classifier, classes, profiles, schedulers and buffer partitions, the CoS
    settings and the MTU and description of our ports, the hash seed and fields. Everything
    else in the running config (other classes, rewrite rules, routing) is left alone. A
    `delete` comes first; a single-value leaf that is set again is not deleted."""
    have = _effective(read(running, "running config").statements)
    want = _effective(read(intended, "intended config").statements)
    owned = {_owned_prefix(words) for words in want} | set(ALWAYS_OWNED)

    def ours(words: tuple[str, ...]) -> bool:
        return any(words[:k] in owned for k in range(1, len(words) + 1))

    replaced = {w[:-1] for w in want if len(w) > 1 and w[-2] in _SINGLE_VALUE}
    deletes = sorted(
        " ".join(("delete", *w)) for w in have - want if ours(w) and w[:-1] not in replaced
    )
    sets = sorted(" ".join(("set", *w)) for w in want - have)
    return deletes + sets


# -- change impact (`lossless diff`: docs/change-impact.md) -------------------------------------
# What committing each `set`/`delete` statement does to traffic (docs/reference/vendors.md
# 11c): a congestion-notification profile change blocks its ports until it is done, a
# shared-buffer change stops traffic on every port, an MTU change deletes and re-adds the
# interface. Rules see the statement.
_STATEMENT = r"^(?:set|delete) "
_COS = _STATEMENT + r"class-of-service "
_JUNOS = "docs/reference/vendors.md 11c item {} [SRC]"
_MAPS = "the class and queue RoCE lands in must match the link peer's"
_UNDOCUMENTED = "docs/reference/vendors.md 11c [UNV]"
IMPACT = (
    ImpactRule(
        _COS + r"shared-buffer",
        DISRUPTIVE,
        "re-programs the shared buffer: traffic stops on all ports until it is done",
        _JUNOS.format(2),
    ),
    ImpactRule(
        _COS + r"congestion-notification-profile \S+ pfc-watchdog",
        DISRUPTIVE,
        "the PFC watchdog lives in the congestion-notification profile; whether changing it "
        "re-applies the profile (which blocks its ports) is not documented: treated as "
        "disruptive",
        f"{_JUNOS.format(1)}, {_UNDOCUMENTED}",
    ),
    ImpactRule(
        _COS + r"congestion-notification-profile ",
        DISRUPTIVE,
        "changes PFC on the profile's ports: each port is blocked (all queues drop) until the "
        "change is done" + PFC_DISAGREE,
        _JUNOS.format(1),
        link=True,
    ),
    ImpactRule(
        _COS + r"interfaces (?P<port>\S+) congestion-notification-profile",
        DISRUPTIVE,
        "changes PFC on the port: it is blocked (all queues drop) until the change is done"
        + PFC_DISAGREE,
        _JUNOS.format(1),
        link=True,
    ),
    ImpactRule(
        _COS + r"forwarding-classes ",
        DISRUPTIVE,
        "changes which queue is lossless (no-loss) and the priority its pause frames carry"
        + PFC_DISAGREE,
        f"{_JUNOS.format(4)}, {_UNDOCUMENTED}",
        link=True,
    ),
    ImpactRule(
        _COS + r"(?:classifiers |interfaces (?P<port>\S+) unit \S+ classifiers)",
        HITLESS,
        "DSCP classification into forwarding classes; " + _MAPS,
        f"{_UNDOCUMENTED}, docs/reference/physics.md 4 rule 12",
        link=True,
    ),
    ImpactRule(
        _COS + r"(?:drop-profiles |schedulers |scheduler-maps |interfaces \S+ scheduler-map)",
        HITLESS,
        "ECN fill levels and egress scheduling: no buffer, PFC or link change",
        _UNDOCUMENTED,
    ),
    ImpactRule(
        _STATEMENT + r"interfaces (?P<port>\S+) mtu ",
        DISRUPTIVE,
        "the interface is deleted and added again: its link goes down and up",
        _JUNOS.format(3),
    ),
    description(_STATEMENT + r"interfaces (?P<port>\S+) description "),
    rehash(_STATEMENT + r"forwarding-options (?:enhanced-hash-key|hash-key)"),
)
