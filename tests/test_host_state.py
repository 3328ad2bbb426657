"""Host state: the rendered script applied on a stand-in host, saved by the collection script,
read back equal to the plan; real mlnx_qos report styles; seeded host defects each caught at
the file and line of the saved state."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import INVENTORIES, REPO

from lossless.errors import InputError
from lossless.hosts.nvidia_state import parse_state
from lossless.hosts.state import STATE_FIELDS, fabric_from_host_state
from lossless.inventory import load_inventory
from lossless.lint.runner import lint
from lossless.planner.fabric import plan_fabric

LAB = str(INVENTORIES / "lab.yaml")
DATA = Path(__file__).parent / "data"
FAKE_TOOLS = DATA / "fake_host_tools"
REPORTS = DATA / "host_state"
PLAN = plan_fabric(load_inventory(LAB))
GPU01 = {"eth0": "mlx5_0", "eth1": "mlx5_1"}


def _fake_host(root: Path, interfaces: dict[str, str]) -> None:
    """A /sys as a fresh mlx5 host has it: ECN off, CNP class 0, MTU 1500, trust pcp."""
    driver = root / "bus" / "pci" / "drivers" / "mlx5_core"
    driver.mkdir(parents=True)
    for interface, rdma in interfaces.items():
        net = root / "class" / "net" / interface
        (net / "device" / "infiniband" / rdma).mkdir(parents=True)
        (net / "device" / "driver").symlink_to(driver)
        (net / "mtu").write_text("1500\n")
        (net / "speed").write_text("400000\n")
        for point in ("roce_np", "roce_rp"):
            (net / "ecn" / point / "enable").mkdir(parents=True)
            for priority in range(8):
                (net / "ecn" / point / "enable" / str(priority)).write_text("0\n")
        (net / "ecn" / "roce_np" / "cnp_dscp").write_text("0\n")
        (net / "ecn" / "roce_np" / "cnp_802p_prio").write_text("0\n")
        (net / "ecn" / "roce_np" / "min_time_between_cnps").write_text("4\n")
        (net / "ecn" / "roce_rp" / "rpg_ai_rate").write_text("5\n")
        traffic_class = root / "class" / "infiniband" / rdma / "tc" / "1" / "traffic_class"
        traffic_class.parent.mkdir(parents=True)
        traffic_class.write_text("Global tclass=0\n")


def _environment(root: Path) -> dict[str, str]:
    return {
        **os.environ,
        "LOSSLESS_SYSFS": str(root),
        "PATH": f"{FAKE_TOOLS}{os.pathsep}{os.environ['PATH']}",
    }


def _run(script: Path, root: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["bash", str(script), *args],
        env=_environment(root),
        capture_output=True,
        text=True,
        timeout=120,
    )


def _snapshot(root: Path) -> dict[str, tuple[str, int]]:
    return {
        str(p): (p.read_text(), p.stat().st_mtime_ns)
        for p in sorted(root.rglob("*"))
        if p.is_file() and not p.is_symlink()
    }


@pytest.fixture(scope="module")
def hosts(tmp_path_factory):
    from lossless.cli.main import main

    out = tmp_path_factory.mktemp("hosts")
    assert main(["render", LAB, "-o", str(out), "--hosts", "--server", "gpu01"]) == 0
    return out


@pytest.fixture
def applied(hosts, tmp_path):
    """gpu01's script run on a stand-in host: (sysfs root, hosts folder)."""
    root = tmp_path / "sys"
    _fake_host(root, GPU01)
    result = _run(hosts / "gpu01.sh", root)
    assert result.returncode == 0, result.stderr
    assert "RoCE host settings in place" in result.stdout
    return root, hosts


def _collect(hosts: Path, root: Path, folder: Path, *interfaces: str) -> None:
    result = _run(hosts / "collect-host-state.sh", root, "-n", "gpu01", str(folder), *interfaces)
    assert result.returncode == 0, result.stderr


def test_the_script_sets_the_host_and_a_second_run_changes_nothing(applied):
    root, hosts = applied
    changes = (root / ".fake" / "changes").read_text().splitlines()
    assert "mlnx_qos eth0 trust dscp" in changes
    assert "mlnx_qos eth0 pfc 0,0,0,1,0,0,0,0" in changes
    assert "mlnx_qos eth0 cable_len 2" in changes and "mlnx_qos eth1 cable_len 3" in changes
    assert "cma_roce_tos mlx5_0 106" in changes and "ip eth1 mtu 9000" in changes
    assert "ethtool eth0 rx off tx off" in changes
    net = root / "class" / "net" / "eth0"
    assert (net / "ecn" / "roce_np" / "enable" / "3").read_text() == "1\n"
    assert (net / "ecn" / "roce_rp" / "enable" / "3").read_text() == "1\n"
    assert (net / "ecn" / "roce_np" / "enable" / "4").read_text() == "0\n"  # not ours
    assert (net / "ecn" / "roce_np" / "cnp_dscp").read_text() == "48\n"
    tclass = root / "class" / "infiniband" / "mlx5_0" / "tc" / "1" / "traffic_class"
    assert tclass.read_text() == "106\n"
    before = _snapshot(root)
    again = _run(hosts / "gpu01.sh", root)
    assert again.returncode == 0, again.stderr
    assert _snapshot(root) == before  # not one file written, not one tool changed anything


def test_the_script_changes_nothing_when_a_nic_is_missing(hosts, tmp_path):
    root = tmp_path / "sys"
    _fake_host(root, {"eth0": "mlx5_0"})  # no eth1
    before = _snapshot(root)
    result = _run(hosts / "gpu01.sh", root)
    assert result.returncode == 1
    assert "lossless: no interface eth1 on this host (gpu01 expected)" in result.stderr
    assert _snapshot(root) == before


def test_the_script_needs_every_ecn_knob_of_the_ofed_driver(hosts, tmp_path):
    root = tmp_path / "sys"
    _fake_host(root, GPU01)
    (root / "class" / "net" / "eth1" / "ecn" / "roce_np" / "cnp_dscp").unlink()
    result = _run(hosts / "gpu01.sh", root)
    assert result.returncode == 1 and "ECN sysfs of the DOCA-OFED or MLNX_OFED" in result.stderr
    assert not (root / ".fake" / "changes").exists()
    # no ECN sysfs at all (the inbox driver): tests/test_host_script_safety.py


def test_applied_collected_and_read_back_equals_the_plan(applied, tmp_path):
    root, hosts = applied
    state = tmp_path / "state"
    _collect(hosts, root, state)  # interfaces found by their mlx5_core RDMA devices
    assert sorted(p.name for p in (state / "gpu01").iterdir()) == ["eth0", "eth1"]
    for interface in GPU01:
        planned = PLAN.nics[f"gpu01:{interface}"]
        parsed = parse_state(state / "gpu01" / interface, planned)
        for field in STATE_FIELDS:
            assert getattr(parsed, field) == getattr(planned, field), (interface, field)
    fabric, findings = fabric_from_host_state(PLAN, state)
    assert {f.rule for f in findings} == {"LL211"}  # only: no state for gpu02..gpu04
    assert lint(fabric, extra=findings).failed is False


def test_lint_host_state_command(applied, tmp_path, run):
    root, hosts = applied
    _collect(hosts, root, tmp_path / "state", "eth0", "eth1")
    result = run("lint", LAB, "--host-state", str(tmp_path / "state"))
    assert result.code == 0, result.out
    # LL211, and the lab's QFX5220 without a PFC watchdog (LL114)
    assert "0 errors, 4 warnings" in result.out and "LL211" in result.out


def _defect(tool_args: list[str] | None, sysfs: tuple[str, str] | None):
    def apply(root: Path) -> None:
        if tool_args:
            subprocess.run(
                [str(FAKE_TOOLS / tool_args[0]), *tool_args[1:]],
                env=_environment(root),
                check=True,
                capture_output=True,
            )
        if sysfs:
            (root / sysfs[0]).write_text(sysfs[1] + "\n")

    return apply


DEFECTS = {
    "trust pcp": (
        _defect(["mlnx_qos", "-i", "eth0", "--trust", "pcp"], None),
        "LL130",
        "mlnx_qos.txt:2:1",
    ),
    "PFC on 4": (
        _defect(["mlnx_qos", "-i", "eth0", "--pfc", "0,0,0,0,1,0,0,0"], None),
        "LL131",
        "mlnx_qos.txt:16:1",
    ),
    "CNP DSCP 46": (
        _defect(None, ("class/net/eth0/ecn/roce_np/cnp_dscp", "46")),
        "LL133",
        "sysfs.txt",
    ),
    "ECN off": (
        _defect(None, ("class/net/eth0/ecn/roce_rp/enable/3", "0")),
        "LL134",
        "sysfs.txt",
    ),
}


@pytest.mark.parametrize("defect", sorted(DEFECTS))
def test_seeded_host_defects_are_caught_at_the_state_line(applied, tmp_path, run, defect):
    root, hosts = applied
    seed, rule, where = DEFECTS[defect]
    seed(root)
    state = tmp_path / "state"
    _collect(hosts, root, state, "eth0", "eth1")
    result = run("lint", LAB, "--host-state", str(state), "--select", rule, "--select", "LL210")
    assert result.code == 1, result.out
    flagged = [line for line in result.out.splitlines() if f" {rule} " in line]
    assert flagged, result.out
    state_file = str(state / "gpu01" / "eth0" / where.split(":")[0])
    assert any(line.startswith(state_file) for line in flagged), flagged
    if ":" in where:
        assert any(line.startswith(f"{state / 'gpu01' / 'eth0'}/{where}") for line in flagged)
    assert any(
        " LL210 " in line and line.startswith(state_file) for line in result.out.splitlines()
    )
    # one cause, one finding: at the state line that differs, on the switch port at the other
    # end of the cable (not a second one where the inventory sets leaf1's port's value)
    [finding] = flagged
    assert finding.startswith(state_file) and "leaf1 Ethernet0" in finding


def _state_folder(tmp_path: Path, report: str, sysfs: str = "", pause: str = "") -> Path:
    folder = tmp_path / "gpu01" / "eth0"
    folder.mkdir(parents=True)
    shutil.copy(REPORTS / report, folder / "mlnx_qos.txt")
    (folder / "sysfs.txt").write_text(sysfs)
    (folder / "ethtool-pause.txt").write_text(pause)
    return folder


@pytest.mark.parametrize(
    "report, trust, pfc, cable, roce_priority",
    [
        ("current.txt", "dscp", [3], 7, 3),
        ("ofed5.txt", "dscp", [3], 7, 3),
        ("ofed41.txt", "dscp", [3], None, None),  # no DSCP map printed then
        ("firmware-pcp.txt", "pcp", [3, 4], 10, None),
        ("wrapped.txt", "dscp", [3], 3, 3),
    ],
)
def test_real_mlnx_qos_report_styles(tmp_path, report, trust, pfc, cable, roce_priority):
    planned = PLAN.nics["gpu01:eth0"]
    state = parse_state(_state_folder(tmp_path, report), planned)
    assert (state.trust, state.pfc_priorities, state.cable_m) == (trust, pfc, cable)
    assert state.roce_priority == roce_priority
    assert state.sources["trust"].endswith("mlnx_qos.txt:2:1") or report == "ofed41.txt"


def test_sysfs_lines_as_grep_prints_them(tmp_path):
    sysfs = "\n".join(
        [
            "/sys/class/net/eth0/mtu:9000",
            "/sys/class/net/eth0/speed:400000",
            "/sys/class/net/eth0/ecn/roce_np/enable/3:1",
            "/sys/class/net/eth0/ecn/roce_rp/enable/3:1",
            "/sys/class/net/eth0/ecn/roce_np/cnp_dscp:48",
            "/sys/class/net/eth0/ecn/roce_np/cnp_802p_prio:6",
            "/sys/class/net/eth0/ecn/roce_rp/rpg_ai_rate:5",
            "/sys/class/infiniband/mlx5_0/tc/1/traffic_class:Global tclass=106",
            "/sys/kernel/config/rdma_cm/mlx5_0/ports/1/default_roce_tos:0",
        ]
    )
    pause = "Pause parameters for eth0:\nAutonegotiate:\toff\nRX:\t\toff\nTX:\t\ton\n"
    folder = _state_folder(tmp_path, "current.txt", sysfs, pause)
    state = parse_state(folder, PLAN.nics["gpu01:eth0"])
    # NVIDIA's usual ToS 106 is DSCP 26 with ECT(0): the port-wide class wins over RDMA-CM's 0
    assert (state.roce_dscp, state.roce_priority, state.cnp_dscp, state.cnp_priority) == (
        26,
        3,
        48,
        6,
    )
    assert (state.mtu, state.speed_mbps, state.ecn_np, state.ecn_rp) == (9000, 400000, True, True)
    assert state.dcqcn == {"ai_rate_mbps": 5}
    assert state.link_pause is True and state.sources["link_pause"].endswith(
        "ethtool-pause.txt:4:1"
    )
    assert state.sources["cnp_dscp"].endswith("sysfs.txt:5:1")


def test_a_missing_setting_is_a_difference_not_the_plan(tmp_path):
    planned = PLAN.nics["gpu01:eth0"]
    state = parse_state(_state_folder(tmp_path, "ofed41.txt"), planned)
    assert state.cnp_dscp is None and state.ecn_np is None and state.mtu is None
    from lossless.hosts.state import host_drift

    messages = {f.message for f in host_drift(planned, state)}
    assert "gpu01:eth0: cnp_dscp is not in the saved state, the plan has 48" in messages


def test_garbage_state_is_read_quickly_and_says_nothing(tmp_path):
    import time

    folder = tmp_path / "gpu01" / "eth0"
    folder.mkdir(parents=True)
    pathological = "prio:1 dscp:" + " " * 1000 + "x\n" + "priority" + " 1" * 500 + "x\n"
    (folder / "mlnx_qos.txt").write_text(pathological * 1000)
    (folder / "sysfs.txt").write_text(("/ecn/roce_np/" + "9" * 100_000 + "\n") * 20)
    (folder / "ethtool-pause.txt").write_bytes(b"\xff\xfe not text")
    started = time.monotonic()
    with pytest.raises(InputError) as error:
        parse_state(folder, PLAN.nics["gpu01:eth0"])
    assert "not UTF-8" in str(error.value)  # undecodable: bad input, no traceback
    (folder / "ethtool-pause.txt").write_text("")
    state = parse_state(folder, PLAN.nics["gpu01:eth0"])
    assert state.trust is None and state.pfc_priorities is None
    assert time.monotonic() - started < 5
    (folder / "sysfs.txt").write_bytes(b"x" * (5 * 1024 * 1024))
    with pytest.raises(InputError, match="not a saved NIC state"):
        parse_state(folder, PLAN.nics["gpu01:eth0"])


def test_missing_state_and_unread_models_are_warnings(tmp_path, run):
    (tmp_path / "state" / "gpu03" / "eth0").mkdir(parents=True)
    result = run("lint", LAB, "--host-state", str(tmp_path / "state"), "--select", "LL211")
    assert result.code == 0
    assert "no saved state in" in result.out and "BCM57608 NICs is not read yet" in result.out
    assert run("lint", LAB, "--host-state", str(tmp_path / "nowhere")).code == 2


def test_collector_refuses_unsafe_names(hosts, tmp_path):
    root = tmp_path / "sys"
    _fake_host(root, GPU01)
    result = _run(hosts / "collect-host-state.sh", root, "-n", "..", str(tmp_path / "s"))
    assert result.returncode == 2 and "not a usable server name" in result.stderr
    result = _run(hosts / "collect-host-state.sh", root, "-n", "gpu01", str(tmp_path / "s"), "../x")
    assert result.returncode == 2 and not (tmp_path / "x").exists()


def test_collector_is_the_shipped_one(hosts):
    shipped = REPO / "templates" / "hosts" / "collect-host-state.sh"
    assert (hosts / "collect-host-state.sh").read_text() == shipped.read_text()


def test_broadcom_script_runs_bnxt_setupcc_once(tmp_path):
    from lossless.cli.main import main

    out = tmp_path / "hosts"
    assert main(["render", LAB, "-o", str(out), "--hosts", "--server", "gpu03"]) == 0
    root = tmp_path / "sys"
    _fake_host(root, {"eth0": "bnxt_re0", "eth1": "bnxt_re1"})
    first = _run(out / "gpu03.sh", root)
    assert first.returncode == 0, first.stderr
    changes = (root / ".fake" / "changes").read_text()
    assert "bnxt_setupcc.sh -d bnxt_re0 -i eth0 -m 3 -r 3 -s 26 -c 6 -p 48 -u 4" in changes
    before = _snapshot(root)
    assert _run(out / "gpu03.sh", root).returncode == 0
    assert _snapshot(root) == before
