"""`lossless verify` end to end on the lab's recorded outputs (tests/data/verify): saved
state with and without a baseline, each seeded fault's finding, snapshots, the report
formats, `--live` through napalm's mock driver answering cli() with the recordings, the
collection script, and `push --gate` stopping at a failing wave."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import INVENTORIES, REPO
from verify_recordings import VERIFY_DATA, mock_folder

from lossless.inventory import load_inventory
from lossless.planner.fabric import plan_fabric
from lossless.verify.collect import commands

LAB = str(INVENTORIES / "lab.yaml")
BEFORE, AFTER = VERIFY_DATA / "lab" / "before", VERIFY_DATA / "lab" / "after"
FAULTS = VERIFY_DATA / "lab" / "faults"
PLAN = plan_fabric(load_inventory(LAB), hosts=False)
SECRET = "s3cr3t-Passw0rd!"


def _findings(result) -> list[dict]:
    return json.loads(result.out)


def _subjects(result, messages: bool = False) -> list[tuple]:
    """Each finding's rule, device and port (and message), sorted."""
    return sorted(
        (f["rule"], f["device"], f["port"], f["message"] if messages else "")
        for f in _findings(result)
    )


def _with_fault(tmp_path: Path, fault: str) -> Path:
    """after/ with the fault's files laid over it."""
    state = tmp_path / fault
    shutil.copytree(AFTER, state)
    shutil.copytree(FAULTS / fault, state, dirs_exist_ok=True)
    return state


def _errors(findings: list[dict]) -> set[tuple[str, str, str | None]]:
    return {(f["rule"], f["device"], f["port"]) for f in findings if f["severity"] == "error"}


def test_the_clean_fabric_passes_against_its_baseline(run):
    result = run(
        "verify", LAB, "--state", str(AFTER), "--baseline", str(BEFORE), "--format", "json"
    )
    assert result.code == 0, result.out + result.err
    # what the OSes do not show is said, never judged: warnings only
    assert {f["rule"] for f in _findings(result)} <= {"LL310"}


@pytest.mark.parametrize(
    ("fault", "expected"),
    [
        # PFC off operationally on one end of a link
        ("pfc-off", {("LL301", "leaf2", "swp31"), ("LL301", "spine1", "Ethernet3/1")}),
        # a pause storm the watchdog caught
        ("storm", {("LL304", "leaf1", "Ethernet0"), ("LL304", "leaf3", "Ethernet1/1")}),
        # drops on the lossless queue while ECN marks nothing
        (
            "ecn-absent",
            {("LL302", "spine2", None), ("LL302", "leaf4", None), ("LL302", "spine1", None)},
        ),
    ],
)
def test_each_seeded_fault_gives_its_finding(run, tmp_path, fault, expected):
    state = _with_fault(tmp_path, fault)
    result = run(
        "verify", LAB, "--state", str(state), "--baseline", str(BEFORE), "--format", "json"
    )
    assert result.code == 1, result.out + result.err
    found = _errors(_findings(result))
    for rule, device, port in expected:
        assert any((r, d) == (rule, device) and (port is None or p == port) for r, d, p in found), (
            rule,
            device,
            port,
            found,
        )
    if fault == "ecn-absent":
        messages = [f["message"] for f in _findings(result) if f["rule"] == "LL302"]
        assert all("ECN marked none" in m for m in messages), messages


def test_counters_cleared_between_snapshots_are_judged_from_zero(run, tmp_path):
    state = _with_fault(tmp_path, "reset")
    result = run(
        "verify", LAB, "--state", str(state), "--baseline", str(BEFORE), "--format", "json"
    )
    findings = _findings(result)
    assert {f["device"] for f in findings if f["rule"] == "LL309"} == {"leaf2", "leaf3"}
    assert result.code == 0, [f["message"] for f in findings if f["severity"] == "error"]


def test_a_snapshot_is_a_baseline(run, tmp_path):
    snapshot = tmp_path / "before.json"
    first = run("verify", LAB, "--state", str(BEFORE), "--snapshot", str(snapshot))
    assert snapshot.exists() and "snapshot written" in first.err
    by_folder = run(
        "verify", LAB, "--state", str(AFTER), "--baseline", str(BEFORE), "--format", "json"
    )
    by_snapshot = run(
        "verify", LAB, "--state", str(AFTER), "--baseline", str(snapshot), "--format", "json"
    )
    assert by_snapshot.out == by_folder.out


def test_a_missing_device_folder_is_an_error_naming_it(run, tmp_path):
    state = tmp_path / "state"
    shutil.copytree(AFTER, state)
    shutil.rmtree(state / "leaf4")
    result = run(
        "verify", LAB, "--state", str(state), "--baseline", str(BEFORE), "--format", "json"
    )
    assert result.code == 1
    [unread] = [f for f in _findings(result) if f["severity"] == "error"]
    assert unread["rule"] == "LL310" and unread["device"] == "leaf4"
    assert "not verified: no folder" in unread["message"]


def test_a_junk_output_fails_that_device_only(run, tmp_path):
    state = tmp_path / "state"
    shutil.copytree(AFTER, state)
    [counters] = (state / "spine2").glob("counters.*")
    counters.write_text('{"COUNTERS_PORT_NAME_MAP": {"Ethernet0": ')  # cut short
    result = run(
        "verify", LAB, "--state", str(state), "--baseline", str(BEFORE), "--format", "json"
    )
    assert "Traceback" not in result.err
    errors = [f for f in _findings(result) if f["severity"] == "error"]
    assert [(f["rule"], f["device"]) for f in errors] == [("LL310", "spine2")]
    assert "not what SONiC prints" in errors[0]["message"]


@pytest.mark.parametrize("fmt", ["github", "sarif", "junit", "codeclimate"])
def test_findings_in_every_report_format(run, tmp_path, fmt):
    state = _with_fault(tmp_path, "pfc-off")
    result = run("verify", LAB, "--state", str(state), "--baseline", str(BEFORE), "--format", fmt)
    assert result.code == 1
    assert "LL301" in result.out


def test_usage_errors(run):
    assert run("verify", LAB).code == 2
    assert run("verify", LAB, "--live", "--state", str(AFTER)).code == 2


def test_a_lint_ignore_suppresses_a_state_finding(run, tmp_path, write):
    state = _with_fault(tmp_path, "pfc-off")
    text = (INVENTORIES / "lab.yaml").read_text()
    text = text.replace(
        "      swp[31:32]: {profile: uplink-400g}",
        "      swp31: {profile: uplink-400g, lint_ignore: {LL301: maintenance}}\n"
        "      swp32: {profile: uplink-400g}",
    )
    inventory = write(text)
    result = run(
        "verify", str(inventory), "--state", str(state), "--baseline", str(BEFORE),
        "--format", "json",
    )  # fmt: skip
    assert ("LL301", "leaf2", "swp31") not in _errors(_findings(result))


# -- live, through napalm's mock driver ---------------------------------------------------

LIVE = ("spine1", "leaf3", "leaf4")  # the lab's switches napalm has drivers for


def _mock_state(root: Path, recorded: Path, reading: int, devices=LIVE) -> Path:
    for name in devices:
        mock_folder(recorded / name, root / name / f"state-{reading}", commands(PLAN.devices[name]))
    return root


@pytest.fixture
def credentials(monkeypatch):
    monkeypatch.setenv("LOSSLESS_USERNAME", "netops")
    monkeypatch.setenv("LOSSLESS_PASSWORD", SECRET)


def test_live_verify_reads_the_switches_through_cli(run, tmp_path, credentials):
    root = _mock_state(tmp_path / "mock", AFTER, 0)
    live = run(
        "verify", LAB, "--live", "--device", ",".join(LIVE), "--mock", str(root),
        "--format", "json",
    )  # fmt: skip
    saved = run(
        "verify", LAB, "--state", str(AFTER), "--device", ",".join(LIVE), "--format", "json"
    )
    assert _subjects(live, messages=True) == _subjects(saved, messages=True)
    assert live.code == saved.code


def test_live_verify_of_an_os_without_a_driver_says_how(run, tmp_path, credentials):
    result = run(
        "verify", LAB, "--live", "--device", "leaf1", "--mock", str(tmp_path), "--format", "json"
    )
    assert result.code == 1
    [finding] = _findings(result)
    assert finding["rule"] == "LL310" and "state-script" in finding["message"]


# -- gated push -----------------------------------------------------------------------------

DIFF = "+   mtu 9100\n-   mtu 9000"


def _golden(device: str) -> str:
    [path] = (REPO / "golden" / "lab").glob(f"{device}.*")
    return path.read_text()


def _mock_push(root: Path, device: str, confirm: bool) -> None:
    folder = root / device
    folder.mkdir(parents=True, exist_ok=True)
    responses = {
        "get_config.1": {"running": _golden(device), "startup": "", "candidate": ""},
        "load_merge_candidate.1": {},
        "compare_config.1": {"diff": DIFF},
        "commit_config.1": {},
        "rollback.1": {},
    }
    if confirm:
        responses["confirm_commit.1"] = {}
    for name, value in responses.items():
        (folder / name).write_text(json.dumps(value))


def _gated_push(run, root: Path, *extra: str):
    return run(
        "push", LAB, "--device", "spine1,leaf3", "--commit", "--split-links", "--wave", "1",
        "--gate", "--settle", "0", "--mock", str(root), "--format", "json", *extra,
    )  # fmt: skip


def _first_wave(result) -> str:
    return json.loads(result.out)["order"]["batches"][0][0]


def test_a_gated_push_goes_on_while_the_waves_verify(run, tmp_path, credentials):
    root = tmp_path / "mock"
    _mock_push(root, "spine1", confirm=True)
    _mock_push(root, "leaf3", confirm=False)
    _mock_state(root, BEFORE, 0, ("spine1", "leaf3"))
    for reading in (1, 2):
        _mock_state(root, AFTER, reading, ("spine1", "leaf3"))
    result = _gated_push(run, root)
    assert result.code == 0, result.out + result.err
    order = json.loads(result.out)["order"]
    assert [g["passed"] for g in order["gates"]] == [True, True]
    assert len(order["gates"][1]["devices"]) == 2  # every device changed so far


def test_a_failing_gate_stops_the_rollout_and_says_how_to_roll_back(run, tmp_path, credentials):
    root = tmp_path / "mock"
    _mock_push(root, "spine1", confirm=True)
    _mock_push(root, "leaf3", confirm=False)
    _mock_state(root, BEFORE, 0, ("spine1", "leaf3"))
    storm = _with_fault(tmp_path, "storm")
    _mock_state(root, storm, 1, ("spine1", "leaf3"))
    result = _gated_push(run, root)
    assert result.code == 1
    data = json.loads(result.out)
    first = _first_wave(result)
    second = ({"spine1", "leaf3"} - {first}).pop()
    [gate] = data["order"]["gates"]
    assert gate["passed"] is False and gate["devices"] == [first]
    assert {e["rule"] for e in gate["errors"]} == {"LL304"}
    devices = {d["device"]: d for d in data["devices"]}
    assert devices[first]["status"] == "changed"
    assert devices[second]["status"] == "skipped"
    assert "gate after an earlier wave failed" in devices[second]["message"]
    assert any("rollback()" in line for line in data["order"]["rollback"])
    text = _gated_push(run, root, "--format", "text")
    assert "gate after wave 1" in text.out and "FAILED" in text.out


def test_a_failing_gate_can_roll_back(run, tmp_path, credentials):
    root = tmp_path / "mock"
    _mock_push(root, "spine1", confirm=True)
    _mock_push(root, "leaf3", confirm=False)
    _mock_state(root, BEFORE, 0, ("spine1", "leaf3"))
    _mock_state(root, _with_fault(tmp_path, "storm"), 1, ("spine1", "leaf3"))
    result = _gated_push(run, root, "--rollback-on-gate-failure")
    assert result.code == 1
    devices = {d["device"]: d for d in json.loads(result.out)["devices"]}
    assert devices[_first_wave(result)]["status"] == "rolled-back"


def test_the_gate_needs_a_baseline_of_every_device(run, tmp_path, credentials):
    root = tmp_path / "mock"
    _mock_push(root, "spine1", confirm=True)
    _mock_push(root, "leaf3", confirm=False)
    _mock_state(root, BEFORE, 0, ("spine1",))  # leaf3 answers no show command
    result = _gated_push(run, root)
    assert result.code == 1
    devices = json.loads(result.out)["devices"]
    assert {d["status"] for d in devices} == {"skipped"}
    assert "the gate needs every device's state" in devices[0]["message"]


def test_gate_usage(run, tmp_path):
    assert run("push", LAB, "--device", "spine1", "--gate").code == 2  # no --commit
    assert run("push", LAB, "--device", "spine1", "--wave", "0").code == 2
    assert run("push", LAB, "--device", "spine1", "--wave", "150%").code == 2


# -- the collection script ------------------------------------------------------------------


def test_the_collection_script_saves_what_verify_reads(run, tmp_path):
    script = tmp_path / "collect.sh"
    result = run("export", "state-script", LAB, "-o", str(script))
    assert result.code == 0, result.err
    text = script.read_text()
    subprocess.run(["bash", "-n", str(script)], check=True)
    for device in PLAN.devices.values():
        for command in commands(device).values():
            assert command.replace("'", "'\"'\"'") in text, command
    # a fake ssh answering from the recordings: the folder it makes verifies like after/
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "ssh").write_text(
        "#!/usr/bin/env bash\n"
        "# the last two words: HOST and COMMAND; answer from $RECORDED/<device>/<stem>.*\n"
        'host="${@: -2:1}"; command="${@: -1}"\n'
        'device=$(grep -l "^$host$" "$RECORDED"/*/address | head -1 | xargs dirname)\n'
        'stem=$(grep -Fxl -- "$command" "$device"/*.command | head -1)\n'
        '[ -n "$stem" ] || exit 255\n'
        'cat "${stem%.command}".rec\n'
    )
    (fake / "ssh").chmod(0o755)
    recorded = tmp_path / "recorded"
    for name, device in PLAN.devices.items():
        folder = recorded / name
        folder.mkdir(parents=True)
        (folder / "address").write_text(f"{device.mgmt}\n")
        for index, (stem, command) in enumerate(commands(device).items()):
            [source] = list((AFTER / name).glob(f"{stem}.*"))
            (folder / f"{index}.command").write_text(command + "\n")
            shutil.copyfile(source, folder / f"{index}.rec")
    env = {"PATH": f"{fake}:/usr/bin:/bin", "RECORDED": str(recorded)}
    saved = tmp_path / "saved"
    done = subprocess.run(["bash", str(script), str(saved)], env=env, capture_output=True)
    assert done.returncode == 0, done.stderr
    result = run("verify", LAB, "--state", str(saved), "--format", "json")
    expected = run("verify", LAB, "--state", str(AFTER), "--format", "json")
    assert _subjects(result) == _subjects(expected)
    assert all(
        (saved / name / "collected-at").read_text().strip().isdigit() for name in PLAN.devices
    )
