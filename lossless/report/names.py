"""Lists of names written back in the inventory's range notation, for people to read:
leaf01 .. leaf32 -> leaf[01:32], Ethernet0, Ethernet4 .. Ethernet252 -> Ethernet[0:252:4].

The inverse of lossless.ranges.expand, which checks each range made here: a range is only
written when it expands to exactly the names it replaces."""

from __future__ import annotations

import re
from collections.abc import Sequence

from lossless.text import ranges

_PIECES = re.compile(r"([0-9]+)")


def name_ranges(names: Sequence[str]) -> list[str]:
    """The names in order, each run of names that differ in one number that steps evenly
    written as one range (a run of one stays a name)."""
    written: list[str] = []
    run: list[str] = []
    step: _Step | None = None
    for name in names:
        if run:
            step = step or _step(run[0], name)
            if step is not None and name == step.name(len(run)):
                run.append(name)
                continue
            written += _written(run, step)
        run, step = [name], None
    if run:
        written += _written(run, step)
    return written


class _Step:
    """Names that differ from a first one only in the number at piece `at`."""

    def __init__(self, pieces: list[str], at: int, step: int):
        self.pieces, self.at, self.step = pieces, at, step
        start = pieces[at]
        self.width = len(start) if start.startswith("0") and len(start) > 1 else 0

    def number(self, index: int) -> str:
        return str(int(self.pieces[self.at]) + self.step * index).zfill(self.width)

    def name(self, index: int) -> str:
        return "".join(self.pieces[: self.at]) + self.number(index) + self._tail()

    def _tail(self) -> str:
        return "".join(self.pieces[self.at + 1 :])

    def range(self, count: int) -> str:
        bounds = f"{self.pieces[self.at]}:{self.number(count - 1)}"
        step = f":{self.step}" if self.step > 1 else ""
        return "".join(self.pieces[: self.at]) + f"[{bounds}{step}]" + self._tail()


def _step(first: str, second: str) -> _Step | None:
    a, b = _PIECES.split(first), _PIECES.split(second)
    if len(a) != len(b):
        return None
    differing = [i for i, (x, y) in enumerate(zip(a, b, strict=True)) if x != y]
    if len(differing) != 1 or differing[0] % 2 == 0:  # the odd pieces are the numbers
        return None
    at = differing[0]
    step = int(b[at]) - int(a[at])
    return _Step(a, at, step) if step > 0 else None


def _written(run: list[str], step: _Step | None) -> list[str]:
    """The run as one range when it expands back to exactly these names, else as names."""
    if len(run) == 1 or step is None:
        return list(run)
    text = step.range(len(run))
    try:
        if ranges.expand(text) == run:
            return [text]
    except ranges.RangeError:
        pass
    return list(run)


def names_text(names: Sequence[str]) -> str:
    return ", ".join(name_ranges(names))
