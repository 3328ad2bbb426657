"""Configs we did not write (pull requests, running configs, backups) that a parser cannot
read are bad input naming the file, exit 2, never a traceback: another OS's file, JSON and
NVUE documents of the wrong shape, nesting and alias bombs, numbers no switch holds. What a
parser cannot place precisely stops at the generic boundary at FILE:1:1."""

from __future__ import annotations

import json
import shutil
import time

import pytest
from conftest import INVENTORIES, REPO

from lossless.vendors import untrusted

LAB = str(INVENTORIES / "lab.yaml")
GOLDEN = REPO / "golden" / "lab"
OS_OF = {"leaf1.json": "sonic", "leaf2.yaml": "cumulus", "leaf3.cfg": "nxos"}
OS_OF |= {"leaf4.conf": "junos", "spine1.cfg": "eos"}


def _golden(name: str) -> str:
    return (GOLDEN / name).read_text()


def _repeat_first_interface(text: str, start: str, end: str) -> str:
    i = text.index(start)
    return text + text[i : text.index(end, i) + len(end)]


REPEATED = {  # a real running config can repeat `interface X`
    "spine1.cfg": _repeat_first_interface(_golden("spine1.cfg"), "interface Ethernet1/1\n", "!\n"),
    "leaf3.cfg": _repeat_first_interface(_golden("leaf3.cfg"), "interface Ethernet1/1\n", "!\n"),
}

BROKEN = {
    ("leaf1.json", "port-is-a-number"): json.dumps({"PORT": {"Ethernet0": 5}}),
    ("leaf1.json", "tables-are-a-list"): json.dumps({"PORT": [1, 2], "PORT_QOS_MAP": []}),
    ("leaf1.json", "null-values"): json.dumps(
        {"PORT": {"Ethernet0": {"speed": None, "mtu": None}}, "CABLE_LENGTH": None}
    ),
    ("leaf1.json", "mtu-not-a-number"): json.dumps({"PORT": {"Ethernet0": {"mtu": "abc"}}}),
    ("leaf1.json", "deep-nesting"): '{"PORT": ' + "[" * 100_000 + "]" * 100_000 + "}",
    ("leaf1.json", "mtu-out-of-range"): _golden("leaf1.json").replace(
        '"mtu": "9100"', '"mtu": "1' + "0" * 300 + '"', 1
    ),
    ("leaf2.yaml", "set-is-a-number"): "- set: {interface: 5, qos: {pfc: 7}}\n",
    ("leaf2.yaml", "priority-not-a-number"): (
        "- set:\n    qos:\n      mapping:\n        default-global:\n"
        "          dscp: {26: {switch-priority: high}}\n"
    ),
    ("leaf2.yaml", "not-a-list"): "set: {}\n",
    ("leaf2.yaml", "python-tag"): "- set: !!python/object/apply:os.system [id]\n",
    ("spine1.cfg", "json-not-eos"): json.dumps({"PORT": {"Ethernet0": {}}}),
    ("leaf3.cfg", "yaml-not-nxos"): "- set:\n    qos: {}\n",
}


@pytest.fixture
def folder(tmp_path):
    configs = tmp_path / "configs"
    shutil.copytree(GOLDEN, configs)
    return configs


@pytest.mark.parametrize(("name", "case"), list(BROKEN), ids=lambda v: v)
def test_unreadable_config_is_bad_input_everywhere(run, folder, name, case):
    path = folder / name
    path.write_text(BROKEN[name, case])
    device = path.stem
    results = [
        run("lint", "--config", str(path), "--os", OS_OF[name]),
        run("lint", LAB, "--configs", str(folder)),
        run("diff", LAB, "--running", str(folder), "--device", device),
    ]
    for result in results:
        assert "Traceback" not in result.out + result.err
        assert result.code in (0, 1, 2), result.out + result.err
    assert results[0].code == 2 and results[1].code == 2, [r.err for r in results]
    assert f"{path}:" in results[0].err


@pytest.mark.parametrize("name", sorted(REPEATED))
def test_repeated_sections_are_read_as_one(run, folder, name):
    """A running config can repeat `interface X`: the parser merges the sections (hier_config
    alone raised DuplicateChildError) and the config lints as clean as the original."""
    path = folder / name
    path.write_text(REPEATED[name])
    result = run("lint", "--config", str(path), "--os", OS_OF[name])
    assert result.code == 0, result.out + result.err
    assert run("lint", LAB, "--configs", str(folder)).code == 0


def test_json_errors_keep_their_position(run, folder):
    path = folder / "leaf1.json"
    path.write_text('{\n  "PORT": {,}\n}\n')
    result = run("diff", LAB, "--running", str(folder), "--device", "leaf1")
    assert result.code == 2
    assert f"{path}:2:12: not a valid SONiC config: JSONDecodeError" in result.err


def test_nvue_backup_alias_bomb_is_bounded(run, folder):
    """The Cumulus diff loaded backups with an unguarded YAML load: this took 60 s / 5.5 GB."""
    lines = ['a0: &a0 ["x", "x", "x", "x", "x", "x", "x", "x", "x", "x"]']
    for level in range(1, 10):
        below = f"*a{level - 1}"
        lines.append(f"a{level}: &a{level} [{', '.join([below] * 10)}]")
    (folder / "leaf2.yaml").write_text(
        "- header: {model: x}\n- set:\n" + "".join(f"    {line}\n" for line in lines)
    )
    started = time.perf_counter()
    result = run("diff", LAB, "--running", str(folder), "--device", "leaf2")
    assert time.perf_counter() - started < 5
    assert result.code == 2
    assert "aliases expand this document to more than" in result.err
    assert str(folder / "leaf2.yaml") in result.err


def test_nvue_backup_problems_name_the_backup(run, folder):
    (folder / "leaf2.yaml").write_text("- set:\n    qos: !custom x\n")
    result = run("diff", LAB, "--running", str(folder), "--device", "leaf2")
    assert result.code == 2
    assert (
        f"{folder / 'leaf2.yaml'}:2:10: [0].set.qos: YAML tag !custom is not allowed" in result.err
    )


def test_a_parsed_number_no_switch_holds_is_out_of_range(run, folder):
    path = folder / "leaf1.json"
    path.write_text(BROKEN["leaf1.json", "mtu-out-of-range"])
    result = run("lint", "--config", str(path), "--os", "sonic")
    assert result.code == 2
    line = next(
        n for n, text in enumerate(path.read_text().splitlines(), 1) if '"mtu": "1000' in text
    )
    # the SONiC parser places it; other parsers' numbers stop at the generic range check
    assert result.err.startswith(f"{path}:{line}:13: PORT.Ethernet0.mtu:")


def test_the_boundary_passes_precise_errors_through_and_nothing_else():
    with pytest.raises(ZeroDivisionError), untrusted.unreadable_is_bad_input("f", "eos"):
        raise ZeroDivisionError  # not a data-shape failure: a bug, exit 3
    with (
        pytest.raises(untrusted.InputError) as caught,
        untrusted.unreadable_is_bad_input("f", "junos"),
    ):
        raise KeyError("x" * 1000)
    [problem] = caught.value.problems
    assert str(problem).startswith("f:1:1: not a valid Junos config: KeyError: 'xxx")
    assert len(problem.message) < 250
