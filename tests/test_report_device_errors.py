"""`lossless report` counts every finding against the devices it affects (issue 25): a
fabric-wide error (a PFC deadlock cycle, one cause merged over the ports of several
switches) marks each switch it names, so a switch with an error never shows "ok" in
index.html or report.md."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

from conftest import INVENTORIES

from lossless.cli.main import main
from lossless.inventory import load_inventory
from lossless.lint.registry import Finding
from lossless.lint.runner import LintResult, affected, lint, one_per_cause
from lossless.planner.fabric import plan_fabric
from lossless.report.page import render_html, render_markdown
from lossless.report.view import build_report

LAB = INVENTORIES / "lab.yaml"
CYCLE = ("leaf1", "leaf2", "spine1")  # the switches on the cycle gpu01's forwarding closes


def _forwarding_lab(tmp_path: Path) -> Path:
    """The lab with gpu01 routing between its NICs: a PFC deadlock cycle (LL140, no device of
    its own) through leaf1, spine1 and leaf2, and no other error."""
    text = LAB.read_text()
    nics = '    nics: {"eth[0:1]": {speed: 400G, model: ConnectX-7, mtu: 9000}}\n'
    old = "  gpu[01:02]:  # NVIDIA ConnectX-7; host settings inherited from the leaf ports\n"
    assert old + nics in text
    path = tmp_path / "cycle.yaml"
    path.write_text(
        text.replace(old + nics, f"  gpu01:\n    forwards: true\n{nics}  gpu02:\n{nics}")
    )
    return path


def _report(inventory: Path, folder: Path) -> tuple[str, str]:
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["report", str(inventory), "-o", str(folder)]) == 0
    return (folder / "index.html").read_text(), (folder / "report.md").read_text()


def _html_status(html: str) -> dict[str, tuple[str, str]]:
    """Per switch: its row's status in the switches table and its section's badge."""
    row = re.compile(r'<tr class="(\w+)" data-device="([^"]+)">')
    rows = {name: status for status, name in row.findall(html)}
    sections = dict(re.findall(r'<h2>([^<]+)</h2> <span class="badge (\w+)">', html))
    return {name: (rows[name], sections[name]) for name in rows}


def _markdown_status(markdown: str, name: str) -> str:
    [row] = [line for line in markdown.splitlines() if line.startswith(f"| {name} |")]
    return row.rstrip(" |").rsplit("| ", 1)[1]


def test_a_deadlock_cycle_marks_the_switches_on_it(tmp_path):
    inventory = _forwarding_lab(tmp_path)
    plan = plan_fabric(load_inventory(inventory))
    [cycle] = [f for f in lint(plan).findings if f.rule == "LL140"]
    assert cycle.device is None and cycle.severity == "error"
    assert sorted(affected(cycle)) == sorted(CYCLE)
    html, markdown = _report(inventory, tmp_path / "out")
    status = _html_status(html)
    for name in CYCLE:
        assert status[name] == ("bad", "bad"), name
        assert _markdown_status(markdown, name) == "FAIL", name
    for name in ("leaf3", "leaf4", "spine2"):  # not on the cycle: as the lab shows them
        assert status[name] == ("ok", "ok"), name
        assert _markdown_status(markdown, name) == "ok", name


def test_a_cause_merged_over_several_switches_marks_each(tmp_path):
    """one_per_cause reports one finding for one cause on ports of several switches (no
    device of its own): it keeps which switches, and the report marks each."""
    plan = plan_fabric(load_inventory(LAB))
    inventory = load_inventory(LAB)
    [merged] = one_per_cause(
        [
            Finding("lab.yaml:14:5", "LL106", "error", "MTU mismatch", "leaf3", "Ethernet1/31"),
            Finding("lab.yaml:14:5", "LL106", "error", "MTU mismatch", "spine2", "Ethernet8"),
        ]
    )
    assert merged.device is None and merged.devices == ("leaf3", "spine2")
    view = build_report(inventory, plan, LintResult([merged], []))
    by_name = {d.name: d for d in view.devices}
    assert by_name["leaf3"].status == by_name["spine2"].status == "bad"
    assert by_name["leaf3"].findings == by_name["spine2"].findings == 1
    assert by_name["leaf1"].status == "ok" and by_name["leaf1"].findings == 0
    html, markdown = render_html(view), render_markdown(view)
    status = _html_status(html)
    assert status["leaf3"] == status["spine2"] == ("bad", "bad")
    assert _markdown_status(markdown, "leaf3") == _markdown_status(markdown, "spine2") == "FAIL"
    assert view.data["devices"]["spine2"]["status"] == "bad"


def test_no_switch_with_an_error_shows_ok(tmp_path):
    inventory = _forwarding_lab(tmp_path)
    plan = plan_fabric(load_inventory(inventory))
    view = build_report(load_inventory(inventory), plan, lint(plan))
    failing = {name for f in lint(plan).findings if f.severity == "error" for name in affected(f)}
    assert failing
    for device in view.devices:
        if device.name in failing:
            assert device.status == "bad", device.name


def test_the_merged_findings_output_is_unchanged_by_the_devices_it_keeps():
    """Finding.devices is for the report: no lint format prints it."""
    from lossless.lint.report import records

    finding = Finding("a:1:1", "LL106", "error", "m", None, None, ("leaf1", "spine1"))
    assert "devices" not in records([finding])[0]
    assert finding < Finding("a:1:1", "LL106", "error", "m", None, None, ("leaf2",))
    assert (
        len({finding, Finding("a:1:1", "LL106", "error", "m", None, None, ("leaf1", "spine1"))})
        == 1
    )
