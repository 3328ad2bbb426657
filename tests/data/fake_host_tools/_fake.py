"""Shared state of the fake host tools (see README.md)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

SYS = Path(os.environ["LOSSLESS_SYSFS"])
FAKE = SYS / ".fake"


def load(kind: str, name: str, default: dict) -> dict:
    path = FAKE / kind / f"{name}.json"
    return json.loads(path.read_text()) if path.is_file() else dict(default)


def save(kind: str, name: str, state: dict) -> None:
    path = FAKE / kind / f"{name}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(state, sort_keys=True))


def changed(text: str) -> None:
    FAKE.mkdir(parents=True, exist_ok=True)
    with (FAKE / "changes").open("a") as log:
        log.write(text + "\n")


def write_if_different(path: Path, value: str, what: str) -> None:
    current = path.read_text().strip() if path.is_file() else None
    if current != value:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(value + "\n")
        changed(what)


def fail_if_asked(tool: str, target: str) -> None:
    """Fail as a test asked: when .fake/fail/TOOL-TARGET exists, print what it holds (real
    tools print their errors to stdout or stderr; this prints to both halves) and exit 1."""
    path = FAKE / "fail" / f"{tool}-{target}"
    if path.is_file():
        lines = path.read_text().splitlines()
        print("\n".join(lines[:1]))
        if lines[1:]:
            print("\n".join(lines[1:]), file=sys.stderr)
        sys.exit(1)
