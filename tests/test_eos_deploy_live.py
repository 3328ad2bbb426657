"""EOS push post-check through napalm's mock driver (tests/test_deploy_live.py style): a running
config read back after the commit that lacks any setting lossless owns is not confirmed."""

from __future__ import annotations

import pytest
from cli_cases import mock_credentials, push, record_push
from conftest import INVENTORIES, REPO

LAB = str(INVENTORIES / "lab.yaml")
GOLDEN = (REPO / "golden" / "lab" / "spine1.cfg").read_text()

# Each owned setting, removed from the running config (old text -> what is left).
REMOVED = {
    "interface mtu": ("   mtu 9100\n   service-profile", "   service-profile"),
    "service-profile": (
        "   service-profile ROCE_LOSSLESS\n!\ninterface Ethernet2/1",
        "!\ninterface Ethernet2/1",
    ),
    "qos trust": ("   qos trust dscp\n", ""),
    "DSCP map": ("qos map dscp 0 1 2 ", "! qos map dscp 0 1 2 "),
    "TC to queue map": (
        "qos map traffic-class 3 to tx-queue 3",
        "qos map traffic-class 3 to tx-queue 0",
    ),
    "queue scheduling": ("   uc-tx-queue 4\n      no priority\n", "   uc-tx-queue 4\n"),
    "DWRR weight": ("      bandwidth percent 50\n      random-detect", "      random-detect"),
    "ECN": (
        "      random-detect ecn minimum-threshold",
        "      ! random-detect ecn minimum-threshold",
    ),
    "no-drop priority": ("   priority-flow-control priority 3 no-drop\n", ""),
    "PFC on": ("   priority-flow-control on\n", ""),
    "watchdog": ("   priority-flow-control pause watchdog\n", ""),
    "watchdog timer": ("watchdog default timeout 0.2", "watchdog default timeout 0.5"),
    "ECMP hash fields": (
        "fields ip source-ip destination-ip source-port",
        "fields ip source-ip destination-ip",
    ),
}


@pytest.fixture
def mock(tmp_path, monkeypatch):
    mock_credentials(monkeypatch)
    return lambda running: record_push(tmp_path / "mock", "spine1", running, confirm=True)


def _push(run, root):
    return push(run, LAB, "spine1", root)


@pytest.mark.parametrize("setting", sorted(REMOVED))
def test_a_running_config_missing_an_owned_setting_is_not_confirmed(run, mock, setting):
    old, new = REMOVED[setting]
    assert old in GOLDEN, old
    code, device = _push(run, mock(GOLDEN.replace(old, new, 1)))
    assert code == 1, device
    assert device["status"] == "rolled-back", device
    assert device["message"].startswith("post-check failed, not confirmed, rolled back: ")


def test_the_intended_running_config_is_confirmed(run, mock):
    code, device = _push(run, mock(GOLDEN))
    assert code == 0, device
    assert device["message"] == "confirmed after post-check"


def test_a_running_config_with_repeated_sections_is_read_not_crashed(run, mock):
    running = GOLDEN + "interface Ethernet1/1\n   description fabric downlink\n!\n"
    code, device = _push(run, mock(running))
    assert code == 0, device
