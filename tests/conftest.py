from __future__ import annotations

import contextlib
import functools
import io
import json
import os
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

from lossless.cli.main import main
from lossless.report.plan_compact import expand

# Property tests explore new inputs on every local run; in CI (CI=true) they replay the same
# ones, so a submission's result does not depend on the draw. A counterexample found locally
# becomes a test of its own (see test_headroom_properties.py).
settings.register_profile("ci", derandomize=True)
if os.environ.get("CI") == "true":
    settings.load_profile("ci")

REPO = Path(__file__).resolve().parent.parent
# The documentation: README.md (the site's home page) and every page under docs/ (mkdocs.yml)
DOCS_PAGES = [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]


def docs_page(name: str) -> str:
    """The text of README.md or of docs/<name>."""
    return (REPO / name if name == "README.md" else REPO / "docs" / name).read_text()


INVENTORIES = REPO / "inventories"
# Reference data the tests check against, copied into the repository so that any checkout
# (and the sdist) runs the tests; tests/data/README.md says where each file comes from.
DATA = REPO / "tests" / "data"
REFERENCE = DATA / "reference"
SONIC_YANG = DATA / "sonic-yang"
EXAMPLES = sorted(INVENTORIES.glob("*.yaml"))


def walk(data: Any, path: tuple = ()) -> Iterator[tuple[tuple, Any]]:
    """(path, node) for every node of JSON-like data, the root first."""
    yield path, data
    if isinstance(data, dict):
        for key, value in data.items():
            yield from walk(value, (*path, key))
    elif isinstance(data, list):
        for index, value in enumerate(data):
            yield from walk(value, (*path, index))


class Run:
    def __init__(self, code: int, out: str, err: str):
        self.code, self.out, self.err = code, out, err


@pytest.fixture
def run(capsys):
    def _run(*argv: str) -> Run:
        code = main(list(argv))
        captured = capsys.readouterr()
        return Run(code, captured.out, captured.err)

    return _run


@pytest.fixture
def write(tmp_path):
    def _write(text: str, name: str = "inv.yaml") -> Path:
        path = tmp_path / name
        path.write_text(textwrap.dedent(text).lstrip("\n"))
        return path

    return _write


MINIMAL = """
fabric:
  name: t
devices:
  leaf1:
    role: leaf
    os: sonic
    asic: spectrum-4
    ports:
      Ethernet[0:4:4]: {speed: 400G}
  spine1:
    role: spine
    os: eos
    asic: tomahawk-5
    ports:
      Ethernet1/1: {speed: 400G}
servers:
  gpu1:
    nics:
      eth0: {speed: 400G}
links:
  - {a: leaf1:Ethernet0, b: gpu1:eth0, cable_m: 2}
  - {a: leaf1:Ethernet4, b: spine1:Ethernet1/1, cable_m: 40}
"""


# The lab's one finding (issue 36): leaf4 is a QFX5220, which has no PFC watchdog (LL114, a
# warning, from the plan as from a config read back).
LAB_WARNING = ("LL114", "leaf4")


def beyond_the_lab_warning(findings: list) -> list:
    """Findings (Finding objects or lint's JSON dicts) but the lab's LL114 warning on leaf4."""

    def of(finding: Any, key: str) -> Any:
        return finding[key] if isinstance(finding, dict) else getattr(finding, key)

    return [f for f in findings if (of(f, "rule"), of(f, "device")) != LAB_WARNING]


def cli(*argv: str) -> tuple[int, str]:
    """lossless in this process: its exit code and standard output (standard error dropped)."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = main(list(argv))
    return code, out.getvalue()


@functools.cache
def plan_json(inventory: Path) -> dict:
    """`lossless plan INVENTORY --format json`, expanded to the per-port form."""
    code, out = cli("plan", str(inventory), "--format", "json")
    assert code == 0
    return expand(json.loads(out))
