"""Per-device work of a large fabric spread over the machine's CPUs.

Rendering, comparing and diffing the configs of 1,280 switches, encoding the plan JSON, and
the lint rules, are independent and CPU-bound in Python. The workers are forked from this
process once the plan is built, so they share it copy-on-write: nothing is pickled but an
index going out and each result coming back. This process computes items too (from the back
of the list, while the workers take theirs from the front), so LOSSLESS_JOBS=2 is one worker
and this process. Results come back in order, so output is the same as one process writes.
A result must be small to pay: pickling back 100 MB of rendered text or plan JSON cost what
the second CPU saved, so workers write rendered files themselves and return their names, and
large bytes come back through a temporary file (ordered_bytes). Work whose items make and
free much but return little (verify's reading of saved state) can be kept out of this
process (here=False): a worker per job then, this process only taking results. Small
fabrics, systems without fork, and LOSSLESS_JOBS=1 run in this process.

One piece of work that only this process would do (ci's plan JSON: 2.6 s at 131,072 GPUs,
while the render and the lint rules spread over every CPU) can run beside the rest in a
process of its own (in_background), which then uses no workers itself.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, TypeVar

from lossless.errors import UsageError

if TYPE_CHECKING:
    from concurrent.futures import Future, ProcessPoolExecutor

# multiprocessing and concurrent.futures (25 ms of imports) are imported where work goes to
# worker processes: a command on a small fabric, or on one device of a large one (a pull
# request's lint), never starts any (tests/test_imports.py).

Result = TypeVar("Result")

# Below this many items the pool's start-up (about 30 ms) costs more than it saves.
MIN_ITEMS = 128
MAX_JOBS = 4

_work: Callable[[int], Any] | None = None  # what the forked workers call, set before forking
# The items not claimed yet are [front, back): workers claim from the front, this process
# from the back. Shared memory with its lock, made before forking.
_bounds: Any = None
_background = False  # this process is in_background's: it forks no workers of its own


def jobs() -> int:
    """Processes to use, this one included: LOSSLESS_JOBS if set, else the CPUs this process
    may run on (at most MAX_JOBS). One in the process of in_background's work."""
    if _background:
        return 1
    stated = os.environ.get("LOSSLESS_JOBS", "").strip()
    if stated.isdigit() and int(stated) > 0:
        return int(stated)
    try:
        available = len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        available = os.cpu_count() or 1
    return max(1, min(available, MAX_JOBS))


def _call(first: int, end: int) -> list[Any]:
    """In a worker: the results of the chunk's items up to the first one this process has
    claimed (it claims from the back, so what it took of a chunk is the chunk's tail)."""
    assert _work is not None
    results = []
    for index in range(first, end):
        with _bounds.get_lock():
            if index >= _bounds[1]:
                break
            _bounds[0] = max(_bounds[0], index + 1)
        results.append(_work(index))
    return results


def _claim_from_back() -> int | None:
    with _bounds.get_lock():
        if _bounds[1] <= _bounds[0]:
            return None
        _bounds[1] -= 1
        return int(_bounds[1])


def _in_workers(count: int, worthwhile: bool | None = None) -> bool:
    """Whether count items go to worker processes: `worthwhile` says so (by default count >=
    MIN_ITEMS), there are CPUs for two processes, and the system forks."""
    if worthwhile is None:
        worthwhile = count >= MIN_ITEMS
    if not worthwhile or jobs() < 2:
        return False
    import multiprocessing

    return "fork" in multiprocessing.get_all_start_methods()


def ordered_map(
    work: Callable[[int], Result],
    count: int,
    chunk: int = 8,
    worthwhile: bool | None = None,
    here: bool = True,
) -> Iterator[Result]:
    """work(0), work(1), ... work(count - 1), in order, computed by this process and forked
    workers when that pays: `worthwhile` says so, or by default count >= MIN_ITEMS. `chunk`:
    items a worker takes at a time. here False: this process computes none (a worker per
    job instead): where each item makes and frees much (verify's parsed outputs) and its
    result is small, this process's time is then only taking results, which is what the
    run's wall time waits on. A worker's exception is raised here. A worker that dies (the
    kernel's out-of-memory killer) does not hang the run: the items not yet back are
    computed here."""
    if not _in_workers(count, worthwhile):
        yield from (work(index) for index in range(count))
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    processes = jobs()
    global _work, _bounds
    context = multiprocessing.get_context("fork")
    _work, _bounds = work, context.Array("q", [0, count])
    ready: dict[int, Result] = {}  # computed, not yet yielded
    done = 0  # items yielded
    try:
        with ProcessPoolExecutor(processes - 1 if here else processes, mp_context=context) as pool:
            for index, result in _shared(work, count, chunk, pool, ready, here):
                yield result
                done = index + 1
    except BrokenProcessPool:
        for index in range(done, count):
            yield ready.pop(index) if index in ready else work(index)
    finally:
        _work, _bounds = None, None


def _shared(
    work: Callable[[int], Result],
    count: int,
    chunk: int,
    pool: ProcessPoolExecutor,
    ready: dict[int, Result],
    here: bool = True,
) -> Iterator[tuple[int, Result]]:
    """(index, result) in order. Every chunk goes to the workers at once; they claim items
    from the front and this process from the back, one at a time, until they meet: this
    process would otherwise only wait, and what it computes costs no copy-on-write faults
    and no pickling. Callers order their items heaviest first, so the small ones are left
    for this process, which yields results in between."""
    in_flight: deque[tuple[int, Future[list[Result]]]] = deque(
        (first, pool.submit(_call, first, min(first + chunk, count)))
        for first in range(0, count, chunk)
    )
    next_out = 0
    try:
        while next_out < count:
            while in_flight and in_flight[0][1].done():
                first, future = in_flight.popleft()
                ready.update(enumerate(future.result(), start=first))
            while next_out in ready:
                yield next_out, ready.pop(next_out)
                next_out += 1
            index = _claim_from_back() if here else None
            if index is not None:
                ready[index] = work(index)
            elif in_flight:  # all claimed (or none claimed here): wait for the workers'
                first, future = in_flight.popleft()
                ready.update(enumerate(future.result(), start=first))
    finally:
        with _bounds.get_lock():  # an error here: the workers skip what is left
            _bounds[1] = 0


def ordered_bytes(work: Callable[[int], bytes], count: int, chunk: int = 8) -> Iterator[bytes]:
    """ordered_map of work that makes large bytes (a 32k fabric's plan JSON is 200 MB):
    each process appends what it makes to a temporary file of its own and sends back where,
    as pickling the bytes back cost what the second CPU saved; this process reads them from
    there in order. One process, or few items: work(i) as it comes."""
    if not _in_workers(count):
        yield from (work(index) for index in range(count))
        return
    import tempfile

    with tempfile.TemporaryDirectory(prefix="lossless-") as folder:
        spools: dict[int, int] = {}  # pid -> that process's file, opened in this process

        def spooled(index: int) -> tuple[int, int, int]:
            data = work(index)
            pid = os.getpid()
            if pid not in spools:
                spools[pid] = os.open(os.path.join(folder, str(pid)), os.O_RDWR | os.O_CREAT)
            offset = os.lseek(spools[pid], 0, os.SEEK_END)
            written = 0
            try:
                while written < len(data):  # a file takes it whole but for a full disk
                    written += os.pwrite(spools[pid], data[written:], offset + written)
            except OSError as error:
                raise UsageError(f"temporary file in {folder}: {error.strerror}") from None
            return pid, offset, len(data)

        try:
            for pid, offset, length in ordered_map(spooled, count, chunk):
                if pid not in spools:  # a worker's file
                    spools[pid] = os.open(os.path.join(folder, str(pid)), os.O_RDONLY)
                yield os.pread(spools[pid], length, offset)
        finally:
            for descriptor in spools.values():
                os.close(descriptor)


class Background:
    """Work running in a forked process (in_background): result() waits for it and gives
    what it returned, or raises what it raised. Leaving the `with` block without result()
    (an error here) still waits for the process, so its own clean-up (a temporary file
    removed) is done when this process goes on; an interrupt reaches both."""

    def __init__(self, work: Callable[[], Any], fork: bool):
        self._work = work
        self._pid = 0
        self._outcome: tuple[bool, Any] | None = None
        if not fork:
            self._outcome = _outcome(work)
            return
        import sys

        for stream in (sys.stdout, sys.stderr):  # nothing pending written twice
            stream.flush()
        incoming, outgoing = os.pipe()
        self._pid = os.fork()
        if self._pid == 0:  # the forked process: the work, its outcome down the pipe
            global _background
            _background = True
            os.close(incoming)
            outcome = _outcome(work)
            for stream in (sys.stdout, sys.stderr):
                stream.flush()
            _send(outgoing, outcome)
            os._exit(0)  # no clean-up of this process's: the parent owns it
        os.close(outgoing)
        self._incoming = incoming

    def __enter__(self) -> Background:
        return self

    def __exit__(self, *exc_info: object) -> None:
        if self._pid:
            self._wait()

    def result(self) -> Any:
        if self._pid:
            self._wait()
        assert self._outcome is not None
        succeeded, value = self._outcome
        if succeeded:
            return value
        raise value

    def _wait(self) -> None:
        import pickle

        with os.fdopen(self._incoming, "rb") as incoming:
            data = incoming.read()
        os.waitpid(self._pid, 0)
        self._pid = 0
        # a process that died before saying (the out-of-memory killer): the work done here
        self._outcome = pickle.loads(data) if data else _outcome(self._work)


def _outcome(work: Callable[[], Any]) -> tuple[bool, Any]:
    try:
        return True, work()
    except BaseException as error:  # raised where the result is taken
        return False, error


def _send(descriptor: int, outcome: tuple[bool, Any]) -> None:
    import pickle

    try:
        data = pickle.dumps(outcome)
    except Exception as error:  # an unpicklable result or error: said as what it is
        data = pickle.dumps((False, RuntimeError(f"{outcome[1]!r} ({error})")))
    with os.fdopen(descriptor, "wb") as outgoing:
        outgoing.write(data)


def in_background(work: Callable[[], Any], worthwhile: bool) -> Background:
    """work() in a forked process of its own while this one goes on, when `worthwhile` and
    there are CPUs for two processes and the system forks; otherwise done here at once.
    Take its result, or its exception, with result() (use it as a `with` block)."""
    return Background(work, _in_workers(1, worthwhile))
