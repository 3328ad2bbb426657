"""inventories/generate_clos.py: the benchmark fabrics are the sizes they claim and valid."""

from __future__ import annotations

import sys

import pytest
from conftest import REPO

sys.path.insert(0, str(REPO / "inventories"))
from generate_clos import generate

MIXED = ("sonic", "cumulus", "eos", "nxos", "junos")


def test_32k_rail_planes_are_the_fabric_of_issue_13(run, tmp_path):
    """4,096 servers x 8 NICs, 1,024 64-port leaves + 256 128-port spines: 98,304 ports."""
    path = tmp_path / "clos.yaml"
    path.write_text(generate(32768, 64, "400G", spine_radix=128, planes=True))
    result = run("validate", str(path))
    assert result.code == 0, result.err
    assert "1280 devices, 98304 ports, 4096 servers, 32768 NICs, 65536 links" in result.out


def test_a_plane_is_cabled_to_its_own_spines_only(tmp_path):
    from lossless.inventory import load_inventory

    path = tmp_path / "clos.yaml"
    path.write_text(generate(8192, 64, "400G", spine_radix=128, planes=True, oses=MIXED))
    inventory = load_inventory(path)
    assert len(inventory.devices) == 256 + 64  # 8 planes of 32 leaves and 8 spines
    for link in inventory.links:
        ends = [inventory.devices.get(end.node) for end in (link.a, link.b)]
        if all(ends):  # leaf - spine: one plane, one OS
            assert ends[0].os == ends[1].os
    assert {device.os for device in inventory.devices.values()} == set(MIXED)
    # every NIC i of every server on plane i
    nic_switches = {
        (link.b.port, inventory.devices[link.a.node].os)
        for link in inventory.links
        if link.b.node in inventory.servers
    }
    assert {nic for nic, _ in nic_switches} == {f"eth{i}" for i in range(8)}
    assert len(nic_switches) == 8


def test_64k_is_two_pods_of_the_32k(tmp_path):
    text = generate(65536, 64, "400G", spine_radix=128, planes=True)
    # 16 planes of 128 leaves and 32 spines; the second pod's servers on planes 9-16
    assert "leaf[0001:0128]" in text and "leaf[1921:2048]" in text and "leaf[2049" not in text
    assert "spine[001:032]" in text and "spine[481:512]" in text and "spine[513" not in text
    assert 'b: "gpu[0001:4096]:eth0"' in text and 'b: "gpu[4097:8192]:eth7"' in text


def test_without_planes_every_leaf_meshes_to_every_spine(run, tmp_path):
    path = tmp_path / "clos.yaml"
    path.write_text(generate(4096, 128, "400G"))
    result = run("validate", str(path))
    assert result.code == 0, result.err
    assert "96 devices, 12288 ports, 512 servers, 4096 NICs, 8192 links" in result.out


@pytest.mark.parametrize(
    "gpus, radix, spine_radix, planes", [(1000, 64, 128, True), (65536, 128, 128, False)]
)
def test_sizes_that_do_not_fit_are_refused(gpus, radix, spine_radix, planes):
    with pytest.raises(SystemExit):
        generate(gpus, radix, "400G", spine_radix=spine_radix, planes=planes)
