"""The report's view model: everything `lossless report` shows, worked out from the plan, the
lint findings and the oversubscription, as text and chart geometry the templates only place.
The fabric's part is here (summary cards, tiers, links, topology, findings); each switch's
is in device_view.py. `ReportView.data` holds the same numbers as JSON, embedded in the page
for tools.
"""

from __future__ import annotations

import dataclasses
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from lossless import __version__
from lossless.lint.catalogue import registered_rules
from lossless.lint.registry import Finding
from lossless.lint.report import records
from lossless.lint.runner import LintResult, Suppressed, affected
from lossless.model import Inventory
from lossless.plan import FabricPlan
from lossless.planner.oversubscription import SERVER, FabricBandwidth, fabric_bandwidth, tier_of
from lossless.report import charts
from lossless.report.device_view import (
    DeviceView,
    bandwidth_text,
    device_view,
    ratio_text,
)
from lossless.report.names import name_ranges, names_text
from lossless.report.simulation_view import Simulations, simulations
from lossless.text.grammar import plural
from lossless.text.units import format_speed

RULES = registered_rules()  # every rule, by ID

# Findings listed per rule before "and N more" (the counts stay whole).
FINDINGS_SHOWN = 200
# Lines of switches in the Markdown: a pull-request comment holds 65,536 characters.
MARKDOWN_LINES = 60
STATUS_TEXT = {"ok": "ok", "warn": "check", "bad": "FAIL"}
ROLES = {"leaf": "leaves", SERVER: "servers"}  # plural forms plural() would get wrong


def _count(count: int, role: str) -> str:
    return plural(count, role, ROLES.get(role))


@dataclass(frozen=True)
class Card:
    title: str
    value: str
    detail: str
    status: str
    link: str = ""


@dataclass(frozen=True)
class TierRow:
    role: str
    devices: str
    count: int
    down: str
    up: str
    lateral: str
    ratio: str


@dataclass(frozen=True)
class LinkRow:
    between: str
    speed: str
    links: int
    bandwidth: str
    cables: str


@dataclass(frozen=True)
class FindingItem:
    source: str
    where: str
    message: str


@dataclass(frozen=True)
class RuleGroup:
    rule: str
    name: str
    severity: str
    explanation: str
    count: int
    items: list[FindingItem]
    more: int
    status: str  # the badge: bad for errors, warn for warnings


@dataclass(frozen=True)
class DeviceGroup:
    """Devices whose summary reads the same, as one line of the Markdown summary."""

    names: str
    count: int
    cells: list[str]


@dataclass
class ReportView:
    fabric: str
    description: str
    inventory: str
    version: str
    scope: str
    cards: list[Card]
    devices: list[DeviceView]
    device_groups: list[DeviceGroup]  # the Markdown's switch lines, at most MARKDOWN_LINES
    more_devices: int  # switches in groups past MARKDOWN_LINES (in index.html only)
    tiers: list[TierRow]
    links: list[LinkRow]
    diagram: charts.Diagram
    rule_groups: list[RuleGroup]
    errors: int
    warnings: int
    suppressed: int
    lint_summary: str  # "2 errors, 1 warning, 3 suppressed in the inventory"
    open_devices: bool  # small fabrics show every device section open
    data: dict[str, Any] = field(repr=False)


def build_report(
    inventory: Inventory,
    plan: FabricPlan,
    lint: LintResult,
    shown: list[str] | None = None,
    simulate_s: float | None = None,
) -> ReportView:
    """The report of the devices `shown` (default: all of the plan): their sections, and the
    findings about them or about the whole fabric (a deadlock cycle, say); with simulate_s,
    each one's worst port simulated for that long (report/simulation_view.py)."""
    names = list(plan.devices) if shown is None else shown
    if shown is not None:
        kept = set(shown)
        lint = LintResult(
            [f for f in lint.findings if f.device is None or f.device in kept],
            _suppressed_on(lint.suppressed, kept),
            lint.rules,
        )
    bandwidth = fabric_bandwidth(plan, names)
    anchors = _anchors(names)
    # Every finding counts against each device it affects: its own, or those a fabric-wide
    # one names (a cause on the ports of several switches, the switches on a deadlock cycle)
    per_device: Counter[str] = Counter()
    failing: set[str] = set()
    for f in lint.findings:
        devices_of = affected(f)
        per_device.update(devices_of)
        if f.severity == "error":
            failing.update(devices_of)
    devices = [
        device_view(
            plan,
            plan.devices[name],
            inventory.devices[name].description if name in inventory.devices else "",
            anchors[name],
            bandwidth.devices[name],
            per_device[name],
            name in failing,
        )
        for name in names
    ]
    runs = None if simulate_s is None else simulations(plan, names, simulate_s)
    if runs is not None:
        for d in devices:
            d.simulation = runs.views.get(d.name)
            d.simulation_note = runs.notes.get(d.name, "")
            if d.simulation is not None:
                d.data["simulation"] = d.simulation.data
    counts = Counter(f.severity for f in lint.findings)
    groups = _device_groups(devices)
    scope = (
        f"{plural(len(names), 'switch', 'switches')} of {len(inventory.devices)}: "
        f"{names_text(names)}"
        if len(names) < len(inventory.devices)
        else f"all {plural(len(names), 'switch', 'switches')}"
    )
    view = ReportView(
        fabric=plan.name,
        description=inventory.fabric_description,
        inventory=plan.inventory,
        version=__version__,
        scope=scope,
        cards=_cards(devices, plan, bandwidth, counts, len(lint.suppressed))
        + ([_simulation_card(devices, runs)] if runs is not None else []),
        devices=devices,
        device_groups=groups[:MARKDOWN_LINES],
        more_devices=sum(g.count for g in groups[MARKDOWN_LINES:]),
        tiers=_tier_rows(bandwidth),
        links=_link_rows(bandwidth),
        diagram=_diagram(plan, bandwidth, names),
        rule_groups=_rule_groups(lint.findings),
        errors=counts["error"],
        warnings=counts["warning"],
        suppressed=len(lint.suppressed),
        lint_summary=_lint_summary(counts, len(lint.suppressed)),
        open_devices=len(devices) <= 12,
        data={},
    )
    view.data = {
        "fabric": plan.name,
        "inventory": plan.inventory,
        "lossless": __version__,
        "devices": {d.name: d.data for d in devices},
        "tiers": [
            {
                "role": t.role,
                "devices": t.devices,
                "down": dataclasses.asdict(t.down),
                "up": dataclasses.asdict(t.up),
                "lateral": dataclasses.asdict(t.lateral),
                "oversubscription": t.oversubscription,
            }
            for t in bandwidth.tiers
        ],
        "findings": records(lint.findings),
        "suppressed": len(lint.suppressed),
    }
    return view


def _suppressed_on(suppressed: list[Suppressed], kept: set[str]) -> list[Suppressed]:
    """What lint_ignore skipped on the devices kept, or fabric-wide."""
    entries = []
    for entry in suppressed:
        findings = tuple(f for f in entry.findings if f.device is None or f.device in kept)
        if findings:
            entries.append(dataclasses.replace(entry, findings=findings))
    return entries


def _anchors(names: list[str]) -> dict[str, str]:
    """HTML ids for the device sections: readable, unique, safe."""
    anchors: dict[str, str] = {}
    used: set[str] = set()
    for name in names:
        anchor = "device-" + re.sub(r"[^A-Za-z0-9_-]", "-", name)
        while anchor in used:
            anchor += "-"
        used.add(anchor)
        anchors[name] = anchor
    return anchors


def _cards(
    devices: list[DeviceView],
    plan: FabricPlan,
    bandwidth: FabricBandwidth,
    counts: Counter,
    suppressed: int,
) -> list[Card]:
    roles = Counter(d.role for d in devices)
    servers = sorted({n for n, r in bandwidth.roles.items() if r == SERVER})
    by_role = ", ".join(
        _count(count, role) for role, count in sorted(roles.items(), key=lambda i: -_tier(i[0]))
    )
    cards = [
        Card(
            "switches",
            str(len(devices)),
            f"{by_role}; {plural(len(servers), 'server')}, "
            f"{plural(sum(g.links for g in bandwidth.links), 'link')}",
            "ok",
            "#topology",
        ),
    ]
    budgets = [
        (d, plan.devices[d.name].budget)
        for d in devices
        if plan.devices[d.name].budget.utilisation_percent is not None
    ]
    if budgets:
        view, worst = max(budgets, key=lambda item: item[1].utilisation_percent or 0)
        cards.append(
            Card(
                "worst buffer use",
                f"{worst.utilisation_percent:g} %",
                f"{view.name}: {worst.total_headroom_bytes:,} B of headroom in "
                f"{worst.buffer_bytes:,} B",
                view.budget.status,
                f"#{view.anchor}",
            )
        )
    triggers = [
        (d, plan.devices[d.name].pfc_trigger)
        for d in devices
        if (t := plan.devices[d.name].pfc_trigger) is not None
        and t.largest_n_full_marking_before_pfc is not None
    ]
    if triggers:
        view, t = min(
            triggers,
            key=lambda item: item[1].largest_n_full_marking_before_pfc or 0,  # type: ignore[union-attr]
        )
        assert t is not None and t.largest_n_full_marking_before_pfc is not None
        breaking = [
            d.name
            for d, tr in triggers
            if tr is not None and tr.sharing_pgs > (tr.largest_n_ecn_before_pfc or 0)
        ]
        late = [
            d.name
            for d, tr in triggers
            if tr is not None and tr.sharing_pgs > (tr.largest_n_full_marking_before_pfc or 0)
        ]
        status = "bad" if breaking else "warn" if late else "ok"
        detail = (
            f"{view.name}: Kmax reaches T/f beyond {t.largest_n_full_marking_before_pfc} "
            f"congested PGs; it has n = {t.sharing_pgs}"
        )
        if breaking:
            detail += f". PFC before any ECN at the switch's own n: {names_text(breaking)}"
        elif late:
            detail += f". PFC before full ECN marking at the switch's own n: {names_text(late)}"
        cards.append(
            Card(
                "smallest n where ECN breaks",
                f"n = {t.largest_n_full_marking_before_pfc + 1}",
                detail,
                status,
                f"#{view.anchor}",
            )
        )
    cards.append(
        Card(
            "lint",
            plural(counts["error"], "error"),
            _lint_summary(counts, suppressed).partition(", ")[2],
            "bad" if counts["error"] else "warn" if counts["warning"] else "ok",
            "#findings",
        )
    )
    return cards


def _simulation_card(devices: list[DeviceView], runs: Simulations) -> Card:
    """The simulated worst ports in one line: how many mark before they pause, pause first,
    or drop, and how many distinct runs it took."""
    views = [d for d in devices if d.simulation is not None]
    dropping = [d.name for d in views if d.simulation and d.simulation.status == "bad"]
    pausing = [d.name for d in views if d.simulation and d.simulation.status == "warn"]
    detail = (
        f"each switch's worst port at its real fan-in, {runs.duration_s * 1e3:g} ms with "
        f"DCQCN ({plural(runs.runs, 'distinct run')})"
    )
    if dropping:
        detail += f"; drops: {names_text(dropping)}"
    if pausing:
        detail += f"; PFC before ECN: {names_text(pausing)}"
    if len(views) < len(devices):
        detail += f"; {len(devices) - len(views)} not simulated"
    first = next((d for d in devices if d.name in dropping + pausing), None)
    return Card(
        "simulated worst ports",
        f"{len(views) - len(dropping) - len(pausing)} of {len(views)} mark first",
        detail,
        "bad" if dropping else "warn" if pausing else "ok",
        f"#{first.anchor}-simulation" if first else "",
    )


def _lint_summary(counts: Counter, suppressed: int) -> str:
    summary = f"{plural(counts['error'], 'error')}, {plural(counts['warning'], 'warning')}"
    return summary + (f", {suppressed} suppressed in the inventory" if suppressed else "")


def _device_groups(devices: list[DeviceView]) -> list[DeviceGroup]:
    """Devices whose summary line is the same, merged (a pod's 32 leaves are one line)."""
    lines: dict[tuple[str, ...], list[str]] = {}
    for d in devices:
        cells = (
            d.role,
            f"{d.os} / {d.asic}",
            *(fact.figure.text for fact in d.overview),
            d.budget.verdict,
            d.bandwidth.ratio,
            str(d.findings),
            STATUS_TEXT[d.status],
        )
        lines.setdefault(cells, []).append(d.name)
    return [
        DeviceGroup(names_text(names), len(names), list(cells)) for cells, names in lines.items()
    ]


def _tier_rows(bandwidth: FabricBandwidth) -> list[TierRow]:
    return [
        TierRow(
            t.role,
            names_text(t.devices),
            len(t.devices),
            bandwidth_text(t.down),
            bandwidth_text(t.up),
            bandwidth_text(t.lateral),
            ratio_text(t.oversubscription),
        )
        for t in bandwidth.tiers
    ]


def _link_rows(bandwidth: FabricBandwidth) -> list[LinkRow]:
    return [
        LinkRow(
            f"{g.lower} – {g.upper}",
            format_speed(g.speed_mbps),
            g.links,
            format_speed(g.speed_mbps * g.links),
            f"{g.cable_min_m:g} m"
            if g.cable_min_m == g.cable_max_m
            else f"{g.cable_min_m:g}–{g.cable_max_m:g} m",
        )
        for g in bandwidth.links
    ]


def _diagram(plan: FabricPlan, bandwidth: FabricBandwidth, shown: list[str]) -> charts.Diagram:
    """Tiers from the top down; the servers (and switches outside --device) where linked."""
    nodes = [n for n in plan.devices if n in bandwidth.roles or n in shown]
    nodes += [n for n, r in bandwidth.roles.items() if r == SERVER]
    by_role: dict[str, list[str]] = {}
    for node in nodes:
        role = bandwidth.roles.get(node) or plan.devices[node].role
        by_role.setdefault(role, []).append(node)
    order = sorted(by_role, key=lambda r: (-(_tier(r)), r))
    rows = [
        (
            role,
            by_role[role],
            f"{_first_ranges(by_role[role])} · {_count(len(by_role[role]), role)}",
        )
        for role in order
    ]
    bundles = [(b.lower, b.upper, b.links, b.mbps) for b in bandwidth.bundles]
    return charts.topology_diagram(rows, bundles)


def _tier(role: str) -> int:
    return 0 if role == SERVER else tier_of(role)


def _first_ranges(names: list[str]) -> str:
    written = name_ranges(names)
    return written[0] if len(written) == 1 else f"{written[0]}, …"


def _rule_groups(findings: list[Finding]) -> list[RuleGroup]:
    groups: dict[tuple[int, str], list[Finding]] = {}
    for f in findings:
        groups.setdefault((0 if f.severity == "error" else 1, f.rule), []).append(f)
    result = []
    for (_, rule_id), found in sorted(groups.items()):
        rule = RULES[rule_id]
        items = [
            FindingItem(f.source, " ".join(x for x in (f.device, f.port) if x), f.message)
            for f in found[:FINDINGS_SHOWN]
        ]
        result.append(
            RuleGroup(
                rule_id,
                rule.name,
                found[0].severity,
                rule.explanation,
                len(found),
                items,
                max(0, len(found) - FINDINGS_SHOWN),
                "bad" if found[0].severity == "error" else "warn",
            )
        )
    return result
