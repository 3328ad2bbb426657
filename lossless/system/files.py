"""Files from untrusted places: read with a size cap, and never outside a given folder.

Inventories come from pull requests and configs from switches, so a path may name a FIFO
(reading would wait forever), a device (/dev/zero never ends) or a symlink out of the folder
the user pointed us at. These two helpers are the only way input files are opened.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from lossless.errors import InputError, Problem, UsageError

# An inventory of a 100,000-GPU fabric written with ranges is well under 1 MiB and a full
# running config of a large chassis a few MiB; 64 MiB leaves room for both.
MAX_INPUT_BYTES = 64 * 1024 * 1024
# A name that becomes a file name: no path separator, no hidden file, no "." or "..".
_SAFE_NAME = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9_.-]*")


def is_safe_name(name: str) -> bool:
    return bool(_SAFE_NAME.fullmatch(name))


def read_bounded(path: str | Path, what: str, limit: int = MAX_INPUT_BYTES) -> bytes:
    """The bytes of a regular file of at most `limit` bytes, else bad input naming the file.

    Opened non-blocking so a FIFO is refused instead of waited on; the type is checked on the
    open descriptor, so the file cannot be swapped between the check and the read.
    """
    with _open_regular(path, what) as (descriptor, size):
        # Asked for its stated size and a byte more (reading limit + 1 bytes at once costs a
        # buffer of the limit per file); the rest only when it holds more than it said.
        data = _read(descriptor, min(size, limit) + 1)
        if len(data) > size:
            data += _read(descriptor, limit + 1 - len(data))
    if len(data) > limit:
        raise InputError([Problem(str(path), 1, 1, "", f"{what} is larger than {_amount(limit)}")])
    return data


def read_start(path: str | Path, what: str, size: int) -> bytes:
    """The first `size` bytes of a regular file (all of a shorter one): where only the start
    of what a file holds is shown, a longer file is not an error."""
    with _open_regular(path, what) as (descriptor, _):
        return _read(descriptor, size)


def _read(descriptor: int, size: int) -> bytes:
    """`size` bytes from the descriptor, fewer only at the end of the file. Read on the
    descriptor itself: making a buffered file object per file was ~2 % of reading a fabric's
    saved state (100,000 files at 32,768 GPUs)."""
    data = os.read(descriptor, size)
    if not data or len(data) == size:
        return data
    parts = [data]
    wanted = size - len(data)
    while wanted > 0:
        part = os.read(descriptor, wanted)
        if not part:
            break
        parts.append(part)
        wanted -= len(part)
    return b"".join(parts)


@contextmanager
def _open_regular(path: str | Path, what: str) -> Iterator[tuple[int, int]]:
    """The open descriptor and the file's stated size; bad input naming the file when it
    cannot be opened or is not a regular file."""
    file = str(path)
    try:
        descriptor = os.open(file, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0))
    except OSError as error:
        raise InputError(
            [Problem(file, 1, 1, "", f"cannot read {what}: {error.strerror}")]
        ) from None
    try:
        info = os.fstat(descriptor)
        if not stat.S_ISREG(info.st_mode):
            message = (
                f"is a folder, not a {what}"
                if stat.S_ISDIR(info.st_mode)
                else f"{what} is not a regular file"
            )
            raise InputError([Problem(file, 1, 1, "", message)])
        yield descriptor, info.st_size
    finally:
        os.close(descriptor)


def _amount(limit: int) -> str:
    """64 MiB, 4 KiB, 64 bytes: a size limit as it was chosen."""
    for unit, name in ((2**20, "MiB"), (2**10, "KiB")):
        if limit >= unit and limit % unit == 0:
            return f"{limit // unit} {name}"
    return f"{limit} bytes"


def read_text(path: str | Path, what: str) -> str:
    """The text of a regular, size-capped UTF-8 file, with newlines as open() reads them and
    no byte-order mark; bad input at the line and column of a byte that is not UTF-8."""
    raw = read_bounded(path, what)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        before = raw[: error.start]
        line = before.count(b"\n") + 1
        column = len(before) - (before.rfind(b"\n") + 1) + 1
        message = (
            f"not UTF-8: byte 0x{raw[error.start]:02x} cannot start or continue a character "
            "(save the file as UTF-8)"
        )
        raise InputError([Problem(str(path), line, column, "", message)]) from None
    text = text.removeprefix("\ufeff")
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text


def inside(folder: Path, name: str, what: str, root: Path | None = None) -> Path:
    """folder/name, refused (usage error) when it resolves outside folder, symlinks included;
    with `root`, outside root instead (folder is a folder of root's, already checked)."""
    candidate = folder / name
    if name not in ("", ".", "..") and os.sep not in name and (os.altsep or os.sep) not in name:
        # An entry of the folder itself that is not a symlink (or nothing yet) is inside it:
        # one lstat instead of resolving both paths (render checks 1,280 targets)
        try:
            if not stat.S_ISLNK(os.lstat(candidate).st_mode):
                return candidate
        except FileNotFoundError:
            return candidate
        except OSError:
            pass  # resolved below
    limit = folder if root is None else root
    try:
        top, resolved = limit.resolve(), candidate.resolve()
        escapes = resolved == top or not resolved.is_relative_to(top)
    except (OSError, RuntimeError):  # a symlink loop
        escapes = True
    if escapes:
        raise UsageError(f"{what}: {candidate} leads outside {limit}; refused")
    return candidate


def read_config(path: str) -> str:
    """A config file's text (a regular file, size-capped, UTF-8), or bad input naming it."""
    return read_text(path, "config")
