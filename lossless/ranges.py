"""Name ranges in the Ansible inventory style: ``Ethernet[0:252:4]``, ``leaf[01:32]``.

``[start:end]`` and ``[start:end:step]`` are inclusive; a start written with leading zeros
sets the width (``[01:32]`` -> 01, 02, ... 32). Several ranges in one name expand as a
cartesian product, leftmost outermost: ``leaf[1:2]:Ethernet[0:4:4]`` ->
leaf1:Ethernet0, leaf1:Ethernet4, leaf2:Ethernet0, leaf2:Ethernet4.
"""

from __future__ import annotations

import itertools
import re

_RANGE_RE = re.compile(r"\[([0-9]+):([0-9]+)(?::([0-9]+))?\]")
MAX_EXPANSION = 1_000_000


class RangeError(ValueError):
    pass


def _numbers(start_text: str, end_text: str, step_text: str | None) -> list[str]:
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
    width = len(start_text) if start_text.startswith("0") and len(start_text) > 1 else 0
    return [str(n).zfill(width) for n in range(start, end + 1, step)]


def is_range(text: str) -> bool:
    return "[" in text or "]" in text


def expand(text: str) -> list[str]:
    """Expand every ``[a:b(:s)]`` in text; a stray bracket is an error, not a name."""
    pieces: list[list[str]] = []
    position = 0
    for match in _RANGE_RE.finditer(text):
        literal = text[position : match.start()]
        if "[" in literal or "]" in literal:
            break
        pieces.append([literal])
        pieces.append(_numbers(*match.groups()))
        position = match.end()
    tail = text[position:]
    if "[" in tail or "]" in tail:
        raise RangeError(
            f"{text!r}: a range is written [start:end] or [start:end:step] with whole numbers"
        )
    pieces.append([tail])
    count = 1
    for piece in pieces:
        count *= len(piece)
    if count > MAX_EXPANSION:
        raise RangeError(f"{text!r} expands to {count:,} names (at most {MAX_EXPANSION:,})")
    return ["".join(parts) for parts in itertools.product(*pieces)]
