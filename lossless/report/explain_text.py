"""`lossless explain`: how one port's numbers were made, each derivation as inputs, constants
with sources, and steps."""

from __future__ import annotations

from typing import Any

from lossless.plan import FabricPlan
from lossless.planner.derivation import num
from lossless.text.units import format_speed


def _value(value: Any) -> str:
    return (
        num(value) if isinstance(value, int | float) and not isinstance(value, bool) else str(value)
    )


def derivation_lines(title: str, derivation: dict[str, Any]) -> list[str]:
    lines = [title, f"  model:  {derivation['model']}", f"  source: {derivation['source']}"]
    if derivation["inputs"]:
        lines.append("  inputs:")
        lines += [f"    {name} = {_value(value)}" for name, value in derivation["inputs"].items()]
    if derivation["constants"]:
        lines.append("  constants:")
        lines += [
            f"    {name} = {_value(c['value'])}    [{c['source']}]"
            for name, c in derivation["constants"].items()
        ]
    lines.append("  steps:")
    for step in derivation["steps"]:
        unit = f" {step['unit']}" if step["unit"] else ""
        lines.append(f"    {step['name']} = {step['formula']}")
        lines.append(f"      = {step['substituted']} = {_value(step['value'])}{unit}")
    lines += [f"  note: {note}" for note in derivation["notes"]]
    return lines


def explain_lines(plan: FabricPlan, device_name: str, port_name: str) -> list[str]:
    """The port's facts, then every derivation of its numbers: headroom per priority group,
    the device's PFC trigger, ECN per queue, the buffer budget, and the watchdog."""
    device = plan.devices[device_name]
    port = device.ports[port_name]
    lines = [
        f"{device_name} {port_name}: {format_speed(port.speed_mbps)}, {port.lanes} lanes, "
        f"MTU {port.mtu}, peer {port.peer or 'none'}, cable "
        f"{'-' if port.cable_m is None else f'{port.cable_m:g} m'} (defined at {port.source})",
    ]
    if not port.lossless:
        lines.append("not lossless: no PFC, no headroom, no ECN on this port")
    for headroom in port.headroom:
        floor = (
            ""
            if headroom.vendor_floor_xoff is None
            else f" (model {headroom.model_xoff}, vendor table {headroom.vendor_floor_xoff})"
        )
        lines.append("")
        lines += derivation_lines(
            f"PFC headroom, priority group {headroom.priority_group}: xon {headroom.xon}, "
            f"xoff {headroom.xoff}{floor}, size {headroom.size} bytes",
            plan.derivations[headroom.derivation],
        )
    trigger = device.pfc_trigger
    if port.ecn and trigger is not None:
        lines.append("")
        lines += derivation_lines(
            f"PFC trigger of {device_name}: n = {trigger.sharing_pgs} PGs, T = "
            f"{'unknown' if trigger.trigger_bytes is None else trigger.trigger_bytes} bytes",
            plan.derivations[trigger.derivation],
        )
    for ecn in port.ecn:
        limit = ecn.queue_trigger_bytes or ecn.pfc_trigger_bytes
        lines.append("")
        lines += derivation_lines(
            f"ECN on queue {ecn.queue}: min {ecn.min_bytes}, max {ecn.max_bytes} bytes, "
            f"probability {ecn.probability_percent}%, PFC fires at "
            f"{'unknown' if limit is None else limit} bytes in the queue",
            plan.derivations[ecn.derivation],
        )
    budget = device.budget
    lines.append("")
    lines += derivation_lines(
        f"buffer budget of {device_name}", plan.derivations[budget.derivation]
    )
    if port.watchdog:
        wd = port.watchdog
        lines += [
            "",
            f"PFC watchdog: {'on' if wd.enabled else 'off'}, detection {wd.detection_ms} ms, "
            f"restoration {wd.restoration_ms} ms, poll {wd.poll_ms} ms, action {wd.action}",
        ]
    return lines


def explain_record(plan: FabricPlan, device: str, port: str) -> dict[str, Any]:
    """The port's plan and every derivation it refers to (headroom, ECN, the budget)."""
    device_data = plan.to_dict()["devices"][device]
    port_data = device_data["ports"][port]
    used = [
        *(h["derivation"] for h in port_data["headroom"]),
        *(e["derivation"] for e in port_data["ecn"]),
        device_data["budget"]["derivation"],
    ]
    return {
        "device": device,
        "port": port_data,
        "budget": device_data["budget"],
        "derivations": {key: plan.derivations[key] for key in used},
    }
