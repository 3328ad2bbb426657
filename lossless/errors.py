"""Problems in user input, reported as FILE:LINE:COL: path: message (exit code 2)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, order=True)
class Problem:
    """One thing wrong with an input file, located as precisely as we can."""

    file: str
    line: int  # 1-based
    column: int  # 1-based
    path: str  # dotted path to the node, e.g. "devices.leaf1.ports.Ethernet0.speed"
    message: str

    def __str__(self) -> str:
        where = f"{self.path}: " if self.path else ""
        return f"{self.file}:{self.line}:{self.column}: {where}{self.message}"


class InputError(Exception):
    """Bad input: one or more problems; the CLI prints them and exits 2."""

    def __init__(self, problems: list[Problem]):
        self.problems = sorted(set(problems))
        super().__init__("\n".join(str(p) for p in self.problems))

    def __reduce__(self) -> tuple[type, tuple[list[Problem]]]:
        return InputError, (self.problems,)  # from a worker process, as it was raised


class UsageError(Exception):
    """A command-line value that makes no sense (exit code 2)."""
