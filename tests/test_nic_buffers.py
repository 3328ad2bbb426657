"""NIC receive buffers, DCBX mode and the firmware CNP class read from a host's saved state
(tests/data/host_state), each judged at the state line: LL136, LL137, LL138."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from conftest import INVENTORIES

from lossless.hosts.nvidia_state import parse_state
from lossless.hosts.rules import rx_buffer_floor
from lossless.hosts.state import fabric_from_host_state
from lossless.inventory import load_inventory
from lossless.lint.runner import lint
from lossless.planner.fabric import plan_fabric

PLAN = plan_fabric(load_inventory(INVENTORIES / "lab.yaml"))
REPORTS = Path(__file__).parent / "data" / "host_state"
SYSFS = "/sys/class/net/eth0/mtu:9000\n/sys/class/net/eth0/speed:400000\n"


def _state(tmp_path: Path, report: str, mlxconfig: str | None = None) -> Path:
    """gpu01 eth0's state: this report, 400G and MTU 9000 in sysfs.txt, no pause."""
    folder = tmp_path / "state" / "gpu01" / "eth0"
    folder.mkdir(parents=True)
    shutil.copy(REPORTS / report, folder / "mlnx_qos.txt")
    (folder / "sysfs.txt").write_text(SYSFS)
    (folder / "ethtool-pause.txt").write_text("RX:\t\toff\nTX:\t\toff\n")
    if mlxconfig:
        shutil.copy(REPORTS / mlxconfig, folder / "mlxconfig.txt")
    return folder


def _findings(folder: Path, rule: str) -> list:
    fabric, extra = fabric_from_host_state(PLAN, folder.parent.parent)
    return [f for f in lint(fabric, extra=extra, select=[rule]).findings if f.rule == rule]


@pytest.mark.parametrize(
    "report, buffers, mapping, dcbx",
    [
        ("current.txt", [130944, 130944, 0, 0, 0, 0, 0, 0], [0, 0, 0, 1, 0, 0, 0, 0], "os"),
        ("ofed5.txt", [130944, 130944, 0, 0, 0, 0, 0, 0], [0, 0, 0, 1, 0, 0, 0, 0], "os"),
        ("ofed41.txt", None, None, None),  # neither printed then
        ("firmware-pcp.txt", None, None, "firmware"),
        ("buffer-tiny.txt", [261120, 896, 0, 0, 0, 0, 0, 0], [0, 0, 0, 1, 0, 0, 0, 0], "os"),
        ("buffer-shared.txt", [262016] + [0] * 7, [0] * 8, "os"),
    ],
)
def test_buffers_and_dcbx_of_every_report_style(tmp_path, report, buffers, mapping, dcbx):
    state = parse_state(_state(tmp_path, report), PLAN.nics["gpu01:eth0"])
    assert (state.rx_buffers, state.prio2buffer, state.dcbx) == (buffers, mapping, dcbx)
    lines = (REPORTS / report).read_text().splitlines()
    for field, starts in (("rx_buffers", "Receive buffer size"), ("prio2buffer", "\tbuffer ")):
        if field in state.sources:  # the line the value was read from
            line = int(state.sources[field].rsplit(":", 2)[1])
            assert lines[line - 1].startswith(starts)


def test_the_floor_is_physics_without_interface_delays():
    # 2 x (8 x 9022 + 160) + 672 + 2 m x 400000 / 100 + 905 quanta x 512 bits = 616,704 bits
    assert rx_buffer_floor(400_000, 9000, 2) == 77_088
    assert rx_buffer_floor(100_000, 9000, 2) < 130_944  # NVIDIA's default buffer passes


def test_good_buffers_pass(tmp_path):
    assert _findings(_state(tmp_path, "current.txt"), "LL136") == []


def test_priority_3_in_a_tiny_buffer_is_one_finding_at_the_buffer_line(tmp_path):
    folder = _state(tmp_path, "buffer-tiny.txt")
    [finding] = _findings(folder, "LL136")
    assert finding.source == f"{folder / 'mlnx_qos.txt'}:12:1"
    assert (finding.device, finding.port) == ("leaf1", "Ethernet0")
    assert "PFC priority 3 is received into buffer 1 of 896 B" in finding.message
    assert "less than the 77,088 B" in finding.message and finding.severity == "error"


def test_a_lossless_priority_sharing_buffer_0_with_lossy_ones(tmp_path):
    folder = _state(tmp_path, "buffer-shared.txt")
    [finding] = _findings(folder, "LL136")  # 262016 B is large enough: one cause, one finding
    assert finding.source == f"{folder / 'mlnx_qos.txt'}:17:1"
    assert "PFC priority 3 shares receive buffer 0 with lossy priorities 0, 1, 2, 4, 5, 6, 7" in (
        finding.message
    )


def test_firmware_dcbx_is_a_warning_unless_mlxconfig_shows_it_off(tmp_path):
    folder = _state(tmp_path, "firmware-pcp.txt")
    [finding] = _findings(folder, "LL137")
    assert finding.source == f"{folder / 'mlnx_qos.txt'}:1:1" and finding.severity == "warning"
    assert "--dcbx os" in finding.message
    shutil.copy(REPORTS / "mlxconfig-roce-optimized.txt", folder / "mlxconfig.txt")
    assert _findings(folder, "LL137") == []  # LLDP_NB_DCBX_P1 False(0): the agent is off
    shutil.copy(REPORTS / "mlxconfig-dcbx-willing.txt", folder / "mlxconfig.txt")
    [finding] = _findings(folder, "LL137")
    assert "(mlxconfig: on and willing)" in finding.message
    assert _findings(_state(tmp_path / "os", "current.txt"), "LL137") == []


def test_firmware_cnp_class_of_roce_optimized(tmp_path):
    folder = _state(tmp_path, "current.txt", "mlxconfig-roce-optimized.txt")
    state = parse_state(folder, PLAN.nics["gpu01:eth0"])
    assert (state.firmware_cnp_dscp, state.firmware_cnp_priority) == (4, 6)
    assert state.firmware_dcbx_willing is False
    [finding] = _findings(folder, "LL138")
    assert finding.source == f"{folder / 'mlxconfig.txt'}:11:1"
    assert "after every boot the NIC's firmware sends CNPs with DSCP 4" in finding.message
    assert finding.severity == "error"  # no sysfs cnp_dscp in this state: nothing overrides it
    with (folder / "sysfs.txt").open("a") as sysfs:
        sysfs.write("/sys/class/net/eth0/ecn/roce_np/cnp_dscp:48\n")
    [finding] = _findings(folder, "LL138")
    assert finding.severity == "warning"


def test_port_2_and_a_missing_mlxconfig(tmp_path):
    folder = _state(tmp_path, "current.txt", "mlxconfig-dcbx-willing.txt")
    state = parse_state(folder, PLAN.nics["gpu01:eth0"])
    assert (state.firmware_cnp_dscp, state.firmware_cnp_priority) == (48, 6)
    assert state.firmware_dcbx_willing is True
    assert _findings(folder, "LL138") == []
    (folder / "mlxconfig.txt").unlink()  # optional: no LL211 for it
    _, extra = fabric_from_host_state(PLAN, folder.parent.parent)
    assert not [f for f in extra if "mlxconfig" in f.message]
