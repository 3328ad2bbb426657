"""`lossless report`'s simulated worst port of each switch (report/simulation_view.py,
simulate/worst.py): a chart per switch whose Kmin, Kmax and PFC trigger lines sit at the plan's
numbers (read from `lossless plan --format json` and from the chart's own axis ticks, not from
the code that drew them), the same figures `lossless simulate` gives for that port, the worst
port as docs/simulate.md defines it, equal scenarios run once, deterministic, escaped."""

from __future__ import annotations

import dataclasses
import json
import re
from functools import cache
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest
from conftest import INVENTORIES, cli, plan_json

from lossless.inventory import load_inventory
from lossless.lint.runner import lint
from lossless.plan import FabricPlan
from lossless.planner.fabric import plan_fabric
from lossless.report import charts
from lossless.report.page import render_html
from lossless.report.view import build_report
from lossless.simulate.worst import run_distinct, worst_port

LAB = INVENTORIES / "lab.yaml"
POD = INVENTORIES / "pod-2048.yaml"


@cache
def fabric(inventory: Path) -> FabricPlan:
    return plan_fabric(load_inventory(str(inventory)))


class Sections(HTMLParser):
    """Per device section: the simulated port, its chart's tick labels and lines, the
    legend's levels and the figures (data-sim)."""

    def __init__(self, html: str):
        super().__init__(convert_charrefs=True)
        self.devices: dict[str, dict] = {}
        self._device: str | None = None
        self._in_sim_svg = False
        self._text: list[str] | None = None
        self._text_y: float | None = None
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "section" and "data-device" in a:
            self._device = a["data-device"]
            self.devices[self._device] = {"ticks": [], "lines": [], "levels": {}, "facts": {}}
        if self._device is None:
            return
        d = self.devices[self._device]
        if "data-simulated-port" in a:
            d["port"] = a["data-simulated-port"]
        if tag == "svg" and "simulated egress queue" in a.get("aria-label", ""):
            self._in_sim_svg = True
            d["label"] = a["aria-label"]
        if self._in_sim_svg and tag == "line" and a.get("class") in ("kmin", "kmax", "pfc"):
            d["lines"].append((a["class"], float(a["y1"]), float(a["y2"])))
        if self._in_sim_svg and tag == "polyline":
            d["queue"] = a["points"]
        if self._in_sim_svg and tag == "text" and a.get("text-anchor") == "end" and "y" in a:
            self._text, self._text_y = [], float(a["y"])
        if tag == "li" and "data-level" in a:
            d["levels"][a["data-level"]] = int(a["data-bytes"])
        if "data-sim" in a and "data-value" in a:
            d["facts"][a["data-sim"]] = json.loads(a["data-value"])

    def handle_data(self, data):
        if self._text is not None:
            self._text.append(data)

    def handle_endtag(self, tag):
        if tag == "text" and self._text is not None and self._device is not None:
            self.devices[self._device]["ticks"].append((self._text_y, "".join(self._text)))
            self._text = None
        if tag == "svg":
            self._in_sim_svg = False
        if tag == "section":
            self._device = None


UNITS = {"B": 1, "kB": 1e3, "MB": 1e6, "GB": 1e9}


def bytes_at(ticks: list[tuple[float, str]], y: float) -> float:
    """The bytes at height y, read off the chart's own y-axis tick labels ('400 kB')."""
    points = []
    for at, label in ticks:
        m = re.fullmatch(r"([0-9.]+) (B|kB|MB|GB)", label)
        if m:
            points.append((at, float(m[1]) * UNITS[m[2]]))
    (y0, b0), (y1, b1) = points[0], points[-1]
    return b0 + (y - y0) * (b1 - b0) / (y1 - y0)


def roce_ecn(device: dict, port: str) -> dict:
    queue = device["maps"]["tc_to_queue"][str(device["roce_priority"])]
    return next(e for e in device["ports"][port]["ecn"] if e["queue"] == queue)


@pytest.fixture(scope="module")
def lab_page(tmp_path_factory) -> tuple[str, Sections]:
    folder = tmp_path_factory.mktemp("lab")
    code, out = cli("report", str(LAB), "-o", str(folder))
    assert code == 0, out
    html = (folder / "index.html").read_text()
    return html, Sections(html)


def test_every_switch_has_its_worst_port_chart(lab_page):
    _, page = lab_page
    plan = plan_json(LAB)
    assert list(page.devices) == list(plan["devices"])
    for name, d in page.devices.items():
        assert d["port"] == worst_port(fabric(LAB), name)
        assert d["label"] == f"simulated egress queue of {name} {d['port']} over time"
        # the queue over the whole run, its peak at the run's largest queue
        points = [tuple(map(float, p.split(","))) for p in d["queue"].split()]
        assert points[0][0] == charts.LEFT and points[-1][0] >= charts.RIGHT - 2
        assert len(points) > 10
        top = bytes_at(d["ticks"], min(y for y, _ in d["ticks"]))
        peak = bytes_at(d["ticks"], min(y for _, y in points))
        assert peak == pytest.approx(d["facts"]["queue_max_bytes"], abs=top / 192 * 0.11)


def test_the_lines_sit_at_the_plans_kmin_kmax_and_trigger(lab_page):
    """Each line's height, read back through the chart's own tick labels, is the plan's
    value within the 0.1-unit rounding of the drawing; the legend names the same bytes."""
    _, page = lab_page
    plan = plan_json(LAB)["devices"]
    for name, d in page.devices.items():
        ecn = roce_ecn(plan[name], d["port"])
        expected = {
            "kmin": ecn["min_bytes"],
            "kmax": ecn["max_bytes"],
            "pfc": plan[name]["pfc_trigger"]["trigger_bytes"],
        }
        assert d["levels"] == expected
        ticks = d["ticks"]
        top = bytes_at(ticks, min(y for y, _ in ticks))
        for kind, y1, y2 in d["lines"]:
            assert y1 == y2
            assert bytes_at(ticks, y1) == pytest.approx(expected[kind], abs=top / 192 * 0.11)
        assert sorted(k for k, *_ in d["lines"]) == ["kmax", "kmin", "pfc"]


def test_the_figures_are_lossless_simulates_for_that_port(lab_page):
    _, page = lab_page
    for name in ("leaf1", "spine1"):
        d = page.devices[name]
        code, out = cli(
            "simulate",
            str(LAB),
            "--device",
            name,
            "--port",
            d["port"],
            "--duration",
            "1",
            "--format",
            "json",
        )
        assert code == 0
        run = json.loads(out)
        for key in ("first_mark_us", "first_rate_cut_us", "first_pause_us", "converged_us"):
            expected = run[key]
            assert d["facts"][key] == (None if expected is None else round(expected, 1)), key
        assert d["facts"]["dropped_bytes"] == run["dropped_bytes"]
        assert d["facts"]["queue_max_bytes"] == run["queue_max_bytes"]
        assert d["facts"]["fairness"] == run["fairness"]
        total = sum(s["gbps"] for s in run["throughput_gbps"])
        assert d["facts"]["throughput_gbps"] == pytest.approx(total, abs=0.01)


def test_the_lab_marks_before_it_pauses_and_says_so(lab_page):
    html, page = lab_page
    for d in page.devices.values():
        first_pause = d["facts"]["first_pause_us"]
        assert d["facts"]["first_mark_us"] is not None
        assert first_pause is None or d["facts"]["first_mark_us"] < first_pause
    assert "6 of 6 mark first" in html


def test_the_worst_port_is_the_slowest_then_the_least_headroom_then_the_longest_cable():
    plan = fabric(LAB)
    leaf = plan.devices["leaf1"]
    # all four of leaf1's ports run 400G: one at 100G takes the most load (3 x 400G into it)
    slow = dataclasses.replace(leaf.ports["Ethernet4"], speed_mbps=100_000)
    ports = {**leaf.ports, "Ethernet4": slow}
    changed = dataclasses.replace(
        plan, devices={**plan.devices, "leaf1": dataclasses.replace(leaf, ports=ports)}
    )
    assert worst_port(changed, "leaf1") == "Ethernet4"
    # Ethernet0's PG 10 kB closer to dropping: every other port has it among its senders,
    # so they tie on the headroom margin and the longest cable (35 m to spine2) decides
    pg = leaf.ports["Ethernet0"].headroom[0]
    tight = dataclasses.replace(
        leaf.ports["Ethernet0"], headroom=[dataclasses.replace(pg, xoff=pg.xoff - 10_000)]
    )
    ports = {**leaf.ports, "Ethernet0": tight}
    changed = dataclasses.replace(
        plan, devices={**plan.devices, "leaf1": dataclasses.replace(leaf, ports=ports)}
    )
    assert worst_port(changed, "leaf1") == "Ethernet252"
    assert leaf.ports["Ethernet252"].cable_m == 35


def test_equal_scenarios_run_once_and_give_the_same_run():
    plan = fabric(POD)
    ports = [(name, worst_port(plan, name)) for name in ("leaf01", "leaf02", "spine01")]
    runs, count = run_distinct(plan, ports, None, 20e-6)  # type: ignore[arg-type]
    assert count == 2
    a, b = runs[ports[0]], runs[ports[1]]
    assert not isinstance(a, str) and not isinstance(b, str)
    assert a.result is b.result
    alone, _ = run_distinct(plan, ports[1:2], None, 20e-6)  # type: ignore[arg-type]
    again = alone[ports[1]]
    assert not isinstance(again, str)
    assert np.array_equal(again.result.queue, a.result.queue)


def test_the_same_inventory_gives_the_same_bytes(tmp_path, lab_page):
    html, _ = lab_page
    code, _ = cli("report", str(LAB), "-o", str(tmp_path))
    assert code == 0
    assert (tmp_path / "index.html").read_text() == html


def test_no_simulate_leaves_it_out(tmp_path):
    code, _ = cli("report", str(LAB), "-o", str(tmp_path), "--no-simulate")
    assert code == 0
    html = (tmp_path / "index.html").read_text()
    assert "data-simulated-port" not in html and "simulated worst ports" not in html


@pytest.mark.parametrize("value", ["0", "-1", "101", "nan"])
def test_a_bad_simulated_time_exits_2(tmp_path, value):
    code, _ = cli("report", str(LAB), "-o", str(tmp_path), "--simulate-ms", value)
    assert code == 2
    assert not (tmp_path / "index.html").exists()


HOSTILE = '<script>alert(1)</script>"\u202e'


def test_a_hostile_device_name_is_escaped_in_the_simulation():
    """Names are schema-checked, but a plan can come from elsewhere: the section escapes
    the device's and the port's names wherever it shows them."""
    plan = fabric(LAB)
    leaf = plan.devices["leaf1"]
    port = HOSTILE + "Ethernet252"
    ports = {
        (port if name == "Ethernet252" else name): dataclasses.replace(p, name=port)
        if name == "Ethernet252"
        else p
        for name, p in leaf.ports.items()
    }
    renamed = dataclasses.replace(leaf, name=HOSTILE, ports=ports)
    devices = {HOSTILE: renamed, "spine1": plan.devices["spine1"]}
    hostile = dataclasses.replace(plan, devices=devices)
    inventory = load_inventory(str(LAB))
    view = build_report(inventory, hostile, lint(plan), [HOSTILE, "spine1"], 50e-6)
    assert view.devices[0].simulation is not None
    assert view.devices[0].simulation.port == port
    html = render_html(view)
    assert "<script>alert" not in html
    anchor = re.sub(r"[^A-Za-z0-9_-]", "-", HOSTILE)  # view.py's _anchors
    section = html[html.index(f'id="device-{anchor}-simulation"') :]
    section = section[: section.index("<h3>Headroom per port</h3>")]
    assert "&lt;script&gt;alert(1)&lt;/script&gt;&#34;&lt;U+202E&gt;Ethernet252" in section
    assert "\u202e" not in html
    assert 'aria-label="simulated egress queue of &lt;script&gt;' in section


def test_the_command_to_run_it_longer_is_quoted_for_the_shell(tmp_path):
    """The page shows a `lossless simulate` line to copy: an inventory path with a space and
    a command substitution stays one word, quoted, then HTML-escaped."""
    folder = tmp_path / "a b $(touch x)"
    folder.mkdir()
    inventory = folder / "lab.yaml"
    inventory.write_text(LAB.read_text())
    out = tmp_path / "report"
    code, _ = cli("report", str(inventory), "-o", str(out), "--simulate-ms", "0.05")
    assert code in (0, 1)
    html = (out / "index.html").read_text()
    quoted = f"lossless simulate &#39;{inventory}&#39; --device leaf1 --port Ethernet"
    assert quoted in html, re.findall(r"<code>lossless simulate[^<]*</code>", html)[:1]


def test_a_port_that_pauses_first_is_flagged_as_lint_flags_it(tmp_path):
    """Kmax 3 MB with Pmax 1 % (docs/rules/examples.yaml's LL128): the report's worst ports
    that pause first are on the switches LL128 names, and the card says so."""
    inventory = tmp_path / "lab.yaml"
    inventory.write_text(
        LAB.read_text().replace(
            "ecn: {preset: nvidia, max_bytes: 500000}",
            "ecn: {preset: nvidia, max_bytes: 3000000, probability_percent: 1}",
        )
    )
    code, _ = cli("report", str(inventory), "-o", str(tmp_path / "out"))
    assert code == 0
    html = (tmp_path / "out" / "index.html").read_text()
    page = Sections(html)
    pausing = sorted(n for n, d in page.devices.items() if d["facts"]["pauses_before_marking"])
    assert pausing == ["leaf1", "leaf2", "leaf3", "spine2"]
    for name in pausing:
        facts = page.devices[name]["facts"]
        assert facts["first_mark_us"] is None or facts["first_pause_us"] < facts["first_mark_us"]
    assert "2 of 6 mark first" in html and "PFC before ECN: leaf[1:3], spine2" in html
    code, out = cli("lint", str(inventory), "--select", "LL128", "--format", "json")
    assert sorted(f["device"] for f in json.loads(out)) == pausing


def test_simulate_ms_sets_the_time_simulated(tmp_path):
    code, _ = cli("report", str(LAB), "-o", str(tmp_path), "--simulate-ms", "0.2")
    assert code == 0
    html = (tmp_path / "index.html").read_text()
    data = json.loads(html[html.index('id="report-data">') + 17 : html.rindex("</script>")])
    runs = [d["simulation"] for d in data["devices"].values()]
    assert {r["duration_us"] for r in runs} == {200.0}
    assert "0.2 ms with DCQCN (6 distinct runs)" in html
    chart = html[html.index('aria-label="simulated egress queue of leaf1') :]
    chart = chart[: chart.index("</svg>")]
    x_ticks = re.findall(r'text-anchor="middle">([0-9.]+)</text>', chart)
    assert x_ticks[-1] == "200"  # the time axis ends where the run does
