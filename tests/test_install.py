"""A newcomer's install, for real: the wheel in a fresh virtual environment outside the
tree, and the pre-commit hooks as a fabric repository installs them. Both download from the
package index and take about a minute each."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest
from conftest import INVENTORIES, REPO

pytestmark = pytest.mark.install

LAB = INVENTORIES / "lab.yaml"


def _run(*argv, cwd: Path, env: dict | None = None, timeout: int = 900):
    return subprocess.run(
        [str(a) for a in argv],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )


_NOT_SOURCE = {
    ".git",
    ".venv",
    "out",
    "build",
    "dist",
    "__pycache__",
    ".pytest_cache",
    ".mypy_cache",
    ".ruff_cache",
    ".hypothesis",
}


def _source_files() -> list[str]:
    """The tree's files: what git tracks or would track, or (an sdist) every file but caches."""
    listed = _run("git", "ls-files", "-z", "-c", "-o", "--exclude-standard", cwd=REPO)
    if listed.returncode == 0:
        return [name for name in listed.stdout.split("\0") if name]
    return [
        str(path.relative_to(REPO))
        for path in REPO.rglob("*")
        if path.is_file() and not _NOT_SOURCE & set(path.relative_to(REPO).parts)
    ]


def _snapshot(target: Path) -> Path:
    """The working tree as it is (tracked and new files), as a one-commit git repository."""
    for name in _source_files():
        source = REPO / name
        if source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
    _git(target, "init", "-q")
    _git(target, "add", "-A")
    _git(target, "commit", "-q", "-m", "snapshot")
    return target


def _git(where: Path, *argv: str) -> str:
    done = _run(
        "git",
        "-c",
        "user.name=test",
        "-c",
        "user.email=test@example.invalid",
        "-c",
        "commit.gpgsign=false",
        *argv,
        cwd=where,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    tree = _snapshot(tmp_path_factory.mktemp("src"))
    built = _run(sys.executable, "-m", "pip", "wheel", "--no-deps", "-w", out, tree, cwd=out)
    assert built.returncode == 0, built.stdout + built.stderr
    [path] = out.glob("lossless-*.whl")
    return path


def test_the_wheel_works_in_a_fresh_environment_without_the_extras(wheel, tmp_path):
    from lossless import __version__

    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    python = env_dir / "bin" / "python"
    installed = _run(python, "-m", "pip", "install", "--quiet", wheel, cwd=tmp_path)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    lossless = env_dir / "bin" / "lossless"
    work = tmp_path / "work"  # outside the source tree: templates and schemas from the wheel
    work.mkdir()
    shutil.copy(LAB, work / "lab.yaml")
    no_extras = _run(python, "-c", "import napalm", cwd=work)
    assert no_extras.returncode != 0  # the deploy extra is really absent

    def lossless_ok(*argv: str) -> str:
        done = _run(lossless, *argv, cwd=work)
        assert done.returncode == 0, (argv, done.stdout, done.stderr)
        return done.stdout

    assert lossless_ok("--version").strip() == f"lossless {__version__}"
    assert "fabric lab: 6 devices" in lossless_ok("validate", "lab.yaml")
    assert "written" in lossless_ok("render", "lab.yaml", "-o", "out")
    for name in ("leaf1.json", "leaf2.yaml", "leaf3.cfg", "leaf4.conf", "spine1.cfg"):
        assert (work / "out" / name).read_text() == (REPO / "golden" / "lab" / name).read_text()
    checked = lossless_ok("render", "lab.yaml", "-o", "out", "--check")
    assert "0 missing, 0 changed, 0 orphans" in checked
    # the lab's one warning: leaf4, a QFX5220, has no PFC watchdog (LL114)
    assert lossless_ok("lint", "lab.yaml").strip().endswith("0 errors, 1 warning")
    assert '"$id"' in lossless_ok("schema", "inventory")
    assert "_shtab_lossless" in lossless_ok("completion", "bash")
    for command in (["diff", "lab.yaml", "--live"], ["push", "lab.yaml", "--all"]):
        live = _run(lossless, *command, cwd=work)
        assert live.returncode == 2, (command, live.stdout, live.stderr)
        # the extra from where this lossless came from: the wheel file (PEP 610 record)
        assert "'lossless[deploy] @ file://" in live.stderr and "-m pip install" in live.stderr
        assert "Traceback" not in live.stderr + live.stdout


def _documented_pre_commit_config() -> str:
    text = (REPO / "docs" / "ci.md").read_text()
    start = text.index("```yaml\n# .pre-commit-config.yaml") + len("```yaml\n")
    return text[start : text.index("```", start)]


def test_pre_commit_hooks_pass_on_the_lab_and_fail_after_an_mtu_change(tmp_path):
    pre_commit = shutil.which("pre-commit") or str(Path(sys.executable).parent / "pre-commit")
    if not Path(pre_commit).exists():
        pytest.fail("pre-commit is not installed (it is in the test extra)")
    hooks_repo = _snapshot(tmp_path / "lossless")
    revision = _git(hooks_repo, "rev-parse", "HEAD")

    fabric = tmp_path / "fabric"
    (fabric / "inventory").mkdir(parents=True)
    shutil.copy(LAB, fabric / "inventory" / "fabric.yaml")
    shutil.copytree(REPO / "golden" / "lab", fabric / "configs")
    (fabric / "configs" / "README.md").unlink(missing_ok=True)
    config = _documented_pre_commit_config()
    lines = config.splitlines()
    [repo_line] = [line for line in lines if line.strip().startswith("- repo:")]
    [rev_line] = [line for line in lines if line.strip().startswith("rev:")]
    config = config.replace(repo_line, f"  - repo: {hooks_repo}").replace(
        rev_line, f"    rev: {revision}"
    )
    (fabric / ".pre-commit-config.yaml").write_text(config)
    _git(fabric, "init", "-q")
    _git(fabric, "add", "-A")
    _git(fabric, "commit", "-q", "-m", "lab fabric")
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home")}
    env.pop("PRE_COMMIT", None)

    def pre_commit_run(*argv: str):
        return _run(pre_commit, *argv, "--all-files", cwd=fabric, env=env)

    clean = pre_commit_run("run")
    assert clean.returncode == 0, clean.stdout + clean.stderr
    for hook in ("lossless-validate", "lossless-lint"):  # no args: they find the inventory
        tried = pre_commit_run("try-repo", str(hooks_repo), hook, "--ref", revision)
        assert tried.returncode == 0, tried.stdout + tried.stderr

    inventory = fabric / "inventory" / "fabric.yaml"
    inventory.write_text(inventory.read_text().replace("    mtu: 9100\n", "    mtu: 1500\n"))
    _git(fabric, "add", "-A")
    broken = pre_commit_run("run")
    assert broken.returncode == 1, broken.stdout + broken.stderr
    assert "LL109" in broken.stdout  # server NIC MTU above the switch's
    assert "changed: configs/leaf1.json" in broken.stdout  # render-check sees the drift
    tried = pre_commit_run("try-repo", str(hooks_repo), "lossless-lint", "--ref", revision)
    assert tried.returncode == 1 and "LL109" in tried.stdout
