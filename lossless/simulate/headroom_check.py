"""The headroom model checked frame by frame: one link, congestion control off, the worst
phase forced, walked as a timeline of events rather than summed as a formula.

At t = 0 the switch's ingress PG decides to pause (its trigger). Then, in order:
1. the switch's transmitter has just started a largest frame to the sender: the pause frame
   waits for it (receiver_frame; SONiC-Mellanox: the port MTU, M);
2. the pause frame is sent (pfc_frame; SONiC-Mellanox leaves it out);
3. it crosses the link: the switch's interface, the cable, the sender's interface
   (interface, gearbox, cable: each half of the model's round trip; SONiC-Mellanox:
   mac_phy_delay, the pipeline's bytes_on_tile);
4. the sender takes up to its response time to act on it (peer_response);
5. the sender finishes the frame it had started: a largest one (sender_frame; SONiC-
   Mellanox: m, the lossless MTU);
and everything the sender put on the wire since one link delay before t = 0 arrives after
the trigger. The sender's frames are back to back, by default each the size that wastes the
most cell space (the smallest frame, or one byte over a cell), or cycling through the sizes
given (mix(): SONiC's traffic mix, which both the SONiC-Mellanox and the IEEE model size
their cells for); the first arrives just as the trigger fires (the worst phase).

Each frame is counted when its last byte is in (store and forward): the walk gives the wire
bytes and the buffer cells, which equal the model's in-flight bytes and its xoff within the
last frame counted whole (tests/test_simulate.py). Time is counted in byte times at the
port's speed.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

from lossless.simulate.scenario import ScenarioError, step_values

WIRE_OVERHEAD = 20  # preamble 8 + inter-frame gap 12 bytes (IEEE 802.3 Clause 4.4.2)
MIN_FRAME = 64


@dataclasses.dataclass(frozen=True)
class Walk:
    model: str
    cell: int
    frame: int  # the largest of the small frames' sizes
    frames: int  # how many of them arrive after the trigger
    wire_bytes: float  # of the small frames, with gap and preamble
    last_frame: int  # the sender's largest frame at the end
    cells: int  # buffer cells all of them take
    model_in_flight: float
    model_xoff: float
    events: list[tuple[str, float]]  # (event, byte time after the trigger)

    @property
    def cell_bytes(self) -> int:
        return self.cells * self.cell


def worst_frame(cell: int, mtu: int) -> int:
    """The frame size (64..MTU) that fills the most cell bytes per wire byte, by trying
    every size (the IEEE model reasons that only 64 and cell + 1 can win)."""
    return max(
        range(MIN_FRAME, mtu + 1),
        key=lambda s: (math.ceil(s / cell) * cell / (s + WIRE_OVERHEAD), -s),
    )


def _phases(derivation: dict[str, Any]) -> tuple[list[tuple[str, float]], float, float]:
    """(the events before the sender stops, each with its duration in bytes; the link's
    one-way delay in bytes; the sender's last frame in bytes) from the model's own steps."""
    steps = step_values(derivation)
    model = derivation.get("model")
    if model == "ieee-8021qbb":
        one_way = (steps["interface"] + steps["gearbox"] + steps["cable"]) / 2 / 8
        return (
            [
                ("the switch finishes the frame it had started", steps["receiver_frame"] / 8),
                ("the pause frame is sent", steps["pfc_frame"] / 8),
                ("the pause frame reaches the sender", one_way),
                ("the sender responds", steps["peer_response"] / 8),
            ],
            one_way,
            steps["sender_frame"],
        )
    if model == "sonic-mellanox":
        mtu = derivation["inputs"]["port_mtu"]
        one_way = (steps["cable"] + 2 * steps["gearbox"] + steps["mac_phy_delay"]) / 2 + steps.get(
            "bytes_on_tile", 0.0
        ) / 2
        return (
            [
                ("the switch finishes the frame it had started", mtu),
                ("the pause frame reaches the sender", one_way),
                ("the sender responds", steps["peer_response"]),
            ],
            one_way,
            derivation["inputs"]["lossless_mtu"],
        )
    raise ScenarioError(f"no frame walk for the {model} headroom model")


def mix(small_percent: int, large: int) -> list[int]:
    """SONiC-Mellanox's traffic: of every 100 frames, small_percent of 64 bytes, the rest
    of the lossless MTU, spread evenly."""
    return [
        MIN_FRAME if (i + 1) * small_percent // 100 > i * small_percent // 100 else large
        for i in range(100)
    ]


def walk(
    derivation: dict[str, Any], cell: int | None = None, sizes: list[int] | None = None
) -> Walk:
    """Walk one link's pause for a headroom derivation (its steps and constants); the
    sender's frames cycle through sizes (default: all of the worst size for the cells)."""
    cell = cell or int(derivation["constants"]["cell_size"]["value"])
    mtu = int(derivation["inputs"]["port_mtu"])
    phases, one_way, last = _phases(derivation)
    events, clock = [], 0.0
    for name, duration in phases:
        clock += duration
        events.append((name, clock))
    stop = clock  # the sender starts no frame after this (but the one it has started)
    sizes = sizes or [worst_frame(cell, mtu)]
    # the sender's frames, back to back from one link delay before the trigger (the first
    # arrives as it fires) until it stops
    frames, start, cells, wire = 0, -one_way, 0, 0.0
    while start < stop:
        size = sizes[frames % len(sizes)]
        frames += 1
        start += size + WIRE_OVERHEAD
        wire += size + WIRE_OVERHEAD
        cells += math.ceil(size / cell)
    last_frame = int(last)
    cells += math.ceil(last_frame / cell)
    events.append(("the sender's last frame is in", start + last_frame + one_way))
    steps = step_values(derivation)
    return Walk(
        model=str(derivation.get("model")),
        cell=cell,
        frame=max(sizes),
        frames=frames,
        wire_bytes=wire,
        last_frame=last_frame,
        cells=cells,
        model_in_flight=steps["in_flight"],
        model_xoff=next(s["value"] for s in derivation["steps"] if s["name"] == "xoff"),
        events=events,
    )
