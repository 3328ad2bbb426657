"""The rendered NVUE fragment: what it must say to mean the plan on a Cumulus switch, how it
must be applied, and that the template prints exactly the YAML ruamel.yaml would."""

from __future__ import annotations

import io
import json
import sys

import pytest
from conftest import INVENTORIES, REPO
from hypothesis import given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML

from lossless.inventory import load_inventory
from lossless.planner.fabric import plan_fabric
from lossless.vendors.cumulus import render as cumulus_render
from lossless.vendors.rendering import render_device

sys.path.insert(0, str(REPO / "benchmarks"))
sys.path.insert(0, str(REPO / "inventories"))
from bench_cumulus import cumulus_inventory

TRICKY = ["a: b", "true", "it's", "x #y", "é port", "'quoted'", "-dash", "3", "null", "  pad"]


@pytest.fixture(scope="module")
def lab():
    plan = plan_fabric(load_inventory(INVENTORIES / "lab.yaml"))
    return plan, render_device(plan.devices["leaf2"], plan)


def _tree(text):
    return YAML(typ="safe", pure=True).load(text)[0]["set"]


def _ruamel(text: str) -> str:
    """The YAML body as ruamel.yaml dumps the same data (document order, one line per value)."""
    body = text[text.index("- set:") :]
    yaml = YAML(typ="safe", pure=True)
    yaml.default_flow_style = False
    yaml.width = 1 << 20
    yaml.representer.sort_base_mapping_type_on_output = False  # type: ignore[attr-defined]
    stream = io.StringIO()
    yaml.dump(yaml.load(body), stream)
    return stream.getvalue()


def test_the_header_says_it_is_a_fragment_to_merge_with_nv_config_patch(lab):
    _, text = lab
    header = text[: text.index("- set:")]
    assert "nv config patch /home/cumulus/leaf2.yaml" in header
    assert "Never `nv config replace`" in header and "/etc/nvue.d/startup.yaml" in header
    assert "hash-seed restarts switchd" in header


def test_all_64_dscps_8_priorities_and_8_traffic_classes_are_stated(lab):
    plan, text = lab
    device = plan.devices["leaf2"]
    qos = _tree(text)["qos"]
    mapping = qos["mapping"]["default-global"]
    assert mapping["trust"] == "l3"
    assert {int(d): e["switch-priority"] for d, e in mapping["dscp"].items()} == dict(
        device.maps.dscp_to_tc
    )
    queue_map = qos["egress-queue-mapping"]["default-global"]["switch-priority"]
    assert {int(sp): e["traffic-class"] for sp, e in queue_map.items()} == {
        sp: sp for sp in range(8)
    }
    classes = qos["egress-scheduler"]["default-global"]["traffic-class"]
    assert sorted(int(tc) for tc in classes) == list(range(8))
    assert classes["6"] == {"mode": "strict"}
    assert sum(c.get("bw-percent", 0) for c in classes.values()) == 100
    unused = {tc: classes[tc] for tc in ("1", "2", "4", "5", "7")}
    assert all(c == {"bw-percent": 0, "mode": "dwrr"} for c in unused.values())


def test_watchdog_is_enabled_by_state_on_every_lossless_port(lab):
    _, text = lab
    for name, port in _tree(text)["interface"].items():
        assert port["qos"]["pfc-watchdog"] == {"state": "enable"}, name


def test_every_ecmp_hash_field_is_stated(lab):
    _, text = lab
    fields = _tree(text)["system"]["forwarding"]["ecmp-hash"]
    # Cumulus Linux 5.15 words (the default release): enabled/disabled, not on/off
    assert fields["source-port"] == "enabled" and fields["ipv6-label"] == "disabled"
    assert len(fields) == 13 and fields["inner-source-port"] == "disabled"


def test_not_expressed_values_are_listed_with_their_reason(run):
    out = run("plan", str(INVENTORIES / "lab.yaml"), "--device", "leaf2").out
    assert "ECMP resilient hashing (NVUE has no resilient-hashing setting" in out
    assert "ECMP hash offset / rotate (NVUE has no hash offset" in out
    assert "restoration is not configurable" in out


def test_the_template_prints_what_ruamel_yaml_would(lab):
    _, text = lab
    assert text[text.index("- set:") :] == _ruamel(text)


def test_the_template_prints_what_ruamel_yaml_would_on_a_pod(tmp_path):
    path = tmp_path / "pod.yaml"
    path.write_text(cumulus_inventory(2048, 64))
    plan = plan_fabric(load_inventory(path))
    for name in ("leaf01", "spine01"):
        text = render_device(plan.devices[name], plan)
        assert text[text.index("- set:") :] == _ruamel(text), name


def test_descriptions_that_need_quoting_are_quoted_as_ruamel_yaml_quotes_them(tmp_path):
    ports = "".join(
        f"      swp{i + 1}: {{speed: 400G, description: {json.dumps(description)}}}\n"
        for i, description in enumerate(TRICKY)
    )
    path = tmp_path / "inv.yaml"
    path.write_text(
        "fabric:\n  name: t\ndevices:\n  sw1:\n    role: leaf\n    os: cumulus\n"
        f"    asic: spectrum-4\n    ports:\n{ports}"
    )
    plan = plan_fabric(load_inventory(path))
    text = render_device(plan.devices["sw1"], plan)
    assert text[text.index("- set:") :] == _ruamel(text)
    loaded = _tree(text)["interface"]
    assert [loaded[f"swp{i + 1}"]["description"] for i in range(len(TRICKY))] == TRICKY


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="aZ_09./-: #'\"\\é\t", min_size=1, max_size=12))
def test_yaml_text_is_ruamel_yaml_text(value):
    assert cumulus_render.yaml_text(value) == cumulus_render._emitted(value)


def test_rendering_is_deterministic(lab):
    plan, text = lab
    assert render_device(plan.devices["leaf2"], plan) == text


def test_the_readme_excerpt_is_the_golden_file():
    """Every line of the docs' NVUE excerpt is in golden/lab/leaf2.yaml, in the same order."""
    readme = (REPO / "docs" / "rendering.md").read_text()
    start = readme.index("Cumulus Linux 5.x NVUE (`leaf2.yaml`, excerpt)")
    block = readme[
        readme.index("```yaml\n", start) + 8 : readme.index(
            "```", readme.index("```yaml\n", start) + 8
        )
    ]
    golden = (REPO / "golden" / "lab" / "leaf2.yaml").read_text().splitlines()
    position = 0
    for line in block.splitlines():
        if line == "...":
            continue
        position = golden.index(line, position) + 1
