"""Name ranges in the Ansible inventory style: ``Ethernet[0:252:4]``, ``leaf[01:32]``.

``[start:end]`` and ``[start:end:step]`` are inclusive; a start written with leading zeros
sets the width (``[01:32]`` -> 01, 02, ... 32). Several ranges in one name expand as a
cartesian product, leftmost outermost: ``leaf[1:2]:Ethernet[0:4:4]`` ->
leaf1:Ethernet0, leaf1:Ethernet4, leaf2:Ethernet0, leaf2:Ethernet4.
"""

from __future__ import annotations

import itertools
import re
from typing import Any

_RANGE_RE = re.compile(r"\[([0-9]+):([0-9]+)(?::([0-9]+))?\]")
MAX_EXPANSION = 1_000_000
MAX_DIGITS = 18


class RangeError(ValueError):
    pass


def _bounds(start_text: str, end_text: str, step_text: str | None) -> tuple[int, int, int]:
    if max(len(start_text), len(end_text), len(step_text or "")) > MAX_DIGITS:
        raise RangeError(f"range numbers have at most {MAX_DIGITS} digits")
    start, end = int(start_text), int(end_text)
    step = int(step_text) if step_text is not None else 1
    if step <= 0:
        raise RangeError(f"range step must be at least 1, not {step}")
    if end < start:
        raise RangeError(f"range [{start_text}:{end_text}] ends before it starts")
    if (end - start) % step:
        raise RangeError(
            f"range [{start_text}:{end_text}:{step}] does not end on a step "
            f"({start} + n*{step} never equals {end})"
        )
    return start, end, step


def _numbers(start_text: str, end_text: str, step_text: str | None) -> list[str]:
    start, end, step = _bounds(start_text, end_text, step_text)
    width = len(start_text) if start_text.startswith("0") and len(start_text) > 1 else 0
    return [str(n).zfill(width) for n in range(start, end + 1, step)]


def is_range(text: str) -> bool:
    return "[" in text or "]" in text


def _split(text: str) -> list[str | tuple[str, str, str | None]]:
    """Literal pieces and (start, end, step) ranges, in order; a stray bracket is an error."""
    pieces: list[str | tuple[str, str, str | None]] = []
    position = 0
    for match in _RANGE_RE.finditer(text):
        literal = text[position : match.start()]
        if "[" in literal or "]" in literal:
            break
        start, end, step = match.groups()
        pieces += [literal, (start, end, step)]
        position = match.end()
    tail = text[position:]
    if "[" in tail or "]" in tail:
        raise RangeError(
            f"{text!r}: a range is written [start:end] or [start:end:step] with whole numbers"
        )
    return [*pieces, tail]


def count(text: str) -> int:
    """How many names text expands to, computed without expanding it."""
    total = 1
    for piece in _split(text):
        if isinstance(piece, tuple):
            start, end, step = _bounds(*piece)
            total *= (end - start) // step + 1
    return total


def expand(text: str) -> list[str]:
    """Expand every ``[a:b(:s)]`` in text; a stray bracket is an error, not a name. Refused
    before anything is built when it would give more than MAX_EXPANSION names."""
    names = count(text)
    if names > MAX_EXPANSION:
        raise RangeError(f"{text!r} expands to {names:,} names (at most {MAX_EXPANSION:,})")
    return _names(_split(text))


def expand_split(text: str, separator: str) -> tuple[list[str], list[str]]:
    """expand(text) with each name partitioned at its first `separator` (str.partition), as
    the names before it and those after it: every pair of the two, the first outermost, is
    one name of expand(text) in its order. A range never holds the separator (its numbers
    are digits), so the first one is in a literal piece. Link ends (`leaf[0001:0128]:
    Ethernet[0:124:4]`) are split so, without writing and splitting every name: 128 device
    names and 32 port names for 4,096 ends."""
    names = count(text)
    if names > MAX_EXPANSION:
        raise RangeError(f"{text!r} expands to {names:,} names (at most {MAX_EXPANSION:,})")
    pieces = _split(text)
    for index, piece in enumerate(pieces):
        if isinstance(piece, str) and separator in piece:
            before, _, after = piece.partition(separator)
            return _names([*pieces[:index], before]), _names([after, *pieces[index + 1 :]])
    return _names(pieces), [""]


def _names(pieces: list[str | tuple[str, str, str | None]]) -> list[str]:
    """The names of pieces (_split's), leftmost outermost."""
    parts = [[p] if isinstance(p, str) else _numbers(*p) for p in pieces]
    return ["".join(names) for names in itertools.product(*parts)]


def runs(keys: list[Any]) -> str:
    """[24, 25, 26, 30] -> '24-26, 30' for sorted integer keys (others listed as they are)."""
    if not all(isinstance(k, int) for k in keys):
        return ", ".join(str(k) for k in keys)
    parts, start, previous = [], keys[0], keys[0]
    for key in [*keys[1:], None]:
        if key is not None and key == previous + 1:
            previous = key
            continue
        parts.append(str(start) if start == previous else f"{start}-{previous}")
        if key is not None:
            start = previous = key
    return ", ".join(parts)
