"""Recorded show-command outputs (tests/data/verify) served the way napalm's MockDriver serves
`cli()`: one file per command of a call, named `cli.<call>.<command with every run of
[^a-zA-Z0-9] replaced by _>.<index of the command in the call>` (napalm/base/mock.py)."""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable
from pathlib import Path

from lossless.inventory import load_inventory
from lossless.observed import DeviceState, Output
from lossless.plan import DevicePlan
from lossless.planner.fabric import plan_fabric

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


LAB = VERIFY_DATA / "lab"


def lab_device(name: str) -> DevicePlan:
    """The plan of one device of inventories/lab.yaml, whose recordings are in LAB."""
    inventory = Path(__file__).parent.parent / "inventories" / "lab.yaml"
    return plan_fabric(load_inventory(inventory)).devices[name]


def lab_outputs(device: str, stage: str, fault: str | None = None) -> dict[str, Output]:
    """A device's JSON recordings of a stage (before/after); a fault's files replace the
    stage's."""
    folders = [LAB / stage / device] + ([LAB / "faults" / fault / device] if fault else [])
    found = {}
    for folder in folders:
        for path in sorted(folder.glob("*.json")):
            found[path.stem] = Output(path.read_text(), str(path))
    return found


def check_mock_driver_serves(
    read: Callable[[dict[str, Output], DevicePlan], DeviceState],
    device: DevicePlan,
    commands: dict[str, str],
    target: Path,
) -> None:
    """napalm's MockDriver answers cli() with the device's after/ recordings, and the state
    read from those answers is the state read from the files (but for where it came from)."""
    from napalm.base.mock import MockDriver

    recorded_dir = LAB / "after" / device.name
    mock_folder(recorded_dir, target, commands)
    driver = MockDriver(device.name, "user", "secret", optional_args={"path": str(target)})
    driver.open()
    answers = driver.cli(list(commands.values()))
    assert answers == {c: (recorded_dir / f"{s}.json").read_text() for s, c in commands.items()}
    live = read(
        {s: Output(str(answers[c]), f"{device.name}: {c}") for s, c in commands.items()}, device
    )
    assert live.source == "live"
    files = read(lab_outputs(device.name, "after"), device)
    assert live.ports.keys() == files.ports.keys()
    for name, port in live.ports.items():
        assert vars(port) | {"source": "", "sources": {}} == vars(files.ports[name]) | {
            "source": "",
            "sources": {},
        }
