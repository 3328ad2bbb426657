"""Where a command's one text output goes: stdout, or a file written atomically."""

from __future__ import annotations

import sys
from pathlib import Path


def write_text(output: str | None, text: str) -> Path | None:
    """`text` to stdout when `output` is None or '-', else atomically to that file; the
    file written (None for stdout), for the command's own 'wrote ...' line."""
    if output in (None, "-"):
        sys.stdout.write(text)
        return None
    from lossless.system.writing import write_atomically  # its worker pool: only to write

    target = Path(output)
    write_atomically(target.parent, {target.name: text})
    return target
