"""`lossless diff --running` for Cumulus (no napalm driver, so this is its push check): the
`nv set`/`nv unset` commands that take a running NVUE config to the rendered fragment, over
what lossless owns only, pasteable into a shell; backups in either form; bad backups are bad
input at their line."""

from __future__ import annotations

import io
import json
import re
import shutil
import time

import pytest
from conftest import INVENTORIES, REPO
from ruamel.yaml import YAML
from test_diff_offline import _edit

from lossless.vendors.cumulus import diff as cumulus_diff
from lossless.vendors.cumulus.read import read_nvue

LAB = str(INVENTORIES / "lab.yaml")
GOLDEN = REPO / "golden" / "lab" / "leaf2.yaml"


@pytest.fixture
def backups(tmp_path):
    folder = tmp_path / "running"
    shutil.copytree(REPO / "golden" / "lab", folder)
    return folder


def _diff(run, folder, device="leaf2"):
    result = run("diff", LAB, "--running", str(folder), "--format", "json", "--device", device)
    assert result.code == 0, result.err
    return next(d for d in json.loads(result.out)["devices"] if d["device"] == device)


def _dump(tree) -> str:
    yaml = YAML(typ="safe", pure=True)
    yaml.default_flow_style = False
    stream = io.StringIO()
    yaml.dump([{"set": tree}], stream)
    return stream.getvalue()


def _commands(tree, path=()) -> list[str]:
    """A tree as `nv config show -o commands` prints it (this test's own writer)."""
    if isinstance(tree, dict) and tree:
        return [line for key, value in tree.items() for line in _commands(value, (*path, key))]
    words = " ".join(str(p) for p in path)
    value = "" if tree == {} else f" '{tree}'" if " " in str(tree) else f" {tree}"
    return [f"nv set {words}{value}"]


def test_unchanged_backup_proposes_nothing(run, backups):
    entry = _diff(run, backups)
    assert entry["kind"] == "nvue-commands" and entry["changes"] == []


def test_changed_threshold_and_removed_priority_unrelated_address_untouched(run, backups):
    _edit(
        backups / "leaf2.yaml",
        ("max-threshold: 500000", "max-threshold: 3000000"),
        (
            "        roce-50m:\n          cable-length: 50\n          rx: enable\n"
            "          switch-priority:\n            '3': {}\n",
            "        roce-50m:\n          cable-length: 50\n          rx: enable\n"
            "          switch-priority: {}\n",
        ),
        (
            "        type: swp\n",
            "        type: swp\n        ip:\n          address:\n            10.0.0.1/31: {}\n",
        ),
    )
    assert _diff(run, backups)["changes"] == [
        "nv set qos congestion-control default-global traffic-class 3 max-threshold 500000",
        "nv set qos pfc roce-50m switch-priority 3",
    ]


def test_commands_are_shell_quoted_so_they_paste(run, backups):
    _edit(backups / "leaf2.yaml", ("description: GPU NIC", "description: old label"))
    assert _diff(run, backups)["changes"] == ["nv set interface swp1 description 'GPU NIC'"]


def test_a_new_hash_seed_says_it_restarts_switchd(run, backups):
    _edit(backups / "leaf2.yaml", ("hash-seed: ", "hash-seed: 1"))
    (change,) = _diff(run, backups)["changes"]
    assert re.fullmatch(
        r"nv set system forwarding hash-seed \d+  # restarts switchd: every port resets", change
    )


def test_text_and_json_say_how_to_apply(run, backups):
    _edit(backups / "leaf2.yaml", ("mtu: 9100", "mtu: 9000"))
    text = run("diff", LAB, "--running", str(backups), "--device", "leaf2").out
    assert "    nv set interface swp1 link mtu 9100" in text
    hint = next(line for line in text.splitlines() if line.startswith("    # apply"))
    assert "nv config patch" in hint and "never `nv config replace`" in hint
    assert "nv config patch" in _diff(run, backups)["apply"]


def test_switch_owned_config_is_never_unset(run, backups):
    """Pools, other profiles, the lossy class's ECN, addresses, BGP and ports lossless does
    not plan belong to the switch: a full running startup.yaml keeps them."""
    config = read_nvue(GOLDEN.read_text(), "golden")
    tree = config.tree
    qos = tree["qos"]
    qos["traffic-pool"] = {"roce-lossless": {"memory-percent": 80}}
    qos["pfc"]["legacy"] = {"switch-priority": {"4": {}}}
    qos["congestion-control"]["default-global"]["traffic-class"]["0"] = {"ecn": "enable"}
    qos["mapping"]["default-global"]["pcp"] = {"3": {"switch-priority": 3}}
    tree["interface"]["swp1"]["ip"] = {"address": {"10.0.0.1/31": {}}}
    tree["interface"]["swp9"] = {"type": "swp", "qos": {"pfc": {"profile": "legacy"}}}
    tree["router"] = {"bgp": {"autonomous-system": 65001, "enable": "on"}}
    tree["system"]["hostname"] = "leaf2"
    (backups / "leaf2.yaml").write_text(
        "- header:\n    rev-id: 1.0\n    version: Cumulus Linux 5.11.0\n" + _dump(tree)
    )
    assert _diff(run, backups)["changes"] == []


def test_qos_our_ports_should_not_have_is_unset(run, backups):
    _edit(
        backups / "leaf2.yaml",
        (
            "            profile: roce-3m\n",
            "            profile: roce-3m\n          congestion-control:\n"
            "            profile: legacy-ecn\n",
        ),
    )
    assert _diff(run, backups)["changes"] == [
        "nv unset interface swp1 qos congestion-control profile"
    ]


def test_a_command_list_backup_reads_like_the_yaml(run, backups):
    """`nv config show -o commands` saved by the backup job, with unrelated lines."""
    tree = read_nvue(GOLDEN.read_text(), "golden").tree
    lines = [
        "nv set system hostname leaf2",
        "nv set router bgp autonomous-system 65012",
        *_commands(tree),
        "nv set qos traffic-pool roce-lossless memory-percent 80",
    ]
    (backups / "leaf2.yaml").unlink()
    (backups / "leaf2").write_text("\n".join(lines) + "\n")  # Oxidized names it by device
    assert _diff(run, backups)["changes"] == []


def test_the_old_empty_watchdog_object_is_completed_not_removed(run, backups):
    _edit(
        backups / "leaf2.yaml",
        ("          pfc-watchdog:\n            state: enable\n", "          pfc-watchdog: {}\n"),
    )
    assert _diff(run, backups)["changes"] == ["nv set interface swp1 qos pfc-watchdog state enable"]


def _owned_leaves():
    """One owned setting of each kind in the rendered config (numbers and ports folded)."""
    intended = read_nvue(GOLDEN.read_text(), "golden")
    leaves = cumulus_diff._leaves(intended.tree)
    owned = cumulus_diff._owned_prefixes(intended)
    kinds: dict[str, tuple] = {}
    for path in leaves:
        if any(path[: len(prefix)] == prefix for prefix in owned):
            kind = re.sub(r"\d+", "N", "/".join(path))
            kinds.setdefault(kind, path)
    return sorted(kinds.values())


@pytest.mark.parametrize("path", _owned_leaves(), ids="/".join)
def test_a_running_config_missing_an_owned_setting_is_not_confirmed(path):
    """The offline diff is Cumulus's post-check: a running config without any one setting
    lossless owns yields the command that sets it back (napalm has no Cumulus driver)."""
    intended = GOLDEN.read_text()
    tree = read_nvue(intended, "golden").tree
    node = tree
    for key in path[:-1]:
        node = node[key]
    value = node.pop(path[-1])
    changes = cumulus_diff.diff(_dump(tree), intended)
    expected = " ".join(["nv", "set", *path]) + ("" if value == {} else f" {value}")
    assert any(change.startswith(expected.replace("GPU NIC", "'GPU NIC'")) for change in changes)


def test_an_alias_bomb_backup_is_bad_input_quickly(run, backups):
    bomb = "- set:\n    a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"    {chr(98 + i)}: &{chr(98 + i)} [" + ", ".join([f"*{chr(97 + i)}"] * 10) + "]\n"
        for i in range(9)
    )
    (backups / "leaf2.yaml").write_text(bomb)
    started = time.perf_counter()
    result = run("diff", LAB, "--running", str(backups))
    assert time.perf_counter() - started < 10
    assert result.code == 2 and "Traceback" not in result.err
    assert result.err.startswith(f"{backups / 'leaf2.yaml'}:"), result.err


def test_a_backup_of_the_wrong_shape_is_bad_input_at_its_line(run, backups):
    (backups / "leaf2.yaml").write_text("- set:\n    interface:\n      swp1:\n        link: 9100\n")
    result = run("diff", LAB, "--running", str(backups))
    assert result.code == 2
    assert result.err.startswith(f"{backups / 'leaf2.yaml'}:4:9:"), result.err


def test_another_os_config_as_the_backup_is_not_an_nvue_config(run, backups):
    (backups / "leaf2.yaml").unlink()
    shutil.copy(backups / "spine1.cfg", backups / "leaf2")
    result = run("diff", LAB, "--running", str(backups))
    assert result.code == 2 and "this is not an NVUE config" in result.err
