"""Small helpers the host vendor modules share: traffic-class byte, PFC vector, comments."""

from __future__ import annotations

import re

from lossless.plan import NicPlan


def traffic_class(dscp: int) -> int:
    """The IP traffic class (ToS) byte of a DSCP: the DSCP in the six high bits, ECN bits 0."""
    return dscp << 2


def pfc_vector(priorities: list[int]) -> str:
    """PFC enable per priority 0..7 as mlnx_qos and the NVIDIA operator take it: 0,0,0,1,0,0,0,0."""
    return ",".join("1" if p in priorities else "0" for p in range(8))


def describe(nic: NicPlan) -> str:
    """One line about a NIC for a comment: interface, model, cable peer (printable text only)."""
    model = re.sub(r"[^A-Za-z0-9 ._/+-]", "?", nic.model or "no model")[:60]
    peer = f", cabled to {nic.peer}" if nic.peer else ", not cabled to a switch"
    return f"{nic.name} ({model}){peer}"
