"""Files: render checks its whole output folder before writing anything, writes each file
safely (the umask's mode, never a replaced file's; fixed-prefix temporary files, all on the
disk before the first is renamed), and no command reads or writes a path that leads out of
the folder it was given."""

from __future__ import annotations

import os
import shutil

import pytest
from conftest import INVENTORIES, REPO

from lossless.system import writing

LAB = str(INVENTORIES / "lab.yaml")
GOLDEN = REPO / "golden" / "lab"
NAMES = sorted(p.name for p in GOLDEN.iterdir() if p.is_file() and p.name != "README.md")


def _render(run, out, *extra):
    return run("render", LAB, "-o", str(out), *extra)


# -- the output folder is checked before anything is written --------------------------------


def test_output_that_is_a_file(run, tmp_path):
    out = tmp_path / "out"
    out.write_text("not a folder")
    result = _render(run, out)
    assert result.code == 2 and f"-o {out}: not a folder" in result.err
    assert out.read_text() == "not a folder"


def test_output_that_is_a_dangling_symlink(run, tmp_path):
    out = tmp_path / "out"
    out.symlink_to(tmp_path / "nowhere")
    result = _render(run, out)
    assert result.code == 2 and "which does not exist" in result.err
    assert not (tmp_path / "nowhere").exists()


def test_output_that_is_not_writable(run, tmp_path, monkeypatch):
    out = tmp_path / "out"
    out.mkdir()
    real_access = os.access
    # the tests may run as root, which writes anywhere: ask os.access as a user would
    monkeypatch.setattr(
        writing.os, "access", lambda path, mode: False if path == out else real_access(path, mode)
    )
    result = _render(run, out)
    assert result.code == 2 and f"-o {out}: not writable" in result.err
    assert list(out.iterdir()) == []


@pytest.mark.parametrize("kind", ["folder", "fifo", "symlink-out"])
def test_a_bad_target_stops_the_run_before_any_file_is_written(run, tmp_path, kind):
    out, outside = tmp_path / "out", tmp_path / "outside.conf"
    out.mkdir()
    outside.write_text("keep me")
    target = out / "leaf4.conf"  # not the first file written: nothing before it may appear
    if kind == "folder":
        target.mkdir()
    elif kind == "fifo":
        os.mkfifo(target)
    else:
        target.symlink_to(outside)
    result = _render(run, out)
    assert result.code == 2, result.out
    assert {"folder": "is a folder", "fifo": "not a regular file", "symlink-out": "leads outside"}[
        kind
    ] in result.err
    assert sorted(p.name for p in out.iterdir()) == ["leaf4.conf"]
    assert outside.read_text() == "keep me"


def test_check_does_not_wait_on_a_fifo(run, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    os.mkfifo(out / "leaf1.json")
    result = _render(run, out, "--check")
    assert result.code == 2 and "not a regular file" in result.err


def test_a_non_utf8_file_at_a_target_name_is_replaced(run, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "leaf2.yaml").write_bytes(b"\xff\xfe binary")
    result = _render(run, out)
    assert result.code == 0, result.err
    assert (out / "leaf2.yaml").read_text() == (GOLDEN / "leaf2.yaml").read_text()


# -- each file ------------------------------------------------------------------------------


@pytest.mark.parametrize(("umask", "mode"), [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_new_files_follow_the_umask(run, tmp_path, umask, mode):
    previous = os.umask(umask)
    try:
        assert _render(run, tmp_path / "out").code == 0
    finally:
        os.umask(previous)
    assert {oct(p.stat().st_mode & 0o777) for p in (tmp_path / "out").iterdir()} == {oct(mode)}


def _umask_mode() -> int:
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def test_a_replaced_file_gets_the_umask_mode(run, tmp_path):
    """Not the replaced file's mode: a planted mode (issue 24 item 5) must not survive."""
    out = tmp_path / "out"
    assert _render(run, out).code == 0
    (out / "leaf1.json").write_text("old")
    (out / "leaf1.json").chmod(0o640)
    assert _render(run, out).code == 0
    assert (out / "leaf1.json").stat().st_mode & 0o7777 == _umask_mode()
    assert (out / "leaf1.json").read_text() == (GOLDEN / "leaf1.json").read_text()


def test_leftover_temporary_files_are_swept(run, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / f"{writing.TEMP_PREFIX}leaf1.json.dead").write_text("half")
    (out / "notes.txt").write_text("mine")
    assert _render(run, out).code == 0
    assert sorted(p.name for p in out.iterdir()) == sorted([*NAMES, "notes.txt"])


def test_a_failed_write_removes_its_temporary_file(run, tmp_path, monkeypatch):
    out = tmp_path / "out"
    real_replace = os.replace

    def replace(source, target):
        if str(target).endswith("leaf3.cfg"):
            raise OSError(28, "No space left on device")
        real_replace(source, target)

    monkeypatch.setattr(writing.os, "replace", replace)
    result = _render(run, out)
    assert result.code == 2
    assert f"cannot write {out / 'leaf3.cfg'}: No space left on device" in result.err
    assert not [p for p in out.iterdir() if p.name.startswith(writing.TEMP_PREFIX)]
    assert not (out / "leaf3.cfg").exists()


def _record_syncs(monkeypatch, syncfs_works: bool) -> list[str]:
    """What reaches the disk and what is renamed, in order: ("syncfs", folder),
    ("fsync", path) and ("replace", target)."""
    events = []
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(descriptor):
        events.append(("fsync", os.path.realpath(f"/proc/self/fd/{descriptor}")))
        real_fsync(descriptor)

    def syncfs(descriptor):
        events.append(("syncfs", os.path.realpath(f"/proc/self/fd/{descriptor}")))
        return 0 if syncfs_works else -1

    def replace(source, target):
        events.append(("replace", str(target)))
        real_replace(source, target)

    monkeypatch.setattr(writing.os, "fsync", fsync)
    monkeypatch.setattr(writing.os, "replace", replace)
    monkeypatch.setattr(writing, "_syncfs", lambda: syncfs)
    return events


def test_files_reach_the_disk_in_one_syncfs_before_any_rename(run, tmp_path, monkeypatch):
    events = _record_syncs(monkeypatch, syncfs_works=True)
    out = tmp_path / "out"
    assert _render(run, out).code == 0
    folder = str(out.resolve())
    assert events[0] == ("syncfs", folder)
    assert [kind for kind, _ in events[1:-1]] == ["replace"] * len(NAMES)
    assert events[-1] == ("fsync", folder)  # the renames themselves


def test_without_syncfs_each_file_is_fsynced_before_any_rename(run, tmp_path, monkeypatch):
    events = _record_syncs(monkeypatch, syncfs_works=False)
    out = tmp_path / "out"
    assert _render(run, out).code == 0
    kinds = [kind for kind, _ in events]
    assert kinds == ["syncfs", *["fsync"] * len(NAMES), *["replace"] * len(NAMES), "fsync"]
    synced = [path for kind, path in events[1 : 1 + len(NAMES)]]
    assert all(writing.TEMP_PREFIX in path for path in synced)
    assert events[-1] == ("fsync", str(out.resolve()))


def test_syncfs_is_found_on_linux():
    if not os.path.exists("/proc/self/fd"):
        pytest.skip("not Linux")
    assert writing._syncfs() is not None


def test_a_full_disk_while_writing_changes_no_file(run, tmp_path, monkeypatch):
    """Every file is written before the first is renamed: a write that fails leaves each
    config as it was, not half of them new."""
    out = tmp_path / "out"
    shutil.copytree(GOLDEN, out)
    for name in NAMES:
        (out / name).write_text("old\n")
    real_write = writing._write_temporary

    def write_temporary(folder, target):
        if target.name == NAMES[-1]:
            raise OSError(28, "No space left on device")
        return real_write(folder, target)

    monkeypatch.setattr(writing, "_write_temporary", write_temporary)
    result = _render(run, out)
    assert result.code == 2
    assert f"cannot write {out / NAMES[-1]}: No space left on device" in result.err
    assert all((out / name).read_text() == "old\n" for name in NAMES)
    assert not [p for p in out.iterdir() if p.name.startswith(writing.TEMP_PREFIX)]


# -- reading never leaves the folder --------------------------------------------------------


@pytest.mark.parametrize(
    ("command", "option", "name"),
    [("diff", "--running", "spine1.cfg"), ("lint", "--configs", "leaf3.cfg")],
)
def test_a_config_that_leads_outside_its_folder_is_refused(run, tmp_path, command, option, name):
    folder = tmp_path / "configs"
    shutil.copytree(GOLDEN, folder)
    secret = tmp_path / "secret.cfg"
    secret.write_text("username admin secret 0 hunter2\n")
    (folder / name).unlink()
    (folder / name).symlink_to(secret)
    result = run(command, LAB, option, str(folder))
    assert result.code == 2
    assert f"{option}: {folder / name} leads outside {folder}; refused" in result.err
    assert "hunter2" not in result.out + result.err


def test_mock_refuses_a_device_folder_that_leads_outside(run, tmp_path, monkeypatch):
    monkeypatch.setenv("LOSSLESS_USERNAME", "netops")
    monkeypatch.setenv("LOSSLESS_PASSWORD", "pw")
    mock = tmp_path / "mock"
    mock.mkdir()
    (tmp_path / "elsewhere").mkdir()
    (mock / "spine1").symlink_to(tmp_path / "elsewhere")
    result = run("diff", LAB, "--live", "--device", "spine1", "--mock", str(mock))
    assert result.code == 2
    assert "--mock" in result.err and "leads outside" in result.err


@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="no procfs")
def test_a_file_holding_more_than_its_stated_size_is_read_whole():
    """Reads ask for the size a file states (procfs states 0) and read on if there is more."""
    from lossless.system.files import read_text

    text = read_text("/proc/self/status", "config")
    assert text.startswith("Name:") and "\nPid:" in text


def test_carriage_returns_are_read_as_newlines(tmp_path):
    from lossless.system.files import read_text

    (tmp_path / "crlf.cfg").write_bytes(b"\xef\xbb\xbfa\r\nb\rc\n")
    (tmp_path / "lf.cfg").write_bytes(b"a\nb\n")
    assert read_text(tmp_path / "crlf.cfg", "config") == "a\nb\nc\n"
    assert read_text(tmp_path / "lf.cfg", "config") == "a\nb\n"
