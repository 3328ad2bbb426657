"""Plan the host end of every server link: each NIC's RoCE settings.

A NIC inherits from the switch port at the other end of its cable (that port's policy:
built-in -> fabric -> role -> device -> port profile -> port), then its server's `host`
settings, then its own; a NIC without a link inherits the fabric policy. So a NIC agrees
with its switch port unless the inventory says otherwise, and where it does not, lint says so
(LL109, LL130-LL135). Nothing here knows a NIC vendor's tools.
"""

from __future__ import annotations

from typing import Any

from lossless.inventory.defaults import DEFAULT_POLICY, merge_policy
from lossless.model import Inventory, Location, Nic, Policy, Server
from lossless.plan import FabricPlan, NicPlan
from lossless.system.long_lived import building_long_lived
from lossless.text.units import whole_metres


def _inherited(
    inventory: Inventory, server: str, nic: str, fabric_policy: Policy
) -> tuple[Policy, str | None, float | None]:
    """The policy a NIC inherits (fabric_policy: the inventory's, where it has no link), the
    switch port it is cabled to, and the cable length."""
    link, peer = inventory.cabled_to(server, nic)
    if link is None or peer is None:
        return fabric_policy, None, None
    device = inventory.devices.get(peer.node)
    port = device.ports.get(peer.port) if device else None
    return (port.policy if port else fabric_policy), f"{peer.node}:{peer.port}", link.cable_m


def _fabric_policy(inventory: Inventory) -> Policy:
    """What a NIC without a link inherits."""
    return inventory.policy or Policy.from_mapping(DEFAULT_POLICY)


def host_settings(policy: Policy, server: Server, nic: Nic) -> dict[str, Any]:
    """The effective host settings in the inventory's shape: inherited, then overridden."""
    roce = policy.roce
    settings: dict[str, Any] = {
        "roce": {
            "data": {"dscp": roce.data.dscp, "priority": roce.data.priority},
            "cnp": {"dscp": roce.cnp.dscp, "priority": roce.cnp.priority},
        },
        **policy.host.mapping(),
    }
    for layer in (server.host, nic.host):
        settings = merge_policy(settings, layer)
    return settings


class _Memo:
    """What plan_nic works out once for the NICs alike: the host settings' values, by the
    identity of what they merge (the NICs of a range share their inputs; the inventory holds
    them for the whole run), the fabric's policy, and a source's text by its location (the
    NICs of a range share one, and so one text)."""

    def __init__(self, inventory: Inventory):
        self.values: dict[tuple, tuple] = {}
        self.fabric_policy = _fabric_policy(inventory)
        self.where: dict[Location, str] = {}


def plan_nic(inventory: Inventory, server: Server, nic: Nic, memo: _Memo | None = None) -> NicPlan:
    """One NIC's host plan; memo: what the NICs planned with it work out once (_Memo)."""
    if memo is None:
        memo = _Memo(inventory)
    policy, peer, cable_m = _inherited(inventory, server.name, nic.name, memo.fabric_policy)
    key = (id(policy), id(server.host), id(nic.host))
    found = memo.values.get(key)
    if found is None:
        found = memo.values[key] = _host_values(host_settings(policy, server, nic))
    values, pfc_priorities, dcqcn = found
    source = memo.where.get(nic.where)
    if source is None:
        source = memo.where[nic.where] = str(nic.where)
    return NicPlan(
        server=server.name,
        name=nic.name,
        model=nic.model,
        peer=peer,
        speed_mbps=nic.speed_mbps,
        link_pause=False,  # 802.3x pause never on a PFC port (docs/reference/physics.md 4 rule 7)
        cable_m=None if cable_m is None else whole_metres(cable_m),
        source=source,
        pfc_priorities=list(pfc_priorities),  # each NIC its own list and dict
        dcqcn=dict(dcqcn),
        **values,
    )


def _host_values(settings: dict[str, Any]) -> tuple[dict[str, Any], list[int], dict[str, int]]:
    """The NicPlan fields the effective host settings give: the plain values, the PFC
    priorities and the DCQCN parameters."""
    data, cnp = settings["roce"]["data"], settings["roce"]["cnp"]
    # PFC on the RoCE priority unless the inventory lists the priorities (an empty list: none).
    pfc = settings.get("pfc_priorities")
    plain = {
        "mtu": settings["mtu"],
        "trust": settings["trust"],
        "roce_dscp": data["dscp"],
        "roce_priority": data["priority"],
        "cnp_dscp": cnp["dscp"],
        "cnp_priority": cnp["priority"],
        "ecn_np": settings["ecn"]["np"],
        "ecn_rp": settings["ecn"]["rp"],
        "gid_index": settings["gid_index"],
        "sriov_vfs": settings["sriov_vfs"],
        "rdma_device": settings.get("rdma_device"),  # a NIC's own key: no default
    }
    return (
        plain,
        sorted(pfc) if pfc is not None else [data["priority"]],
        dict(sorted(settings["dcqcn"].items())),
    )


def plan_nics(inventory: Inventory, switches: set[str] | None = None) -> dict[str, NicPlan]:
    """Every server NIC's host plan, by "server:nic", in inventory order; with `switches`,
    only the NICs cabled to one of them."""
    with building_long_lived():  # they live as long as the plan (lossless.system.long_lived)
        return _plan_nics(inventory, switches)


def _plan_nics(inventory: Inventory, switches: set[str] | None) -> dict[str, NicPlan]:
    memo = _Memo(inventory)
    if switches is None:
        return {
            f"{server.name}:{nic.name}": plan_nic(inventory, server, nic, memo)
            for server in inventory.servers.values()
            for nic in server.nics.values()
        }
    cabled = {
        end
        for link in inventory.links_of(switches)
        for end, other in ((link.a, link.b), (link.b, link.a))
        if other.node in switches
    }
    # only the servers with such a NIC are looked into (a one-device lint of a 128k fabric
    # cables a few dozen of its 16,384 servers), still in inventory order
    nodes = {node for node, _ in cabled}
    return {
        f"{server.name}:{nic.name}": plan_nic(inventory, server, nic, memo)
        for server in inventory.servers.values()
        if server.name in nodes
        for nic in server.nics.values()
        if (server.name, nic.name) in cabled
    }


def plan_hosts(inventory: Inventory) -> FabricPlan:
    """A plan of the servers alone: every NIC, no switch (`render --hosts`)."""
    return FabricPlan(
        name=inventory.fabric_name,
        inventory=inventory.file,
        devices={},
        links=[],
        nics=plan_nics(inventory),
        nic_operator=dict(inventory.nic_operator),
    )
