"""Live diff and push through napalm's own mock driver with recorded responses
(docs/reference/ecosystem.md 2): the orchestration, not the device's diff, is what these test."""

from __future__ import annotations

import json

import pytest
from cli_cases import push_alone
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
        """Recorded responses of `device`; a push or live diff first reads the running config
        (get_config), which is the golden one unless the test records another."""
        folder = root / device
        folder.mkdir(parents=True, exist_ok=True)
        if responses and not any(name.startswith("get_config") for name in responses):
            responses["get_config__1"] = _running(_golden_file(device))
        for name, value in responses.items():
            (folder / name.replace("__", ".")).write_text(json.dumps(value))
        return root

    return record


def _raises(exception: str, message: str) -> dict:
    """A mock driver recording: the call raises napalm's `exception` with `message`."""
    return {"exception": f"napalm.base.exceptions.{exception}", "args": [message]}


def _golden_file(device: str) -> str:
    [path] = (REPO / "golden" / "lab").glob(f"{device}.*")
    return path.name


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
        "message": "dry run; candidate discarded",
        "changes": [],  # the running config read first is the intended one
        "impacts": [],
        "phase": 1,
    }


def test_failing_commit_discards_the_candidate(run, mock):
    root = mock(
        "leaf3",
        load_merge_candidate__1={},
        compare_config__1={"diff": DIFF},
        commit_config__1=_raises("CommitError", "simulated commit failure"),
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
        commit_config__1=_raises("CommitError", "boom"),
        discard_config__1={},
    )
    # leaf4 and spine1 are only read (their running configs order the push): loading a
    # candidate on them would fail, not skip
    for device in ("leaf4", "spine1"):
        mock(device, get_config__1=_running(_golden_file(device)))
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
        commit_config__1=_raises("CommitError", f"authentication failed for netops/{SECRET}"),
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


# -- honesty and secrets (issue 9) -----------------------------------------------------------


def test_a_failed_discard_is_reported_not_discarded(run, mock):
    root = mock(
        "leaf3",
        load_merge_candidate__1={},
        compare_config__1={"diff": DIFF},
        discard_config__1=_raises("ConnectionClosedException", "session gone"),
    )
    result = run("push", LAB, "--device", "leaf3", "--mock", str(root), "--format", "json")
    assert result.code == 1
    device = _results(result)["leaf3"]
    assert device["status"] == "failed"
    assert device["message"] == (
        "dry run; candidate NOT discarded: ConnectionClosedException: session gone"
    )
    assert "discarded" not in device["message"].replace("NOT discarded", "")


def test_a_failed_discard_after_a_failed_commit_says_so(run, mock):
    root = mock(
        "leaf3",
        load_merge_candidate__1={},
        compare_config__1={"diff": DIFF},
        commit_config__1=_raises("CommitError", "boom"),
        discard_config__1=_raises("CommitError", "stuck"),
    )
    result = run(
        "push", LAB, "--device", "leaf3", "--commit", "--mock", str(root), "--format", "json"
    )
    assert result.code == 1
    assert _results(result)["leaf3"]["message"] == (
        "CommitError: boom; candidate NOT discarded: CommitError: stuck"
    )


def test_a_failed_discard_fails_the_live_diff(run, mock):
    root = mock(
        "spine1",
        load_merge_candidate__1={},
        compare_config__1={"diff": ""},
        discard_config__1=_raises("CommitError", "x"),
    )
    result = run(
        "diff", LAB, "--live", "--device", "spine1", "--mock", str(root), "--format", "json"
    )
    assert result.code == 1
    assert _results(result)["spine1"]["status"] == "failed"
    assert "candidate NOT discarded" in _results(result)["spine1"]["message"]


def _push_all_leaving_out_drivers(mock):
    root = None
    for device in ("leaf3", "leaf4", "spine1"):  # every device napalm has a driver for
        root = mock(
            device, load_merge_candidate__1={}, compare_config__1={"diff": ""}, discard_config__1={}
        )
    return root


def test_push_all_commit_that_skips_devices_exits_1(run, mock):
    root = _push_all_leaving_out_drivers(mock)
    result = run("push", LAB, "--all", "--commit", "--mock", str(root), "--format", "json")
    assert result.code == 1
    assert "not pushed (no napalm driver): leaf1, leaf2, spine2" in result.err
    assert {d["status"] for d in _results(result).values()} == {"unchanged", "no-driver"}


def test_skip_unsupported_accepts_devices_without_a_driver(run, mock):
    root = _push_all_leaving_out_drivers(mock)
    result = run("push", LAB, "--all", "--commit", "--skip-unsupported", "--mock", str(root))
    assert result.code == 0, result.out + result.err


def test_dry_run_with_devices_without_a_driver_is_clean(run, mock):
    root = _push_all_leaving_out_drivers(mock)
    assert run("push", LAB, "--all", "--mock", str(root)).code == 0


@pytest.mark.parametrize(
    ("device", "revert_in", "message"),
    [
        ("leaf4", "90", "junos takes 60 to 3932100 seconds in whole minutes"),
        ("leaf4", "30", "junos takes 60 to 3932100 seconds in whole minutes"),
        ("leaf4", str(65536 * 60), "junos takes 60 to 3932100 seconds"),
        ("spine1", "86400", "eos takes 1 to 86399 seconds"),
    ],
)
def test_revert_in_is_checked_per_os(run, mock, device, revert_in, message):
    root = mock(device)  # no recordings: touching the device would fail differently
    result = run(
        "push",
        LAB,
        "--device",
        device,
        "--commit",
        "--revert-in",
        revert_in,
        "--mock",
        str(root),
    )
    assert result.code == 2
    assert f"--revert-in {revert_in}: {message}" in result.err


def test_revert_in_in_whole_minutes_is_accepted_for_junos(run, mock):
    root = mock(
        "leaf4", load_merge_candidate__1={}, compare_config__1={"diff": ""}, discard_config__1={}
    )
    result = run(
        "push", LAB, "--device", "leaf4", "--commit", "--revert-in", "120", "--mock", str(root)
    )
    assert result.code == 0, result.out + result.err


WEIRD_SECRET = "p@ss w\"o'rd\\1&x=%"


def test_every_form_of_the_password_is_scrubbed(run, mock, monkeypatch):
    from urllib.parse import quote, quote_plus

    monkeypatch.setenv("LOSSLESS_PASSWORD", WEIRD_SECRET)
    forms = [
        WEIRD_SECRET,
        repr(WEIRD_SECRET)[1:-1],
        json.dumps(WEIRD_SECRET)[1:-1],
        quote(WEIRD_SECRET, safe=""),
        quote_plus(WEIRD_SECRET),
    ]
    diff = "+username admin secret 0 " + WEIRD_SECRET + "\n" + DIFF
    error = "eAPI said " + json.dumps({"password": WEIRD_SECRET}) + " at https://netops:"
    error += quote(WEIRD_SECRET, safe="") + "@10.0.0.1/ " + repr({"pw": WEIRD_SECRET})
    root = mock(
        "leaf3",
        load_merge_candidate__1={},
        compare_config__1={"diff": diff},
        commit_config__1=_raises("CommitError", error),
        discard_config__1={},
    )
    for fmt in ("text", "json"):
        result = run(
            "push", LAB, "--device", "leaf3", "--commit", "--mock", str(root), "--format", fmt
        )
        assert result.code == 1
        for form in forms:
            assert form not in result.out and form not in result.err, (fmt, form)
    assert (
        "username admin secret 0 ***"
        in run(
            "diff",
            LAB,
            "--live",
            "--device",
            "leaf3",
            "--mock",
            str(
                mock(
                    "leaf3",
                    load_merge_candidate__2={},
                    compare_config__2={"diff": diff},
                    discard_config__2={},
                )
            ),
        ).out
    )


def test_a_malformed_credentials_file_does_not_show_its_lines(run, tmp_path, monkeypatch):
    monkeypatch.delenv("LOSSLESS_PASSWORD", raising=False)
    path = tmp_path / "creds.yaml"
    for text, where in (
        (f"default: {{username: netops, password: {SECRET}\n", "2:1"),  # unclosed mapping
        (f"default:\n  username: netops\n  password: '{SECRET}\n", "4:1"),  # unclosed quote
        (f"default: {{username: netops, password: !secret {SECRET}}}\n", "1:39"),
        (f"default: {{password: {SECRET}, password: {SECRET}}}\n", "1:"),
    ):
        path.write_text(text)
        path.chmod(0o600)
        result = run(
            "diff",
            LAB,
            "--live",
            "--device",
            "spine1",
            "--credentials",
            str(path),
            "--mock",
            str(tmp_path),
        )
        assert result.code == 2, text
        assert SECRET not in result.out + result.err
        assert f"{path}:{where}" in result.err and "not valid YAML" in result.err, result.err


def test_a_numeric_looking_password_stays_text(tmp_path):
    from lossless.deploy.credentials import CredentialStore

    path = tmp_path / "creds.yaml"
    path.write_text(
        "default: {username: netops, password: 0123}\ndevices: {x: {username: u, password: 1e3}}\n"
    )
    path.chmod(0o600)
    store = CredentialStore(str(path))
    assert store.for_device("spine1").password == "0123"
    assert store.for_device("x").password == "1e3"


def test_an_unreadable_running_config_after_commit_rolls_back(run, mock):
    running = {"running": '{"PORT": {"Ethernet0": {}}}'}  # a device that answers JSON
    root = mock(
        "spine1",
        load_merge_candidate__1={},
        compare_config__1={"diff": DIFF},
        commit_config__1={},
        rollback__1={},
        get_config__1=running,
    )
    result = push_alone(run, LAB, "spine1", root)
    assert result.code == 1 and "Traceback" not in result.err
    device = _results(result)["spine1"]
    assert device["status"] == "rolled-back"
    assert device["message"].startswith("spine1 (running):1:1: this is not an EOS config")
    assert device["message"].endswith("; rolled back")


@pytest.mark.parametrize("module", ["nornir", "napalm"])
@pytest.mark.parametrize("command", [["diff", LAB, "--live"], ["push", LAB, "--all"]])
def test_without_the_deploy_extra_the_live_steps_say_how_to_install_it(
    run, monkeypatch, module, command
):
    import sys

    for name in [n for n in sys.modules if n.startswith(("lossless.deploy.live", module))]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, module, None)  # import of it raises ImportError
    result = run(*command)
    assert result.code == 2
    # how to install the extra from where this lossless came from (system/origin.py): here
    # the editable clone the tests run in
    assert "-m pip install -e" in result.err and "[deploy]'" in result.err
    assert "Traceback" not in result.err + result.out


@pytest.mark.parametrize(
    ("password", "text", "expected"),
    [
        ("p", "phase 1 impact", "phase 1 impact"),  # too short to be a secret: untouched
        ("pas", "pas de passe", "pas de passe"),
        ("hase", "phase 1: hase", "phase 1: ***"),  # never inside a word
        ("s3cret", "login s3cret failed, s3crets", "login *** failed, s3crets"),
        ("p@ss%", "url user:p%40ss%25@host, p@ss%", "url user:***@host, ***"),
    ],
)
def test_the_scrubber_replaces_a_secret_only_where_it_stands_alone(
    monkeypatch, password, text, expected
):
    """A one-letter password garbled every message (`***hase 1`, `im***act`): only secrets
    of 4 or more characters are scrubbed, and only as words of their own."""
    from lossless.deploy import credentials

    monkeypatch.setattr(credentials, "_SECRET_FORMS", set())
    credentials.Credentials("admin", password)
    assert credentials.scrub(text) == expected
