"""A scenario's numbers as a key: two scenarios with equal keys give equal runs, whatever the
device's, the port's and the peers' names. Apart from the model (no numpy), so that lint can
group ports without importing it."""

from __future__ import annotations

import dataclasses
import operator

from lossless.simulate.scenario import Scenario, Sender

# A sender's numbers, every field of Sender but its names
_SENDER_NUMBERS = operator.attrgetter(
    *(f.name for f in dataclasses.fields(Sender) if f.name not in ("port", "peer"))
)


def scenario_key(sc: Scenario) -> tuple:
    """Every number the fluid model reads of a scenario; names and sources left out."""
    return (
        sc.speed_bps,
        sc.propagation_s,
        sc.kmin,
        sc.kmax,
        sc.pmax,
        sc.pool_bytes,
        sc.alpha,
        sc.sharing_pgs,
        sc.trigger,
        sc.fan_in,
        tuple(map(_SENDER_NUMBERS, sc.senders)),
    )
