"""Issue 30's small CLI things, each as a network engineer running lossless in CI meets it:
render's notes in one line (details with -v), headroom numbers never cut at 80 columns, a
diff's enclosing section line not counted as a change, `render --check --diff | head` still
failing, counts in the singular, explain citing sources instead of issue numbers, and the
deploy extra's install command naming where lossless came from."""

from __future__ import annotations

import io
import json
import re
import shutil
import subprocess
import sys

import pytest
from conftest import INVENTORIES, REPO
from rich.console import Console

from lossless.asics import catalogue
from lossless.planner.headroom import compute_headroom
from lossless.planner.headroom_common import HeadroomInputs
from lossless.report.headroom_table import _print_table, _record
from lossless.system.origin import install_extra_command

LAB = str(INVENTORIES / "lab.yaml")
GOLDEN = REPO / "golden" / "lab"


# -- render: a one-line summary, the details with -v -----------------------------------------


def test_render_says_in_one_line_what_the_configs_leave_to_the_os(run, tmp_path):
    result = run("render", LAB, "-o", str(tmp_path))
    assert result.code == 0
    assert result.out == f"6 written, 0 unchanged in {tmp_path}\n"
    # and, on its own line, the Cumulus release whose words leaf2's fragment is in (issue 39)
    release, line = result.err.splitlines()
    assert release.startswith("note: leaf2: NVUE written in the words of Cumulus Linux 5.15")
    assert line.startswith("note: 22 plan values on 6 devices are not in the configs")
    assert "render -v or `lossless plan` lists them" in line


def test_render_verbose_lists_each_value_with_its_sources_spelt_out(run, tmp_path):
    result = run("render", LAB, "-o", str(tmp_path), "-v")
    assert result.code == 0
    err = result.err
    assert "not expressed in sonic config (leaf1, spine2):" in err
    assert "ECMP resilient hashing: NVUE has no resilient-hashing setting" in err
    assert "sonic-buildimage dockers/docker-orchagent/switch.json.j2" in err
    assert "Arista EOS User Manual" in err
    assert not re.search(r"\b(bi|swss|util):\S", err)  # no shorthand left
    assert "um-eos" not in err
    assert "docs/reference/README.md" in err  # where the pinned commits are


def test_plan_spells_the_sources_out_too(run):
    out = run("plan", LAB, "--device", "spine1").out
    assert "(Arista EOS User Manual ECMP and Load Sharing)" in out
    assert "um-eos" not in out


# -- headroom: every number whole at 80 columns ---------------------------------------------


def _table_at(width: int, asic_name: str, speeds: list[int], cables: list[int]) -> str:
    asic = catalogue()[asic_name]
    records = []
    for speed in speeds:
        for cable in cables:
            lanes = 8 if speed >= 400_000 else 4
            inputs = HeadroomInputs(speed, cable, 9100, lanes, 0, 1024, 50, False)
            records.append(_record(asic, inputs, compute_headroom(inputs, asic)))
    out = io.StringIO()
    _print_table(asic, records, Console(file=out, width=width, color_system=None))
    return out.getvalue()


def test_headroom_table_at_80_columns_cuts_no_number():
    text = _table_at(80, "tomahawk-3", [100_000, 400_000], [5, 3000])
    assert "…" not in text
    assert "617,982" in text and "2,366,772" in text and "2,159,508" in text
    assert max(len(line) for line in text.splitlines()) <= 80
    for heading in ("speed", "cable", "xoff", "vendor", "table"):
        assert heading in text


def test_headroom_table_keeps_its_rules_when_it_fits():
    text = _table_at(120, "tomahawk-3", [100_000], [5])
    assert "┃" in text and "vendor table" in text


def test_headroom_table_narrower_than_its_numbers_prints_them_whole():
    text = _table_at(40, "tomahawk-3", [400_000], [3000])
    assert "…" not in text and "2,366,772" in text


# -- diff: a section line is context, not a change ------------------------------------------


@pytest.fixture
def mtu_changed(tmp_path):
    folder = tmp_path / "backups"
    shutil.copytree(GOLDEN, folder, ignore=shutil.ignore_patterns("hosts", "README.md"))
    for name in ("leaf3.cfg", "spine1.cfg"):
        path = folder / name
        # leaf3's GPU switchports are at the jumbo MTU, its routed uplinks at 9100 (issue 39)
        text = path.read_text().replace("\n  mtu 9216\n", "\n  mtu 1500\n")
        path.write_text(text.replace("mtu 9100", "mtu 1500"))
    return folder


def test_diff_counts_changes_not_the_sections_they_are_in(run, mtu_changed):
    result = run("diff", LAB, "--running", str(mtu_changed))
    assert result.code == 0, result.err
    header = [line for line in result.out.splitlines() if line.startswith("spine1 (eos")]
    assert header and header[0].endswith(": 4 changes, 4 disruptive, phase 1")
    assert "    interface Ethernet1/1\n      mtu 9100\n" in result.out  # the context is shown
    nxos = [line for line in result.out.splitlines() if line.startswith("leaf3 (nxos")]
    assert nxos[0].endswith(": 4 changes, 4 disruptive, phase 1")


def test_diff_json_counts_the_same(run, mtu_changed):
    result = run("diff", LAB, "--running", str(mtu_changed), "--format", "json")
    entries = {d["device"]: d for d in json.loads(result.out)["devices"]}
    assert len(entries["spine1"]["changes"]) == 8  # the lines, sections included
    assert entries["spine1"]["change_count"] == 4
    assert entries["leaf1"]["change_count"] == 0


# -- render --check --diff | head ------------------------------------------------------------


def _check_into_closed_pipe(folder) -> int:
    """The exit code of `render --check --diff` whose reader has gone (as `| head` leaves)."""
    process = subprocess.Popen(
        [sys.executable, "-m", "lossless", "render", LAB, "-o", str(folder), "--check", "--diff"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdout is not None and process.stderr is not None
    process.stdout.close()  # before lossless has started: its first write finds no reader
    err = process.stderr.read().decode()
    code = process.wait(timeout=60)
    assert "Traceback" not in err and "Exception ignored" not in err, err
    return code


def test_a_failing_check_still_fails_when_the_pipe_closes(mtu_changed):
    assert _check_into_closed_pipe(mtu_changed) == 1


def test_a_clean_check_into_a_closed_pipe_exits_0(tmp_path):
    folder = tmp_path / "clean"
    shutil.copytree(GOLDEN, folder, ignore=shutil.ignore_patterns("hosts", "README.md"))
    assert _check_into_closed_pipe(folder) == 0


# -- counts ---------------------------------------------------------------------------------


def test_one_device_is_one_device(run):
    out = run("plan", LAB, "--device", "leaf1").out
    assert out.startswith("fabric lab: 1 device (from ")


# -- explain cites sources, not issues ------------------------------------------------------


@pytest.mark.parametrize(("device", "port"), [("leaf1", "Ethernet0"), ("leaf4", "et-0/0/0")])
def test_explain_cites_no_issue_number(run, device, port):
    result = run("explain", LAB, device, port)
    assert result.code == 0, result.err
    assert not re.search(r"\bissue \d", result.out), result.out
    assert "docs/reference/physics.md 3.4" in result.out


def test_rules_cite_no_issue_number(run):
    out = run("rules", "LL112").out
    assert "docs/reference/physics.md 3.4" in out and not re.search(r"\bissue \d", out)


# -- the deploy extra, from where lossless came from ----------------------------------------


@pytest.mark.parametrize(
    ("record", "expected"),
    [
        (
            {"url": "file:///src/lossless", "dir_info": {"editable": True}},
            "-e '/src/lossless[deploy]'",
        ),
        ({"url": "file:///src/my%20clone", "dir_info": {}}, "'/src/my clone[deploy]'"),
        (
            {
                "url": "https://x-token:secret@git.example.com/net/lossless.git",
                "vcs_info": {"vcs": "git", "commit_id": "0123abcd"},
            },
            "'lossless[deploy] @ git+https://git.example.com/net/lossless.git@0123abcd'",
        ),
        (
            {"url": "file:///dist/lossless-0.2.0-py3-none-any.whl", "archive_info": {}},
            "'lossless[deploy] @ file:///dist/lossless-0.2.0-py3-none-any.whl'",
        ),
        (None, "-e '.[deploy]'"),
    ],
    ids=["editable", "folder", "git", "wheel", "index"],
)
def test_the_extra_is_installed_from_the_same_place(record, expected):
    command = install_extra_command("deploy", record)
    assert command.startswith(f"{sys.executable} -m pip install ")
    assert command.endswith(expected)
    assert "secret" not in command


def test_live_diff_without_napalm_names_this_installation(run, monkeypatch):
    from lossless.system.origin import direct_url

    monkeypatch.setitem(sys.modules, "napalm", None)  # import napalm raises ImportError
    result = run("diff", LAB, "--live")
    assert result.code == 2
    assert "napalm is not installed" in result.err
    assert install_extra_command("deploy", direct_url()) in result.err


@pytest.mark.parametrize("source", ["netbox", "nautobot"])
@pytest.mark.parametrize("missing", ["requests", "pynetbox"])
def test_import_without_its_extra_names_the_extra(run, monkeypatch, tmp_path, source, missing):
    """`pip install .` then `lossless import ...`: exit 2 naming the missing package and the
    pip command for the netbox extra, never an internal error (was exit 3,
    ModuleNotFoundError)."""
    from lossless.system.origin import direct_url

    monkeypatch.setitem(sys.modules, missing, None)  # import raises ImportError
    for name in list(sys.modules):  # the importers must be imported again, without it
        if name.startswith("lossless.importers"):
            monkeypatch.delitem(sys.modules, name)
    mapping = tmp_path / "mapping.yaml"
    mapping.write_text("{}\n")
    result = run("import", source, "--url", "https://nb.example", "--mapping", str(mapping))
    assert result.code == 2, result.err
    assert f"{missing} is not installed" in result.err
    assert install_extra_command("netbox", direct_url()) in result.err
    assert "internal error" not in result.err
