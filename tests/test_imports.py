"""What a command imports: rendering or linting a plan imports no config parser (70 ms for
the five OSes), and linting without configs no config reader; a command that reads configs
imports them. Checked in a fresh interpreter, where nothing is imported yet."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from conftest import INVENTORIES, REPO

PARSERS = {f"lossless.vendors.{os}.parse" for os in ("sonic", "cumulus", "eos", "nxos", "junos")}
PARSERS |= {"lossless.vendors.sonic.diff", "lossless.lint.configs"}


def _imported_by(*argv: str) -> set[str]:
    code = (
        "import json, sys\n"
        "from lossless.cli.main import main\n"
        f"main({list(argv)!r})\n"
        "print(json.dumps(sorted(sys.modules)), file=sys.stderr)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, check=False
    )
    return set(json.loads(done.stderr.strip().splitlines()[-1]))


@pytest.mark.parametrize("command", [["lint"], ["render", "-o", "{out}"]])
def test_a_plan_is_linted_and_rendered_without_parsers(command, tmp_path):
    argv = [a.replace("{out}", str(tmp_path / "out")) for a in command]
    imported = _imported_by(argv[0], str(INVENTORIES / "lab.yaml"), *argv[1:])
    assert "lossless.vendors.junos.render" in imported  # the lab has every OS
    assert not imported & PARSERS


def test_configs_that_differ_are_read_by_their_parsers(tmp_path):
    folder = tmp_path / "configs"
    folder.mkdir()
    for path in (REPO / "golden" / "lab").glob("*.*"):
        text = path.read_text()
        (folder / path.name).write_text(text.replace("9100", "9000").replace("9114", "9014"))
    imported = _imported_by("lint", str(INVENTORIES / "lab.yaml"), "--configs", str(folder))
    assert imported >= PARSERS - {"lossless.vendors.sonic.diff"}


def test_a_small_fabric_starts_no_worker_machinery():
    """multiprocessing and concurrent.futures (25 ms of imports) come with the worker
    processes of a large fabric (lossless.system.parallel), not with every command."""
    imported = _imported_by("lint", str(INVENTORIES / "lab.yaml"))
    assert not imported & {"multiprocessing", "concurrent.futures"}
