"""Which port of a switch to simulate, and each distinct scenario run once.

A switch's worst port (docs/simulate.md, "The worst port of a switch") is, among its lossless
ports with a peer and ECN that at least one other lossless port with a peer sends into, the
first by:

1. the most senders (its fan-in: every other lossless port with a peer, `scenario.fan_in`);
2. the highest offered load, the senders' line rates added up over the port's own speed
   (a 100G port fed by 400G ports before a 400G one);
3. the smallest headroom margin among its senders: the least planned xoff less the headroom
   model's in-flight bytes of any of them (the PG closest to dropping);
4. the longest cable of the port itself (the receiver's CNPs take longest to come back);
5. the plan's port order (the inventory's).

Equal scenarios give equal runs: `run_distinct` keys each scenario by every number the
fluid model reads (`key.scenario_key`: not the device's, the port's or the peers' names) and
runs each key once.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable

from lossless.plan import DevicePlan, FabricPlan, PortPlan
from lossless.simulate.dcqcn import Dcqcn
from lossless.simulate.fluid import Result, simulate
from lossless.simulate.key import scenario_key
from lossless.simulate.scenario import (
    Scenario,
    ScenarioError,
    fan_in,
    in_flight,
    scenario,
)


def _margin(fabric: FabricPlan, device: DevicePlan, port: PortPlan) -> float | None:
    """The port's RoCE PG's planned xoff less the headroom model's in-flight bytes."""
    pg = device.maps.tc_to_pg.get(device.roce_priority, device.roce_priority)
    headroom = next((h for h in port.headroom if h.priority_group == pg), None)
    if headroom is None or headroom.by_switch:
        return None
    derivation = fabric.derivations.get(headroom.derivation)
    if derivation is None:
        return None
    try:
        bytes_in_flight, _ = in_flight(derivation)
    except ScenarioError:
        return None
    return headroom.xoff - bytes_in_flight


def worst_port(fabric: FabricPlan, device_name: str) -> str | None:
    """The switch's worst port by the order above, or None when no port has a sender.
    Linear in the switch's ports: each port's own figures are read once."""
    device = fabric.devices[device_name]
    ports = fan_in(device, "")  # every lossless port with a peer
    if len(ports) < 2:
        return None
    with_ecn = [i for i, p in enumerate(ports) if p.ecn]  # a port with no ECN is no scenario
    speeds = [p.speed_mbps for p in ports]
    total = sum(speeds)
    margins = [_margin(fabric, device, p) for p in ports]
    known = sorted((m, i) for i, m in enumerate(margins) if m is not None)

    def smallest_other(index: int) -> float:
        others = [m for m, i in known[:2] if i != index]
        return others[0] if others else float("inf")

    def key(index: int) -> tuple:
        port = ports[index]
        offered = (total - speeds[index]) / speeds[index] if speeds[index] else float("inf")
        return (-(len(ports) - 1), -offered, smallest_other(index), -(port.cable_m or 0.0), index)

    return ports[min(with_ecn, key=key)].name if with_ecn else None


@dataclasses.dataclass(frozen=True)
class Run:
    """One port's scenario and its run (shared with every port of an equal scenario)."""

    scenario: Scenario
    result: Result


def run_distinct(
    fabric: FabricPlan,
    ports: Iterable[tuple[str, str]],
    cc: Dcqcn | None,
    duration_s: float,
    step_s: float = 100e-9,
) -> tuple[dict[tuple[str, str], Run | str], int]:
    """Each (device, port) simulated at its real fan-in, each distinct scenario once: the
    run, or why the port cannot be simulated; and how many runs it took."""
    done: dict[tuple, Result] = {}
    runs: dict[tuple[str, str], Run | str] = {}
    for device, port in ports:
        try:
            sc = scenario(fabric, device, port, None)
        except ScenarioError as error:
            runs[(device, port)] = str(error)
            continue
        key = scenario_key(sc)
        if key not in done:
            done[key] = simulate(sc, cc, duration_s, step_s=step_s)
        runs[(device, port)] = Run(sc, done[key])
    return runs, len(done)
