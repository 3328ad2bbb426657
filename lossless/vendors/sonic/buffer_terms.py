"""SONiC's buffer settings in words, and what a difference in them does on the switch.

What the parser reads (parse.py) and the renderer writes (render.expressed) are compared as
these texts: a lossless PG's static profile beside its headroom, and the shared headroom pool
as the switch sizes it. CONSEQUENCES is the SONiC VENDOR's `consequences`: what the switch
then does, which drift says after the difference (sources in docs/vendors/sonic.md).
"""

from __future__ import annotations

from typing import Any

LOSSLESS_POOL = "ingress_lossless_pool"

NOT_SET = "not set"


def profile_text(fields: dict[str, str], broadcom: bool) -> str:
    """A lossless PG's static buffer profile beside its headroom, in words: what the parser
    reads and the renderer writes are compared as this text. Its pool and threshold, and in
    Broadcom's form the PG's guaranteed `size` and its `xon` (the resume floor: the PG resumes
    below max(xon, limit - xon_offset), SAI_BUFFER_PROFILE_ATTR_XON_TH, default 0,
    saibuffer.h). On NVIDIA `size` and `xon` are the headroom itself, compared as headroom."""
    parts = [f"pool {fields.get('pool', NOT_SET)}"]
    if broadcom:
        size = fields.get("size")
        parts.append(f"guaranteed size {NOT_SET if size is None else size + ' B'}")
        parts.append(f"xon {fields.get('xon', '0')} B")
    if "dynamic_th" in fields:
        parts.append(f"dynamic_th {fields['dynamic_th']}")
    elif "static_th" in fields:
        parts.append(f"static_th {fields['static_th']} B")
    else:
        parts.append(f"threshold {NOT_SET}")
    return ", ".join(parts)


def shared_headroom_pool(xoff: int | None, ratio: int | None, untyped: bool = False) -> str:
    """ingress_lossless_pool's shared headroom pool as the switch takes it, in words (parse
    and render compare it): the stated xoff, else sized by buffermgrd from the over-subscribe
    ratio (dynamic model), else off; a pool entry without `type` is not created at all
    (SAI_BUFFER_POOL_ATTR_TYPE is mandatory on create, saibuffer.h)."""
    if untyped:
        return f"{LOSSLESS_POOL} not created (no type)"
    if xoff:
        return f"{xoff} B"
    if ratio:
        return f"sized by buffermgrd from over_subscribe_ratio {ratio}"
    return "off"


def _schedules_by_packets(have: Any, want: Any) -> str | None:
    if not any(q[1] == "wrr" for q in have or []):
        return None
    return (
        "a SCHEDULER without type is SAI's default, SAI_SCHEDULING_TYPE_WRR (qosorch.cpp "
        "sets the type only where stated; saischeduler.h), which shares by packets: a queue "
        "of small packets gets less of the link than its weight, and SAIs without WRR refuse "
        "the scheduler"
    )


def _headroom_inputs(have: Any, want: Any) -> str | None:
    if have is None:
        return None
    mtu, small, _, dynamic_th = have
    missing = []
    if mtu is None or small is None:
        missing.append(
            "buffermgrd's headroom plugin computes with LOSSLESS_TRAFFIC_PATTERN mtu and "
            "small_packet_percentage and fails without them (buffer_headroom_mellanox.lua)"
        )
    if dynamic_th is None:
        missing.append(
            "buffermgrd sizes no lossless PG while default_dynamic_th is not set "
            "(buffermgrdyn.cpp refreshPgsForPort)"
        )
    if not missing:
        return None
    return "; ".join(missing) + ": the lossless PGs get no headroom"


def _egress_drops(have: Any, want: Any) -> str:
    return (
        "a lossless queue not on egress_lossless_profile is admitted by a lossy egress limit, "
        "where PFC does not hold it: it drops when the limit is reached"
    )


def _pfc_to_pg_effect(have: Any, want: Any) -> str:
    """A PG sends the pause on the priorities the map gives it
    (SAI_PORT_ATTR_QOS_PFC_PRIORITY_TO_PRIORITY_GROUP_MAP)."""
    have, want = have or {}, want or {}
    if any(have.get(p) != pg for p, pg in want.items()):
        return (
            "the PG a lossless priority's traffic fills sends the pause on the priorities this "
            "map gives it: a lossless priority not mapped to its own PG is not paused and drops "
            "when the PG's headroom is full"
        )
    extra = ", ".join(str(p) for p in sorted(set(have) - set(want)))
    return f"the lossless PG's fill also pauses priority {extra}, which is not lossless here"


def _profile_effect(have: Any, want: Any) -> str | None:
    texts = list((have or {}).values())
    if any(NOT_SET in text for text in texts):
        return (
            "bufferorch cannot create the profile without pool, size and threshold (SAI "
            "mandatory on create), so the PG has no lossless profile"
        )
    return None


def _pool_effect(have: Any, want: Any) -> str | None:
    if "not created" in str(have):
        return "bufferorch creates no pool, and the lossless profiles in it fail"
    if have == "off":
        return "each lossless PG then reserves its whole xoff itself, beside its xon"
    if want == "off":
        return "the lossless PGs' xoff is then taken from a shared headroom pool"
    return "the lossless PGs' xoff is taken from the shared headroom pool, of this size"


# What the switch does when one of these facts differs (drift says it after the difference)
CONSEQUENCES = {
    "queues": _schedules_by_packets,
    "headroom_settings": _headroom_inputs,
    "egress_lossless_queues": _egress_drops,
    "pfc_priority_to_pg": _pfc_to_pg_effect,
    "lossless_profile": _profile_effect,
    "shared_headroom_pool": _pool_effect,
}
