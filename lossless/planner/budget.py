"""Buffer budget per device: reserved headroom (and shared headroom pool) against the ASIC."""

from __future__ import annotations

import math

from lossless.asics import Asic
from lossless.plan import BudgetPlan, HeadroomSettings
from lossless.planner.derivation import Derivation
from lossless.planner.headroom_common import HeadroomResult


def plan_budget(
    asic: Asic,
    settings: HeadroomSettings,
    headrooms: list[HeadroomResult],
    d: Derivation,
    key: str,
) -> BudgetPlan:
    reserved = sum(h.size for h in headrooms)
    d.step("reserved", "sum of size over lossless PGs", f"{len(headrooms)} PGs", reserved)
    pool = 0
    ratio = None
    if settings.shared_headroom_pool:
        ratio = settings.over_subscribe_ratio or 1
        total_xoff = sum(h.xoff for h in headrooms)
        # Shared headroom pool = sum of xoff / over_subscribe_ratio (docs/reference/physics.md 2.2
        # [SRC]).
        pool = int(
            d.step(
                "shared_headroom_pool",
                "ceil(sum(xoff) / over_subscribe_ratio)",
                f"ceil({total_xoff} / {ratio})",
                math.ceil(total_xoff / ratio),
            )
        )
    total = int(
        d.step(
            "total_headroom",
            "reserved + shared_headroom_pool",
            f"{reserved} + {pool}",
            reserved + pool,
        )
    )
    buffer = asic.buffer_bytes
    d.constant("buffer_bytes", buffer, asic.source("buffer_bytes"))
    shared = utilisation = fits = None
    if buffer is not None:
        shared = int(
            d.step(
                "shared_buffer", "buffer - total_headroom", f"{buffer} - {total}", buffer - total
            )
        )
        utilisation = round(100 * total / buffer, 2)
        fits = total <= buffer
    else:
        d.notes.append("no published buffer size for this ASIC: the budget cannot be checked")
    return BudgetPlan(
        buffer_bytes=buffer,
        buffer_evidence=asic.evidence("buffer_bytes") if buffer is not None else "none",
        lossless_pgs=len(headrooms),
        reserved_headroom_bytes=reserved,
        shared_headroom_pool_bytes=pool,
        over_subscribe_ratio=ratio,
        total_headroom_bytes=total,
        shared_buffer_bytes=shared,
        utilisation_percent=utilisation,
        fits=fits,
        largest_port_headroom_bytes=max((h.size for h in headrooms), default=0),
        max_headroom_per_port_bytes=asic.max_headroom_per_port_bytes,
        derivation=key,
    )
