"""One cause, one finding (issue 25): a NIC's MTU that its switch port cannot carry is one
LL109, however many plans judge it; a NIC's saved state without its sysfs file is one LL211
for the NIC, not an LL210 per setting the file shows; what a `lint_ignore` over a whole
fabric skips is one line with a count, not a line per port."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import INVENTORIES, MINIMAL, REPO, beyond_the_lab_warning

from lossless.hosts.state import fabric_from_host_state
from lossless.inventory import load_inventory
from lossless.lint.report import report
from lossless.lint.runner import lint
from lossless.planner.fabric import plan_fabric

LAB = INVENTORIES / "lab.yaml"
POD = INVENTORIES / "pod-2048.yaml"
REPORTS = REPO / "tests" / "data" / "host_state"


def _lines(out: str, rule: str) -> list[str]:
    return [line for line in out.splitlines() if f" {rule} [" in line]


# -- LL109: one NIC MTU mismatch -----------------------------------------------------------


def test_one_nic_mtu_mismatch_is_one_finding_at_the_nics_line(run, write):
    """gpu1's NIC asks for MTU 9100, which leaf1's 9100 port cannot carry with its L2
    overhead: one LL109, on the switch port, at the NIC's line (where the value that
    differs is written), naming both values; not a second one at the port's MTU."""
    inventory = write(MINIMAL.replace("eth0: {speed: 400G}", "eth0: {speed: 400G, mtu: 9100}"))
    result = run("lint", str(inventory))
    assert result.code == 1
    [line] = _lines(result.out, "LL109")
    assert line.startswith(f"{inventory}:19:")  # the line of gpu1's eth0
    assert "leaf1 Ethernet0: port MTU 9100 cannot carry NIC MTU 9100" in line
    records = json.loads(run("lint", str(inventory), "--format", "json").out)
    assert [r["line"] for r in records if r["rule"] == "LL109"] == [19]


def _lab_with_a_big_nic_mtu(tmp_path: Path) -> Path:
    """The lab with gpu01's eth0 at MTU 9100 (its other NICs at 9000, as the lab has them)."""
    text = LAB.read_text()
    nics = '    nics: {"eth[0:1]": {speed: 400G, model: ConnectX-7, mtu: 9000}}\n'
    old = "  gpu[01:02]:  # NVIDIA ConnectX-7; host settings inherited from the leaf ports\n"
    assert old + nics in text
    new = (
        "  gpu01:\n    nics:\n"
        "      eth0: {speed: 400G, model: ConnectX-7, mtu: 9100}\n"
        "      eth1: {speed: 400G, model: ConnectX-7, mtu: 9000}\n"
        f"  gpu02:\n{nics}"
    )
    path = tmp_path / "lab.yaml"
    path.write_text(text.replace(old + nics, new))
    return path


def test_ci_reports_a_nic_mtu_mismatch_once_for_the_inventory_and_its_configs(run, tmp_path):
    """`ci --configs` judges the inventory and the configs that differ from its render: the
    mismatch both show is one finding (it was three: the NIC's line, the inventory's MTU
    and the config's), and a port MTU the config alone lowers is one, at the config."""
    inventory = _lab_with_a_big_nic_mtu(tmp_path)
    configs = tmp_path / "configs"
    assert run("render", str(inventory), "-o", str(configs)).code == 0
    leaf1 = configs / "leaf1.json"
    config = json.loads(leaf1.read_text())
    config["PORT"]["Ethernet4"]["mtu"] = "9000"  # below gpu02's 9000 + 22
    leaf1.write_text(json.dumps(config, indent=4, sort_keys=True) + "\n")
    result = run("ci", str(inventory), "--configs", str(configs), "--select", "LL109")
    assert result.code == 1
    found = _lines(result.out, "LL109")
    [ethernet0] = [line for line in found if "leaf1 Ethernet0:" in line]
    assert ethernet0.startswith(f"{inventory}:")  # gpu01's eth0, where 9100 is written
    assert "port MTU 9100 cannot carry NIC MTU 9100" in ethernet0
    [ethernet4] = [line for line in found if "leaf1 Ethernet4:" in line]
    assert ethernet4.startswith(f"{leaf1}:")  # the config's MTU is what differs
    assert "port MTU 9000 cannot carry NIC MTU 9000" in ethernet4
    assert len(found) == 2


# -- LL211: a NIC's state without its sysfs file -------------------------------------------


def _state_without(tmp_path: Path, *left_out: str) -> Path:
    """Saved state for gpu01's two NICs with every file but `left_out`."""
    root = tmp_path / "state"
    files = {
        "mlnx_qos.txt": (REPORTS / "current.txt").read_text(),
        "sysfs.txt": "".join(
            f"{line}\n"
            for line in (
                "/sys/class/net/IF/mtu:9000",
                "/sys/class/net/IF/speed:400000",
                "/sys/class/net/IF/ecn/roce_np/enable/3:1",
                "/sys/class/net/IF/ecn/roce_rp/enable/3:1",
                "/sys/class/net/IF/ecn/roce_np/cnp_dscp:48",
                "/sys/class/net/IF/ecn/roce_np/cnp_802p_prio:6",
                "/sys/class/infiniband/mlx5_0/tc/1/traffic_class:Global tclass=106",
            )
        ),
        "ethtool-pause.txt": "Pause parameters for IF:\nAutonegotiate:\toff\nRX:\toff\nTX:\toff\n",
    }
    for nic in ("eth0", "eth1"):
        folder = root / "gpu01" / nic
        folder.mkdir(parents=True)
        for name, text in files.items():
            if name not in left_out:
                (folder / name).write_text(text.replace("IF", nic))
    return root


def _gpu01(findings, rule):
    return [f for f in findings if f.rule == rule and f.message.startswith("gpu01:")]


def test_a_missing_sysfs_file_is_one_ll211_per_nic(tmp_path):
    plan = plan_fabric(load_inventory(LAB))
    _, findings = fabric_from_host_state(plan, _state_without(tmp_path, "sysfs.txt"))
    missing = _gpu01(findings, "LL211")
    assert sorted(f.message.split(":")[1] for f in missing) == ["eth0", "eth1"]
    for f in missing:
        assert f.severity == "warning" and "no sysfs.txt in" in f.message
        for setting in ("speed_mbps", "mtu", "roce_dscp", "cnp_dscp", "ecn_np", "ecn_rp"):
            assert setting in f.message, f.message
    # the settings sysfs.txt shows are not each an LL210 "not in the saved state"
    sysfs_settings = ("speed_mbps", "mtu", "roce_dscp", "cnp_dscp", "cnp_priority", "ecn_")
    assert not [
        f
        for f in _gpu01(findings, "LL210")
        if "not in the saved state" in f.message and any(s in f.message for s in sysfs_settings)
    ]


def test_an_empty_nic_folder_is_one_ll211_naming_every_file(tmp_path):
    plan = plan_fabric(load_inventory(LAB))
    state = _state_without(tmp_path, "mlnx_qos.txt", "sysfs.txt", "ethtool-pause.txt")
    _, findings = fabric_from_host_state(plan, state)
    assert _gpu01(findings, "LL210") == []
    missing = _gpu01(findings, "LL211")
    assert len(missing) == 2
    assert all("no mlnx_qos.txt, sysfs.txt or ethtool-pause.txt in" in f.message for f in missing)


# -- suppressed findings: one line per lint_ignore entry ------------------------------------


def _pod_forwarding_storms(tmp_path: Path, fabric_ignore: str = "", leaf_ignore: str = "") -> Path:
    """The 2,048-GPU pod with a watchdog that forwards (LL115 on each of its 6,144 ports)."""
    text = POD.read_text().replace(
        "    mtu: 9100\n", "    mtu: 9100\n    pfc_watchdog: {action: forward}\n", 1
    )
    if fabric_ignore:
        text = text.replace(
            "  name: pod-2048\n",
            f"  name: pod-2048\n  lint_ignore: {{LL115: {fabric_ignore}}}\n",
            1,
        )
    if leaf_ignore:
        text = text.replace(
            "  leaf[01:32]:\n    role: leaf\n",
            f"  leaf[01:32]:\n    role: leaf\n    lint_ignore: {{LL115: {leaf_ignore}}}\n",
        )
    path = tmp_path / "pod.yaml"
    path.write_text(text)
    return path


def test_a_fabric_wide_lint_ignore_prints_one_line_with_the_count(run, tmp_path):
    inventory = _pod_forwarding_storms(tmp_path, fabric_ignore="storms are studied here")
    result = run("lint", str(inventory))
    assert result.code == 0
    suppressed = [line for line in result.out.splitlines() if line.startswith("suppressed")]
    [line] = suppressed
    assert line.startswith(f"suppressed LL115 at {inventory}:")
    assert " on 6,144 ports (leaf01:Ethernet0, " in line and " and 6,141 more) " in line
    assert line.endswith(f"by the fabric's lint_ignore in {inventory}: storms are studied here")
    assert "0 errors, 0 warnings" in result.out


def test_a_device_range_lint_ignore_is_one_line_for_all_its_devices(run, tmp_path):
    inventory = _pod_forwarding_storms(tmp_path, leaf_ignore="leaves only")
    result = run("lint", str(inventory))
    [line] = [line for line in result.out.splitlines() if line.startswith("suppressed")]
    assert " on 4,096 ports (leaf01:" in line
    assert line.endswith(f"by the lint_ignore of the devices at {inventory}:27:3: leaves only")
    # the spines' LL115 stands: one finding for the one cause, the fabric's watchdog line
    assert len(_lines(result.out, "LL115")) == 1


def test_suppressions_group_in_the_result_and_stay_out_of_the_json(tmp_path):
    inventory = _pod_forwarding_storms(tmp_path, fabric_ignore="lab storms")
    plan = plan_fabric(load_inventory(inventory))
    result = lint(plan)
    [entry] = result.suppressed
    assert (entry.rule, entry.reason, entry.scope, entry.at) == (
        "LL115",
        "lab storms",
        "fabric",
        str(inventory),
    )
    assert len(entry.findings) == 6144
    assert report(result, list(plan.devices), "json") == "[]\n"
    sarif = json.loads(report(result, list(plan.devices), "sarif"))
    assert sarif["runs"][0]["results"] == []


def test_the_example_inventories_still_lint_clean_with_nothing_suppressed():
    for inventory in (LAB, POD):
        result = lint(plan_fabric(load_inventory(inventory)))
        assert beyond_the_lab_warning(result.findings) == [] and result.suppressed == []


def test_a_complete_state_has_no_ll211_for_its_nics(tmp_path):
    plan = plan_fabric(load_inventory(LAB))
    _, findings = fabric_from_host_state(plan, _state_without(tmp_path))
    assert _gpu01(findings, "LL211") == []


@pytest.mark.parametrize(
    ("dropped", "words"),
    [
        ("tc/1/traffic_class", "RoCE class unknown: no tc/1/traffic_class"),
        ("/ecn/", "no ECN knobs in sysfs.txt (the inbox mlx5 driver has none)"),
    ],
)
def test_what_sysfs_cannot_tell_is_one_ll211_not_drift(tmp_path, dropped, words):
    """Issue 27: without tc/1/traffic_class the RoCE class is unknown (RDMA-CM's ToS is not
    NCCL's class), and a host on the inbox driver has no ECN knobs: each is said once, in the
    NIC's LL211, and not reported as drift."""
    root = _state_without(tmp_path)
    for nic in ("eth0", "eth1"):
        sysfs = root / "gpu01" / nic / "sysfs.txt"
        kept = [line for line in sysfs.read_text().splitlines() if dropped not in line]
        sysfs.write_text("\n".join(kept) + "\n")
    plan = plan_fabric(load_inventory(LAB))
    _, findings = fabric_from_host_state(plan, root)
    missing = _gpu01(findings, "LL211")
    assert len(missing) == 2 and all(words in f.message for f in missing)
    drift = " ".join(f.message for f in _gpu01(findings, "LL210"))
    assert "RoCE DSCP" not in drift and "CNP" not in drift and "ECN" not in drift
