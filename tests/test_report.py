"""`lossless report`: the page's numbers are the plan's, its findings are lint's, the
oversubscription is counted by hand, untrusted text is escaped, and the output is
deterministic and written safely. The page in a real browser: test_report_browser.py."""

from __future__ import annotations

import itertools
import json
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from conftest import INVENTORIES, MINIMAL, cli, plan_json
from hypothesis import given
from hypothesis import strategies as st

from lossless.report import charts
from lossless.report.names import name_ranges
from lossless.report.page import markdown_escape
from lossless.text import ranges
from lossless.text.units import parse_speed

LAB = INVENTORIES / "lab.yaml"
POD = INVENTORIES / "pod-2048.yaml"
VOID = {"meta", "link", "br", "img", "hr", "input", "area", "base", "col", "source", "wbr"}


def write_report(inventory: Path, folder: Path, *options: str) -> tuple[str, str]:
    code, out = cli("report", str(inventory), "-o", str(folder), *options)
    assert code == 0, out
    return (folder / "index.html").read_text(), (folder / "report.md").read_text()


class Page(HTMLParser):
    """What a test reads back from the page: every number element (data-field) with the
    device and ports it belongs to, the embedded JSON, scripts, links and sections."""

    def __init__(self, html: str):
        super().__init__(convert_charrefs=True)
        self.stack: list[tuple[str, dict[str, str]]] = []
        self.figures: list[dict[str, Any]] = []
        self.scripts: list[dict[str, str]] = []
        self.urls: list[str] = []
        self.sections: list[str] = []
        self.rules: list[str] = []
        self.bars: dict[str, list[tuple[str, float]]] = {}
        self.csp = ""
        self.data: dict[str, Any] = {}
        self._text: list[str] | None = None
        self._script: list[str] | None = None
        self.feed(html)
        self.close()

    def _nearest(self, name: str) -> str | None:
        for _, attrs in reversed(self.stack):
            if name in attrs:
                return attrs[name]
        return None

    def handle_starttag(self, tag, attrs):
        found = {k: v or "" for k, v in attrs}
        self._look(tag, found)
        if tag in VOID:
            return
        self.stack.append((tag, found))
        if "data-field" in found:
            self._text = []
        if tag == "script":
            self.scripts.append(found)
            self._script = []

    def handle_startendtag(self, tag, attrs):
        self._look(tag, {k: v or "" for k, v in attrs})

    def _look(self, tag: str, attrs: dict[str, str]) -> None:
        self.urls += [attrs[a] for a in ("href", "src", "action", "srcset") if a in attrs]
        if tag == "meta" and attrs.get("http-equiv") == "Content-Security-Policy":
            self.csp = attrs["content"]
        if tag == "section" and "data-device" in attrs:
            self.sections.append(attrs["data-device"])
        if tag == "details" and "data-rule" in attrs:
            self.rules.append(attrs["data-rule"])
        if tag == "rect" and self.stack and "bar" in self.stack[-1][1].get("class", ""):
            device = self._nearest("data-device") or ""
            self.bars.setdefault(device, []).append((attrs["class"], float(attrs["width"])))

    def handle_data(self, data):
        if self._text is not None:
            self._text.append(data)
        if self._script is not None:
            self._script.append(data)

    def handle_endtag(self, tag):
        while self.stack:
            open_tag, attrs = self.stack.pop()
            if "data-field" in attrs and self._text is not None:
                ports = self._nearest("data-ports")
                self.figures.append(
                    {
                        "device": self._nearest("data-device") or attrs.get("data-device"),
                        "ports": ports.split() if ports else None,
                        "field": attrs["data-field"],
                        "value": attrs["data-value"],
                        "text": "".join(self._text).strip(),
                    }
                )
                self._text = None
            if open_tag == "script" and self._script is not None:
                if attrs.get("id") == "report-data":
                    self.data = json.loads("".join(self._script))
                self._script = None
            if open_tag == tag:
                break


def at(data: Any, path: str) -> Any:
    for step in path.split("."):
        data = data[int(step)] if isinstance(data, list) else data[step]
    return data


def shown(text: str) -> Any:
    """The value a number element shows, read as a person would."""
    if text == "–":
        return None
    if text in ("yes", "NO"):
        return text == "yes"
    if re.fullmatch(r"[0-9.]+[MGT]", text):
        return parse_speed(text)
    plain = text.removesuffix(" B").removesuffix(" %").replace(",", "")
    return float(plain) if "." in plain else int(plain)


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    html, markdown = write_report(LAB, tmp_path_factory.mktemp("lab"))
    return Page(html), html, markdown


def assert_numbers_are_the_plans(page: Page, plan: dict) -> None:
    """Each number element names its place in the plan; its value and the text a reader
    sees both equal `lossless plan --format json` there, for every port of its row."""
    checked = 0
    for figure in page.figures:
        device = plan["devices"][figure["device"]]
        owners = [device["ports"][p] for p in figure["ports"]] if figure["ports"] else [device]
        for owner in owners:
            expected = at(owner, figure["field"])
            assert json.loads(figure["value"]) == expected, figure
            assert shown(figure["text"]) == expected, figure
            checked += 1
    ports = sum(len(d["ports"]) for d in plan["devices"].values())
    assert checked > 2 * ports  # headroom and ECN of every port, and the device numbers
    # every port is in one headroom row, every lossless port in one ECN row
    for name, device in plan["devices"].items():
        for kind, wanted in (
            ("headroom.0.xoff", [p for p, v in device["ports"].items() if v["headroom"]]),
            ("ecn.0.min_bytes", [p for p, v in device["ports"].items() if v["ecn"]]),
        ):
            rows = [f["ports"] for f in page.figures if f["device"] == name and f["field"] == kind]
            assert sorted(p for row in rows for p in row) == sorted(wanted)
    assert page.sections == list(plan["devices"])


@pytest.mark.parametrize("inventory", [LAB, POD], ids=["lab", "pod-2048"])
def test_every_number_on_the_page_is_the_plans(inventory, tmp_path):
    page = Page(write_report(inventory, tmp_path)[0])
    assert_numbers_are_the_plans(page, plan_json(inventory))


def test_a_switch_without_a_published_buffer(tmp_path, write):
    """sonic-vs has no buffer size: no bar, the budget and the trigger say they are unknown,
    and what is known is still the plan's."""
    inventory = write(MINIMAL.replace("asic: spectrum-4", "asic: sonic-vs"))
    html, markdown = write_report(inventory, tmp_path / "out")
    page = Page(html)
    assert_numbers_are_the_plans(page, plan_json(inventory))
    assert set(page.bars) == {"spine1"}
    assert "not checked: the ASIC&#39;s buffer size is not published" in html
    assert "the PFC trigger is unknown" in html
    n = plan_json(inventory)["devices"]["leaf1"]["pfc_trigger"]["sharing_pgs"]
    assert f"| leaf1 | leaf | sonic / sonic-vs | – | {n} | – | – | – | not checked" in markdown


def test_the_embedded_json_is_the_plan_and_the_lint(lab):
    page, _, _ = lab
    plan = plan_json(LAB)
    _, out = cli("lint", str(LAB), "--format", "json")
    assert json.loads(out) == page.data["findings"]
    assert page.data["fabric"] == plan["name"] == "lab"
    assert list(page.data["devices"]) == list(plan["devices"])
    for name, shown_device in page.data["devices"].items():
        device = plan["devices"][name]
        assert shown_device["budget"] == device["budget"]
        assert shown_device["pfc_trigger"] == device["pfc_trigger"]
        for key in ("headroom", "ecn"):
            for group in shown_device[key]:
                for port in group["ports"]:
                    assert device["ports"][port][key] == group[key]
            listed = sorted(p for g in shown_device[key] for p in g["ports"])
            assert listed == sorted(p for p, v in device["ports"].items() if v[key])


def test_the_summary_names_the_worst_budget_and_ecn(lab):
    """The worst buffer use is the largest utilisation of the plan; the smallest n where ECN
    breaks is one past the fewest congested PGs any switch's Kmax stands (the lab: leaf3,
    Cloud Scale GX with a 40 MB buffer, on both counts)."""
    _, html, markdown = lab
    plan = plan_json(LAB)["devices"]
    worst = max(plan, key=lambda d: plan[d]["budget"]["utilisation_percent"])
    fewest = min(plan, key=lambda d: plan[d]["pfc_trigger"]["largest_n_full_marking_before_pfc"])
    use = plan[worst]["budget"]["utilisation_percent"]
    breaks = plan[fewest]["pfc_trigger"]["largest_n_full_marking_before_pfc"] + 1
    for text in (html, markdown):
        assert f"{use:g} %" in text and f"n = {breaks}" in text and "0 errors" in text
    assert f"| worst buffer use | **{use:g} %** ok | {worst}: " in markdown
    assert f"| smallest n where ECN breaks | **n = {breaks}** ok | {fewest}: " in markdown


def test_each_budget_bar_is_drawn_to_scale(lab):
    page, _, _ = lab
    plan = plan_json(LAB)["devices"]
    assert set(page.bars) == set(plan)
    for name, segments in page.bars.items():
        budget = plan[name]["budget"]
        widths = dict(segments)
        assert sum(widths.values()) == pytest.approx(charts.BAR_WIDTH, abs=0.3)
        for kind, size in (
            ("reserved", budget["reserved_headroom_bytes"]),
            ("shared", budget["shared_buffer_bytes"]),
        ):
            assert widths[kind] == pytest.approx(
                charts.BAR_WIDTH * size / budget["buffer_bytes"], abs=0.1
            )
        assert ("pool" in widths) == (budget["shared_headroom_pool_bytes"] > 0)
    assert "pool" in dict(page.bars["leaf4"])  # Tomahawk 3 ships with a shared headroom pool


def test_the_page_fetches_nothing_and_runs_no_script(lab):
    page, html, _ = lab
    assert all(url.startswith("#") for url in page.urls), page.urls
    assert page.scripts == [{"type": "application/json", "id": "report-data"}]
    assert "default-src 'none'" in page.csp and "script-src" not in page.csp
    css = re.search(r"<style>(.*?)</style>", html, re.S)
    assert css is not None and "url(" not in css.group(1) and "@import" not in css.group(1)


HOSTILE = "<script>alert(1)</script></script><img src=x onerror=alert(2)> a|b *c* [d](e)"


def test_untrusted_text_is_escaped(tmp_path, write):
    text = LAB.read_text()
    text = text.replace(
        "description: Mixed-vendor RoCE v2 lab", f"description: {json.dumps(HOSTILE)}"
    )
    text = text.replace(
        "    platform: SN5600\n    mgmt: 192.0.2.11\n",
        f"    platform: SN5600\n    mgmt: 192.0.2.11\n    description: {json.dumps(HOSTILE)}\n",
    )
    html, markdown = write_report(write(text, "hostile.yaml"), tmp_path / "out")
    assert "<script>alert" not in html and "<img src=x" not in html
    assert html.count("&lt;script&gt;alert(1)&lt;/script&gt;&lt;/script&gt;&lt;img") == 2
    page = Page(html)
    assert page.scripts == [{"type": "application/json", "id": "report-data"}]
    block = html[html.index('id="report-data">') : html.rindex("</script>")]
    assert "<" not in block.removeprefix('id="report-data">')
    assert "<" not in markdown.replace("&lt;", "")
    assert "&lt;script&gt;alert\\(1\\)&lt;/script&gt;" in markdown
    assert "a\\|b \\*c\\* \\[d\\]\\(e\\)" in markdown


def test_markdown_escape_keeps_a_table_row_one_row():
    assert markdown_escape("a|b\nc") == "a\\|b c"
    assert markdown_escape("<b>x</b> & `y` _z_") == "&lt;b&gt;x&lt;/b&gt; &amp; \\`y\\` \\_z\\_"


def _findings_inventory(write) -> Path:
    """The lab with gpu01 forwarding between its NICs (a PFC deadlock cycle, LL140) and
    SONiC's ECN preset (Kmin 1 MiB: above T/f on every switch, LL112)."""
    text = LAB.read_text()
    nics = '    nics: {"eth[0:1]": {speed: 400G, model: ConnectX-7, mtu: 9000}}\n'
    old = "  gpu[01:02]:  # NVIDIA ConnectX-7; host settings inherited from the leaf ports\n"
    text = text.replace(old + nics, f"  gpu01:\n    forwards: true\n{nics}  gpu02:\n{nics}")
    text = text.replace("ecn: {preset: nvidia, max_bytes: 500000}", "ecn: {preset: sonic}")
    return write(text, "findings.yaml")


def test_findings_are_grouped_by_severity_and_rule_with_their_lines(tmp_path, write):
    inventory = _findings_inventory(write)
    html, markdown = write_report(inventory, tmp_path / "out")
    code, out = cli("lint", str(inventory), "--format", "json")
    assert code == 1
    found = json.loads(out)
    page = Page(html)
    assert page.data["findings"] == found
    groups = sorted({(f["severity"] != "error", f["rule"]) for f in found})
    assert page.rules == [rule for _, rule in groups]
    assert {"LL140", "LL112"} <= set(page.rules)
    for f in found:
        assert f'<td class="mono">{f["file"]}:{f["line"]}:{f["column"]}</td>' in html
        assert f"| {f['severity']} | {f['rule']} " in markdown
    errors = sum(f["severity"] == "error" for f in found)
    assert f"### Lint: {errors} errors" in markdown
    assert "FAIL" in markdown and '<div class="card bad" data-status="bad">' in html


def test_oversubscription_is_counted_from_each_ports_other_end(tmp_path, write):
    """leaf1: four 100G server ports and one 100G uplink: 400G down, 100G up, 4:1; one listed
    port without a cable counts nowhere. spine1 is the top tier: no uplinks, no ratio."""
    text = MINIMAL.replace("Ethernet[0:4:4]: {speed: 400G}", "Ethernet[0:20:4]: {speed: 100G}")
    text = text.replace("Ethernet1/1: {speed: 400G}", "Ethernet1/1: {speed: 100G}")
    text = text.replace("      eth0: {speed: 400G}\n", "      eth[0:3]: {speed: 100G}\n")
    text = text.replace(
        "  - {a: leaf1:Ethernet0, b: gpu1:eth0, cable_m: 2}\n",
        '  - {a: "leaf1:Ethernet[0:12:4]", b: "gpu1:eth[0:3]", cable_m: 2}\n',
    )
    text = text.replace("leaf1:Ethernet4, b: spine1", "leaf1:Ethernet16, b: spine1")
    html, markdown = write_report(write(text), tmp_path / "out")
    data = Page(html).data
    assert data["devices"]["leaf1"]["bandwidth"] == {
        "down": {"ports": 4, "mbps": 400_000},
        "up": {"ports": 1, "mbps": 100_000},
        "lateral": {"ports": 0, "mbps": 0},
        "oversubscription": 4.0,
    }
    assert data["devices"]["spine1"]["bandwidth"]["oversubscription"] is None
    assert [(t["role"], t["oversubscription"]) for t in data["tiers"]] == [
        ("spine", None),
        ("leaf", 4.0),
    ]
    assert "| leaf | leaf1 | 4 ports, 400G | 1 port, 100G | – | 4:1 |" in markdown
    assert '<td>server – leaf</td><td class="num">100G</td><td class="num">4</td>' in html


def test_the_same_inventory_gives_the_same_bytes(tmp_path):
    first = write_report(LAB, tmp_path / "a")
    assert write_report(LAB, tmp_path / "b") == first
    code, out = cli("report", str(LAB), "-o", str(tmp_path / "a"))
    assert (code, out) == (0, f"0 written, 2 unchanged in {tmp_path / 'a'}\n")


def test_device_option_reports_those_switches(tmp_path, write):
    html, _ = write_report(LAB, tmp_path / "lab", "--device", "leaf1,spine2")
    page = Page(html)
    assert page.sections == ["leaf1", "spine2"]
    assert "2 switches of 6: leaf1, spine2" in html
    assert cli("report", str(LAB), "-o", str(tmp_path / "x"), "--device", "leaf9")[0] == 2
    # findings about those switches and about the whole fabric (the deadlock cycle)
    inventory = _findings_inventory(write)
    page = Page(write_report(inventory, tmp_path / "findings", "--device", "leaf4")[0])
    _, out = cli("lint", str(inventory), "--format", "json")
    kept = [f for f in json.loads(out) if f["device"] in (None, "leaf4")]
    assert page.data["findings"] == kept
    assert {"LL112", "LL140"} <= {f["rule"] for f in kept}
    assert {f["device"] for f in kept} == {None, "leaf4"}


def test_one_switch_of_the_pod_is_linted_with_the_whole_fabric(tmp_path):
    """The deadlock rules need every link: with only leaf01 and its peers planned, routes
    between spines would seem to bounce through leaf01 (LL142)."""
    page = Page(write_report(POD, tmp_path, "--device", "leaf01")[0])
    assert page.sections == ["leaf01"]
    assert page.data["findings"] == []


def test_bad_input_writes_nothing(tmp_path, write):
    broken = write("fabric: {name: t}\ndevices: {leaf1: {role: leaf}}\n")
    assert cli("report", str(broken), "-o", str(tmp_path / "out"))[0] == 2
    assert not (tmp_path / "out").exists()
    blocked = tmp_path / "blocked"
    (blocked / "index.html").mkdir(parents=True)
    assert cli("report", str(LAB), "-o", str(blocked))[0] == 2
    assert sorted(p.name for p in blocked.iterdir()) == ["index.html"]  # no report.md either
    a_file = tmp_path / "file"
    a_file.write_text("x")
    assert cli("report", str(LAB), "-o", str(a_file))[0] == 2


def test_a_headroom_beyond_the_buffer_shows_where_the_buffer_ends():
    bar = charts.stacked_bar([("reserved", 150, ""), ("shared", 0, "")], 100)
    assert [(s.kind, s.width) for s in bar.segments] == [("reserved", 1000.0)]
    assert bar.buffer_at == pytest.approx(666.7)
    fitting = charts.stacked_bar([("reserved", 25, ""), ("shared", 75, "")], 100)
    assert [(s.x, s.width) for s in fitting.segments] == [(0, 250.0), (250.0, 750.0)]
    assert fitting.buffer_at is None


def test_ecn_dots_sit_where_the_threshold_meets_the_trigger_curve(lab):
    """On leaf1 of the lab each ECN threshold's dot lies on the drawn T(n)/f curve
    (interpolated between its samples), at the n the plan says the threshold holds to."""
    _, html, _ = lab
    ecn = plan_json(LAB)["devices"]["leaf1"]["ports"]["Ethernet0"]["ecn"][0]
    section = html[html.index('id="device-leaf1"') : html.index('id="device-leaf2"')]
    curve = re.search(r'<polyline class="trigger" points="([^"]+)"', section)
    assert curve is not None
    xy = [tuple(map(float, p.split(","))) for p in curve.group(1).split()]
    dots = re.findall(r'<circle class="(kmin|kmax)" cx="([0-9.]+)" cy="([0-9.]+)"', section)
    assert sorted(kind for kind, _, _ in dots) == ["kmax", "kmin"]
    for _, x, y in dots:
        (x1, y1), (x2, y2) = next(
            (a, b) for a, b in itertools.pairwise(xy) if a[0] <= float(x) <= b[0]
        )
        assert float(y) == pytest.approx(y1 + (y2 - y1) * (float(x) - x1) / (x2 - x1), abs=1.0)
    for name, size, largest in (
        ("Kmax", ecn["max_bytes"], ecn["largest_pgs_max"]),
        ("Kmin", ecn["min_bytes"], ecn["largest_pgs_min"]),
    ):
        title = f"{name} {charts.si_bytes(size)}: below the PFC trigger up to n = {largest}"
        assert f"<title>{title}</title>" in section


def test_nice_axis_ends():
    assert charts.nice_ceiling(35) == (40, 10)
    assert charts.nice_ceiling(738886) == (800000, 200000)
    assert charts.nice_ceiling(3) == (3, 1)
    assert charts.si_bytes(150000) == "150 kB" and charts.si_bytes(1e7) == "10 MB"


def test_names_are_written_as_inventory_ranges():
    assert name_ranges([f"leaf{i:02}" for i in range(1, 33)]) == ["leaf[01:32]"]
    assert name_ranges([f"Ethernet{i}" for i in range(0, 256, 4)] + ["Ethernet300"]) == [
        "Ethernet[0:252:4]",
        "Ethernet300",
    ]
    assert name_ranges([f"gpu{i:03}:eth0" for i in range(1, 65)]) == ["gpu[001:064]:eth0"]
    assert name_ranges(["Ethernet1/1", "Ethernet1/2", "Ethernet1/31", "spine1"]) == [
        "Ethernet1/[1:2]",
        "Ethernet1/31",
        "spine1",
    ]
    assert name_ranges(["leaf8", "leaf9", "leaf10"]) == ["leaf[8:10]"]
    assert name_ranges(["a1", "a1", "b2"]) == ["a1", "a1", "b2"]


@given(
    st.lists(
        st.builds(
            "{}{}{}".format,
            st.sampled_from(["leaf", "Ethernet1/", "gpu0", "x-"]),
            st.integers(0, 130),
            st.sampled_from(["", ":eth0", "/1"]),
        ),
        max_size=30,
    )
)
def test_name_ranges_expand_back_to_the_names(names):
    assert [n for written in name_ranges(names) for n in ranges.expand(written)] == names


def test_the_markdown_stays_short_enough_for_a_comment(tmp_path, monkeypatch):
    """Identical switches share a line (the pod's 48 switches are 2 lines); past
    MARKDOWN_LINES lines the rest are counted, not listed."""
    _, markdown = write_report(POD, tmp_path / "pod")
    lines = [line for line in markdown.splitlines() if line.startswith("| leaf\\[01:32\\] |")]
    assert len(lines) == 1 and markdown.count("| spine\\[01:16\\] | spine |") == 1
    assert len(markdown) < 5000
    monkeypatch.setattr("lossless.report.view.MARKDOWN_LINES", 2)
    _, markdown = write_report(LAB, tmp_path / "lab")
    assert "| leaf2 |" in markdown and "| leaf3 |" not in markdown
    assert "and 4 more switches: index.html lists every one." in markdown
