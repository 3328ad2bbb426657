"""Linting vendor configs: parse(render(plan)) round trip, drift, seeded defects with file:line."""

from __future__ import annotations

import json
import shutil

import pytest
from cli_cases import says
from conftest import INVENTORIES, REPO

from lossless.inventory import load_inventory
from lossless.planner.fabric import plan_fabric
from lossless.vendors.registry import OS_NAMES, vendor_for
from lossless.vendors.rendering import render_device

LAB = str(INVENTORIES / "lab.yaml")


@pytest.mark.parametrize("inventory", ["lab.yaml", "pod-2048.yaml"])
def test_parse_of_render_equals_the_plan(inventory):
    """For everything the OS can express (its `expressed` projection), for every device."""
    plan = plan_fabric(load_inventory(INVENTORIES / inventory))
    checked = 0
    for device in plan.devices.values():
        vendor = vendor_for(device.os)
        parsed = vendor.parse(render_device(device, plan), f"{device.name}.x", device.name)
        intended = vendor.as_rendered(device)
        assert vendor.expressed(parsed) == vendor.expressed(intended), device.name
        checked += 1
    assert checked


def test_rendered_configs_lint_clean_against_the_inventory(run):
    result = run("lint", LAB, "--configs", str(REPO / "golden" / "lab"))
    assert result.code == 0, result.out
    assert " error LL" not in result.out


@pytest.fixture
def configs(tmp_path):
    folder = tmp_path / "configs"
    shutil.copytree(REPO / "golden" / "lab", folder)
    return folder


def _edit_json(path, change):
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data, indent=4, sort_keys=True) + "\n")


def _line_of(path, *anchors: str) -> int:
    """1-based line of the last anchor, each anchor searched from the line of the one before."""
    lines = path.read_text().splitlines()
    start = 0
    for anchor in anchors:
        start = next(i for i, line in enumerate(lines) if i >= start and anchor in line)
    return start + 1


# The finding sits where the config states the offending value (the pfc_enable field, the WRED
# profile, the port's mtu): anchors searched in order.
SEEDED = {
    "pfc-priority-changed-on-one-end": (
        "spine2.json",
        lambda db: db["PORT_QOS_MAP"]["Ethernet0"].update(pfc_enable="4", pfcwd_sw_enable="4"),
        "LL105",
        ('"PORT_QOS_MAP"', '"Ethernet0": {', '"pfc_enable"'),
    ),
    "ecn-max-above-pfc-trigger": (
        "leaf1.json",
        lambda db: db["WRED_PROFILE"]["ROCE_150000_500000_P100"].update(
            green_max_threshold="900000000",
            yellow_max_threshold="900000000",
            red_max_threshold="900000000",
        ),
        "LL112",
        ('"WRED_PROFILE"', '"ROCE_150000_500000_P100": {'),
    ),
    "watchdog-removed": (
        "leaf1.json",
        lambda db: db["PFC_WD"].pop("Ethernet248"),
        "LL114",
        ('"PORT_QOS_MAP"', '"Ethernet248": {', '"pfcwd_sw_enable"'),
    ),
    "cnp-queue-made-lossless": (
        "spine2.json",
        lambda db: db["PORT_QOS_MAP"]["Ethernet4"].update(pfc_enable="3,6"),
        "LL121",
        ('"PORT_QOS_MAP"', '"Ethernet4": {', '"pfc_enable"'),
    ),
    "wred-drop-on-lossless-queue": (
        "leaf1.json",
        lambda db: db["WRED_PROFILE"]["ROCE_150000_500000_P100"].update(ecn="ecn_none"),
        "LL122",
        ('"WRED_PROFILE"', '"ROCE_150000_500000_P100": {'),
    ),
    "mtu-mismatch": (
        "spine2.json",
        lambda db: db["PORT"]["Ethernet8"].update(mtu="9000"),
        "LL106",
        ('"PORT"', '"Ethernet8": {', '"mtu"'),
    ),
}


@pytest.mark.parametrize("defect", sorted(SEEDED))
def test_seeded_defect_in_a_sonic_config_is_caught_at_its_file_and_line(run, configs, defect):
    name, change, rule_id, anchors = SEEDED[defect]
    path = configs / name
    _edit_json(path, change)
    line = _line_of(path, *anchors)
    result = run("lint", LAB, "--configs", str(configs))
    assert result.code == 1, result.out
    expected = f"{path}:{line}:"
    lines = result.out.splitlines()
    hits = [text for text in lines if says(text, rule_id)]
    assert any(text.startswith(expected) for text in hits), (expected, hits)
    # and the same change is drift from the plan, at the same place
    assert any(text.startswith(expected) and " LL200 " in text for text in lines)


def test_config_alone(run, configs):
    clean = run("lint", "--config", str(configs / "leaf1.json"), "--os", "sonic")
    assert clean.code == 0, clean.out
    assert run("lint", "--config", str(configs / "spine1.cfg"), "--os", "eos").code == 0
    assert run("lint", "--config", str(configs / "leaf3.cfg"), "--os", "nxos").code == 0
    assert run("lint", "--config", str(configs / "leaf2.yaml"), "--os", "cumulus").code == 0
    # a Junos config does not name its model: the lab's QFX5220 has no PFC watchdog, which
    # lint holds an unknown switch to (LL114) unless told the platform
    junos = ("lint", "--config", str(configs / "leaf4.conf"), "--os", "junos")
    assert run(*junos).code == 1
    assert run(*junos, "--platform", "QFX5220-32CD").code == 0
    _edit_json(configs / "leaf1.json", lambda db: db["PFC_WD"].pop("Ethernet0"))
    broken = run("lint", "--config", str(configs / "leaf1.json"), "--os", "sonic")
    assert broken.code == 1
    assert " error LL114 " in broken.out


def test_config_alone_needs_an_os_and_no_inventory(run, configs):
    assert run("lint", "--config", str(configs / "leaf1.json")).code == 2
    assert (
        run(
            "lint",
            str(INVENTORIES / "lab.yaml"),
            "--config",
            str(configs / "leaf1.json"),
            "--os",
            "sonic",
        ).code
        == 2
    )


def test_every_os_has_a_parser_and_a_differ():
    """Every OS package names modules that exist and offer what Vendor says they do."""
    from importlib import import_module

    for os_name in OS_NAMES:
        vendor = vendor_for(os_name)
        assert vendor.os == os_name
        assert callable(import_module(vendor.parser).parse), os_name
        assert callable(import_module(vendor.differ).diff), os_name
        assert vendor.impact, os_name


def test_missing_config_is_a_warning(run, configs):
    (configs / "leaf1.json").unlink()
    result = run("lint", LAB, "--configs", str(configs))
    assert result.code == 0
    assert "warning LL201 [config-missing] leaf1" in result.out


def test_unreadable_json_is_bad_input(run, configs):
    (configs / "leaf1.json").write_text('{"PORT": {"Ethernet0": {"mtu": "9100",}}}')
    result = run("lint", "--config", str(configs / "leaf1.json"), "--os", "sonic")
    assert result.code == 2
    assert f"{configs / 'leaf1.json'}:1:39: JSON:" in result.err


TEXT_SEEDED = {
    # EOS: spine1.cfg
    ("eos", "pfc-priority-changed-on-one-end"): (
        "spine1.cfg",
        "priority-flow-control priority 3 no-drop",
        "priority-flow-control priority 4 no-drop",
        "LL105",
        "priority-flow-control priority 4 no-drop",
    ),
    ("eos", "ecn-max-above-pfc-trigger"): (
        "spine1.cfg",
        "maximum-threshold 500 kbytes",
        "maximum-threshold 900 mbytes",
        "LL112",
        "maximum-threshold 900 mbytes",
    ),
    ("eos", "watchdog-removed"): (
        "spine1.cfg",
        "   priority-flow-control pause watchdog\n",
        "",
        "LL114",
        "qos profile ROCE_LOSSLESS",
    ),
    ("eos", "cnp-queue-made-lossless"): (
        "spine1.cfg",
        "priority-flow-control priority 3 no-drop\n",
        "priority-flow-control priority 3 no-drop\n   priority-flow-control priority 6 no-drop\n",
        "LL121",
        "priority-flow-control priority 6 no-drop",
    ),
    ("eos", "mtu-mismatch"): (
        "spine1.cfg",
        "interface Ethernet2/1\n   description fabric downlink\n   mtu 9100",
        "interface Ethernet2/1\n   description fabric downlink\n   mtu 9000",
        "LL106",
        "mtu 9000",
    ),
    # NX-OS: leaf3.cfg
    ("nxos", "pfc-priority-changed-on-one-end"): (
        "leaf3.cfg",
        "pause pfc-cos 3",
        "pause pfc-cos 4",
        "LL105",
        "pause pfc-cos 4",  # the system-wide no-drop class: one finding at its line
    ),
    ("nxos", "ecn-max-above-pfc-trigger"): (
        "leaf3.cfg",
        "maximum-threshold 500 kbytes",
        "maximum-threshold 900000 kbytes",
        "LL112",
        "random-detect minimum-threshold",
    ),
    # The global `watch-dog-interval on` covers every port; the interface turns it off.
    ("nxos", "watchdog-removed"): (
        "leaf3.cfg",
        "interface Ethernet1/31\n  description fabric uplink\n  no switchport\n  mtu 9100\n"
        "  priority-flow-control mode on\n  priority-flow-control watch-dog-interval on\n",
        "interface Ethernet1/31\n  description fabric uplink\n  no switchport\n  mtu 9100\n"
        "  priority-flow-control mode on\n  priority-flow-control watch-dog-interval off\n",
        "LL114",
        "priority-flow-control watch-dog-interval off",
    ),
    ("nxos", "cnp-queue-made-lossless"): (
        "leaf3.cfg",
        "pause pfc-cos 3",
        # CNP is rendered in qos-group 7 (nxos/render.py CNP_QOS_GROUP)
        "pause pfc-cos 3 7",
        "LL121",
        "pause pfc-cos 3 7",
    ),
    # A routed port takes any MTU (a switchport only 1500 or the system jumbo MTU)
    ("nxos", "mtu-mismatch"): (
        "leaf3.cfg",
        "interface Ethernet1/31\n  description fabric uplink\n  no switchport\n  mtu 9100",
        "interface Ethernet1/31\n  description fabric uplink\n  no switchport\n  mtu 9000",
        "LL106",
        "mtu 9000",
    ),
    # Cumulus NVUE: tests/test_cumulus_lint.py
    ("eos", "wred-drop-on-lossless-queue"): (
        "spine1.cfg",
        "max-mark-probability 100 weight 0\n",
        "max-mark-probability 100 weight 0\n"
        "      random-detect drop minimum-threshold 100 kbytes maximum-threshold 200 kbytes "
        "drop-probability 10\n",
        "LL122",
        "random-detect drop",
    ),
    ("nxos", "wred-drop-on-lossless-queue"): (
        "leaf3.cfg",
        "drop-probability 100 weight 0 ecn",
        "drop-probability 100 weight 0",
        "LL122",
        "random-detect minimum-threshold",
    ),
    ("junos", "wred-drop-on-lossless-queue"): (
        "leaf4.conf",
        "            explicit-congestion-notification;\n",
        "",
        "LL122",
        "drop-profile-map loss-priority any",
    ),
    # Junos: leaf4.conf; findings at the statement that says it (vendors/junos_parse.py)
    ("junos", "pfc-priority-changed-on-one-end"): (
        "leaf4.conf",
        "no-loss pfc-priority 3;",
        "no-loss pfc-priority 4;",
        "LL105",
        "class NO-LOSS queue-num 4 no-loss pfc-priority 4",
    ),
    ("junos", "ecn-removed-from-lossless-queue"): (
        "leaf4.conf",
        "            explicit-congestion-notification;\n",
        "",
        "LL110",
        "        S_ROCE {",
    ),
    # Junos watchdog-removed: the lab's leaf4 is a QFX5220, which has no PFC watchdog; removed
    # from a QFX5240 leaf4 in tests/test_junos_lint.py (REMOVED_QFX5240)
    # PFC on CNP's priority 6 (IEEE 802.1 input). A DSCP `pfc` code point of CNP would pause
    # nothing: CNP is no `no-loss` class with a `pfc-priority` (Juniper, "Configuring
    # DSCP-based PFC for Layer 3 Untagged Traffic"; tests/test_junos_lint.py)
    ("junos", "cnp-queue-made-lossless"): (
        "leaf4.conf",
        "                dscp {\n                    code-point 011010 {",
        "                ieee-802.1 {\n                    code-point 110 { pfc; }\n"
        "                }\n                dscp {\n                    code-point 011010 {",
        "LL121",
        "code-point 110 { pfc; }",
    ),
    ("junos", "mtu-mismatch"): (
        "leaf4.conf",
        'et-0/0/30 {\n        description "fabric uplink";\n        mtu 9114;',
        'et-0/0/30 {\n        description "fabric uplink";\n        mtu 9014;',
        "LL106",
        "mtu 9014;",
    ),
}


@pytest.mark.parametrize("case", sorted(TEXT_SEEDED), ids=lambda c: f"{c[0]}-{c[1]}")
def test_seeded_defect_in_a_cli_config_is_caught_at_its_file_and_line(run, configs, case):
    name, old, new, rule_id, where = TEXT_SEEDED[case]
    path = configs / name
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))
    line = _line_of(path, where)
    result = run("lint", LAB, "--configs", str(configs))
    assert result.code == 1, result.out
    hits = [text for text in result.out.splitlines() if says(text, rule_id)]
    assert any(text.startswith(f"{path}:{line}:") for text in hits), (line, hits)
