"""The PFC deadlock check (LL140-LL142) against an independent brute force
(tests/deadlock_reference.py), and its verdict under renaming and reordering: what it finds
depends on the fabric, never on device names or the order of the inventory."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from deadlock_reference import Spec, Verdict, inventory, random_spec, reference

from lossless.inventory import load_inventory
from lossless.lint.deadlock_rules import (
    lossless_bounce,
    pfc_deadlock_after_failure,
    pfc_deadlock_cycle,
)
from lossless.plan import FabricPlan
from lossless.planner.deadlock import DeadlockReport, check_deadlock
from lossless.planner.fabric import plan_fabric


def _plan(tmp_path, text: str, name: str = "fabric.yaml") -> FabricPlan:
    path = tmp_path / name
    path.write_text(text)
    return plan_fabric(load_inventory(path))


def _verdict(report: DeadlockReport) -> Verdict:
    """The check's report in the reference's terms."""
    failing: set[tuple[str, ...]] = set()
    for finding in report.findings:
        if finding.kind == "cycle-after-failure" and finding.failed is not None:
            cable = finding.failed.cable
            if cable is None:
                failing.add(("reboot", finding.failed.switch or ""))
            else:
                sent, received = cable.sender, cable.receiver
                failing.add(
                    ("cable", f"{sent}:{cable.sender_port}", f"{received}:{cable.receiver_port}")
                )
    return Verdict(
        any(f.kind == "cycle" for f in report.findings),
        {f.path[0].receiver for f in report.findings if f.kind == "bounce"},
        failing,
    )


def _rules(plan: FabricPlan) -> Counter:
    """How many findings of each rule and severity LL140-LL142 give."""
    found = [*pfc_deadlock_cycle(plan), *pfc_deadlock_after_failure(plan), *lossless_bounce(plan)]
    return Counter((f.rule, f.severity) for f in found)


def test_the_check_agrees_with_a_brute_force_reference_on_random_small_fabrics(tmp_path):
    """Seeded random fabrics (2-4 spines, 3-8 leaves, missing uplinks, parallel cables,
    cables between two leaves or two spines, ports and NICs with PFC off, servers that
    forward): a cycle as written or not, the routers where traffic bounces, and which failure
    cases (each cable down, each switch rebooting) close a cycle, as the reference finds them
    routing everything again from scratch per case, each cable its own channel."""
    seen: Counter = Counter()
    for seed in range(40):
        spec = random_spec(seed)
        plan = _plan(tmp_path, inventory(spec))
        report = check_deadlock(plan)
        assert not report.partial, seed
        expected = reference(plan)
        assert _verdict(report) == expected, seed
        counts = _rules(plan)
        assert counts[("LL140", "error")] >= expected.cycle
        assert counts[("LL141", "error")] == len(expected.failing)
        assert counts[("LL142", "warning")] == len(expected.bounces)
        seen["cycle" if expected.cycle else "failing" if expected.failing else "safe"] += 1
        seen["reboot"] += any(case[0] == "reboot" for case in expected.failing)
        seen["parallel"] += len({(a, b) for a, b, *_ in spec.cables}) < len(spec.cables)
        seen["pfc off"] += not all(a and b for *_, a, b in spec.cables)
        seen["forwarding"] += any(forwards for *_, forwards in spec.servers)
        seen["lateral"] += any(spec.switches[a] == spec.switches[b] for a, b, *_ in spec.cables)
    # every kind of fabric and verdict is among them
    assert min(seen.values()) >= 2 and len(seen) == 8, seen


def _blocks(bad: str, count: int = 4) -> Spec:
    """`count` blocks of 4 leaves and 4 spines under 2 super-spines, every leaf with a server
    and (but the single-homed one) 2 or 3 uplinks, every spine on both super-spines. A
    healthy block is two squares (2 leaves sharing 2 spines); block 2 is bad: its 8 cables
    make a ring
    (`bad="ring"`, routes bounce around it, a cycle as written) or one of its leaves has one
    uplink (`bad="single-homed"`: a cycle when one of its neighbours' cables goes down).

    Degrees are equal everywhere in the ring variant, so colour refinement, which the check
    sampled by before, cannot tell the bad block from the healthy ones: one leaf stood for
    all, and the verdict hung on whether the first leaf by name was in the ring."""
    squares = [(0, 0), (0, 1), (1, 0), (1, 1), (2, 2), (2, 3), (3, 2), (3, 3)]
    ring = [(0, 0), (1, 0), (1, 1), (2, 1), (2, 2), (3, 2), (3, 3), (0, 3)]
    # leaf 3 has one uplink (spine 0), leaves 0-2 share spines 0 and 1; spines 2 and 3 keep
    # a leaf each (leaves 0 and 1)
    single = [(0, 0), (0, 1), (1, 0), (1, 1), (2, 0), (2, 1), (3, 0), (0, 2), (1, 3)]
    switches: dict[str, str] = {"super1": "super-spine", "super2": "super-spine"}
    cables, servers = [], []
    for block in range(1, count + 1):
        leaves = [f"b{block}leaf{i}" for i in range(1, 5)]
        spines = [f"b{block}spine{i}" for i in range(1, 5)]
        switches.update({**dict.fromkeys(leaves, "leaf"), **dict.fromkeys(spines, "spine")})
        pairs = squares if block != 2 else ring if bad == "ring" else single
        cables += [(leaves[i], spines[j], True, True) for i, j in pairs]
        cables += [(spine, top, True, True) for spine in spines for top in ("super1", "super2")]
        servers += [(f"gpu-{leaf}", [(leaf, True)], False) for leaf in leaves]
    return Spec(switches, cables, servers)


def _bad_block_named(spec: Spec, place: str) -> dict[str, str]:
    """Names that sort the bad block (block 2) first, in the middle or last of the blocks
    (its switches and servers)."""
    bad, others = {"first": ("a", "pqr"), "middle": ("m", "cep"), "last": ("z", "cep")}[place]
    prefixes = iter(others)
    names: dict[str, str] = {}
    for block in range(1, len(others) + 2):
        prefix = bad if block == 2 else next(prefixes)
        for switch in spec.switches:
            if switch.startswith(f"b{block}"):
                names[switch] = prefix + switch[2:]
                names[f"gpu-{switch}"] = f"gpu-{prefix}{switch[2:]}"
    return names


@pytest.mark.parametrize("bad", ["ring", "single-homed"])
def test_one_bad_block_among_alike_blocks_is_found_whatever_the_names(tmp_path, bad):
    """The same fabric with the bad block's devices named to sort first, in the middle and
    last, and with devices, servers and links shuffled in the inventory: the same findings
    (rule, severity, how many), the reference's verdict."""
    spec = _blocks(bad)
    variants = {"as built": inventory(spec)}
    for place in ("first", "middle", "last"):
        renamed = spec.renamed(_bad_block_named(spec, place))
        variants[place] = inventory(renamed)
        variants[f"{place}, shuffled"] = inventory(renamed, shuffle=len(variants))
    counts = {}
    for name, text in variants.items():
        plan = _plan(tmp_path, text, f"{name.replace(' ', '-').replace(',', '')}.yaml")
        report = check_deadlock(plan)
        assert not report.partial
        if name in ("as built", "last, shuffled"):  # the brute force is slow: two of them
            assert _verdict(report) == reference(plan), name
        counts[name] = _rules(plan)
    assert len({tuple(sorted(c.items())) for c in counts.values()}) == 1, counts
    found = counts["as built"]
    if bad == "ring":
        assert found[("LL140", "error")] >= 1 and found[("LL141", "error")] == 0
    else:  # fine as written; each cable between the leaf's neighbours and spine 1 closes one
        assert found[("LL140", "error")] == 0 and found[("LL141", "error")] >= 3


def test_random_fabrics_renamed_and_shuffled_give_the_same_findings(tmp_path):
    """Random names (a random order of sorting) and a random inventory order, on random
    small fabrics: the same rule IDs, severities and counts."""
    for seed in range(8):
        spec = random_spec(seed)
        rng = random.Random(seed)
        targets = [f"sw{n:02d}" for n in rng.sample(range(100), len(spec.switches))]
        renamed = spec.renamed(dict(zip(spec.switches, targets, strict=True)))
        one = _rules(_plan(tmp_path, inventory(spec), "one.yaml"))
        other = _rules(_plan(tmp_path, inventory(renamed, shuffle=seed), "other.yaml"))
        assert one == other, seed


def test_a_switch_reboot_closes_a_cycle_that_no_single_cable_does(tmp_path, run):
    """leaf1 and leaf2 share only spine3, each over two parallel cables: losing one cable
    changes no route, but when spine3 reboots their traffic bounces through leaf3 and leaf4
    both ways, and LL141 names the switch."""
    leaves = ["leaf1", "leaf2", "leaf3", "leaf4"]
    pairs = [("leaf1", "spine1"), ("leaf1", "spine3"), ("leaf1", "spine3")]
    pairs += [("leaf2", "spine2"), ("leaf2", "spine3"), ("leaf2", "spine3")]
    pairs += [(leaf, spine) for leaf in ("leaf3", "leaf4") for spine in ("spine1", "spine2")]
    spec = Spec(
        {**dict.fromkeys(leaves, "leaf"), **dict.fromkeys(["spine1", "spine2", "spine3"], "spine")},
        [(a, b, True, True) for a, b in pairs],
        [(f"gpu{n}", [(leaf, True)], False) for n, leaf in enumerate(leaves, 1)],
    )
    path = tmp_path / "reboot.yaml"
    path.write_text(inventory(spec))
    plan = plan_fabric(load_inventory(path))
    report = check_deadlock(plan)
    assert _verdict(report) == reference(plan) == Verdict(False, set(), {("reboot", "spine3")})
    assert report.failures_parallel == 4  # the cables to spine3
    result = run("lint", str(path), "--select", "LL14")
    assert result.code == 1
    line = next(n for n, text in enumerate(inventory(spec).splitlines(), 1) if text == "  spine3:")
    assert (
        f"reboot.yaml:{line}:3: error LL141 [pfc-deadlock-after-failure] after spine3 reboots "
        "(all its links down at once), cyclic buffer dependency (PFC deadlock) on "
    ) in result.out
    assert result.out.count("error LL141") == 1
