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

Work budget. The inventory is untrusted (it comes with pull requests), so the whole check
has a budget in units of work, counted the same on every machine (DEADLOCK_BUDGET): a
channel examined while routing toward one destination, a dependency examined, a router
and link compared in a round of colour refinement, a next hop examined while proving a
failure harmless. Past it the check stops and reports what it did not check (the
destinations not routed, the link failures not examined); what it found stands.
"""

from __future__ import annotations

from collections import deque
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
    failures_checked: int = 0  # link failures shown harmless, analysed or stood for
    links: int = 0
    destinations: int = 0
    # how the failures were checked: shown harmless from the routes as written without
    # routing again, analysed (routed again with the link down), stood for by a link of
    # the same colour class (large fabrics, see _failures)
    failures_harmless: int = 0
    failures_analysed: int = 0
    failures_represented: int = 0
    # what the budget left out: destinations not routed as written (their routes, and so
    # every failure, unchecked), link failures not checked (one direction of each)
    unrouted: list[str] = field(default_factory=list)
    unchecked: list[Channel] = field(default_factory=list)
    work: int = 0  # units of work spent
    budget: int = 0

    @property
    def partial(self) -> bool:
        """The budget ran out: the absence of a finding proves nothing about what is left."""
        return bool(self.unrouted or self.unchecked)


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


class OutOfBudget(Exception):
    """The check's work budget is spent."""


class Work:
    """Units of work spent against the check's budget. Every loop whose length the
    inventory sets charges what it is about to do before doing it, so the check never
    spends more than the budget; once a charge is refused every later one is too (the
    check stops at one point, the same on every machine)."""

    def __init__(self, budget: int) -> None:
        self.budget = budget
        self.spent = 0
        self.exhausted = False

    def charge(self, units: int) -> None:
        if self.exhausted or self.spent + units > self.budget:
            self.exhausted = True
            raise OutOfBudget
        self.spent += units


def _into(top: Topology, down: frozenset[Channel], work: Work) -> dict[str, list[Channel]]:
    """The channels arriving at each router, with the `down` ones gone."""
    work.charge(2 * len(top.links))
    into: dict[str, list[Channel]] = {r: [] for r in top.tiers}
    for pair in top.links:
        for channel in pair:
            if channel not in down:
                into[channel.receiver].append(channel)
    return into


def _route(
    into: dict[str, list[Channel]], destination: str, work: Work
) -> dict[str, list[Channel]]:
    """router -> the channels it forwards on toward `destination` (all shortest paths),
    the routers in order of their distance from it."""
    distance = {destination: 0}
    next_hops: dict[str, list[Channel]] = {}
    queue = deque([destination])
    while queue:
        node = queue.popleft()
        work.charge(len(into[node]) + 1)
        for channel in into[node]:
            sender = channel.sender
            if sender not in distance:
                distance[sender] = distance[node] + 1
                queue.append(sender)
            if distance[sender] == distance[node] + 1:
                next_hops.setdefault(sender, []).append(channel)
    return next_hops


def _depend(
    top: Topology,
    destination: str,
    next_hops: dict[str, list[Channel]],
    depends: dict[Channel, set[Channel]],
    work: Work,
) -> None:
    """Add to `depends` (u -> v) -> {(v -> w)}: the lossless channels a packet toward
    `destination` goes in on and out on at v.

    Only channels that carry traffic count: traffic starts at the endpoints (routers with
    servers, forwarding servers), so a spine's own route through a leaf it never sends
    anything on is no dependency."""
    sources = set(top.destinations)
    carrying: set[str] = set()
    used: list[Channel] = []
    work.charge(len(next_hops) + 1)
    for router in reversed(next_hops):  # farthest first: all traffic into it is known
        if router in sources or router in carrying:
            for outgoing in next_hops[router]:
                used.append(outgoing)
                carrying.add(outgoing.receiver)
    for incoming in used:
        if incoming.receiver == destination or incoming not in top.lossless:
            continue
        outs = next_hops.get(incoming.receiver, ())
        work.charge(len(outs) + 1)
        for outgoing in outs:
            if outgoing in top.lossless:
                depends.setdefault(incoming, set()).add(outgoing)


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


def _bounces(top: Topology, depends: dict[Channel, set[Channel]]) -> list[tuple[Channel, Channel]]:
    """The dependencies that break the up/down order, in order."""
    found = [
        (incoming, outgoing)
        for incoming, outs in depends.items()
        for outgoing in outs
        if _breaks_order(top, incoming, outgoing)
    ]
    return sorted(found)


# Sampling thresholds (destinations x channels): below them every destination and every link
# failure is computed; above them one representative of each class of equivalent routers and
# links (colour refinement, below), which in a Clos are the automorphism classes.
EXHAUSTIVE_ROUTES = 2_000_000
EXHAUSTIVE_FAILURES = 5_000_000

# The whole check's budget, in units of work (see Work and the module docstring). The
# sampling thresholds above choose what to compute; only this bounds what it costs, whatever
# the inventory. One unit is a few Python operations: 10 million took 3-5 s on one core of
# the shared 2-core machine of docs/deadlock.md (2-3.5 million a second). That checks in
# full the inventories/ (a generated 32,768-GPU fabric: 0.6 million), the fabrics of the
# tests and the asymmetric 80-leaf / 40-spine and 120 / 60 fabrics of docs/deadlock.md (0.6
# and 2 million), and a hostile inventory costs a CI job seconds, not hours.
DEADLOCK_BUDGET = 10_000_000


def _colours(top: Topology, down: frozenset[Channel], work: Work) -> dict[str, int]:
    """Colour refinement (1-dimensional Weisfeiler-Leman) of the routers: two routers keep the
    same colour while they have the same tier, role and multiset of neighbour colours over
    up, lossless links. Routers of one colour route alike, so one of each stands for all."""
    found = top.colourings.get(down)
    if found is None:
        found = top.colourings[down] = _refined_colours(top, down, work)
    return found


def _refined_colours(
    top: Topology, down: frozenset[Channel], work: Work | None = None
) -> dict[str, int]:
    work = work or Work(DEADLOCK_BUDGET)
    destinations = set(top.destinations)
    routers = list(top.tiers)
    number = {r: index for index, r in enumerate(routers)}
    # per router: (neighbour's number, lossless in, lossless out) as one int, neighbour * 4
    # + flags, so a router's signature is a sorted tuple of ints (compared in C)
    neighbours: list[list[int]] = [[] for _ in routers]
    round_cost = len(routers) + 2 * len(top.links)  # each router and each link end, a round
    work.charge(round_cost)
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
        work.charge(round_cost)  # up to one round per router on a long chain
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


@dataclass
class _Analysis:
    cycles: list[list[Channel]]
    bounces: list[tuple[Channel, Channel]]
    # destination -> its routes, when every destination was routed (None: the symmetric
    # sample showed no bounce, see _analysis)
    routes: dict[str, dict[str, list[Channel]]] | None = None
    unrouted: list[str] = field(default_factory=list)  # the budget ran out before these


def _analysis(
    top: Topology, down: frozenset[Channel], work: Work, *, partial: bool = False
) -> _Analysis:
    """Cycles and order-breaking dependencies (bounces) with the `down` channels gone.

    Out of budget: with `partial`, what the destinations routed so far show (their
    dependencies are real, so are the cycles and bounces among them) and the destinations
    left; without, OutOfBudget (an analysis of a failure is all or nothing)."""
    destinations = top.destinations
    done = 0
    depends: dict[Channel, set[Channel]] = {}
    routes: dict[str, dict[str, list[Channel]]] = {}
    try:
        if len(destinations) * 2 * len(top.links) > EXHAUSTIVE_ROUTES:
            colours = _colours(top, down, work)
            firsts: dict[int, str] = {}
            for destination in destinations:
                firsts.setdefault(colours[destination], destination)
            into = _into(top, down, work)
            sample: dict[Channel, set[Channel]] = {}
            for destination in sorted(firsts.values()):
                _depend(top, destination, _route(into, destination, work), sample, work)
            if not _bounces(top, sample):
                return _Analysis([], [])  # no representative bounces: by symmetry none does
        into = _into(top, down, work)
        for destination in destinations:
            next_hops = _route(into, destination, work)
            _depend(top, destination, next_hops, depends, work)
            routes[destination] = next_hops
            done += 1
    except OutOfBudget:
        if not partial:
            raise
    bounces = _bounces(top, depends)
    # every dependency follows the order: no cycle can close
    cycles = _cycles(depends) if bounces else []
    return _Analysis(cycles, bounces, routes, list(destinations[done:]))


def _analyse(
    top: Topology, down: frozenset[Channel], work: Work | None = None
) -> tuple[list[list[Channel]], list]:
    """Cycles and order-breaking dependencies (bounces) with the `down` channels gone."""
    found = _analysis(top, down, work or Work(DEADLOCK_BUDGET))
    return found.cycles, found.bounces


def check_deadlock(fabric: FabricPlan, budget: int | None = None) -> DeadlockReport:
    """Bounces and cycles as written; when there is no cycle as written, cycles with each
    single link down (a fabric that can deadlock already is fixed first: one cause, one
    finding). A cycle and its reverse over the same links are one finding.

    Within `budget` units of work (DEADLOCK_BUDGET): past it the report lists what was not
    checked (`unrouted`, `unchecked`; `partial`), and the findings are what was found."""
    top = topology(fabric)
    work = Work(DEADLOCK_BUDGET if budget is None else budget)
    report = DeadlockReport(
        links=len(top.links), destinations=len(top.destinations), budget=work.budget
    )
    written = _analysis(top, frozenset(), work, partial=True)
    report.unrouted = written.unrouted
    seen: set[frozenset[tuple[str, ...]]] = set()
    for cycle in written.cycles:
        if _links_of(cycle) not in seen:
            seen.add(_links_of(cycle))
            report.findings.append(Finding("cycle", cycle))
    report.findings += [Finding("bounce", [i, o]) for i, o in written.bounces]
    if written.cycles:
        report.work = work.spent
        return report
    if written.unrouted:  # not known free of cycles as written: no failure is checked
        report.unchecked = [forward for forward, _ in top.links]
        report.work = work.spent
        return report
    classes = _failures_to_analyse(top, written.routes, work, report)
    for done, links in enumerate(classes):
        forward, backward = links[0]  # the class's first link stands for the others
        try:
            failed_cycles = _analysis(top, frozenset((forward, backward)), work).cycles
        except OutOfBudget:
            report.unchecked = [f for rest in classes[done:] for f, _ in rest]
            break
        report.failures_analysed += 1
        report.failures_represented += len(links) - 1
        report.failures_checked += len(links)
        for cycle in failed_cycles:
            if _links_of(cycle) not in seen:
                seen.add(_links_of(cycle))
                report.findings.append(Finding("cycle-after-failure", cycle, forward))
    report.work = work.spent
    return report


def _links_of(cycle: list[Channel]) -> frozenset[tuple[str, ...]]:
    """The links a cycle uses, whatever their direction."""
    keys = set()
    for c in cycle:
        one, other = (c.sender, c.sender_port), (c.receiver, c.receiver_port)
        keys.add(one + other if one < other else other + one)
    return frozenset(keys)


def _failures_to_analyse(
    top: Topology,
    routes: dict[str, dict[str, list[Channel]]] | None,
    work: Work,
    report: DeadlockReport,
) -> list[list[tuple[Channel, Channel]]]:
    """The link failures to analyse, as classes whose first link stands for the class (one
    link each below the sampling threshold), in inventory order. The others are harmless
    (counted in the report as checked). Out of budget here, every failure is unchecked."""
    try:
        if routes is None:  # by symmetry as written: no routes to show failures harmless by
            candidates = top.links
        else:
            harmful = _rerouting(top, routes, work)
            candidates = [pair for pair in top.links if pair in harmful]
        classes = _failures(top, candidates, work)
    except OutOfBudget:
        report.unchecked = [forward for forward, _ in top.links]
        return []
    report.failures_harmless = report.failures_checked = len(top.links) - len(candidates)
    return classes


def _rerouting(
    top: Topology, routes: dict[str, dict[str, list[Channel]]], work: Work
) -> set[tuple[Channel, Channel]]:
    """The links whose failure changes the route of some endpoint's traffic: only these can
    create a cycle, so only these need the analysis again with the link down.

    Why the others cannot. Take the link down. A router *loses its routes* toward a
    destination when every next hop it had is the link or leads to a router that lost its
    routes (its distance grows). When no endpoint (where traffic starts) loses its routes,
    traffic follows the routes it had, minus the link: each router it reaches kept its
    distance, so forwards on a subset of its next hops, to routers that kept theirs. Every
    dependency is then one there was with every link up, and that graph has no cycle (the
    failures are checked only then).

    Who loses routes: only the router whose single next hop is the link (a router forwards
    on one channel of a link, the one leading nearer), then, backwards, each router all of
    whose next hops lead to routers that lost theirs."""
    sources = set(top.destinations)
    bundle = {channel: pair for pair in top.links for channel in pair}
    harmful: set[tuple[Channel, Channel]] = set()
    for next_hops in routes.values():
        work.charge(len(next_hops) + 1)
        single = [(r, hops[0]) for r, hops in next_hops.items() if len(hops) == 1]
        before: dict[str, list[str]] | None = None  # router -> routers forwarding to it
        for router, channel in single:
            link = bundle[channel]
            if link in harmful:
                continue
            if router in sources:
                harmful.add(link)
                continue
            if before is None:
                before = {}
                for sender, hops in next_hops.items():
                    work.charge(len(hops))
                    for hop in hops:
                        before.setdefault(hop.receiver, []).append(sender)
            if _loses_an_endpoint(router, before, next_hops, sources, work):
                harmful.add(link)
    return harmful


def _loses_an_endpoint(
    router: str,
    before: dict[str, list[str]],
    next_hops: dict[str, list[Channel]],
    sources: set[str],
    work: Work,
) -> bool:
    """Does an endpoint lose its routes when `router` loses its (see _rerouting)?"""
    left: dict[str, int] = {}  # next hops not yet lost, of the routers forwarding to a lost one
    lost = [router]
    while lost:
        forwarding = before.get(lost.pop(), ())
        work.charge(len(forwarding) + 1)
        for sender in forwarding:
            remaining = left.get(sender, len(next_hops[sender])) - 1
            left[sender] = remaining
            if remaining == 0:
                if sender in sources:
                    return True
                lost.append(sender)
    return False


def _failures(
    top: Topology, candidates: list[tuple[Channel, Channel]], work: Work
) -> list[list[tuple[Channel, Channel]]]:
    """The links to take down one at a time: each candidate on its own, or beyond the
    sampling threshold the classes of equivalent links (same endpoint colours and lossless
    directions), the first of each standing for the class."""
    cost = len(candidates) * len(top.destinations) * 2 * len(top.links)
    if cost <= EXHAUSTIVE_FAILURES:
        return [[pair] for pair in candidates]
    colours = _colours(top, frozenset(), work)
    work.charge(len(candidates))
    classes: dict[tuple, list[tuple[Channel, Channel]]] = {}
    for forward, backward in candidates:
        ends = sorted(
            [
                (colours[forward.sender], forward in top.lossless),
                (colours[backward.sender], backward in top.lossless),
            ]
        )
        classes.setdefault(tuple(ends), []).append((forward, backward))
    return list(classes.values())
