"""Per-device work of a large fabric spread over the machine's CPUs.

Rendering, comparing and diffing the configs of 1,280 switches, and the lint rules, are
independent and CPU-bound in Python. The workers are forked from this process once the plan
is built, so they share it copy-on-write: nothing is pickled but an index going out and each
result coming back. Results come back in order, so output is the same as one process writes.
A result must be small to pay: sending back 100 MB of rendered text or plan JSON cost what
the second CPU saved, so workers write rendered files themselves and return their names.
Small fabrics, systems without fork, and LOSSLESS_JOBS=1 run in this process.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

Result = TypeVar("Result")

# Below this many items the pool's start-up (about 30 ms) costs more than it saves.
MIN_ITEMS = 128
MAX_JOBS = 4

_work: Callable[[int], Any] | None = None  # what the forked workers call, set before forking


def jobs() -> int:
    """Worker processes to use: LOSSLESS_JOBS if set, else the CPUs this process may run on
    (at most MAX_JOBS)."""
    stated = os.environ.get("LOSSLESS_JOBS", "").strip()
    if stated.isdigit() and int(stated) > 0:
        return int(stated)
    try:
        available = len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        available = os.cpu_count() or 1
    return max(1, min(available, MAX_JOBS))


def _call(index: int) -> Any:
    assert _work is not None
    return _work(index)


def ordered_map(
    work: Callable[[int], Result], count: int, chunk: int = 8, worthwhile: bool | None = None
) -> Iterator[Result]:
    """work(0), work(1), ... work(count - 1), in order, computed by forked workers when that
    pays: `worthwhile` says so, or by default count >= MIN_ITEMS. `chunk`: items a worker
    takes at a time. A worker's exception is raised here. A worker that dies (the kernel's
    out-of-memory killer) does not hang the run: the items not yet back are computed here."""
    workers = jobs()
    if worthwhile is None:
        worthwhile = count >= MIN_ITEMS
    if workers < 2 or not worthwhile or "fork" not in multiprocessing.get_all_start_methods():
        yield from (work(index) for index in range(count))
        return
    global _work
    _work = work
    done = 0
    try:
        context = multiprocessing.get_context("fork")
        with ProcessPoolExecutor(workers, mp_context=context) as pool:
            for result in pool.map(_call, range(count), chunksize=chunk):
                yield result
                done += 1
    except BrokenProcessPool:
        yield from (work(index) for index in range(done, count))
    finally:
        _work = None
