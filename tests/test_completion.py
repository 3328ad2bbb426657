"""`lossless completion`: the generated script completes commands, options and choices."""

from __future__ import annotations

import shutil
import subprocess

import pytest


def _complete(script_path, *words: str) -> list[str]:
    line = " ".join(words)
    program = (
        f"source {script_path}\n"
        f"COMP_WORDS=({' '.join(repr(w) for w in words)}); COMP_CWORD={len(words) - 1}\n"
        f"COMP_LINE={line!r}; COMP_POINT=${{#COMP_LINE}}\n"
        '_shtab_lossless; printf "%s\\n" "${COMPREPLY[@]}"\n'
    )
    done = subprocess.run(
        ["bash", "-c", program], capture_output=True, text=True, check=True, timeout=30
    )
    return done.stdout.split()


@pytest.fixture
def bash_script(run, tmp_path):
    if shutil.which("bash") is None:
        pytest.skip("no bash")
    result = run("completion", "bash")
    assert result.code == 0
    path = tmp_path / "lossless.bash"
    path.write_text(result.out)
    subprocess.run(["bash", "-n", str(path)], check=True, timeout=30)  # valid syntax
    return path


def test_bash_completes_commands_options_and_choices(bash_script):
    assert _complete(bash_script, "lossless", "ren") == ["render"]
    assert _complete(bash_script, "lossless", "sch") == ["schema"]
    assert _complete(bash_script, "lossless", "render", "lab.yaml", "--os", "") == [
        "sonic",
        "cumulus",
        "eos",
        "nxos",
        "junos",
    ]
    assert _complete(bash_script, "lossless", "lint", "lab.yaml", "--for") == ["--format"]
    assert "codeclimate" in _complete(bash_script, "lossless", "lint", "x", "--format", "")


@pytest.mark.parametrize("shell", ["zsh", "tcsh"])
def test_other_shells_get_a_script(run, shell):
    result = run("completion", shell)
    assert result.code == 0 and "lossless" in result.out and "render" in result.out
