"""Completion of the project's own words: rule IDs and names after --select/--ignore, the
inventory's devices after --device, in bash, zsh and fish (each shell's test skips only
where that shell is not installed, and fails then in CI: LOSSLESS_REQUIRE_SHELLS=1); the
install lines create their folder."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest
from conftest import INVENTORIES, REPO

LAB = str(INVENTORIES / "lab.yaml")
POD = str(INVENTORIES / "pod-2048.yaml")


def _script(run, tmp_path, shell: str):
    if shutil.which(shell) is None:
        if os.environ.get("LOSSLESS_REQUIRE_SHELLS") == "1":
            pytest.fail(f"LOSSLESS_REQUIRE_SHELLS=1 but no {shell} on PATH (.ci/install)")
        pytest.skip(f"{shell} is not installed")
    result = run("completion", shell)
    assert result.code == 0, result.err
    path = tmp_path / f"lossless.{shell}"
    path.write_text(result.out)
    return path


def _bash(script, *words: str) -> list[str]:
    line = " ".join(words)
    program = (
        f"source {script}\n"
        f"COMP_WORDS=({' '.join(repr(w) for w in words)}); COMP_CWORD={len(words) - 1}\n"
        f"COMP_LINE={line!r}; COMP_POINT=${{#COMP_LINE}}\n"
        '_shtab_lossless; printf "%s\\n" "${COMPREPLY[@]}"\n'
    )
    done = subprocess.run(
        ["bash", "-c", program], capture_output=True, text=True, timeout=30, cwd=REPO
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


def test_bash_completes_rules_and_devices(run, tmp_path):
    script = _script(run, tmp_path, "bash")
    assert _bash(script, "lossless", "lint", LAB, "--select", "LL11") == [
        f"LL11{n}" for n in range(10)
    ]
    assert _bash(script, "lossless", "ci", LAB, "--ignore", "ecmp-s") == ["ecmp-seed-per-tier"]
    assert _bash(script, "lossless", "lint", LAB, "--select", "LL101,ecn-b") == [
        "LL101,ecn-before-pfc"
    ]
    assert _bash(script, "lossless", "render", LAB, "--device", "") == [
        "leaf1",
        "leaf2",
        "leaf3",
        "leaf4",
        "spine1",
        "spine2",
    ]
    assert _bash(script, "lossless", "plan", POD, "--device", "sp") == ["spine[01:16]"]
    # a comma list, as --device takes it
    assert _bash(script, "lossless", "lint", LAB, "--device", "leaf1,sp") == [
        "leaf1,spine1",
        "leaf1,spine2",
    ]


def test_bash_devices_need_an_inventory_on_the_line(run, tmp_path):
    script = _script(run, tmp_path, "bash")
    assert _bash(script, "lossless", "render", "--device", "") == []
    flow = tmp_path / "flow.yaml"  # the keys under devices: as written, whatever the indent
    flow.write_text('fabric: {name: f}\ndevices:\n    "core-1": {}\n    edge[1:3]:\n      x: 1\n')
    assert _bash(script, "lossless", "plan", str(flow), "--device", "") == ["core-1", "edge[1:3]"]


def test_fish_completes_rules_and_devices(run, tmp_path):
    script = _script(run, tmp_path, "fish")

    def complete(line: str) -> list[str]:
        done = subprocess.run(
            ["fish", "--no-config", "-c", f"source {script}; complete -C '{line}'"],
            capture_output=True,
            text=True,
            timeout=30,
            cwd=REPO,
        )
        assert done.returncode == 0, done.stderr
        return [row.split("\t")[0] for row in done.stdout.splitlines()]

    assert "LL112" in complete(f"lossless lint {LAB} --select LL11")
    assert complete(f"lossless lint {LAB} --select LL101,ecn-b") == ["LL101,ecn-before-pfc"]
    assert complete(f"lossless render {LAB} --device le") == ["leaf1", "leaf2", "leaf3", "leaf4"]
    assert "completion" in complete("lossless compl")


def test_zsh_functions_complete_rules_and_devices(run, tmp_path):
    script = _script(run, tmp_path, "zsh")
    text = script.read_text()
    # the script's own functions, run with zsh's completion builtins replaced by printing
    start = text.index("_lossless_rules() {")
    end = text.index("# End Custom Preamble")
    functions = tmp_path / "functions.zsh"
    functions.write_text(text[start:end])
    program = (
        f"source {functions}\n"
        'compadd() { print -l -- "${(@P)2}" }\n'
        '_values() { shift 3; print -l -- "$@" }\n'
        f"words=(lossless render {POD} --device ''); CURRENT=5\n"
        "_lossless_devices; _lossless_rules\n"
    )
    done = subprocess.run(["zsh", "-c", program], capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.split()
    assert lines[:2] == ["leaf[01:32]", "spine[01:16]"]
    assert "LL112" in lines and "ecn-before-pfc" in lines


def test_tcsh_completes_rules(run):
    out = run("completion", "tcsh").out
    assert "n/--select/(LL101 " in out and " ecn-before-pfc " in out


def test_install_lines_create_their_folder(run):
    help_text = run("completion", "--help").out
    readme = (REPO / "docs" / "getting-started.md").read_text()
    for folder in (
        "~/.local/share/bash-completion/completions",
        "~/.zfunc",
        "~/.config/fish/completions",
    ):
        assert f"mkdir -p {folder}" in " ".join(help_text.split())
        assert f"mkdir -p {folder}" in readme


# An inventory from a pull request under review: device keys written to run a command when
# a reviewer presses TAB after --device (bash's compgen -W expands its word list).
_HOSTILE_KEYS = ("$(touch${IFS}pwned1)", "`touch${IFS}pwned2`", "leaf$(touch${IFS}pwned3)")


def _hostile_inventory(folder):
    keys = "".join(f"  {key!r}: {{}}\n" for key in _HOSTILE_KEYS)
    path = folder / "pr.yaml"
    path.write_text(f"fabric: {{name: f}}\ndevices:\n{keys}  leaf1: {{}}\n  leaf;ls: {{}}\n")
    return path


def _nothing_ran(folder) -> None:
    assert not [p.name for p in folder.iterdir() if p.name.startswith("pwned")]


def test_bash_offers_device_names_as_data_never_runs_them(run, tmp_path):
    script = _script(run, tmp_path, "bash")
    inventory = _hostile_inventory(tmp_path)
    for typed in ("", "$", "l", "leaf1,"):
        words = ("lossless", "render", str(inventory), "--device", typed)
        program = (
            f"source {script}\n"
            f"COMP_WORDS=({' '.join(repr(w) for w in words)}); COMP_CWORD=4\n"
            '_shtab_lossless; printf "%s\\n" "${COMPREPLY[@]}"\n'
        )
        done = subprocess.run(
            ["bash", "-c", program], capture_output=True, text=True, timeout=30, cwd=tmp_path
        )
        assert done.returncode == 0, done.stderr
        offered = done.stdout.split()
        _nothing_ran(tmp_path)
        assert all(word.split(",")[-1] == "leaf1" for word in offered), offered
    assert offered == ["leaf1,leaf1"]


def test_zsh_offers_device_names_as_data_never_runs_them(run, tmp_path):
    script = _script(run, tmp_path, "zsh")
    text = script.read_text()
    functions = tmp_path / "functions.zsh"
    functions.write_text(text[text.index("_lossless_rules() {") : text.index("# End Custom")])
    inventory = _hostile_inventory(tmp_path)
    program = (
        f"source {functions}\n"
        'compadd() { print -l -- "${(@P)2}" }\n'
        f"words=(lossless render {inventory} --device ''); CURRENT=5\n"
        "_lossless_devices\n"
    )
    done = subprocess.run(
        ["zsh", "-c", program], capture_output=True, text=True, timeout=30, cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    _nothing_ran(tmp_path)
    assert done.stdout.split() == ["leaf1"]


def test_fish_offers_device_names_as_data_never_runs_them(run, tmp_path):
    script = _script(run, tmp_path, "fish")
    inventory = _hostile_inventory(tmp_path)
    done = subprocess.run(
        [
            "fish",
            "--no-config",
            "-c",
            f"source {script}; complete -C 'lossless render {inventory} --device '",
        ],
        capture_output=True,
        text=True,
        timeout=30,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    _nothing_ran(tmp_path)
    assert [row.split("\t")[0] for row in done.stdout.splitlines()] == ["leaf1"]


def test_offered_names_are_the_schemas_device_names(run, tmp_path):
    """The awk filter and the schema's `name_or_range` agree, key by key."""
    import json
    import random
    import re

    schema = json.loads((REPO / "schemas" / "inventory.schema.json").read_text())
    rule = schema["$defs"]["name_or_range"]
    script = _script(run, tmp_path, "bash")
    pick = random.Random(35)
    alphabet = "aZ09_.-[]:$`;(){}~*?!|&<>\\é"
    keys = {"".join(pick.choice(alphabet) for _ in range(pick.randint(1, 7))) for _ in range(600)}
    parts = ["a", "Z", "0", "_", ".", "-", "[1:4]", "[0:8:2]", "[1:]", "$(id)"]
    keys |= {"".join(pick.choices(parts, k=pick.randint(1, 5))) for _ in range(300)}
    keys |= {"a[1:2]", "a[1:2:3]b", "[1:2]x", ".a", "-a", "a" * 128, "a" * 129, "x[1:]", "x[a:b]"}
    keys = {key for key in keys if not key.startswith(("-", "#")) and ": " not in key}
    keys = {key for key in keys if not key.endswith(":")}  # the key would end earlier
    inventory = tmp_path / "many.yaml"
    inventory.write_text("devices:\n" + "".join(f"  {key}: 1\n" for key in sorted(keys)))
    program = (
        f"source {script}\n"
        f"COMP_WORDS=(lossless plan {inventory} --device ''); COMP_CWORD=4\n"
        '_shtab_lossless; printf "%s\\n" "${COMPREPLY[@]}"\n'
    )
    done = subprocess.run(
        ["bash", "-c", program], capture_output=True, text=True, timeout=60, cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    valid = {k for k in keys if re.fullmatch(rule["pattern"], k) and len(k) <= rule["maxLength"]}
    assert len(valid) > 20 and len(keys - valid) > 200
    assert sorted(done.stdout.split()) == sorted(valid)
