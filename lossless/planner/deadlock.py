"""PFC deadlock: cyclic buffer dependencies of the lossless class over the fabric's topology.

A lossless *channel* is one direction of a cable whose receiver sends PFC and whose sender
honours it: the receiver's ingress buffer fills and pauses the sender. A packet that comes in
on channel (u -> v) and leaves on (v -> w) makes (u -> v) depend on (v -> w): when w pauses v,
the packet waits in v's buffer, which pauses u. A cycle of such dependencies can pause itself
forever: a PFC deadlock (Hu et al., "Deadlocks in Datacenter Networks: Why Do They Form, and
How to Avoid Them", HotNets 2016; Guo et al., "RDMA over Commodity Ethernet at Scale",
SIGCOMM 2016).

Routing model. Every router (switch, and server marked `forwards`) sends traffic for a
destination along all of its shortest paths (ECMP over every cable to every nearest
neighbour), as BGP with per-switch ASNs or an IGP computes them. The endpoints are the
routers that servers hang off and the forwarding servers: RoCE traffic starts and ends there
(spines originate none).

Why a Clos is safe and what breaks it. Rank the channels: up channels (to a higher tier:
leaf 1, spine 2, super-spine 3; servers 0) by the sender's tier, then down channels by
decreasing sender tier. A route that only goes up and then down (valley-free) makes every
dependency go to a higher rank, so no cycle can close. A cycle therefore needs a
dependency that breaks the order: a *bounce* (down and up again, as leaf-spine-leaf-spine
after a link failure) or a *lateral* hop (a link between two leaves or two spines, or a
server that forwards). The check computes the routes, lists the bounces, and looks for
cycles among the dependencies, as written and for every failure case: each cable down, each
switch rebooting (every link of it down at once).

What is computed and why it is enough (docs/deadlock.md, "Soundness"). Every destination
is routed, except that of *twins* (two routers with the same tier, role and neighbours over
the same cables: swapping them maps the fabric onto itself) one is routed for both when the
routes show no bounce: the other's routes are the mirror image and have none either. A
failure is analysed again unless it provably adds no dependency: a cable with a parallel
cable left up changes no route, and a failure after which no endpoint loses all of its
shortest routes leaves traffic on the routes it had (_harmful). Nothing else is sampled: the
verdict does not depend on device names or the order of the inventory.

Work budget. The inventory is untrusted (it comes with pull requests), so the whole check
has a budget in units of work, counted the same on every machine (DEADLOCK_BUDGET): a
channel examined while routing toward one destination, a dependency examined, a router or
link end compared while finding twins, a next hop examined while proving a failure
harmless. Past it the check stops and reports what it did not check (the destinations not
routed, the failure cases not examined); what it found stands.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import NamedTuple

from lossless.plan import FabricPlan, NicPlan

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


class Failure(NamedTuple):
    """One failure case: one cable down (`cable`, in the direction the inventory writes it:
    a -> b), or one switch rebooting (`switch`: every link of it down at once)."""

    cable: Channel | None = None
    switch: str | None = None


@dataclass
class Topology:
    """The routers and their bundles: the cables between two routers carry the same routes
    (ECMP over all of them), so one bundle per pair of routers is routed. Each direction of a
    bundle is named by its first cable that is lossless that way (its first cable if none
    is), and is lossless when any of its cables is: a dependency through any lossless cable
    of the bundle is one through the bundle."""

    tiers: dict[str, int]  # router -> tier
    links: list[tuple[Channel, Channel]]  # each bundle, both directions (forward: a < b)
    lossless: set[Channel]  # bundle directions with a cable that is lossless that way
    destinations: list[str]  # routers with servers behind them, and forwarding servers
    # every cable between two routers in inventory order (a -> b), with its bundle's index in
    # `links`; empty (a topology built by hand): one cable per bundle
    cables: list[tuple[Channel, int]] = field(default_factory=list)
    switches: list[str] = field(default_factory=list)  # routers that can reboot

    def every_cable(self) -> list[tuple[Channel, int]]:
        return self.cables or [(forward, i) for i, (forward, _) in enumerate(self.links)]

    def cable_counts(self) -> list[int]:
        """Cables in each bundle."""
        counts = [0] * len(self.links)
        for _, bundle in self.every_cable():
            counts[bundle] += 1
        return counts


@dataclass
class Finding:
    kind: str  # "cycle", "cycle-after-failure", "bounce"
    path: list[Channel]  # the cycle in order, or the bouncing route's hops
    failed: Failure | None = None  # the failure case that closes the cycle
    more: int = 0  # other cycles (strongly connected components) the same case closes


@dataclass
class DeadlockReport:
    findings: list[Finding] = field(default_factory=list)
    links: int = 0  # cables between two routers: one failure case each
    switches: int = 0  # switches: one reboot failure case each
    destinations: int = 0
    routed: int = 0  # destinations routed as written (the others: a twin's, or unrouted)
    # how the failure cases were checked: a parallel cable left up (no route changes), shown
    # harmless from the routes as written without routing again (no endpoint loses all of
    # its routes), analysed (routed again with the cable or switch down)
    failures_checked: int = 0
    failures_parallel: int = 0
    failures_harmless: int = 0
    failures_analysed: int = 0
    # what the budget left out: destinations not routed as written (their routes, and so
    # every failure, unchecked), failure cases not checked
    unrouted: list[str] = field(default_factory=list)
    unchecked: list[Failure] = field(default_factory=list)
    work: int = 0  # units of work spent
    budget: int = 0

    @property
    def failures(self) -> int:
        """Failure cases: every cable between two routers, every switch reboot."""
        return self.links + self.switches

    @property
    def partial(self) -> bool:
        """The budget ran out: the absence of a finding proves nothing about what is left."""
        return bool(self.unrouted or self.unchecked)


def topology(fabric: FabricPlan) -> Topology:
    """The routers, their bundles and which directions are lossless, from a plan."""
    tiers = {name: TIERS.get(device.role, 1) for name, device in fabric.devices.items()}
    for server in fabric.forwarding_servers:
        tiers[server] = TIERS["server"]
    nics = fabric.planned_nics() if fabric.forwarding_servers else {}
    # per pair of routers (a < b): its cables as (a -> b, b -> a, lossless a -> b, b -> a)
    bundles: dict[tuple[str, str], list[tuple[Channel, Channel, bool, bool]]] = {}
    written: list[tuple[Channel, tuple[str, str]]] = []
    attached: set[str] = set()
    new = tuple.__new__  # Channel(...) without its Python-level __new__: two per cable
    for link, a_node, a_port, b_node, b_port in fabric.link_ends():
        if a_node not in tiers or b_node not in tiers:
            # a server that does not forward: its switch is where its traffic ends
            if a_node in fabric.devices:
                attached.add(a_node)
            elif b_node in fabric.devices:
                attached.add(b_node)
            continue
        if a_node == b_node:
            continue  # a loop back into the same router is on no shortest path
        a_to_b = new(Channel, (a_node, a_port, b_node, b_port, link.source))
        b_to_a = new(Channel, (b_node, b_port, a_node, a_port, link.source))
        a_end = _pfc_end(fabric, nics, a_node, a_port, b_node, b_port)
        b_end = _pfc_end(fabric, nics, b_node, b_port, a_node, a_port)
        into_b, into_a = _pauses(a_end, b_end), _pauses(b_end, a_end)
        if a_node < b_node:
            key, cable = (a_node, b_node), (a_to_b, b_to_a, into_b, into_a)
        else:
            key, cable = (b_node, a_node), (b_to_a, a_to_b, into_a, into_b)
        bundles.setdefault(key, []).append(cable)
        written.append((a_to_b, key))
    links: list[tuple[Channel, Channel]] = []
    lossless: set[Channel] = set()
    index: dict[tuple[str, str], int] = {}
    for key, cables in bundles.items():
        if len(cables) == 1:
            forward, backward, forward_on, backward_on = cables[0]
        else:
            forward = next((c[0] for c in cables if c[2]), cables[0][0])
            backward = next((c[1] for c in cables if c[3]), cables[0][1])
            forward_on, backward_on = any(c[2] for c in cables), any(c[3] for c in cables)
        if forward_on:
            lossless.add(forward)
        if backward_on:
            lossless.add(backward)
        index[key] = len(links)
        links.append((forward, backward))
    return Topology(
        tiers,
        links,
        lossless,
        sorted(attached | set(fabric.forwarding_servers)),
        [(cable, index[key]) for cable, key in written],
        list(fabric.devices),
    )


# One end of a link for PFC: (its RoCE priority, its PFC priorities, it sends PFC)
End = tuple[int | None, list[int], bool]


def _pauses(sender: End, receiver: End) -> bool:
    """Does a channel carry PFC's pause (ends as _pfc_end gives them): the receiver sends PFC
    for its RoCE priority and the sender honours PFC on it? Either end with PFC off on that
    priority breaks the chain."""
    priority, receiving, sends = receiver
    return sends and priority in receiving and priority in sender[1]


def _pfc_end(
    fabric: FabricPlan, nics: dict[str, NicPlan], node: str, port: str, peer: str, peer_port: str
) -> End:
    """(RoCE priority, PFC priorities, sends PFC) of node:port, cabled to peer:peer_port. A
    switch port says so in its plan (lossless: PFC on, no drop); a forwarding server's NIC in
    its NIC plan, and where that does not say (None), it follows the switch port it faces."""
    device = fabric.devices.get(node)
    if device is not None:
        plan = device.ports.get(port)
        if plan is None:
            return device.roce_priority, [], False
        return device.roce_priority, plan.pfc_priorities, plan.lossless
    nic = nics.get(f"{node}:{port}")
    priority = nic.roce_priority if nic is not None else None
    priorities = nic.pfc_priorities if nic is not None else None
    facing = fabric.devices.get(peer)
    if facing is not None:
        facing_port = facing.ports.get(peer_port)
        if priority is None:
            priority = facing.roce_priority
        if priorities is None:
            priorities = facing_port.pfc_priorities if facing_port and facing_port.lossless else []
    priorities = priorities or []
    return priority, priorities, priority in priorities


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
    component of the dependency graph (Tarjan, iterative); a component over the same pairs
    of routers as one already kept (the same links the other way round) is not repeated.
    How many there are does not depend on names: components are the graph's."""
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
    kept: dict[frozenset[frozenset[str]], list[Channel]] = {}
    for component in components:
        pairs = frozenset(frozenset((c.sender, c.receiver)) for c in component)
        kept.setdefault(pairs, component)
    return sorted(_cycle_in(sorted(c), depends) for c in kept.values())


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


# The whole check's budget, in units of work (see Work and the module docstring): it bounds
# what the check costs, whatever the inventory. One unit is a few Python operations: 10
# million took 3-5 s on one core of the shared 2-core machine of docs/deadlock.md. That
# checks in full the inventories/ (a generated 32,768-GPU fabric, its leaves and spines
# twins), the fabrics of the tests and the asymmetric 80-leaf / 40-spine and 120 / 60
# fabrics of docs/deadlock.md, and a hostile inventory costs a CI job seconds, not hours.
DEADLOCK_BUDGET = 10_000_000


def _twins(top: Topology, down: frozenset[Channel], work: Work) -> dict[str, int]:
    """router -> its twin class, with the `down` channels gone. Twins have the same tier,
    the same roles (endpoint, switch) and the same neighbours over the same number of
    cables, lossless the same ways: they are not neighbours of each other, and swapping two
    of them maps the fabric onto itself (an automorphism), so whatever the check computes
    for one it computes, mirrored, for the other. Unlike colour refinement (alike
    neighbourhoods up to colour), which groups routers that are not symmetric."""
    work.charge(len(top.tiers) + 2 * len(top.links))
    routers = list(top.tiers)
    number = {r: i for i, r in enumerate(routers)}
    counts = top.cable_counts()
    neighbours: list[list[tuple[int, int, bool, bool]]] = [[] for _ in routers]
    for bundle, (forward, backward) in enumerate(top.links):
        if forward in down or backward in down:
            continue
        into_b, into_a = forward in top.lossless, backward in top.lossless
        a, b = number[forward.sender], number[forward.receiver]
        neighbours[a].append((b, counts[bundle], into_b, into_a))
        neighbours[b].append((a, counts[bundle], into_a, into_b))
    destinations, switches = set(top.destinations), set(top.switches)
    labels: dict[tuple, int] = {}
    return {
        r: labels.setdefault(
            (top.tiers[r], r in destinations, r in switches, tuple(sorted(neighbours[i]))),
            len(labels),
        )
        for i, r in enumerate(routers)
    }


@dataclass
class _Analysis:
    cycles: list[list[Channel]]
    bounces: list[tuple[Channel, Channel]]
    routes: dict[str, dict[str, list[Channel]]]  # destination routed -> its routes
    twins: dict[str, int]  # router -> twin class (the routes of a twin stand for its own)
    unrouted: list[str] = field(default_factory=list)  # the budget ran out before these


def _analysis(
    top: Topology, down: frozenset[Channel], work: Work, *, partial: bool = False
) -> _Analysis:
    """Cycles and order-breaking dependencies (bounces) with the `down` channels gone.

    One destination of each twin class is routed first; when none of their routes bounces,
    the twins' routes (their mirror images) do not either, and there is no cycle. Otherwise
    every destination is routed.

    Out of budget: with `partial`, what the destinations routed so far show (their
    dependencies are real, so are the cycles and bounces among them) and the destinations
    left; without, OutOfBudget (an analysis of a failure is all or nothing)."""
    destinations = top.destinations
    depends: dict[Channel, set[Channel]] = {}
    routes: dict[str, dict[str, list[Channel]]] = {}
    twins: dict[str, int] = {}
    try:
        twins = _twins(top, down, work)
        firsts: dict[int, str] = {}
        for destination in destinations:
            firsts.setdefault(twins[destination], destination)
        into = _into(top, down, work)
        for destination in sorted(firsts.values()):
            next_hops = _route(into, destination, work)
            _depend(top, destination, next_hops, depends, work)
            routes[destination] = next_hops  # routed: all its dependencies are in
        if not _bounces(top, depends):
            return _Analysis([], [], routes, twins)  # and none in the twins' mirror images
        for destination in destinations:
            if destination not in routes:
                next_hops = _route(into, destination, work)
                _depend(top, destination, next_hops, depends, work)
                routes[destination] = next_hops
    except OutOfBudget:
        if not partial:
            raise
    bounces = _bounces(top, depends)
    # every dependency follows the order: no cycle can close
    cycles = _cycles(depends) if bounces else []
    unrouted = [d for d in destinations if d not in routes]
    return _Analysis(cycles, bounces, routes, twins, unrouted)


def _analyse(
    top: Topology, down: frozenset[Channel], work: Work | None = None
) -> tuple[list[list[Channel]], list]:
    """Cycles and order-breaking dependencies (bounces) with the `down` channels gone."""
    found = _analysis(top, down, work or Work(DEADLOCK_BUDGET))
    return found.cycles, found.bounces


def check_deadlock(fabric: FabricPlan, budget: int | None = None) -> DeadlockReport:
    """Bounces and cycles as written; when there is no cycle as written, cycles after each
    failure case: every cable down, every switch rebooting (a fabric that can deadlock
    already is fixed first: one cause, one finding). A cycle and its reverse over the same
    links are one finding; each failure case that closes cycles is one finding.

    Within `budget` units of work (DEADLOCK_BUDGET): past it the report lists what was not
    checked (`unrouted`, `unchecked`; `partial`), and the findings are what was found."""
    return _check(topology(fabric), Work(DEADLOCK_BUDGET if budget is None else budget))


def _check(top: Topology, work: Work) -> DeadlockReport:
    cables = top.every_cable()
    report = DeadlockReport(
        links=len(cables),
        switches=len(top.switches),
        destinations=len(top.destinations),
        budget=work.budget,
    )
    written = _analysis(top, frozenset(), work, partial=True)
    report.unrouted = written.unrouted
    report.routed = len(written.routes)
    report.findings = [Finding("cycle", cycle) for cycle in written.cycles]
    report.findings += [Finding("bounce", [i, o]) for i, o in written.bounces]
    everything = [Failure(cable=cable) for cable, _ in cables]
    everything += [Failure(switch=switch) for switch in top.switches]
    if written.cycles or written.unrouted:
        # a cycle as written comes first; not known free of cycles: no failure is checked
        report.unchecked = [] if written.cycles else everything
        report.work = work.spent
        return report
    try:
        links, routers = _harmful(top, written, work)
        ends = _bundles_at(top, work)
    except OutOfBudget:
        report.unchecked = everything
        report.work = work.spent
        return report
    # in inventory order: cables, then switches
    counts = top.cable_counts()
    to_analyse: list[tuple[Failure, frozenset[Channel]]] = []
    for failure, (_, bundle) in zip(everything, cables, strict=False):
        if counts[bundle] > 1:
            report.failures_parallel += 1  # routes as they were, a dependency or two less
        elif bundle not in links:
            report.failures_harmless += 1
        else:
            to_analyse.append((failure, frozenset(top.links[bundle])))
    for failure in everything[len(cables) :]:
        switch = failure.switch or ""
        if switch not in routers:
            report.failures_harmless += 1
        else:
            down = frozenset(c for bundle in ends.get(switch, ()) for c in top.links[bundle])
            to_analyse.append((failure, down))
    report.failures_checked = report.failures_parallel + report.failures_harmless
    for done, (failure, down) in enumerate(to_analyse):
        try:
            cycles = _analysis(top, down, work).cycles
        except OutOfBudget:
            report.unchecked = [f for f, _ in to_analyse[done:]]
            break
        report.failures_analysed += 1
        report.failures_checked += 1
        if cycles:
            report.findings.append(
                Finding("cycle-after-failure", cycles[0], failure, len(cycles) - 1)
            )
    report.work = work.spent
    return report


def _bundles_at(top: Topology, work: Work) -> dict[str, list[int]]:
    """router -> the bundles it is an end of."""
    work.charge(len(top.links) + 1)
    ends: dict[str, list[int]] = {}
    for bundle, (forward, _) in enumerate(top.links):
        ends.setdefault(forward.sender, []).append(bundle)
        ends.setdefault(forward.receiver, []).append(bundle)
    return ends


def _harmful(top: Topology, written: _Analysis, work: Work) -> tuple[set[int], set[str]]:
    """The bundles whose loss, and the switches whose reboot, make some endpoint lose all of
    its shortest routes toward some destination: only these can create a cycle, so only these
    need the analysis again with the failure.

    Why the others cannot. Take the bundle (or every bundle of a switch) down. A router
    *loses its routes* toward a destination when every next hop it had is gone or leads to a
    router that lost its routes (its distance grows); a router that keeps its distance
    forwards on a subset of its next hops (a new one would have been as near before), to
    routers that kept theirs. When no endpoint (where traffic starts) loses its routes,
    traffic follows the routes it had, minus what is down, and a rebooting switch's own
    traffic is gone: every dependency is one there was with every link up, and that graph
    has no cycle (failures are checked only then).

    Who loses routes toward d: a router r loses them when the bundle down is its single
    next hop, or the switch down dominates it (lies on every shortest path from r to d), or
    such a router dominates it. So per destination the routers' immediate dominators in the
    graph of shortest paths (computed nearest first, each the meeting point of its next
    hops'), and each endpoint's chain of dominators up to d: every switch on it, and every
    single next hop of a router on it, is harmful.

    Destinations stood for by a twin (see _analysis): the failures harmful toward it are
    the mirror images of those harmful toward the twin routed."""
    switches = set(top.switches)
    bundle_of = {channel: bundle for bundle, pair in enumerate(top.links) for channel in pair}
    pair_of = {
        (forward.sender, forward.receiver): bundle for bundle, (forward, _) in enumerate(top.links)
    }
    by_class: dict[int, list[str]] = {}
    for destination in top.destinations:
        by_class.setdefault(written.twins[destination], []).append(destination)
    links: set[int] = set()
    routers: set[str] = set()
    for destination, next_hops in written.routes.items():
        found_links, found_routers = _harmful_toward(
            destination, next_hops, top.destinations, bundle_of, work
        )
        links |= found_links
        routers |= found_routers & switches
        for twin in by_class[written.twins[destination]]:
            if twin in written.routes:
                continue
            work.charge(len(found_links) + len(found_routers) + 1)
            swap = {destination: twin, twin: destination}
            for bundle in found_links:
                forward = top.links[bundle][0]
                a = swap.get(forward.sender, forward.sender)
                b = swap.get(forward.receiver, forward.receiver)
                links.add(pair_of[(a, b) if a < b else (b, a)])
            routers |= {swap.get(r, r) for r in found_routers} & switches
    return links, routers


def _harmful_toward(
    destination: str,
    next_hops: dict[str, list[Channel]],
    endpoints: list[str],
    bundle_of: dict[Channel, int],
    work: Work,
) -> tuple[set[int], set[str]]:
    """The bundles and routers whose loss makes an endpoint lose its routes toward
    `destination` (see _harmful)."""
    idom = {destination: destination}  # immediate dominator toward the destination
    depth = {destination: 0}  # in the dominator tree; at most the distance
    distance = {destination: 0}
    for router, hops in next_hops.items():  # nearest first: its next hops are done
        first = hops[0].receiver
        # meeting two next hops walks up at most both depths: at most 2 x distance
        work.charge(1 + len(hops) * (1 + 2 * distance[first]))
        a = first
        for hop in hops[1:]:
            b = hop.receiver
            while a != b:
                depth_a, depth_b = depth[a], depth[b]
                if depth_a >= depth_b:
                    a = idom[a]
                if depth_b >= depth_a:
                    b = idom[b]
        idom[router] = a
        depth[router] = depth[a] + 1
        distance[router] = distance[first] + 1
    work.charge(len(next_hops) + len(endpoints) + 1)
    links: set[int] = set()
    routers: set[str] = set()
    for endpoint in endpoints:
        if endpoint not in next_hops:
            continue  # the destination itself, or no route to lose
        if len(next_hops[endpoint]) == 1:
            links.add(bundle_of[next_hops[endpoint][0]])
        above = idom[endpoint]
        while above != destination and above not in routers:
            routers.add(above)
            if len(next_hops[above]) == 1:
                links.add(bundle_of[next_hops[above][0]])
            above = idom[above]
    return links, routers
