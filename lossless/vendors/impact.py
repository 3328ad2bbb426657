"""The words each OS's IMPACT table is written in (lossless/vendors/<os>/diff.py): one kind
of change and what applying it does to traffic, hitless or disruptive, with its source.
deploy/impact.py classifies a diff's changes with them (docs/change-impact.md)."""

from __future__ import annotations

from dataclasses import dataclass

HITLESS = "hitless"
DISRUPTIVE = "disruptive"
IMPACTS = (HITLESS, DISRUPTIVE)  # in order of severity


@dataclass(frozen=True)
class ImpactRule:
    """One kind of change on one OS and what applying it does to traffic."""

    pattern: str  # regex searched in the unit's text; a `port` group names the port it touches
    impact: str  # HITLESS or DISRUPTIVE
    reason: str  # what applying it does, in the user's terms
    source: str  # the document that says so, with its evidence tag
    link: bool = False  # PFC-coupled: both ends of a link must change together
    within: str = ""  # CLI trees: a regex one of the enclosing section lines must match


# Rules every OS has, with only the pattern its own: the vendor modules build them here.
PFC_DISAGREE = "; lossless traffic is dropped while the two ends of the link disagree on PFC"


def rehash(pattern: str) -> ImpactRule:
    """A change of the ECMP hash fields or seed: every flow is hashed anew."""
    return ImpactRule(
        pattern,
        DISRUPTIVE,
        "ECMP rehash: established flows move to other paths (reordering and RoCE retransmissions)",
        "docs/reference/physics.md 5 [DERIVED]",
    )


def description(pattern: str, within: str = "") -> ImpactRule:
    """A port's description: nothing in forwarding reads it."""
    return ImpactRule(
        pattern,
        HITLESS,
        "a description changes nothing in forwarding",
        "docs/change-impact.md",
        within=within,
    )
