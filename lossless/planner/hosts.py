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
from lossless.model import Inventory, Nic, Policy, Server
from lossless.plan import NicPlan
from lossless.units import whole_metres


def _inherited(
    inventory: Inventory, server: str, nic: str
) -> tuple[Policy, str | None, float | None]:
    """The policy a NIC inherits, the switch port it is cabled to, and the cable length."""
    link, peer = inventory.cabled_to(server, nic)
    fabric_policy = inventory.policy or Policy.from_mapping(DEFAULT_POLICY)
    if link is None or peer is None:
        return fabric_policy, None, None
    device = inventory.devices.get(peer.node)
    port = device.ports.get(peer.port) if device else None
    return (port.policy if port else fabric_policy), str(peer), link.cable_m


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


def plan_nic(
    inventory: Inventory, server: Server, nic: Nic, memo: dict[tuple, dict] | None = None
) -> NicPlan:
    """memo: host settings already merged, by the identity of what they merge (the NICs of
    a range share their inputs; the inventory holds them for the whole run)."""
    policy, peer, cable_m = _inherited(inventory, server.name, nic.name)
    if memo is None:
        memo = {}
    key = (id(policy), id(server.host), id(nic.host))
    settings = memo.get(key)
    if settings is None:
        settings = memo[key] = host_settings(policy, server, nic)
    data, cnp = settings["roce"]["data"], settings["roce"]["cnp"]
    # PFC on the RoCE priority unless the inventory lists the priorities (an empty list: none).
    pfc = settings.get("pfc_priorities")
    return NicPlan(
        server=server.name,
        name=nic.name,
        model=nic.model,
        peer=peer,
        speed_mbps=nic.speed_mbps,
        mtu=settings["mtu"],
        trust=settings["trust"],
        pfc_priorities=sorted(pfc) if pfc is not None else [data["priority"]],
        roce_dscp=data["dscp"],
        roce_priority=data["priority"],
        cnp_dscp=cnp["dscp"],
        cnp_priority=cnp["priority"],
        ecn_np=settings["ecn"]["np"],
        ecn_rp=settings["ecn"]["rp"],
        link_pause=False,  # 802.3x pause never on a PFC port (docs/reference/physics.md 4 rule 7)
        cable_m=None if cable_m is None else whole_metres(cable_m),
        dcqcn=dict(sorted(settings["dcqcn"].items())),
        gid_index=settings["gid_index"],
        sriov_vfs=settings["sriov_vfs"],
        source=str(nic.where),
    )


def plan_nics(inventory: Inventory, switches: set[str] | None = None) -> dict[str, NicPlan]:
    """Every server NIC's host plan, by "server:nic", in inventory order; with `switches`,
    only the NICs cabled to one of them."""
    memo: dict[tuple, dict] = {}
    cabled = None
    if switches is not None:
        cabled = {
            end
            for link in inventory.links_of(switches)
            for end, other in ((link.a, link.b), (link.b, link.a))
            if other.node in switches
        }
    return {
        f"{server.name}:{nic.name}": plan_nic(inventory, server, nic, memo)
        for server in inventory.servers.values()
        for nic in server.nics.values()
        if cabled is None or (server.name, nic.name) in cabled
    }
