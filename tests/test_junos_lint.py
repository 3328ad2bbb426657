"""Linting the lab's Junos leaf against the inventory with one setting removed: each removal is
a difference (LL200) and, where a rule judges it, that rule's finding, at the statement that
states the setting or at the block that lacks it."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from cli_cases import names
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
        # a link or host rule's finding that leaf4's own drift causes is folded into that
        # LL200 finding, which names it (lint/consequences.py)
        hits = {(f["file"], f["line"]) for f in findings if names(f, rule)}
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
        # a link or host rule's finding that leaf4's own drift causes is folded into that
        # LL200 finding, which names it (lint/consequences.py)
        hits = {(f["file"], f["line"]) for f in findings if names(f, rule)}
        assert (str(path), line) in hits, (rule, line, hits)


def test_the_golden_config_is_clean_against_the_inventory(run):
    """Clean but for what no config can change: the QFX5220 has no PFC watchdog [WDOG], a
    warning (LL114), the same whether the config is the render or was edited (issue 36)."""
    result = run("lint", LAB, "--configs", str(REPO / "golden" / "lab"), "--format", "json")
    assert result.code == 0
    findings = [f for f in json.loads(result.out) if f["device"] == "leaf4"]
    assert [(f["rule"], f["severity"]) for f in findings] == [("LL114", "warning")]
    assert "QFX5220-32CD" in findings[0]["message"]


def _lint_edited(run, configs: Path, old: str, new: str, count: int = 1):
    path = configs / "leaf4.conf"
    text = path.read_text()
    assert text.count(old) >= count
    path.write_text(text.replace(old, new, count))
    result = run("lint", LAB, "--configs", str(configs), "--format", "json")
    return result, [f for f in json.loads(result.out or "[]") if f["device"] == "leaf4"]


def test_dscp_pfc_on_a_code_point_of_a_lossy_class_pauses_nothing(run, configs):
    """Juniper's DSCP-based PFC: a `pfc` DSCP code point pauses on the `pfc-priority` of the
    no-loss class it is classified to ("Configuring DSCP-based PFC for Layer 3 Untagged
    Traffic"). RoCE's 011010 moved out of NO-LOSS (to best-effort, by the default classifier)
    pauses no priority: the port is lossy, not lossless on best-effort's queue 0 (issue 36)."""
    result, findings = _lint_edited(
        run,
        configs,
        "loss-priority low code-points 011010;",
        "loss-priority low code-points 011011;",
    )
    assert result.code == 1
    messages = [f["message"] for f in findings]
    assert not [m for m in messages if "PFC priorities is 0 " in m or "queue 0 has no ECN" in m]
    assert not [m for m in messages if "priority 0" in m], messages
    # the file states NO-LOSS's queue and priority 3's flow-control queue: not "not set"; the
    # RoCE class finding is the DSCP map's (one cause, one finding)
    assert not [m for m in messages if "not set in the config" in m], messages
    assert not [m for m in messages if m.startswith("DSCP to traffic-class map")], messages
    assert len([m for m in messages if m.startswith("RoCE class is DSCP 26 in TC 0")]) == 1
    lost = [m for m in messages if m.startswith("PFC priorities is none in the config, 3 in")]
    assert len(lost) == 4, messages  # one per port, naming what it takes with it


def test_a_port_without_a_classifier_classifies_by_the_default_one(run, configs):
    """A unit that applies no DSCP classifier uses Junos's default classifier [DEFAULTS]:
    RoCE's DSCP 26 is best-effort there, whatever the other ports' classifier says."""
    block = (
        "            unit 0 {\n                classifiers {\n                    dscp ROCE_DSCP;\n"
    )
    result, findings = _lint_edited(
        run, configs, block, "            unit 0 {\n                classifiers {\n"
    )
    assert result.code == 1
    assert any(f["rule"] == "LL200" and f["port"] == "et-0/0/0" for f in findings), findings


@pytest.mark.parametrize(
    ("old", "new", "words", "at"),
    [
        ("011011 011100", "111011 222222", "`222222` is not a DSCP code point", "111011 222222"),
        (
            "code-point 011 {\n                        flow",
            "code-point 31 {\n                        flow",
            "`31` is not an IEEE 802.1 code point",
            "code-point 31 {",
        ),
        (
            "            output {\n                ieee-802.1 {",
            "            output {\n                ieee-1604.1 {",
            "`output ieee-1604.1` is not a congestion-notification-profile statement",
            "ieee-1604.1 {",
        ),
    ],
)
def test_a_code_point_or_profile_statement_junos_does_not_have_is_refused(
    run, configs, old, new, words, at
):
    """Junos rejects these at commit; lossless refuses them (exit 2) at their line rather
    than leave the code point out of the class (issue 36: a line it does not understand in a
    section it owns is reported, never dropped)."""
    result, _ = _lint_edited(run, configs, old, new)
    assert result.code == 2, result.out + result.err
    edited = (configs / "leaf4.conf").read_text()
    line = _line(edited, at)
    assert f"leaf4.conf:{line}:" in result.err and words in result.err, result.err


@pytest.mark.parametrize(
    ("old", "new", "words", "at"),
    [
        (
            "drop-probability [ 0 100 ];",
            "drop-probability [ 1 100 ];",
            "marks 1 % already at its first fill level",
            "drop-probability [ 1 100 ];",
        ),
        (
            "                drop-probability [ 0 100 ];\n",
            "",
            "marks ECN but states no drop-probability",
            "fill-level [ 15 51 ];",
        ),
    ],
)
def test_an_ecn_curve_that_is_not_reds_ramp_is_refused_at_its_line(
    run, configs, old, new, words, at
):
    """ECN is read as RED's ramp from 0 % at the first fill level (Kmin) to Pmax at the
    last: a curve starting above 0 %, or without probabilities, is not compared with the
    plan, so it is refused at its line rather than read as the plan's (issue 36's read-back
    harness found both passing)."""
    result, _ = _lint_edited(run, configs, old, new)
    assert result.code == 2, result.out + result.err
    edited = (configs / "leaf4.conf").read_text()
    assert f"leaf4.conf:{_line(edited, at)}:" in result.err and words in result.err, result.err


_ET1_CLASSIFIER = (
    "        et-0/0/1 {\n"
    "            congestion-notification-profile ROCE_PFC_1M;\n"
    "            scheduler-map ROCE_SM;\n"
    "            unit 0 {"
)


def test_a_classifier_on_a_unit_the_config_does_not_define_is_refused(run, configs):
    """A DSCP classifier classifies its logical unit. On unit 1, with no `interfaces
    et-0/0/1 unit 1` in the file, which unit carries the port's traffic is not known (unit 0
    would take the default classifier): refused at its line, not read as the port's (the
    read-back harness found it passing)."""
    result, _ = _lint_edited(run, configs, _ET1_CLASSIFIER, _ET1_CLASSIFIER[:-3] + "1 {")
    assert result.code == 2, result.out + result.err
    edited = (configs / "leaf4.conf").read_text()
    line = _line(edited, ("dscp ROCE_DSCP;", _ET1_CLASSIFIER[:-3] + "1 {"))
    assert f"leaf4.conf:{line}:" in result.err, result.err
    assert "unit 1, a logical unit the config does not define on et-0/0/1" in result.err


def test_a_classifier_on_a_unit_the_config_defines_is_the_ports(run, configs):
    path = configs / "leaf4.conf"
    text = path.read_text()
    before = run("lint", LAB, "--configs", str(configs), "--format", "json")
    unit_1 = '        description "GPU NIC";\n        mtu 9114;\n        unit 1 {\n'
    unit_1 += "            family inet;\n        }\n    }\n    et-0/0/30"
    text = text.replace(
        '        description "GPU NIC";\n        mtu 9114;\n    }\n    et-0/0/30', unit_1
    )
    path.write_text(text.replace(_ET1_CLASSIFIER, _ET1_CLASSIFIER[:-3] + "1 {"))
    after = run("lint", LAB, "--configs", str(configs), "--format", "json")
    assert after.code == before.code, after.err
    said = [(f["rule"], f["message"]) for f in json.loads(after.out or "[]")]
    assert said == [(f["rule"], f["message"]) for f in json.loads(before.out or "[]")]


def test_a_profile_of_few_ports_that_pauses_another_queue_is_an_error(run, configs):
    """The 90 m uplink's profile alone pauses queue 5 for priority 3, whose class NO-LOSS is
    queued in 4: the switch sends pause on 3 and honours it on another queue (issue 36). The
    switch-wide map is read from that profile, at its line, not from the majority's."""
    text = (configs / "leaf4.conf").read_text()
    anchor = text.index("ROCE_PFC_90M {")
    at = text.index("flow-control-queue 4;", anchor)
    (configs / "leaf4.conf").write_text(text[:at] + "flow-control-queue 5;" + text[at + 21 :])
    result = run("lint", LAB, "--configs", str(configs), "--format", "json")
    assert result.code == 1, result.out
    findings = [f for f in json.loads(result.out) if f["device"] == "leaf4"]
    line = text[:at].count("\n") + 1
    assert any(f["rule"] == "LL124" and f["line"] == line for f in findings), findings


def test_a_hash_key_without_layer_3_hashes_no_l4_ports(run, configs):
    """`hash-key family inet` without layer-3 is removed by Junos, which then hashes as if
    layer-3 alone were given: not RoCE's UDP source port (Juniper, family inet (Forwarding
    Options Hash Key))."""
    result, findings = _lint_edited(
        run, configs, "            layer-3;\n            layer-4;\n", "            layer-4;\n"
    )
    assert result.code == 1, result.out
    assert any(f["rule"] == "LL116" or "hash" in f["message"].lower() for f in findings), findings
