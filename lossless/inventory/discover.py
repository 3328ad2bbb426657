"""Find the inventory when none is named: what lets the pre-commit hooks run with no `args`.

An inventory is a YAML file with the top-level keys `fabric:` and `devices:`. The files
looked at are those git tracks under the current folder (pre-commit runs hooks at the root
of the repository), or every YAML file below it outside git.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

from lossless.errors import UsageError

_TOP_KEY = re.compile(r"^(fabric|devices)\s*:")
_SKIP_DIRS = {".git", ".venv", "venv", "node_modules", "__pycache__", ".tox", ".nox"}
_MAX_BYTES = 64 * 1024 * 1024  # larger files are not read to find out


def _yaml_files(root: Path) -> list[Path]:
    try:
        listed = subprocess.run(
            [
                "git",
                "ls-files",
                "-z",
                "--cached",
                "--others",
                "--exclude-standard",
                "--",
                "*.yaml",
                "*.yml",
            ],
            cwd=root,
            capture_output=True,
            check=True,
            timeout=60,
        ).stdout.decode()
        return [root / name for name in listed.split("\0") if name]
    except (OSError, subprocess.SubprocessError):
        found = []
        for folder, dirs, names in os.walk(root):
            dirs[:] = sorted(d for d in dirs if d not in _SKIP_DIRS and not d.startswith("."))
            found += [Path(folder) / n for n in sorted(names) if n.endswith((".yaml", ".yml"))]
        return found


def is_inventory(path: Path) -> bool:
    try:
        if not path.is_file() or path.stat().st_size > _MAX_BYTES:
            return False
        keys = set()
        with path.open(encoding="utf-8", errors="replace") as lines:
            for line in lines:
                match = _TOP_KEY.match(line)
                if match:
                    keys.add(match.group(1))
                    if len(keys) == 2:
                        return True
    except OSError:
        return False
    return False


def find_inventories(root: Path | None = None) -> list[Path]:
    base = root or Path.cwd()
    return sorted(
        path.relative_to(base) if path.is_relative_to(base) else path
        for path in _yaml_files(base)
        if is_inventory(path)
    )


def the_inventory(command: str) -> str:
    """The one inventory of the current folder, for a command given none."""
    found = find_inventories()
    if len(found) == 1:
        return str(found[0])
    if not found:
        raise UsageError(
            f"{command}: give an INVENTORY (no YAML file here has top-level fabric: and devices:)"
        )
    listed = ", ".join(str(p) for p in found[:5]) + (", ..." if len(found) > 5 else "")
    raise UsageError(
        f"{command}: {len(found)} inventories here ({listed}); name one "
        "(in a pre-commit hook: args: [path/to/inventory.yaml])"
    )
