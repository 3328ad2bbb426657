"""The NCCL environment file's RDMA devices (NCCL_IB_HCA from each NIC's rdma_device), its notes
on NCCL before 2.21 and on SR-IOV VFs, and the RoCE path MTU of a NIC's MTU (LL139)."""

from __future__ import annotations

import pytest
from conftest import INVENTORIES

from lossless.hosts.rules import roce_path_mtu
from lossless.hosts.state import fabric_from_host_state
from lossless.inventory import load_inventory
from lossless.lint.runner import lint
from lossless.planner.fabric import plan_fabric

LAB = INVENTORIES / "lab.yaml"
CX7_NICS = 'nics: {"eth[0:1]": {speed: 400G, model: ConnectX-7, mtu: 9000}}'


def _render(run, write, tmp_path, nics: str):
    path = write(LAB.read_text().replace(CX7_NICS, nics))
    return path, run("render", str(path), "-o", str(tmp_path / "out"), "--hosts")


def _env(tmp_path, server: str = "gpu01") -> str:
    return (tmp_path / "out" / f"{server}.nccl.env").read_text()


def test_rdma_devices_of_every_nic_become_an_exact_nccl_ib_hca(run, write, tmp_path):
    _, result = _render(
        run,
        write,
        tmp_path,
        "nics: {eth0: {speed: 400G, model: ConnectX-7, rdma_device: mlx5_0}, "
        "eth1: {speed: 400G, model: ConnectX-7, rdma_device: mlx5_1}}",
    )
    assert result.code == 0, result.err
    env = _env(tmp_path)
    assert "NCCL_IB_HCA==mlx5_0,mlx5_1\n" in env  # "=": mlx5_1 does not match mlx5_10
    assert "NCCL_IB_HCA unset" not in env


def test_without_rdma_devices_the_file_says_how_to_set_nccl_ib_hca(run, write, tmp_path):
    _, result = _render(run, write, tmp_path, CX7_NICS)
    assert result.code == 0, result.err
    env = _env(tmp_path)
    assert "\nNCCL_IB_HCA=" not in env
    assert "# NCCL_IB_HCA unset: NCCL uses every RDMA device of the server" in env
    assert "rdma_device" in env


@pytest.mark.parametrize(
    "nics, message",
    [
        (
            "nics: {eth0: {speed: 400G, model: ConnectX-7, rdma_device: mlx5_0}, "
            "eth1: {speed: 400G, model: ConnectX-7}}",
            "rdma_device is not set on eth1: NCCL_IB_HCA would leave it out",
        ),
        (
            'nics: {"eth[0:1]": {speed: 400G, model: ConnectX-7, rdma_device: mlx5_0}}',
            "NICs eth0, eth1 name one rdma_device mlx5_0",
        ),
    ],
)
def test_rdma_devices_on_some_nics_or_shared_are_bad_input(run, write, tmp_path, nics, message):
    path, result = _render(run, write, tmp_path, nics)
    assert result.code == 2
    assert message in result.err and f"{path}:" in result.err, result.err


def test_an_rdma_device_outside_the_safe_pattern_is_refused(run, write, tmp_path):
    _, result = _render(
        run,
        write,
        tmp_path,
        'nics: {eth0: {speed: 400G, model: ConnectX-7, rdma_device: "mlx5_0,^x"}, '
        "eth1: {speed: 400G, model: ConnectX-7}}",
    )
    assert result.code == 2 and "rdma_device" in result.err, result.err


def test_without_gid_index_the_file_warns_about_nccl_before_2_21(run, write, tmp_path):
    _, result = _render(run, write, tmp_path, CX7_NICS)
    assert result.code == 0, result.err
    env = _env(tmp_path)
    assert "# NCCL before 2.21 uses GID index 0 unless told" in env
    assert "show_gids" in env and "NVIDIA/nccl v2.20.5-1" in env


def test_with_gid_index_there_is_no_pre_2_21_note(run, write, tmp_path):
    _, result = _render(
        run, write, tmp_path, CX7_NICS.replace("mtu: 9000}", "mtu: 9000, gid_index: 3}")
    )
    assert result.code == 0, result.err
    env = _env(tmp_path)
    assert "NCCL_IB_GID_INDEX=3\n" in env and "NCCL before 2.21" not in env


def test_sriov_vfs_say_what_a_pod_on_a_vf_needs(run, write, tmp_path):
    _, result = _render(
        run, write, tmp_path, CX7_NICS.replace("mtu: 9000}", "mtu: 9000, sriov_vfs: 4}")
    )
    assert result.code == 0, result.err
    env = _env(tmp_path)
    assert "# SR-IOV VFs on eth0, eth1: a pod on a VF needs NCCL_IB_TC" in env
    assert "A VF has no trust or PFC of its own" in env
    assert "SR-IOV" not in _env(tmp_path, "gpu03")  # no VFs there


@pytest.mark.parametrize(
    "mtu, path_mtu",
    [
        (9000, 4096),
        (4192, 4096),
        (4191, 2048),
        (4150, 2048),
        (2144, 2048),
        (2143, 1024),
        (1500, 1024),
        (1119, 512),
    ],
)
def test_roce_path_mtu_of_an_interface_mtu(mtu, path_mtu):
    assert roce_path_mtu(mtu) == path_mtu  # Linux iboe_get_mtu: 96 B of headers


def _ll139(fabric, extra=()):
    return [f for f in lint(fabric, extra=list(extra), select=["LL139"]).findings]


def test_a_planned_nic_mtu_below_4192_is_one_warning_per_nic_at_its_line(write):
    text = LAB.read_text().replace(CX7_NICS, CX7_NICS.replace("mtu: 9000", "mtu: 4150"))
    plan = plan_fabric(load_inventory(write(text)))
    found = _ll139(plan)
    assert len(found) == 4  # gpu01 and gpu02, eth0 and eth1
    assert {f.severity for f in found} == {"warning"}
    assert all(f.source.endswith(":90:12") for f in found), [str(f) for f in found]
    assert "MTU 4150 cannot carry a 4096-byte RoCE payload" in found[0].message
    assert "path MTU 2048" in found[0].message
    assert _ll139(plan_fabric(load_inventory(LAB))) == []


def test_a_saved_state_mtu_is_judged_at_the_state_line(tmp_path):
    plan = plan_fabric(load_inventory(LAB))
    folder = tmp_path / "state" / "gpu01" / "eth0"
    folder.mkdir(parents=True)
    (folder / "sysfs.txt").write_text(
        "/sys/class/net/eth0/mtu:1500\n/sys/class/net/eth0/speed:400000\n"
    )
    fabric, extra = fabric_from_host_state(plan, tmp_path / "state")
    found = [f for f in _ll139(fabric, extra) if "gpu01:eth0" in f.message]
    assert len(found) == 1, [str(f) for f in found]
    assert "sysfs.txt:1" in found[0].source and "path MTU 1024" in found[0].message
