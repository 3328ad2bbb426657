"""lint's and ci's conventions (issue 30): a settings file found as ruff finds its own and
merged with the flags, the exit policy (--exit-zero, --fail-on), --output-file, -q/-v,
colour on a terminal (--color, NO_COLOR), a mistyped command and -V."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
from argparse import Namespace
from pathlib import Path

import pytest
from conftest import INVENTORIES, REPO

from lossless import __version__
from lossless.cli.settings import discover, path_matches, read_settings
from lossless.errors import UsageError
from lossless.text.colour import wants_colour

ESC = "\x1b["


@pytest.fixture
def project(tmp_path, monkeypatch):
    """A repository (a .git folder) holding an inventory with three error findings, LL118 and two
    LL109 (port MTU 1500), as the current folder."""
    (tmp_path / ".git").mkdir()
    text = (INVENTORIES / "lab.yaml").read_text().replace("mtu: 9100", "mtu: 1500")
    (tmp_path / "lab.yaml").write_text(text)
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    return tmp_path


@pytest.fixture
def warnings_only(tmp_path):
    """lint arguments whose only finding is a warning: spine1's config missing (LL201)."""
    configs = tmp_path / "configs"
    configs.mkdir()
    for rendered in (REPO / "golden" / "lab").glob("*.*"):
        if rendered.name != "spine1.cfg":
            (configs / rendered.name).write_text(rendered.read_text())
    return [str(INVENTORIES / "lab.yaml"), "--configs", str(configs)]


def _rules(out: str) -> set[str]:
    """The rules of a text report, but the lab's LL114 warning (leaf4, a QFX5220 without a
    PFC watchdog), which every run of the lab gives."""
    found = {line.split(" [")[0].split()[-1] for line in out.splitlines() if " [" in line}
    return found - {"LL114"}


# --- finding the file ----------------------------------------------------------------------


def test_the_nearest_file_upwards_applies_and_the_search_stops_at_the_repository(tmp_path):
    repo = tmp_path / "repo"
    deep = repo / "fabric" / "pod1"
    deep.mkdir(parents=True)
    (tmp_path / ".lossless.toml").write_text('format = "json"\n')  # outside the repository
    (repo / ".git").mkdir()
    assert discover(deep) is None
    (repo / "pyproject.toml").write_text('[tool.lossless]\nformat = "sarif"\n')
    assert discover(deep) == (repo / "pyproject.toml").resolve()
    (repo / "fabric" / "pyproject.toml").write_text('[project]\nname = "x"\n')  # not ours
    assert discover(deep) == (repo / "pyproject.toml").resolve()
    (repo / "fabric" / ".lossless.toml").write_text('fail-on = "warning"\n')
    assert discover(deep) == (repo / "fabric" / ".lossless.toml").resolve()
    (repo / ".lossless.toml").write_text("")
    assert discover(repo) == (repo / ".lossless.toml").resolve()  # over pyproject.toml


def test_keys_are_read_with_their_types(tmp_path):
    path = tmp_path / "pyproject.toml"
    path.write_text(
        "[tool.lossless]\n"
        'select = ["LL1", "ecn-before-pfc"]\nignore = ["LL118"]\nformat = "github"\n'
        'fail-on = "warning"\ncolor = "never"\n'
        '[tool.lossless.per-path-ignores]\n"configs/*" = ["LL200"]\n'
    )
    settings = read_settings(path)
    assert settings.select == ("LL1", "ecn-before-pfc") and settings.ignore == ("LL118",)
    assert (settings.format, settings.fail_on, settings.color) == ("github", "warning", "never")
    assert settings.per_path_ignores == (("configs/*", ("LL200",)),)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('selct = ["LL101"]\n', "selct: unknown key (did you mean 'select'?)"),
        ('fail_on = "warning"\n', "did you mean 'fail-on'?"),
        ('select = "LL101"\n', "select: expected a list of rule IDs or names"),
        ("select = []\n", "an empty list selects no rule"),
        ('fail-on = "warn"\n', "fail-on: expected one of error, warning, got 'warn'"),
        ('color = "yes"\n', "expected one of auto, always, never"),
        ('format = "xml"\n', "format: expected one of text, json, sarif"),
        ('[per-path-ignores]\n"a.yaml" = "LL101"\n', "per-path-ignores.a.yaml: expected a list"),
        ('format = "json\n', "not TOML"),
    ],
)
def test_a_wrong_key_or_value_is_a_usage_error_naming_the_file(project, run, text, message):
    (project / ".lossless.toml").write_text(text)
    result = run("lint", "lab.yaml")
    assert result.code == 2 and not result.out
    assert ".lossless.toml" in result.err and message in result.err


def test_a_pyproject_key_is_named_with_its_table(project, run):
    (project / "pyproject.toml").write_text('[tool.lossless]\nformats = "json"\n')
    result = run("ci", "lab.yaml")
    assert result.code == 2
    assert "pyproject.toml:2:1: [tool.lossless] formats: unknown key (did you mean 'format'?)" in (
        result.err
    )


def test_a_wrong_key_is_named_at_its_line(project, run):
    (project / ".lossless.toml").write_text('select = ["LL1"]\n\n  fail_on = "warning"\n')
    result = run("lint", "lab.yaml")
    assert result.code == 2
    assert ".lossless.toml:3:3: fail_on: unknown key (did you mean 'fail-on'?)" in result.err
    (project / ".lossless.toml").unlink()
    (project / "pyproject.toml").write_text(
        '[project]\nname = "x"\n\n[tool.lossless]\nformat = "json"\n\n'
        '[tool.lossless.per-path-ignores]\n"a.yaml" = "LL101"\n'
    )
    result = run("lint", "lab.yaml")
    assert result.code == 2
    assert "pyproject.toml:7:1: [tool.lossless] per-path-ignores.a.yaml: expected a list" in (
        result.err
    )


def test_a_pasted_tool_table_in_the_own_file_says_where_keys_go(project, run):
    (project / ".lossless.toml").write_text('[tool.lossless]\nselect = ["LL1"]\n')
    result = run("lint", "lab.yaml")
    assert result.code == 2
    assert ".lossless.toml:1:1: tool: the keys of .lossless.toml go at its top level" in result.err


@pytest.mark.parametrize("tool", ["3", '"lossless"', '["lossless"]'])
def test_a_pyproject_whose_tool_is_no_table_holds_no_settings(project, run, tool):
    (project / "pyproject.toml").write_text(f"tool = {tool}\n")
    result = run("lint", "lab.yaml", "-v")
    assert result.code in (0, 1), result.err
    assert "settings: none" in result.err
    assert run("lint", "lab.yaml", "--settings", "pyproject.toml").code == 2


def test_a_wrong_rule_name_in_the_file_is_reported_there(project, run):
    (project / ".lossless.toml").write_text('ignore = ["ecn-before-pcf"]\n')
    result = run("lint", "lab.yaml")
    assert result.code == 2
    assert "ignore: no rule 'ecn-before-pcf' (did you mean \"ecn-before-pfc\"?)" in result.err


def test_a_junk_settings_file_is_a_usage_error_not_a_traceback(project, run):
    (project / ".lossless.toml").write_bytes(b"\xff\xfe\x00junk")
    assert run("lint", "lab.yaml").code == 2
    (project / ".lossless.toml").write_bytes(b"a = 1\n" * 200_000)  # over 1 MiB
    result = run("lint", "lab.yaml")
    assert result.code == 2 and "internal error" not in result.err
    (project / ".lossless.toml").write_text("a = " + "[" * 100_000)
    deep = run("lint", "lab.yaml")
    assert deep.code == 2 and "nested too deep" in deep.err
    (project / ".lossless.toml").write_text(f"{'k' * 100_000} = 1\n")
    long_key = run("lint", "lab.yaml")
    assert long_key.code == 2 and len(long_key.err) < 400


# --- merged with the flags -----------------------------------------------------------------


def test_the_file_sets_the_defaults_and_the_flags_win(project, run):
    (project / ".lossless.toml").write_text('format = "json"\nignore = ["LL109"]\n')
    from_file = run("lint", "lab.yaml")
    assert from_file.code == 1
    assert {r["rule"] for r in json.loads(from_file.out)} == {"LL118", "LL114"}
    flags = run("lint", "lab.yaml", "--format", "text", "--ignore", "LL118")
    assert flags.out.splitlines()[-1] == "0 errors, 1 warning"  # --ignore adds to the file's
    assert flags.code == 0


def test_select_on_the_command_line_replaces_the_files(project, run):
    (project / ".lossless.toml").write_text('select = ["LL118"]\n')
    assert _rules(run("lint", "lab.yaml").out) == {"LL118"}
    assert _rules(run("lint", "lab.yaml", "--select", "LL109").out) == {"LL109"}
    assert _rules(run("lint", "lab.yaml", "--isolated").out) == {"LL118", "LL109"}


def test_settings_names_a_file_and_isolated_reads_none(project, run, tmp_path_factory):
    elsewhere = tmp_path_factory.mktemp("shared") / "team.toml"
    elsewhere.write_text('ignore = ["LL118", "LL109"]\n')
    (project / ".lossless.toml").write_text('format = "json"\n')
    named = run("lint", "lab.yaml", "--settings", str(elsewhere))
    # the lab's one warning: leaf4, a QFX5220, has no PFC watchdog (LL114)
    assert named.code == 0 and named.out.splitlines()[-1] == "0 errors, 1 warning"
    isolated = run("lint", "lab.yaml", "--isolated")
    assert isolated.code == 1 and not isolated.out.startswith("[")  # text: the file unread
    both = run("lint", "lab.yaml", "--isolated", "--settings", str(elsewhere))
    assert both.code == 2 and "--isolated" in both.err
    missing = run("lint", "lab.yaml", "--settings", str(project / "none.toml"))
    assert missing.code == 2 and "not a file" in missing.err


def test_per_path_ignores_drop_a_rule_in_the_files_a_glob_matches(project, run):
    (project / ".lossless.toml").write_text('[per-path-ignores]\n"lab.yaml" = ["LL118"]\n')
    assert _rules(run("lint", "lab.yaml").out) == {"LL109"}
    (project / ".lossless.toml").write_text('[per-path-ignores]\n"pods/*.yaml" = ["LL118"]\n')
    assert _rules(run("lint", "lab.yaml").out) == {"LL118", "LL109"}
    (project / ".lossless.toml").write_text('[per-path-ignores]\n"*.yaml" = ["roce-mtu"]\n')
    ci = run("ci", "lab.yaml", "--format", "json", "-v")
    assert {r["rule"] for r in json.loads(ci.out)} == {"LL109", "LL114"}
    assert "per-path-ignores dropped" in ci.err


def test_a_glob_is_matched_relative_to_the_settings_file(tmp_path):
    base = tmp_path / "repo"
    inside = base / "configs" / "pod1" / "leaf1.cfg"
    assert path_matches("configs/*", str(inside), base)  # `*` crosses folders, as in ruff
    assert path_matches("leaf1.cfg", str(inside), base)  # a bare name matches the file's name
    assert path_matches("./configs/pod1/leaf1.cfg", str(inside), base)
    assert not path_matches("configs/*", str(tmp_path / "other" / "leaf1.cfg"), base)
    assert not path_matches("*.yaml", str(inside), base)


# --- exit policy, output, loudness ---------------------------------------------------------


def test_fail_on_warning_and_exit_zero(run, warnings_only, tmp_path):
    assert run("lint", *warnings_only).code == 0  # warnings alone pass, as before
    assert run("lint", *warnings_only, "--fail-on", "warning").code == 1
    assert run("lint", *warnings_only, "--fail-on", "warning", "--exit-zero").code == 0
    (tmp_path / ".lossless.toml").write_text('fail-on = "warning"\n')
    from_file = run("lint", *warnings_only, "--settings", str(tmp_path / ".lossless.toml"))
    assert from_file.code == 1


def test_exit_zero_never_hides_bad_input(project, run):
    assert run("lint", "lab.yaml", "--exit-zero").code == 0  # two error findings
    (project / "bad.yaml").write_text("fabric: [\n")
    assert run("lint", "bad.yaml", "--exit-zero").code == 2
    assert run("ci", "bad.yaml", "--exit-zero").code == 2


def test_output_file_holds_what_stdout_would(project, run):
    expected = run("lint", "lab.yaml", "--format", "sarif").out
    (project / "out").mkdir()
    (project / "out" / "lossless.sarif").write_text("old")
    result = run("lint", "lab.yaml", "--format", "sarif", "--output-file", "out/lossless.sarif")
    assert result.code == 1 and result.out == ""
    assert (project / "out" / "lossless.sarif").read_text() == expected
    assert "report written to out/lossless.sarif" in result.err
    assert not [p for p in (project / "out").iterdir() if p.name != "lossless.sarif"]
    ci = run("ci", "lab.yaml", "--output-file", "ci.txt", "--color", "always")
    assert ci.out == "" and ESC in (project / "ci.txt").read_text()  # always: even a file


@pytest.mark.parametrize(
    ("target", "message"),
    [
        ("lab.yaml", "--output-file lab.yaml: the input this run reads"),
        ("./lab.yaml", "the input this run reads"),
        ("", "--output-file needs a file name ('-' for stdout)"),
        (".", "--output-file .: a folder, not a file"),
    ],
)
def test_an_output_file_that_cannot_be_the_report_is_refused_first(project, run, target, message):
    before = (project / "lab.yaml").read_bytes()
    result = run("lint", "lab.yaml", "--output-file", target)
    assert result.code == 2 and result.out == ""
    assert message in result.err
    assert (project / "lab.yaml").read_bytes() == before


def test_output_file_dev_stdout_is_stdout(project, run):
    result = run("lint", "lab.yaml", "--output-file", "/dev/stdout")
    assert result.out == run("lint", "lab.yaml").out and "report written" not in result.err


def test_quiet_keeps_the_report_and_drops_the_notes_verbose_adds_some(project, run):
    (project / ".lossless.toml").write_text('fail-on = "error"\n')
    normal = run("ci", "lab.yaml", "--plan-json", "plan.json")
    assert "plan of 6 devices written" in normal.err
    quiet = run("ci", "lab.yaml", "--plan-json", "plan.json", "-q")
    assert quiet.out == normal.out and quiet.err == "" and quiet.code == 1
    loud = run("lint", "lab.yaml", "-v")
    assert f"lossless: settings: {(project / '.lossless.toml').resolve()}" in loud.err
    assert "format text, fail on error" in loud.err
    assert run("lint", "lab.yaml", "-q", "-v").code == 2  # one or the other


# --- colour --------------------------------------------------------------------------------


class _Terminal:
    def __init__(self, tty: bool):
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty


@pytest.mark.parametrize(
    ("choice", "tty", "environ", "expected"),
    [
        ("auto", True, {}, True),
        ("auto", False, {}, False),
        ("auto", True, {"NO_COLOR": "1"}, False),
        ("auto", True, {"NO_COLOR": ""}, True),  # no-color.org: empty is unset
        ("auto", False, {"FORCE_COLOR": "1"}, True),
        ("auto", False, {"FORCE_COLOR": "1", "NO_COLOR": "1"}, False),
        ("auto", True, {"TERM": "dumb"}, False),
        ("always", False, {"NO_COLOR": "1"}, True),  # the flag is the user's word
        ("never", True, {"FORCE_COLOR": "1"}, False),
    ],
)
def test_when_colour_is_used(choice, tty, environ, expected):
    assert wants_colour(choice, _Terminal(tty), environ) is expected


def test_a_file_is_no_terminal():
    assert not wants_colour("auto", None, {})
    assert wants_colour("always", None, {})
    # a report file is kept, not shown: FORCE_COLOR (set for CI logs) does not colour it
    assert not wants_colour("auto", None, {"FORCE_COLOR": "1"})


def test_force_colour_leaves_the_output_file_plain(project, run, monkeypatch):
    monkeypatch.setenv("FORCE_COLOR", "1")
    run("lint", "lab.yaml", "--output-file", "out/lint.txt")
    assert ESC not in (project / "out" / "lint.txt").read_text()
    run("lint", "lab.yaml", "--output-file", "out/always.txt", "--color", "always")
    assert ESC in (project / "out" / "always.txt").read_text()


def test_always_colours_the_severities_and_machine_formats_never(project, run):
    coloured = run("lint", "lab.yaml", "--color", "always")
    plain = run("lint", "lab.yaml", "--color", "never")
    assert f"{ESC}1;31merror{ESC}0m LL118 [roce-mtu]" in coloured.out
    assert coloured.out.splitlines()[-1] == f"{ESC}1;31m3 errors, 1 warning{ESC}0m"
    assert ESC not in plain.out
    uncoloured = coloured.out.replace(f"{ESC}1;31m", "").replace(f"{ESC}1;33m", "")
    assert uncoloured.replace(f"{ESC}0m", "") == plain.out
    for format_name in ("json", "sarif", "github", "junit", "codeclimate"):
        assert ESC not in run("lint", "lab.yaml", "--format", format_name, "--color", "always").out
    (project / ".lossless.toml").write_text('color = "always"\n')
    assert ESC in run("lint", "lab.yaml").out
    assert ESC not in run("lint", "lab.yaml", "--color", "never").out


def _on_a_terminal(project: Path, environ: dict[str, str]) -> str:
    """lint's stdout when it is a terminal (a pseudo-terminal), in a process of its own."""
    controller, terminal = pty.openpty()
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    env.update(environ, TERM="xterm")
    try:
        done = subprocess.run(
            [sys.executable, "-m", "lossless", "lint", "lab.yaml"],
            cwd=project, stdout=terminal, stderr=subprocess.DEVNULL, env=env, timeout=120,
        )  # fmt: skip
        os.close(terminal)
        chunks = []
        while True:
            try:
                chunk = os.read(controller, 65536)
            except OSError:  # EIO: the terminal's other end is closed and drained
                break
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(controller)
    assert done.returncode == 1
    return b"".join(chunks).decode()


def test_auto_colours_a_terminal_unless_no_color(project):
    assert f"{ESC}1;31merror" in _on_a_terminal(project, {})
    assert ESC not in _on_a_terminal(project, {"NO_COLOR": "1"})


# --- the command line itself ---------------------------------------------------------------


def test_a_mistyped_command_gets_a_did_you_mean(run):
    result = run("lnit", "lab.yaml")
    assert result.code == 2 and result.out == ""
    assert result.err == "lossless: no command 'lnit' (did you mean 'lint'?)\n"
    assert "no command 'xyzzy' (`lossless --help` lists them)" in run("xyzzy").err
    assert run("--version").code == 0


def test_a_mistyped_option_gets_the_commands_usage_and_a_did_you_mean(run):
    result = run("render", "lab.yaml", "-o", "cfg", "--chek")
    assert result.code == 2 and result.out == ""
    assert result.err.startswith("usage: lossless render ")
    assert "lossless render: error: unrecognized arguments: --chek (did you mean '--check'?)" in (
        result.err
    )
    assert "(did you mean '--fail-on'?)" in run("lint", "lab.yaml", "--fail=warning").err


def test_an_abbreviated_option_is_not_taken_for_a_longer_one(run):
    """`--exit` is not `--exit-zero`: a later option sharing the prefix would change what a CI
    line written with the abbreviation does."""
    result = run("lint", "lab.yaml", "--exit")
    assert result.code == 2
    assert "unrecognized arguments: --exit (did you mean '--exit-zero'?)" in result.err
    assert run("lint", "lab.yaml", "--fail", "warning").code == 2


def test_short_version_flag(capsys):
    from lossless.cli.main import main

    assert main(["-V"]) == 0
    assert capsys.readouterr().out == f"lossless {__version__}\n"


def test_settings_for_reads_no_file_when_isolated(tmp_path):
    from lossless.cli.settings import settings_for

    (tmp_path / ".lossless.toml").write_text("nonsense = 1\n")
    args = Namespace(isolated=True, settings=None)
    assert settings_for(args, tmp_path).file is None
    with pytest.raises(UsageError, match="nonsense: unknown key"):
        settings_for(Namespace(isolated=False, settings=None), tmp_path)
