"""Ports (and devices) listed in the order people count them, for every OS's interface
names, wherever lossless sorts them."""

from __future__ import annotations

import json
import shutil

from conftest import INVENTORIES, REPO

from lossless.text.natural import natural_key, natural_sorted

LAB = str(INVENTORIES / "lab.yaml")


def test_numbers_sort_by_value_in_every_os_naming():
    assert natural_sorted(["Ethernet12", "Ethernet4", "Ethernet0"]) == [
        "Ethernet0",
        "Ethernet4",
        "Ethernet12",
    ]
    assert natural_sorted(["Ethernet1/10", "Ethernet1/2", "Ethernet2/1"]) == [
        "Ethernet1/2",
        "Ethernet1/10",
        "Ethernet2/1",
    ]
    assert natural_sorted(["et-0/0/10", "et-0/0/2:1", "et-0/0/2", "et-0/1/0"]) == [
        "et-0/0/2",
        "et-0/0/2:1",
        "et-0/0/10",
        "et-0/1/0",
    ]
    assert natural_sorted(["swp10", "swp2s1", "swp2", "swp1"]) == [
        "swp1",
        "swp2",
        "swp2s1",
        "swp10",
    ]
    assert natural_sorted(["leaf10", "leaf9", "spine1"]) == ["leaf9", "leaf10", "spine1"]


def test_equal_numbers_written_differently_keep_a_fixed_order():
    assert natural_sorted(["leaf1", "leaf01"]) == natural_sorted(["leaf01", "leaf1"])
    assert natural_key("Ethernet") < natural_key("Ethernet0")


def test_sonic_patch_lists_ports_in_order(run, tmp_path):
    backups = tmp_path / "backups"
    shutil.copytree(REPO / "golden" / "lab", backups, ignore=shutil.ignore_patterns("hosts"))
    leaf1 = backups / "leaf1.json"
    leaf1.write_text(leaf1.read_text().replace('"mtu": "9100"', '"mtu": "1500"'))
    result = run("diff", LAB, "--running", str(backups), "--device", "leaf1", "--format", "json")
    [entry] = json.loads(result.out)["devices"]
    paths = [op["path"] for op in entry["changes"]]
    assert paths == [
        "/PORT/Ethernet0/mtu",
        "/PORT/Ethernet4/mtu",
        "/PORT/Ethernet248/mtu",
        "/PORT/Ethernet252/mtu",
    ]


def test_a_finding_of_many_ports_names_them_in_order(run, tmp_path):
    """One cause, one finding: the ports it applies to are named in order."""
    inventory = tmp_path / "lab.yaml"
    text = (INVENTORIES / "lab.yaml").read_text()
    assert "\n    mtu: 9100\n" in text
    inventory.write_text(text.replace("\n    mtu: 9100\n", "\n    mtu: 1500\n", 1))
    result = run("lint", str(inventory), "--select", "LL118")
    assert result.code == 1
    assert "(24 ports on 6 devices: leaf1:Ethernet0, leaf1:Ethernet4, leaf1:Ethernet248 and" in (
        result.out
    )
