"""Hostile input, round 3 (issue 35), the local surfaces: the switch collection script's
folders (item 3), settings that switch rules off (item 6), push --backup's folder (item 11)
and a prefix as a management address (item 12). Shell completion (item 1) is in
test_completion_words.py. Each test does what the attacker would."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import INVENTORIES

LAB = str(INVENTORIES / "lab.yaml")
NOBODY = 65534  # the second user of the root tests: nobody, present on every Linux
AS_ROOT = pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("setpriv") is None,
    reason="needs root (and setpriv) to act as a second user",
)


@pytest.fixture
def shared():
    """A world-writable sticky folder, as /tmp (pytest's own tmp_path is root's alone)."""
    import tempfile

    folder = Path(tempfile.mkdtemp(prefix="lossless-shared-", dir="/tmp"))
    folder.chmod(0o1777)
    yield folder
    shutil.rmtree(folder)


def _as_nobody(*argv: str) -> None:
    """Run argv as the second user, as the attacker does."""
    subprocess.run(
        ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", *argv],
        check=True,
        timeout=30,
    )


# -- item 3: the switch collection script writes through planted symlinks -------------------


def _collector(run, tmp_path: Path, ssh: str) -> tuple[Path, dict]:
    """The collection script of leaf4 (Junos: commands interfaces and queues) and a fake
    ssh on PATH running `ssh` (a shell body; "$*" holds the options, host and command)."""
    script = tmp_path / "collect.sh"
    assert run("export", "state-script", LAB, "--device", "leaf4", "-o", str(script)).code == 0
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "ssh").write_text(f"#!/usr/bin/env bash\n{ssh}\n")
    (fake / "ssh").chmod(0o755)
    return script, {"PATH": f"{fake}:/usr/bin:/bin"}


def _collect(script: Path, env: dict, folder: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["bash", str(script), str(folder)], env=env, capture_output=True, text=True, timeout=60
    )


def test_state_script_refuses_a_symlinked_switch_folder(run, tmp_path):
    script, env = _collector(run, tmp_path, "echo '{}'")
    state, elsewhere = tmp_path / "state", tmp_path / "elsewhere"
    state.mkdir()
    elsewhere.mkdir()
    (state / "leaf4").symlink_to(elsewhere)
    done = _collect(script, env, state)
    assert done.returncode == 2, done.stderr
    assert f"lossless: {state}/leaf4 is a symlink; refused" in done.stderr
    assert list(elsewhere.iterdir()) == []


def test_state_script_replaces_planted_symlinks_instead_of_writing_through(run, tmp_path):
    # every name the script writes in DIR/leaf4, a symlink to a file of the user's; queues
    # fails, so its .err is written; collected-at leads to a folder (mv would move into it)
    script, env = _collector(
        run, tmp_path, 'case "$*" in *queue*) echo no >&2; exit 1;; esac\necho "{}"'
    )
    state, victims = tmp_path / "state", tmp_path / "victims"
    (state / "leaf4").mkdir(parents=True)
    (victims / "folder").mkdir(parents=True)
    names = ["interfaces.out", "interfaces.err", "queues.err", "interfaces.out.part"]
    for name in names:
        (victims / name).write_text("keep me\n")
        (state / "leaf4" / name).symlink_to(victims / name)
    (state / "leaf4" / "collected-at").symlink_to(victims / "folder")
    done = _collect(script, env, state)
    assert done.returncode == 1, done.stderr  # queues failed
    assert all((victims / name).read_text() == "keep me\n" for name in names)
    assert list((victims / "folder").iterdir()) == []
    leaf4 = state / "leaf4"
    assert (leaf4 / "interfaces.out").read_text() == "{}\n"
    assert (leaf4 / "queues.err").read_text() == "no\n"
    assert (leaf4 / "collected-at").read_text().strip().isdigit()
    assert not any(
        (leaf4 / n).is_symlink() for n in ("interfaces.out", "queues.err", "collected-at")
    )
    assert not (leaf4 / "interfaces.err").exists()  # the command succeeded: no error kept
    # nothing left behind but the planted .part (never written, never read)
    assert sorted(p.name for p in leaf4.iterdir()) == [
        "collected-at",
        "interfaces.out",
        "interfaces.out.part",
        "queues.err",
    ]
    assert (leaf4.stat().st_mode & 0o022) == 0  # no one else may plant files there now


@AS_ROOT
def test_state_script_as_root_refuses_a_folder_another_user_planted(run, tmp_path, shared):
    # root collects into a shared sticky folder (as /tmp) where nobody made DIR/leaf4 first,
    # with symlinks to root's files at every name the script writes
    script, env = _collector(run, tmp_path, "echo '{}'")
    secret = tmp_path / "shadow"
    secret.write_text("root's\n")
    state = shared / "state"
    state.mkdir()
    state.chmod(0o1777)
    plant = " && ".join(
        f"ln -s {secret} {state}/leaf4/{name}"
        for name in ("interfaces.out", "interfaces.out.part", "interfaces.err", "collected-at")
    )
    _as_nobody("sh", "-c", f"mkdir -m 777 {state}/leaf4 && {plant}")
    done = _collect(script, env, state)
    assert done.returncode == 2, done.stderr
    assert f"lossless: {state}/leaf4 belongs to another user; refused" in done.stderr
    assert secret.read_text() == "root's\n"
    assert all(p.is_symlink() for p in (state / "leaf4").iterdir())


# -- item 12: a prefix (or an option) as a management address --------------------------------


def _lab_with_mgmt(tmp_path: Path, mgmt: str) -> tuple[Path, int]:
    """lab.yaml with leaf1's management address replaced; the line it is on."""
    text = (INVENTORIES / "lab.yaml").read_text()
    assert "    mgmt: 192.0.2.11\n" in text
    text = text.replace("    mgmt: 192.0.2.11\n", f"    mgmt: {mgmt}\n")
    path = tmp_path / "lab.yaml"
    path.write_text(text)
    line = text.splitlines().index(f"    mgmt: {mgmt}") + 1
    return path, line


@pytest.mark.parametrize(
    "mgmt", ["192.0.2.11/24", "2001:db8::11/64", "-oProxyCommand=touch${IFS}pwned", "'a b'"]
)
def test_mgmt_is_an_address_or_a_name_at_its_line(run, tmp_path, mgmt):
    inventory, line = _lab_with_mgmt(tmp_path, mgmt)
    script = tmp_path / "collect.sh"
    for argv in (
        ("validate", str(inventory)),
        ("export", "state-script", str(inventory), "-o", str(script)),
        ("push", str(inventory), "--device", "leaf1", "--mock", str(tmp_path)),
    ):
        result = run(*argv)
        assert result.code == 2, (argv, result.out, result.err)
        assert f"{inventory}:{line}:11: devices.leaf1.mgmt: " in result.err
        assert "without a prefix length" in result.err
    assert not script.exists() and not list(tmp_path.glob("pwned*"))


def test_mgmt_ranges_expand_to_addresses_or_names(run, tmp_path):
    inventory, line = _lab_with_mgmt(tmp_path, "leaf1.mgmt.example.net")
    assert run("validate", str(inventory)).code == 0
    text = inventory.read_text().replace("leaf1.mgmt.example.net", "10.0.0.[256:256]")
    inventory.write_text(text)
    result = run("validate", str(inventory))
    assert result.code == 2
    assert f":{line}:11: devices.leaf1.mgmt: '10.0.0.256' is not an IP address or a DNS name" in (
        result.err
    )


def test_state_script_ends_ssh_options_before_the_address(run, tmp_path):
    inventory, _ = _lab_with_mgmt(tmp_path, "leaf1.mgmt.example.net")
    script = tmp_path / "collect.sh"
    assert (
        run("export", "state-script", str(inventory), "--device", "leaf1", "-o", str(script)).code
        == 0
    )
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "ssh").write_text('#!/usr/bin/env bash\nprintf "%s\\n" "$@" >>"$CALLS"\necho "{}"\n')
    (fake / "ssh").chmod(0o755)
    env = {"PATH": f"{fake}:/usr/bin:/bin", "CALLS": str(tmp_path / "calls")}
    done = _collect(script, env, tmp_path / "state")
    assert done.returncode == 0, done.stderr
    words = (tmp_path / "calls").read_text().splitlines()
    at = [i for i, word in enumerate(words) if word == "leaf1.mgmt.example.net"]
    assert at and all(words[i - 1] == "--" for i in at)


# -- item 6: settings that switch the gate off --------------------------------------------------


@pytest.fixture
def pull_request(tmp_path, monkeypatch):
    """A repository checked out from a pull request, as the current folder: the lab with
    three error findings (port MTU 1500: LL118 and two LL109), and a .lossless.toml the pull
    request adds (written by each test)."""
    (tmp_path / ".git").mkdir()
    text = (INVENTORIES / "lab.yaml").read_text().replace("mtu: 9100", "mtu: 1500")
    (tmp_path / "lab.yaml").write_text(text)
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize(
    ("settings", "why"),
    [
        ('ignore = ["LL"]\n', ".lossless.toml:1:1: ignore ignores LL"),
        ('[per-path-ignores]\n"*" = ["LL"]\n', ".lossless.toml:1:1: per-path-ignores.* drops "),
        ('select = ["LL310"]\n', ".lossless.toml:1:1: select names none of them (LL310)"),
        ('select = ["LL1"]\n[per-path-ignores]\n"**" = ["LL1"]\n', "per-path-ignores.** drops"),
    ],
)
def test_settings_that_leave_no_rule_running_are_a_usage_error(run, pull_request, settings, why):
    (pull_request / ".lossless.toml").write_text(settings)
    for command in ("ci", "lint"):
        result = run(command, "lab.yaml", "--format", "github")
        assert result.code == 2, (command, result.out)
        assert "0 errors" not in result.out and result.out == ""
        assert f"{command}: no rule left to run: " in result.err and why in result.err


def test_a_select_prefix_naming_no_rule_of_the_command_is_a_usage_error(run):
    # LL31 names LL310-LL312: verify's rules, which lint never runs
    result = run("lint", LAB, "--select", "LL31")
    assert result.code == 2 and result.out == ""
    assert "lint: no rule left to run: --select names none of them (LL310-LL312)" in result.err


def test_verify_with_settings_ignoring_every_state_rule_is_a_usage_error(run, pull_request):
    from conftest import DATA

    (pull_request / ".lossless.toml").write_text('ignore = ["LL3"]\n')
    state = DATA / "verify" / "lab" / "after"
    result = run("verify", str(INVENTORIES / "lab.yaml"), "--state", str(state))
    assert result.code == 2 and result.out == ""
    settings = pull_request / ".lossless.toml"
    assert f"verify: no rule left to run: {settings}:1:1: ignore ignores LL3; " in result.err


def test_settings_turning_rules_off_say_so_and_the_report_lists_what_ran(run, pull_request):
    # every rule off but LL140: the three errors go unreported, exit 0; stderr says which
    # file turned which rules off, and the report which rules ran
    (pull_request / ".lossless.toml").write_text(
        'select = ["LL140"]\n[per-path-ignores]\n"inventories/*" = ["LL1"]\n'
    )
    result = run("ci", "lab.yaml", "--format", "github")
    assert result.code == 0, result.err
    settings = pull_request / ".lossless.toml"
    assert result.err.splitlines() == [
        f"lossless: {settings}:1:1: select turns off 40 of ci's 41 rules: LL101-LL139, LL141-LL142"
        " (--isolated runs them)",
        f"lossless: {settings}:2:1: per-path-ignores.inventories/* drops, in the files it "
        "matches, the findings of 41 of ci's 41 rules: LL101-LL142 (--isolated runs them)",
    ]
    assert "::notice title=lossless rules::1 of " in result.out
    assert result.out.splitlines()[-2].endswith(" rules ran: LL140")
    quiet = run("ci", "lab.yaml", "--format", "github", "-q")
    assert quiet.err == "" and "::notice title=lossless rules::1 of " in quiet.out
    text = run("lint", "lab.yaml")
    assert text.out.splitlines()[-2].endswith(" rules ran: LL140")
    assert text.out.splitlines()[-1] == "0 errors, 0 warnings"
    # without a settings file nothing is said and every rule runs
    isolated = run("lint", "lab.yaml", "--isolated")
    assert isolated.code == 1 and " rules ran" not in isolated.out and isolated.err == ""
