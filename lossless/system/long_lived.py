"""Build large, long-lived object trees without the cyclic garbage collector rescanning them.

An inventory and its plan are trees of plain objects (98,304 port plans and as many ports at
32,768 GPUs) that live until the run ends and hold no reference cycles. While they are built,
the collector's default thresholds make it rescan everything built so far every few
thousand allocations: that was 40 % of the CPU time of loading and planning such a fabric,
and more of linting it afterwards. So the collector is paused while the tree is built, and
what exists then is frozen (gc.freeze): later collections skip it. Reference counting still
frees every frozen object whose last reference goes, so nothing acyclic is kept alive.
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
