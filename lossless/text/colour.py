"""Colour on a terminal: whether to use it, and text painted with ANSI SGR sequences.

`--color auto|always|never` as ls, grep and ruff take it: `always` and `never` are the user's
word and win; `auto` colours only a terminal (not a file, a pipe or `TERM=dumb`), never when
NO_COLOR is set to a non-empty value (https://no-color.org: "Command-line software which
adds ANSI color to its output by default should check for a NO_COLOR environment variable
that, when present and not an empty string (regardless of its value), prevents the addition
of ANSI color"), and always when FORCE_COLOR is set to a non-empty value
(https://force-color.org), a CI log that shows colours though it is not a terminal. NO_COLOR
wins over FORCE_COLOR. A file (--output-file) is coloured only with `always`: CI runners set
FORCE_COLOR for their logs, not for the report files they keep.

The sequences are ECMA-48 Select Graphic Rendition (`ESC [ n m`: 1 bold, 31 red, 33 yellow,
32 green, 0 reset). Painted text must already be printable (lossless.text.printable): the
only escape characters in a line are then the ones added here. Imports nothing of lossless.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TextIO

CHOICES = ("auto", "always", "never")

_STYLES = {
    "error": "1;31",  # bold red
    "warning": "1;33",  # bold yellow
    "clean": "32",  # green
    "bold": "1",
}


def wants_colour(choice: str, stream: TextIO | None, environ: Mapping[str, str]) -> bool:
    """Whether output to `stream` (None: a file) is coloured, for --color `choice` (see the
    module)."""
    if choice not in CHOICES:
        raise ValueError(choice)
    if choice != "auto":
        return choice == "always"
    if stream is None:  # a report file is an artifact, not a log: FORCE_COLOR is for logs
        return False
    if environ.get("NO_COLOR"):
        return False
    if environ.get("FORCE_COLOR"):
        return True
    if environ.get("TERM") == "dumb":
        return False
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty and isatty())
    except ValueError:  # a closed stream
        return False


def paint(text: str, style: str) -> str:
    """`text` in `style` (a severity, "clean" or "bold"), the colour reset after it."""
    return f"\x1b[{_STYLES[style]}m{text}\x1b[0m"
