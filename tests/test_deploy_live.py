"""Live diff and push through napalm's own mock driver with recorded responses
(ecosystem.md 2): the orchestration, not the device's diff, is what these test."""

from __future__ import annotations

import json

import pytest
from conftest import INVENTORIES, REPO

LAB = str(INVENTORIES / "lab.yaml")
SECRET = "s3cr3t-Passw0rd!"
DIFF = "+   mtu 9100\n-   mtu 9000"


@pytest.fixture
def mock(tmp_path, monkeypatch):
    monkeypatch.setenv("LOSSLESS_USERNAME", "netops")
    monkeypatch.setenv("LOSSLESS_PASSWORD", SECRET)
    root = tmp_path / "mock"

    def record(device: str, **responses):
        folder = root / device
        folder.mkdir(parents=True, exist_ok=True)
        for name, value in responses.items():
            (folder / name.replace("__", ".")).write_text(json.dumps(value))
        return root

    return record


def _running(device_file: str, change: tuple[str, str] | None = None) -> dict:
    text = (REPO / "golden" / "lab" / device_file).read_text()
    if change:
        text = text.replace(*change, 1)
    return {"running": text, "startup": "", "candidate": ""}


def _results(result) -> dict[str, dict]:
    return {d["device"]: d for d in json.loads(result.out)["devices"]}


def test_live_diff_clean_and_non_empty(run, mock):
    mock("spine1", load_merge_candidate__1={}, compare_config__1={"diff": ""}, discard_config__1={})
    root = mock(
        "leaf3", load_merge_candidate__1={}, compare_config__1={"diff": DIFF}, discard_config__1={}
    )
    mock("leaf4", load_merge_candidate__1={}, compare_config__1={"diff": ""}, discard_config__1={})
    result = run("diff", LAB, "--live", "--mock", str(root), "--format", "json")
    assert result.code == 0, result.out + result.err
    devices = _results(result)
    assert devices["spine1"]["status"] == "unchanged"
    assert devices["leaf3"]["status"] == "would-change" and devices["leaf3"]["diff"] == DIFF
    assert devices["leaf1"]["status"] == "no-driver"
    assert "config apply-patch" in devices["leaf1"]["message"]
    assert "nv config apply" in devices["leaf2"]["message"]
    assert run("diff", LAB, "--live", "--mock", str(root), "--exit-code").code == 1


def test_push_dry_run_discards(run, mock):
    root = mock(
        "leaf3", load_merge_candidate__1={}, compare_config__1={"diff": DIFF}, discard_config__1={}
    )
    result = run("push", LAB, "--device", "leaf3", "--mock", str(root), "--format", "json")
    assert result.code == 0
    assert _results(result)["leaf3"] == {
        "device": "leaf3",
        "status": "would-change",
        "diff": DIFF,
        "message": "dry run: discarded",
    }


def test_failing_commit_discards_the_candidate(run, mock):
    root = mock(
        "leaf3",
        load_merge_candidate__1={},
        compare_config__1={"diff": DIFF},
        commit_config__1={
            "exception": "napalm.base.exceptions.CommitError",
            "args": ["simulated commit failure"],
        },
        discard_config__1={},
    )
    result = run(
        "push", LAB, "--device", "leaf3", "--commit", "--mock", str(root), "--format", "json"
    )
    assert result.code == 1
    device = _results(result)["leaf3"]
    assert device["status"] == "failed"
    assert device["message"] == "CommitError: simulated commit failure; candidate discarded"


def test_commit_confirm_with_failing_post_check_is_not_confirmed(run, mock):
    # running config read back after the commit has the wrong MTU: no confirm, rollback
    # (there is no confirm_commit.1 recording: a confirm would fail the test)
    root = mock(
        "spine1",
        load_merge_candidate__1={},
        compare_config__1={"diff": DIFF},
        commit_config__1={},
        rollback__1={},
        get_config__1=_running("spine1.cfg", ("mtu 9100", "mtu 9000")),
    )
    result = run(
        "push", LAB, "--device", "spine1", "--commit", "--mock", str(root), "--format", "json"
    )
    assert result.code == 1
    device = _results(result)["spine1"]
    assert device["status"] == "rolled-back"
    assert device["message"].startswith(
        "post-check failed, not confirmed, rolled back: Ethernet1/1 MTU is 9000 in the config, "
        "9100 in the plan"
    )


def test_commit_confirm_confirms_after_a_passing_post_check(run, mock):
    root = mock(
        "spine1",
        load_merge_candidate__1={},
        compare_config__1={"diff": DIFF},
        commit_config__1={},
        confirm_commit__1={},
        get_config__1=_running("spine1.cfg"),
    )
    result = run(
        "push", LAB, "--device", "spine1", "--commit", "--mock", str(root), "--format", "json"
    )
    assert result.code == 0, result.out
    assert _results(result)["spine1"]["status"] == "changed"
    assert _results(result)["spine1"]["message"] == "confirmed after post-check"


def test_failing_canary_stops_the_batches(run, mock):
    root = mock(
        "leaf3",
        load_merge_candidate__1={},
        compare_config__1={"diff": DIFF},
        commit_config__1={"exception": "napalm.base.exceptions.CommitError", "args": ["boom"]},
        discard_config__1={},
    )
    # leaf4 and spine1 have no recordings: touching them would fail, not skip
    result = run(
        "push", LAB, "--all", "--commit", "--canary", "1", "--mock", str(root), "--format", "json"
    )
    assert result.code == 1
    devices = _results(result)
    assert devices["leaf3"]["status"] == "failed"
    assert devices["leaf4"]["status"] == "skipped" and devices["spine1"]["status"] == "skipped"
    assert devices["leaf1"]["status"] == "no-driver"


def test_push_refuses_when_lint_finds_errors(run, write, mock):
    root = mock("leaf3")
    text = (INVENTORIES / "lab.yaml").read_text().replace("poll_ms: 100", "poll_ms: 300")
    result = run("push", str(write(text)), "--device", "leaf3", "--commit", "--mock", str(root))
    assert result.code == 1
    assert "push refused: fix the lint errors first" in result.out


def test_credentials_never_appear_in_output(run, mock):
    root = mock(
        "leaf3",
        load_merge_candidate__1={},
        compare_config__1={"diff": DIFF},
        commit_config__1={
            "exception": "napalm.base.exceptions.CommitError",
            "args": [f"authentication failed for netops/{SECRET}"],
        },
        discard_config__1={},
    )
    mock(
        "spine1", load_merge_candidate__1={}, compare_config__1={"diff": DIFF}, discard_config__1={}
    )
    outputs = []
    for fmt in ("text", "json"):
        outputs.append(
            run("push", LAB, "--device", "leaf3", "--commit", "--mock", str(root), "--format", fmt)
        )
        outputs.append(
            run("diff", LAB, "--live", "--device", "spine1", "--mock", str(root), "--format", fmt)
        )
    for result in outputs:
        assert SECRET not in result.out and SECRET not in result.err
    assert "authentication failed for netops/***" in outputs[0].out


def test_missing_credentials_is_a_usage_error(run, monkeypatch):
    monkeypatch.delenv("LOSSLESS_USERNAME", raising=False)
    monkeypatch.delenv("LOSSLESS_PASSWORD", raising=False)
    result = run("diff", LAB, "--live", "--device", "spine1")
    assert result.code == 2
    assert "no credentials for spine1" in result.err


def test_credentials_file_must_be_private(run, tmp_path, monkeypatch):
    monkeypatch.delenv("LOSSLESS_PASSWORD", raising=False)
    path = tmp_path / "creds.yaml"
    path.write_text(f"default: {{username: netops, password: '{SECRET}'}}\n")
    path.chmod(0o644)
    result = run("diff", LAB, "--live", "--device", "spine1", "--credentials", str(path))
    assert result.code == 2 and "chmod 600" in result.err
    assert SECRET not in result.err


def test_push_needs_devices(run):
    result = run("push", LAB)
    assert result.code == 2 and "--device" in result.err
