"""The report's headroom section: the model curve behind the points, and a note that says how
and why the plan stands to a vendor table (docs/headroom.md), not just "vendor table"."""

from __future__ import annotations

import dataclasses
import re

import pytest
from conftest import INVENTORIES

from lossless.inventory import load_inventory
from lossless.plan import HeadroomPlan
from lossless.planner.fabric import plan_fabric
from lossless.report.headroom_curve import headroom_note, model_curves


@pytest.fixture(scope="module")
def lab():
    return plan_fabric(load_inventory(INVENTORIES / "lab.yaml"))


@pytest.mark.parametrize("device", ["leaf1", "leaf4", "spine1"])
def test_every_planned_point_sits_on_its_model_curve(lab, device):
    plan = lab.devices[device]
    curves = model_curves(lab, plan)
    assert curves
    for port in plan.ports.values():
        for headroom in port.headroom:
            at_cable = {model(port.cable_m) for _, model in curves}
            assert headroom.model_xoff in at_cable, (port.name, headroom.model_xoff, at_cable)


def test_a_curve_grows_with_the_cable(lab):
    [(label, model), *_] = model_curves(lab, lab.devices["leaf4"])
    assert "ieee-8021qbb model xoff at 400G" in label
    assert model(0) < model(100) < model(300)


def _headroom(model_xoff: int, table: int | None, model: str = "ieee-8021qbb") -> HeadroomPlan:
    xoff = max(model_xoff, table or 0)
    return HeadroomPlan(
        3, 18288, xoff, xoff, model, "k", model_xoff, table, "row" if table else None
    )


def test_the_note_says_how_far_above_the_table_and_why():
    note = headroom_note(_headroom(585_470, 190_500), 400_000)
    assert note.startswith("model 3.1x the vendor table: it counts the small frames' share")
    assert "100G interface delay above 100G [UNV]" in note
    assert "docs/headroom.md" in note
    at_100g = headroom_note(_headroom(300_000, 190_500), 100_000)
    assert "interface delay" not in at_100g and "1.6x" in at_100g


def test_the_note_for_a_raised_or_equal_plan():
    assert headroom_note(_headroom(150_000, 190_500), 400_000) == (
        "raised to the vendor table (190,500 B; the model gives 150,000 B)"
    )
    assert headroom_note(_headroom(191_000, 190_500), 400_000) == "at the vendor table"
    assert headroom_note(_headroom(191_000, None), 400_000) == ""


def test_the_page_draws_the_curves_and_explains_the_table(run, tmp_path):
    result = run("report", str(INVENTORIES / "lab.yaml"), "-o", str(tmp_path))
    assert result.code == 0, result.err
    page = (tmp_path / "index.html").read_text()
    leaf4 = page[page.index('id="device-leaf4"') :]
    curves = re.findall(r'<polyline class="model" points="([^"]+)"><title>([^<]+)</title>', page)
    assert len(curves) >= 3
    assert all(len(points.split()) == 25 for points, _ in curves)
    assert "ieee-8021qbb model xoff at 400G, 8 lanes" in leaf4
    assert "model 1.4x the vendor table" in leaf4  # issue 39 (3.1x before)
    assert re.search(r'<td class="note">(<span[^>]*>)?vendor table[<;]', page) is None


def test_a_headroom_without_inputs_has_no_curve(lab):
    plan = lab.devices["leaf1"]
    stripped = dataclasses.replace(lab, derivations={})
    assert model_curves(stripped, plan) == []
