"""One rich Console setup: plain text when piped (deterministic width, no colour)."""

from __future__ import annotations

import sys

from rich.console import Console

PIPE_WIDTH = 200


def console() -> Console:
    if sys.stdout.isatty():
        return Console(highlight=False)
    return Console(width=PIPE_WIDTH, color_system=None, highlight=False, soft_wrap=True)
