"""Plan a whole fabric: per device and port, headroom, ECN, ECMP, maps, watchdog and budget."""

from __future__ import annotations

import dataclasses
from collections import Counter, defaultdict
from collections.abc import Iterable
from functools import partial
from typing import Literal, NamedTuple

from lossless.asics import Asic
from lossless.hosts.plan import plan_nics
from lossless.model import Device, Inventory, Link, Location, Port, WatchdogPolicy
from lossless.plan import (
    BudgetPlan,
    DevicePlan,
    EcnPlan,
    FabricPlan,
    HeadroomPlan,
    HeadroomSettings,
    LinkPlan,
    PortPlan,
    WatchdogPlan,
    replaced,
)
from lossless.planner.budget import RealPorts, plan_budget
from lossless.planner.derivation import Derivation
from lossless.planner.ecmp import plan_ecmp
from lossless.planner.ecn import ecn_thresholds
from lossless.planner.headroom import compute_headroom
from lossless.planner.headroom_common import HeadroomInputs, HeadroomResult
from lossless.planner.pfc_trigger import Trigger, plan_trigger, real_ports
from lossless.planner.qos import plan_maps, plan_queues, plan_watchdog
from lossless.planner.sources import Sources
from lossless.system.long_lived import building_long_lived
from lossless.text.units import whole_metres

TRIGGER_SOURCE = (
    "docs/reference/physics.md 3.4 (ECN before PFC), SAI dynamic threshold; "
    "n: real ports (lossless/asics/platforms.yaml)"
)

# A lossless port with no link has no cable length; SONiC gives such ports the spine-leaf
# default of its neighbour-role table, the longest fabric default (docs/reference/sonic.md 4,
# CABLE_LENGTH).
UNLINKED_CABLE_M = 300


class _PortKind(NamedTuple):
    """What a port's plan shares with the ports alike: all but its name and peer. Ports are
    alike when they are one Port of the inventory (the devices of a range share theirs) on
    devices with equal headroom inputs, cabled on one link line with one length, or not
    cabled: a 131,072-GPU fabric has 6,144 kinds among its 393,216 ports."""

    port: Port  # the inventory's Port these are of
    lossless: bool
    cable_m: float | None
    headroom: HeadroomPlan | None
    pgs: tuple[HeadroomResult, ...]  # the PGs the budget counts (empty: not lossless)
    mtu: int
    pfc_priority: int  # the policy's lossless priority (a lossless port's PFC priority)
    watchdog: WatchdogPlan | None  # None: not lossless
    source: str
    sources: dict[str, str]
    # what decides the port's ECN plan on a device: speed, ECN policy (the inventory keeps
    # each for the run, so its identity stands for it) and the lossless priority
    ecn_key: tuple[int, int, int]


class _Planner:
    def __init__(self, inventory: Inventory, links: Iterable[int]):
        """links: the indices of the inventory's links the devices planned are on."""
        self.inventory = inventory
        self._where_text: dict[Location, str] = {}
        # The plans of these links, by index: their ends' text is their ports' peers' too
        self.links: dict[int, LinkPlan] = {}
        # The index of the link at each port of a node, by node: a device's ports are looked
        # up in a small mapping of their own, in memory at hand, not among the 524,288 link
        # ends of a 131,072-GPU fabric (0.1 s less there)
        self._link_at: defaultdict[str, dict[str, int]] = defaultdict(dict)
        plans, link_at = self.links, self._link_at
        where: Location | None = None
        source = ""
        for index in links:
            link = inventory.links[index]
            if link.where is not where:  # the links of one entry share its location
                where, source = link.where, self.where_text(link.where)
            a, b = link.a, link.b
            plans[index] = LinkPlan(":".join(a), ":".join(b), link.cable_m, source)
            link_at[a.node][a.port] = link_at[b.node][b.port] = index
        self.derivations: dict[str, dict] = {}
        self._headroom_cache: dict[tuple[str, HeadroomInputs], tuple[str, HeadroomResult]] = {}
        # The parts of port plans are immutable values, one object for all ports they equal
        self._port_headrooms: dict[tuple, tuple[HeadroomPlan, tuple[HeadroomResult]]] = {}
        self._watchdogs: dict[int, WatchdogPlan] = {}  # by id of the inventory's policy
        self._budgets: dict[tuple, tuple[BudgetPlan, dict]] = {}
        # by the headroom inputs of a device (the values port_headroom reads from it)
        self._device_kinds: dict[tuple, int] = {}
        # by (device kind, id of the Port, the cable's length and id of its link's location)
        self._port_kinds: dict[tuple, _PortKind] = {}
        self.sources = Sources()

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
        policy, asic = device.policy, device.asic
        shp = policy.headroom.shared_headroom_pool
        dynamic_th = policy.headroom.dynamic_th
        settings = HeadroomSettings(
            lossless_mtu=policy.headroom.lossless_mtu,
            small_packet_percent=policy.headroom.small_packet_percent,
            shared_headroom_pool=(asic.shared_headroom_pool if shp is None else shp)
            or policy.headroom.over_subscribe_ratio is not None,
            over_subscribe_ratio=policy.headroom.over_subscribe_ratio,
            dynamic_th=asic.lossless_dynamic_th if dynamic_th is None else dynamic_th,
            gearbox_delay_ns=device.gearbox_delay_ns,
            override=policy.headroom.override,
        )
        device_kind = self._device_kinds.setdefault(
            (
                asic.name,
                device.gearbox_delay_ns,
                settings.lossless_mtu,
                settings.small_packet_percent,
                settings.shared_headroom_pool,
            ),
            len(self._device_kinds),
        )
        ends = self.port_ends(device, device_kind, settings)
        lossless = [kind for kind, _, _ in ends if kind.lossless]
        pgs_per_port = len({policy.roce.data.priority})
        real = real_ports(asic, device.platform, [kind.port.speed_mbps for kind in lossless])
        budget_key = f"budget/{device.name}"
        budget, self.derivations[budget_key] = self.budget(
            asic, settings, [kind.pgs for kind in lossless], real, pgs_per_port
        )
        budget = replaced(budget, derivation=budget_key)
        trigger_key = f"pfc-trigger/{device.name}"
        trigger_derivation = Derivation(model="pfc-trigger", source=TRIGGER_SOURCE)
        trigger = plan_trigger(
            asic,
            budget,
            pgs_per_port,
            settings.dynamic_th,
            "inventory policy headroom.dynamic_th"
            if dynamic_th is not None
            else asic.source("lossless_dynamic_th"),
            policy.ecn.fan_out,
            trigger_derivation,
            trigger_key,
        )
        self.derivations[trigger_key] = trigger_derivation.to_dict()
        # The ECN plans the ports share, by their ECN inputs: worked out once, for any one of
        # the ports with them (each gives the same)
        distinct = {
            key: self.plan_ecn(device, kind.port, trigger)
            for key, kind in {kind.ecn_key: kind for kind in lossless}.items()
        }
        ecn = distinct.values()
        if ecn and trigger.plan.trigger_bytes is not None:
            trigger.plan.largest_n_ecn_before_pfc = min(e.largest_pgs_min or 0 for e in ecn)
            trigger.plan.largest_n_full_marking_before_pfc = min(
                e.largest_pgs_max or 0 for e in ecn
            )
        # Positional up to `source`, in PortPlan's field order: matching 17 keywords to the
        # parameters took a tenth of a second at 131,072 GPUs
        ports = {
            port.name: PortPlan(
                port.name,
                port.description,
                port.speed_mbps,
                port.lanes,
                kind.mtu,
                peer,
                peer_kind,
                kind.cable_m,
                kind.lossless,
                [kind.pfc_priority] if kind.lossless else [],  # pfc_priorities
                [kind.headroom] if kind.headroom else [],
                [distinct[kind.ecn_key]] if kind.lossless else [],
                kind.watchdog,
                kind.source,
                lint_ignore=dict(port.lint_ignore),
                sources=kind.sources,
                routed=port.routed,
            )
            for port, (kind, peer, peer_kind) in zip(device.ports.values(), ends, strict=True)
        }
        return DevicePlan(
            name=device.name,
            role=device.role,
            os=device.os,
            os_version=device.os_version,
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
            tier_type=policy.ecmp.device_type,
            watchdog=self.watchdog(policy.pfc_watchdog),
            headroom_settings=settings,
            budget=budget,
            ports=ports,
            source=str(device.where),
            lint_ignore=dict(device.lint_ignore),
            pfc_trigger=trigger.plan,
            sources=self.sources.of_device(device),
        )

    def budget(
        self,
        asic: Asic,
        settings: HeadroomSettings,
        port_headrooms: list[tuple[HeadroomResult, ...]],
        real: RealPorts,
        pgs_per_port: int,
    ) -> tuple[BudgetPlan, dict]:
        """A device's buffer budget and its derivation, worked out once for the devices alike:
        the same ASIC, headroom settings and real ports, and their ports' PGs the same tuples
        (by identity: the planner shares one between ports alike, and keeps it for the run)
        as many times. The derivation is the same for each; the caller names the budget's."""
        key = (
            asic.name,
            settings.shared_headroom_pool,
            settings.over_subscribe_ratio,
            real,
            pgs_per_port,
            tuple(Counter(map(id, port_headrooms)).items()),
        )
        found = self._budgets.get(key)
        if found is None:
            d = Derivation(
                model="buffer-budget",
                source="docs/reference/physics.md 2.2 and 4 rule 4; lossless/asics/platforms.yaml",
            )
            budget = plan_budget(asic, settings, port_headrooms, real, pgs_per_port, d, "")
            found = self._budgets[key] = (budget, d.to_dict())
        return found

    def where_text(self, where: Location) -> str:
        """FILE:LINE:COL of a location; the ports of one range share one, and so its text."""
        text = self._where_text.get(where)
        if text is None:
            text = self._where_text[where] = str(where)
        return text

    def port_ends(
        self, device: Device, device_kind: int, settings: HeadroomSettings
    ) -> list[tuple[_PortKind, str | None, str | None]]:
        """Each port's kind, its peer ("device:port") and the peer's kind ("switch" or
        "server"; None: the port has no link). One loop for all ports of the device: a call
        per port cost 0.05 s at 131,072 GPUs."""
        ends = []
        links, devices, kinds = self.inventory.links, self.inventory.devices, self._port_kinds
        link_at = self._link_at.get(device.name, {})
        for port in device.ports.values():
            link_index = link_at.get(port.name)
            if link_index is None:
                link = peer = peer_kind = None
                key: tuple = (device_kind, id(port))
            else:
                link, plan = links[link_index], self.links[link_index]
                peer_end, peer = (
                    (link.b, plan.b) if link.a == (device.name, port.name) else (link.a, plan.a)
                )
                peer_kind = "switch" if peer_end.node in devices else "server"
                key = (device_kind, id(port), link.cable_m, id(link.where))
            kind = kinds.get(key)
            if kind is None:
                kind = kinds[key] = self.port_kind(device, port, settings, link)
            ends.append((kind, peer, peer_kind))
        return ends

    def port_kind(
        self, device: Device, port: Port, settings: HeadroomSettings, link: Link | None
    ) -> _PortKind:
        """The values of a port's plan that do not depend on its name and peer."""
        lossless = port.lossless if port.lossless is not None else link is not None
        cable_m = link.cable_m if link else (UNLINKED_CABLE_M if lossless else None)
        policy = port.policy
        headroom: HeadroomPlan | None = None
        pgs: tuple[HeadroomResult, ...] = ()
        if lossless and cable_m is not None:
            headroom, pgs = self.port_headroom(device, port, whole_metres(cable_m), settings)
        return _PortKind(
            port=port,
            lossless=lossless,
            cable_m=cable_m,
            headroom=headroom,
            pgs=pgs,
            mtu=policy.mtu,
            pfc_priority=policy.roce.data.priority,
            watchdog=self.watchdog(policy.pfc_watchdog) if lossless else None,
            source=self.where_text(port.where),
            sources=self.sources.of_port(port, link),
            ecn_key=(port.speed_mbps, id(policy.ecn), policy.roce.data.priority),
        )

    def watchdog(self, policy: WatchdogPolicy) -> WatchdogPlan:
        """Policies are keyed by identity: the inventory holds them for the whole run."""
        found = self._watchdogs.get(id(policy))
        if found is None:
            found = self._watchdogs[id(policy)] = plan_watchdog(policy)
        return found

    def port_headroom(
        self, device: Device, port: Port, cable_m: int, settings: HeadroomSettings
    ) -> tuple[HeadroomPlan, tuple[HeadroomResult]]:
        """The lossless PG's headroom of a port, and the model's result it states (in a tuple
        the ports alike share, the port's PGs for the budget). Looked up
        by the plain values first, as most ports of a fabric share them (building
        HeadroomInputs for each of them cost more than the rest of planning the port)."""
        priority = port.policy.roce.data.priority
        values = (
            device.asic.name,
            port.speed_mbps,
            cable_m,
            port.policy.mtu,
            port.lanes,
            device.gearbox_delay_ns,
            settings.lossless_mtu,
            settings.small_packet_percent,
            settings.shared_headroom_pool,
            priority,
        )
        found = self._port_headrooms.get(values)
        if found is None:
            inputs = HeadroomInputs(
                speed_mbps=port.speed_mbps,
                cable_m=cable_m,
                port_mtu=port.policy.mtu,
                lanes=port.lanes,
                gearbox_delay_ns=device.gearbox_delay_ns,
                lossless_mtu=settings.lossless_mtu,
                small_packet_percent=settings.small_packet_percent,
                shared_headroom_pool=settings.shared_headroom_pool,
            )
            key, result = self.headroom(device.asic, inputs)
            pg = HeadroomPlan(
                priority,
                result.xon,
                result.xoff,
                result.size,
                device.asic.headroom_model,
                key,
                model_xoff=result.model_xoff or result.xoff,
                vendor_floor_xoff=result.vendor_floor_xoff,
                vendor_floor_source=result.vendor_floor_source,
                fallback=result.fallback,
            )
            found = self._port_headrooms[values] = (pg, (result,))
        return found

    def plan_ecn(self, device: Device, port: Port, trigger: Trigger) -> EcnPlan:
        """The ECN plan of the port's lossless queue on the device, against its PFC trigger."""
        policy = port.policy
        d = Derivation(
            model="ecn-before-pfc",
            source="docs/reference/physics.md 3.3 (presets) and 3.4 (PFC trigger)",
        )
        d.inputs = {"speed_mbps": port.speed_mbps}
        thresholds = ecn_thresholds(policy.ecn, port.speed_mbps, d)
        queue = trigger.queue_bytes(policy.ecn.fan_out)
        if policy.ecn.fit_to_trigger and queue is not None and thresholds.max_bytes > queue:
            # Defaults lint clean on the hardware they are for (LL112): full marking first
            kmax = max(queue, thresholds.min_bytes)
            d.step(
                "kmax",
                "max(Kmin, min(preset Kmax, T / f))",
                f"max({thresholds.min_bytes}, min({thresholds.max_bytes}, {queue}))",
                kmax,
            )
            d.notes.append(
                f"the inventory sets no ECN Kmax: the {thresholds.preset} preset's "
                f"{thresholds.max_bytes} B is lowered to the {queue} B a queue holds when PFC "
                "fires, so ECN marks fully before PFC pauses (LL112); ecn.max_bytes overrides"
            )
            thresholds = dataclasses.replace(thresholds, max_bytes=kmax)
        checked = trigger.check(thresholds, policy.ecn.fan_out, d)
        key = (
            f"ecn/{device.name}/{port.speed_mbps}M/{thresholds.min_bytes}-{thresholds.max_bytes}"
            f"-p{thresholds.probability_percent}/f{policy.ecn.fan_out}"
        )
        self.derivations.setdefault(key, d.to_dict())
        return EcnPlan(
            queue=policy.roce.data.priority,
            min_bytes=thresholds.min_bytes,
            max_bytes=thresholds.max_bytes,
            probability_percent=thresholds.probability_percent,
            preset=thresholds.preset,
            pfc_trigger_bytes=trigger.plan.trigger_bytes,
            min_below_trigger=None if checked is None else checked.min_below_trigger,
            max_below_trigger=None if checked is None else checked.max_below_trigger,
            derivation=key,
            queue_trigger_bytes=None if checked is None else checked.queue_trigger_bytes,
            largest_pgs_min=None if checked is None else checked.largest_pgs_min,
            largest_pgs_max=None if checked is None else checked.largest_pgs_max,
        )


def plan_fabric(
    inventory: Inventory, only: list[str] | None = None, *, hosts: bool | Literal["later"] = True
) -> FabricPlan:
    """The plan of the devices `only` names (all when None): with them the links and the
    server NICs at least one of them is cabled to, which is all a rule about them reads.
    hosts=False leaves the NICs out (plan.nics empty): switch configs do not read them, and
    planning the 32,768 NICs of a 32k fabric costs a quarter of a second. hosts="later"
    leaves them to their first reader (FabricPlan.planned_nics)."""
    with building_long_lived():
        return _plan_fabric(inventory, only, hosts)


def _plan_fabric(
    inventory: Inventory, only: list[str] | None, hosts: bool | Literal["later"]
) -> FabricPlan:
    chosen = set(only or inventory.devices)
    indices = (
        inventory.link_indices_of(chosen & inventory.devices.keys())
        if only
        else range(len(inventory.links))
    )
    planner = _Planner(inventory, indices)
    devices = {
        name: planner.plan_device(device)
        for name, device in inventory.devices.items()
        if name in chosen
    }
    return FabricPlan(
        name=inventory.fabric_name,
        inventory=inventory.file,
        devices=devices,
        links=list(planner.links.values()),
        nics=plan_nics(inventory, chosen if only else None) if hosts is True else {},
        lint_ignore=dict(inventory.lint_ignore),
        nic_operator=dict(inventory.nic_operator),
        forwarding_servers={s.name: str(s.where) for s in inventory.servers.values() if s.forwards},
        complete=not only,
        derivations=dict(sorted(planner.derivations.items())),
        _nics_later=partial(plan_nics, inventory, chosen if only else None)
        if hosts == "later"
        else None,
    )
