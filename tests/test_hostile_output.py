"""Hostile text on its way out: an inventory from a pull request, a config, a device's answer
and a host's saved state all reach terminals and CI logs. Whatever they hold, lossless's output
holds no control character a terminal acts on, no bidi or zero-width character that reorders
or hides text, no line a CI runner takes for a workflow command (`::error::...`,
`::add-mask::...`, `##[...]`), and JUnit stays well-formed XML (lossless.text.printable)."""

from __future__ import annotations

import ast
import io
import json
import re
import shutil
from xml.etree import ElementTree

import pytest
from conftest import INVENTORIES, REPO
from hypothesis import given
from hypothesis import strategies as st
from rich.console import Console

from lossless.cli.main import _error_line
from lossless.lint.configs import fabric_from_config
from lossless.lint.registry import Finding
from lossless.lint.report import report
from lossless.lint.runner import LintResult, Suppressed
from lossless.report.plan_text import print_plan_rich, write_plan_text
from lossless.text.printable import inert_json, printable, printable_lines

LAB = str(INVENTORIES / "lab.yaml")

# Clear the screen, set the window title, ring the bell, reverse the text, then a new line
# that is a workflow command, another after a carriage return, and the older command form.
HOSTILE = (
    "ok\x1b[2J\x1b]0;pwned\x07 \u202edesrever\u202c \u200bhidden\ufeff"
    "\n::error::pwned\r\n  ::add-mask::secret ##[add-mask]other ##vso[task.complete]x"
)
# What a terminal or a CI log acts on, or what hides or reorders text (newline apart).
UNSAFE = re.compile(
    r"[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200b-\u200f\u202a-\u202e\u2028\u2029"
    r"\u2060-\u2069\ufeff\ud800-\udfff\ufffe\uffff]"
)
OLD_COMMAND = re.compile(r"##(vso)?\[", re.IGNORECASE)


@pytest.fixture(autouse=True)
def _no_loaded_password(monkeypatch):
    """Passwords other tests loaded are scrubbed from every message (deploy.credentials keeps
    them for the run): none here, so a hostile text reaches the escaping as written."""
    from lossless.deploy import credentials

    monkeypatch.setattr(credentials, "_SECRET_FORMS", set())


def assert_safe(output: str, annotations: int = 0) -> None:
    """No control character but the line breaks, no command a CI runner would run (GitHub
    Actions trims a line's start before looking for `::`), encodable as UTF-8; only the
    `annotations` genuine github annotations start with `::`."""
    assert UNSAFE.search(output) is None, repr(output)
    assert OLD_COMMAND.search(output) is None, output
    commands = [line for line in output.split("\n") if line.lstrip().startswith("::")]
    assert len(commands) == annotations, commands
    assert all(re.match(r"::(error|warning) file=", line) for line in commands), commands
    output.encode("utf-8")


# -- the function --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("char", "shown"),
    [
        ("\x00", "\\x00"),
        ("\x07", "\\x07"),
        ("\t", "\\t"),
        ("\n", "\\n"),
        ("\r", "\\r"),
        ("\x1b", "\\x1b"),
        ("\x7f", "\\x7f"),
        ("\x85", "\\x85"),
        ("\x9b", "\\x9b"),  # the one-byte CSI
        ("\u061c", "\\u061c"),
        *((chr(code), f"\\u{code:04x}") for code in range(0x200B, 0x2010)),
        *((chr(code), f"\\u{code:04x}") for code in range(0x202A, 0x202F)),
        ("\u2028", "\\u2028"),
        ("\u2029", "\\u2029"),
        *((chr(code), f"\\u{code:04x}") for code in range(0x2060, 0x206A)),
        ("\ufeff", "\\ufeff"),
        ("\U000e0041", "\\U000e0041"),  # a tag character: invisible text
        ("\ud800", "\\ud800"),  # a lone surrogate cannot even be encoded
        ("\uffff", "\\uffff"),  # not a character XML 1.0 can hold
    ],
)
def test_each_control_and_format_character_becomes_a_visible_escape(char, shown):
    assert printable(f"a{char}b") == f"a{shown}b"


@pytest.mark.parametrize(
    "text",
    [
        "",
        "Ethernet1/1",
        "leaf1 Ethernet0: lossless queue 3 has no ECN marking",
        "Grüße, 日本語, Ελληνικά, עברית, العربية",  # letters of any script, right-to-left too
        "C:\\configs\\leaf1.cfg:3:1",  # backslashes alone need no escape
        'description "a\\"b"',
        "x ::y",  # `::` not at the start
        "#[ and # # [",
        "a\u00a0b",  # a no-break space is printable
    ],
)
def test_printable_text_is_unchanged(text):
    assert printable(text) == text


def test_escaped_text_doubles_its_backslashes_so_it_reads_back():
    assert printable("C:\\x\x1b") == "C:\\\\x\\x1b"
    assert printable("\\x1b\x1b") == "\\\\x1b\\x1b"  # the text `\x1b`, then an ESC


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("::error::pwned", "\\x3a:error::pwned"),
        ("  ::add-mask::x", "  \\x3a:add-mask::x"),
        ("\u3000::stop-commands::t", "\u3000\\x3a:stop-commands::t"),
        ("x ##[add-mask]y", "x \\x23#[add-mask]y"),
        ("###[error]", "#\\x23#[error]"),
        ("##VSO[task.complete]", "\\x23#VSO[task.complete]"),
    ],
)
def test_workflow_commands_are_broken(text, shown):
    assert printable(text) == shown


@given(st.text())
def test_any_text_is_one_safe_line_that_reads_back(text):
    shown = printable(text)
    assert "\n" not in shown
    assert_safe(shown)
    assert not shown.lstrip().startswith("::")
    if shown != text:  # escaped: the body of a Python string literal of the text
        assert ast.literal_eval('"' + shown.replace('"', '\\"') + '"') == text


@given(st.text())
def test_any_printable_text_is_xml(text):
    element = ElementTree.Element("failure", message=printable(text))
    element.text = printable(text)
    parsed = ElementTree.fromstring(ElementTree.tostring(element, encoding="unicode"))
    assert parsed.get("message") == (parsed.text or "") == printable(text)


def test_printable_lines_keeps_the_lines_and_escapes_the_rest():
    assert printable_lines("+ mtu 9100\r\n- mtu 9000\n::error::x\x1b[2J") == (
        "+ mtu 9100\n- mtu 9000\n\\x3a:error::x\\x1b[2J"
    )


@given(st.recursive(st.text() | st.integers(), lambda inner: st.lists(inner), max_leaves=8))
def test_inert_json_is_the_same_json_without_old_commands(value):
    text = inert_json(json.dumps({"message": value, "s": "##[add-mask]x"}, indent=2))
    assert json.loads(text) == {"message": value, "s": "##[add-mask]x"}
    assert_safe(text)


# -- lint's formats ------------------------------------------------------------------------

FINDINGS = [
    Finding("configs/leaf1.cfg:3:1", "LL110", "error", HOSTILE, "leaf1\x1b[31m", "Eth\n::x::y"),
    Finding("::add-mask::configs/x.cfg:7:1", "LL105", "warning", "quoted " + HOSTILE, "leaf1"),
    Finding("inv.yaml:9:5", "LL101", "error", "fabric-wide " + HOSTILE),
]
RESULT = LintResult(
    FINDINGS,
    [
        Suppressed(
            "LL103",
            HOSTILE,
            "fabric",
            "inv.yaml",
            (Finding("inv.yaml:4:3", "LL103", "error", "x"),),
        )
    ],
)
DEVICES = ["leaf1", "leaf1\x1b[31m"]


@pytest.mark.parametrize("format_name", ["text", "github", "junit", "json", "sarif", "codeclimate"])
def test_lint_formats_show_hostile_findings_safely(format_name):
    output = report(RESULT, DEVICES, format_name)
    assert_safe(output, annotations=len(FINDINGS) if format_name == "github" else 0)
    if format_name in ("text", "github", "junit"):
        assert "\\x1b[2J\\x1b]0;pwned\\x07" in output
        assert "\\u202edesrever\\u202c" in output
    else:  # JSON: the text as it came (json.dumps escapes it), `##[` a JSON escape
        data = json.loads(output)
        texts = {
            "json": lambda: [record["message"] for record in data],
            "sarif": lambda: [result["message"]["text"] for result in data["runs"][0]["results"]],
            "codeclimate": lambda: [issue["description"] for issue in data],
        }[format_name]()
        assert len(texts) == len(FINDINGS)
        assert all(text.endswith(HOSTILE) for text in texts)


def test_text_shows_every_field_and_the_suppressed_reason_escaped():
    lines = report(RESULT, DEVICES, "text").splitlines()
    assert lines[0] == (
        "configs/leaf1.cfg:3:1: error LL110 [ecn-on-lossless-queue] leaf1\\x1b[31m Eth\\n::x::y: "
        + printable(HOSTILE)
    )
    assert lines[1].startswith("\\x3a:add-mask::configs/x.cfg:7:1: warning LL105 ")
    assert lines[-1] == (
        "suppressed LL103 at inv.yaml:4:3 by the fabric's lint_ignore in inv.yaml: "
        + printable(HOSTILE)
    )
    assert printable(HOSTILE).endswith(
        "\\n::error::pwned\\r\\n  ::add-mask::secret \\x23#[add-mask]other "
        "\\x23#vso[task.complete]x"
    )


def test_github_annotations_keep_their_escaping_on_one_line_each():
    lines = report(RESULT, DEVICES, "github").splitlines()
    assert len(lines) == len(FINDINGS) + 1
    assert lines[0].startswith("::error file=configs/leaf1.cfg,line=3,col=1,title=LL110 ")
    assert lines[0].endswith("::leaf1\\x1b[31m Eth\\n::x::y: " + printable(HOSTILE))
    # the file property's colons are %-escaped as before
    assert lines[1].startswith("::warning file=\\x3a%3Aadd-mask%3A%3Aconfigs/x.cfg,line=7,")
    assert "100%25" in report(
        LintResult([Finding("a:1:1", "LL110", "error", "100%\x1b")], []), [], "github"
    )


def test_junit_is_well_formed_xml_holding_the_escaped_text():
    output = report(RESULT, DEVICES, "junit")
    root = ElementTree.fromstring(output)
    suites = {suite.get("name"): suite for suite in root}
    assert set(suites) == {"fabric", "leaf1", "leaf1\\x1b[31m"}
    failure = suites["leaf1\\x1b[31m"].find("testcase/failure")
    assert failure is not None
    assert failure.get("message") == "leaf1\\x1b[31m Eth\\n::x::y: " + printable(HOSTILE)
    assert failure.text == "configs/leaf1.cfg:3:1: " + failure.get("message")
    warning = suites["leaf1"].find("testcase/system-out")
    assert warning is not None and "\\x1b[2J" in (warning.text or "")


def test_lint_of_a_config_whose_interface_name_is_hostile(run, tmp_path):
    config = (REPO / "tests" / "configs" / "eos" / "ecn-removed.cfg").read_text()
    assert "interface Ethernet1/1\n" in config
    config = config.replace(
        "interface Ethernet1/1\n",
        "interface Ethernet1/1\x1b]0;pwned\x07\x1b[2J\n   description \x1b[8m::error::pwned\n",
        1,
    )
    (tmp_path / "leaf.cfg").write_text(config)
    for format_name in ("text", "github", "junit", "json", "sarif", "codeclimate"):
        result = run(
            "lint", "--config", str(tmp_path / "leaf.cfg"), "--os", "eos", "--format", format_name
        )
        assert result.code in (1, 2), result.err
        assert_safe(result.err)
        if result.code == 1:  # a finding names the port
            findings = len(result.out.splitlines()) - 1 if format_name == "github" else 0
            assert_safe(result.out, annotations=findings)
            if format_name in ("text", "github", "junit"):
                assert "Ethernet1/1\\x1b]0;pwned\\x07\\x1b[2J" in result.out
            if format_name == "junit":
                ElementTree.fromstring(result.out)


# -- the plan text ------------------------------------------------------------------------


def test_plan_text_of_a_hostile_config_shows_its_names_escaped(tmp_path):
    config = (REPO / "tests" / "configs" / "eos" / "ecn-removed.cfg").read_text()
    config = config.replace(
        "interface Ethernet1/1\n", "interface Ethernet1/1\x1b]0;pwned\x07[bold]x[/bold]\n", 1
    )
    path = tmp_path / "leaf\x1b[2J[bold]\u202e.cfg"  # the device is named for its file
    path.write_text(config)
    plan = fabric_from_config(path, "eos")
    plain = io.StringIO()
    write_plan_text(plan, plain)
    terminal = Console(file=io.StringIO(), width=400, color_system=None, highlight=False)
    print_plan_rich(plan, terminal)
    for output in (plain.getvalue(), terminal.file.getvalue()):
        assert_safe(output)
        lines = [line.rstrip() for line in output.splitlines()]
        assert lines[0].startswith("fabric leaf\\x1b[2J[bold]\\u202e: 1 device (from ")
        assert "leaf\\x1b[2J[bold]\\u202e  (leaf, eos, tomahawk-4)" in lines  # its header model
        # a cell is text, measured escaped (plain: the columns still line up), not markup
        [row] = [line for line in lines if line.startswith("Ethernet1/1")]
        assert row.startswith("Ethernet1/1\\x1b]0;pwned\\x07[bold]x[/bold] ")
        [other] = [line for line in lines if line.startswith("Ethernet33/1")]
        assert row.index(" -") == other.index(" -")


# -- the command line's errors -------------------------------------------------------------


def test_error_line_escapes_what_it_quotes(capsys):
    _error_line(f"lossless: {HOSTILE}")
    err = capsys.readouterr().err
    assert err == f"lossless: {printable(HOSTILE)}\n"
    assert_safe(err)


def test_input_error_quoting_a_hostile_name(run, tmp_path):
    inventory = tmp_path / "inv.yaml"
    inventory.write_text(
        'fabric:\n  name: t\ndevices:\n  "leaf\\e[2J\\n::error::pwned\\u202e":\n'
        "    role: leaf\n    os: sonic\n    asic: spectrum-4\n"
    )
    result = run("validate", str(inventory))
    assert result.code == 2
    assert_safe(result.err)
    assert "leaf\\x1b[2J\\n::error::pwned\\u202e" in result.err


def test_usage_error_quoting_a_hostile_argument(run, tmp_path):
    result = run("diff", LAB, "--running", str(tmp_path / "x\x1b[2J\n::add-mask::y"))
    assert result.code == 2
    assert_safe(result.err)
    assert "x\\x1b[2J\\n::add-mask::y is not a folder" in result.err


# -- deploy --------------------------------------------------------------------------------


def test_offline_diff_text_shows_a_hostile_backup_line_escaped(run, tmp_path):
    backups = tmp_path / "oxidized"
    shutil.copytree(REPO / "golden" / "lab", backups)
    spine = backups / "spine1.cfg"
    text = spine.read_text()
    assert "   description fabric downlink\n" in text
    spine.write_text(
        text.replace(
            "   description fabric downlink\n",
            "   description x\x1b[2J\x1b]0;pwned\x07::error::pwned ##[add-mask]y\u202e\n",
            1,
        )
    )
    result = run("diff", LAB, "--running", str(backups), "--device", "spine1")
    assert result.code == 0, result.err
    assert_safe(result.out)
    assert (
        "      no description x\\x1b[2J\\x1b]0;pwned\\x07::error::pwned \\x23#[add-mask]y\\u202e"
        in result.out.splitlines()
    )


@pytest.fixture
def mock(tmp_path, monkeypatch):
    """napalm's mock driver with recorded responses (as tests/test_deploy_live.py)."""
    monkeypatch.setenv("LOSSLESS_USERNAME", "netops")
    monkeypatch.setenv("LOSSLESS_PASSWORD", "s3cr3t")
    root = tmp_path / "mock"

    def record(device: str, **responses):
        folder = root / device
        folder.mkdir(parents=True, exist_ok=True)
        [golden] = (REPO / "golden" / "lab").glob(f"{device}.*")
        running = {"running": golden.read_text(), "startup": "", "candidate": ""}
        responses.setdefault("get_config__1", running)
        for name, value in responses.items():
            (folder / name.replace("__", ".")).write_text(json.dumps(value))
        return root

    return record


def _raises(exception: str, message: str) -> dict:
    return {"exception": f"napalm.base.exceptions.{exception}", "args": [message]}


DEVICE_DIFF = (
    "+   description ok\x1b[2J\x1b]0;pwned\x07\r\n::error::pwned\n##[add-mask]y\n- \u202ex"
)


def test_live_diff_text_shows_the_devices_answers_escaped(run, mock):
    pytest.importorskip("napalm")
    mock(
        "spine1",
        load_merge_candidate__1={},
        compare_config__1={"diff": DEVICE_DIFF},
        discard_config__1={},
    )
    root = mock(
        "leaf3",
        load_merge_candidate__1={},
        compare_config__1=_raises("CommandErrorException", "no [/] [bold]way[/bold] :x:\x1b[2J"),
        discard_config__1={},
    )
    mock("leaf4", load_merge_candidate__1={}, compare_config__1={"diff": ""}, discard_config__1={})
    result = run("diff", LAB, "--live", "--mock", str(root))
    assert result.code == 1, result.err
    assert_safe(result.out)
    lines = result.out.splitlines()
    # the device's lines stay lines, each escaped; none is a workflow command
    assert "+   description ok\\x1b[2J\\x1b]0;pwned\\x07" in lines
    assert "\\x3a:error::pwned" in lines
    assert "\\x23#[add-mask]y" in lines
    assert "- \\u202ex" in lines
    # a device's message is text, not rich markup or emoji codes
    assert "no [/] [bold]way[/bold] :x:\\x1b[2J" in result.out


def test_argparse_errors_are_printable(run):
    """argparse quotes what the user mistyped: escaped as every other message."""
    result = run("plan", "lab.yaml", "--bo\x1b]0;pwned\x07gus")
    assert result.code == 2
    assert "\x1b" not in result.err and "\x07" not in result.err
    assert "--bo\\x1b]0;pwned\\x07gus" in result.err
    sub = run("lint", "--os", "e\x1bos")
    assert sub.code == 2 and "\x1b" not in sub.err
