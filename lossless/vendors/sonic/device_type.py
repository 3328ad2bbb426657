"""SONiC's ECMP hash seed comes from DEVICE_METADATA|localhost `type` (issue 39).

orchagent takes the seed only from APPL_DB SWITCH_TABLE:switch, which swssconfig loads when
swss starts from switch.json, rendered by `bi:dockers/docker-orchagent/switch.json.j2` from
DEVICE_METADATA: the first of these substrings found in `type` picks it (so every *SpineRouter
type, FabricSpineRouter and UpperSpineRouter too, takes SpineRouter's 25: their own 40 and 50
come after it in the chain), plus `namespace_id` on multi-ASIC switches; no type, or another
one, is 0. sonic-net/sonic-buildimage switch.json.j2 (at 0860bc7; the same chain since
PR 3390 added SpineRouter, 2019). Newer images also read `ecmp_hash_seed` there (PR 21335),
but DEVICE_METADATA's YANG model has no such leaf (sonic-device_metadata.yang at 086b03bd,
tests/data/sonic-yang), so GCU refuses it: lossless renders `type`, whose pattern the YANG
model has (ToRRouter, LeafRouter, SpineRouter among others).

A tier's type: a lossless leaf (servers below it) is SONiC's ToRRouter (T0), a spine its
LeafRouter (T1), a super-spine its SpineRouter (T2): seeds 0, 10 and 25, different per tier.
The seed changes when swss restarts (switch.json is rendered then), not when CONFIG_DB does.
"""

from __future__ import annotations

from typing import Any

TIER_TYPE = {"leaf": "ToRRouter", "spine": "LeafRouter", "super-spine": "SpineRouter"}
# switch.json.j2's chain, in its order: (substring of type, seed)
SEED_CHAIN = (
    ("ToRRouter", 0),
    ("LeafRouter", 10),
    ("SpineRouter", 25),
    ("FabricSpineRouter", 40),
    ("UpperSpineRouter", 50),
    ("LowerRegionalHub", 60),
    ("FabricRegionalHub", 70),
    ("UpperRegionalHub", 80),
)
EXACT_ZERO = ("EPMS", "MgmtTsToR")  # named with ToRRouter in the template's first test
SOURCE = "bi:dockers/docker-orchagent/switch.json.j2 (DEVICE_METADATA type -> hash seed)"


def seed_of(device_type: str | None, namespace_id: int = 0) -> int:
    """The ECMP hash seed orchagent gets for a DEVICE_METADATA type."""
    if device_type in EXACT_ZERO:
        return namespace_id
    for substring, seed in SEED_CHAIN:
        if device_type and substring in device_type:
            return seed + namespace_id
    return namespace_id


def tier_seed(role: str) -> int:
    return seed_of(TIER_TYPE[role])


def is_whole_config(metadata: dict[str, Any]) -> bool:
    """A config_db whose DEVICE_METADATA names its switch (hostname, hwsku or platform) is a
    switch's whole config: a type it leaves out is none (seed 0). A fragment of ours names
    none, and says nothing about the switch's type."""
    return any(key in metadata for key in ("hostname", "hwsku", "platform"))
