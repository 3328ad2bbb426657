"""Recorded show-command outputs (tests/data/verify) served the way napalm's MockDriver serves
`cli()`: one file per command of a call, named `cli.<call>.<command with every run of
[^a-zA-Z0-9] replaced by _>.<index of the command in the call>` (napalm/base/mock.py)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

VERIFY_DATA = Path(__file__).parent / "data" / "verify"


def napalm_cli_name(command: str, call: int, index: int) -> str:
    return f"cli.{call}.{re.sub('[^a-zA-Z0-9]+', '_', command)}.{index}"


def recorded(recorded_dir: Path, stem: str) -> Path | None:
    """The recording of a command stem in a device's folder (any extension), or None."""
    found = sorted(recorded_dir.glob(f"{stem}.*"))
    return found[0] if found else None


def mock_folder(recorded_dir: Path, target: Path, commands: dict[str, str], call: int = 1) -> Path:
    """Copy a device's recordings (recorded_dir/<stem>.<ext>) into target under napalm's
    names for call number `call` of cli(list(commands.values())); a stem without a
    recording gets no file (the mock then fails that call, as a device without the command
    would)."""
    target.mkdir(parents=True, exist_ok=True)
    for index, (stem, command) in enumerate(commands.items()):
        source = recorded(recorded_dir, stem)
        if source is not None:
            shutil.copyfile(source, target / napalm_cli_name(command, call, index))
    return target
