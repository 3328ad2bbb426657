"""Progress of long runs (hundreds of devices): a bar on a terminal, silent in CI and pipes."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import Any


class ProgressReporter:
    """A progress bar on a terminal; silent in CI and pipes (rich is not even loaded)."""

    def __init__(self, total: int, label: str):
        self._progress: Any = None
        if sys.stderr.isatty():
            from rich.progress import Progress

            # Redrawn here, not by rich's refresh thread: lint --configs forks worker
            # processes while the bar is up (lossless.parallel), and a fork copies no thread
            # but any lock a thread held, such as a stream's.
            self._progress = Progress(transient=True, auto_refresh=False)
        self._task = None
        self._drawn = 0.0
        if self._progress is not None:
            self._progress.start()
            self._task = self._progress.add_task(label, total=total)

    def advance(self, _device: str) -> None:
        if self._progress is not None and self._task is not None:
            self._progress.advance(self._task)
            now = time.monotonic()
            if now - self._drawn >= 0.1:  # ten times a second at most
                self._progress.refresh()
                self._drawn = now

    def close(self) -> None:
        if self._progress is not None:
            self._progress.stop()

    def __enter__(self) -> Callable[[str], None]:
        return self.advance

    def __exit__(self, *_: object) -> None:
        self.close()
