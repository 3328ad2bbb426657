"""Linting the lab's Junos leaf against the inventory with one setting removed: each removal is
a difference (LL200) and, where a rule judges it, that rule's finding, at the statement that
states the setting or at the block that lacks it."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from conftest import INVENTORIES, REPO

LAB = str(INVENTORIES / "lab.yaml")
WATCHDOG = (
    "            pfc-watchdog {\n                poll-interval 100;\n"
    "                detection 2;\n                recovery 200;\n            }\n"
)
OUTPUT = (
    "            output {\n                ieee-802.1 {\n                    code-point 011 {\n"
    "                        flow-control-queue 4;\n                    }\n                }\n"
    "            }\n"
)
# the shared-buffer block as rendered (its percents follow the plan's headroom)
_GOLDEN_TEXT = (REPO / "golden" / "lab" / "leaf4.conf").read_text()
SHARED_BUFFER = re.search(r"    shared-buffer \{\n.*?\n    \}\n", _GOLDEN_TEXT, re.S).group(0)

# name -> (text removed from golden leaf4.conf (every occurrence), {rule: line of the text the
# finding points at, first occurrence after the optional anchor}). The lab's leaf4 is a
# QFX5220, which has no PFC watchdog (render.WATCHDOG_PLATFORMS): the watchdog is removed from
# a QFX5240 leaf4 instead (REMOVED_QFX5240, qfx5240_lab).
REMOVED = {
    "ecn": (
        "            explicit-congestion-notification;\n",
        {"LL122": "drop-profile-map loss-priority any", "LL110": "        S_ROCE {"},
    ),
    "strict-high": ("            priority strict-high;\n", {"LL113": "        S_CNP {"}),
    "cnp-rate": (
        "            transmit-rate percent 5;\n            priority",
        {"LL200": "strict-high"},
    ),
    "flow-control-queue": (OUTPUT, {"LL110": "        ROCE_PFC_1M {"}),
    "pfc-profile": (
        "            congestion-notification-profile ROCE_PFC_1M;\n",
        {"LL131": ("        et-0/0/0 {", "class-of-service {")},
    ),
    "classifier": (
        "                classifiers {\n                    dscp ROCE_DSCP;\n                }\n",
        {"LL105": ("        et-0/0/30 {", "class-of-service {")},
    ),
    "mtu": (
        '        description "GPU NIC";\n        mtu 9114;\n',
        {"LL109": "    et-0/0/0 {", "LL118": "    et-0/0/0 {"},
    ),
    "cable-length": ("                cable-length 1;\n", {"LL200": "        ROCE_PFC_1M {"}),
    "network-control": (
        "            forwarding-class network-control scheduler S_NC;\n",
        {"LL200": "priority strict-high"},
    ),
    "hash-seed": (
        "        hash-seed {\n            seed-value 5091;\n        }\n",
        {"LL200": "enhanced-hash-key {"},
    ),
    "layer-4": ("            layer-4;\n", {"LL116": "layer-3;"}),
    "shared-buffer": (SHARED_BUFFER, {"LL200": "class-of-service {"}),
}


# removed from leaf4 rendered as a QFX5240-64OD (qfx5240_lab), as REMOVED
REMOVED_QFX5240 = {"watchdog": (WATCHDOG, {"LL114": "        ROCE_PFC_1M {"})}


def qfx5240_lab(run, folder: Path) -> tuple[str, Path]:
    """The lab inventory with leaf4 a QFX5240-64OD (Tomahawk 5), a platform Juniper documents
    the PFC watchdog on ("PFC Watchdog", AI-ML Data Center Feature Guide, Junos OS Evolved
    23.4R2 and later), and its configs rendered: (inventory, configs folder)."""
    text = (INVENTORIES / "lab.yaml").read_text()
    old = "asic: tomahawk-3\n    platform: QFX5220-32CD"
    assert old in text
    folder.mkdir(parents=True, exist_ok=True)
    inventory = folder / "lab.yaml"
    inventory.write_text(text.replace(old, "asic: tomahawk-5\n    platform: QFX5240-64OD"))
    configs = folder / "configs"
    assert run("render", str(inventory), "-o", str(configs)).code == 0
    assert WATCHDOG in (configs / "leaf4.conf").read_text()
    return str(inventory), configs


@pytest.fixture
def configs(tmp_path):
    folder = tmp_path / "configs"
    shutil.copytree(REPO / "golden" / "lab", folder)
    return folder


def _line(text: str, needle: str | tuple[str, str]) -> int:
    """1-based line of the needle's last line; (needle, anchor): the needle inside anchor."""
    needle, anchor = needle if isinstance(needle, tuple) else (needle, "")
    offset = text.index(needle, text.index(anchor) if anchor else 0)
    return text[:offset].count("\n") + 1 + needle.count("\n")


@pytest.mark.parametrize("name", sorted(REMOVED))
def test_a_removed_setting_is_a_finding_at_its_line(run, configs, name):
    removed, expected = REMOVED[name]
    path = configs / "leaf4.conf"
    text = path.read_text()
    assert removed in text
    edited = text.replace(removed, "" if not removed.endswith("priority") else "priority")
    path.write_text(edited)
    result = run("lint", LAB, "--configs", str(configs), "--format", "json")
    assert result.code == 1, result.out + result.err
    findings = [f for f in json.loads(result.out) if f["device"] == "leaf4"]
    assert any(f["rule"] == "LL200" for f in findings), findings
    for rule, needle in expected.items():
        line = _line(edited, needle)
        hits = {(f["file"], f["line"]) for f in findings if f["rule"] == rule}
        assert (str(path), line) in hits, (rule, line, hits)


@pytest.mark.parametrize("name", sorted(REMOVED_QFX5240))
def test_a_removed_setting_of_a_qfx5240_is_a_finding_at_its_line(run, tmp_path, name):
    removed, expected = REMOVED_QFX5240[name]
    inventory, configs = qfx5240_lab(run, tmp_path / "qfx5240")
    path = configs / "leaf4.conf"
    edited = path.read_text().replace(removed, "")
    path.write_text(edited)
    result = run("lint", inventory, "--configs", str(configs), "--format", "json")
    assert result.code == 1, result.out + result.err
    findings = [f for f in json.loads(result.out) if f["device"] == "leaf4"]
    assert any(f["rule"] == "LL200" for f in findings), findings
    for rule, needle in expected.items():
        line = _line(edited, needle)
        hits = {(f["file"], f["line"]) for f in findings if f["rule"] == rule}
        assert (str(path), line) in hits, (rule, line, hits)


def test_the_golden_config_is_clean_against_the_inventory(run):
    result = run("lint", LAB, "--configs", str(REPO / "golden" / "lab"), "--format", "json")
    assert result.code == 0
    assert [f for f in json.loads(result.out) if f["device"] == "leaf4"] == []
