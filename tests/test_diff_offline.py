"""Offline diff against running-config backups: for every OS, a backup with a changed ECN
threshold, a missing PFC priority and unrelated config gives exactly the expected change, and
nothing for the unrelated part."""

from __future__ import annotations

import json
import shutil

import pytest
from conftest import INVENTORIES, REPO

LAB = str(INVENTORIES / "lab.yaml")
GOLDEN = REPO / "golden" / "lab"


@pytest.fixture
def backups(tmp_path):
    folder = tmp_path / "oxidized"
    shutil.copytree(GOLDEN, folder)
    (folder / "README.md").unlink(missing_ok=True)
    return folder


def _diff(run, folder, device):
    result = run("diff", LAB, "--running", str(folder), "--device", device, "--format", "json")
    assert result.code == 0, result.err
    [entry] = json.loads(result.out)["devices"]
    return entry


def _edit(path, *replacements):
    text = path.read_text()
    for old, new in replacements:
        assert old in text, old
        text = text.replace(old, new, 1)
    path.write_text(text)


def test_backups_equal_to_the_intent_give_no_change(run):
    result = run("diff", LAB, "--running", str(GOLDEN), "--exit-code")
    assert result.code == 0
    assert result.out.splitlines()[-1] == (
        "summary: 0 changed, 6 unchanged, 0 missing backup; 0 disruptive changes"
    )


def test_eos(run, backups):
    _edit(
        backups / "spine1.cfg",
        ("maximum-threshold 500 kbytes", "maximum-threshold 3000 kbytes"),
        ("   priority-flow-control priority 3 no-drop\n", ""),
        (
            "interface Ethernet1/1\n",
            "interface Ethernet1/1\n   no switchport\n   ip address 10.0.0.1/31\n",
        ),
    )
    (backups / "spine1.cfg").write_text(
        (backups / "spine1.cfg").read_text()
        + "router bgp 65001\n   neighbor 10.0.0.0 remote-as 65000\n!\n"
    )
    entry = _diff(run, backups, "spine1")
    assert entry["kind"] == "remediation"
    assert entry["changes"] == [
        "qos profile ROCE_LOSSLESS",
        "  uc-tx-queue 3",
        "    no random-detect ecn minimum-threshold 150 kbytes maximum-threshold 3000 kbytes "
        "max-mark-probability 100 weight 0",
        "    random-detect ecn minimum-threshold 150 kbytes maximum-threshold 500 kbytes "
        "max-mark-probability 100 weight 0",
        "  priority-flow-control priority 3 no-drop",
    ]


def test_nxos(run, backups):
    _edit(
        backups / "leaf3.cfg",
        ("maximum-threshold 500 kbytes", "maximum-threshold 3000 kbytes"),
        ("    pause pfc-cos 3\n", ""),
        (
            "interface Ethernet1/31\n",
            "interface Ethernet1/31\n  no switchport\n  ip address 10.0.0.1/31\n",
        ),
    )
    (backups / "leaf3.cfg").write_text("feature lldp\n" + (backups / "leaf3.cfg").read_text())
    entry = _diff(run, backups, "leaf3")
    assert entry["changes"] == [
        "policy-map type network-qos QOS_NETWORK",
        "  class type network-qos c-8q-nq3",
        "    pause pfc-cos 3",
        "policy-map type queuing QOS_EGRESS",
        "  class type queuing c-out-8q-q3",
        "    no random-detect minimum-threshold 150 kbytes maximum-threshold 3000 kbytes "
        "drop-probability 100 weight 0 ecn",
        "    random-detect minimum-threshold 150 kbytes maximum-threshold 500 kbytes "
        "drop-probability 100 weight 0 ecn",
    ]


def test_junos(run, backups):
    _edit(
        backups / "leaf4.conf",
        ("fill-level [ 15 51 ];", "fill-level [ 5 50 ];"),
        ("class NO-LOSS queue-num 4 no-loss pfc-priority 3;", "class NO-LOSS queue-num 3;"),
        (
            '        description "fabric uplink";\n        mtu 9114;\n',
            '        description "fabric uplink";\n        mtu 9114;\n'
            "        unit 0 {\n            family inet {\n                address 10.0.0.1/31;\n"
            "            }\n        }\n",
        ),
    )
    entry = _diff(run, backups, "leaf4")
    assert entry["kind"] == "set-commands"
    assert entry["changes"] == [
        "delete class-of-service drop-profiles ROCE_ECN interpolate fill-level [ 5 50 ]",
        "delete class-of-service forwarding-classes class NO-LOSS queue-num 3",
        "set class-of-service drop-profiles ROCE_ECN interpolate fill-level [ 15 51 ]",
        "set class-of-service forwarding-classes class NO-LOSS queue-num 4 no-loss pfc-priority 3",
    ]


def test_sonic(run, backups):
    path = backups / "leaf1.json"
    db = json.loads(path.read_text())
    db["WRED_PROFILE"]["ROCE_150000_500000_P100"]["green_max_threshold"] = "3000000"
    db["PORT_QOS_MAP"]["Ethernet248"]["pfc_enable"] = ""
    db["PORT"]["Ethernet0"].update(lanes="0,1,2,3", admin_status="up", alias="etp1")
    db["BGP_NEIGHBOR"] = {"10.0.0.1": {"asn": "65001"}}
    db["WRED_PROFILE"]["AZURE_LOSSLESS"] = {"ecn": "ecn_all"}  # a profile that is not ours
    path.write_text(json.dumps(db, indent=4))
    entry = _diff(run, backups, "leaf1")
    assert entry["kind"] == "json-patch"
    assert sorted(entry["changes"], key=lambda op: op["path"]) == [
        {"op": "replace", "path": "/PORT_QOS_MAP/Ethernet248/pfc_enable", "value": "3"},
        {
            "op": "replace",
            "path": "/WRED_PROFILE/ROCE_150000_500000_P100/green_max_threshold",
            "value": "500000",
        },
    ]


def test_sonic_removes_stale_entries_of_our_ports(run, backups):
    path = backups / "leaf1.json"
    db = json.loads(path.read_text())
    db["QUEUE"]["Ethernet0|4"] = {"scheduler": "scheduler.roce"}  # old second lossless queue
    path.write_text(json.dumps(db, indent=4))
    entry = _diff(run, backups, "leaf1")
    assert entry["changes"] == [{"op": "remove", "path": "/QUEUE/Ethernet0|4"}]


# Cumulus NVUE: tests/test_cumulus_diff.py


def test_missing_backup_and_summary(run, backups):
    (backups / "spine2.json").unlink()
    (backups / "leaf3.cfg").rename(backups / "leaf3")  # Oxidized names files by device
    result = run("diff", LAB, "--running", str(backups))
    assert "spine2 (sonic): no running-config backup" in result.out
    assert f"leaf3 (nxos, remediation, {backups / 'leaf3'}): 0 changes" in result.out
    assert result.out.splitlines()[-1] == (
        "summary: 0 changed, 5 unchanged, 1 missing backup; 0 disruptive changes"
    )


def test_exit_code_flag(run, backups):
    _edit(backups / "spine1.cfg", ("mtu 9100", "mtu 9000"))
    assert run("diff", LAB, "--running", str(backups)).code == 0
    assert run("diff", LAB, "--running", str(backups), "--exit-code").code == 1


def test_unreadable_backup_is_bad_input(run, backups):
    (backups / "leaf1.json").write_text("{not json")
    result = run("diff", LAB, "--running", str(backups))
    assert result.code == 2
    assert f"{backups / 'leaf1.json'}:1:2: not a valid SONiC config: JSONDecodeError" in result.err
