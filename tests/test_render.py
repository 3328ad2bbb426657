"""`lossless render`: files per device, golden output, determinism, drift check, and that
every OS's output parses as that OS's configuration."""

from __future__ import annotations

import json
import os
import shutil

import pytest
from conftest import INVENTORIES, REPO, SONIC_YANG
from hier_config import Platform, get_hconfig
from ruamel.yaml import YAML

LAB = str(INVENTORIES / "lab.yaml")
POD = str(INVENTORIES / "pod-2048.yaml")
GOLDEN = REPO / "golden"
EXTENSIONS = {"sonic": "json", "cumulus": "yaml", "eos": "cfg", "nxos": "cfg", "junos": "conf"}
LAB_FILES = {
    "leaf1.json",
    "leaf2.yaml",
    "leaf3.cfg",
    "leaf4.conf",
    "spine1.cfg",
    "spine2.json",
}


@pytest.fixture(scope="module")
def lab_out(tmp_path_factory):
    from lossless.cli.main import main

    out = tmp_path_factory.mktemp("lab")
    assert main(["render", LAB, "-o", str(out)]) == 0
    return out


def test_lab_renders_a_file_per_device_of_every_os(lab_out):
    assert {p.name for p in lab_out.iterdir()} == LAB_FILES


@pytest.mark.parametrize("name", sorted(LAB_FILES))
def test_lab_matches_golden(lab_out, name):
    assert (lab_out / name).read_text() == (GOLDEN / "lab" / name).read_text(), (
        f"{name} differs from golden/lab: see golden/README.md to regenerate and review"
    )


def test_pod_matches_golden(run, tmp_path):
    result = run("render", POD, "-o", str(tmp_path), "--device", "leaf01", "--device", "spine01")
    assert result.code == 0, result.err
    for name in ("leaf01.json", "spine01.json"):
        assert (tmp_path / name).read_text() == (GOLDEN / "pod-2048" / name).read_text()


def test_two_renders_are_byte_identical(run, tmp_path):
    run("render", LAB, "-o", str(tmp_path / "a"))
    run("render", LAB, "-o", str(tmp_path / "b"))
    for name in LAB_FILES:
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()


def test_rerender_rewrites_nothing_and_leaves_no_temporary_files(run, tmp_path):
    run("render", LAB, "-o", str(tmp_path))
    before = {p.name: p.stat().st_mtime_ns for p in tmp_path.iterdir()}
    result = run("render", LAB, "-o", str(tmp_path))
    assert "0 written, 6 unchanged" in result.out
    assert {p.name: p.stat().st_mtime_ns for p in tmp_path.iterdir()} == before


def test_check_is_clean_then_catches_a_one_byte_edit(run, tmp_path):
    shutil.copytree(GOLDEN / "lab", tmp_path / "lab")
    folder = tmp_path / "lab"
    (folder / "README.md").unlink(missing_ok=True)
    clean = run("render", LAB, "-o", str(folder), "--check")
    assert clean.code == 0, clean.out
    text = (folder / "leaf3.cfg").read_text()
    (folder / "leaf3.cfg").write_text(text.replace("\n    mtu 9216", "\n    mtu 9217", 1))
    drifted = run("render", LAB, "-o", str(folder), "--check")
    assert drifted.code == 1
    assert drifted.out.splitlines() == [
        f"changed: {folder / 'leaf3.cfg'}",
        f"0 missing, 1 changed, 0 orphans; 6 files checked in {folder}",
    ]
    assert (folder / "leaf3.cfg").read_text() != text  # --check wrote nothing


def test_check_lists_missing_changed_and_orphan_files_apart_and_can_show_the_diff(run, tmp_path):
    shutil.copytree(GOLDEN / "lab", tmp_path / "lab")
    folder = tmp_path / "lab"
    (folder / "README.md").write_text("not a config: never an orphan\n")
    (folder / "leaf1.json").unlink()
    text = (folder / "leaf3.cfg").read_text()
    (folder / "leaf3.cfg").write_text(text.replace("\n    mtu 9216", "\n    mtu 9217", 1))
    (folder / "leaf9.cfg").write_text("hostname leaf9\n")  # a device since removed
    result = run("render", LAB, "-o", str(folder), "--check")
    assert result.code == 1
    assert result.out.splitlines() == [
        f"missing: {folder / 'leaf1.json'}",
        f"changed: {folder / 'leaf3.cfg'}",
        f"orphan: {folder / 'leaf9.cfg'} (no device of the inventory renders it)",
        f"1 missing, 1 changed, 1 orphan; 6 files checked in {folder}",
    ]
    with_diff = run("render", LAB, "-o", str(folder), "--check", "--diff", "--device", "leaf3")
    assert with_diff.code == 1
    assert f"--- {folder / 'leaf3.cfg'}\n+++ rendered/leaf3.cfg\n" in with_diff.out
    assert "\n-    mtu 9217\n+    mtu 9216\n" in with_diff.out
    # the orphan's diff removes it; nothing is missing among the selected devices
    assert f"--- {folder / 'leaf9.cfg'}\n+++ /dev/null\n" in with_diff.out
    assert "\n-hostname leaf9\n" in with_diff.out
    assert "--- /dev/null" not in with_diff.out
    # files of devices not selected are neither missing nor orphans
    only_leaf4 = run("render", LAB, "-o", str(folder), "--check", "--device", "leaf4")
    assert only_leaf4.out.splitlines()[0].startswith("orphan: ")
    assert "0 missing, 0 changed, 1 orphan; 1 file checked" in only_leaf4.out


def test_check_reports_a_missing_file(run, tmp_path):
    result = run("render", LAB, "-o", str(tmp_path), "--check", "--device", "leaf1")
    assert result.code == 1
    assert result.out.startswith(f"missing: {tmp_path / 'leaf1.json'}\n")
    assert not any(tmp_path.iterdir())


def test_device_and_os_filters(run, tmp_path):
    run("render", LAB, "-o", str(tmp_path / "os"), "--os", "sonic")
    assert {p.name for p in (tmp_path / "os").iterdir()} == {"leaf1.json", "spine2.json"}
    run("render", LAB, "-o", str(tmp_path / "dev"), "--device", "leaf4")
    assert {p.name for p in (tmp_path / "dev").iterdir()} == {"leaf4.conf"}


@pytest.mark.parametrize(
    ("options", "files"),
    [
        (["--device", "leaf[1:3]"], {"leaf1.json", "leaf2.yaml", "leaf3.cfg"}),
        (["--device", "leaf1,spine[1:2]"], {"leaf1.json", "spine1.cfg", "spine2.json"}),
        (["--device", "leaf1", "--device", "leaf4"], {"leaf1.json", "leaf4.conf"}),
        (["--os", "eos", "--os", "junos"], {"spine1.cfg", "leaf4.conf"}),
        (["--device", "leaf[1:4]", "--os", "sonic"], {"leaf1.json"}),
    ],
)
def test_device_ranges_comma_lists_and_several_os(run, tmp_path, options, files):
    result = run("render", LAB, "-o", str(tmp_path), *options)
    assert result.code == 0, result.err
    assert {p.name for p in tmp_path.iterdir()} == files


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--device", "leaf[1:9]"], "no device 'leaf5'"),
        (["--device", "leaf1,"], "--device: empty name"),
        (["--device", "leaf[1:"], "--device: 'leaf[1:': a range is written"),
        (["--device", "leaf1", "--os", "eos"], "no device matches --device/--os"),
    ],
)
def test_device_selection_errors(run, tmp_path, options, message):
    result = run("render", LAB, "-o", str(tmp_path), *options)
    assert result.code == 2 and message in result.err
    assert not any(tmp_path.iterdir())


@pytest.mark.parametrize("option", [["--stdout"], ["-o", "-"]])
def test_one_device_to_stdout(run, option):
    result = run("render", LAB, "--device", "leaf3", *option)
    assert result.code == 0
    assert result.out == (GOLDEN / "lab" / "leaf3.cfg").read_text()


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--stdout"], "6 devices match"),
        (["--stdout", "--os", "sonic"], "2 devices match"),
        (["--stdout", "--device", "leaf1", "--check"], "--check and --diff compare a folder"),
        ([], "give -o DIR"),
        (["-o", "x", "--diff"], "--diff goes with --check"),
    ],
)
def test_stdout_and_check_usage_errors(run, options, message):
    result = run("render", LAB, *options)
    assert result.code == 2 and message in result.err and result.out == ""


def test_bad_inventory_writes_nothing(run, write, tmp_path):
    bad = write((INVENTORIES / "lab.yaml").read_text().replace("cable_m: 90", "cable_m: ninety"))
    result = run("render", str(bad), "-o", str(tmp_path / "out"))
    assert result.code == 2
    assert not (tmp_path / "out").exists()


# -- each OS's output parses as that OS's configuration -------------------------------------


def _tree(platform, path):
    return get_hconfig(platform, path.read_text())


def _children(node, text):
    child = node.get_child(equals=text)
    assert child is not None, (
        f"missing {text!r} under {node.text if hasattr(node, 'text') else 'root'}"
    )
    return child


def test_eos_statements_under_the_right_parents(lab_out):
    tree = _tree(Platform.ARISTA_EOS, lab_out / "spine1.cfg")
    _children(tree, "qos map dscp 26 to traffic-class 3")
    _children(tree, "qos map dscp 48 to traffic-class 6")
    _children(tree, "priority-flow-control pause watchdog default timeout 0.2")
    profile = _children(tree, "qos profile ROCE_LOSSLESS")
    _children(profile, "priority-flow-control priority 3 no-drop")
    queue3 = _children(profile, "uc-tx-queue 3")  # Tomahawk: unicast queues
    _children(
        queue3,
        "random-detect ecn minimum-threshold 150 kbytes maximum-threshold 500 kbytes "
        "max-mark-probability 100 weight 0",
    )
    _children(_children(profile, "uc-tx-queue 6"), "priority strict")
    interface = _children(tree, "interface Ethernet1/1")
    _children(interface, "service-profile ROCE_LOSSLESS")
    _children(interface, "mtu 9100")


def test_nxos_statements_under_the_right_parents(lab_out):
    tree = _tree(Platform.CISCO_NXOS, lab_out / "leaf3.cfg")
    _children(_children(tree, "class-map type qos match-any ROCE"), "match dscp 26")
    _children(_children(tree, "class-map type qos match-any CNP"), "match dscp 48")
    network = _children(tree, "policy-map type network-qos QOS_NETWORK")
    _children(_children(network, "class type network-qos c-8q-nq3"), "pause pfc-cos 3")
    # NX-OS sizes headroom itself unless the inventory asks (headroom.override)
    assert tree.get_child(equals="policy-map type queuing QOS_INGRESS") is None
    egress = _children(tree, "policy-map type queuing QOS_EGRESS")
    q3 = _children(egress, "class type queuing c-out-8q-q3")
    _children(
        q3,
        "random-detect minimum-threshold 150 kbytes maximum-threshold 500 kbytes "
        "drop-probability 100 weight 0 ecn",
    )
    # CNP in the highest queue, the one strict queue [Cisco: priority queues highest, contiguous]
    _children(_children(egress, "class type queuing c-out-8q-q7"), "priority level 1")
    interface = _children(tree, "interface Ethernet1/31")
    _children(interface, "priority-flow-control mode on")
    _children(interface, "priority-flow-control watch-dog-interval on")


def test_junos_loads_whole_into_set_statements(lab_out):
    text = (lab_out / "leaf4.conf").read_text()
    tree = get_hconfig(Platform.JUNIPER_JUNOS, text)
    lines = [child.text for child in tree.children]
    # every leaf statement of the brace file survives (docs/reference/vendors.md 9.4: compact
    # layouts lose lines)
    assert len(lines) == text.count(";")
    assert (
        "set class-of-service forwarding-classes class NO-LOSS queue-num 4 no-loss pfc-priority 3"
        in lines
    )
    assert (
        "set class-of-service congestion-notification-profile ROCE_PFC_100M input cable-length 100"
        in lines
    )
    assert (
        "set class-of-service congestion-notification-profile ROCE_PFC_1M input dscp code-point "
        "011010 pfc"
    ) in lines
    assert "set class-of-service drop-profiles ROCE_ECN interpolate fill-level [ 15 51 ]" in lines
    assert "set class-of-service schedulers S_CNP priority strict-high" in lines
    assert (
        "set class-of-service interfaces et-0/0/30 congestion-notification-profile ROCE_PFC_100M"
        in lines
    )


def test_nvue_output_has_nvue_shape(lab_out):
    text = (lab_out / "leaf2.yaml").read_text()
    assert "&id" not in text and "*id" not in text  # no YAML anchors/aliases: plain NVUE YAML
    document = YAML(typ="safe", pure=True).load(text)
    assert isinstance(document, list) and len(document) == 1 and set(document[0]) == {"set"}
    tree = document[0]["set"]
    assert set(tree) == {"interface", "qos", "system"}
    qos = tree["qos"]
    assert qos["roce"] == {"mode": "lossless", "state": "enabled"}  # 5.15 words
    assert qos["mapping"]["default-global"]["dscp"]["26"] == {"switch-priority": 3}
    assert qos["egress-scheduler"]["default-global"]["traffic-class"]["6"] == {"mode": "strict"}
    assert (
        qos["congestion-control"]["default-global"]["traffic-class"]["3"]["min-threshold"] == 150000
    )
    for name, interface in tree["interface"].items():
        assert name.startswith("swp")
        profile = interface["qos"]["pfc"]["profile"]
        assert profile in qos["pfc"], name
        assert qos["pfc"][profile]["switch-priority"] == {"3": {}}
    assert qos["pfc"]["roce-55m"]["cable-length"] == 55
    assert tree["system"]["forwarding"]["ecmp-hash"]["source-port"] == "enabled"


# -- SONiC against SONiC's YANG models --------------------------------------------------------

YANG_DIR = SONIC_YANG


@pytest.fixture(scope="module")
def sonic_yang():
    if os.environ.get("LOSSLESS_REQUIRE_YANG"):
        import libyang  # noqa: F401  (fail, do not skip, in CI)
    else:
        pytest.importorskip("libyang", reason="libyang not installed: run bash .ci/install")
    from lossless.vendors.sonic.yang import SonicYang

    return SonicYang(YANG_DIR)


def _sonic_devices(inventory):
    from lossless.inventory import load_inventory
    from lossless.planner.fabric import plan_fabric

    plan = plan_fabric(load_inventory(inventory))
    return plan, [d for d in plan.devices.values() if d.os == "sonic"]


@pytest.mark.parametrize("inventory", [LAB, POD], ids=["lab", "pod-2048"])
def test_every_sonic_output_is_valid_yang(sonic_yang, inventory, tmp_path):
    from sonic_base import merged_with_device

    from lossless.vendors.rendering import render_device

    plan, devices = _sonic_devices(inventory)
    assert devices
    for device in devices:
        fragment = json.loads(render_device(device, plan))
        # ../shared/sonic-yang has no sonic-hash.yang: test_sonic_render.py checks SWITCH_HASH
        fragment.pop("SWITCH_HASH")
        lanes = {p.name: p.lanes for p in device.ports.values()}
        sonic_yang.validate(merged_with_device(fragment, lanes))


@pytest.mark.parametrize(
    ("table", "key", "field", "value", "message"),
    [
        ("PORT_QOS_MAP", "Ethernet0", "pfc_enable", "3-4", "Unsatisfied pattern"),
        (
            "WRED_PROFILE",
            "ROCE_150000_500000_P100",
            "green_max_threshold",
            "100",
            "Green max threshold must be greater than or equal to min threshold",
        ),
        ("PFC_WD", "Ethernet0", "detection_time", "50", "out of the allowed range"),
        ("BUFFER_PG", "Ethernet0|3", "profile", "no_such_profile", "no matching subtype"),
        ("PORT", "Ethernet0", "mtu", "9300", "out of the allowed range"),
    ],
)
def test_yang_validation_rejects_broken_sonic_config(sonic_yang, table, key, field, value, message):
    from sonic_base import merged_with_device

    from lossless.vendors.rendering import render_device
    from lossless.vendors.sonic.yang import SonicYangError

    plan, devices = _sonic_devices(LAB)
    device = next(d for d in devices if d.name == "leaf1")
    fragment = json.loads(render_device(device, plan))
    fragment.pop("SWITCH_HASH")  # no sonic-hash.yang in ../shared/sonic-yang
    fragment[table][key][field] = value
    with pytest.raises(SonicYangError, match=message):
        sonic_yang.validate(
            merged_with_device(fragment, {p.name: p.lanes for p in device.ports.values()})
        )
