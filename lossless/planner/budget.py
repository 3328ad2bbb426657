"""Buffer budget per device: the headroom every real port reserves against the ASIC's buffer.

A switch reserves headroom on every port it runs, not only on the ports an inventory lists:
the budget counts the platform's real port count x lossless PGs, the listed ports at their
planned headroom and the others at the largest planned one, plus the lossy PG of every port
(docs/reference/physics.md 4 rule 4). It also checks the two per-port limits where they are
published: the
ASIC's maximum headroom per port, and the shared headroom pool's per-port cap (Spectrum:
(port_max_shp + port_reserved_shp) cells, docs/reference/sonic.md 1.4,
buffer_check_headroom_mellanox.lua).
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass

from lossless.asics import Asic
from lossless.plan import BudgetPlan, HeadroomSettings
from lossless.planner.derivation import Derivation
from lossless.planner.headroom_common import HeadroomResult


@dataclass(frozen=True)
class RealPorts:
    count: int  # ports the switch runs
    source: str  # how the count was found


def plan_budget(
    asic: Asic,
    settings: HeadroomSettings,
    port_headrooms: list[tuple[HeadroomResult, ...]],
    real: RealPorts,
    pgs_per_port: int,
    d: Derivation,
    key: str,
) -> BudgetPlan:
    """port_headrooms: the lossless PGs of each listed lossless port. Ports given the same
    tuple (the planner shares one between the ports alike) are counted together: a switch has
    a few distinct ones among its 64 to 512 ports."""
    d.inputs = {
        "real_ports": real.count,
        "real_ports_source": real.source,
        "listed_lossless_ports": len(port_headrooms),
        "lossless_pgs_per_port": pgs_per_port,
    }
    # each distinct tuple of PGs, in the order of the ports, with how many ports have it
    ports_with = Counter(map(id, port_headrooms))
    distinct = dict(zip(map(id, port_headrooms), port_headrooms, strict=True))
    alike = [(distinct[pgs], count) for pgs, count in ports_with.items()]
    listed_pgs = sum(len(pgs) * count for pgs, count in alike)
    unlisted = max(0, real.count - len(port_headrooms)) if listed_pgs else 0
    # the largest PG, the first of equals in the ports' order (as among every port's PGs)
    largest = max(
        (h for pgs, _ in alike for h in pgs), key=lambda h: (h.size, h.xoff), default=None
    )
    listed_size = sum(h.size * count for pgs, count in alike for h in pgs)
    if unlisted and largest is not None:
        d.notes.append(
            f"{unlisted} ports the inventory does not list are counted with the largest "
            f"planned PG headroom (size {largest.size}, xoff {largest.xoff}) [DERIVED]"
        )
    unlisted_size = unlisted * pgs_per_port * (largest.size if largest else 0)
    lossy = (len(port_headrooms) + unlisted) * asic.lossy_pg_reserved_bytes
    d.constant(
        "lossy_pg_reserved_bytes",
        asic.lossy_pg_reserved_bytes,
        asic.source("lossy_pg_reserved_bytes"),
    )
    reserved = int(
        d.step(
            "reserved",
            "sum(size of listed PGs) + unlisted ports x PGs x largest size + ports x lossy PG",
            f"{listed_size} + {unlisted} x {pgs_per_port} x {largest.size if largest else 0} "
            f"+ {len(port_headrooms) + unlisted} x {asic.lossy_pg_reserved_bytes}",
            listed_size + unlisted_size + lossy,
        )
    )
    pgs = listed_pgs + unlisted * pgs_per_port
    pool = 0
    ratio = None
    if settings.shared_headroom_pool:
        ratio = settings.over_subscribe_ratio or 1
        total_xoff = sum(
            h.xoff * count for pgs, count in alike for h in pgs
        ) + unlisted * pgs_per_port * (largest.xoff if largest else 0)
        # Shared headroom pool = sum of xoff / over_subscribe_ratio (docs/reference/physics.md 2.2
        # [SRC]).
        pool = int(
            d.step(
                "shared_headroom_pool",
                "ceil(sum(xoff over all PGs) / over_subscribe_ratio)",
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
    per_port = [sum(h.size for h in pgs) for pgs, _ in alike]
    per_port_xoff = [sum(h.xoff for h in pgs) for pgs, _ in alike]
    largest_port = max(per_port, default=0) + (asic.lossy_pg_reserved_bytes if listed_pgs else 0)
    largest_port_xoff = max(per_port_xoff, default=0)
    shp_cap = _shp_per_port_cap(asic, settings, d)
    checks = []
    if asic.max_headroom_per_port_bytes is not None:
        d.constant(
            "max_headroom_per_port_bytes",
            asic.max_headroom_per_port_bytes,
            asic.source("max_headroom_per_port_bytes"),
        )
        checks.append(largest_port <= asic.max_headroom_per_port_bytes)
    if shp_cap is not None:
        d.step(
            "largest_port_xoff",
            "sum of xoff over the busiest port's PGs (drawn from the shared headroom pool)",
            f"{len(port_headrooms)} listed ports",
            largest_port_xoff,
        )
        checks.append(largest_port_xoff <= shp_cap)
    return BudgetPlan(
        buffer_bytes=buffer,
        buffer_evidence=asic.evidence("buffer_bytes") if buffer is not None else "none",
        lossless_pgs=pgs,
        reserved_headroom_bytes=reserved,
        shared_headroom_pool_bytes=pool,
        over_subscribe_ratio=ratio,
        total_headroom_bytes=total,
        shared_buffer_bytes=shared,
        utilisation_percent=utilisation,
        fits=fits,
        largest_port_headroom_bytes=largest_port,
        max_headroom_per_port_bytes=asic.max_headroom_per_port_bytes,
        derivation=key,
        ports=real.count,
        ports_source=real.source,
        unlisted_ports=unlisted,
        lossy_pg_bytes=lossy,
        largest_port_xoff_bytes=largest_port_xoff,
        shp_per_port_cap_bytes=shp_cap,
        per_port_fits=all(checks) if checks else None,
    )


def _shp_per_port_cap(asic: Asic, settings: HeadroomSettings, d: Derivation) -> int | None:
    if not settings.shared_headroom_pool or asic.port_max_shp_cells is None:
        return None
    reserved = asic.port_reserved_shp_cells or 0
    d.constant("port_max_shp_cells", asic.port_max_shp_cells, asic.source("port_max_shp_cells"))
    return int(
        d.step(
            "shp_per_port_cap",
            "(port_max_shp_cells + port_reserved_shp_cells) * cell_size",
            f"({asic.port_max_shp_cells} + {reserved}) * {asic.cell_size}",
            (asic.port_max_shp_cells + reserved) * asic.cell_size,
        )
    )
