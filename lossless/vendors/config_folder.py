"""A folder of device configs: each device's config found in it (backups as Oxidized and
RANCID name them, or our own renders), and how it differs from what the inventory renders
(`render --check`).

Missing: a device's file is not there. Changed: it is there with other text. Orphan: a
config file (by its extension) that no device of the inventory renders, such as the file
of a device since removed or moved to another OS.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from lossless.errors import UsageError
from lossless.system.files import inside, read_bounded
from lossless.system.writing import drifted
from lossless.vendors.registry import vendors

BACKUP_SUFFIXES = ("", ".cfg", ".conf", ".txt", ".json", ".yaml")


def folder_entries(folder: Path, what: str = "--running") -> dict[str, os.DirEntry[str]]:
    """The folder's entries by name, read once for all its devices (a stat of every name a
    backup may have, per device, cost a tenth of a second at 1,280 devices)."""
    try:
        with os.scandir(folder) as entries:
            return {entry.name: entry for entry in entries}
    except OSError as error:
        raise UsageError(f"{what} {folder}: {error.strerror}") from None


def find_backup(
    folder: Path,
    device: str,
    extension: str,
    what: str = "--running",
    entries: dict[str, os.DirEntry[str]] | None = None,
) -> Path | None:
    """The device's backup in folder (`<device>.<ext>`, or as backup tools name it: Oxidized's
    bare name, .cfg, .conf, ...); one that leads outside it (a symlink) is refused. `entries`:
    the folder's, when the caller looks up many devices (folder_entries)."""
    if entries is None:
        entries = folder_entries(folder, what)
    for suffix in (f".{extension}", *BACKUP_SUFFIXES):
        entry = entries.get(f"{device}{suffix}")
        if entry is None:
            continue
        if entry.is_symlink():
            return inside(folder, entry.name, what)
        if not entry.is_dir():  # a file of the folder itself: inside it
            return folder / entry.name
    return None


@dataclass
class FolderCheck:
    missing: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    orphans: list[str] = field(default_factory=list)

    @property
    def clean(self) -> bool:
        return not (self.missing or self.changed or self.orphans)


def config_extensions() -> set[str]:
    return {f".{vendor.extension}" for vendor in vendors()}


def orphan_files(folder: Path, every_file: Iterable[str]) -> list[str]:
    """Config files in folder that none of `every_file` (all the inventory renders) names."""
    if not folder.is_dir():
        return []
    expected = set(every_file)
    extensions = config_extensions()
    return sorted(
        path.name
        for path in folder.iterdir()
        if path.is_file()
        and not path.name.startswith(".")
        and path.suffix in extensions
        and path.name not in expected
    )


def check_folder(
    folder: Path, names: list[str], text_of: Callable[[int], str], every_file: Iterable[str]
) -> FolderCheck:
    """The files `names` (the i-th with the text text_of(i)) against what is in folder."""
    result = FolderCheck(orphans=orphan_files(folder, every_file))
    # read as render reads: bounded, no FIFO, no escape
    for name in drifted(folder, names, text_of):
        (result.changed if (folder / name).exists() else result.missing).append(name)
    return result


def unified_diff(folder: Path, name: str, rendered: str | None) -> str:
    """The change that rendering would make to folder/name (None: the file would go)."""
    path = folder / name
    before = read_bounded(path, "-o").decode("utf-8", "replace") if path.is_file() else ""
    return "".join(
        difflib.unified_diff(
            before.splitlines(keepends=True),
            (rendered or "").splitlines(keepends=True),
            fromfile=str(path) if path.is_file() else "/dev/null",
            tofile=f"rendered/{name}" if rendered is not None else "/dev/null",
        )
    )
