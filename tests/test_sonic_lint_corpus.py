"""Linting SONiC config_dbs we did not write, and our own with a setting removed.

tests/configs/sonic/ holds full running config_dbs in the styles switches have: `config save`
output of an SN5600 on the dynamic buffer model (DEVICE_METADATA, lossy PGs and queues, pools,
BGP and other unrelated tables), and a Dell Z9332f (Tomahawk 3) on the traditional model in
the older sonic-cfggen style (comma-joined port keys, "[TABLE|name]" references, Broadcom
profile form). Each is clean or has exactly one defect, with its exit code and the rule and
line of every error it causes."""

from __future__ import annotations

import json
import shutil

import pytest
from cli_cases import names
from conftest import INVENTORIES, REPO

CORPUS = REPO / "tests" / "configs" / "sonic"
LAB = str(INVENTORIES / "lab.yaml")

# file -> (exit code, {(rule, line): text of that line}) for every error finding
EXPECTED = {
    "sn5600-dynamic.json": (0, {}),
    # the hwsku names a Tomahawk 3 (32 x 400G): SONiC's default 1 MiB Kmin is above the
    # 576,378 B a queue holds when PFC fires with all 64 PGs congested
    "z9332f-traditional-legacy-keys.json": (1, {("LL112", 305): '"AZURE_LOSSLESS": {'}),
    # a headroom override on Ethernet24 too small for its 40 m cable
    "sn5600-override-too-small.json": (1, {("LL101", 164): '"xoff": "74752",'}),
    # pfcwd_sw_enable removed from Ethernet8: pfcwdorch watches no priority there
    "sn5600-pfcwd-sw-enable-removed.json": (1, {("LL114", 517): '"Ethernet8": {'}),
    # PFC on the CNP priority of Ethernet16 (which then also lacks ECN on queue 6)
    "sn5600-cnp-paused.json": (
        1,
        {("LL121", 474): '"pfc_enable": "3,6",', ("LL110", 773): '"ROCE_LOSSLESS": {'},
    ),
    # ECMP hash without the UDP source port
    "sn5600-hash-without-l4-source-port.json": (1, {("LL116", 723): '"ecmp_hash": ['}),
    # DEVICE_METADATA without buffer_model: traditional, where NULL means no headroom
    "sn5600-buffer-model-missing.json": (
        1,
        {
            ("LL101", line): f'"{port}|3": {{'
            for port, line in (
                ("Ethernet0", 26),
                ("Ethernet12", 32),
                ("Ethernet16", 38),
                ("Ethernet20", 44),
                ("Ethernet24", 50),
                ("Ethernet28", 56),
                ("Ethernet4", 62),
                ("Ethernet8", 68),
            )
        },
    ),
    # the lossless WRED profile drops instead of marking
    "z9332f-wred-drop-on-lossless.json": (
        1,
        {("LL122", 305): '"AZURE_LOSSLESS": {', ("LL110", 305): '"AZURE_LOSSLESS": {'},
    ),
}


def test_the_corpus_is_complete():
    assert {p.name for p in CORPUS.glob("*.json")} == set(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_corpus_config_alone(run, name):
    code, expected = EXPECTED[name]
    path = CORPUS / name
    result = run("lint", "--config", str(path), "--os", "sonic", "--format", "json")
    assert result.code == code, result.out
    lines = path.read_text().splitlines()
    found = {(f["rule"], f["line"]) for f in json.loads(result.out) if f["severity"] == "error"}
    assert found == set(expected)
    for (_, line), text in expected.items():
        assert lines[line - 1].strip() == text


# -- our own output with one setting removed (lint against the inventory) ---------------------


@pytest.fixture
def configs(tmp_path):
    folder = tmp_path / "configs"
    shutil.copytree(REPO / "golden" / "lab", folder)
    return folder


REMOVED = {
    # what is removed from leaf1.json -> (rule, the text of the line it is reported at)
    "pfc_enable": (
        lambda db: db["PORT_QOS_MAP"]["Ethernet0"].pop("pfc_enable"),
        "LL131",
        '"Ethernet0": {',
    ),
    "wred_profile of the lossless queue": (
        lambda db: db["QUEUE"]["Ethernet248|3"].pop("wred_profile"),
        "LL110",
        '"Ethernet248|3": {',
    ),
    "lossless BUFFER_PG": (
        lambda db: db["BUFFER_PG"].pop("Ethernet4|3"),
        "LL101",
        '"Ethernet4": {',
    ),
    "DSCP 26 from the map": (
        lambda db: db["DSCP_TO_TC_MAP"]["ROCE"].pop("26"),
        "LL108",
        '"ROCE": {',
    ),
    "the CNP queue's scheduler": (
        lambda db: db["QUEUE"].pop("Ethernet0|6"),
        "LL113",
        '"scheduler": "scheduler.default"',
    ),
    "CABLE_LENGTH of a port": (
        lambda db: db["CABLE_LENGTH"]["AZURE"].pop("Ethernet252"),
        "LL200",
        '"Ethernet252": {',
    ),
    "SWITCH_HASH": (lambda db: db.pop("SWITCH_HASH"), "LL200", "{"),
}


@pytest.mark.parametrize("removed", sorted(REMOVED))
def test_a_removed_setting_is_found_at_its_line(run, configs, removed):
    change, rule, text = REMOVED[removed]
    path = configs / "leaf1.json"
    db = json.loads(path.read_text())
    change(db)
    path.write_text(json.dumps(db, indent=4, sort_keys=True) + "\n")
    result = run("lint", LAB, "--configs", str(configs), "--format", "json")
    assert result.code == 1
    lines = path.read_text().splitlines()
    mine = [f for f in json.loads(result.out) if f["file"] == str(path)]
    # (the rule's finding, or the drift it follows from, which names it: cli_cases.names)
    assert any(names(f, rule) and lines[f["line"] - 1].strip() == text for f in mine), mine
    assert any(f["rule"] == "LL200" for f in mine)  # and it is drift from the plan


def test_a_removed_poll_interval_is_sonics_default_and_no_finding(run, configs):
    """PFC_WD|GLOBAL gone: orchagent polls every 100 ms, what the lab plans."""
    path = configs / "leaf1.json"
    db = json.loads(path.read_text())
    db["PFC_WD"].pop("GLOBAL")
    path.write_text(json.dumps(db, indent=4, sort_keys=True) + "\n")
    assert run("lint", LAB, "--configs", str(configs)).code == 0


def test_null_profile_is_not_judged_on_bytes_but_its_cable_length_is(run, configs):
    """profile NULL: the switch computes headroom (no LL101); a CABLE_LENGTH shorter than
    the real cable still makes it compute too little (LL120 at the CABLE_LENGTH line)."""
    path = configs / "leaf1.json"
    db = json.loads(path.read_text())
    db["CABLE_LENGTH"]["AZURE"]["Ethernet248"] = "5m"  # the link is 30 m
    path.write_text(json.dumps(db, indent=4, sort_keys=True) + "\n")
    result = run("lint", LAB, "--configs", str(configs), "--format", "json")
    findings = [f for f in json.loads(result.out) if f["file"] == str(path)]
    assert not [f for f in findings if f["rule"] == "LL101"]
    [cable] = [f for f in findings if f["rule"] == "LL120"]
    assert path.read_text().splitlines()[cable["line"] - 1].strip() == '"Ethernet248": "5m",'
