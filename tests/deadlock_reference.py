"""An independent, brute-force PFC deadlock check to hold lossless/planner/deadlock.py to.

Written from the model of docs/deadlock.md, not from the analysis' code: no bundles, no
twins, no dominators, no shortcut. Every cable is its own pair of channels; routes are plain
breadth-first shortest paths per destination over the routers; every failure case (each
cable, each switch reboot) is routed again from scratch; cycles are found by depth-first
search. Slow, and only for the small fabrics of tests/test_deadlock_reference.py.

It reads the plan's devices, ports, NICs and links only (what the inventory says), and also
builds those small fabrics as inventories (`Spec`, `inventory`)."""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from lossless.plan import FabricPlan

TIER = {"leaf": 1, "spine": 2, "super-spine": 3}


@dataclass
class Verdict:
    cycle: bool  # a cyclic dependency with every cable up
    bounces: set[str]  # routers where a dependency goes down and up again, or sideways
    # failure cases that close a cycle (checked only without a cycle as written): ("cable",
    # "a-node:port", "b-node:port") as the inventory writes it, or ("reboot", switch)
    failing: set[tuple[str, ...]] = field(default_factory=set)


def reference(plan: FabricPlan) -> Verdict:
    forwarding = set(plan.forwarding_servers)
    routers = set(plan.devices) | forwarding
    tier = {name: TIER.get(device.role, 1) for name, device in plan.devices.items()}
    tier.update({server: 0 for server in forwarding})
    endpoints = set(forwarding)
    cables = []  # (a, a_port, b, b_port) between two routers
    for link in plan.links:
        a, a_port = link.a.split(":", 1)
        b, b_port = link.b.split(":", 1)
        if a in routers and b in routers:
            if a != b:
                cables.append((a, a_port, b, b_port))
        elif a in plan.devices:
            endpoints.add(a)
        elif b in plan.devices:
            endpoints.add(b)
    nics = plan.planned_nics()

    def end(node: str, port: str, peer: str, peer_port: str) -> tuple:
        """(RoCE priority, PFC priorities, sends pause) of one end of a cable."""
        if node in plan.devices:
            device = plan.devices[node]
            port_plan = device.ports.get(port)
            if port_plan is None:
                return device.roce_priority, set(), False
            return device.roce_priority, set(port_plan.pfc_priorities), port_plan.lossless
        nic = nics.get(f"{node}:{port}")
        switch = plan.devices.get(peer)
        switch_port = switch.ports.get(peer_port) if switch else None
        priority = nic.roce_priority if nic else None
        if priority is None and switch is not None:
            priority = switch.roce_priority
        if nic is not None and nic.pfc_priorities is not None:
            priorities = set(nic.pfc_priorities)
        elif switch_port is not None and switch_port.lossless:
            priorities = set(switch_port.pfc_priorities)
        else:
            priorities = set()
        return priority, priorities, priority in priorities

    def pauses(sender: tuple[str, str], receiver: tuple[str, str]) -> bool:
        priority, receiving, sends = end(*receiver, *sender)
        return sends and priority in receiving and priority in end(*sender, *receiver)[1]

    # channels: (cable index, 0: a -> b, 1: b -> a)
    lossless = set()
    for index, (a, a_port, b, b_port) in enumerate(cables):
        if pauses((a, a_port), (b, b_port)):
            lossless.add((index, 0))
        if pauses((b, b_port), (a, a_port)):
            lossless.add((index, 1))

    def analyse(up: list[int], gone: str | None) -> tuple[bool, set[str]]:
        """(a cycle, the routers with order-breaking dependencies) with only `up` cables."""
        channels_from: dict[str, dict[str, list[tuple[int, int]]]] = {r: {} for r in routers}
        for index in up:
            a, _, b, _ = cables[index]
            channels_from[a].setdefault(b, []).append((index, 0))
            channels_from[b].setdefault(a, []).append((index, 1))
        present = sorted(endpoints - {gone})
        depends: dict[tuple[int, int], set[tuple[int, int]]] = {}
        bounce_at: set[str] = set()
        for destination in present:
            distance = {destination: 0}
            frontier = [destination]
            while frontier:
                following = []
                for node in frontier:
                    for neighbour in channels_from[node]:
                        if neighbour not in distance:
                            distance[neighbour] = distance[node] + 1
                            following.append(neighbour)
                frontier = following

            def nearer(node: str, d: dict[str, int] = distance) -> list[str]:
                return [n for n in channels_from[node] if d.get(n) == d[node] - 1]

            # routers that carry traffic toward the destination: the endpoints with a route,
            # and every router they reach along shortest paths
            carrying = {s for s in present if s in distance and s != destination}
            stack = list(carrying)
            while stack:
                node = stack.pop()
                for n in nearer(node):
                    if n != destination and n not in carrying:
                        carrying.add(n)
                        stack.append(n)
            for u in carrying:
                for v in nearer(u):
                    if v == destination:
                        continue
                    for w in nearer(v):
                        for c_in in channels_from[u][v]:
                            for c_out in channels_from[v][w]:
                                if c_in in lossless and c_out in lossless:
                                    depends.setdefault(c_in, set()).add(c_out)
                                    into_v, out_of_v = tier[v] - tier[u], tier[w] - tier[v]
                                    if into_v == 0 or out_of_v == 0 or into_v < 0 < out_of_v:
                                        bounce_at.add(v)
        return _has_cycle(depends), bounce_at

    everything = list(range(len(cables)))
    cycle, bounces = analyse(everything, None)
    verdict = Verdict(cycle, bounces)
    if cycle:
        return verdict
    for index, (a, a_port, b, b_port) in enumerate(cables):
        if analyse([i for i in everything if i != index], None)[0]:
            verdict.failing.add(("cable", f"{a}:{a_port}", f"{b}:{b_port}"))
    for switch in plan.devices:
        kept = [i for i in everything if switch not in (cables[i][0], cables[i][2])]
        if analyse(kept, switch)[0]:
            verdict.failing.add(("reboot", switch))
    return verdict


def _has_cycle(depends: dict) -> bool:
    """Depth-first search: a dependency back to a channel still on the path closes a cycle."""
    state: dict = {}  # 1: on the path, 2: done
    for root in depends:
        if root in state:
            continue
        state[root] = 1
        path = [(root, iter(depends.get(root, ())))]
        while path:
            node, children = path[-1]
            for child in children:
                if state.get(child) == 1:
                    return True
                if child not in state:
                    state[child] = 1
                    path.append((child, iter(depends.get(child, ()))))
                    break
            else:
                state[node] = 2
                path.pop()
    return False


@dataclass
class Spec:
    """A small fabric, before names and order: switches by role, cables between two routers
    with PFC on each end, servers with their NICs (the leaf, PFC on the NIC, forwarding)."""

    switches: dict[str, str]  # name -> role
    cables: list[tuple[str, str, bool, bool]]  # a, b, PFC on a's port, on b's port
    # name, [(switch, PFC on the NIC)], routes between its NICs
    servers: list[tuple[str, list[tuple[str, bool]], bool]]

    def renamed(self, names: dict[str, str]) -> Spec:
        def n(name: str) -> str:
            return names.get(name, name)

        return Spec(
            {n(s): role for s, role in self.switches.items()},
            [(n(a), n(b), pa, pb) for a, b, pa, pb in self.cables],
            [(n(s), [(n(leaf), pfc) for leaf, pfc in nics], f) for s, nics, f in self.servers],
        )


def random_spec(seed: int) -> Spec:
    """2-4 spines and 3-8 leaves, each leaf-spine pair with 0-2 cables (missing uplinks,
    parallel cables), sometimes a cable between two leaves or two spines, ports with PFC
    off, a server on most leaves and sometimes one that forwards between two leaves."""
    rng = random.Random(seed)
    spines = [f"spine{i}" for i in range(1, rng.randint(2, 4) + 1)]
    leaves = [f"leaf{i}" for i in range(1, rng.randint(3, 8) + 1)]
    switches = {**dict.fromkeys(leaves, "leaf"), **dict.fromkeys(spines, "spine")}
    lossy = rng.choice([0.0, 0.05, 0.15])

    def pfc() -> bool:
        return rng.random() >= lossy

    cables = []
    for leaf in leaves:
        for spine in spines:
            for _ in range(rng.choices([0, 1, 2], [2, 6, 2])[0]):
                cables.append((leaf, spine, pfc(), pfc()))
    for _ in range(rng.choices([0, 1, 2], [5, 3, 1])[0]):
        tier = rng.choice([leaves, leaves, spines])
        a, b = rng.sample(tier, 2)
        cables.append((a, b, pfc(), pfc()))
    servers: list[tuple[str, list[tuple[str, bool]], bool]] = [
        (f"gpu{i}", [(leaf, True)], False)
        for i, leaf in enumerate(leaves, 1)
        if rng.random() < 0.85
    ]
    if rng.random() < 0.4:
        a, b = rng.sample(leaves, 2)
        servers.append(("router1", [(a, pfc()), (b, pfc())], True))
    return Spec(switches, cables, servers)


def inventory(spec: Spec, shuffle: int | None = None) -> str:
    """The spec as an inventory; `shuffle` seeds an order of devices, servers and links
    other than the spec's (ports are numbered in the order written)."""
    rng = random.Random(shuffle)
    switches = list(spec.switches)
    cables = list(spec.cables)
    servers = list(spec.servers)
    if shuffle is not None:
        rng.shuffle(switches)
        rng.shuffle(cables)
        rng.shuffle(servers)
    ports: dict[str, list[str]] = {s: [] for s in switches}  # per switch: "EthernetN: {...}"
    links = []

    def port(switch: str, pfc: bool) -> str:
        name = f"Ethernet{4 * len(ports[switch])}"
        lossless = "" if pfc else ", lossless: false"
        ports[switch].append(f"      {name}: {{speed: 400G{lossless}}}")
        return f"{switch}:{name}"

    server_lines = []
    for server, nics, forwards in servers:
        server_lines.append(f"  {server}:")
        if forwards:
            server_lines.append("    forwards: true")
        server_lines.append("    nics:")
        for number, (switch, pfc) in enumerate(nics):
            off = "" if pfc else ", pfc_priorities: []"
            server_lines.append(f"      eth{number}: {{speed: 400G{off}}}")
            links.append(f"  - {{a: {port(switch, True)}, b: {server}:eth{number}, cable_m: 3}}")
    for a, b, pfc_a, pfc_b in cables:
        links.append(f"  - {{a: {port(a, pfc_a)}, b: {port(b, pfc_b)}, cable_m: 30}}")
    if shuffle is not None:
        rng.shuffle(links)
    lines = [
        "fabric:",
        "  name: reference",
        "  policy: {ecn: {preset: nvidia, max_bytes: 500000}}",
        "devices:",
    ]
    for switch in switches:
        lines += [f"  {switch}:", f"    role: {spec.switches[switch]}", "    os: sonic"]
        lines += ["    asic: spectrum-4", "    ports:"]
        lines += ports[switch] or ["      Ethernet0: {speed: 400G}"]
    lines += ["servers:", *server_lines] if server_lines else []
    lines += ["links:", *links]
    return "\n".join(lines) + "\n"
