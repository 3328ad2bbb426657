"""`lint INVENTORY --configs DIR`: which configs are read and which devices are checked."""

from __future__ import annotations

import shutil

import pytest
from conftest import INVENTORIES, REPO

from lossless.inventory import load_inventory

LAB = str(INVENTORIES / "lab.yaml")


@pytest.fixture
def configs(tmp_path):
    folder = tmp_path / "configs"
    shutil.copytree(REPO / "golden" / "lab", folder)
    return folder


def test_rendered_configs_parsed_not_skipped_lint_clean(run, configs):
    """A trailing blank line makes every file differ from the render, so each is parsed."""
    for path in configs.iterdir():
        if path.is_file():
            path.write_text(path.read_text() + "\n")
    result = run("lint", LAB, "--configs", str(configs))
    assert result.code == 0, result.out


def test_a_config_identical_to_the_render_is_not_parsed(run, configs, monkeypatch):
    from lossless.vendors.eos import parse as eos_parse

    def refuse(*_args, **_kwargs):
        raise AssertionError("parsed a config identical to the render")

    monkeypatch.setattr(eos_parse, "parse", refuse)
    assert run("lint", LAB, "--configs", str(configs)).code == 0


def test_oxidized_names_without_extension_are_read(run, configs):
    spine = configs / "spine1.cfg"
    spine.rename(configs / "spine1")
    text = (configs / "spine1").read_text().replace("mtu 9100", "mtu 9000", 1)
    (configs / "spine1").write_text(text)
    result = run("lint", LAB, "--configs", str(configs))
    assert result.code == 1
    assert f"{configs / 'spine1'}:" in result.out and "MTU is 9000 in the config" in result.out
    assert "LL201" not in result.out


def test_device_limits_lint_to_the_device_and_its_link_peers(run, configs):
    (configs / "leaf1.json").unlink()  # would be LL201 if leaf1 were checked
    result = run("lint", LAB, "--configs", str(configs), "--device", "leaf4")
    assert result.code == 0, result.out
    assert "LL201" not in result.out
    inventory = load_inventory(LAB)
    assert inventory.with_link_peers(["leaf4"]) == ["leaf4", "spine1", "spine2"]


def test_device_must_exist(run):
    result = run("lint", LAB, "--device", "leaf9")
    assert result.code == 2 and "leaf9" in result.err


def test_config_alone_with_the_fabric_dscps(run, configs):
    """Alone, a config's RoCE/CNP classes are read from it; with --cnp-dscp the class of the
    hosts' CNP DSCP is checked: DSCP 26 put in the CNP's place shows as CNP in a no-drop class."""
    config = str(configs / "spine1.cfg")
    assert run("lint", "--config", config, "--os", "eos").code == 0
    result = run("lint", "--config", config, "--os", "eos", "--cnp-dscp", "26")
    assert result.code == 1
    assert "LL121" in result.out and "CNP DSCP 26 is in traffic class 3" in result.out


def test_links_of_is_every_link_with_an_end_on_the_devices_in_inventory_order():
    inventory = load_inventory(str(INVENTORIES / "pod-2048.yaml"))
    for names in (["leaf01"], ["spine01", "leaf03"], [], list(inventory.devices)):
        scanned = [link for link in inventory.links if {link.a.node, link.b.node} & set(names)]
        assert inventory.links_of(names) == scanned
    assert inventory.links_of(["leaf01"])  # a leaf has links
