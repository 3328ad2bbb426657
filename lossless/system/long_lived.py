"""Build large, long-lived object trees without the cyclic garbage collector rescanning them.

An inventory and its plan are trees of plain objects (98,304 port plans and as many ports at
32,768 GPUs) that live until the run ends and hold no reference cycles. While they are built,
the collector's default thresholds make it rescan everything built so far every few
thousand allocations: that was 40 % of the CPU time of loading and planning such a fabric,
and more of linting it afterwards. So the collector is paused while the tree is built, and
what exists then is frozen (gc.freeze): later collections skip it. Reference counting still
frees every frozen object whose last reference goes, so nothing acyclic is kept alive.

Work over a frozen plan can build large structures of its own that live until the work is
done: the deadlock check's channels, routes and dependencies (a million objects at 131,072
GPUs). A full collection scans every object not frozen, and one comes whenever the objects
that survived since the last one are a quarter more than those that survived it, so such a
structure is scanned about five times over while it grows: 1.5 of the 2 CPU s of the lint
rules at 131,072 GPUs went to it. The collector is paused for such work (collector_paused),
and collects whatever cycles it left once it ends.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def building_long_lived() -> Iterator[None]:
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if enabled:
            gc.enable()


@contextmanager
def collector_paused() -> Iterator[None]:
    """The cyclic collector off while a bounded piece of work builds and drops structures of
    its own (reference counting frees them), on again after: any cycle left is collected
    then. Worker processes forked meanwhile inherit the pause."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
