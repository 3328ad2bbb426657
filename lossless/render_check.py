"""`render --check`: how a folder of configs differs from what the inventory renders.

Missing: a device's file is not there. Changed: it is there with other text. Orphan: a
config file (by its extension) that no device of the inventory renders, such as the file
of a device since removed or moved to another OS.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from lossless.system.files import read_bounded
from lossless.system.writing import drifted
from lossless.vendors import VENDORS


@dataclass
class FolderCheck:
    missing: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    orphans: list[str] = field(default_factory=list)

    @property
    def clean(self) -> bool:
        return not (self.missing or self.changed or self.orphans)


def config_extensions() -> set[str]:
    return {f".{vendor.EXTENSION}" for vendor in VENDORS.values()}


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
