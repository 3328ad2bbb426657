"""When PFC fires on a device, and how many congested PGs its ECN thresholds can stand.

    n = the platform's real port count x lossless PGs per port   (every PG sharing the pool;
        never the inventory's listed ports)
    B = the shared part of the ingress lossless pool: the SKU's pool minus its shared
        headroom pool, no more than what the planned headroom leaves of the buffer, split
        between the buffer's partitions (ITMs on Tomahawk 5: a PG sees its ITM's half)
    T = alpha*B/(1 + n*alpha), alpha = 2^dynamic_th  (docs/reference/physics.md 3.4 [DERIVED])
    ECN marks before PFC when Kmin < T/f, f = congested egress queues one ingress PG feeds.

The largest n for which that still holds is reported per port and per device, so a preset
that breaks at a realistic n (SONiC's 1 MiB Kmin on SN5600 at n = 64) is visible before
`lint` fails it.
"""

from __future__ import annotations

import dataclasses
import functools

from lossless.asics import Asic, catalogue, find_platform
from lossless.plan import BudgetPlan, PfcTriggerPlan
from lossless.planner.budget import RealPorts
from lossless.planner.derivation import Derivation, num
from lossless.planner.ecn import EcnThresholds, largest_pgs_before_pfc, pfc_trigger_bytes
from lossless.text.units import format_speed


def real_ports(asic: Asic, platform: str | None, speeds: list[int]) -> RealPorts:
    """Ports the switch really runs at the device's slowest lossless speed (the most of them):
    the catalogue platform's cages broken out, else the ASIC's full radix at that speed, and
    never fewer than the inventory lists."""
    listed = RealPorts(len(speeds), f"{len(speeds)} lossless ports listed in the inventory")
    if not speeds:
        return listed
    speed = min(speeds)
    known = find_platform(platform)
    if known is not None:
        count = known.ports_at(speed)
        other = "" if known.asic == asic.name else f"; the catalogue has it with {known.asic}"
        candidate = RealPorts(
            count,
            f"platform {known.name}: {known.cages} x {format_speed(known.cage_speed_mbps)} "
            f"cages, up to {known.max_breakout} ports each: {count} ports at "
            f"{format_speed(speed)} ({known.source}{other})",
        )
    elif asic.full_radix(speed) is not None:
        count = asic.full_radix(speed) or 0
        candidate = RealPorts(
            count,
            f"platform {platform or '(none given)'} is not in the catalogue: "
            f"{asic.name}'s full radix, {asic.bandwidth_gbps} Gb/s / {format_speed(speed)} "
            f"= {count} ports [DERIVED]",
        )
    else:
        return listed
    return candidate if candidate.count >= listed.count else listed


@dataclasses.dataclass(frozen=True)
class QueueCheck:
    """One lossless queue's ECN thresholds against the PFC trigger."""

    queue_trigger_bytes: int  # T/f
    min_below_trigger: bool
    max_below_trigger: bool
    largest_pgs_min: int
    largest_pgs_max: int


@dataclasses.dataclass(frozen=True)
class Trigger:
    """The device's PFC trigger, for its ports' ECN checks."""

    plan: PfcTriggerPlan
    shared: float | None  # B per partition
    alpha: float

    def queue_bytes(self, fan_out: int) -> int | None:
        """T/f: what one of f congested queues holds when PFC fires (None: buffer unknown)."""
        if self.shared is None or self.plan.trigger_bytes is None:
            return None
        return self.plan.trigger_bytes // fan_out

    def check(self, thresholds: EcnThresholds, fan_out: int, d: Derivation) -> QueueCheck | None:
        """Compare one queue's thresholds with T/f, recording the steps in d."""
        p = self.plan
        d.inputs.update({"sharing_pgs": p.sharing_pgs, "fan_out": fan_out})
        if self.shared is None or p.trigger_bytes is None:
            d.notes.append("ASIC buffer size unknown: the PFC trigger cannot be computed")
            return None
        d.constant(
            "pfc_trigger_bytes", p.trigger_bytes, f"T at n = {p.sharing_pgs}, {p.derivation}"
        )
        queue = int(
            d.step(
                "queue_trigger",
                "T / f",
                f"{p.trigger_bytes} / {fan_out}",
                p.trigger_bytes // fan_out,
            )
        )
        largest = {}
        for name, value in (("min", thresholds.min_bytes), ("max", thresholds.max_bytes)):
            largest[name] = int(
                d.step(
                    f"largest_n_k{name}",
                    f"largest n with K{name} * f < alpha*B/(1 + n*alpha)",
                    f"K{name} {value}, f {fan_out}, B {num(self.shared)}, alpha {num(self.alpha)}",
                    largest_pgs_before_pfc(value, self.shared, self.alpha, fan_out),
                    "PGs",
                )
            )
        return QueueCheck(
            queue_trigger_bytes=queue,
            min_below_trigger=thresholds.min_bytes < queue,
            max_below_trigger=thresholds.max_bytes <= queue,
            largest_pgs_min=largest["min"],
            largest_pgs_max=largest["max"],
        )


def plan_trigger(
    asic: Asic,
    budget: BudgetPlan,
    pgs_per_port: int,
    dynamic_th: int,
    dynamic_th_source: str,
    fan_out: int,
    d: Derivation,
    key: str,
) -> Trigger:
    d.inputs = {
        "ports": budget.ports,
        "ports_source": budget.ports_source,
        "lossless_pgs_per_port": pgs_per_port,
        "fan_out": fan_out,
    }
    n = int(
        d.step(
            "n",
            "ports x lossless PGs per port",
            f"{budget.ports} x {pgs_per_port}",
            budget.ports * pgs_per_port,
            "PGs",
        )
    )
    candidates = []
    if asic.ingress_pool_bytes is not None:
        d.constant("ingress_pool_bytes", asic.ingress_pool_bytes, asic.source("ingress_pool_bytes"))
        d.constant(
            "ingress_pool_xoff_bytes",
            asic.ingress_pool_xoff_bytes,
            asic.source("ingress_pool_xoff_bytes"),
        )
        candidates.append(
            d.step(
                "pool_shared",
                "ingress_pool - ingress_pool_xoff",
                f"{asic.ingress_pool_bytes} - {asic.ingress_pool_xoff_bytes}",
                asic.ingress_pool_bytes - asic.ingress_pool_xoff_bytes,
            )
        )
    if budget.shared_buffer_bytes is not None:
        d.constant(
            "buffer_left_by_headroom",
            budget.shared_buffer_bytes,
            f"buffer minus the planned headroom of every real port, {budget.derivation}",
        )
        candidates.append(max(0, budget.shared_buffer_bytes))
    alpha = d.step("alpha", "2 ^ dynamic_th", f"2 ^ {dynamic_th}", 2.0**dynamic_th, "")
    d.constant("dynamic_th", dynamic_th, dynamic_th_source)
    shared = trigger = queue = None
    if candidates:
        whole = min(candidates)
        if len(candidates) > 1:
            d.step(
                "B_total",
                "min(pool_shared, buffer_left_by_headroom)",
                f"min({', '.join(num(c) for c in candidates)})",
                whole,
            )
        partitions = asic.buffer_partitions
        if partitions > 1:
            d.constant("buffer_partitions", partitions, asic.source("buffer_partitions"))
        shared = d.step(
            "B", "B_total / partitions", f"{num(whole)} / {partitions}", whole / partitions
        )
        trigger = int(
            d.step(
                "pfc_trigger",
                "alpha * B / (1 + n * alpha)",
                f"{num(alpha)} * {num(shared)} / (1 + {n} * {num(alpha)})",
                int(pfc_trigger_bytes(shared, alpha, max(1, n))),
            )
        )
        queue = int(d.step("queue_trigger", "T / f", f"{trigger} / {fan_out}", trigger // fan_out))
    else:
        d.notes.append("no published buffer or pool size: the PFC trigger cannot be computed")
    plan = PfcTriggerPlan(
        ports=budget.ports,
        lossless_pgs_per_port=pgs_per_port,
        sharing_pgs=n,
        shared_buffer_bytes=None if shared is None else int(shared),
        buffer_partitions=asic.buffer_partitions,
        dynamic_th=dynamic_th,
        alpha=alpha,
        fan_out=fan_out,
        trigger_bytes=trigger,
        queue_trigger_bytes=queue,
        largest_n_ecn_before_pfc=None,
        largest_n_full_marking_before_pfc=None,
        derivation=key,
    )
    return Trigger(plan, shared, alpha)


@functools.lru_cache(maxsize=1024)
def config_trigger(
    asic_name: str, platform: str | None, speed_mbps: int, pgs_per_port: int, dynamic_th: int | None
) -> Trigger | None:
    """The PFC trigger of a switch whose config is linted without an inventory, by the
    planner's rules: the real port count (the catalogue platform's, else the ASIC's full
    radix) at the config's slowest lossless speed, every PG congested, one congested queue
    per PG (f = 1), the config's dynamic_th or the ASIC's. What the config cannot say is
    taken on the side that raises T: a speed it does not state is the ASIC's fastest (the
    fewest ports), and B is the SKU's whole pool (there is no headroom plan to subtract).
    None for an ASIC without a published pool or buffer."""
    asic = catalogue().get(asic_name)
    if asic is None:
        return None
    speed = speed_mbps or max(asic.speeds_mbps, default=0)
    real = real_ports(asic, platform, [speed] if speed else [])
    budget = BudgetPlan(
        buffer_bytes=asic.buffer_bytes,
        buffer_evidence=asic.evidence("buffer_bytes"),
        lossless_pgs=real.count * pgs_per_port,
        reserved_headroom_bytes=0,
        shared_headroom_pool_bytes=0,
        over_subscribe_ratio=None,
        total_headroom_bytes=0,
        shared_buffer_bytes=asic.buffer_bytes if asic.ingress_pool_bytes is None else None,
        utilisation_percent=None,
        fits=None,
        largest_port_headroom_bytes=0,
        max_headroom_per_port_bytes=None,
        derivation="the whole buffer: a config alone has no headroom plan",
        ports=real.count,
        ports_source=real.source,
    )
    dynamic = asic.lossless_dynamic_th if dynamic_th is None else dynamic_th
    key = f"pfc-trigger/config/{asic_name}/{speed}M/{pgs_per_port}pg/th{dynamic}"
    return plan_trigger(
        asic,
        budget,
        max(1, pgs_per_port),
        dynamic,
        "the config" if dynamic_th is not None else asic.source("lossless_dynamic_th"),
        1,
        Derivation(model="pfc-trigger", source="planner/pfc_trigger.py config_trigger"),
        key,
    )


@functools.lru_cache(maxsize=256)
def loosest_trigger(
    speed_mbps: int, pgs_per_port: int, vendors: tuple[str, ...] = ()
) -> tuple[int, str] | None:
    """The highest queue trigger T/f any catalogue ASIC of these vendors (any: empty) that
    runs this speed (any speed: 0) could have, each at its own dynamic_th: what a config
    whose hardware is unknown must stay below on every switch it could be for. (bytes, which
    ASIC gives it)."""
    best: tuple[int, str] | None = None
    for asic in catalogue().values():
        if asic.vendor == "sonic" or (vendors and asic.vendor not in vendors):
            continue  # sonic-vs is a software switch
        if speed_mbps and speed_mbps not in asic.speeds_mbps:
            continue
        trigger = config_trigger(asic.name, None, speed_mbps, pgs_per_port, None)
        if trigger is None or trigger.plan.queue_trigger_bytes is None:
            continue
        queue = trigger.plan.queue_trigger_bytes
        if best is None or queue > best[0]:
            best = (queue, f"{asic.name} at n = {trigger.plan.sharing_pgs} PGs")
    return best
