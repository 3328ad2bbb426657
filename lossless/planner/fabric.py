"""Plan a whole fabric: per device and port, headroom, ECN, ECMP, maps, watchdog and budget."""

from __future__ import annotations

from lossless.asics import Asic
from lossless.model import Device, Endpoint, Inventory, Port
from lossless.plan import (
    DevicePlan,
    EcnPlan,
    FabricPlan,
    HeadroomPlan,
    HeadroomSettings,
    LinkPlan,
    NicPlan,
    PortPlan,
)
from lossless.planner.budget import plan_budget
from lossless.planner.derivation import Derivation
from lossless.planner.ecmp import plan_ecmp
from lossless.planner.ecn import ecn_thresholds, pfc_trigger_bytes
from lossless.planner.headroom import compute_headroom
from lossless.planner.headroom_common import HeadroomInputs, HeadroomResult
from lossless.planner.qos import plan_maps, plan_queues, plan_watchdog
from lossless.planner.sources import attach_sources
from lossless.units import whole_metres

# A lossless port with no link has no cable length; SONiC gives such ports the spine-leaf
# default of its neighbour-role table, the longest fabric default (sonic.md 4, CABLE_LENGTH).
UNLINKED_CABLE_M = 300


class _Planner:
    def __init__(self, inventory: Inventory):
        self.inventory = inventory
        self.derivations: dict[str, dict] = {}
        self._headroom_cache: dict[tuple[str, HeadroomInputs], tuple[str, HeadroomResult]] = {}

    def headroom(self, asic: Asic, inputs: HeadroomInputs) -> tuple[str, HeadroomResult]:
        cache_key = (asic.name, inputs)
        if cache_key not in self._headroom_cache:
            result = compute_headroom(inputs, asic)
            key = (
                f"headroom/{asic.name}/{inputs.speed_mbps}M/{inputs.cable_m}m/mtu{inputs.port_mtu}"
                f"/lanes{inputs.lanes}/gearbox{inputs.gearbox_delay_ns:g}/m{inputs.lossless_mtu}"
                f"/p{inputs.small_packet_percent}"
                f"/{'shp' if inputs.shared_headroom_pool else 'private'}"
            )
            self.derivations[key] = result.derivation.to_dict()
            self._headroom_cache[cache_key] = (key, result)
        return self._headroom_cache[cache_key]

    def plan_device(self, device: Device) -> DevicePlan:
        policy = device.policy
        settings = HeadroomSettings(
            lossless_mtu=policy.headroom.lossless_mtu,
            small_packet_percent=policy.headroom.small_packet_percent,
            shared_headroom_pool=policy.headroom.shared_headroom_pool
            or policy.headroom.over_subscribe_ratio is not None,
            over_subscribe_ratio=policy.headroom.over_subscribe_ratio,
            dynamic_th=policy.headroom.dynamic_th,
            gearbox_delay_ns=device.gearbox_delay_ns,
        )
        ports: dict[str, PortPlan] = {}
        headrooms: list[HeadroomResult] = []
        for port in device.ports.values():
            plan, result = self.plan_port(device, port, settings)
            ports[port.name] = plan
            if result is not None:
                headrooms.append(result)
        budget_key = f"budget/{device.name}"
        budget_derivation = Derivation(model="buffer-budget", source="physics.md 2.2 and 4 rule 4")
        budget = plan_budget(device.asic, settings, headrooms, budget_derivation, budget_key)
        self.derivations[budget_key] = budget_derivation.to_dict()
        congested = max(1, min(budget.lossless_pgs, policy.ecn.congested_pgs))
        for port in device.ports.values():
            if ports[port.name].lossless:
                ports[port.name].ecn = [
                    self.plan_ecn(device, port, budget.shared_buffer_bytes, congested)
                ]
        return DevicePlan(
            name=device.name,
            role=device.role,
            os=device.os,
            asic=device.asic.name,
            platform=device.platform,
            mgmt=device.mgmt,
            roce_dscp=policy.roce.data.dscp,
            roce_priority=policy.roce.data.priority,
            cnp_dscp=policy.roce.cnp.dscp,
            cnp_priority=policy.roce.cnp.priority,
            lossless_priorities=[policy.roce.data.priority],
            max_lossless_priorities=device.asic.max_lossless_priorities,
            maps=plan_maps(policy),
            queues=plan_queues(policy),
            ecmp=plan_ecmp(device.name, device.role, policy.ecmp, device.asic),
            watchdog=plan_watchdog(policy.pfc_watchdog),
            headroom_settings=settings,
            budget=budget,
            ports=ports,
            source=str(device.where),
            lint_ignore=dict(device.lint_ignore),
        )

    def plan_port(
        self, device: Device, port: Port, settings: HeadroomSettings
    ) -> tuple[PortPlan, HeadroomResult | None]:
        endpoint = Endpoint(device.name, port.name)
        link = self.inventory.link_at(endpoint)
        peer = link.other_end(endpoint) if link else None
        lossless = port.lossless if port.lossless is not None else link is not None
        cable_m = link.cable_m if link else (UNLINKED_CABLE_M if lossless else None)
        priority = port.policy.roce.data.priority
        headroom: list[HeadroomPlan] = []
        result = None
        if lossless and cable_m is not None:
            inputs = HeadroomInputs(
                speed_mbps=port.speed_mbps,
                cable_m=whole_metres(cable_m),
                port_mtu=port.policy.mtu,
                lanes=port.lanes,
                gearbox_delay_ns=device.gearbox_delay_ns,
                lossless_mtu=settings.lossless_mtu,
                small_packet_percent=settings.small_packet_percent,
                shared_headroom_pool=settings.shared_headroom_pool,
            )
            key, result = self.headroom(device.asic, inputs)
            headroom.append(
                HeadroomPlan(
                    priority, result.xon, result.xoff, result.size, device.asic.headroom_model, key
                )
            )
        plan = PortPlan(
            name=port.name,
            description=port.description,
            speed_mbps=port.speed_mbps,
            lanes=port.lanes,
            mtu=port.policy.mtu,
            peer=str(peer) if peer else None,
            peer_kind=None
            if peer is None
            else ("switch" if peer.node in self.inventory.devices else "server"),
            cable_m=cable_m,
            lossless=lossless,
            pfc_priorities=[priority] if lossless else [],
            headroom=headroom,
            ecn=[],
            watchdog=plan_watchdog(port.policy.pfc_watchdog) if lossless else None,
            source=str(port.where),
            lint_ignore=dict(port.lint_ignore),
        )
        return plan, result

    def plan_ecn(
        self, device: Device, port: Port, shared_buffer: int | None, congested: int
    ) -> EcnPlan:
        policy = port.policy
        d = Derivation(
            model="ecn-before-pfc", source="physics.md 3.3 (presets) and 3.4 (PFC trigger)"
        )
        d.inputs = {
            "speed_mbps": port.speed_mbps,
            "congested_pgs": congested,
            "shared_buffer_bytes": shared_buffer,
        }
        thresholds = ecn_thresholds(policy.ecn, port.speed_mbps, d)
        trigger = pfc_trigger_bytes(shared_buffer, policy.headroom.dynamic_th, congested, d)
        key = (
            f"ecn/{device.name}/{port.speed_mbps}M/{thresholds.min_bytes}-{thresholds.max_bytes}"
            f"-p{thresholds.probability_percent}/n{congested}"
        )
        self.derivations.setdefault(key, d.to_dict())
        return EcnPlan(
            queue=policy.roce.data.priority,
            min_bytes=thresholds.min_bytes,
            max_bytes=thresholds.max_bytes,
            probability_percent=thresholds.probability_percent,
            preset=thresholds.preset,
            pfc_trigger_bytes=trigger,
            min_below_trigger=None if trigger is None else thresholds.min_bytes < trigger,
            max_below_trigger=None if trigger is None else thresholds.max_bytes <= trigger,
            derivation=key,
        )


def plan_fabric(inventory: Inventory, only: list[str] | None = None) -> FabricPlan:
    planner = _Planner(inventory)
    devices = {
        name: planner.plan_device(device)
        for name, device in inventory.devices.items()
        if not only or name in only
    }
    attach_sources(devices, inventory)
    links = [
        LinkPlan(str(link.a), str(link.b), link.cable_m, str(link.where))
        for link in inventory.links
    ]
    nics = {
        f"{server.name}:{nic.name}": NicPlan(
            speed_mbps=nic.speed_mbps,
            mtu=nic.mtu,
            pfc_priorities=None if nic.pfc_priorities is None else list(nic.pfc_priorities),
            roce_dscp=nic.roce.data.dscp if nic.roce else None,
            cnp_dscp=nic.roce.cnp.dscp if nic.roce else None,
            trust=nic.trust,
            source=str(nic.where),
        )
        for server in inventory.servers.values()
        for nic in server.nics.values()
    }
    return FabricPlan(
        name=inventory.fabric_name,
        inventory=inventory.file,
        devices=devices,
        links=links,
        nics=nics,
        lint_ignore=dict(inventory.lint_ignore),
        forwarding_servers={s.name: str(s.where) for s in inventory.servers.values() if s.forwards},
        derivations=dict(sorted(planner.derivations.items())),
    )
