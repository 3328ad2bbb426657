"""ECMP hashing for RoCE v2: the UDP source port carries the entropy; every switch gets its
own seed, and the tiers' seeds never overlap.

Why per switch and not only per tier: switches hash with CRC polynomials, and two switches
with the same seed and the same fields make the same choice for a flow, so the flows a leaf
sends up one spine all land on the same next hop of that spine (polarisation). Different
seeds per tier stop it between tiers (docs/reference/physics.md 4 rule 18 [SRC]); a seed per
switch also stops it between switches of a tier, and a hash offset (SONiC `ecmp_hash_offset`, NX-OS
`rotate`) moves which bits of the hash pick the member, for OSes that have one.
"""

from __future__ import annotations

import zlib

from lossless.asics import Asic
from lossless.model import EcmpPolicy
from lossless.plan import EcmpPlan

# Each tier owns a block of 4,096 seeds: 4096-8191 leaf, 8192-12287 spine, 12288-16383
# super-spine. Every seed is non-zero and fits the smallest seed field we render into
# (16 bits), so no OS has to fold it (which could make two tiers collide).
TIER_BLOCKS = {"leaf": 1, "spine": 2, "super-spine": 3}
BLOCK = 4096
# Hash offset / rotate 1..15: fits SONiC's ecmp_hash_offset and NX-OS `rotate` (0-63).
OFFSETS = 15


def switch_hash(name: str) -> int:
    """A stable 32-bit number from the switch's name (CRC-32, the same on every machine)."""
    return zlib.crc32(name.encode())


def plan_ecmp(name: str, role: str, policy: EcmpPolicy, asic: Asic) -> EcmpPlan:
    digest = switch_hash(name)
    if policy.seed is not None:
        seed, source = policy.seed, "set in the inventory"
    else:
        block = TIER_BLOCKS[role]
        seed = block * BLOCK + digest % BLOCK
        source = (
            f"{role} block {block * BLOCK}-{(block + 1) * BLOCK - 1} + "
            f"crc32({name!r}) mod {BLOCK} = {digest % BLOCK} (a seed per switch and per tier)"
        )
    return EcmpPlan(
        hash_fields=list(policy.hash_fields),
        seed=seed,
        seed_source=source,
        resilient=policy.resilient and asic.resilient_hashing,
        hashes_udp_source_port="src-port" in policy.hash_fields,
        hash_offset=1 + (digest >> 12) % OFFSETS,
    )
