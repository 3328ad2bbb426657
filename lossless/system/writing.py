"""Files written atomically: every changed file through a temporary file, made durable, then
renamed over its target, so a failed run leaves no half-written file; and which files of a
folder differ from the texts they should hold (drift)."""

from __future__ import annotations

import fcntl
import io
import os
import pwd
import secrets
import stat
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import BinaryIO, TextIO

from lossless.errors import UsageError
from lossless.system.files import inside, read_bounded
from lossless.system.parallel import ordered_map


@dataclass
class WriteReport:
    written: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)


TEMP_PREFIX = ".lossless-tmp-"  # our temporary files: removed on failure, swept on each run


@dataclass(frozen=True)
class _Target:
    name: str
    path: Path
    data: bytes
    owner: int | None  # uid of the file it replaces, None for a new file
    same: bool  # the file there already holds data


def _check_folder(folder: Path, *, writing: bool, option: str = "-o") -> None:
    """A usage error for an output folder that cannot hold our files (a missing one is made)."""
    if folder.is_symlink() and not folder.exists():
        raise UsageError(
            f"{option} {folder}: a symlink to {os.readlink(folder)}, which does not exist"
        )
    if folder.exists() and not folder.is_dir():
        raise UsageError(f"{option} {folder}: not a folder")
    if writing and folder.exists() and not os.access(folder, os.W_OK | os.X_OK):
        raise UsageError(f"{option} {folder}: not writable")


def _replaceable(path: Path, option: str) -> os.stat_result | None:
    """What is at path now (None: nothing); a usage error when it is not a file we may
    replace."""
    try:
        found = path.stat()
    except (FileNotFoundError, NotADirectoryError):
        return None
    if stat.S_ISDIR(found.st_mode):
        raise UsageError(f"{option} {path.parent}: {path} is a folder, not a file we can replace")
    if not stat.S_ISREG(found.st_mode):
        raise UsageError(f"{option} {path.parent}: {path} is not a regular file")
    return found


def _user(uid: int) -> str:
    try:
        return f"{pwd.getpwuid(uid).pw_name} (uid {uid})"
    except KeyError:
        return f"an unknown user (uid {uid})"


def _check_owner(path: Path, owner: int | None, option: str) -> None:
    """A usage error for a file another user owns: replacing it would take over a file they
    may have planted for us (root rendering into a shared folder)."""
    if owner is None or owner == os.geteuid():
        return
    raise UsageError(
        f"{option} {path.parent}: {path} belongs to {_user(owner)}, not to you; "
        "refused (remove it, or write elsewhere)"
    )


def check_own_folder(folder: Path, option: str) -> None:
    """A usage error for an existing folder another user owns: they may swap or read what we
    write in it, whatever its mode (root writing into a folder another user made)."""
    try:
        owner = folder.stat().st_uid
    except FileNotFoundError:
        return
    if owner != os.geteuid():
        raise UsageError(
            f"{option} {folder}: belongs to {_user(owner)}, not to you; "
            "refused (give a folder of yours)"
        )


def _target(folder: Path, name: str, text: str) -> _Target:
    """What is at folder/name now; a usage error when it is not a file we may replace."""
    path = inside(folder, name, "-o")
    data = text.encode("utf-8")
    found = _replaceable(path, "-o")
    if found is None:
        return _Target(name, path, data, None, False)
    same = found.st_size == len(data) and read_bounded(path, "file", len(data)) == data
    return _Target(name, path, data, found.st_uid, same)


def _write_temporary(folder: Path, target: _Target) -> Path:
    """The target's bytes in a new temporary file beside it: see _temporary_file."""
    return _temporary_file(folder, target.name, lambda stream: stream.write(target.data))


def _temporary_file(folder: Path, name: str, write: Callable[[BinaryIO], object]) -> Path:
    """A new temporary file beside folder/name holding what `write` writes to it, with the
    mode the umask gives (never the mode of the file it will replace, which may be another
    user's setuid or world-writable plant); the temporary file is gone again if that fails."""
    temporary = folder / f"{TEMP_PREFIX}{name}.{secrets.token_hex(4)}"
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    try:
        descriptor = os.open(temporary, flags, 0o666)  # the umask applies, as for any file
        with os.fdopen(descriptor, "wb") as stream:
            write(stream)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    return temporary


@cache
def _syncfs() -> Callable[[int], int] | None:
    """syncfs(2), where the C library has it (Linux)."""
    try:
        import ctypes

        return ctypes.CDLL(None, use_errno=True).syncfs
    except (OSError, AttributeError):
        return None


def _make_durable(directory: int, temporaries: list[Path]) -> None:
    """The temporary files' bytes on the disk before any is renamed over its target: one
    syncfs of the folder's filesystem where there is one (an fsync per file cost 0.3 ms
    each, 0.4 s for the 1,280 configs of a 32k fabric), else an fsync per file."""
    syncfs = _syncfs()
    if syncfs is not None and syncfs(directory) == 0:
        return
    for temporary in temporaries:
        descriptor = os.open(temporary, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        try:
            os.fsync(descriptor)
        finally:
            os.close(descriptor)


def write_atomically(folder: Path, files: dict[str, str]) -> WriteReport:
    """Write every file (name -> text) through a temporary file and a rename, only when its
    text changed: see write_rendered."""
    texts = list(files.values())  # made already: nothing for workers to do but write
    return write_rendered(folder, list(files), lambda index: texts[index], workers=False)


def check_streamable(path: Path, option: str) -> None:
    """A usage error where write_streamed could not write path (its folder not one we may
    write in, the path a folder or another user's file); its folder is made if missing. ci
    checks this before it writes anything else."""
    folder = path.parent
    _check_folder(folder, writing=True, option=option)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        found = _replaceable(path, option)
    except OSError as error:
        raise UsageError(f"{option} {path}: cannot write: {error.strerror}") from None
    _check_owner(path, None if found is None else found.st_uid, option)


def write_streamed(path: Path, write: Callable[[TextIO], object], option: str) -> None:
    """One file whose text `write` streams out (the plan JSON of a 32k fabric is 200 MB, too
    much to hold as well): written into a temporary file beside it, made durable and renamed
    over it, so a failure leaves what was there. A missing folder is made; the file gets the
    mode the umask gives, and one another user owns is refused. `option` names the file in
    messages ("--plan-json")."""
    folder = path.parent

    def write_text(stream: BinaryIO) -> None:
        text = io.TextIOWrapper(stream, encoding="utf-8", newline="")
        write(text)
        text.flush()
        text.detach()  # the binary stream is closed by its owner

    check_streamable(path, option)
    try:
        temporary = _temporary_file(folder, path.name, write_text)
        directory = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
        try:
            _make_durable(directory, [temporary])
            os.replace(temporary, path)
            os.fsync(directory)  # the rename itself reaches the disk
        except BaseException:
            temporary.unlink(missing_ok=True)
            raise
        finally:
            os.close(directory)
    except OSError as error:
        raise UsageError(f"{option} {path}: cannot write: {error.strerror}") from None


def write_rendered(
    folder: Path, names: list[str], text_of: Callable[[int], str], *, workers: bool = True
) -> WriteReport:
    """Write the files `names` (the text of the i-th is text_of(i)) through temporary files
    and renames, only those whose text changed.

    The folder is checked first (a writable folder, or one to make), then each target (not a
    folder, a device, a FIFO or a link out of it) as its text is ready, and each changed text
    goes to a temporary file. All of them are made durable before the first rename, so a bad
    target, a full disk or a failed write leaves no partial output: the temporary files are
    removed (and a folder this run made, if it stays empty). A new or replaced file gets the
    mode the umask gives; a file another user owns is refused, changed or not. An exclusive
    lock on the folder keeps two runs apart, and our temporary files a crash left behind are
    swept. With `workers` (the texts take work to make) and many files, worker processes make
    the texts and write the temporary files (lossless.parallel); this process makes them
    durable and renames them.
    """
    _check_folder(folder, writing=True)
    made = not folder.exists()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        directory = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError as error:
        raise UsageError(f"-o {folder}: {error.strerror}") from None
    report = WriteReport()
    renaming: Path | None = None
    try:
        fcntl.flock(directory, fcntl.LOCK_EX)
        _sweep(folder)
        pending: list[tuple[str, Path, Path]] = []  # name, temporary file, target
        for name, target, temporary in ordered_map(
            lambda index: _prepare(folder, names[index], text_of(index)),
            len(names),
            worthwhile=None if workers else False,
        ):
            if temporary is None:
                report.unchanged.append(name)
            else:
                pending.append((name, temporary, target))
        _make_durable(directory, [temporary for _, temporary, _ in pending])
        for name, temporary, renaming in pending:
            os.replace(temporary, renaming)
            report.written.append(name)
    except BaseException as error:
        _sweep(folder)  # the temporary files not renamed yet, a worker's too
        if made and not any(folder.iterdir()):
            folder.rmdir()
        if isinstance(error, OSError):
            raise UsageError(f"cannot write {renaming or folder}: {error.strerror}") from None
        raise
    finally:
        os.fsync(directory)  # the renames themselves reach the disk
        os.close(directory)
    return report


def _prepare(folder: Path, name: str, text: str) -> tuple[str, Path, Path | None]:
    """The target checked, and the text in a temporary file if it differs from the file
    there: (name, target, temporary file or None)."""
    target = _target(folder, name, text)
    _check_owner(target.path, target.owner, "-o")
    if target.same:
        return name, target.path, None
    try:
        return name, target.path, _write_temporary(folder, target)
    except OSError as error:
        raise UsageError(f"cannot write {target.path}: {error.strerror}") from None


def _sweep(folder: Path) -> None:
    """Remove our temporary files from the folder (we hold its lock)."""
    for entry in os.scandir(folder):
        if entry.name.startswith(TEMP_PREFIX) and not entry.is_dir(follow_symlinks=False):
            os.unlink(entry.path)


def drift(folder: Path, files: dict[str, str]) -> list[str]:
    """Names of the files in folder that differ from (or lack) the rendered text."""
    texts = list(files.values())
    return drifted(folder, list(files), lambda index: texts[index], workers=False)


def drifted(
    folder: Path, names: list[str], text_of: Callable[[int], str], *, workers: bool = True
) -> list[str]:
    """Names of the files `names` in folder that differ from (or lack) their text, the i-th
    text_of(i); on a large fabric rendered and compared by worker processes (`workers`: the
    texts take work to make)."""
    _check_folder(folder, writing=False)
    same = ordered_map(
        lambda index: _target(folder, names[index], text_of(index)).same,
        len(names),
        worthwhile=None if workers else False,
    )
    return [name for name, equal in zip(names, same, strict=True) if not equal]
