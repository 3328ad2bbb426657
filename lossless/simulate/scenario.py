"""One egress port of a plan as the simulation sees it: its speed and ECN thresholds, the
shared pool's dynamic threshold as the planner's PFC trigger uses it, and the senders that
feed it with their speed, cable and planned headroom, every number read from the plan."""

from __future__ import annotations

import dataclasses
from typing import Any

from lossless.plan import DevicePlan, FabricPlan, PortPlan
from lossless.planner.headroom_ieee import CABLE_NS_PER_M


class ScenarioError(ValueError):
    """The plan cannot be simulated as asked (the message says why)."""


@dataclasses.dataclass(frozen=True)
class Sender:
    """One ingress port feeding the congested egress queue, and the NIC or switch behind it."""

    port: str
    peer: str
    speed_bps: float
    cable_m: float
    propagation_s: float  # one way over the cable
    xoff: int  # the PG's headroom: bytes it absorbs after it asks for a pause
    xon: int  # below the trigger by this much, the PG resumes its sender
    in_flight: float  # the headroom model's wire bytes arriving after the trigger
    sender_frame: float  # the frame the sender has started when the pause takes effect
    frame: int  # the lossless traffic's frame size on this link (the port MTU + 18 B)


@dataclasses.dataclass(frozen=True)
class Scenario:
    device: str
    port: str
    speed_bps: float
    propagation_s: float  # the egress cable, to the receiver
    kmin: int
    kmax: int
    pmax: float  # 0..1
    pool_bytes: float  # B: the shared pool one PG sees (per partition)
    alpha: float  # the dynamic threshold's 2^dynamic_th
    sharing_pgs: int  # n: the PGs the planner assumes share the pool
    trigger: int  # T = alpha*B/(1 + n*alpha), the planner's
    senders: tuple[Sender, ...]
    fan_in: int  # the ports the topology gives; senders beyond it repeat them
    sources: dict[str, str]


def step_values(derivation: dict[str, Any]) -> dict[str, float]:
    """A derivation's steps by name (a later step of the same name wins)."""
    return {step["name"]: step["value"] for step in derivation.get("steps", [])}


def ns_per_m(derivation: dict[str, Any]) -> tuple[float, str]:
    """The cable's propagation delay the headroom model used for this port."""
    constants = derivation.get("constants", {})
    if "cable_ns_per_m" in constants:
        return constants["cable_ns_per_m"]["value"], "the headroom model's cable_ns_per_m"
    if "speed_of_light" in constants:
        return 1e9 / constants["speed_of_light"]["value"], "the headroom model's speed_of_light"
    return CABLE_NS_PER_M, "planner/headroom_ieee.py CABLE_NS_PER_M"


def in_flight(derivation: dict[str, Any]) -> tuple[float, float]:
    """(wire bytes after the trigger, the sender's last frame) as the headroom model has them:
    the IEEE model's in_flight and sender_frame; SONiC-Mellanox's in_flight and m, the
    lossless MTU its xoff adds outside the cell occupancy."""
    steps = step_values(derivation)
    if "in_flight" not in steps:
        raise ScenarioError(f"the headroom derivation ({derivation.get('model')}) has no in_flight")
    if "sender_frame" in steps:
        return steps["in_flight"], steps["sender_frame"]
    return steps["in_flight"], float(derivation.get("inputs", {}).get("lossless_mtu", 0))


def _pg(device: DevicePlan) -> int:
    return device.maps.tc_to_pg.get(device.roce_priority, device.roce_priority)


def _sender(fabric: FabricPlan, device: DevicePlan, port: PortPlan) -> Sender:
    pg = _pg(device)
    headroom = next((h for h in port.headroom if h.priority_group == pg), None)
    if headroom is None or headroom.by_switch:
        raise ScenarioError(f"{device.name} {port.name}: no planned headroom for PG {pg}")
    derivation = fabric.derivations.get(headroom.derivation)
    if derivation is None:
        raise ScenarioError(f"{device.name} {port.name}: headroom {headroom.derivation} unknown")
    bytes_in_flight, last_frame = in_flight(derivation)
    per_m, _ = ns_per_m(derivation)
    cable = port.cable_m or 0.0
    return Sender(
        port=port.name,
        peer=port.peer or "",
        speed_bps=port.speed_mbps * 1e6,
        cable_m=cable,
        propagation_s=cable * per_m * 1e-9,
        xoff=headroom.xoff,
        xon=headroom.xon,
        in_flight=bytes_in_flight,
        sender_frame=last_frame,
        frame=port.mtu + 18,  # Ethernet header and FCS around the IP MTU
    )


def fan_in(device: DevicePlan, port: str) -> list[PortPlan]:
    """The ports that can send into this one: every other lossless port with a peer."""
    return [p for name, p in device.ports.items() if name != port and p.lossless and p.peer]


def scenario(fabric: FabricPlan, device_name: str, port_name: str, incast: int | None) -> Scenario:
    device = fabric.devices[device_name]
    port = device.ports[port_name]
    if not port.lossless:
        raise ScenarioError(f"{device_name} {port_name} is not lossless")
    queue = device.maps.tc_to_queue.get(device.roce_priority, device.roce_priority)
    ecn = next((e for e in port.ecn if e.queue == queue), None)
    if ecn is None:
        raise ScenarioError(f"{device_name} {port_name}: no ECN thresholds on queue {queue}")
    trigger = device.pfc_trigger
    if trigger is None or trigger.shared_buffer_bytes is None or trigger.trigger_bytes is None:
        raise ScenarioError(f"{device_name}: the PFC trigger is unknown (no published buffer)")
    feeders = fan_in(device, port_name)
    if not feeders:
        raise ScenarioError(f"{device_name} {port_name}: no other lossless port sends into it")
    count = len(feeders) if incast is None else incast
    senders = tuple(_sender(fabric, device, feeders[i % len(feeders)]) for i in range(count))
    egress = _sender(fabric, device, port)
    return Scenario(
        device=device_name,
        port=port_name,
        speed_bps=port.speed_mbps * 1e6,
        propagation_s=egress.propagation_s,
        kmin=ecn.min_bytes,
        kmax=ecn.max_bytes,
        pmax=ecn.probability_percent / 100,
        pool_bytes=float(trigger.shared_buffer_bytes),
        alpha=trigger.alpha,
        sharing_pgs=trigger.sharing_pgs,
        trigger=trigger.trigger_bytes,
        senders=senders,
        fan_in=len(feeders),
        sources={
            "ecn": ecn.derivation,
            "pfc_trigger": trigger.derivation,
            "headroom": ", ".join(sorted({p.headroom[0].derivation for p in feeders})),
        },
    )
