"""`lossless plan` as text: plain columns to a pipe or file, rich tables that fit a terminal."""

from __future__ import annotations

import io
import json

from conftest import INVENTORIES
from rich.console import Console

from lossless.inventory import load_inventory
from lossless.planner.fabric import plan_fabric
from lossless.report.plan_compact import expand
from lossless.report.plan_text import COLUMNS, print_plan_rich

LAB = str(INVENTORIES / "lab.yaml")


def test_piped_plan_is_plain_text_in_aligned_columns(run):
    out = run("plan", LAB, "--device", "leaf3").out
    assert not set(out) & set("┃━╇│─"), "no table drawing when piped"
    lines = out.splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("port "))
    assert lines[header].split() == [w for h, _ in COLUMNS for w in h.split()]
    row = lines[header + 3]  # Ethernet1/31, cabled to spine1
    assert row.split()[:3] == ["Ethernet1/31", "spine1:Ethernet3/1", "400G"]
    # right-justified numbers end under the end of their heading
    xoff_end = lines[header].index("xoff") + len("xoff")
    assert row[:xoff_end].endswith("314,880")


def test_a_terminal_of_80_columns_gets_a_table_that_fits_and_says_what_it_left_out():
    plan = plan_fabric(load_inventory(LAB), ["leaf3", "spine1"])
    text = io.StringIO()
    console = Console(file=text, width=80, force_terminal=True, color_system=None)
    print_plan_rich(plan, console)
    lines = text.getvalue().splitlines()
    assert max(len(line) for line in lines) <= 80
    table = [line for line in lines if line.startswith("Ethernet1/31")]
    assert table and "spine1:Ethernet3/1" in table[0] and "314,880" in table[0]
    assert any(line.startswith("(left out at 80 columns: lanes") for line in lines)
    wide = io.StringIO()
    print_plan_rich(plan, Console(file=wide, width=200, force_terminal=True, color_system=None))
    assert "left out" not in wide.getvalue()


def test_a_device_scoped_plan_holds_the_links_and_nics_of_its_devices(run):
    plan = expand(json.loads(run("plan", LAB, "--device", "leaf1", "--format", "json").out))
    assert sorted(plan["nics"]) == ["gpu01:eth0", "gpu02:eth0"]
    assert plan["links"] and all("leaf1:" in link["a"] + link["b"] for link in plan["links"])
    whole = expand(json.loads(run("plan", LAB, "--format", "json").out))
    assert len(whole["nics"]) == 8 and len(whole["links"]) > len(plan["links"])
