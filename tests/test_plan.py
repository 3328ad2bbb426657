"""`lossless plan` and `lossless explain` on the example inventories."""

from __future__ import annotations

import json
import zlib

import pytest
from conftest import EXAMPLES, INVENTORIES, REPO
from jsonschema import Draft202012Validator

from lossless.report.plan_compact import expand

PLAN_SCHEMA = json.loads((REPO / "schemas" / "plan.schema.json").read_text())
LAB = str(INVENTORIES / "lab.yaml")


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.stem)
def test_plan_json_matches_its_schema(run, example):
    """Both forms, each against its own definition (a compact plan is no expanded one)."""
    result = run("plan", str(example), "--format", "json")
    assert result.code == 0, result.err
    compact = json.loads(result.out)
    expanded = json.loads(run("plan", str(example), "--format", "json", "--expanded").out)
    assert expand(compact) == expanded
    for plan in (compact, expanded):
        errors = sorted(Draft202012Validator(PLAN_SCHEMA).iter_errors(plan), key=str)
        assert not errors, errors[0]
    swapped = {**compact, "form": "expanded"}
    assert list(Draft202012Validator(PLAN_SCHEMA).iter_errors(swapped))
    plan = expanded
    # every port's derivations resolve
    for device in plan["devices"].values():
        assert device["budget"]["derivation"] in plan["derivations"]
        for port in device["ports"].values():
            for item in port["headroom"] + port["ecn"]:
                assert item["derivation"] in plan["derivations"]


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.stem)
def test_plan_is_deterministic(run, example):
    first = run("plan", str(example), "--format", "json").out
    second = run("plan", str(example), "--format", "json").out
    assert first == second


def test_lab_plan_covers_every_device_and_linked_port(run):
    plan = expand(json.loads(run("plan", LAB, "--format", "json").out))
    assert sorted(plan["devices"]) == ["leaf1", "leaf2", "leaf3", "leaf4", "spine1", "spine2"]
    for device in plan["devices"].values():
        for port in device["ports"].values():
            assert port["lossless"] == (port["peer"] is not None)
            if port["lossless"]:
                assert port["headroom"] and port["ecn"] and port["watchdog"]
                assert port["pfc_priorities"] == [3]


def test_lab_maps_and_schedulers(run):
    device = expand(json.loads(run("plan", LAB, "--format", "json", "--device", "leaf2").out))[
        "devices"
    ]["leaf2"]
    assert device["maps"]["dscp_to_tc"]["26"] == 3
    assert device["maps"]["dscp_to_tc"]["48"] == 6
    assert {v for k, v in device["maps"]["dscp_to_tc"].items() if k not in ("26", "48")} == {0}
    assert device["maps"]["tc_to_pg"] == {
        "0": 0,
        "1": 0,
        "2": 0,
        "3": 3,
        "4": 0,
        "5": 0,
        "6": 0,
        "7": 0,
    }
    queues = {q["traffic"]: q for q in device["queues"]}
    assert queues["cnp"]["scheduler"] == "strict" and not queues["cnp"]["lossless"]
    assert queues["roce"] == {
        "queue": 3,
        "scheduler": "dwrr",
        "weight": 50,
        "lossless": True,
        "traffic": "roce",
    }


def test_ecmp_seeds_differ_per_switch_and_tier_and_hash_the_udp_source_port(run):
    plan = expand(json.loads(run("plan", LAB, "--format", "json").out))
    devices = plan["devices"].values()
    seeds = {d["name"]: d["ecmp"]["seed"] for d in devices}
    assert len(set(seeds.values())) == len(seeds)  # one seed per switch
    for device in devices:
        # the tier's block of 4,096 non-zero seeds (leaf 4096-8191, spine 8192-12287)
        block = {"leaf": 1, "spine": 2}[device["role"]]
        assert block * 4096 <= device["ecmp"]["seed"] < (block + 1) * 4096
        assert 1 <= device["ecmp"]["hash_offset"] <= 15
    assert seeds["leaf1"] == 4096 + zlib.crc32(b"leaf1") % 4096  # deterministic, from the name
    assert all(d["ecmp"]["hashes_udp_source_port"] for d in devices)


def test_lab_headroom_on_spectrum_is_sonic_s(run):
    """leaf1 (Spectrum-4) Ethernet0: 400G, 2 m, MTU 9100, 4 lanes. Same inputs through the
    calculator give the same numbers as in the plan."""
    plan = json.loads(run("plan", LAB, "--format", "json", "--device", "leaf1", "--expanded").out)
    [headroom] = plan["devices"]["leaf1"]["ports"]["Ethernet0"]["headroom"]
    calc = json.loads(
        run(
            "headroom",
            "--asic",
            "spectrum-4",
            "--speed",
            "400G",
            "--cable",
            "2m",
            "--format",
            "json",
        ).out
    )[0]
    assert (headroom["xon"], headroom["xoff"], headroom["size"]) == (
        calc["xon"],
        calc["xoff"],
        calc["size"],
    )


def test_plan_text_lists_ports_and_budget(run):
    result = run("plan", LAB, "--device", "leaf3")
    assert result.code == 0
    assert "leaf3  (leaf, nxos, cisco-cloud-scale-gx)" in result.out
    assert "Ethernet1/31" in result.out and "spine1:Ethernet3/1" in result.out
    # 4 listed ports, but the budget reserves headroom on every port of the platform
    assert "budget: 32 lossless PGs on 32 ports, 28 not listed" in result.out
    assert "pfc trigger: n = 32 PGs" in result.out


def test_plan_unknown_device_is_a_usage_error(run):
    result = run("plan", LAB, "--device", "leaf9")
    assert result.code == 2
    assert "no device 'leaf9'" in result.err


def test_explain_shows_formula_with_values(run):
    result = run("explain", LAB, "leaf1", "Ethernet0")
    assert result.code == 0, result.err
    out = result.out
    assert "model:  sonic-mellanox" in out
    assert "= 905 * 512 / 8 = 57920 B" in out  # 400G pause quanta
    assert "= ceil_1KiB(96256 + 19456) = 115712 B" in out
    assert "PFC trigger" in out and "buffer budget of leaf1" in out


def test_explain_ieee_port(run):
    result = run("explain", LAB, "leaf4", "et-0/0/30")
    assert result.code == 0, result.err
    assert "model:  ieee-8021qbb" in result.out
    assert "cable_ns_per_m = 5.13" in result.out


def test_explain_unknown_port(run):
    result = run("explain", LAB, "leaf1", "Ethernet1")
    assert result.code == 2
    assert "leaf1 has no port 'Ethernet1'" in result.err


def test_headroom_formats(run):
    csv_out = run(
        "headroom",
        "--asic",
        "spectrum-3",
        "--speed",
        "100G",
        "--cable",
        "5m,40m",
        "--format",
        "csv",
    ).out.splitlines()
    assert csv_out[0].startswith("asic,model,speed_mbps,cable_m")
    assert len(csv_out) == 3
    ini = run(
        "headroom",
        "--asic",
        "spectrum-2",
        "--speed",
        "100G",
        "--cable",
        "40m",
        "--lanes",
        "4",
        "--format",
        "pg-profile-lookup",
    ).out.splitlines()
    # docs/reference/sonic.md 2
    assert ini[-1].split() == ["100000", "40m", "72704", "19456", "53248", "0"]


def test_headroom_pg_profile_lookup_in_broadcom_semantics(run):
    """Issue 39: a Broadcom table states size = the PG's guaranteed minimum, xon 0, xoff and
    xon_offset (Arista-7060X6-64PE-O128S2 pg_profile_lookup.ini at sonic-buildimage 086b03b,
    400G 5 m: size 18796, xon 0, xoff 612140, threshold 0, xon_offset 3556), as the rendered
    SONiC profiles do; it wrote size = xon + xoff (630,428) and xon 18,288 before."""
    ini = run(
        "headroom",
        "--asic",
        "tomahawk-5",
        "--speed",
        "400G",
        "--cable",
        "5m",
        "--format",
        "pg-profile-lookup",
    ).out.splitlines()
    assert ini[-2] == "# speed cable size xon xoff threshold xon_offset"
    size, xon, xoff, threshold, xon_offset = ini[-1].split()[2:]
    assert (size, xon, xoff, threshold) == ("18796", "0", "612140", "0")
    assert int(xon_offset) >= 3556  # the plan's resume gap, never below the row's


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--speed", "fast"], "--speed"),
        (["--cable=-5m"], "--cable"),
        (["--asic", "spectrum4"], "did you mean"),
        (["--mtu", "20000"], "--mtu"),
    ],
)
def test_headroom_bad_arguments(run, argv, message):
    result = run("headroom", *argv)
    assert result.code == 2
    assert message in result.err


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.stem)
def test_render_json_text_and_lint_leave_the_plan_as_planned(example):
    """Rendering every OS, the plan JSON, the plan text and every rule read a plan; none of
    them may change it (a renderer works on copies)."""
    import copy
    import io
    from dataclasses import replace

    from lossless.inventory import load_inventory
    from lossless.lint.runner import lint
    from lossless.planner.fabric import plan_fabric
    from lossless.report.plan_json import write_plan_json
    from lossless.report.plan_text import write_plan_text
    from lossless.vendors.rendering import render_device

    inventory = load_inventory(example)
    plan = plan_fabric(inventory)
    before = copy.deepcopy(plan)
    for device in plan.devices.values():
        for os_name in ("sonic", "cumulus", "eos", "nxos", "junos"):
            render_device(replace(device, os=os_name), plan)  # its parts, in every OS's terms
    write_plan_json(plan, io.StringIO())
    write_plan_text(plan, io.StringIO())
    lint(plan)
    assert plan == before


def test_ports_share_frozen_parts_and_own_their_lists():
    """Ports with the same inputs share their headroom, ECN and watchdog objects, which are
    frozen (a change cannot reach another port through them); the lists holding them are each
    port's own, so replacing one port's part changes no other."""
    import dataclasses

    from lossless.inventory import load_inventory
    from lossless.plan import replaced
    from lossless.planner.fabric import plan_fabric

    plan = plan_fabric(load_inventory(LAB))
    ports = [p for d in plan.devices.values() for p in d.ports.values() if p.lossless]
    first, second = ports[0], ports[1]
    assert first.headroom[0] is second.headroom[0] and first.ecn[0] is second.ecn[0]
    assert first.watchdog is second.watchdog
    with pytest.raises(dataclasses.FrozenInstanceError):
        first.headroom[0].xoff += 1  # type: ignore[misc]
    assert first.headroom is not second.headroom and first.ecn is not second.ecn
    first.headroom[0] = replaced(first.headroom[0], xoff=first.headroom[0].xoff + 1)
    first.ecn[0] = replaced(first.ecn[0], max_bytes=first.ecn[0].max_bytes + 1)
    first.watchdog = replaced(first.watchdog, poll_ms=first.watchdog.poll_ms + 1)
    first.pfc_priorities.append(7)
    assert first.headroom != second.headroom and first.ecn != second.ecn
    assert first.watchdog != second.watchdog and first.pfc_priorities != second.pfc_priorities


def test_headroom_takes_a_lower_case_unit_on_the_command_line(run):
    """`--speed 400g` as people type it is 400G; an inventory keeps the one upper-case shape
    of its schema (tests/test_inventory_errors.py)."""
    lower, upper = (
        run(
            "headroom",
            "--asic",
            "tomahawk-3",
            "--speed",
            speed,
            "--cable",
            "5m",
            "--format",
            "json",
        )
        for speed in ("400g", "400G")
    )
    assert lower.code == upper.code == 0
    assert lower.out == upper.out


def test_expanded_is_a_form_of_the_json(run):
    result = run("plan", LAB, "--expanded")
    assert result.code == 2 and "--format json" in result.err and not result.out
