"""Per-device work of a large fabric spread over the machine's CPUs.

Rendering, comparing and diffing the configs of 1,280 switches, and the lint rules, are
independent and CPU-bound in Python. The workers are forked from this process once the plan
is built, so they share it copy-on-write: nothing is pickled but an index going out and each
result coming back. This process computes items too (from the back of the list, while the
workers take theirs from the front), so LOSSLESS_JOBS=2 is one worker and this process.
Results come back in order, so output is the same as one process writes.
A result must be small to pay: sending back 100 MB of rendered text or plan JSON cost what
the second CPU saved, so workers write rendered files themselves and return their names.
Small fabrics, systems without fork, and LOSSLESS_JOBS=1 run in this process.
"""

from __future__ import annotations

import multiprocessing
import os
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

Result = TypeVar("Result")

# Below this many items the pool's start-up (about 30 ms) costs more than it saves.
MIN_ITEMS = 128
MAX_JOBS = 4

_work: Callable[[int], Any] | None = None  # what the forked workers call, set before forking


def jobs() -> int:
    """Processes to use, this one included: LOSSLESS_JOBS if set, else the CPUs this process
    may run on (at most MAX_JOBS)."""
    stated = os.environ.get("LOSSLESS_JOBS", "").strip()
    if stated.isdigit() and int(stated) > 0:
        return int(stated)
    try:
        available = len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        available = os.cpu_count() or 1
    return max(1, min(available, MAX_JOBS))


def _call(first: int, end: int) -> list[Any]:
    assert _work is not None
    return [_work(index) for index in range(first, end)]


def ordered_map(
    work: Callable[[int], Result], count: int, chunk: int = 8, worthwhile: bool | None = None
) -> Iterator[Result]:
    """work(0), work(1), ... work(count - 1), in order, computed by this process and forked
    workers when that pays: `worthwhile` says so, or by default count >= MIN_ITEMS. `chunk`:
    items a worker takes at a time. A worker's exception is raised here. A worker that dies
    (the kernel's out-of-memory killer) does not hang the run: the items not yet back are
    computed here."""
    processes = jobs()
    if worthwhile is None:
        worthwhile = count >= MIN_ITEMS
    if processes < 2 or not worthwhile or "fork" not in multiprocessing.get_all_start_methods():
        yield from (work(index) for index in range(count))
        return
    global _work
    _work = work
    ready: dict[int, Result] = {}  # computed, not yet yielded
    done = 0  # items yielded
    try:
        context = multiprocessing.get_context("fork")
        with ProcessPoolExecutor(processes - 1, mp_context=context) as pool:
            for index, result in _shared(work, count, chunk, pool, processes - 1, ready):
                yield result
                done = index + 1
    except BrokenProcessPool:
        for index in range(done, count):
            yield ready.pop(index) if index in ready else work(index)
    finally:
        _work = None


def _shared(
    work: Callable[[int], Result],
    count: int,
    chunk: int,
    pool: ProcessPoolExecutor,
    workers: int,
    ready: dict[int, Result],
) -> Iterator[tuple[int, Result]]:
    """(index, result) in order. The workers take chunks from the front, this process takes
    items one at a time from the back, until they meet: this process would otherwise only
    wait, and what it computes costs no copy-on-write faults and no pickling. Callers order
    their items heaviest first, so the small ones are left for this process's turns between
    keeping the workers fed."""
    front, back, next_out = 0, count, 0
    in_flight: deque[tuple[int, Future[list[Result]]]] = deque()
    while next_out < count:
        while len(in_flight) < 2 * workers and front < back:  # one chunk queued per worker
            end = min(front + chunk, back)
            in_flight.append((front, pool.submit(_call, front, end)))
            front = end
        while in_flight and (in_flight[0][1].done() or front >= back):
            first, future = in_flight.popleft()
            ready.update(enumerate(future.result(), start=first))
        while next_out in ready:
            yield next_out, ready.pop(next_out)
            next_out += 1
        if front < back:
            back -= 1
            ready[back] = work(back)
