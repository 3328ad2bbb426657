"""NX-OS push post-check through napalm's mock driver (tests/test_deploy_live.py style). The nxos
driver has no commit-confirm: the change is committed, the running config read back, and a
running config that lacks any setting lossless owns fails the post-check and is rolled back."""

from __future__ import annotations

import pytest
from cli_cases import mock_credentials, push, record_push
from conftest import INVENTORIES, REPO

LAB = str(INVENTORIES / "lab.yaml")
GOLDEN = (REPO / "golden" / "lab" / "leaf3.cfg").read_text()
# what `show running-config` adds around our fragment on a real switch
RUNNING_HEAD = (
    "!Command: show running-config\n!Time: Tue Mar 10 14:05:40 2026\n\n"
    "version 10.4(3) Bios:version 01.17\nhostname leaf3\nfeature lldp\nfeature nxapi\n\n"
)

# Each owned setting, removed from the running config (old text -> what is left).
REMOVED = {
    "interface mtu": (
        "  mtu 9100\n  priority-flow-control mode on",
        "  priority-flow-control mode on",
    ),
    "interface classification": (
        "  service-policy type qos input QOS_CLASSIFY\n!\ninterface Ethernet1/2",
        "!\ninterface Ethernet1/2",
    ),
    "CNP class": ("  class CNP\n    set qos-group 7\n", ""),
    "RoCE DSCP": ("  match dscp 26\n", "  match dscp 24\n"),
    "network-qos attachment": ("  service-policy type network-qos QOS_NETWORK\n", ""),
    "no-drop class": ("    pause pfc-cos 3\n", ""),
    "egress attachment": ("  service-policy type queuing output QOS_EGRESS\n", ""),
    "CNP strict priority": ("    priority level 1\n", "    bandwidth remaining percent 0\n"),
    "DWRR weight": ("    bandwidth remaining percent 50\n    random-detect", "    random-detect"),
    "ECN": ("    random-detect minimum-threshold", "    ! random-detect minimum-threshold"),
    "PFC mode": ("  priority-flow-control mode on\n", ""),
    # (the global `watch-dog-interval on` alone is no loss: each lossless port turns it on too)
    "watchdog detection": ("priority-flow-control watch-dog shutdown-multiplier 2\n", ""),
    "watchdog on the port": (
        "  priority-flow-control watch-dog-interval on\n",
        "  priority-flow-control watch-dog-interval off\n",
    ),
    "watchdog multiplier": ("priority-flow-control auto-restore multiplier 2\n", ""),
    "ECMP rotate": ("rotate 2 ", ""),
    "ECMP universal-id": (" universal-id 5696", ""),
    "ECMP L4 ports": ("port source-destination ", ""),
}


@pytest.fixture
def mock(tmp_path, monkeypatch):
    mock_credentials(monkeypatch)
    return lambda running: record_push(tmp_path / "mock", "leaf3", running, confirm=False)


def _push(run, root):
    return push(run, LAB, "leaf3", root)


@pytest.mark.parametrize("setting", sorted(REMOVED))
def test_a_running_config_missing_an_owned_setting_is_rolled_back(run, mock, setting):
    old, new = REMOVED[setting]
    assert old in GOLDEN, old
    code, device = _push(run, mock(RUNNING_HEAD + GOLDEN.replace(old, new, 1)))
    assert code == 1, device
    assert device["status"] == "rolled-back", device
    assert device["message"].startswith("post-check failed, not confirmed, rolled back: ")


def test_the_intended_running_config_passes_the_post_check(run, mock):
    code, device = _push(run, mock(RUNNING_HEAD + GOLDEN))
    assert code == 0, device
    assert device["message"] == "post-check passed"


def test_a_running_config_with_repeated_sections_is_read_not_crashed(run, mock):
    running = RUNNING_HEAD + GOLDEN + "interface Ethernet1/1\n  description GPU NIC\n!\n"
    code, device = _push(run, mock(running))
    assert code == 0, device
