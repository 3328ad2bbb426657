"""The order in which devices take their changes, so that the two ends of a link never
disagree on PFC between one step and the next (docs/change-impact.md, "The order").

PFC is set per priority on each end of a link and does two things at once on every OS lossless
renders: the end pauses its peer when its own no-drop buffer fills, and it stops sending when
its peer pauses it (docs/reference/vendors.md 11e). While the two ends disagree, pauses go to a
peer that ignores them (lossless traffic is dropped) or to a queue that holds other traffic.
No order of two single-step changes avoids that window; what an order can do is keep it to
the seconds inside one batch instead of the minutes between batches. So:

1. Devices whose diffs change PFC (ImpactRule.link) and that share a switch-to-switch link
   whose both ends change are one coupled group, pushed in one batch, never split.
2. Phases go by blast radius: hitless changes first, then disruptive devices one by one, then
   the coupled groups, smallest first; devices with nothing to change come last.
3. A coupled change whose link peer is outside the diff (not selected, no backup, no napalm
   driver) is reported: that link disagrees until the peer changes too.

Waves (`push --wave`) never take every switch of a tier (a role whose switches link to other
switches, such as all the spines) at once: a wave closes early instead, so that a change that
hurts leaves the rest of the tier carrying the traffic. Only a PFC-coupled group that holds the
whole tier forces it, and the push plan says so.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from lossless.deploy.impact import ChangeImpact
from lossless.plan import FabricPlan
from lossless.text.grammar import plural
from lossless.vendors.impact import HITLESS

UNCHANGED = "unchanged"
HITLESS_ONLY = "hitless"
DISRUPTIVE_ONLY = "disruptive"
COUPLED = "pfc-coupled"
WHY = {
    HITLESS_ONLY: "hitless changes only",
    DISRUPTIVE_ONLY: "disruptive on the device itself, no PFC change shared with a link peer",
    COUPLED: "PFC-coupled across links: push together, in one batch",
    UNCHANGED: "nothing to change in lossless's diff",
}
# a PFC change no switch at the other end of a link changes with it (its peers already agree,
# or are servers, whose NICs `lossless render --hosts` configures)
ALONE = "PFC change, no switch link peer changing PFC with it"
KIND_ORDER = (HITLESS_ONLY, DISRUPTIVE_ONLY, COUPLED, UNCHANGED)


@dataclass(frozen=True)
class Link:
    """A switch-to-switch link both of whose ends take a PFC-coupled change."""

    a: str
    a_port: str
    b: str
    b_port: str

    def __str__(self) -> str:
        return f"{self.a}:{self.a_port} - {self.b}:{self.b_port}"


@dataclass
class Phase:
    number: int
    kind: str  # one of KIND_ORDER
    devices: list[str]
    links: list[Link] = field(default_factory=list)  # the coupled links of the group

    @property
    def why(self) -> str:
        if self.kind == COUPLED and not self.links:
            return ALONE
        return WHY[self.kind]

    @property
    def together(self) -> bool:
        """Its devices must be changed in the same batch."""
        return self.kind == COUPLED

    def to_dict(self) -> dict[str, Any]:
        return {
            "phase": self.number,
            "kind": self.kind,
            "why": self.why,
            "devices": self.devices,
            **({"links": [str(link) for link in self.links]} if self.links else {}),
        }


@dataclass
class ChangeOrder:
    phases: list[Phase]
    split_links: list[str]  # coupled links whose other end is outside the diff

    def phase_of(self, device: str) -> int | None:
        return next((p.number for p in self.phases if device in p.devices), None)

    def to_dict(self) -> dict[str, Any]:
        return {
            "phases": [phase.to_dict() for phase in self.phases],
            "split_links": self.split_links,
        }

    def lines(self) -> list[str]:
        lines = ["order (docs/change-impact.md):"] if self.phases else []
        for phase in self.phases:
            links = f" (links {', '.join(map(str, phase.links))})" if phase.links else ""
            lines.append(f"  phase {phase.number}, {phase.why}: {', '.join(phase.devices)}{links}")
        lines += [
            f"  split link {link}: its ends disagree on PFC until both are changed"
            for link in self.split_links
        ]
        return lines


def change_order(
    plan: FabricPlan,
    impacts: dict[str, list[ChangeImpact] | None],
    unchanged_phase: bool = True,
) -> ChangeOrder:
    """Phases for the devices of `impacts` (in its order); None: the device's changes are
    unknown (no backup, no driver), so it is in no phase, and its coupled links are split.
    Devices with nothing to change are in the last phase, if `unchanged_phase`."""
    known = {name: found for name, found in impacts.items() if found is not None}
    coupled = {name: _coupled_ports(plan, name, found) for name, found in known.items()}
    groups = _Groups(known)
    links: dict[str, list[Link]] = {}
    split = []
    for name, ports in coupled.items():
        if not ports:
            continue
        for port, peer, peer_port in _switch_links(plan, name):
            if not _couples(ports, port):
                continue
            link = Link(name, port, peer, peer_port)
            if peer not in known:
                split.append(f"{link} ({peer}'s change is not known here)")
            elif _couples(coupled[peer], peer_port) and name < peer:
                groups.join(name, peer)
                links.setdefault(name, []).append(link)
    phases: list[Phase] = []
    for kind in KIND_ORDER:
        if kind == COUPLED:
            members = [g for g in groups.all() if any(coupled[d] for d in g)]
            for group in sorted(members, key=len):  # stable: equal sizes keep their order
                found_links = [link for d in group for link in links.get(d, [])]
                phases.append(Phase(len(phases) + 1, kind, group, found_links))
            continue
        chosen = [
            name for name, found in known.items() if not coupled[name] and _kind(found) == kind
        ]
        if chosen and (unchanged_phase or kind != UNCHANGED):
            phases.append(Phase(len(phases) + 1, kind, chosen))
    return ChangeOrder(phases, split)


def _kind(found: list[ChangeImpact]) -> str:
    if not found:
        return UNCHANGED
    return HITLESS_ONLY if all(i.impact == HITLESS for i in found) else DISRUPTIVE_ONLY


def _coupled_ports(plan: FabricPlan, name: str, found: list[ChangeImpact]) -> set[str | None]:
    """The ports whose links the device's PFC-coupled changes touch; None: every link."""
    device = plan.devices.get(name)
    ports = device.ports if device else {}
    return {i.port if i.port in ports else None for i in found if i.link}


def _couples(ports: set[str | None], port: str) -> bool:
    return None in ports or port in ports


def _switch_links(plan: FabricPlan, name: str) -> Iterable[tuple[str, str, str]]:
    device = plan.devices.get(name)
    for port in device.ports.values() if device else ():
        if port.peer and port.peer_kind == "switch":
            peer, _, peer_port = port.peer.partition(":")
            yield port.name, peer, peer_port


class _Groups:
    """Union-find over device names, groups listed in the names' order."""

    def __init__(self, names: Iterable[str]):
        self.order = list(names)
        self.parent = {name: name for name in self.order}

    def find(self, name: str) -> str:
        while self.parent[name] != name:
            self.parent[name] = self.parent[self.parent[name]]
            name = self.parent[name]
        return name

    def join(self, a: str, b: str) -> None:
        self.parent[self.find(b)] = self.find(a)

    def all(self) -> list[list[str]]:
        groups: dict[str, list[str]] = {}
        for name in self.order:
            groups.setdefault(self.find(name), []).append(name)
        return list(groups.values())


# -- push batches ----------------------------------------------------------------------------


def push_batches(
    order: ChangeOrder,
    canary: int,
    batch_size: int,
    tiers: dict[str, list[str]] | None = None,
) -> list[list[str]]:
    """The devices of the phases in batches: the canary batch first (at least `canary`
    devices), then batches of at most `batch_size`; a coupled group is never split, so a
    batch that holds one can be larger (batch_lines says so). As waves do (wave_batches), a
    batch closes before it would hold every switch of one of the `tiers`."""
    units = _units(order)
    batches: list[list[str]] = []
    if canary and units:
        first: list[str] = []
        while units and len(first) < canary and not _closes(first, units[0], tiers):
            first += units.pop(0)
        batches.append(first)
    current: list[str] = []
    for unit in units:
        if current and (len(current) + len(unit) > batch_size or _closes(current, unit, tiers)):
            batches.append(current)
            current = []
        current = current + unit
    if current:
        batches.append(current)
    return batches


def wave_sizes(texts: Iterable[str], total: int) -> list[int]:
    """`--wave 1,10%,50%`: each wave's most devices, a count or a percentage of the `total`
    pushed (rounded up, at least 1); the last size repeats until every device is pushed.
    ValueError names a size that is neither."""
    sizes = []
    for text in (t.strip() for chunk in texts for t in chunk.split(",")):
        number = text.removesuffix("%")
        if not number.isdigit() or int(number) == 0 or (text.endswith("%") and int(number) > 100):
            raise ValueError(f"--wave {text!r}: a device count >= 1 or a percentage 1%-100%")
        sizes.append(-(-int(number) * total // 100) if text.endswith("%") else int(number))
    if not sizes:
        raise ValueError("--wave: give wave sizes, e.g. 1,10%,50%")
    return [max(1, size) for size in sizes]


def link_tiers(plan: FabricPlan) -> dict[str, list[str]]:
    """Each role of two or more switches that link to other switches (the spines, the
    leaves), with its devices: role -> names, in plan order."""
    tiers: dict[str, list[str]] = {}
    for name, device in plan.devices.items():
        if any(p.peer and p.peer_kind == "switch" for p in device.ports.values()):
            tiers.setdefault(device.role, []).append(name)
    return {role: names for role, names in tiers.items() if len(names) > 1}


def whole_tiers(wave: list[str], tiers: dict[str, list[str]]) -> list[str]:
    """The tiers every switch of which is in the wave."""
    held = set(wave)
    return [role for role, names in tiers.items() if held.issuperset(names)]


def tier_warnings(
    waves: list[list[str]], tiers: dict[str, list[str]], first: int = 1, unit: str = "wave"
) -> list[str]:
    """A warning for each wave (batch: `unit`, numbered from `first`) that holds a whole
    tier."""
    return [
        f"{unit} {number} changes every {role} at once ({', '.join(tiers[role])}): a "
        "PFC-coupled group holds them all"
        for number, wave in enumerate(waves, start=first)
        for role in whole_tiers(wave, tiers)
    ]


def wave_batches(
    order: ChangeOrder, sizes: list[int], tiers: dict[str, list[str]] | None = None
) -> list[list[str]]:
    """The devices of the phases in waves of at most sizes[0], sizes[1], ... devices (the
    last size repeating); a coupled group is never split, so a wave that holds one can be
    larger (batch_lines says so). A wave closes before it would hold every switch of one of
    the `tiers` (link_tiers); only a coupled group holding a whole tier forces one wave to."""
    waves: list[list[str]] = []
    current: list[str] = []
    for unit in _units(order):
        limit = sizes[min(len(waves), len(sizes) - 1)]
        full = len(current) + len(unit) > limit
        if current and (full or _closes(current, unit, tiers)):
            waves.append(current)
            current = []
        current = current + unit
    if current:
        waves.append(current)
    return waves


def _units(order: ChangeOrder) -> list[list[str]]:
    """What a batch takes whole: a coupled group, or one device."""
    return [
        unit
        for phase in order.phases
        for unit in ([phase.devices] if phase.together else [[d] for d in phase.devices])
    ]


def _closes(batch: list[str], unit: list[str], tiers: dict[str, list[str]] | None) -> bool:
    """The batch closes before the unit: with it, it would hold a whole tier (a coupled
    group holding one alone forces it)."""
    return bool(batch) and bool(whole_tiers(batch + unit, tiers or {}))


def broken_links(order: ChangeOrder, failed: set[str], changed: set[str]) -> dict[str, list[str]]:
    """After a batch: for each device that changed, the coupled links whose other end failed
    (it was not changed, or was rolled back), which now disagree on PFC."""
    broken: dict[str, list[str]] = {}
    for phase in order.phases:
        for link in phase.links:
            for end, other in ((link.a, link.b), (link.b, link.a)):
                if end in changed and other in failed:
                    broken.setdefault(end, []).append(f"{link} ({other} failed)")
    return broken


def batch_lines(
    batches: list[list[str]],
    canary: int,
    batch_size: int,
    waves: list[int] | None = None,
    tiers: dict[str, list[str]] | None = None,
) -> list[str]:
    """The push plan as lines: its batches (or `--wave` waves, of at most `waves` sizes), a
    warning under a batch or wave that holds a whole tier."""
    if waves:
        lines = [f"push plan: {plural(len(batches), 'wave')}, in this order:"]
        for number, wave in enumerate(batches, start=1):
            limit = waves[min(number, len(waves)) - 1]
            larger = (
                f", {len(wave)} > {limit}: a PFC-coupled group is not split"
                if len(wave) > limit
                else ""
            )
            lines.append(f"  wave {number}: {', '.join(wave)}{larger}")
            lines += [f"    warning: {w}" for w in tier_warnings([wave], tiers or {}, number)]
        return lines
    lines = [f"push plan: {plural(len(batches), 'batch', 'batches')}, in this order:"]
    for number, batch in enumerate(batches, start=1):
        label = " (canary)" if number == 1 and canary else ""
        limit = canary if number == 1 and canary else batch_size
        larger = (
            f", {len(batch)} > {limit}: a PFC-coupled group is not split"
            if len(batch) > limit
            else ""
        )
        lines.append(f"  batch {number}{label}: {', '.join(batch)}{larger}")
        lines += [f"    warning: {w}" for w in tier_warnings([batch], tiers or {}, number, "batch")]
    return lines
