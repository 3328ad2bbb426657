"""ECMP hashing for RoCE v2: the UDP source port carries the entropy; seeds differ per tier."""

from __future__ import annotations

from lossless.asics import Asic
from lossless.model import EcmpPolicy
from lossless.plan import EcmpPlan

# SONiC's per-tier ECMP seeds (sonic-buildimage dockers/docker-orchagent/switch.json.j2,
# docs/reference/physics.md 4 rule 18 [SRC]): ToRRouter 0, LeafRouter 10, SpineRouter 25. Our
# server-facing leaf is SONiC's ToR, our spine its LeafRouter and our super-spine its SpineRouter.
TIER_SEEDS = {"leaf": 0, "spine": 10, "super-spine": 25}
TIER_SEED_SOURCE = "sonic-buildimage switch.json.j2 tier seeds (ToR 0, Leaf 10, Spine 25) [SRC]"


def plan_ecmp(role: str, policy: EcmpPolicy, asic: Asic) -> EcmpPlan:
    if policy.seed is not None:
        seed, source = policy.seed, "set in the inventory"
    else:
        seed, source = TIER_SEEDS[role], TIER_SEED_SOURCE
    return EcmpPlan(
        hash_fields=list(policy.hash_fields),
        seed=seed,
        seed_source=source,
        resilient=policy.resilient and asic.resilient_hashing,
        hashes_udp_source_port="src-port" in policy.hash_fields,
    )
