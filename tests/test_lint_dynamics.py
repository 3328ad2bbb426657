"""LL128 pause-before-mark (lint/dynamics.py): a port whose first PG reaches the PFC trigger
before its first ECN-marked frame leaves, at its real fan-in, by the fluid model. The
figures are checked against the plan and against `lossless simulate` for the same port; the
runs are bounded (each until the first pause must have come) and shared (equal scenarios,
alike switches)."""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path

import pytest
from conftest import INVENTORIES, cli

from lossless.inventory import load_inventory
from lossless.lint import dynamics
from lossless.lint.dynamics import first_events
from lossless.planner.fabric import plan_fabric
from lossless.report.plan_compact import expand
from lossless.simulate.fluid import simulate
from lossless.simulate.scenario import scenario

LAB = INVENTORIES / "lab.yaml"
PLANNED = "ecn: {preset: nvidia, max_bytes: 500000}"
# Kmax far above the trigger with the DCQCN paper's Pmax (docs/rules/examples.yaml's LL128)
STEEP = "ecn: {preset: nvidia, max_bytes: 3000000, probability_percent: 1}"


@pytest.fixture(scope="module")
def steep(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("steep") / "lab.yaml"
    text = LAB.read_text()
    assert PLANNED in text
    path.write_text(text.replace(PLANNED, STEEP))
    return path


@cache
def ll128(path: Path) -> list[dict]:
    code, out = cli("lint", str(path), "--select", "LL128", "--format", "json")
    assert code in (0, 1)
    return json.loads(out)


def test_the_planned_inventories_mark_first():
    assert ll128(LAB) == []
    assert ll128(INVENTORIES / "pod-2048.yaml") == []


def test_kmax_far_above_with_a_small_pmax_pauses_first(steep):
    """The switches whose trigger T is small against Kmax (Spectrum's 525 kB, Spectrum-3's
    802 kB, Cloud Scale GX's 889 kB) pause first at 3:1; Tomahawk-3 (1.09 MB) and Tomahawk-4
    (1.91 MB), whose PGs hold more before PFC fires, still mark first."""
    found = ll128(steep)
    assert sorted(f["device"] for f in found) == ["leaf1", "leaf2", "leaf3", "spine2"]
    assert {f["severity"] for f in found} == {"warning"}
    assert {(f["file"], f["line"]) for f in found} == {(str(steep), 15), (str(steep), 27)}


def test_the_message_has_the_plans_thresholds_and_the_simulated_times(steep):
    code, out = cli("plan", str(steep), "--format", "json")
    assert code == 0
    plan = expand(json.loads(out))["devices"]
    for f in ll128(steep):
        m = re.search(
            r"the worst, (\S+): 3:1 at line rate: the first PG pauses its sender at "
            r"([0-9.]+) us with ([0-9,]+) B in the queue, (.*?) \(Kmin ([0-9,]+) B, "
            r"Kmax ([0-9,]+) B, Pmax ([0-9.]+) %, PFC trigger ([0-9,]+) B a PG\)",
            f["message"],
        )
        assert m, f["message"]
        port, pause, queue, marked = m[1], float(m[2]), int(m[3].replace(",", "")), m[4]
        device = plan[f["device"]]
        ecn = device["ports"][port]["ecn"][0]
        assert int(m[5].replace(",", "")) == ecn["min_bytes"] == 150_000
        assert int(m[6].replace(",", "")) == ecn["max_bytes"] == 3_000_000
        assert float(m[7]) == ecn["probability_percent"] == 1
        assert int(m[8].replace(",", "")) == device["pfc_trigger"]["trigger_bytes"]
        # 3 senders' PGs at the trigger each, and what arrived in the last step
        assert (
            3 * device["pfc_trigger"]["trigger_bytes"]
            <= queue
            < 3.1 * device["pfc_trigger"]["trigger_bytes"]
        )
        # `lossless simulate` (DCQCN on: nothing is cut before the first mark) agrees
        code, out = cli(
            "simulate", str(steep), "--device", f["device"], "--port", port,
            "--duration", "0.2", "--format", "json",
        )  # fmt: skip
        run = json.loads(out)
        assert run["pauses_before_marking"] is True
        assert run["first_pause_us"] == pytest.approx(pause, abs=0.05)
        if marked.startswith("the first marked frame leaves at "):
            assert run["first_mark_us"] == pytest.approx(float(marked.split()[-2]), abs=0.05)
        else:
            assert run["first_mark_us"] is None or run["first_mark_us"] > pause


def test_each_run_lasts_until_the_first_pause_must_have_come(steep):
    """The bounded run finds the first pause a run five times longer finds, for every
    scenario of the lab, planned and steep, and of pod-2048."""
    for path in (LAB, steep, INVENTORIES / "pod-2048.yaml"):
        plan = plan_fabric(load_inventory(str(path)))
        events, _ = first_events(plan)
        checked = set()
        for (device, port), e in events.items():
            sc = scenario(plan, device, port, None)
            key = dynamics._order_free(sc)
            if key in checked:
                continue
            checked.add(key)
            bound = dynamics._duration(sc)
            assert bound is not None and e.first_pause_us is not None
            longer = simulate(sc, None, 5 * bound, step_s=dynamics.STEP_S)
            assert longer.first_pause_s is not None
            assert round(longer.first_pause_s * 1e6, 1) == e.first_pause_us, (device, port)


def test_equal_scenarios_and_alike_switches_run_once():
    plan = plan_fabric(load_inventory(str(INVENTORIES / "pod-2048.yaml")))
    events, runs = first_events(plan)
    assert len(events) == sum(
        1 for d in plan.devices.values() for p in d.ports.values() if p.lossless and p.peer
    )
    assert runs == 3  # the leaves' server ports and uplinks, the spines' ports


def test_a_port_its_senders_cannot_outrun_is_not_simulated():
    """A 400G port fed by one 100G port: the queue never builds, nothing to judge."""
    plan = plan_fabric(load_inventory(str(LAB)))
    sc = scenario(plan, "leaf1", "Ethernet0", None)
    import dataclasses

    slow = dataclasses.replace(sc, senders=(dataclasses.replace(sc.senders[0], speed_bps=100e9),))
    assert dynamics._duration(slow) is None


def test_a_plan_linted_again_in_one_process_is_not_simulated_again(monkeypatch):
    """ci lints the plan and then the configs against it, and a library caller lints many
    configs against one inventory: each scenario is worked out once per process (the
    read-back harness went from 18 s to 2 s on one switch)."""
    fabric = plan_fabric(load_inventory(str(LAB)))
    monkeypatch.setattr(dynamics, "_WORKED_OUT", {})
    runs = []
    real = dynamics._events
    monkeypatch.setattr(dynamics, "_events", lambda sc: runs.append(sc) or real(sc))
    first = first_events(fabric)
    simulated = len(runs)
    assert simulated > 0
    assert first_events(fabric) == first
    assert len(runs) == simulated


def test_the_worked_out_scenarios_are_bounded(monkeypatch):
    fabric = plan_fabric(load_inventory(str(LAB)))
    monkeypatch.setattr(dynamics, "_WORKED_OUT", {})
    monkeypatch.setattr(dynamics, "_WORKED_OUT_MAX", 2)
    first = first_events(fabric)
    assert len(dynamics._WORKED_OUT) <= 2
    assert first_events(fabric) == first  # the oldest were dropped and worked out again


def _with_leaf5(text: str) -> str:
    """The lab with leaf5, leaf1's twin: the same switch, ports, cables and servers."""
    twin = "\n".join(
        [
            "  leaf5:",
            "    role: leaf",
            "    os: sonic",
            "    asic: spectrum-4",
            "    platform: SN5600",
            "    mgmt: 192.0.2.15",
            "    ports:",
            "      Ethernet[0:4:4]: {profile: server-400g}",
            "      Ethernet[248:252:4]: {profile: uplink-400g}",
            "  spine1:",
        ]
    )
    servers = '  gpu[05:06]:\n    nics: {"eth0": {speed: 400G, model: ConnectX-7, mtu: 9000}}\n'
    links = (
        '  - {a: "leaf5:Ethernet[0:4:4]", b: "gpu[05:06]:eth0", cable_m: 2}\n'
        "  - {a: leaf5:Ethernet248, b: spine2:Ethernet16, cable_m: 30}\n"
        "  - {a: leaf5:Ethernet252, b: spine2:Ethernet20, cable_m: 35}\n"
    )
    for old, new in (
        ("  spine1:", twin),
        (
            "Ethernet[0:12:4]: {profile: downlink-400g}",
            "Ethernet[0:20:4]: {profile: downlink-400g}",
        ),
        ("  gpu[03:04]:", servers + "  gpu[03:04]:"),
    ):
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    return text + links


def test_alike_switches_are_worked_out_once_and_each_gets_its_finding(steep, tmp_path):
    path = tmp_path / "lab.yaml"
    path.write_text(_with_leaf5(steep.read_text()))
    found = {f["device"]: f["message"] for f in ll128(path)}
    assert sorted(found) == ["leaf1", "leaf2", "leaf3", "leaf5", "spine2"]
    assert found["leaf5"] == found["leaf1"].replace("--device leaf1", "--device leaf5")
    events, _ = first_events(plan_fabric(load_inventory(path)))
    pausing = {(d, p) for (d, p), e in events.items() if e.pauses_first}
    assert {d for d, _ in pausing} == set(found)
    assert {p for d, p in pausing if d == "leaf5"} == {p for d, p in pausing if d == "leaf1"}
