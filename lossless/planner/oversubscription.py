"""Oversubscription: a switch's downlink bandwidth against its uplink bandwidth, per switch
and per tier, and the fabric's links grouped by the tiers they join and their speed.

A port is a downlink when the node at the other end of its link sits in a lower tier
(servers 0, leaves 1, spines 2, super-spines 3: the tiers of the deadlock check), an uplink
when it sits higher, lateral when it sits in the same tier. Oversubscription is
downlink / uplink bandwidth ("3:1": three bits may arrive from below for every bit that can
leave upward); the top tier has no uplinks and no ratio. Only ports with a link count:
a listed port with no cable carries nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

from lossless.plan import FabricPlan
from lossless.planner.deadlock import TIERS

SERVER = "server"


@dataclass(frozen=True)
class Bandwidth:
    ports: int = 0
    mbps: int = 0

    def __add__(self, other: Bandwidth) -> Bandwidth:
        return Bandwidth(self.ports + other.ports, self.mbps + other.mbps)


def ratio(down: Bandwidth, up: Bandwidth) -> float | None:
    """down:up as a number (3.0 for 3:1), None without uplinks."""
    return round(down.mbps / up.mbps, 2) if up.mbps else None


@dataclass(frozen=True)
class DeviceBandwidth:
    device: str
    role: str
    tier: int
    down: Bandwidth
    up: Bandwidth
    lateral: Bandwidth
    unlinked_ports: int  # listed ports with no link (or a peer outside the plan)

    @property
    def oversubscription(self) -> float | None:
        return ratio(self.down, self.up)


@dataclass(frozen=True)
class TierBandwidth:
    role: str
    tier: int
    devices: list[str]
    down: Bandwidth
    up: Bandwidth
    lateral: Bandwidth

    @property
    def oversubscription(self) -> float | None:
        return ratio(self.down, self.up)


@dataclass
class LinkGroup:
    """Links between two tiers (lower first) at one speed."""

    lower: str  # role of the lower end, or "server"
    upper: str
    speed_mbps: int
    links: int = 0
    cable_min_m: float = 0.0
    cable_max_m: float = 0.0


@dataclass
class Bundle:
    """The links between two nodes (lower tier first)."""

    lower: str
    upper: str
    links: int = 0
    mbps: int = 0


@dataclass(frozen=True)
class FabricBandwidth:
    devices: dict[str, DeviceBandwidth]  # plan order
    tiers: list[TierBandwidth]  # highest tier first
    links: list[LinkGroup]  # highest tier pair first, then by speed
    bundles: list[Bundle]  # per pair of linked nodes, in link order
    roles: dict[str, str]  # every node of the bundles -> its role ("server" for servers)


def tier_of(role: str) -> int:
    return TIERS.get(role, TIERS["leaf"])


def fabric_bandwidth(plan: FabricPlan, devices: list[str] | None = None) -> FabricBandwidth:
    """Bandwidth of `devices` (default: every device of the plan) and of the links that
    touch them."""
    names = list(plan.devices) if devices is None else devices
    roles = {name: d.role for name, d in plan.devices.items()}
    roles.update({nic.server: SERVER for nic in plan.planned_nics().values()})
    per_device = {name: _device(plan, name, roles) for name in names}
    groups, bundles = _links(plan, set(names), roles)
    linked = {node for b in bundles for node in (b.lower, b.upper)}
    return FabricBandwidth(
        per_device,
        _tiers(per_device),
        groups,
        bundles,
        {node: role for node, role in roles.items() if node in linked},
    )


def _device(plan: FabricPlan, name: str, roles: dict[str, str]) -> DeviceBandwidth:
    device = plan.devices[name]
    tier = tier_of(device.role)
    down = up = lateral = Bandwidth()
    unlinked = 0
    for port in device.ports.values():
        peer_role = roles.get((port.peer or "").partition(":")[0])
        if peer_role is None:
            unlinked += 1
            continue
        peer_tier = TIERS[SERVER] if peer_role == SERVER else tier_of(peer_role)
        here = Bandwidth(1, port.speed_mbps)
        if peer_tier < tier:
            down += here
        elif peer_tier > tier:
            up += here
        else:
            lateral += here
    return DeviceBandwidth(name, device.role, tier, down, up, lateral, unlinked)


def _tiers(devices: dict[str, DeviceBandwidth]) -> list[TierBandwidth]:
    by_role: dict[str, list[DeviceBandwidth]] = {}
    for device in devices.values():
        by_role.setdefault(device.role, []).append(device)
    tiers = []
    for role, members in by_role.items():
        down = up = lateral = Bandwidth()
        for member in members:
            down, up, lateral = down + member.down, up + member.up, lateral + member.lateral
        tiers.append(
            TierBandwidth(role, members[0].tier, [m.device for m in members], down, up, lateral)
        )
    return sorted(tiers, key=lambda t: (-t.tier, t.role))


def _links(
    plan: FabricPlan, shown: set[str], roles: dict[str, str]
) -> tuple[list[LinkGroup], list[Bundle]]:
    groups: dict[tuple[str, str, int], LinkGroup] = {}
    bundles: dict[tuple[str, str], Bundle] = {}
    for link in plan.links:
        ends = [link.a.partition(":"), link.b.partition(":")]
        if not any(node in shown for node, _, _ in ends):
            continue
        if any(node not in roles for node, _, _ in ends):
            continue  # the other end is a switch outside the plan
        speeds = [s for s in (_speed(plan, node, port) for node, _, port in ends) if s]
        if not speeds:
            continue
        (lower, _, _), (upper, _, _) = sorted(ends, key=lambda e: _rank(roles[e[0]]))
        key = (roles[lower], roles[upper], min(speeds))
        group = groups.get(key)
        if group is None:
            group = groups[key] = LinkGroup(*key, cable_min_m=link.cable_m)
        group.links += 1
        group.cable_min_m = min(group.cable_min_m, link.cable_m)
        group.cable_max_m = max(group.cable_max_m, link.cable_m)
        bundle = bundles.setdefault((lower, upper), Bundle(lower, upper))
        bundle.links += 1
        bundle.mbps += min(speeds)
    ordered = sorted(
        groups.values(),
        key=lambda g: (-_rank(g.upper), -_rank(g.lower), g.upper, g.lower, -g.speed_mbps),
    )
    return ordered, list(bundles.values())


def _rank(role: str) -> int:
    return TIERS[SERVER] if role == SERVER else tier_of(role)


def _speed(plan: FabricPlan, node: str, port: str) -> int | None:
    device = plan.devices.get(node)
    if device is not None:
        found = device.ports.get(port)
        return found.speed_mbps if found else None
    nic = plan.planned_nics().get(f"{node}:{port}")
    return nic.speed_mbps if nic else None
