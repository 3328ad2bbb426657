"""`push --gate` and rolling back, through napalm's mock driver answering with the lab's
recordings (tests/data/verify): what fails a gate beyond verify's errors (state that could
not be read, links down, counters reset), the running configs saved before the push and put
back whole, and a rollout stopped by a failed device."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from conftest import INVENTORIES, REPO
from verify_recordings import VERIFY_DATA, mock_folder, napalm_cli_name

from lossless.inventory import load_inventory
from lossless.planner.fabric import plan_fabric
from lossless.verify.collect import commands

LAB = str(INVENTORIES / "lab.yaml")
BEFORE, AFTER = VERIFY_DATA / "lab" / "before", VERIFY_DATA / "lab" / "after"
FAULTS = VERIFY_DATA / "lab" / "faults"
PLAN = plan_fabric(load_inventory(LAB), hosts=False)
DIFF = "+   mtu 9100\n-   mtu 9000"
COMMIT_ERROR = {"exception": "napalm.base.exceptions.CommitError", "args": ["boom"]}
# a line of the running config lossless does not own: a rollback must put it back
MARK = {"junos": "## Last commit: 2026-11-28 19:00:00 UTC by netops\n"}
CONFIRMS = {"spine1": True, "leaf3": False, "leaf4": True}  # commit-confirm: eos, junos


@pytest.fixture(autouse=True)
def credentials(monkeypatch):
    monkeypatch.setenv("LOSSLESS_USERNAME", "netops")
    monkeypatch.setenv("LOSSLESS_PASSWORD", "s3cr3t-Passw0rd!")


def _golden(device: str) -> str:
    [path] = (REPO / "golden" / "lab").glob(f"{device}.*")
    return path.read_text()


def _running(device: str) -> str:
    """The device's running config before the push: the rendered one and a line of its own."""
    os_name = PLAN.devices[device].os
    return MARK.get(os_name, "! saved before the push\n") + _golden(device)


def _mock_push(root: Path, device: str, **extra: dict) -> None:
    """One device's push session (and a rollback's: load_replace_candidate, commit_config)."""
    folder = root / device
    folder.mkdir(parents=True, exist_ok=True)
    responses = {
        "get_config.1": {"running": _running(device), "startup": "", "candidate": ""},
        "load_merge_candidate.1": {},
        "compare_config.1": {"diff": DIFF},
        "commit_config.1": {},
        "discard_config.1": {},
        "rollback.1": {},
        "load_replace_candidate.1": {},
        **({"confirm_commit.1": {}} if CONFIRMS[device] else {}),
        **extra,
    }
    for name, value in responses.items():
        (folder / name).write_text(json.dumps(value))


def _mock_state(root: Path, recorded: Path, reading: int, devices) -> None:
    for name in devices:
        mock_folder(recorded / name, root / name / f"state-{reading}", commands(PLAN.devices[name]))


def _lab(
    tmp_path: Path, devices=("spine1", "leaf3"), after: Path = AFTER, before: Path = BEFORE
) -> Path:
    """A mock of the devices: push sessions, the baseline (`before`) and `after` for every
    gate."""
    root = tmp_path / "mock"
    for device in devices:
        _mock_push(root, device)
    _mock_state(root, before, 0, devices)
    for reading in (1, 2, 3):
        _mock_state(root, after, reading, devices)
    return root


def _push(run, root: Path, *extra: str, devices=("spine1", "leaf3"), wave: str = "1"):
    return run(
        "push", LAB, "--device", ",".join(devices), "--commit", "--split-links",
        "--wave", wave, "--gate", "--settle", "0", "--mock", str(root), "--format", "json",
        *extra,
    )  # fmt: skip


def _data(result) -> dict:
    return json.loads(result.out)


def _devices(result) -> dict[str, dict]:
    return {d["device"]: d for d in _data(result)["devices"]}


def _edit_json(path: Path, edit) -> None:
    data = json.loads(path.read_text())
    edit(data)
    path.write_text(json.dumps(data))


def _state_copy(tmp_path: Path, name: str, source: Path = AFTER) -> Path:
    state = tmp_path / name
    shutil.copytree(source, state)
    return state


def _gate_rules(result) -> set[tuple[str, str]]:
    return {(e["rule"], e["device"]) for g in _data(result)["order"]["gates"] for e in g["errors"]}


# -- what passes a gate -------------------------------------------------------------------


def test_a_gate_passes_what_each_os_can_never_show(run, tmp_path):
    # EOS and NX-OS cannot say which priorities were paused, Junos which PFC priorities
    # are on: their readers always say so (LL310), and that alone fails no gate
    root = _lab(tmp_path, ("spine1", "leaf3", "leaf4"))
    result = _push(run, root, devices=("spine1", "leaf3", "leaf4"))
    assert result.code == 0, result.out + result.err
    order = _data(result)["order"]
    assert [g["passed"] for g in order["gates"]] == [True, True, True]
    assert order["stopped"] is None and order["rollback"] == []
    assert _data(result)["summary"]["gate_failed"] is False


# -- state that could not be read fails the gate (1) --------------------------------------


def test_a_changed_device_answering_empty_outputs_fails_the_gate(run, tmp_path):
    root = _lab(tmp_path)
    for reading in (1, 2):
        for output in (root / "leaf3" / f"state-{reading}").iterdir():
            output.write_text("{}")
    result = _push(run, root)
    assert result.code == 1
    [gate] = [g for g in _data(result)["order"]["gates"] if "leaf3" in g["devices"]]
    assert gate["passed"] is False
    assert {e["rule"] for e in gate["errors"]} == {"LL310"}
    assert any("no state for" in e["message"] for e in gate["errors"])
    assert _data(result)["order"]["stopped"] == len(_data(result)["order"]["gates"])


def test_a_changed_device_refusing_show_commands_fails_the_gate(run, tmp_path):
    # leaf3 answers one show command of four after the push (the others are refused)
    root = _lab(tmp_path)
    for reading in (1, 2):
        for output in sorted((root / "leaf3" / f"state-{reading}").iterdir())[1:]:
            output.unlink()
    result = _push(run, root)
    assert result.code == 1
    assert ("LL310", "leaf3") in _gate_rules(result)
    assert "gate_failed" in _data(result)["summary"] and _data(result)["summary"]["gate_failed"]


def test_a_baseline_lacking_state_refuses_the_push(run, tmp_path):
    root = _lab(tmp_path)
    for output in (root / "leaf3" / "state-0").iterdir():
        output.write_text("{}")
    result = _push(run, root)
    assert result.code == 1
    assert {d["status"] for d in _data(result)["devices"]} == {"skipped"}
    assert "the gate needs every device's state" in _devices(result)["leaf3"]["message"]
    assert not list(root.glob("lossless-backup-*"))  # nothing changed, nothing saved


# -- links down and counters reset fail the gate (2) --------------------------------------


def _down(data: dict) -> None:
    data["interfaces"]["Ethernet1/1"]["lineProtocolStatus"] = "down"


def _flapped(data: dict) -> None:
    data["interfaces"]["Ethernet1/1"]["interfaceCounters"]["linkStatusChanges"] += 2


@pytest.mark.parametrize("edit", [_down, _flapped])
def test_a_link_down_or_flapped_after_the_push_fails_the_gate(run, tmp_path, edit):
    after = _state_copy(tmp_path, "after")
    _edit_json(after / "spine1" / "interfaces.json", edit)
    result = _push(run, _lab(tmp_path, after=after))
    assert result.code == 1
    assert _gate_rules(result) == {("LL311", "spine1")}


def test_a_link_down_before_the_push_too_fails_no_gate(run, tmp_path):
    after = _state_copy(tmp_path, "after")
    _edit_json(after / "spine1" / "interfaces.json", _down)
    root = _lab(tmp_path, after=after)
    _edit_json(root / "spine1" / "state-0" / _interfaces_file(root), _down)
    result = _push(run, root)
    assert result.code == 0, result.out


def _interfaces_file(root: Path) -> str:
    command = commands(PLAN.devices["spine1"])["interfaces"]
    return napalm_cli_name(command, 1, list(commands(PLAN.devices["spine1"])).index("interfaces"))


def test_counters_reset_after_the_push_fail_the_gate(run, tmp_path):
    after = _state_copy(tmp_path, "reset")
    shutil.copytree(FAULTS / "reset", after, dirs_exist_ok=True)
    result = _push(run, _lab(tmp_path, after=after))
    assert result.code == 1
    assert ("LL309", "leaf3") in _gate_rules(result)


# -- the backup and rolling back (3, 4, 5) ------------------------------------------------


def test_the_running_configs_are_saved_before_the_push(run, tmp_path):
    root = _lab(tmp_path)
    backup = tmp_path / "backup"
    result = _push(run, root, "--backup", str(backup))
    assert result.code == 0, result.out + result.err
    assert (backup / "spine1.cfg").read_text() == _running("spine1")
    assert (backup / "leaf3.cfg").read_text() == _running("leaf3")
    assert _data(result)["order"]["backup"] == str(backup)
    assert str(backup) in result.err


def test_the_default_backup_is_a_new_folder_named_by_the_time(run, tmp_path):
    root = _lab(tmp_path)
    assert _push(run, root).code == 0
    assert _push(run, root).code == 0  # the same second: another folder
    folders = sorted(root.glob("lossless-backup-*"))
    assert len(folders) == 2
    assert all((f / "spine1.cfg").read_text() == _running("spine1") for f in folders)


def test_a_commit_that_fails_still_has_its_backup(run, tmp_path):
    root = _lab(tmp_path)
    _mock_push(root, "spine1", **{"commit_config.1": COMMIT_ERROR})
    _mock_push(root, "leaf3", **{"commit_config.1": COMMIT_ERROR})
    backup = tmp_path / "backup"
    assert _push(run, root, "--backup", str(backup)).code == 1
    assert sorted(p.name for p in backup.iterdir()) == ["leaf3.cfg", "spine1.cfg"]


def test_a_dry_run_saves_nothing(run, tmp_path):
    root = _lab(tmp_path)
    result = run("push", LAB, "--device", "spine1", "--mock", str(root), "--format", "json")
    assert result.code == 0, result.out
    assert not list(root.glob("lossless-backup-*"))
    assert run("push", LAB, "--device", "spine1", "--backup", str(tmp_path / "b")).code == 2


def test_a_backup_folder_that_is_a_symlink_or_holds_a_backup_is_refused(run, tmp_path):
    root = _lab(tmp_path)
    target = tmp_path / "elsewhere"
    target.mkdir()
    (tmp_path / "link").symlink_to(target)
    result = _push(run, root, "--backup", str(tmp_path / "link"))
    assert result.code == 2 and "symlink" in result.err
    earlier = tmp_path / "earlier"
    earlier.mkdir(mode=0o700)
    (earlier / "spine1.cfg").write_text("an earlier push's backup\n")
    result = _push(run, root, "--backup", str(earlier))
    assert result.code == 2 and "spine1.cfg is there already" in result.err
    assert (earlier / "spine1.cfg").read_text() == "an earlier push's backup\n"
    assert not (earlier / "leaf3.cfg").exists()


def _stormed(tmp_path: Path) -> Path:
    root = _lab(tmp_path, ("spine1", "leaf3", "leaf4"))
    storm = _state_copy(tmp_path, "storm")
    shutil.copytree(FAULTS / "storm", storm, dirs_exist_ok=True)
    for reading in (1, 2, 3):
        for device in ("spine1", "leaf3", "leaf4"):
            shutil.rmtree(root / device / f"state-{reading}")
        _mock_state(root, storm, reading, ("spine1", "leaf3", "leaf4"))
    return root


def test_a_failed_gate_says_how_to_put_the_saved_config_back(run, tmp_path):
    root = _stormed(tmp_path)
    backup = tmp_path / "backup"
    result = _push(
        run, root, "--backup", str(backup), devices=("spine1", "leaf3", "leaf4"), wave="3"
    )
    assert result.code == 1
    order = _data(result)["order"]
    assert order["stopped"] == 1 and order["gate_failed"]
    advice = "\n".join(order["rollback"])
    assert order["stop_reason"] == "its gate failed"
    assert (
        f"spine1: {backup / 'spine1.cfg'}" in advice
        and "configure replace flash:spine1.cfg" in advice
    )
    assert f"leaf3: {backup / 'leaf3.cfg'}" in advice and "rollback running-config file" in advice
    assert f"leaf4: {backup / 'leaf4.conf'}" in advice and "load override" in advice
    # napalm's rollback() cannot undo a confirmed push: never advised
    for wrong in ("rollback 1", "flash:rollback-0", "previous inventory", "rollback()"):
        assert wrong not in advice
    text = _push(
        run, root, "--format", "text", "--backup", str(tmp_path / "b2"),
        devices=("spine1", "leaf3", "leaf4"), wave="3",
    )  # fmt: skip
    summary = text.out.strip().splitlines()[-1]
    assert "the rollout stopped at wave 1 (its gate failed)" in summary


def test_rolling_back_puts_the_saved_running_config_back_whole(run, tmp_path, monkeypatch):
    from napalm.base.mock import MockDriver

    replaced: dict[str, str] = {}
    load = MockDriver.load_replace_candidate

    def recording(self, filename=None, config=None):
        replaced[self.hostname] = config
        return load(self, filename=filename, config=config)

    monkeypatch.setattr(MockDriver, "load_replace_candidate", recording)
    monkeypatch.setattr(MockDriver, "rollback", lambda self: pytest.fail("napalm rollback()"))
    root = _stormed(tmp_path)
    result = _push(
        run, root, "--rollback-on-gate-failure", devices=("spine1", "leaf3", "leaf4"), wave="3"
    )
    assert result.code == 1
    devices = _devices(result)
    assert {devices[d]["status"] for d in ("spine1", "leaf3", "leaf4")} == {"rolled-back"}
    assert "rolled back to the running config in" in devices["leaf4"]["message"]
    hosts = {name: PLAN.devices[name].mgmt or name for name in ("spine1", "leaf3", "leaf4")}
    assert replaced == {host: _running(name) for name, host in hosts.items()}
    assert _data(result)["order"]["rollback"] == []  # nothing left to do by hand


def test_a_rollback_that_fails_is_a_failure_with_advice(run, tmp_path):
    root = _stormed(tmp_path)
    (root / "leaf4" / "load_replace_candidate.1").write_text(json.dumps(COMMIT_ERROR))
    result = _push(
        run, root, "--rollback-on-gate-failure", devices=("spine1", "leaf3", "leaf4"), wave="3"
    )
    assert result.code == 1
    devices = _devices(result)
    assert devices["leaf4"]["status"] == "failed" and "roll back" in devices["leaf4"]["message"]
    assert devices["spine1"]["status"] == "rolled-back"
    advice = _data(result)["order"]["rollback"]
    assert any(line.startswith("  leaf4: ") and "load override" in line for line in advice)
    assert not any(line.startswith("  spine1: ") for line in advice)


# -- a failed device stops the rollout (6) ------------------------------------------------


def test_a_device_failing_mid_wave_stops_and_says_how_to_roll_back_the_wave(run, tmp_path):
    root = _lab(tmp_path, ("spine1", "leaf3", "leaf4"))
    _mock_push(root, "leaf4", **{"commit_config.1": COMMIT_ERROR})
    result = _push(run, root, devices=("spine1", "leaf3", "leaf4"), wave="3")
    assert result.code == 1
    data = _data(result)
    devices = _devices(result)
    assert devices["leaf4"]["status"] == "failed"
    assert devices["spine1"]["status"] == devices["leaf3"]["status"] == "changed"
    assert data["order"]["stopped"] == 1 and "leaf4 failed" in data["order"]["stop_reason"]
    # the wave's changed devices were verified, and each has its rollback
    [gate] = data["order"]["gates"]
    assert sorted(gate["devices"]) == ["leaf3", "spine1"]
    advice = data["order"]["rollback"]
    assert {line.split(":")[0].strip() for line in advice[1:]} == {"spine1", "leaf3"}
    assert data["summary"]["stopped"] == 1


def test_a_device_failing_rolls_the_wave_back_when_told(run, tmp_path):
    root = _lab(tmp_path, ("spine1", "leaf3", "leaf4"))
    _mock_push(root, "leaf4", **{"commit_config.1": COMMIT_ERROR})
    result = _push(
        run, root, "--rollback-on-gate-failure", devices=("spine1", "leaf3", "leaf4"), wave="3"
    )
    assert result.code == 1
    devices = _devices(result)
    assert devices["spine1"]["status"] == devices["leaf3"]["status"] == "rolled-back"
    assert devices["leaf4"]["status"] == "failed"


def test_a_batch_failing_without_a_gate_says_how_to_roll_back(run, tmp_path):
    root = _lab(tmp_path, ("spine1", "leaf3", "leaf4"))
    _mock_push(root, "leaf4", **{"commit_config.1": COMMIT_ERROR})
    result = run(
        "push", LAB, "--device", "spine1,leaf3,leaf4", "--commit", "--split-links",
        "--canary", "3", "--mock", str(root), "--format", "json",
    )  # fmt: skip
    assert result.code == 1
    order = _data(result)["order"]
    assert order["stopped"] == 1 and order["gates"] == []
    assert order["stop_reason"] == "leaf4 failed"
    assert order["rollback"][0].startswith("to roll back the 2 devices changed so far")


# -- wave sizes count the devices pushed (8) ----------------------------------------------


def test_wave_percentages_count_the_devices_with_a_driver(run, tmp_path):
    # the lab's 6 switches, 3 of them (spine1, leaf3, leaf4) reachable through napalm:
    # 50 % is 2 devices, not 3
    root = _lab(tmp_path, ("spine1", "leaf3", "leaf4"))
    result = run("push", LAB, "--all", "--wave", "50%", "--mock", str(root), "--format", "json")
    assert result.code == 0, result.out
    assert [len(w) for w in _data(result)["order"]["batches"]] == [2, 1]


# -- a wave never takes a whole tier (7) --------------------------------------------------


def test_a_wave_never_takes_every_switch_of_a_tier():
    from lossless.deploy.order import change_order, link_tiers, wave_batches

    plan = plan_fabric(load_inventory(LAB))
    tiers = link_tiers(plan)
    assert tiers == {
        "leaf": ["leaf1", "leaf2", "leaf3", "leaf4"],
        "spine": ["spine1", "spine2"],
    }
    order = change_order(plan, {name: [] for name in plan.devices})  # nothing to change
    waves = wave_batches(order, [10], tiers)
    assert sorted(d for wave in waves for d in wave) == sorted(plan.devices)
    for wave in waves:
        assert not {"spine1", "spine2"} <= set(wave)
        assert not set(tiers["leaf"]) <= set(wave)
    assert wave_batches(order, [10]) == [list(plan.devices)]  # without tiers: one wave


def test_a_coupled_group_holding_a_tier_is_one_wave_with_a_warning():
    from lossless.deploy.order import (
        COUPLED,
        ChangeOrder,
        Phase,
        batch_lines,
        tier_warnings,
        wave_batches,
    )

    tiers = {"spine": ["spine1", "spine2"]}
    order = ChangeOrder([Phase(1, COUPLED, ["spine1", "spine2", "leaf3"])], [])
    waves = wave_batches(order, [1], tiers)
    assert waves == [["spine1", "spine2", "leaf3"]]
    [warning] = tier_warnings(waves, tiers)
    assert "wave 1 changes every spine at once (spine1, spine2)" in warning
    assert any(
        "warning: wave 1 changes every spine" in line
        for line in batch_lines(waves, 0, 10, [1], tiers)
    )


# -- replacing tests/test_verify_cli.py's gated-push tests that expected napalm rollback() --


def _storm_after_wave_1(tmp_path: Path) -> Path:
    root = _lab(tmp_path)
    storm = _state_copy(tmp_path, "storm")
    shutil.copytree(FAULTS / "storm", storm, dirs_exist_ok=True)
    shutil.rmtree(root / "spine1" / "state-1")
    shutil.rmtree(root / "leaf3" / "state-1")
    _mock_state(root, storm, 1, ("spine1", "leaf3"))
    return root


def test_a_failing_gate_stops_the_rollout_and_says_how_to_roll_back(run, tmp_path):
    root = _storm_after_wave_1(tmp_path)
    result = _push(run, root, "--backup", str(tmp_path / "backup"))
    assert result.code == 1
    data = _data(result)
    first = data["order"]["batches"][0][0]
    second = ({"spine1", "leaf3"} - {first}).pop()
    [gate] = data["order"]["gates"]
    assert gate["passed"] is False and gate["devices"] == [first]
    assert {e["rule"] for e in gate["errors"]} == {"LL304"}
    devices = _devices(result)
    assert devices[first]["status"] == "changed"
    assert devices[second]["status"] == "skipped"
    assert "gate after an earlier wave failed" in devices[second]["message"]
    [_, advice] = data["order"]["rollback"]
    assert advice.startswith(f"  {first}: {tmp_path / 'backup' / first}.")
    text = _push(run, root, "--format", "text")
    assert "gate after wave 1" in text.out and "FAILED" in text.out


def test_a_failing_gate_can_roll_back(run, tmp_path):
    root = _storm_after_wave_1(tmp_path)
    result = _push(run, root, "--rollback-on-gate-failure")
    assert result.code == 1
    devices = _devices(result)
    assert devices[_data(result)["order"]["batches"][0][0]]["status"] == "rolled-back"


def test_the_default_backup_is_the_users_state_folder_never_the_current_one(tmp_path, monkeypatch):
    """A push runs from a fabric repository: running configs (secrets) saved there by default
    would be one `git add -A` from being committed."""
    import argparse

    from lossless.cli.deploy import _backup_folder

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    args = argparse.Namespace(backup=None, mock=None)
    folder = _backup_folder(args)
    assert folder.parent == tmp_path / "state" / "lossless" / "push-backups"
    assert folder.name.startswith("lossless-backup-")
    monkeypatch.delenv("XDG_STATE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert _backup_folder(args).parent == tmp_path / "home" / ".local" / "state" / "lossless" / (
        "push-backups"
    )
    assert _backup_folder(argparse.Namespace(backup=None, mock="m")).parent == Path("m")
    assert _backup_folder(argparse.Namespace(backup="b", mock=None)) == Path("b")


# -- what was there before the push fails no gate ------------------------------------------


def _pfc_off(port: str):
    def edit(data: dict) -> None:
        data["interfaceStatuses"][port].update(
            enabled=False, active=False, priorities=[], watchdogEnabled=False
        )

    return edit


def test_a_push_turning_pfc_on_is_not_refused_for_the_state_pfc_off_leaves_unknown(run, tmp_path):
    # before the push PFC is off on spine1:Ethernet3/1, so its watchdog state is unknown
    # (LL310) and PFC is not operational (LL301): the push that turns it on must go ahead
    before = _state_copy(tmp_path, "before", BEFORE)
    _edit_json(before / "spine1" / "pfc_status.json", _pfc_off("Ethernet3/1"))
    result = _push(run, _lab(tmp_path, ("spine1",), before=before), devices=("spine1",))
    assert result.code == 0, result.out + result.err
    assert _devices(result)["spine1"]["status"] == "changed"
    assert [g["passed"] for g in _data(result)["order"]["gates"]] == [True]


def _port_down_pfc_inactive(state: Path, port: str) -> None:
    """spine1's port (EOS) down, its PFC inactive."""

    def down(data: dict) -> None:
        data["interfaces"][port].update(lineProtocolStatus="down", interfaceStatus="disabled")

    def inactive(data: dict) -> None:
        data["interfaceStatuses"][port]["active"] = False

    _edit_json(state / "spine1" / "interfaces.json", down)
    _edit_json(state / "spine1" / "pfc_status.json", inactive)


def _leaf3_uplink_down_pfc_off(state: Path, port: str) -> None:
    """leaf3's port (NX-OS) down, its PFC operationally off."""

    def down(data: dict) -> None:
        rows = data["TABLE_interface"]["ROW_interface"]
        next(r for r in rows if r["interface"] == port).update(state="down")

    def off(data: dict) -> None:
        rows = data["TABLE_module"]["ROW_module"]["TABLE_pfc_interface"]["ROW_pfc_interface"]
        next(r for r in rows if r["if_name_str"] == port).update(oper="Off")

    _edit_json(state / "leaf3" / "interface.json", down)
    _edit_json(state / "leaf3" / "pfc.json", off)


@pytest.mark.parametrize(
    "devices, edit, port",
    [
        (("spine1",), _port_down_pfc_inactive, "Ethernet4/1"),
        # leaf3 goes first: its gate reads spine1, the link peer LL301 names, unchanged yet
        (("spine1", "leaf3"), _leaf3_uplink_down_pfc_off, "Ethernet1/31"),
    ],
)
def test_a_port_down_with_pfc_inactive_before_and_after_fails_no_gate(
    run, tmp_path, devices, edit, port
):
    # a port down, PFC inactive, before and after: LL301 and LL311 on both sides of the push
    # are not its doing, whether its link peer is changed yet or not
    before = _state_copy(tmp_path, "before", BEFORE)
    after = _state_copy(tmp_path, "after")
    for state in (before, after):
        edit(state, port)
    root = _lab(tmp_path, devices, after=after, before=before)
    result = _push(run, root, devices=devices)
    assert result.code == 0, result.out
    gates = _data(result)["order"]["gates"]
    assert all(g["passed"] for g in gates)
    earlier = {(e["rule"], e["port"]) for g in gates for e in g["present_before"]}
    assert ("LL301", port) in earlier
    text = _push(run, root, "--format", "text", devices=devices)
    assert "passed; present before the push: " in text.out


def test_a_port_down_after_the_push_alone_still_fails_the_gate(run, tmp_path):
    after = _state_copy(tmp_path, "after")
    _port_down_pfc_inactive(after, "Ethernet4/1")
    result = _push(run, _lab(tmp_path, ("spine1",), after=after), devices=("spine1",))
    assert result.code == 1
    [gate] = _data(result)["order"]["gates"]
    assert {(e["rule"], e["port"]) for e in gate["errors"]} >= {
        ("LL301", "Ethernet4/1"),
        ("LL311", "Ethernet4/1"),
    }
    assert gate["present_before"] == []


def test_a_baseline_switch_that_cannot_be_read_refuses_the_push(run, tmp_path):
    root = _lab(tmp_path)
    shutil.rmtree(root / "leaf3" / "state-0")
    result = _push(run, root)
    assert result.code == 1
    assert {d["status"] for d in _data(result)["devices"]} == {"skipped"}
    assert "the gate needs every device's state" in _devices(result)["leaf3"]["message"]


# -- counters the push made appear fail no gate --------------------------------------------


def test_ecn_counters_appearing_with_the_push_fail_no_gate(run, tmp_path):
    # ECN marking is off on spine1's queue 3 before the push ("-"), on after it
    before = _state_copy(tmp_path, "before", BEFORE)

    def no_ecn(data: dict) -> None:
        for port in data["intfQueueCounters"].values():
            port["queueCounters"]["3"] = "-"

    _edit_json(before / "spine1" / "ecn_counters.json", no_ecn)
    result = _push(run, _lab(tmp_path, ("spine1",), before=before), devices=("spine1",))
    assert result.code == 0, result.out


def _lab_snapshot(stage: str, devices):
    from verify_recordings import lab_outputs

    from lossless.verify.collect import snapshot_from_outputs

    answers = {d: {stem: o.text for stem, o in lab_outputs(d, stage).items()} for d in devices}
    return snapshot_from_outputs(PLAN, answers, lambda _: None)


def test_a_baseline_without_the_switch_still_fails_the_gate():
    from lossless.deploy.live import gate_findings
    from lossless.verify.collect import Snapshot

    now = _lab_snapshot("after", ("spine1",))
    verdict = gate_findings(PLAN, now, Snapshot(), ["spine1"])
    assert any(
        f.rule == "LL310" and "the baseline does not cover this switch" in f.message
        for f in verdict.failing
    )
    assert not gate_findings(PLAN, now, _lab_snapshot("before", ("spine1",)), ["spine1"]).failing


# -- link flaps: a port that was down and came up -------------------------------------------


def test_a_port_down_before_the_push_and_up_after_fails_no_gate(run, tmp_path):
    # spine1:Ethernet1/1 down before (3 status changes), up after (4: the one up): EOS
    # counts both directions, and a link that came up is not one the push took down
    before = _state_copy(tmp_path, "before", BEFORE)
    after = _state_copy(tmp_path, "after")

    def down(data: dict) -> None:
        port = data["interfaces"]["Ethernet1/1"]
        port.update(lineProtocolStatus="down", interfaceStatus="notconnect")
        port["interfaceCounters"]["linkStatusChanges"] = 3

    def up(data: dict) -> None:
        data["interfaces"]["Ethernet1/1"]["interfaceCounters"]["linkStatusChanges"] = 4

    _edit_json(before / "spine1" / "interfaces.json", down)
    _edit_json(after / "spine1" / "interfaces.json", up)
    root = _lab(tmp_path, ("spine1",), after=after, before=before)
    result = _push(run, root, devices=("spine1",))
    assert result.code == 0, result.out


def test_a_link_that_went_down_and_up_once_is_one_flap(run, tmp_path):
    after = _state_copy(tmp_path, "after")
    _edit_json(after / "spine1" / "interfaces.json", _flapped)  # linkStatusChanges + 2
    result = _push(run, _lab(tmp_path, after=after))
    [message] = [e["message"] for g in _data(result)["order"]["gates"] for e in g["errors"]]
    assert message.startswith("the link went down and came back ")
    assert message.endswith("(its link state change counter grew by 2)")


# -- a failed restore never shows the device's words ---------------------------------------


def test_a_failed_restore_shows_no_text_of_the_saved_config(run, tmp_path):
    root = _stormed(tmp_path)
    # pyeapi's CommandError quotes the command that failed: a line of the saved config
    refused = {
        "exception": "napalm.base.exceptions.ReplaceConfigException",
        "args": [
            "Error [1002]: CLI command 12 of 412 'snmp-server community Pr1vate-C0mm ro' "
            "failed: invalid command"
        ],
    }
    (root / "spine1" / "load_replace_candidate.1").write_text(json.dumps(refused))
    for fmt in ("json", "text"):
        result = _push(
            run, root, "--rollback-on-gate-failure", "--format", fmt,
            "--backup", str(tmp_path / f"backup-{fmt}"),
            devices=("spine1", "leaf3", "leaf4"), wave="3",
        )  # fmt: skip
        assert result.code == 1
        assert "Pr1vate-C0mm" not in result.out + result.err
    message = _devices(_push(
        run, root, "--rollback-on-gate-failure", devices=("spine1", "leaf3", "leaf4"), wave="3"
    ))["spine1"]["message"]  # fmt: skip
    assert "roll back: ReplaceConfigException" in message


# -- the backup is private -----------------------------------------------------------------


def test_the_backup_files_and_folder_are_private(run, tmp_path):
    import os
    import stat

    root = _lab(tmp_path)
    umask = os.umask(0o022)
    try:
        assert _push(run, root).code == 0
    finally:
        os.umask(umask)
    [folder] = root.glob("lossless-backup-*")
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert {f.name: stat.S_IMODE(f.stat().st_mode) for f in folder.iterdir()} == {
        "spine1.cfg": 0o600,
        "leaf3.cfg": 0o600,
    }


def test_a_backup_folder_others_may_open_is_refused(run, tmp_path):
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o755)
    result = _push(run, _lab(tmp_path), "--backup", str(shared))
    assert result.code == 2 and "chmod 700" in result.err
    assert list(shared.iterdir()) == []
    shared.chmod(0o700)
    assert _push(run, _lab(tmp_path / "again"), "--backup", str(shared)).code == 0


@pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("setpriv") is None,
    reason="needs root (and setpriv) to act as a second user",
)
def test_a_backup_folder_another_user_made_is_refused(run, tmp_path):
    # root pushes with --backup in a shared folder where nobody (uid 65534) made it first,
    # private (0700) and so accepted before: nobody could swap the saved configs the
    # rollback advice tells root to restore
    import subprocess
    import tempfile

    shared = Path(tempfile.mkdtemp(prefix="lossless-shared-", dir="/tmp"))
    try:
        shared.chmod(0o1777)
        planted = shared / "backup"
        nobody = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
        subprocess.run([*nobody, "mkdir", "-m", "700", str(planted)], check=True)
        result = _push(run, _lab(tmp_path), "--backup", str(planted))
        assert result.code == 2, result.out
        assert f"--backup {planted}: belongs to nobody (uid 65534), not to you" in result.err
        assert list(planted.iterdir()) == [] and result.out == ""
    finally:
        shutil.rmtree(shared)


def test_a_backup_folder_of_another_uid_is_refused(run, tmp_path, monkeypatch):
    # the same check where the tests cannot be root: the folder seen from another uid
    backup = tmp_path / "backup"
    backup.mkdir(mode=0o700)
    uid = os.geteuid()
    monkeypatch.setattr(os, "geteuid", lambda: uid + 1)
    result = _push(run, _lab(tmp_path), "--backup", str(backup))
    assert result.code == 2 and f"--backup {backup}: belongs to " in result.err
    assert f"(uid {uid}), not to you" in result.err
    assert list(backup.iterdir()) == []


def test_a_relative_xdg_state_home_is_ignored(tmp_path, monkeypatch):
    import argparse

    from lossless.cli.deploy import _backup_folder

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_STATE_HOME", "state")  # relative: invalid (XDG spec)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    folder = _backup_folder(argparse.Namespace(backup=None, mock=None))
    assert folder.parent == tmp_path / "home" / ".local" / "state" / "lossless" / "push-backups"


# -- batches never take a whole tier either --------------------------------------------------


def test_a_batch_never_takes_every_switch_of_a_tier():
    from lossless.deploy.order import batch_lines, change_order, link_tiers, push_batches

    plan = plan_fabric(load_inventory(LAB))
    tiers = link_tiers(plan)
    order = change_order(plan, {name: [] for name in plan.devices})
    for canary, size in ((0, 10), (6, 10), (1, 10)):
        batches = push_batches(order, canary, size, tiers)
        assert sorted(d for batch in batches for d in batch) == sorted(plan.devices)
        for batch in batches:
            assert not {"spine1", "spine2"} <= set(batch)
            assert not set(tiers["leaf"]) <= set(batch)
    assert push_batches(order, 0, 10) == [list(plan.devices)]  # without tiers: one batch
    assert not any("warning" in line for line in batch_lines(batches, 1, 10, None, tiers))


def test_a_push_without_waves_keeps_a_tier_apart(run, tmp_path, monkeypatch):
    # the lab's tiers hold switches napalm cannot reach (spine2, leaf1, leaf2): here leaf3
    # and leaf4 are a tier of their own, which one batch of 10 would hold whole
    import lossless.deploy.live

    monkeypatch.setattr(
        lossless.deploy.live, "link_tiers", lambda plan: {"leaf": ["leaf3", "leaf4"]}
    )
    root = _lab(tmp_path, ("spine1", "leaf3", "leaf4"))
    result = run(
        "push", LAB, "--device", "spine1,leaf3,leaf4", "--split-links", "--canary", "0",
        "--batch-size", "10", "--mock", str(root), "--format", "json",
    )  # fmt: skip
    assert result.code == 0, result.out
    batches = _data(result)["order"]["batches"]
    assert sorted(d for batch in batches for d in batch) == ["leaf3", "leaf4", "spine1"]
    assert not any({"leaf3", "leaf4"} <= set(batch) for batch in batches)


# -- a commit stands even if closing the connection fails ----------------------------------


def test_a_committed_device_whose_connection_fails_to_close_stays_to_roll_back(
    run, tmp_path, monkeypatch
):
    from napalm.base.mock import MockDriver

    commit = MockDriver.commit_config

    def committing(self, *args, **kwargs):
        self.committed_here = True
        return commit(self, *args, **kwargs)

    def close(self):
        if getattr(self, "committed_here", False):
            raise ConnectionResetError("session closed by the switch")

    monkeypatch.setattr(MockDriver, "commit_config", committing)
    monkeypatch.setattr(MockDriver, "close", close)
    root = _lab(tmp_path, ("spine1", "leaf3", "leaf4"))
    _mock_push(root, "leaf4", **{"commit_config.1": COMMIT_ERROR})
    result = _push(run, root, devices=("spine1", "leaf3", "leaf4"), wave="3")
    assert result.code == 1
    devices = _devices(result)
    assert devices["spine1"]["status"] == "changed"
    assert "closing the connection failed" in devices["spine1"]["message"]
    advice = _data(result)["order"]["rollback"]
    assert {line.split(":")[0].strip() for line in advice[1:]} == {"spine1", "leaf3"}
