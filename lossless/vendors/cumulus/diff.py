"""Cumulus NVUE offline diff (`lossless diff --running`): the `nv set`/`nv unset` commands
that take a running NVUE config (YAML or a command list) to the rendered fragment, over what
lossless owns only; and what applying each does to traffic (IMPACT).

The commands are in the words of the release the running config is in (5.15 renamed NVUE's
on/off words, render.py `Words`): its `- header:` `version: Cumulus Linux 5.11.0`, else the
words it uses itself, else those of the fragment. Both configs are compared in those words,
so `qos roce enable on` and `qos roce state enabled` are the same setting."""

from __future__ import annotations

import re
import shlex
from typing import Any

from lossless.errors import InputError, Problem
from lossless.vendors.cumulus.parse import parse_config
from lossless.vendors.cumulus.read import NvueConfig, Path, read_nvue
from lossless.vendors.cumulus.render import (
    ENABLED_DISABLED,
    HASH_SEED_NOTE,
    NEWEST,
    ON_OFF,
    PROFILE,
    Words,
    in_words,
    release,
    release_words,
    unsupported,
)
from lossless.vendors.impact import (
    DISRUPTIVE,
    HITLESS,
    PFC_DISAGREE,
    ImpactRule,
    description,
)

# -- offline diff (`lossless diff --running`) ---------------------------------------------------


def _leaves(tree: Any, path: Path = ()) -> dict[Path, Any]:
    """Every leaf of an NVUE tree by path; an empty mapping is a leaf (`'3': {}`). Values are
    compared as text: YAML says `mtu: 9100`, a command list `link mtu 9100`."""
    if isinstance(tree, dict) and tree:
        leaves: dict[Path, Any] = {}
        for key, value in tree.items():
            leaves.update(_leaves(value, (*path, str(key))))
        return leaves
    if isinstance(tree, bool):
        return {path: "on" if tree else "off"}
    return {path: tree if isinstance(tree, dict) or tree is None else str(tree)}


def _owned_prefixes(intended: NvueConfig) -> list[Path]:
    """What lossless owns on the switch: the QoS objects and values it renders, the QoS,
    description, MTU and speed of its ports, and the ECMP seed and fields. Everything else
    (other profiles, traffic pools, lossy ECN classes, addresses, BGP) is the switch's."""
    qos = intended.mapping(("qos",))
    owned: list[Path] = [
        ("qos", "roce"),
        ("qos", "mapping", PROFILE, "trust"),
        ("qos", "mapping", PROFILE, "dscp"),
        ("qos", "egress-queue-mapping", PROFILE),
        ("qos", "egress-scheduler", PROFILE),
        ("qos", "pfc-watchdog"),
        ("system", "forwarding", "hash-seed"),
        ("system", "forwarding", "ecmp-hash"),
    ]
    owned += [("qos", "pfc", name) for name in qos.get("pfc", {})]
    congestion = ("qos", "congestion-control", PROFILE, "traffic-class")
    owned += [(*congestion, tc) for tc in intended.mapping(congestion)]
    for name in intended.mapping(("interface",)):
        port = ("interface", name)
        owned += [(*port, "description"), (*port, "link", "mtu"), (*port, "link", "speed")]
        owned.append((*port, "qos"))
    return owned


def _command(verb: str, path: Path, value: Any = None) -> str:
    """One `nv` command, each word shell-quoted so the line pastes as it is."""
    words = ["nv", verb, *path]
    if value is not None and value != {}:
        words.append(str(value))
    line = " ".join(shlex.quote(word) for word in words)
    if path == ("system", "forwarding", "hash-seed"):
        line += HASH_SEED_NOTE
    return line


# `- header:` ... `version: Cumulus Linux 5.11.0`, as `nv config show -o yaml` writes it
_HEADER = re.compile(r"-\s+header:\s*(?:#.*)?")
_VERSION = re.compile(r"(\s+version:\s*)(['\"]?)Cumulus Linux ([^\s'\"]{1,32})\2\s*(?:#.*)?")


def header_release(text: str, file: str) -> Words | None:
    """The words of the release a YAML config's header names, None if it names none; a
    release lossless does not write NVUE for is bad input at the header's line."""
    in_header = False
    for number, line in enumerate(text.splitlines(), 1):
        if line.startswith("-"):
            if in_header:
                return None
            in_header = _HEADER.fullmatch(line) is not None
            continue
        match = _VERSION.fullmatch(line) if in_header else None
        if match is not None:
            known = release(match[3])
            if known is None:
                column = len(match[1]) + len(match[2]) + 1
                problem = Problem(file, number, column, "header.version", unsupported(match[3]))
                raise InputError([problem])
            return release_words(known)
    return None


def _words_used(tree: dict[str, Any]) -> Words | None:
    """The words a config uses for what 5.15 renamed, None if it says none of them."""
    qos = tree.get("qos")
    roce = qos.get("roce") if isinstance(qos, dict) else None
    if isinstance(roce, dict) and ("state" in roce or "enable" in roce):
        return ENABLED_DISABLED if "state" in roce else ON_OFF
    system = tree.get("system")
    forwarding = system.get("forwarding") if isinstance(system, dict) else None
    hashes = forwarding.get("ecmp-hash") if isinstance(forwarding, dict) else None
    values = set(hashes.values()) if isinstance(hashes, dict) else set()
    if values & {"enabled", "disabled"}:
        return ENABLED_DISABLED
    if values & {"on", "off", True, False}:
        return ON_OFF
    return None


def running_words(have: NvueConfig, running: str, want: NvueConfig) -> Words:
    """The release words the commands for a running config use: its header's release, else
    the words it uses, else the fragment's, else the newest release's."""
    header = None if have.commands else header_release(running, have.file)
    return header or _words_used(have.tree) or _words_used(want.tree) or release_words(NEWEST)


def diff(running: str, intended: str, running_file: str = "running") -> list[str]:
    """`nv unset` / `nv set` commands taking a running NVUE config (YAML or a command list,
    read like any config: bad shapes are bad input) to the intended fragment, over what
    lossless owns, in the words of the running config's release; nothing the switch owns is
    ever unset."""
    want_config = read_nvue(intended, "intended")
    have_config = read_nvue(running, running_file)
    parse_config(have_config, "running")  # what it says must have NVUE's shapes
    words = running_words(have_config, running, want_config)
    owned = _owned_prefixes(want_config)

    def ours(path: Path) -> bool:
        return any(path[: len(prefix)] == prefix for prefix in owned)

    wanted = {p: v for p, v in _leaves(in_words(want_config.tree, words)).items() if ours(p)}
    have = {p: v for p, v in _leaves(in_words(have_config.tree, words)).items() if ours(p)}
    parents = {path[:depth] for path in wanted for depth in range(1, len(path))}
    commands = [
        _command("unset", path)
        for path in sorted(have)
        if path not in wanted and not (have[path] == {} and path in parents)
    ]
    commands += [
        _command("set", path, value)
        for path, value in wanted.items()
        if have.get(path, object()) != value
    ]
    return commands


# -- change impact (`lossless diff`: docs/change-impact.md) -------------------------------------
# What `nv config apply` of each command does to traffic (docs/reference/vendors.md 11d): NVUE
# reloads switchd for QoS, which is hitless except where the ASIC buffer changes (PFC, pause,
# RoCE pools); the hash seed restarts switchd. Rules see the `nv set`/`nv unset` line.
_NV = r"^nv (?:set|unset) "
_PORT = _NV + r"interface (?P<port>\S+) "
_RELOAD = "docs/reference/vendors.md 11d item 1 [SRC]"
_BUFFER_CHANGE = (
    "NVUE reloads switchd and the ASIC buffer is modified: 'might result in momentary packet loss'"
)
IMPACT = (
    ImpactRule(
        _NV + r"system forwarding hash-seed",
        DISRUPTIVE,
        "restarts switchd: every port on the switch resets and forwarding stops until it is back",
        "docs/reference/vendors.md 11d item 2 [SRC]",
    ),
    ImpactRule(
        _NV + r"system forwarding ecmp-hash",
        DISRUPTIVE,
        "ECMP rehash: established flows move to other next hops (reordering and RoCE "
        "retransmissions); the reload itself does not interrupt traffic",
        "docs/reference/vendors.md 11d item 3 [SRC]",
    ),
    ImpactRule(
        _NV + r"qos roce",
        DISRUPTIVE,
        "RoCE mode sets PFC on the RoCE priority and its lossless buffer pool: "
        + _BUFFER_CHANGE
        + PFC_DISAGREE,
        f"docs/reference/vendors.md 11d item 4 [SRC], {_RELOAD}",
        link=True,
    ),
    ImpactRule(
        _NV + r"qos pfc-watchdog",
        HITLESS,
        "PFC watchdog polling: switchd reloads without touching forwarding",
        _RELOAD,
    ),
    ImpactRule(
        _PORT + r"qos pfc-watchdog",
        HITLESS,
        "turns the port's PFC watchdog on or off: switchd reloads without touching forwarding",
        _RELOAD,
    ),
    ImpactRule(
        _NV + r"qos pfc \S+ (?:switch-priority|rx|tx)(?: |$)",
        DISRUPTIVE,
        "changes which priorities the ports of this PFC profile pause and honour: "
        + _BUFFER_CHANGE
        + PFC_DISAGREE,
        _RELOAD,
        link=True,
    ),
    ImpactRule(
        _NV + r"qos pfc ",
        DISRUPTIVE,
        "re-sizes the PFC headroom of the ports of this profile: " + _BUFFER_CHANGE,
        _RELOAD,
    ),
    ImpactRule(
        _PORT + r"qos pfc",
        DISRUPTIVE,
        "binds the port to another PFC profile (priorities and headroom): "
        + _BUFFER_CHANGE
        + PFC_DISAGREE,
        _RELOAD,
        link=True,
    ),
    ImpactRule(
        _NV + r"qos (?:mapping|egress-queue-mapping)",
        HITLESS,
        "DSCP trust and priority maps: switchd reloads without touching forwarding; the "
        "priority and traffic class RoCE uses must match the link peer's",
        f"{_RELOAD}, docs/reference/physics.md 4 rule 12",
        link=True,
    ),
    ImpactRule(
        _NV + r"qos (?:congestion-control|egress-scheduler)",
        HITLESS,
        "ECN thresholds and egress scheduling: switchd reloads without touching forwarding",
        _RELOAD,
    ),
    description(_PORT + r"description"),
    ImpactRule(
        _PORT + r"type ",
        HITLESS,
        "declares the port a switch port, which a running port already is",
        "docs/change-impact.md",
    ),
    ImpactRule(
        _PORT + r"link speed",
        DISRUPTIVE,
        "the link re-trains at the new speed: the port goes down and up",
        "docs/change-impact.md",
    ),
    ImpactRule(
        _PORT + r"link mtu",
        DISRUPTIVE,
        "Spectrum sizes a lossless port's headroom from its MTU (docs/reference/sonic.md 6 "
        "item 2 on the same ASICs), an ASIC buffer change; whether the link stays up is not "
        "documented [UNV]",
        _RELOAD,
    ),
)
