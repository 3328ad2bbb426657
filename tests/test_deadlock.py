"""PFC deadlock check (LL140-LL142): cyclic buffer dependencies over the topology, as
written, with each cable down and with each switch rebooting, with the cycle named port by
port. tests/test_deadlock_reference.py holds the check to an independent brute force."""

from __future__ import annotations

import json
import re

import pytest
from conftest import INVENTORIES

from lossless.inventory import load_inventory
from lossless.planner.deadlock import Channel, Topology, _analyse, check_deadlock
from lossless.planner.fabric import plan_fabric

LAB = (INVENTORIES / "lab.yaml").read_text()
DEADLOCK_RULES = ("LL140", "LL141", "LL142")


def _line_of(path, text: str) -> int:
    return next(n for n, line in enumerate(path.read_text().splitlines(), 1) if text in line)


def _lint(run, path, *extra):
    return run("lint", str(path), "--select", "LL14", *extra)


@pytest.mark.parametrize("inventory", ["lab.yaml", "pod-2048.yaml"])
def test_a_clos_passes_as_written_and_under_every_single_failure(inventory):
    report = check_deadlock(plan_fabric(load_inventory(INVENTORIES / inventory)))
    assert report.findings == []
    assert report.failures_checked >= 1


def test_the_lab_checks_each_of_its_cables_down_and_each_switch_rebooting(run):
    report = check_deadlock(plan_fabric(load_inventory(INVENTORIES / "lab.yaml")))
    assert report.links == 8 and report.switches == 6 and report.failures_checked == 14
    assert report.failures_harmless == 14  # every leaf keeps a spine, every spine a twin
    assert _lint(run, INVENTORIES / "lab.yaml").code == 0


def _forwarding_server(write):
    nics = '    nics: {"eth[0:1]": {speed: 400G, model: ConnectX-7, mtu: 9000}}\n'
    old = "  gpu[01:02]:  # NVIDIA ConnectX-7; host settings inherited from the leaf ports\n"
    assert old + nics in LAB
    text = LAB.replace(old + nics, f"  gpu01:\n    forwards: true\n{nics}  gpu02:\n{nics}")
    return write(text, "forwarding.yaml")


def test_a_server_that_forwards_closes_a_named_cycle(run, write):
    """gpu01 routes between its NICs on leaf1 and leaf2: leaf1 -> gpu01 -> leaf2 ties with
    leaf1 -> spine -> leaf2, and traffic to gpu01 comes down the spines: the dependency chain
    closes through both leaves and spine1."""
    path = _forwarding_server(write)
    result = _lint(run, path)
    assert result.code == 1
    line = _line_of(path, 'a: "leaf1:Ethernet[0:4:4]"')
    assert (
        f"{path}:{line}:5: error LL140 [pfc-deadlock-cycle] cyclic buffer dependency "
        "(PFC deadlock) "
        "on gpu01:eth0 -> leaf1:Ethernet0 | leaf1:Ethernet248 -> spine1:Ethernet1/1 | "
        "spine1:Ethernet2/1 -> leaf2:swp31 | leaf2:swp1 -> gpu01:eth1"
    ) in result.out
    assert "LL142" in result.out and "bounces at gpu01" in result.out
    assert " LL141 [" not in result.out  # fix the cycle as written first: one cause, one finding


def test_a_nic_with_pfc_off_breaks_the_chain(write):
    """A channel pauses its sender only when the receiver sends PFC and the sender honours
    it. gpu01's second NIC has PFC off: nothing it receives pauses leaf2, and it does not
    stop for leaf2's pauses, so no cycle runs through it (the leaf port facing it still has
    PFC on, which alone made both directions lossless before)."""
    nics = '    nics: {"eth[0:1]": {speed: 400G, model: ConnectX-7, mtu: 9000}}\n'
    old = "  gpu[01:02]:  # NVIDIA ConnectX-7; host settings inherited from the leaf ports\n"
    off = (
        "    nics:\n"
        "      eth0: {speed: 400G, model: ConnectX-7, mtu: 9000}\n"
        "      eth1: {speed: 400G, model: ConnectX-7, mtu: 9000, pfc_priorities: []}\n"
    )
    text = LAB.replace(old + nics, f"  gpu01:\n    forwards: true\n{off}  gpu02:\n{nics}")
    plan = plan_fabric(load_inventory(write(text, "nic-pfc-off.yaml")))
    assert plan.planned_nics()["gpu01:eth1"].pfc_priorities == []
    report = check_deadlock(plan)
    assert report.findings == [] and not report.partial
    forwarding = check_deadlock(plan_fabric(load_inventory(_forwarding_server(write))))
    assert {f.kind for f in forwarding.findings} == {"cycle", "bounce"}  # with PFC on


def test_a_switch_port_with_pfc_off_breaks_the_chain_both_ways(write):
    """leaf1's port of the leaf ring has PFC off: leaf2 still sends PFC into it, but leaf1
    does not honour it (and sends none), so the cable carries no dependency either way and
    the ring's cycle is gone."""
    ring = [
        "{a: leaf1:Ethernet20, b: leaf2:swp20, cable_m: 3}",
        "{a: leaf2:swp21, b: leaf3:Ethernet1/20, cable_m: 3}",
        "{a: leaf3:Ethernet1/21, b: leaf4:et-0/0/20, cable_m: 3}",
        "{a: leaf4:et-0/0/21, b: leaf1:Ethernet24, cable_m: 3}",
    ]
    ports = {
        "leaf1": "Ethernet[20:24:4]",
        "leaf2": "swp[20:21]",
        "leaf3": "Ethernet1/[20:21]",
        "leaf4": "et-0/0/[20:21]",
    }
    text = _with_links(ports, ring)
    whole = check_deadlock(plan_fabric(load_inventory(write(text, "ring.yaml"))))
    assert any(f.kind == "cycle" for f in whole.findings)
    plan = plan_fabric(load_inventory(write(text, "ring-off.yaml")))
    plan.devices["leaf1"].ports["Ethernet20"].lossless = False
    plan.devices["leaf1"].ports["Ethernet20"].pfc_priorities = []
    assert plan.devices["leaf2"].ports["swp20"].lossless  # the other end still runs PFC
    cut = check_deadlock(plan)
    assert not cut.partial and cut.findings
    assert {f.kind for f in cut.findings} == {"bounce"}  # no cycle, as written or after a failure


def _with_links(extra_ports: dict[str, str], links: list[str]) -> str:
    """The lab with more ports on some devices and more links."""
    anchors = {
        "leaf1": "      Ethernet[248:252:4]: {profile: uplink-400g}",
        "leaf2": "      swp[31:32]: {profile: uplink-400g}",
        "leaf3": "      Ethernet1/[31:32]: {profile: uplink-400g}",
        "leaf4": "      et-0/0/[30:31]: {profile: uplink-400g}",
    }
    text = LAB
    for device, port in extra_ports.items():
        text = text.replace(
            anchors[device], f"{anchors[device]}\n      {port}: {{profile: uplink-400g}}"
        )
    return text.rstrip() + "\n" + "\n".join(f"  - {link}" for link in links) + "\n"


def test_leaf_to_leaf_links_in_a_ring_close_a_named_cycle(run, write):
    ring = _with_links(
        {
            "leaf1": "Ethernet[20:24:4]",
            "leaf2": "swp[20:21]",
            "leaf3": "Ethernet1/[20:21]",
            "leaf4": "et-0/0/[20:21]",
        },
        [
            "{a: leaf1:Ethernet20, b: leaf2:swp20, cable_m: 3}",
            "{a: leaf2:swp21, b: leaf3:Ethernet1/20, cable_m: 3}",
            "{a: leaf3:Ethernet1/21, b: leaf4:et-0/0/20, cable_m: 3}",
            "{a: leaf4:et-0/0/21, b: leaf1:Ethernet24, cable_m: 3}",
        ],
    )
    result = _lint(run, write(ring, "ring.yaml"))
    assert result.code == 1
    assert (
        "LL140 [pfc-deadlock-cycle] cyclic buffer dependency (PFC deadlock) on "
        "leaf1:Ethernet20 -> leaf2:swp20 | leaf2:swp21 -> leaf3:Ethernet1/20 | "
        "leaf3:Ethernet1/21 -> leaf4:et-0/0/20 | leaf4:et-0/0/21 -> leaf1:Ethernet24"
    ) in result.out


def test_a_leaf_to_leaf_chain_bounces_without_a_cycle(run, write):
    chain = _with_links(
        {"leaf1": "Ethernet20", "leaf2": "swp[20:21]", "leaf3": "Ethernet1/20"},
        [
            "{a: leaf1:Ethernet20, b: leaf2:swp20, cable_m: 3}",
            "{a: leaf2:swp21, b: leaf3:Ethernet1/20, cable_m: 3}",
        ],
    )
    result = _lint(run, write(chain, "chain.yaml"))
    assert result.code == 0  # a warning
    assert "warning LL142 [lossless-bounce] leaf2: lossless traffic bounces at leaf2:" in result.out
    assert "leaf1:Ethernet20 -> leaf2:swp20 | leaf2:swp21 -> leaf3:Ethernet1/20" in result.out


def test_a_single_link_failure_that_creates_a_cycle_is_reported(run, write):
    """leaf4 has one uplink (to spine1). When leaf1 loses its spine1 uplink, leaf1 and leaf4
    share no spine: their traffic comes down to leaf2 or leaf3 and goes up again, and the
    two bouncing directions close a cycle."""
    text = LAB.replace("  - {a: leaf4:et-0/0/31, b: spine2:Ethernet12, cable_m: 90}\n", "")
    path = write(text, "single-homed.yaml")
    line = _line_of(path, "a: leaf1:Ethernet248")
    result = _lint(run, path)
    assert result.code == 1
    assert " LL140 [" not in result.out  # fine with every link up
    assert (
        f"{path}:{line}:5: error LL141 [pfc-deadlock-after-failure] with leaf1:Ethernet248 - "
        "spine1:Ethernet1/1 down, cyclic buffer dependency (PFC deadlock) on "
        "leaf2:swp31 -> spine1:Ethernet2/1 | spine1:Ethernet3/1 -> leaf3:Ethernet1/31 | "
        "leaf3:Ethernet1/32 -> spine2:Ethernet8 | spine2:Ethernet4 -> leaf2:swp32"
    ) in result.out


def test_deadlock_findings_in_every_output_format(run, write):
    path = _forwarding_server(write)
    records = json.loads(_lint(run, path, "--format", "json").out)
    assert {r["rule"] for r in records} == {"LL140", "LL142"}
    sarif = json.loads(_lint(run, path, "--format", "sarif").out)
    assert "LL140" in {r["ruleId"] for r in sarif["runs"][0]["results"]}
    assert "title=LL140 pfc-deadlock-cycle" in _lint(run, path, "--format", "github").out
    assert 'type="LL140"' in _lint(run, path, "--format", "junit").out


def test_lossy_links_carry_no_dependency():
    """A cycle of channels whose receivers do not run PFC cannot pause itself."""
    a, b, c = "L1", "L2", "L3"
    links = [
        (Channel(x, "p", y, "q", "f:1:1"), Channel(y, "q", x, "p", "f:1:1"))
        for x, y in ((a, b), (b, c), (c, a))
    ]
    ring = Topology({a: 1, b: 1, c: 1}, links, set(), [a, b, c])
    assert _analyse(ring, frozenset()) == ([], [])


def test_a_partial_plan_is_not_judged_for_deadlocks(run, write):
    """`lint --device` plans a device and its peers: routes computed on part of the topology
    would bounce where the fabric does not, so the deadlock rules wait for the whole fabric."""
    path = _forwarding_server(write)
    assert " LL140 [" in _lint(run, path).out
    partial = _lint(run, path, "--device", "spine2")
    assert partial.code == 0 and not re.search(r" LL14[0-9] \[", partial.out)


def _topologies(write) -> dict[str, object]:
    """Plans of the lab and of the broken variants above: a forwarding server, a leaf ring, a
    leaf chain and a single-homed leaf."""
    ring_ports = {
        "leaf1": "Ethernet[20:24:4]",
        "leaf2": "swp[20:21]",
        "leaf3": "Ethernet1/[20:21]",
        "leaf4": "et-0/0/[20:21]",
    }
    ring = [
        "{a: leaf1:Ethernet20, b: leaf2:swp20, cable_m: 3}",
        "{a: leaf2:swp21, b: leaf3:Ethernet1/20, cable_m: 3}",
        "{a: leaf3:Ethernet1/21, b: leaf4:et-0/0/20, cable_m: 3}",
        "{a: leaf4:et-0/0/21, b: leaf1:Ethernet24, cable_m: 3}",
    ]
    texts = {
        "lab": LAB,
        "ring": _with_links(ring_ports, ring),
        "chain": _with_links(
            {"leaf1": "Ethernet20", "leaf2": "swp[20:21]", "leaf3": "Ethernet1/20"}, ring[:2]
        ),
        "single-homed": LAB.replace(
            "  - {a: leaf4:et-0/0/31, b: spine2:Ethernet12, cable_m: 90}\n", ""
        ),
    }
    paths = {name: write(text, f"{name}.yaml") for name, text in texts.items()}
    paths["forwarding"] = _forwarding_server(write)
    return {name: plan_fabric(load_inventory(path)) for name, path in paths.items()}


def test_twins_stand_for_each_other_and_find_what_routing_every_destination_finds(
    write, monkeypatch
):
    """One destination of each twin class is routed as written when none of their routes
    bounce; with no twins at all (every destination routed, every failure's analysis too) the
    findings are the same."""
    from lossless.planner import deadlock

    plans = _topologies(write)
    plans["pod-2048"] = plan_fabric(load_inventory(INVENTORIES / "pod-2048.yaml"))
    with_twins = {name: check_deadlock(plan) for name, plan in plans.items()}
    assert with_twins["lab"].routed == 1 and with_twins["pod-2048"].routed == 1
    monkeypatch.setattr(deadlock, "_twins", lambda top, down, work: {r: r for r in top.tiers})
    for name, plan in plans.items():
        alone = check_deadlock(plan)
        assert alone.findings == with_twins[name].findings, name
        assert alone.routed == alone.destinations
    assert {f.kind for r in with_twins.values() for f in r.findings} == {
        "cycle",
        "bounce",
        "cycle-after-failure",
    }


def test_swapping_two_twins_maps_the_fabric_onto_itself(write):
    """What lets one twin's routes stand for the other's: exchanging the two names maps every
    bundle onto a bundle with as many cables, lossless the same ways, and keeps tier and
    roles (an automorphism). Colour refinement classes, which the check used before, are
    not always symmetries (tests/test_deadlock_reference.py)."""
    from lossless.planner.deadlock import Work, _twins, topology

    plans = _topologies(write)
    plans["pod-2048"] = plan_fabric(load_inventory(INVENTORIES / "pod-2048.yaml"))
    swapped_some = 0
    for plan in plans.values():
        top = topology(plan)
        counts = top.cable_counts()
        bundles = {}
        for (forward, backward), count in zip(top.links, counts, strict=True):
            bundles[forward.sender, forward.receiver] = (count, forward in top.lossless)
            bundles[backward.sender, backward.receiver] = (count, backward in top.lossless)
        classes: dict[int, list[str]] = {}
        for router, twin in _twins(top, frozenset(), Work(10**9)).items():
            classes.setdefault(twin, []).append(router)
        for members in classes.values():
            for other in members[1:]:
                swap = {members[0]: other, other: members[0]}
                assert top.tiers[members[0]] == top.tiers[other]
                assert (members[0] in top.destinations) == (other in top.destinations)
                image = {(swap.get(a, a), swap.get(b, b)): v for (a, b), v in bundles.items()}
                assert image == bundles
                swapped_some += 1
    assert swapped_some >= 50


def test_every_fabric_here_is_checked_in_full_well_within_the_work_budget(write):
    """The lab, pod-2048 and the broken variants are checked in full (nothing left for the
    budget to cut), and each failure that closes a cycle, found by analysing every failure,
    is one the check analyses rather than dismisses (docs/deadlock.md, Soundness)."""
    from lossless.planner import deadlock

    plans = _topologies(write)
    plans["pod-2048"] = plan_fabric(load_inventory(INVENTORIES / "pod-2048.yaml"))
    closing_in: dict[str, set] = {}
    for name, plan in plans.items():
        report = check_deadlock(plan)
        assert not report.partial and 0 < report.work < deadlock.DEADLOCK_BUDGET // 50, name
        assert report.routed <= report.destinations
        if any(f.kind == "cycle" for f in report.findings):
            continue  # a cycle as written comes first
        assert report.failures_checked == report.failures, name
        top = deadlock.topology(plan)
        work = deadlock.Work(deadlock.DEADLOCK_BUDGET)
        written = deadlock._analysis(top, frozenset(), work, partial=True)
        links, switches = deadlock._harmful(top, written, work)
        counts = top.cable_counts()
        analysed = {b for b in links if counts[b] == 1}
        closing = closing_in[name] = {
            b for b, pair in enumerate(top.links) if _analyse(top, frozenset(pair))[0]
        }
        assert {b for b in closing if counts[b] == 1} <= analysed, name
        assert report.failures_analysed == len(analysed) + len(switches), name
    assert closing_in["single-homed"] and not closing_in["lab"] and not closing_in["chain"]
    assert not closing_in["pod-2048"]
