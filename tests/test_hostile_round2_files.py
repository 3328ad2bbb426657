"""Hostile input, round 2: a folder where a file is expected (item 4), a planted output file's
mode and owner (item 5), planted symlinks in host state, for the collection script and for
`lint --host-state` (item 6)."""

from __future__ import annotations

import os
import stat
import subprocess
from pathlib import Path

import pytest
from conftest import INVENTORIES, REPO

from lossless.deploy.credentials import CredentialStore
from lossless.errors import UsageError
from lossless.system.writing import write_streamed

LAB = str(INVENTORIES / "lab.yaml")
COLLECTOR = REPO / "templates" / "hosts" / "collect-host-state.sh"


def _owned_by_another_user(path: Path, monkeypatch) -> None:
    """path as another user's file: really chowned when the tests run as root, else seen
    from a different effective uid."""
    if os.geteuid() == 0:
        os.chown(path, 65534, 65534, follow_symlinks=False)
    else:
        uid = os.geteuid()
        monkeypatch.setattr(os, "geteuid", lambda: uid + 1)


# -- item 4: a folder given where a file is expected ----------------------------------------


@pytest.mark.parametrize(
    "command",
    [
        ["plan", "{folder}"],
        ["validate", "{folder}"],
        ["lint", "{folder}"],
        ["ci", "{folder}"],
        ["render", "{folder}", "-o", "{out}"],
        ["report", "{folder}", "-o", "{out}"],
        ["explain", "{folder}", "leaf1", "Ethernet0"],
        ["lint", "--config", "{folder}", "--os", "eos"],
    ],
)
def test_a_folder_for_a_file_is_bad_input(run, tmp_path, command):
    # item 4
    folder = tmp_path / "inventories"
    folder.mkdir()
    argv = [a.format(folder=folder, out=tmp_path / "out") for a in command]
    result = run(*argv)
    assert result.code == 2, result.err
    assert f"{folder}:1:1: is a folder, not a" in result.err
    assert "internal error" not in result.err
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("mode", [0o700, 0o755])
def test_a_folder_for_the_credentials_file_is_bad_input(tmp_path, mode):
    # item 4: said as what it is, before the chmod 600 check (a 0755 folder is not a file
    # "readable by others")
    folder = tmp_path / "credentials"
    folder.mkdir(mode=mode)
    with pytest.raises(UsageError, match="is not a file"):
        CredentialStore(str(folder))


# -- item 5: replacing an output file -------------------------------------------------------


def _render_hosts(run, out):
    return run("render", LAB, "-o", str(out), "--hosts")


def test_a_replaced_file_gets_the_umask_mode_not_the_planted_one(run, tmp_path):
    # item 5: a world-writable, setuid gpu01.sh of our own is replaced by a 0644 one
    out = tmp_path / "hosts"
    out.mkdir()
    planted = out / "gpu01.sh"
    planted.write_text("echo planted\n")
    planted.chmod(0o6777)
    previous = os.umask(0o022)
    try:
        result = _render_hosts(run, out)
    finally:
        os.umask(previous)
    assert result.code == 0, result.err
    assert stat.S_IMODE(planted.stat().st_mode) == 0o644
    assert "planted" not in planted.read_text()


def test_another_users_file_is_refused_and_nothing_is_written(run, tmp_path, monkeypatch):
    # item 5: not taken over, changed or not; all or nothing
    out = tmp_path / "hosts"
    out.mkdir()
    planted = out / "gpu01.sh"
    planted.write_text("echo planted\n")
    planted.chmod(0o777)
    _owned_by_another_user(planted, monkeypatch)
    result = _render_hosts(run, out)
    assert result.code == 2, result.err
    assert f"{planted} belongs to " in result.err and "refused" in result.err
    assert "internal error" not in result.err
    assert [p.name for p in out.iterdir()] == ["gpu01.sh"]
    assert planted.read_text() == "echo planted\n"
    assert stat.S_IMODE(planted.stat().st_mode) == 0o777


def test_a_streamed_file_gets_the_umask_mode_and_refuses_another_users(tmp_path, monkeypatch):
    # item 5: write_streamed (--plan-json, --report FORMAT:FILE)
    target = tmp_path / "plan.json"
    target.write_text("old\n")
    target.chmod(0o4777)
    previous = os.umask(0o077)
    try:
        write_streamed(target, lambda stream: stream.write("new\n"), "--plan-json")
    finally:
        os.umask(previous)
    assert target.read_text() == "new\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    _owned_by_another_user(target, monkeypatch)
    with pytest.raises(UsageError, match=f"--plan-json {tmp_path}: {target} belongs to "):
        write_streamed(target, lambda stream: stream.write("newer\n"), "--plan-json")
    assert target.read_text() == "new\n"


# -- item 6: planted symlinks in host state -------------------------------------------------


def _sysfs(root: Path) -> Path:
    """The little of /sys the collection script reads for eth0."""
    net = root / "class" / "net" / "eth0"
    (net / "ecn" / "roce_np").mkdir(parents=True)
    (net / "mtu").write_text("9000\n")
    (net / "ecn" / "roce_np" / "cnp_dscp").write_text("48\n")
    return root


def _collect(sysfs: Path, folder: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["bash", str(COLLECTOR), "-n", "gpu01", str(folder), "eth0"],
        env={**os.environ, "LOSSLESS_SYSFS": str(sysfs)},
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_collector_refuses_a_symlinked_server_folder(tmp_path):
    # item 6: DIR/gpu01 -> a folder elsewhere
    state, elsewhere = tmp_path / "state", tmp_path / "elsewhere"
    state.mkdir()
    elsewhere.mkdir()
    (state / "gpu01").symlink_to(elsewhere)
    result = _collect(_sysfs(tmp_path / "sys"), state)
    assert result.returncode == 2, result.stderr
    assert f"{state}/gpu01 is a symlink; refused" in result.stderr
    assert list(elsewhere.iterdir()) == []


def test_collector_replaces_a_planted_file_symlink_instead_of_writing_through(tmp_path):
    # item 6: DIR/gpu01/eth0/sysfs.txt -> a file elsewhere
    state, victim = tmp_path / "state", tmp_path / "victim"
    (state / "gpu01" / "eth0").mkdir(parents=True)
    victim.write_text("keep me\n")
    (state / "gpu01" / "eth0" / "sysfs.txt").symlink_to(victim)
    result = _collect(_sysfs(tmp_path / "sys"), state)
    assert result.returncode == 0, result.stderr
    assert victim.read_text() == "keep me\n"
    saved = state / "gpu01" / "eth0" / "sysfs.txt"
    assert not saved.is_symlink() and "cnp_dscp:48" in saved.read_text()
    assert sorted(p.name for p in saved.parent.iterdir()) == [
        "ethtool-pause.txt",
        "mlnx_qos.txt",
        "sysfs.txt",
    ]


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to make another user's folder")
def test_collector_refuses_another_users_folder(tmp_path):
    # item 6: a real folder another user planted, who could swap its files while we write
    state = tmp_path / "state"
    (state / "gpu01" / "eth0").mkdir(parents=True)
    os.chown(state / "gpu01" / "eth0", 65534, 65534)
    result = _collect(_sysfs(tmp_path / "sys"), state)
    assert result.returncode == 2, result.stderr
    assert f"{state}/gpu01/eth0 belongs to another user; refused" in result.stderr
    assert list((state / "gpu01" / "eth0").iterdir()) == []


def _state(tmp_path: Path) -> Path:
    eth0 = tmp_path / "state" / "gpu01" / "eth0"
    eth0.mkdir(parents=True)
    (eth0 / "sysfs.txt").write_text("/sys/class/net/eth0/mtu:1500\n")  # not the plan's
    return tmp_path / "state"


def test_lint_host_state_refuses_a_file_that_leads_outside(run, tmp_path):
    # item 6: eth1's mlnx_qos.txt -> a file outside DIR, whose text a finding would echo;
    # eth0's -> a file inside DIR is read as before
    state = _state(tmp_path)
    (state / "shared.txt").write_text("Priority trust state: pcp\n")
    (state / "gpu01" / "eth0" / "mlnx_qos.txt").symlink_to(state / "shared.txt")
    secret = tmp_path / "secret"
    secret.write_text("Priority trust state: s3cr3t\n")
    planted = state / "gpu01" / "eth1" / "mlnx_qos.txt"
    planted.parent.mkdir()
    planted.symlink_to(secret)
    result = run("lint", LAB, "--host-state", str(state))
    assert result.code == 2, result.out
    assert result.err.strip() == f"lossless: --host-state: {planted} leads outside {state}; refused"
    assert "s3cr3t" not in result.out + result.err


def test_lint_host_state_refuses_a_nic_folder_that_leads_outside(run, tmp_path):
    # item 6: DIR/gpu01/eth1 -> a NIC folder outside DIR
    state = _state(tmp_path)
    outside = tmp_path / "outside" / "eth1"
    outside.mkdir(parents=True)
    (outside / "mlnx_qos.txt").write_text("Priority trust state: s3cr3t\n")
    (state / "gpu01" / "eth1").symlink_to(outside)
    result = run("lint", LAB, "--host-state", str(state))
    assert result.code == 2, result.out
    assert f"{state / 'gpu01' / 'eth1'} leads outside {state}; refused" in result.err
    assert "s3cr3t" not in result.out + result.err
