"""What each proposed change does to traffic: hitless or disruptive, and why
(docs/change-impact.md).

A diff is a list of change units in its OS's own terms: RFC 6902 operations (SONiC), `nv
set`/`nv unset` commands (Cumulus), `set`/`delete` statements (Junos), hier_config
remediation lines (EOS, NX-OS). Each vendor module lists its OS's kinds of change in IMPACT,
an ordered tuple of ImpactRule, each citing the vendor document that says what applying it
does; the first rule that matches a unit classifies it. A unit no rule matches is disruptive:
an unknown effect is never called hitless.

A rule can also mark its change PFC-coupled (`link`): it changes which priorities a port
pauses and honours, or which priority group / queue the lossless traffic uses, so both ends
of the link must change together (deploy/order.py orders the devices for it). A rule whose
pattern names a `port` group couples only that port's link; otherwise every link of the
switch.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from jsonpointer import escape

from lossless.text.grammar import plural
from lossless.vendors.impact import DISRUPTIVE, IMPACTS, ImpactRule
from lossless.vendors.registry import vendor_for

# Why a PFC change must land on both ends of a link together (the same on every OS).
LINK_SOURCE = "docs/reference/vendors.md 11e, docs/reference/physics.md 4 rule 6"

UNCLASSIFIED = ImpactRule(
    "",
    DISRUPTIVE,
    "lossless does not know what this change does to traffic: treated as disruptive",
    "docs/change-impact.md (an unknown effect is never called hitless)",
)


@dataclass(frozen=True)
class ChangeImpact:
    """The classification of one change unit of a device's diff."""

    index: int  # position of the change in the device's list of changes
    change: str  # the unit as text (a CLI line with its sections, joined by " > ")
    impact: str
    reason: str
    source: str
    link: bool  # PFC-coupled: must land on both ends of its link together
    port: str | None  # the port whose link it couples; None: every link of the switch

    def to_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "change": self.change,
            "impact": self.impact,
            "reason": self.reason,
            "source": self.source,
            "pfc_coupled": self.link,
            **({"port": self.port} if self.port else {}),
        }


@dataclass(frozen=True)
class _Unit:
    index: int
    text: str  # what rules match and what is shown
    context: tuple[str, ...]  # enclosing CLI sections, outermost first
    leaves: tuple[str, ...]  # texts the rules see (a JSON add of a whole table: each field)


def classify(os_name: str, kind: str, changes: list[Any]) -> list[ChangeImpact]:
    """Each change unit of a device's diff with its impact, in the order of the changes."""
    rules = vendor_for(os_name).impact
    return [_classify(unit, rules) for unit in _units(kind, changes)]


def _classify(unit: _Unit, rules: tuple[ImpactRule, ...]) -> ChangeImpact:
    """The most severe classification of the unit's leaves (ties: the first)."""
    found = [_match(leaf, unit.context, rules) for leaf in unit.leaves]
    rule, port = max(found, key=lambda item: IMPACTS.index(item[0].impact))
    coupled = [item for item in found if item[0].link]
    if coupled and not rule.link:  # a hitless-but-coupled leaf under a disruptive one
        port = coupled[0][1]
    source = rule.source + (f", {LINK_SOURCE}" if coupled else "")
    return ChangeImpact(
        unit.index, unit.text, rule.impact, rule.reason, source, bool(coupled), port
    )


def _match(
    text: str, context: tuple[str, ...], rules: tuple[ImpactRule, ...]
) -> tuple[ImpactRule, str | None]:
    for rule in rules:
        found = _compiled(rule.pattern).search(text)
        if not found:
            continue
        port = found.groupdict().get("port")
        if rule.within:
            section = next(
                (m for m in (_compiled(rule.within).search(line) for line in context) if m), None
            )
            if section is None:
                continue
            port = port or section.groupdict().get("port")
        return rule, port
    return UNCLASSIFIED, None


@lru_cache(maxsize=512)
def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


# -- change units of each kind of diff ---------------------------------------------------------


def _units(kind: str, changes: list[Any]) -> Iterator[_Unit]:
    if kind == "json-patch":
        for index, op in enumerate(changes):
            text = f"{op['op']} {op['path']}"
            leaves = tuple(
                f"{op['op']} {path}" for path in _leaf_paths(op["path"], op.get("value"))
            )
            yield _Unit(index, text, (), leaves or (text,))
    elif kind == "remediation":
        yield from _tree_units(changes)
    else:  # one command per line: `nv set ...`, `set ...` / `delete ...`
        for index, line in enumerate(changes):
            yield _Unit(index, str(line), (), (str(line),))


def _leaf_paths(path: str, value: Any) -> Iterator[str]:
    """The JSON pointers of every field an `add` or `replace` of a whole table or entry sets,
    so `add /BUFFER_PG` is judged by the `/BUFFER_PG/Ethernet0|3/profile` it holds."""
    if isinstance(value, dict) and value:
        for key, item in value.items():
            yield from _leaf_paths(f"{path}/{escape(str(key))}", item)
    else:
        yield path


def _tree_units(lines: list[str]) -> Iterator[_Unit]:
    """Remediation lines (two spaces per level): every line that opens no section is a unit,
    seen with the sections it is in."""
    stack: list[tuple[int, str]] = []
    depths = [len(line) - len(line.lstrip(" ")) for line in lines]
    for index, line in enumerate(lines):
        depth = depths[index]
        while stack and stack[-1][0] >= depth:
            stack.pop()
        opens = index + 1 < len(lines) and depths[index + 1] > depth
        text = line.strip()
        if opens:
            stack.append((depth, text))
            continue
        context = tuple(section for _, section in stack)
        yield _Unit(index, " > ".join((*context, text)), context, (text,))


# -- summaries ------------------------------------------------------------------------------------


def disruptive(impacts: list[ChangeImpact]) -> list[ChangeImpact]:
    return [i for i in impacts if i.impact == DISRUPTIVE]


def label(impact: ChangeImpact) -> str:
    return impact.impact + (", PFC-coupled" if impact.link else "")


def impact_lines(impacts: list[ChangeImpact], indent: str = "    ") -> list[str]:
    """Two lines per change unit: its impact and the change, then why."""
    width = max((len(label(i)) for i in impacts), default=0)
    lines = []
    for i in impacts:
        lines.append(f"{indent}{label(i):<{width}}  {i.change}")
        lines.append(f"{indent}{'':<{width}}  {i.reason}")
    return lines


def impact_counts(per_device: dict[str, list[ChangeImpact]]) -> dict[str, int]:
    """Disruptive changes, the devices that have them, and the devices with PFC-coupled ones."""
    return {
        "disruptive_changes": sum(len(disruptive(found)) for found in per_device.values()),
        "disruptive_devices": sum(bool(disruptive(found)) for found in per_device.values()),
        "pfc_coupled_devices": sum(any(i.link for i in found) for found in per_device.values()),
    }


def impact_summary(per_device: dict[str, list[ChangeImpact]]) -> str:
    """'3 disruptive changes on 2 devices' (and the PFC-coupled devices, if any)."""
    counts = impact_counts(per_device)
    text = plural(counts["disruptive_changes"], "disruptive change")
    if counts["disruptive_changes"]:
        text += f" on {plural(counts['disruptive_devices'], 'device')}"
    if counts["pfc_coupled_devices"]:
        text += f", {plural(counts['pfc_coupled_devices'], 'device')} with PFC-coupled changes"
    return text
