"""Junos push and offline diff: a running config read back after the commit that lacks any
setting lossless owns is not confirmed (napalm's mock driver, as tests/test_deploy_live.py);
the offline diff touches only what lossless owns, whatever the backup's layout."""

from __future__ import annotations

import json

import pytest
from cli_cases import push_alone
from conftest import INVENTORIES, REPO
from test_deploy_live import DIFF, _results, mock  # noqa: F401  (mock is a fixture)
from test_junos_lint import REMOVED, REMOVED_QFX5240, qfx5240_lab

from lossless.vendors.junos import diff as junos_diff
from lossless.vendors.junos.statements import read

LAB = str(INVENTORIES / "lab.yaml")
GOLDEN = REPO / "golden" / "lab" / "leaf4.conf"


def _push(run, mock, running: str, inventory: str = LAB):  # noqa: F811
    root = mock(
        "leaf4",
        load_merge_candidate__1={},
        compare_config__1={"diff": DIFF},
        commit_config__1={},
        rollback__1={},
        confirm_commit__1={},
        get_config__1={"running": running, "startup": "", "candidate": ""},
    )
    result = push_alone(run, inventory, "leaf4", root)
    return result, _results(result)["leaf4"]


@pytest.mark.parametrize("name", sorted(REMOVED))
def test_a_running_config_missing_an_owned_setting_is_not_confirmed(run, mock, name):  # noqa: F811
    removed, _ = REMOVED[name]
    text = GOLDEN.read_text()
    running = text.replace(removed, "priority" if removed.endswith("priority") else "")
    assert running != text
    result, device = _push(run, mock, running)
    assert result.code == 1, result.out
    assert device["status"] == "rolled-back"
    assert device["message"].startswith("post-check failed, not confirmed, rolled back: ")


@pytest.mark.parametrize("name", sorted(REMOVED_QFX5240))
def test_a_qfx5240_running_config_missing_an_owned_setting_is_not_confirmed(
    run,
    mock,  # noqa: F811
    tmp_path,
    name,
):
    """The watchdog is owned where it is rendered: leaf4 as a QFX5240 (the lab's QFX5220 has
    none)."""
    removed, _ = REMOVED_QFX5240[name]
    inventory, configs = qfx5240_lab(run, tmp_path / "qfx5240")
    text = (configs / "leaf4.conf").read_text()
    running = text.replace(removed, "")
    assert running != text
    result, device = _push(run, mock, running, inventory)
    assert result.code == 1, result.out
    assert device["status"] == "rolled-back"
    assert device["message"].startswith("post-check failed, not confirmed, rolled back: ")


def test_a_running_config_in_set_format_with_everything_is_confirmed(run, mock):  # noqa: F811
    """napalm's junos driver may hand back either format; unrelated config is no difference."""
    statements = read(GOLDEN.read_text(), "x").statements
    running = "set system host-name leaf4\n" + "".join(f"set {s.text}\n" for s in statements)
    result, device = _push(run, mock, running)
    assert result.code == 0, result.out
    assert device["message"] == "confirmed after post-check"


def test_a_running_config_of_another_os_is_refused_before_anything_is_loaded(run, mock):  # noqa: F811
    # the push first reads the running config to classify and order the changes: nothing is
    # loaded or committed when it cannot be read
    result, device = _push(run, mock, (REPO / "golden" / "lab" / "spine1.cfg").read_text())
    assert result.code == 1
    assert device["status"] == "failed"
    assert device["message"].startswith("read: ")
    assert "this is not a Junos config" in device["message"]


def test_diff_owns_our_objects_only():
    intended = GOLDEN.read_text()
    running = (
        intended.replace("fill-level [ 15 51 ];", "fill-level [ 5 50 ];")
        .replace(
            "        mtu 9114;\n    }\n    et-0/0/1 {", "        mtu 9000;\n    }\n    et-0/0/1 {"
        )
        .replace("                        flow-control-queue 4;\n", "")
        + "class-of-service {\n    rewrite-rules {\n        dscp OPS {\n"
        "            forwarding-class best-effort {\n                loss-priority low "
        "code-point 000000;\n            }\n        }\n    }\n    interfaces {\n"
        "        et-0/0/0 {\n            rewrite-rules {\n                dscp OPS;\n"
        "            }\n        }\n    }\n    schedulers {\n        OPS-BE {\n"
        "            transmit-rate percent 10;\n        }\n    }\n}\n"
        "forwarding-options {\n    enhanced-hash-key {\n        inet {\n"
        "            no-l4-source-port;\n        }\n    }\n}\n"
        "interfaces {\n    et-0/0/0 {\n        unit 0 {\n            family inet {\n"
        "                address 10.1.0.0/31;\n            }\n        }\n    }\n}\n"
    )
    changes = junos_diff.diff(running, intended)
    cos = "class-of-service "
    assert changes == [
        f"delete {cos}drop-profiles ROCE_ECN interpolate fill-level [ 5 50 ]",
        "delete forwarding-options enhanced-hash-key inet no-l4-source-port",
        f"set {cos}congestion-notification-profile ROCE_PFC_100M output ieee-802.1 "
        "code-point 011 flow-control-queue 4",
        f"set {cos}congestion-notification-profile ROCE_PFC_1M output ieee-802.1 "
        "code-point 011 flow-control-queue 4",
        f"set {cos}congestion-notification-profile ROCE_PFC_90M output ieee-802.1 "
        "code-point 011 flow-control-queue 4",
        f"set {cos}drop-profiles ROCE_ECN interpolate fill-level [ 15 51 ]",
        "set interfaces et-0/0/0 mtu 9114",  # a single-value leaf: set, no delete
    ]


def test_offline_diff_of_a_backup_with_repeated_sections(run, tmp_path):
    backups = tmp_path / "backups"
    backups.mkdir()
    text = GOLDEN.read_text()
    # a running config that states the same section twice, one of them with a stale value
    stale = "interfaces {\n    et-0/0/1 {\n        mtu 9000;\n    }\n}\n"
    (backups / "leaf4.conf").write_text(text + stale)
    result = run("diff", LAB, "--running", str(backups), "--device", "leaf4", "--format", "json")
    assert result.code == 0, result.out + result.err
    entry = next(d for d in json.loads(result.out)["devices"] if d["device"] == "leaf4")
    assert entry["changes"] == ["set interfaces et-0/0/1 mtu 9114"]  # the last block wins
