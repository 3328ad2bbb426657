"""PFC deadlock: cyclic buffer dependencies of the lossless class over the fabric's topology.

A lossless *channel* is one direction of a link whose receiving port runs PFC: the
receiver's ingress buffer fills and pauses the sender. A packet that comes in on channel
(u -> v) and leaves on (v -> w) makes (u -> v) depend on (v -> w): when w pauses v, the
packet waits in v's buffer, which pauses u. A cycle of such dependencies can pause itself
forever: a PFC deadlock (Hu et al., "Deadlocks in Datacenter Networks: Why Do They Form,
and How to Avoid Them", HotNets 2016; Guo et al., "RDMA over Commodity Ethernet at
Scale", SIGCOMM 2016).

Routing model. Every router (switch, and server marked `forwards`) sends traffic for a
destination along all of its shortest paths (ECMP), as BGP with per-switch ASNs or an IGP
computes them. The endpoints are the routers that servers hang off and the forwarding
servers: RoCE traffic starts and ends there (spines originate none).

Why a Clos is safe and what breaks it. Rank the channels: up channels (to a higher tier:
leaf 1, spine 2, super-spine 3; servers 0) by the sender's tier, then down channels by
decreasing sender tier. A route that only goes up and then down (valley-free) makes every
dependency go to a higher rank, so no cycle can close. A cycle therefore needs a
dependency that breaks the order: a *bounce* (down and up again, as leaf-spine-leaf-spine
after a link failure) or a *lateral* hop (a link between two leaves or two spines, or a
server that forwards). The check computes the routes, lists the bounces, and looks for
cycles among the dependencies, as written and with each single link down.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import NamedTuple

from lossless.plan import FabricPlan

TIERS = {"server": 0, "leaf": 1, "spine": 2, "super-spine": 3}


class Channel(NamedTuple):
    """One direction of a link: out of `sender`'s port into `receiver`'s port (a tuple:
    hashing and ordering at C speed, there are many)."""

    sender: str
    sender_port: str
    receiver: str
    receiver_port: str
    source: str  # the link's FILE:LINE:COL in the inventory

    def __str__(self) -> str:
        return f"{self.sender}:{self.sender_port} -> {self.receiver}:{self.receiver_port}"


@dataclass
class Topology:
    tiers: dict[str, int]  # router -> tier
    links: list[tuple[Channel, Channel]]  # each pair of linked routers, both directions
    lossless: set[Channel]  # channels whose receiving port runs PFC
    destinations: list[str]  # routers with servers behind them, and forwarding servers
    # _colours by the channels taken down: the analysis as written and the choice of
    # links to fail both colour the whole fabric
    colourings: dict[frozenset[Channel], dict[str, int]] = field(default_factory=dict)


@dataclass
class Finding:
    kind: str  # "cycle", "cycle-after-failure", "bounce"
    path: list[Channel]  # the cycle in order, or the bouncing route's hops
    failed: Channel | None = None  # the link taken down (one direction of it)


@dataclass
class DeadlockReport:
    findings: list[Finding] = field(default_factory=list)
    failures_checked: int = 0
    links: int = 0


def topology(fabric: FabricPlan) -> Topology:
    """The routers, their links and which directions are lossless, from a plan."""
    tiers = {name: TIERS.get(device.role, 1) for name, device in fabric.devices.items()}
    for server in fabric.forwarding_servers:
        tiers[server] = TIERS["server"]
    # Parallel links between two routers carry the same routes and dependencies: one
    # bundle stands for them (named by its first link), lossless if any member is.
    bundles: dict[tuple[str, str], tuple[Channel, Channel]] = {}
    lossless: set[Channel] = set()
    attached: set[str] = set()
    for link, a_node, a_port, b_node, b_port in fabric.link_ends():
        if a_node not in tiers or b_node not in tiers:
            # a server that does not forward: its switch is where its traffic ends
            if a_node in fabric.devices:
                attached.add(a_node)
            elif b_node in fabric.devices:
                attached.add(b_node)
            continue
        key = (a_node, b_node) if a_node < b_node else (b_node, a_node)
        bundle = bundles.get(key)
        if bundle is None:
            forward = Channel(a_node, a_port, b_node, b_port, link.source)
            backward = Channel(b_node, b_port, a_node, a_port, link.source)
            bundle = bundles[key] = (forward, backward) if a_node < b_node else (backward, forward)
        into_a, into_b = (bundle[1], bundle[0]) if a_node < b_node else bundle
        if _pfc_at(fabric, b_node, b_port, a_node):
            lossless.add(into_b)
        if _pfc_at(fabric, a_node, a_port, b_node):
            lossless.add(into_a)
    links = list(bundles.values())
    destinations = sorted(attached | set(fabric.forwarding_servers))
    return Topology(tiers, links, lossless, destinations)


def _pfc_at(fabric: FabricPlan, node: str, port: str, sender: str) -> bool:
    """Does the port of `node` that receives from `sender` run PFC? A switch says so in its
    plan; a forwarding server's NIC follows the switch port it faces."""
    device = fabric.devices.get(node)
    if device is not None:
        plan = device.ports.get(port)
        return bool(plan and plan.lossless)
    peer = fabric.devices.get(sender)
    facing = f"{node}:{port}"
    return bool(peer and any(p.lossless and p.peer == facing for p in peer.ports.values()))


def _routes(
    top: Topology, down: frozenset[Channel], destinations: list[str]
) -> dict[str, dict[str, list[Channel]]]:
    """destination -> router -> the channels it forwards on toward it (all shortest paths)."""
    into: dict[str, list[Channel]] = {r: [] for r in top.tiers}  # channels arriving at a node
    for pair in top.links:
        for channel in pair:
            if channel not in down:
                into[channel.receiver].append(channel)
    routes: dict[str, dict[str, list[Channel]]] = {}
    for destination in destinations:
        distance = {destination: 0}
        next_hops: dict[str, list[Channel]] = {}
        queue = deque([destination])
        while queue:
            node = queue.popleft()
            for channel in into[node]:
                sender = channel.sender
                if sender not in distance:
                    distance[sender] = distance[node] + 1
                    queue.append(sender)
                if distance[sender] == distance[node] + 1:
                    next_hops.setdefault(sender, []).append(channel)
        routes[destination] = next_hops
    return routes


def _dependencies(
    top: Topology, routes: dict[str, dict[str, list[Channel]]]
) -> dict[Channel, set[Channel]]:
    """(u -> v) -> {(v -> w)}: lossless channels a packet goes in on and out on at v.

    Only channels that carry traffic count: traffic starts at the endpoints (routers with
    servers, forwarding servers), so a spine's own route through a leaf it never sends
    anything on is no dependency."""
    sources = set(top.destinations)
    depends: dict[Channel, set[Channel]] = {}
    for destination, next_hops in routes.items():
        carrying: set[str] = set()
        used: list[Channel] = []
        for router in reversed(next_hops):  # farthest first: all traffic into it is known
            if router in sources or router in carrying:
                for outgoing in next_hops[router]:
                    used.append(outgoing)
                    carrying.add(outgoing.receiver)
        for incoming in used:
            if incoming.receiver == destination or incoming not in top.lossless:
                continue
            for outgoing in next_hops.get(incoming.receiver, ()):
                if outgoing in top.lossless:
                    depends.setdefault(incoming, set()).add(outgoing)
    return depends


def _breaks_order(top: Topology, incoming: Channel, outgoing: Channel) -> bool:
    """A dependency that goes down and up again, or uses a same-tier hop (see the module)."""
    t = top.tiers
    into_v, out_of_v = (
        t[incoming.receiver] - t[incoming.sender],
        t[outgoing.receiver] - t[outgoing.sender],
    )
    return into_v == 0 or out_of_v == 0 or (into_v < 0 < out_of_v)


def _cycles(depends: dict[Channel, set[Channel]]) -> list[list[Channel]]:
    """One cycle (channels in order, starting from the smallest) per strongly connected
    component of the dependency graph (Tarjan, iterative)."""
    index: dict[Channel, int] = {}
    low: dict[Channel, int] = {}
    on_stack: set[Channel] = set()
    stack: list[Channel] = []
    components: list[list[Channel]] = []
    counter = 0
    for root in sorted(depends):
        if root in index:
            continue
        work = [(root, iter(sorted(depends.get(root, ()))))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(depends.get(child, ())))))
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1 or node in depends.get(node, ()):
                        components.append(component)
    return [_cycle_in(sorted(c), depends) for c in components]


def _cycle_in(component: list[Channel], depends: dict[Channel, set[Channel]]) -> list[Channel]:
    """The shortest cycle through the component's smallest channel (breadth first)."""
    members = set(component)
    start = component[0]
    parent: dict[Channel, Channel] = {}
    queue = deque([start])
    while queue:
        node = queue.popleft()
        for child in sorted(depends.get(node, ())):
            if child not in members:
                continue
            if child == start:
                path = [node]
                while path[-1] != start:
                    path.append(parent[path[-1]])
                return list(reversed(path))
            if child not in parent:
                parent[child] = node
                queue.append(child)
    return [start]


def _bounces(
    top: Topology, depends: dict[Channel, set[Channel]]
) -> Iterable[tuple[Channel, Channel]]:
    """The dependencies that break the up/down order, in order."""
    found = [
        (incoming, outgoing)
        for incoming, outs in depends.items()
        for outgoing in outs
        if _breaks_order(top, incoming, outgoing)
    ]
    return sorted(found)


# Work budgets (destinations x channels): below them every destination and every link
# failure is computed; above them one representative of each class of equivalent routers and
# links (colour refinement, below), which in a Clos are the automorphism classes.
EXHAUSTIVE_ROUTES = 2_000_000
EXHAUSTIVE_FAILURES = 5_000_000


def _colours(top: Topology, down: frozenset[Channel]) -> dict[str, int]:
    """Colour refinement (1-dimensional Weisfeiler-Leman) of the routers: two routers keep the
    same colour while they have the same tier, role and multiset of neighbour colours over
    up, lossless links. Routers of one colour route alike, so one of each stands for all."""
    found = top.colourings.get(down)
    if found is None:
        found = top.colourings[down] = _refined_colours(top, down)
    return found


def _refined_colours(top: Topology, down: frozenset[Channel]) -> dict[str, int]:
    destinations = set(top.destinations)
    routers = list(top.tiers)
    number = {r: index for index, r in enumerate(routers)}
    # per router: (neighbour's number, lossless in, lossless out) as one int, neighbour * 4
    # + flags, so a router's signature is a sorted tuple of ints (compared in C)
    neighbours: list[list[int]] = [[] for _ in routers]
    for forward, backward in top.links:
        if forward in down:
            continue
        into_b, into_a = forward in top.lossless, backward in top.lossless
        a, b = number[forward.sender], number[backward.sender]
        neighbours[a].append(b * 4 + 2 * into_b + into_a)
        neighbours[b].append(a * 4 + 2 * into_a + into_b)
    colour = _relabelled([(top.tiers[r], r in destinations) for r in routers])
    classes = len(set(colour))
    while True:
        signatures = [
            (colour[r], tuple(sorted((colour[n >> 2] << 2) | (n & 3) for n in neighbours[r])))
            for r in range(len(routers))
        ]
        colour = _relabelled(signatures)
        refined = len(set(colour))
        if refined == classes:
            return dict(zip(routers, colour, strict=True))
        classes = refined


def _relabelled(signatures: list) -> list[int]:
    """Each signature as a small int, equal signatures equal ints (in order of appearance)."""
    labels: dict = {}
    return [labels.setdefault(signature, len(labels)) for signature in signatures]


def _analyse(top: Topology, down: frozenset[Channel]) -> tuple[list[list[Channel]], list]:
    """Cycles and order-breaking dependencies (bounces) with the `down` channels gone."""
    destinations = top.destinations
    if len(destinations) * 2 * len(top.links) > EXHAUSTIVE_ROUTES:
        colours = _colours(top, down)
        firsts: dict[int, str] = {}
        for destination in destinations:
            firsts.setdefault(colours[destination], destination)
        sample = _dependencies(top, _routes(top, down, sorted(firsts.values())))
        if not _bounces(top, sample):
            return [], []  # no representative bounces: by symmetry none does
    depends = _dependencies(top, _routes(top, down, destinations))
    bounces = list(_bounces(top, depends))
    if not bounces:
        return [], []  # every dependency follows the order: no cycle can close
    return _cycles(depends), bounces


def check_deadlock(fabric: FabricPlan) -> DeadlockReport:
    """Bounces and cycles as written; when there is no cycle as written, cycles with each
    single link down (a fabric that can deadlock already is fixed first: one cause, one
    finding). A cycle and its reverse over the same links are one finding."""
    top = topology(fabric)
    report = DeadlockReport(links=len(top.links))
    cycles, bounces = _analyse(top, frozenset())
    seen: set[frozenset[tuple[str, ...]]] = set()
    for cycle in cycles:
        if _links_of(cycle) not in seen:
            seen.add(_links_of(cycle))
            report.findings.append(Finding("cycle", cycle))
    report.findings += [Finding("bounce", [incoming, outgoing]) for incoming, outgoing in bounces]
    if cycles:
        return report
    for forward, backward in _failures(top):
        failed_cycles, _ = _analyse(top, frozenset((forward, backward)))
        report.failures_checked += 1
        for cycle in failed_cycles:
            if _links_of(cycle) not in seen:
                seen.add(_links_of(cycle))
                report.findings.append(Finding("cycle-after-failure", cycle, forward))
    return report


def _links_of(cycle: list[Channel]) -> frozenset[tuple[str, ...]]:
    """The links a cycle uses, whatever their direction."""
    keys = set()
    for c in cycle:
        one, other = (c.sender, c.sender_port), (c.receiver, c.receiver_port)
        keys.add(one + other if one < other else other + one)
    return frozenset(keys)


def _failures(top: Topology) -> list[tuple[Channel, Channel]]:
    """The links to take down one at a time: all of them, or beyond the budget one of each
    class of equivalent links (same endpoint colours and lossless directions)."""
    work = len(top.links) * len(top.destinations) * 2 * len(top.links)
    if work <= EXHAUSTIVE_FAILURES:
        return top.links
    colours = _colours(top, frozenset())
    chosen: dict[tuple, tuple[Channel, Channel]] = {}
    for forward, backward in top.links:
        ends = sorted(
            [
                (colours[forward.sender], forward in top.lossless),
                (colours[backward.sender], backward in top.lossless),
            ]
        )
        chosen.setdefault(tuple(ends), (forward, backward))
    return list(chosen.values())
