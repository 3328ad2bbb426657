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


# A failing gate and its rollback: tests/test_push_gate.py (the pre-change config restored).


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
        'printf "%s\\n" "$*" >>"$RECORDED/calls"\n'
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
    # each switch's commands share one connection, closed when its last command is done
    calls = (recorded / "calls").read_text().splitlines()
    assert calls and all("ControlMaster=auto" in c and "ControlPath=/tmp/" in c for c in calls)
    assert not any(" -O exit " in c for c in calls)  # the fake ssh opened no shared socket
    sockets = {Path(c.split("ControlPath=")[1].split()[0]).parent for c in calls}
    assert len(sockets) == 1 and not sockets.pop().exists()  # removed at exit


# -- what the outputs leave unknown ---------------------------------------------------------


def _verify(run, state: Path, *extra: str):
    """verify --state STATE against before/ (unless extra gives another baseline)."""
    baseline = () if "--baseline" in extra else ("--baseline", str(BEFORE))
    return run("verify", LAB, "--state", str(state), "--format", "json", *baseline, *extra)


def _copy(tmp_path: Path, source: Path = AFTER, name: str = "state") -> Path:
    state = tmp_path / name
    shutil.copytree(source, state)
    return state


def _edit_json(path: Path, edit) -> None:
    data = json.loads(path.read_text())
    edit(data)
    path.write_text(json.dumps(data, indent=2))


def _warnings(result, device: str) -> list[str]:
    return [
        f["message"]
        for f in _findings(result)
        if f["rule"] == "LL310" and f["device"] == device and f["severity"] == "warning"
    ]


def test_a_failed_command_leaves_only_that_command_unchecked(run, tmp_path):
    # what the collection script leaves: <stem>.err for a command that failed, and
    # <stem>.out.part of a run cut short
    state = _copy(tmp_path)
    (state / "spine2" / "counters.json").unlink()
    (state / "spine2" / "counters.err").write_text(
        "\nError: Could not connect to Redis\x1b[31m at /var/run/redis/redis.sock\nmore\n"
    )
    (state / "leaf2" / "link-swp1.json").rename(state / "leaf2" / "link-swp1.out.part")
    result = _verify(run, state)
    assert result.code == 0, result.out + result.err
    assert not [f for f in _findings(result) if "not verified" in f["message"]]
    [counters] = [m for m in _warnings(result, "spine2") if "sonic-db-dump -n COUNTERS_DB" in m]
    assert "not collected" in counters
    assert "it failed: Error: Could not connect to Redis" in counters
    assert "\x1b" not in result.out and "more" not in counters
    assert any("link-swp1" in m and "not collected" in m for m in _warnings(result, "leaf2"))
    # the script's own file name (.out) is read like a recording's (.json)
    (state / "leaf2" / "link-swp1.out.part").rename(state / "leaf2" / "link-swp1.out")
    assert not any("link-swp1" in m for m in _warnings(_verify(run, state), "leaf2"))


def _no_priorities_key(data: dict) -> None:
    data["interfaces"] = data.pop("interfaceStatuses")


def _renamed_pfc_priority(data: dict) -> None:
    data["pfc"]["priorities"] = data["pfc"].pop("pfc-priority")


def _drop_spine1_port(data: dict) -> None:
    del data["interfaceStatuses"]["Ethernet3/1"]


def _drop_queue_of_ethernet0(data: dict) -> None:
    del data["COUNTERS_QUEUE_NAME_MAP"]["value"]["Ethernet0:3"]


def _emptied(data: dict) -> None:
    data.clear()


def _no_junos_ports(data: dict) -> None:
    data["interface-information"][0]["physical-interface"] = []


@pytest.mark.parametrize(
    ("device", "file", "edit", "expected"),
    [
        # a renamed top-level key: every planned port's PFC state unknown
        ("spine1", "pfc_status.json", _no_priorities_key, ["PFC operational priorities of "]),
        # one planned port left out of one output
        (
            "spine1",
            "pfc_status.json",
            _drop_spine1_port,
            ["PFC operational priorities of Ethernet3/1 ", "show priority-flow-control status"],
        ),
        (
            "leaf2",
            "roce-swp1.json",
            _renamed_pfc_priority,
            ["PFC operational priorities of swp1 ", "nv show interface swp1 qos roce status"],
        ),
        (
            "leaf1",
            "counters.json",
            _drop_queue_of_ethernet0,
            ["lossless queue counters of Ethernet0 ", "COUNTERS_DB"],
        ),
        ("leaf3", "pfc_queue.json", _emptied, ["PFC operational priorities of ", "pfc-queue"]),
        ("leaf4", "queues.json", _no_junos_ports, ["lossless queue counters of ", "queue"]),
    ],
)
def test_state_an_output_did_not_show_is_a_warning(run, tmp_path, device, file, edit, expected):
    state = _copy(tmp_path)
    _edit_json(state / device / file, edit)
    result = _verify(run, state)
    found = [m for m in _warnings(result, device) if all(e in m for e in expected)]
    assert len(found) == 1, _warnings(result, device)
    assert str(state / device / file) in found[0]


def test_an_output_not_collected_is_one_warning_not_one_per_port(run, tmp_path):
    state = _copy(tmp_path)
    (state / "spine1" / "pfc_status.json").unlink()
    warnings = _warnings(_verify(run, state), "spine1")
    assert [m for m in warnings if "priority-flow-control status" in m] == [
        "not checked: PFC operational status and watchdog (no output of "
        "`show priority-flow-control status | json`)"
    ]


def test_sonic_pfc_never_configured_on_a_port_is_pfc_off(run, tmp_path):
    state = _copy(tmp_path)
    _edit_json(state / "leaf1" / "port_qos_map.json", lambda d: d.pop("PORT_QOS_MAP|Ethernet248"))
    result = _verify(run, state)
    assert result.code == 1
    [off] = [f for f in _findings(result) if f["rule"] == "LL301"]
    assert (off["device"], off["port"]) == ("leaf1", "Ethernet248")
    assert off["file"].endswith("leaf1/port_qos_map.json")


def test_sonic_watchdog_stopped_on_a_lossless_queue(run, tmp_path):
    state = _copy(tmp_path)

    def stop(data: dict) -> None:
        oid = data["COUNTERS_QUEUE_NAME_MAP"]["value"]["Ethernet0:3"]
        fields = data[f"COUNTERS:{oid}"]["value"]
        for name in [f for f in fields if f.startswith("PFC_WD_")]:
            del fields[name]

    _edit_json(state / "leaf1" / "counters.json", stop)
    result = _verify(run, state)
    assert result.code == 1
    assert ("LL305", "leaf1", "Ethernet0") in _errors(_findings(result))
    [off] = [f for f in _findings(result) if f["rule"] == "LL305"]
    assert off["file"].endswith("leaf1/counters.json") and off["line"] > 1


# -- baselines that do not match ---------------------------------------------------------------


def test_a_counter_the_baseline_lacks_is_not_judged(run, tmp_path):
    baseline = _copy(tmp_path, BEFORE, "before")
    (baseline / "leaf1" / "counters.json").unlink()
    state = _with_fault(tmp_path, "storm")
    result = run(
        "verify", LAB, "--state", str(state), "--baseline", str(baseline), "--format", "json"
    )
    leaf1 = [f for f in _findings(result) if f["device"] == "leaf1"]
    # the storm's count since boot is no count since the baseline
    assert not [f for f in leaf1 if f["rule"] in ("LL302", "LL307", "LL308")], leaf1
    assert all("since the baseline" not in f["message"] for f in leaf1), leaf1
    assert any(
        "the baseline lacks counters shown now on 4 ports" in m for m in _warnings(result, "leaf1")
    )


def test_a_baseline_of_other_switches_covers_nothing(run, tmp_path):
    snapshot = tmp_path / "empty.json"
    run("verify", LAB, "--state", str(BEFORE), "--snapshot", str(snapshot))
    _edit_json(snapshot, lambda d: d["devices"].clear())
    result = run(
        "verify", LAB, "--state", str(AFTER), "--baseline", str(snapshot), "--format", "json"
    )
    for device in PLAN.devices:
        assert any("does not cover this switch" in m for m in _warnings(result, device)), device
    assert not [f for f in _findings(result) if "since the baseline" in f["message"]]


def test_a_baseline_of_another_os_is_bad_input(run, tmp_path):
    snapshot = tmp_path / "before.json"
    run("verify", LAB, "--state", str(BEFORE), "--snapshot", str(snapshot))
    _edit_json(snapshot, lambda d: d["devices"]["leaf1"].update(os="eos"))
    result = run("verify", LAB, "--state", str(AFTER), "--baseline", str(snapshot))
    assert result.code == 2 and "Traceback" not in result.err
    assert str(snapshot) in result.err and "leaf1" in result.err and "'eos'" in result.err


def test_a_baseline_read_after_the_state_is_bad_input(run):
    result = run("verify", LAB, "--state", str(BEFORE), "--baseline", str(AFTER))
    assert result.code == 2
    assert str(AFTER) in result.err and "swapped" in result.err


def test_a_collection_time_in_the_future_is_bad_input(run, tmp_path):
    state = _copy(tmp_path)
    (state / "leaf4" / "collected-at").write_text("99999999999\n")
    result = run("verify", LAB, "--state", str(state))
    assert result.code == 2
    assert str(state / "leaf4" / "collected-at") in result.err and "future" in result.err
    snapshot = tmp_path / "before.json"
    run("verify", LAB, "--state", str(BEFORE), "--snapshot", str(snapshot))
    _edit_json(snapshot, lambda d: d["devices"]["leaf2"].update(collected_at=-5))
    result = run("verify", LAB, "--state", str(AFTER), "--baseline", str(snapshot))
    assert result.code == 2 and "devices.leaf2.collected_at" in result.err


# -- where findings point ----------------------------------------------------------------------


def test_port_findings_point_at_what_they_judged(run, tmp_path):
    pfc_off = _verify(run, _with_fault(tmp_path, "pfc-off"), "--baseline", str(BEFORE))
    files = {(f["rule"], f["device"], f["port"]): f["file"] for f in _findings(pfc_off)}
    assert files[("LL301", "leaf2", "swp31")].endswith("leaf2/roce-swp31.json")
    assert files[("LL301", "spine1", "Ethernet3/1")].endswith("spine1/pfc_status.json")
    storm = _verify(run, _with_fault(tmp_path, "storm"), "--baseline", str(BEFORE))
    files = {(f["rule"], f["device"], f["port"]): f["file"] for f in _findings(storm)}
    assert files[("LL304", "leaf3", "Ethernet1/1")].endswith("leaf3/pfc_queue.json")
    assert files[("LL304", "leaf1", "Ethernet0")].endswith("leaf1/counters.json")
    ecn = _verify(run, _with_fault(tmp_path, "ecn-absent"), "--baseline", str(BEFORE))
    drops = [f for f in _findings(ecn) if f["rule"] == "LL302" and f["device"] == "spine2"]
    assert drops and all(f["file"].endswith("spine2/counters.json") for f in drops)


def test_device_findings_point_at_a_file_and_name_what_went_back(run, tmp_path):
    state = _with_fault(tmp_path, "reset")
    result = _verify(run, state, "--baseline", str(BEFORE))
    for finding in _findings(result):
        assert Path(finding["file"]).is_file(), finding
        assert finding["line"] >= 1
    [reset] = [f for f in _findings(result) if f["rule"] == "LL309" and f["device"] == "leaf3"]
    assert "pause frames received" in reset["message"], reset["message"]


def test_an_output_that_is_not_json_is_named(run, tmp_path):
    state = _copy(tmp_path)
    (state / "spine2" / "counters.json").write_text('{\n  "COUNTERS_PORT_NAME_MAP": {"a": ')
    [error] = [f for f in _findings(_verify(run, state)) if f["severity"] == "error"]
    assert str(state / "spine2" / "counters.json") in error["message"]
    assert (error["file"], error["line"]) == (str(state / "spine2" / "counters.json"), 2)


# -- the script's time limits ------------------------------------------------------------------


def test_the_collection_script_passes_shellcheck(run, tmp_path):
    if shutil.which("shellcheck") is None:
        pytest.skip("shellcheck is not installed")
    script = tmp_path / "collect.sh"
    assert run("export", "state-script", LAB, "-o", str(script)).code == 0
    subprocess.run(["shellcheck", str(script)], check=True)


def test_the_collection_script_bounds_a_command_that_hangs(run, tmp_path):
    if shutil.which("timeout") is None:
        pytest.skip("coreutils timeout is not installed")
    script = tmp_path / "collect.sh"
    assert run("export", "state-script", LAB, "--device", "leaf4", "-o", str(script)).code == 0
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "ssh").write_text("#!/usr/bin/env bash\nexec sleep 30\n")
    (fake / "ssh").chmod(0o755)
    env = {"PATH": f"{fake}:/usr/bin:/bin", "LOSSLESS_SSH_TIMEOUT": "1"}
    saved = tmp_path / "saved"
    done = subprocess.run(
        ["bash", str(script), str(saved)], env=env, capture_output=True, timeout=20
    )
    assert done.returncode == 1
    assert "timed out after 1 s" in (saved / "leaf4" / "interfaces.err").read_text()
    assert not list((saved / "leaf4").glob("*.out*"))
    assert "ServerAliveInterval=" in script.read_text()


def test_a_typed_select_of_no_state_rule_is_a_usage_error(run):
    """`--select LL112` (a plan rule) on verify's command line judges nothing: refused, where a
    settings file's select (written for lint) leaves every state rule on."""
    result = run("verify", LAB, "--state", str(AFTER), "--select", "LL112")
    assert result.code == 2 and result.out == ""
    assert "verify: no rule left to run: --select names none of them (LL112); " in result.err
    assert "verify judges with LL301-LL312" in result.err


def test_junit_and_sarif_list_the_state_rules_that_ran(run):
    from xml.etree import ElementTree

    result = run(
        "verify", LAB, "--state", str(AFTER), "--baseline", str(BEFORE), "--format", "junit"
    )
    root = ElementTree.fromstring(result.out.split("\n", 1)[1])
    names = {case.get("name").split()[0] for case in root.iter("testcase")}
    assert names and all(name.startswith("LL3") for name in names)
    sarif = json.loads(run("verify", LAB, "--state", str(AFTER), "--format", "sarif").out)
    rules = {r["id"] for r in sarif["runs"][0]["tool"]["driver"]["rules"]}
    assert rules and all(rule.startswith("LL3") for rule in rules)
