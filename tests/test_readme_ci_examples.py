"""README's CI examples work as written, once the user replaces what README marks as theirs:
the placeholders are marked (no tag or organisation that does not exist), `pre-commit
try-repo` runs on a local clone, the local pre-commit hook runs, and the GitHub workflow's
shell steps run in order against a clone (its install line given the clone's `git+file://`
URL and commit, as README says a user gives theirs), failing and passing as they should.

The clone is the working tree as one commit (tests/test_install.py's snapshot). The tests that
build an environment download lossless's dependencies from the package index (mark
`install`); the local-hook test needs only pre-commit (the `test` extra)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest
import yaml
from conftest import INVENTORIES, REPO
from test_install import _git, _run, _snapshot

README = (REPO / "docs" / "ci.md").read_text()  # the CI recipes (they were README's)
PLACEHOLDER_CLONE = "/path/to/your/lossless-clone"


def _pre_commit() -> str:
    found = shutil.which("pre-commit") or str(Path(sys.executable).parent / "pre-commit")
    if not Path(found).exists():
        pytest.skip("pre-commit is not installed: pip install -e '.[test]'")
    return found


def _yaml_block(first_line: str) -> str:
    start = README.index(f"```yaml\n{first_line}") + len("```yaml\n")
    return README[start : README.index("```", start)]


def _fabric(tmp_path: Path, config: str | None = None) -> Path:
    """A fabric repository as README describes it: inventory/fabric.yaml, configs/."""
    fabric = tmp_path / "fabric"
    (fabric / "inventory").mkdir(parents=True)
    shutil.copy(INVENTORIES / "lab.yaml", fabric / "inventory" / "fabric.yaml")
    shutil.copytree(
        REPO / "golden" / "lab", fabric / "configs", ignore=shutil.ignore_patterns("README.md")
    )
    if config is not None:
        (fabric / ".pre-commit-config.yaml").write_text(config)
    _git(fabric, "init", "-q")
    _git(fabric, "add", "-A")
    _git(fabric, "commit", "-q", "-m", "lab fabric")
    return fabric


def _break_mtu(fabric: Path) -> None:
    inventory = fabric / "inventory" / "fabric.yaml"
    text = inventory.read_text()
    assert "\n    mtu: 9100\n" in text
    inventory.write_text(text.replace("\n    mtu: 9100\n", "\n    mtu: 1500\n", 1))
    _git(fabric, "add", "-A")


# -- the placeholders are marked, and nothing names a tag that does not exist ---------------


def test_readme_names_no_release_tag_or_organisation_of_its_own():
    assert "ORG/lossless" not in README.replace("YOUR-ORG/lossless", "")
    assert not re.search(r"rev: v\d|@v\d+\.\d+", README)
    config = _yaml_block("# .pre-commit-config.yaml of a fabric repository\n")
    [repo_line] = [line for line in config.splitlines() if "- repo:" in line]
    [rev_line] = [line for line in config.splitlines() if line.strip().startswith("rev:")]
    assert "YOUR-ORG" in repo_line and "# REPLACE" in repo_line
    assert "COMMIT-SHA" in rev_line and "# REPLACE" in rev_line


def test_every_install_line_of_the_ci_examples_is_marked():
    lines = [line for line in README.splitlines() if "git+https://" in line]
    assert lines
    for line in lines:
        assert "YOUR-ORG" in line and "COMMIT" in line, line
    workflow = _yaml_block("# .github/workflows/lossless.yml\n")
    gitlab = _yaml_block("# .gitlab-ci.yml\n")
    for block in (workflow, gitlab):
        assert "# REPLACE YOUR-ORG and COMMIT-SHA" in block


# -- pre-commit ------------------------------------------------------------------------------


def _try_repo_line() -> list[str]:
    [line] = [
        line.strip() for line in README.splitlines() if line.strip().startswith("pre-commit try-")
    ]
    words = line.split()
    assert PLACEHOLDER_CLONE in words and "--files" in words
    return words


@pytest.mark.install
def test_readme_try_repo_line_on_a_local_clone(tmp_path):
    pre_commit = _pre_commit()
    clone = _snapshot(tmp_path / "lossless")
    fabric = _fabric(tmp_path)
    words = [str(clone) if w == PLACEHOLDER_CLONE else w for w in _try_repo_line()]
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home")}
    env.pop("PRE_COMMIT", None)

    def try_repo():
        return _run(pre_commit, *words[1:], cwd=fabric, env=env)

    passed = try_repo()
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert "Passed" in passed.stdout
    _break_mtu(fabric)
    failed = try_repo()
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert "LL109" in failed.stdout


def test_readme_local_hook_with_lossless_installed(tmp_path):
    pre_commit = _pre_commit()
    config = _yaml_block("# .pre-commit-config.yaml of a fabric repository, lossless already")
    assert "repo: local" in config and "language: system" in config
    fabric = _fabric(tmp_path, config)
    # the environment that runs pre-commit has lossless: this one's, first on PATH
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    env = {**os.environ, "PATH": path, "PRE_COMMIT_HOME": str(tmp_path / "home")}
    env.pop("PRE_COMMIT", None)
    passed = _run(pre_commit, "run", "--all-files", cwd=fabric, env=env)
    assert passed.returncode == 0, passed.stdout + passed.stderr
    _break_mtu(fabric)
    failed = _run(pre_commit, "run", "--all-files", cwd=fabric, env=env)
    assert failed.returncode == 1 and "LL109" in failed.stdout, failed.stdout + failed.stderr


# -- the GitHub workflow's shell steps, in order ---------------------------------------------


def _workflow_steps() -> list[dict]:
    workflow = yaml.safe_load(_yaml_block("# .github/workflows/lossless.yml\n"))
    [job] = workflow["jobs"].values()
    return job["steps"]


def test_the_workflow_is_what_the_runner_expects():
    steps = _workflow_steps()
    uses = [step["uses"].split("@")[0] for step in steps if "uses" in step]
    assert uses == ["actions/checkout", "actions/setup-python", "github/codeql-action/upload-sarif"]
    runs = [step["run"] for step in steps if "run" in step]
    assert runs[0].startswith('pip install "lossless @ git+https://github.com/YOUR-ORG/lossless@')
    assert [step.get("if") for step in steps if "run" in step] == [None, None, "failure()"]


def _run_steps(fabric: Path, env: dict, clone_url: str) -> tuple[list[tuple[str, int, str]], bool]:
    """Each step as the runner takes it: a `run:` in bash (GitHub's default shell on
    Linux, `bash -e {0}`), an `if: failure()` step only after a failed one; `uses:` steps are
    the runner's (checkout: the fabric is the working folder; setup-python: the venv on PATH;
    upload-sarif: only its condition, the SARIF file, is checked)."""
    done: list[tuple[str, int, str]] = []
    failed = False
    for step in _workflow_steps():
        condition = step.get("if")
        if "uses" in step:
            if "upload-sarif" in step["uses"]:
                done.append(("upload-sarif", int(not (fabric / "lossless.sarif").is_file()), ""))
            continue
        if (condition == "failure()") != failed:
            continue
        command = re.sub(
            r"git\+https://github\.com/YOUR-ORG/lossless@COMMIT-SHA", clone_url, step["run"]
        )
        result = subprocess.run(
            ["bash", "-e", "-c", command],
            cwd=fabric,
            env=env,
            capture_output=True,
            text=True,
            timeout=900,
            stdin=subprocess.DEVNULL,
        )
        done.append((command, result.returncode, result.stdout + result.stderr))
        failed = failed or result.returncode != 0
    return done, failed


@pytest.mark.install
def test_readme_github_workflow_steps_on_a_local_clone(tmp_path):
    clone = _snapshot(tmp_path / "lossless")
    commit = _git(clone, "rev-parse", "HEAD")
    env_dir = tmp_path / "venv"  # setup-python's interpreter, with nothing installed
    venv.EnvBuilder(with_pip=True).create(env_dir)
    env = {**os.environ, "PATH": f"{env_dir / 'bin'}{os.pathsep}{os.environ['PATH']}"}
    env.pop("VIRTUAL_ENV", None)
    url = f"git+file://localhost{clone}@{commit}"  # a host: older pip rejects file:///

    fabric = _fabric(tmp_path)
    steps, failed = _run_steps(fabric, env, url)
    assert not failed, "\n\n".join(f"$ {c}\nexit {code}\n{out[-3000:]}" for c, code, out in steps)
    assert [s[0].split()[0] for s in steps] == ["pip", "lossless", "upload-sarif"]
    assert (env_dir / "bin" / "lossless").is_file()  # installed from the clone's URL
    assert f"lossless @ {url}" in steps[0][0]
    assert steps[1][2].count("::error") == 0

    _break_mtu(fabric)
    steps, failed = _run_steps(fabric, env, url)
    assert failed
    gate, sarif, diff = steps[1], steps[2], steps[3]
    assert gate[1] == 1 and "::error" in gate[2] and "LL109" in gate[2]
    assert sarif == ("upload-sarif", 0, "")  # the SARIF file is there for code scanning
    assert diff[0].startswith("lossless render") and diff[1] == 1
    assert "changed: configs/leaf1.json" in diff[2] and "+++ " in diff[2]
