"""A device's ports in groups of equal settings (and cables): what a rule that reads nothing
else of a port decides once per group, not once per port (a 32k fabric's 98,304 ports make
a few groups per switch). Worked out once per lint() run (registry.computed_once)."""

from __future__ import annotations

from collections.abc import Iterable

from lossless.lint.registry import computed_once, keeping_computed
from lossless.plan import DevicePlan, FabricPlan, PortPlan, shared_parts


def settings_key(port: PortPlan) -> tuple:
    """Equal for two ports of a device with the same settings (the headroom, ECN and
    watchdog by identity: plan.shared_parts)."""
    return (
        port.speed_mbps,
        port.lanes,
        port.mtu,
        port.lossless,
        tuple(port.pfc_priorities),
        shared_parts(port),
        tuple(port.wred_drop_queues),
        port.trust,
    )


def port_groups(fabric: FabricPlan) -> dict[str, list[list[PortPlan]]]:
    """Per device, its ports grouped by settings (registry.PORT_SETTINGS), each group in
    port order."""
    return computed_once("port groups", fabric, lambda: _port_groups(fabric))


def _port_groups(fabric: FabricPlan) -> dict[str, list[list[PortPlan]]]:
    return {device.name: _groups_of(device) for device in fabric.devices.values()}


def _groups_of(device: DevicePlan) -> list[list[PortPlan]]:
    by_key: dict[tuple, list[PortPlan]] = {}
    for port in device.ports.values():
        by_key.setdefault(settings_key(port), []).append(port)
    return list(by_key.values())


def device_groups(fabric: FabricPlan, device: DevicePlan) -> list[list[PortPlan]]:
    """A device's ports grouped by settings, for a device rule: from port_groups during a
    lint() run, else worked out for this device alone (not the whole fabric per device)."""
    if keeping_computed():
        return port_groups(fabric)[device.name]
    return _groups_of(device)


def cable_groups(fabric: FabricPlan) -> dict[str, list[list[PortPlan]]]:
    """Per device, its ports grouped by settings and cable lengths (the port's cable_m and
    its link's), for by_cable rules: the port groups split where the cables differ."""
    return computed_once("cable groups", fabric, lambda: _cable_groups(fabric))


def _cable_groups(fabric: FabricPlan) -> dict[str, list[list[PortPlan]]]:
    groups: dict[str, list[list[PortPlan]]] = {}
    for name, by_settings in port_groups(fabric).items():
        cables = fabric.link_cables(name)
        split: list[list[PortPlan]] = []
        for group in by_settings:
            by_cable: dict[tuple, list[PortPlan]] = {}
            for port in group:
                by_cable.setdefault((port.cable_m, cables.get(port.name)), []).append(port)
            split += by_cable.values()
        groups[name] = split
    return groups


def in_port_order(device: DevicePlan, groups: Iterable[list[PortPlan]]) -> list[PortPlan]:
    """The ports of some of a device's groups, in the device's port order."""
    groups = list(groups)
    if len(groups) == 1:
        return groups[0]
    order = {name: number for number, name in enumerate(device.ports)}
    return sorted((p for group in groups for p in group), key=lambda p: order[p.name])
