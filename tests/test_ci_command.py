"""`lossless ci`: the pipeline's five steps in one process, with what each step alone gives."""

from __future__ import annotations

import json
import os
import shutil
import stat

import pytest
from conftest import INVENTORIES, REPO

from lossless.errors import UsageError
from lossless.system.writing import TEMP_PREFIX, write_streamed

LAB = str(INVENTORIES / "lab.yaml")
GOLDEN = REPO / "golden" / "lab"
EOS_CORPUS = REPO / "tests" / "configs" / "eos"


def test_outputs_are_those_of_the_separate_commands(run, tmp_path):
    result = run(
        "ci", LAB, "--plan-json", str(tmp_path / "out" / "plan.json"),
        "--render", str(tmp_path / "configs"), "--format", "json",
    )  # fmt: skip
    assert result.code == 0, result.err
    assert (tmp_path / "out" / "plan.json").read_text() == run("plan", LAB, "--format", "json").out
    for rendered in (p for p in GOLDEN.iterdir() if p.is_file()):
        assert (tmp_path / "configs" / rendered.name).read_text() == rendered.read_text()
    assert result.out == run("lint", LAB, "--format", "json").out  # stdout: the report alone
    assert "plan of 6 devices written to" in result.err
    assert "6 written, 0 unchanged in" in result.err


def test_configs_equal_to_the_render_are_rendered_once(run, tmp_path, monkeypatch):
    """With --configs and --render, a config found byte for byte the render is read again
    for the written file, not rendered a second time; one changed after it was read (its
    digest no longer the render's) is rendered."""
    from lossless.lint import configs as reading
    from lossless.vendors import rendering

    configs = tmp_path / "configs"
    shutil.copytree(GOLDEN, configs)
    spine2 = configs / "spine2.json"  # differs (one MTU): parsed, and rendered to be written
    spine2.write_text(spine2.read_text().replace('"mtu": "9100"', '"mtu": "9000"', 1))
    compared: list[str] = []
    written: list[str] = []

    def comparing(device, fabric):
        compared.append(device.name)
        if device.name == "spine1":  # the pull request's folder changes while ci runs
            (configs / "leaf1.json").write_text("changed\n")
        return rendering.render_device(device, fabric)

    def writing(device, fabric):
        written.append(device.name)
        return real_render(device, fabric)

    real_render = rendering.render_device
    monkeypatch.setattr(reading, "render_device", comparing)
    monkeypatch.setattr(rendering, "render_device", writing)
    monkeypatch.setenv("LOSSLESS_JOBS", "1")
    result = run("ci", LAB, "--configs", str(configs), "--render", str(tmp_path / "out"))
    assert "1 of 6 configs differ from the render" in result.err
    assert compared == ["leaf1", "leaf2", "leaf3", "leaf4", "spine1", "spine2"]
    # then only leaf1 (changed since it was read) and spine2 (differs) again
    assert written == [*compared, "leaf1", "spine2"]
    for golden in (p for p in GOLDEN.iterdir() if p.is_file()):
        assert (tmp_path / "out" / golden.name).read_text() == golden.read_text()


def test_configs_equal_to_the_render_are_the_plan(run):
    result = run("ci", LAB, "--configs", str(GOLDEN), "--format", "sarif")
    assert result.code == 0
    # the lab's one finding: leaf4, a QFX5220, has no PFC watchdog (LL114, a warning)
    assert [r["ruleId"] for r in json.loads(result.out)["runs"][0]["results"]] == ["LL114"]
    assert "0 of 6 configs differ from the render" in result.err


def test_a_hand_written_config_is_linted_as_lint_configs_does(run, tmp_path):
    """An AVD-style EOS config in place of spine1's: what `lint --configs` reports, and with
    an inventory whose plan is clean, nothing more."""
    configs = tmp_path / "configs"
    shutil.copytree(GOLDEN, configs)
    shutil.copy(EOS_CORPUS / "avd-leaf-clean.cfg", configs / "spine1.cfg")
    alone = run("lint", LAB, "--configs", str(configs))
    both = run("ci", LAB, "--configs", str(configs))
    assert alone.code == both.code == 1
    assert "LL200 [config-drift] spine1" in both.out
    assert both.out == alone.out
    assert "1 of 6 configs differ from the render" in both.err


def test_the_inventory_is_judged_as_well_as_a_config_that_drifted_from_it(run, tmp_path):
    """leaf1's inventory asks for ECN thresholds above the PFC trigger; its config (the
    render of the unchanged lab) does not have them. lint --configs judges the config and
    reports the drift; the inventory's own error must not be lost with it."""
    inventory = tmp_path / "lab.yaml"
    inventory.write_text(
        (INVENTORIES / "lab.yaml")
        .read_text()
        .replace(
            "    mgmt: 192.0.2.11\n",
            "    mgmt: 192.0.2.11\n"
            "    policy:\n"
            "      ecn: {min_bytes: 900000, max_bytes: 2000000}\n",
        )
    )
    result = run("ci", str(inventory), "--configs", str(GOLDEN))
    assert result.code == 1
    lines = result.out.splitlines()
    rules = sorted(line.split(" [")[0].split(" ")[-1] for line in lines[:-1])
    assert rules == ["LL112", "LL114", "LL200"]  # LL114: the lab's QFX5220 has no watchdog
    assert any(line.startswith(f"{inventory}:") and "LL112" in line for line in lines)
    assert lines[-1] == "2 errors, 1 warning"
    separate = (
        run("lint", str(inventory)).out + run("lint", str(inventory), "--configs", str(GOLDEN)).out
    )
    for line in lines[:-1]:
        assert line in separate


def test_bad_inventory_writes_nothing(run, tmp_path):
    inventory = tmp_path / "bad.yaml"
    inventory.write_text((INVENTORIES / "lab.yaml").read_text().replace("mtu: 9100", "mtu: 91000"))
    result = run(
        "ci", str(inventory), "--plan-json", str(tmp_path / "plan.json"),
        "--render", str(tmp_path / "configs"),
    )  # fmt: skip
    assert result.code == 2
    assert f"{inventory}:14:" in result.err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.yaml"]


def test_a_config_that_is_not_its_os_writes_nothing(run, tmp_path):
    configs = tmp_path / "configs"
    shutil.copytree(GOLDEN, configs)
    (configs / "spine1.cfg").write_text("set system host-name spine1\n")  # Junos, not EOS
    result = run(
        "ci", LAB, "--configs", str(configs), "--plan-json", str(tmp_path / "plan.json"),
        "--render", str(tmp_path / "out"),
    )  # fmt: skip
    assert result.code == 2
    assert "spine1.cfg" in result.err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["configs"]


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork here")
def test_the_plan_json_written_by_another_process_is_the_same(run, tmp_path, monkeypatch):
    """On a large fabric the plan JSON is written by a process of its own while the render
    and the lint rules run here (system/parallel.in_background): the same file, said once
    it is written, after the render."""
    from lossless.report import plan_json
    from lossless.system import parallel

    monkeypatch.setenv("LOSSLESS_JOBS", "2")
    monkeypatch.setattr(parallel, "MIN_ITEMS", 1)
    writers = tmp_path / "writers"
    writers.mkdir()
    write = plan_json.write_plan_json

    def recorded(*args, **kwargs):
        (writers / str(os.getpid())).touch()
        return write(*args, **kwargs)

    monkeypatch.setattr(plan_json, "write_plan_json", recorded)
    result = run(
        "ci", LAB, "--plan-json", str(tmp_path / "plan.json"), "--render", str(tmp_path / "out")
    )  # fmt: skip
    assert result.code == 0, result.err
    assert [p.name for p in writers.iterdir()] != [str(os.getpid())]
    monkeypatch.setenv("LOSSLESS_JOBS", "1")
    assert (tmp_path / "plan.json").read_text() == run("plan", LAB, "--format", "json").out
    said = result.err.splitlines()
    assert said.index(f"plan of 6 devices written to {tmp_path / 'plan.json'}") > said.index(
        f"6 written, 0 unchanged in {tmp_path / 'out'}"
    )


def test_a_plan_json_it_cannot_write_writes_nothing(run, tmp_path, monkeypatch):
    """A --plan-json ci cannot write is said before the configs are written, though the
    plan JSON is written beside them (in another process on a large fabric)."""
    from lossless.system import parallel

    monkeypatch.setenv("LOSSLESS_JOBS", "2")
    monkeypatch.setattr(parallel, "MIN_ITEMS", 1)
    (tmp_path / "taken").write_text("a file, not a folder\n")
    result = run(
        "ci", LAB, "--plan-json", str(tmp_path / "taken" / "plan.json"),
        "--render", str(tmp_path / "out"),
    )  # fmt: skip
    assert result.code == 2
    assert "--plan-json" in result.err and "taken" in result.err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["taken"]


def test_reports_in_other_formats_are_those_lint_prints(run, tmp_path):
    inventory = tmp_path / "lab.yaml"  # findings, so that the reports hold some
    inventory.write_text((INVENTORIES / "lab.yaml").read_text().replace("mtu: 9100", "mtu: 1500"))
    result = run(
        "ci", str(inventory), "--report", f"sarif:{tmp_path / 'r' / 'lossless.sarif'}",
        "--report", f"junit:{tmp_path / 'junit.xml'}", "--format", "github",
    )  # fmt: skip
    assert result.code == 1
    assert result.out == run("lint", str(inventory), "--format", "github").out
    for format_name, file in [("sarif", "r/lossless.sarif"), ("junit", "junit.xml")]:
        expected = run("lint", str(inventory), "--format", format_name).out
        assert (tmp_path / file).read_text() == expected
        assert f"{format_name} report written to" in result.err


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--plan-json", "-"], "stdout holds the lint report"),
        (["--report", "junit:-"], "stdout holds the lint report"),
        (["--report", "xml:out.xml"], "give FORMAT:FILE"),
        (["--report", "sarif"], "give FORMAT:FILE"),
        (["--render", "{golden}", "--configs", "{golden}"], "name one folder"),
        (["--configs", "{missing}"], "is not a folder"),
        (["--select", "LL999"], "no rule 'LL999'"),
    ],
)
def test_usage_errors(run, tmp_path, arguments, message):
    filled = [a.format(golden=GOLDEN, missing=tmp_path / "none") for a in arguments]
    result = run("ci", LAB, *filled)
    assert result.code == 2 and message in result.err
    assert not result.out


def test_a_streamed_file_replaces_the_old_one_only_when_written_whole(tmp_path):
    target = tmp_path / "plan.json"
    target.write_text("old\n")
    os.chmod(target, 0o640)

    def failing(stream):
        stream.write("half")
        raise OSError(28, "No space left on device")

    with pytest.raises(UsageError, match="No space left on device"):
        write_streamed(target, failing, "--plan-json")
    assert target.read_text() == "old\n"
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(TEMP_PREFIX)]
    write_streamed(target, lambda stream: stream.write("new\n"), "--plan-json")
    assert target.read_text() == "new\n"
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(target.stat().st_mode) == 0o666 & ~umask  # the umask's, not the old file's


def test_a_folder_where_the_file_goes_is_refused(tmp_path):
    (tmp_path / "plan.json").mkdir()
    with pytest.raises(UsageError, match="is a folder"):
        write_streamed(tmp_path / "plan.json", lambda stream: stream.write("x"), "--plan-json")
