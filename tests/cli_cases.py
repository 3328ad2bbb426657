"""Checks the CLI OSes' config tests share (test_eos_*, test_nxos_*): a corpus config lints as
expected, a setting removed from a golden config is found at its line, and a push through
napalm's mock driver reads a given running config back (tests/test_deploy_live.py style)."""

from __future__ import annotations

import json
from pathlib import Path


def line_of(path: Path, needle: str) -> int:
    """The first statement (not a comment) of the file starting with `needle`."""
    lines = path.read_text().splitlines()
    return next(
        i
        for i, text in enumerate(lines, 1)
        if text.strip().startswith(needle) and not text.lstrip().startswith(("!", "#"))
    )


def assert_lints(run, path: Path, os_name: str, code: int, rule_id, needle, *extra: str) -> None:
    """`lint --config` exits `code`; clean (no finding) or `rule_id` at the statement `needle`
    (an error, or a warning when `code` is 0)."""
    result = run("lint", "--config", str(path), "--os", os_name, *extra)
    assert result.code == code, result.out + result.err
    if rule_id is None:
        assert result.out.strip() == "0 errors, 0 warnings"
        return
    # exit 0 with a rule: a warning (the config is clean of errors)
    expected = f"{path}:{line_of(path, needle)}:1: {'error' if code else 'warning'} {rule_id} "
    assert any(line.startswith(expected) for line in result.out.splitlines()), result.out


def assert_refused(run, path: Path, os_name: str, label: str, why: str) -> None:
    """`lint --config PATH --os OS` on another OS's file: exit 2, "this is not an LABEL config"
    and why, at the file's line, no traceback."""
    result = run("lint", "--config", str(path), "--os", os_name)
    assert result.code == 2, result.out
    assert f"this is not an {label} config" in result.err and why in result.err
    assert f"{path}:" in result.err and "Traceback" not in result.err


def assert_removal_found(run, inventory: str, path: Path, case: tuple) -> None:
    """Remove a setting from the config at `path` (one of a folder of configs); `lint` with the
    inventory finds it: `rule_id` at the statement `needle`, its message holding `words`."""
    (removed, left), rule_id, needle, words = case
    text = path.read_text()
    assert removed in text
    path.write_text(text.replace(removed, left, 1))
    result = run("lint", inventory, "--configs", str(path.parent))
    assert result.code == 1, result.out
    at = f"{path}:{line_of(path, needle)}:"
    hits = [x for x in result.out.splitlines() if says(x, rule_id) and x.startswith(at)]
    assert any(words in x for x in hits), (at, result.out)


def says(line: str, rule_id: str) -> bool:
    """A lint output line is the rule's finding, or the config drift (LL200) that the rule's
    finding follows from and is folded into, naming it (lossless/lint/consequences.py: a
    link or host mismatch that the config's own drift causes)."""
    return f" {rule_id} " in line or (" LL200 " in line and f"({rule_id}): " in line)


def names(finding: dict, rule_id: str) -> bool:
    """says() for a finding of `lint --format json`."""
    return finding["rule"] == rule_id or (
        finding["rule"] == "LL200" and f"({rule_id}): " in finding["message"]
    )


def mock_credentials(monkeypatch) -> None:
    monkeypatch.setenv("LOSSLESS_USERNAME", "netops")
    monkeypatch.setenv("LOSSLESS_PASSWORD", "not-a-real-password")


def record_push(root: Path, device: str, running: str, confirm: bool) -> Path:
    """napalm mock responses for a committed push whose running config reads back `running`
    (`confirm`: the driver has commit-confirm)."""
    folder = root / device
    folder.mkdir(parents=True, exist_ok=True)
    responses = {
        "load_merge_candidate.1": {},
        "compare_config.1": {"diff": "+   mtu 9100"},
        "commit_config.1": {},
        "rollback.1": {},
        "get_config.1": {"running": running, "startup": "", "candidate": ""},
    }
    if confirm:
        responses["confirm_commit.1"] = {}
    for name, value in responses.items():
        (folder / name).write_text(json.dumps(value))
    return root


def push_alone(run, inventory: str, device: str, root: Path):
    """`push --commit` of one device through the mock, JSON output. The device is pushed alone
    on purpose, so its PFC-coupled changes split links: --split-links."""
    return run(
        "push",
        inventory,
        "--device",
        device,
        "--commit",
        "--split-links",
        "--mock",
        str(root),
        "--format",
        "json",
    )


def push(run, inventory: str, device: str, root: Path) -> tuple[int, dict]:
    """push_alone: the exit code and the device's JSON result."""
    result = push_alone(run, inventory, device, root)
    [entry] = json.loads(result.out)["devices"]
    return result.code, entry
