"""The host script on a stand-in host whose tools fail: every problem the checks can find is
found before any change (and nothing is changed); a step that fails during the changes names
the NIC, the step and the tool's own words, and lists exactly what was already changed; every
change is printed, and the last line says whether anything changed (Ansible's changed_when).
The ToS and NCCL traffic class carry ECT(0), and the state reader compares only the DSCP."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import INVENTORIES

from lossless.hosts.nvidia_state import parse_state
from lossless.hosts.values import dscp_of, traffic_class
from lossless.inventory import load_inventory
from lossless.planner.fabric import plan_fabric

LAB = str(INVENTORIES / "lab.yaml")
FAKE_TOOLS = Path(__file__).parent / "data" / "fake_host_tools"
GPU01 = {"eth0": "mlx5_0", "eth1": "mlx5_1"}


def _fake_host(root: Path) -> None:
    """A fresh mlx5 host under root, as tests/test_host_state.py lays it out."""
    for interface, rdma in GPU01.items():
        net = root / "class" / "net" / interface
        (net / "device" / "infiniband" / rdma).mkdir(parents=True)
        (net / "mtu").write_text("1500\n")
        for point in ("roce_np", "roce_rp"):
            (net / "ecn" / point / "enable").mkdir(parents=True)
            for priority in range(8):
                (net / "ecn" / point / "enable" / str(priority)).write_text("0\n")
        (net / "ecn" / "roce_np" / "cnp_dscp").write_text("0\n")
        (net / "ecn" / "roce_np" / "cnp_802p_prio").write_text("0\n")
        traffic_class_file = root / "class" / "infiniband" / rdma / "tc" / "1" / "traffic_class"
        traffic_class_file.parent.mkdir(parents=True)
        traffic_class_file.write_text("Global tclass=0\n")


def _fail(root: Path, tool: str, target: str, stdout: str, stderr: str = "") -> None:
    """Make a fake tool fail for target (see tests/data/fake_host_tools/README.md)."""
    path = root / ".fake" / "fail" / f"{tool}-{target}"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(stdout + ("\n" + stderr if stderr else "") + "\n")


def _run(script: Path, root: Path, path_first: Path | None = None):
    tools = f"{FAKE_TOOLS}{os.pathsep}{os.environ['PATH']}"
    if path_first is not None:
        tools = f"{path_first}{os.pathsep}{tools}"
    env = {**os.environ, "LOSSLESS_SYSFS": str(root), "PATH": tools}
    return subprocess.run(
        ["bash", str(script)], env=env, capture_output=True, text=True, timeout=120
    )


def _snapshot(root: Path) -> dict[str, str]:
    return {
        str(p): p.read_text()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".fake/fail" not in str(p)
    }


def _changes(root: Path) -> list[str]:
    log = root / ".fake" / "changes"
    return log.read_text().splitlines() if log.is_file() else []


@pytest.fixture(scope="module")
def script(tmp_path_factory) -> Path:
    from lossless.cli.main import main

    out = tmp_path_factory.mktemp("hosts")
    assert main(["render", LAB, "-o", str(out), "--hosts", "--server", "gpu01"]) == 0
    return out / "gpu01.sh"


def test_every_change_is_printed_and_the_last_line_says_so(script, tmp_path):
    root = tmp_path / "sys"
    _fake_host(root)
    first = _run(script, root)
    assert first.returncode == 0, first.stderr
    lines = first.stdout.splitlines()
    assert "lossless: eth0: trust dscp (was pcp)" in lines
    assert "lossless: eth1: mtu 9000 (was 1500)" in lines
    assert "lossless: eth0: RDMA-CM default ToS 106 (was 0)" in lines
    assert "lossless: eth0: ecn/roce_np/cnp_dscp 48 (was 0)" in lines
    printed = [line for line in lines if line.startswith(("lossless: eth0:", "lossless: eth1:"))]
    assert lines[-1] == f"lossless: changed {len(printed)} settings"
    # every change a tool logged was printed (sysfs writes are printed too)
    assert len(_changes(root)) < len(printed)
    again = _run(script, root)
    assert again.returncode == 0, again.stderr
    assert again.stdout.splitlines()[-1] == "lossless: nothing to change"
    assert not [line for line in again.stdout.splitlines() if line.startswith("lossless: eth")]


def test_a_missing_module_is_found_before_any_change(script, tmp_path):
    root = tmp_path / "sys"
    _fake_host(root)
    # eth1's RDMA-CM ToS cannot be read: cma_roce_tos's own words without rdma_cm
    _fail(
        root, "cma_roce_tos", "mlx5_1", "Module rdma_cm is not loaded or does not support configfs"
    )
    before = _snapshot(root)
    result = _run(script, root)
    assert result.returncode == 1
    assert result.stdout == ""  # not one change printed
    err = result.stderr
    assert "lossless: eth1: cannot read the RDMA-CM default ToS (cma_roce_tos -d mlx5_1):" in err
    assert "lossless:     Module rdma_cm is not loaded or does not support configfs" in err
    assert "lossless: gpu01: nothing changed: 1 problem(s) found by the checks" in err
    assert _snapshot(root) == before and _changes(root) == []


def test_every_problem_of_every_nic_is_listed_at_once(script, tmp_path):
    root = tmp_path / "sys"
    _fake_host(root)
    shutil.rmtree(root / "class" / "net" / "eth1" / "device")  # eth1: no RDMA device
    (root / "class" / "net" / "eth0" / "ecn" / "roce_np" / "cnp_dscp").unlink()
    _fail(root, "cma_roce_tos", "mlx5_0", "Failed to create configuration for mlx5_0")
    result = _run(script, root)
    assert result.returncode == 1 and result.stdout == ""
    assert "eth1: no RDMA device (RoCE driver not loaded?)" in result.stderr
    assert "/class/net/eth0/ecn/roce_np/cnp_dscp is missing: ECN sysfs" in result.stderr
    assert "Failed to create configuration for mlx5_0" in result.stderr
    assert "3 problem(s) found by the checks" in result.stderr
    assert _changes(root) == []


def test_an_old_mlnx_qos_without_trust_is_found_before_any_change(script, tmp_path):
    root = tmp_path / "sys"
    _fake_host(root)
    old = tmp_path / "old-tools"
    old.mkdir()
    stand_in = old / "mlnx_qos"  # an mlnx_qos whose help lists no --trust (MLNX_OFED 3.x)
    stand_in.write_text(
        "#!/bin/sh\n"
        'case "$1" in --help) echo "Options: -i INTF --pfc=PFC --cable_len=LEN"; exit 0;; esac\n'
        f'exec "{FAKE_TOOLS / "mlnx_qos"}" "$@"\n'
    )
    stand_in.chmod(0o755)
    result = _run(script, root, path_first=old)
    assert result.returncode == 1 and result.stdout == ""
    assert "eth0: mlnx_qos has no --trust option (`mlnx_qos --help`)" in result.stderr
    assert "eth1: mlnx_qos has no --dscp2prio option" in result.stderr
    assert _changes(root) == []


def test_a_failure_during_the_changes_names_the_step_and_lists_what_changed(script, tmp_path):
    root = tmp_path / "sys"
    _fake_host(root)
    _fail(root, "ip", "eth1", "Error: mtu greater than device maximum.", "RTNETLINK: 22")
    result = _run(script, root)
    assert result.returncode == 1
    err = result.stderr.splitlines()
    assert err[0] == ("lossless: eth1: mtu 9000 (was 1500) failed (ip link set dev eth1 mtu 9000):")
    # the tool's own words, stdout and stderr both
    assert err[1:3] == [
        "lossless:     Error: mtu greater than device maximum.",
        "lossless:     RTNETLINK: 22",
    ]
    assert err[-1] == "lossless: gpu01: stopped; the steps after this one were not run"
    # what was changed: exactly the lines printed as changes, eth0 whole and eth1 up to MTU
    printed = [
        line.removeprefix("lossless: ")
        for line in result.stdout.splitlines()
        if line.startswith("lossless: eth")
    ]
    listed = [
        line.removeprefix("lossless:     ")
        for line in err[err.index(f"lossless: changed before this step ({len(printed)}):") + 1 : -1]
    ]
    assert listed == printed
    assert "eth0: 802.3x pause off (was on)" in listed and "eth0: mtu 9000 (was 1500)" in listed
    assert "eth1: RDMA-CM default ToS 106 (was 0)" in listed
    assert not any(line.startswith("eth1: mtu") or "eth1: 802.3x" in line for line in listed)
    assert "ethtool eth1 rx off tx off" not in _changes(root)  # not run after the failure
    assert (root / "class" / "net" / "eth1" / "mtu").read_text() == "1500\n"


def test_a_failure_on_the_first_step_says_nothing_was_changed(script, tmp_path):
    root = tmp_path / "sys"
    _fake_host(root)
    _fail(root, "mlnx_qos", "eth0", "Netlink error: Operation not permitted")
    result = _run(script, root)
    assert result.returncode == 1 and result.stdout == ""
    assert "lossless: eth0: trust dscp (was pcp) failed (mlnx_qos -i eth0 --trust dscp):" in (
        result.stderr
    )
    assert "lossless:     Netlink error: Operation not permitted" in result.stderr
    assert "lossless: nothing was changed before this step" in result.stderr


def test_the_traffic_class_carries_ect0_and_state_compares_the_dscp(tmp_path):
    assert traffic_class(26) == 106 and traffic_class(48) == 194  # DSCP << 2 | ECT(0)
    assert dscp_of(106) == dscp_of(104) == 26
    planned = plan_fabric(load_inventory(LAB)).nics["gpu01:eth0"]
    folder = tmp_path / "gpu01" / "eth0"
    folder.mkdir(parents=True)
    for tos, dscp in (("Global tclass=104", 26), ("Global tclass=106", 26), ("107", 26)):
        (folder / "sysfs.txt").write_text(
            f"/sys/class/infiniband/mlx5_0/tc/1/traffic_class:{tos}\n"
        )
        assert parse_state(folder, planned).roce_dscp == dscp


def test_rdma_cm_tos_alone_leaves_the_roce_class_unknown(tmp_path):
    """NCCL does not use RDMA-CM: its default ToS says nothing of the NIC's RoCE class."""
    planned = plan_fabric(load_inventory(LAB)).nics["gpu01:eth0"]
    folder = tmp_path / "gpu01" / "eth0"
    folder.mkdir(parents=True)
    (folder / "sysfs.txt").write_text(
        "/sys/kernel/config/rdma_cm/mlx5_0/ports/1/default_roce_tos:106\n"
    )
    state = parse_state(folder, planned)
    assert state.roce_dscp is None and "roce_dscp" not in state.sources


def test_the_nccl_environment_carries_ect0(run, tmp_path):
    assert run("render", LAB, "-o", str(tmp_path), "--hosts", "--server", "gpu01").code == 0
    env = (tmp_path / "gpu01.nccl.env").read_text()
    assert "NCCL_IB_TC=106\n" in env and "UCX_IB_TRAFFIC_CLASS=106\n" in env


def test_an_inbox_driver_host_gets_everything_but_ecn(script, tmp_path):
    """The upstream mlx5 driver has no ECN sysfs: the rest is set, ECN/DCQCN is reported."""
    root = tmp_path / "sys"
    _fake_host(root)
    shutil.rmtree(root / "class" / "net" / "eth1" / "ecn")
    result = _run(script, root)
    assert result.returncode == 0, result.stderr
    assert (
        "lossless: eth1: ECN/DCQCN not settable on this driver (no ECN sysfs: inbox mlx5): "
        "firmware defaults, DCQCN on by default"
    ) in result.stdout.splitlines()
    changes = _changes(root)
    assert "mlnx_qos eth1 trust dscp" in changes and "ip eth1 mtu 9000" in changes
    assert "cma_roce_tos mlx5_1 106" in changes
    assert (root / "class" / "net" / "eth0" / "ecn" / "roce_np" / "cnp_dscp").read_text() == "48\n"
    assert not (root / "class" / "net" / "eth1" / "ecn").exists()
