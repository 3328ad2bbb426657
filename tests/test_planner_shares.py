"""What the planner works out once and shares between ports and devices alike (issue 40:
planning 393,216 ports at 131,072 GPUs), and that sharing never gives a port or a device
another's plan."""

from __future__ import annotations

import dataclasses

from conftest import INVENTORIES

from lossless.asics import catalogue
from lossless.inventory import load_inventory
from lossless.plan import HeadroomSettings
from lossless.planner import fabric
from lossless.planner.budget import RealPorts, plan_budget
from lossless.planner.derivation import Derivation
from lossless.planner.fabric import plan_fabric
from lossless.planner.headroom_common import HeadroomResult

POD = INVENTORIES / "pod-2048.yaml"

# Two leaves of one range (they share their Port objects), cabled differently: leaf1's
# Ethernet0 by a 2 m line, leaf2's by a 90 m line, leaf2's Ethernet4 not at all.
RANGE = """
fabric:
  name: t
devices:
  leaf[1:2]:
    role: leaf
    os: sonic
    asic: spectrum-4
    platform: SN5600
    ports:
      Ethernet[0:4:4]: {speed: 400G}
  spine1:
    role: spine
    os: sonic
    asic: spectrum-4
    platform: SN5600
    ports:
      Ethernet[0:8:4]: {speed: 400G}
links:
  - {a: "leaf1:Ethernet[0:4:4]", b: "spine1:Ethernet[0:4:4]", cable_m: 2}
  - {a: leaf2:Ethernet0, b: spine1:Ethernet8, cable_m: 90}
"""


def test_ports_of_one_range_cabled_differently_get_their_own_plans(write):
    """The planner shares a port's parts between ports of one Port object on alike devices
    only when their cables are alike too: the kind is found by the link line and length."""
    inventory = load_inventory(write(RANGE))
    plan = plan_fabric(inventory)
    leaf1, leaf2 = plan.devices["leaf1"].ports, plan.devices["leaf2"].ports
    assert (leaf1["Ethernet0"].cable_m, leaf2["Ethernet0"].cable_m) == (2.0, 90.0)
    assert leaf2["Ethernet0"].headroom[0].size > leaf1["Ethernet0"].headroom[0].size
    assert leaf1["Ethernet0"].sources["cable_m"] != leaf2["Ethernet0"].sources["cable_m"]
    assert leaf1["Ethernet4"].lossless and not leaf2["Ethernet4"].lossless
    assert leaf2["Ethernet4"].headroom == leaf2["Ethernet4"].ecn == []
    assert leaf2["Ethernet4"].peer is None and leaf2["Ethernet4"].watchdog is None
    assert leaf1["Ethernet4"].peer == "spine1:Ethernet4"
    # each device as a one-device plan makes it, whatever was planned before it
    for name in ("leaf1", "leaf2", "spine1"):
        assert plan_fabric(inventory, [name]).devices[name] == plan.devices[name]


def test_a_link_and_the_peers_of_its_ports_share_one_text():
    """Each end of a link is written as text once: the LinkPlan's a and b are the peers of
    the ports at b and a (524,288 strings at 131,072 GPUs, not twice as many)."""
    plan = plan_fabric(load_inventory(POD))
    for link in plan.links:
        ends = [link.a.partition(":"), link.b.partition(":")]
        for (node, _, port), peer in zip(ends, (link.b, link.a), strict=True):
            if node in plan.devices:
                assert plan.devices[node].ports[port].peer is peer


def test_a_device_works_out_each_distinct_ecn_once(monkeypatch):
    """A device's ECN plans are worked out once per distinct speed, ECN policy and lossless
    priority among its lossless ports, not once per port."""
    calls: list[str] = []
    plan_ecn = fabric._Planner.plan_ecn

    def counted(self, device, *args):
        calls.append(device.name)
        return plan_ecn(self, device, *args)

    monkeypatch.setattr(fabric._Planner, "plan_ecn", counted)
    inventory = load_inventory(POD)
    plan = plan_fabric(inventory)
    for name, device in inventory.devices.items():
        distinct = {
            (port.speed_mbps, id(port.policy.ecn), port.policy.roce.data.priority)
            for port in device.ports.values()
            if plan.devices[name].ports[port.name].lossless
        }
        assert calls.count(name) == len(distinct) < len(device.ports)


def test_the_devices_of_a_range_share_their_sources():
    plan = plan_fabric(load_inventory(POD))
    assert plan.devices["leaf01"].sources is plan.devices["leaf02"].sources
    assert plan.devices["leaf01"].sources


def _pg(size: int, xoff: int) -> HeadroomResult:
    return HeadroomResult(xon=0, xoff=xoff, size=size, derivation=Derivation("headroom", ""))


def test_the_budget_counts_ports_alike_as_each_port_on_its_own():
    """Ports given one tuple of PGs (the planner shares one between ports alike) are counted
    together: the budget is that of the same ports each with a tuple of its own, and adds up
    as every port counted one by one."""
    asic = catalogue()["spectrum-4"]
    settings = HeadroomSettings(9100, 50, True, 2, 0)
    small, large = _pg(10_000, 6_000), _pg(30_000, 20_000)
    shared = [(small,)] * 5 + [(large,)] * 3 + [(small, large)]
    own = [tuple(list(pgs)) for pgs in shared]
    assert own == shared and own[0] is not own[1]
    budgets, derivations = [], []
    for ports in (shared, own):
        d = Derivation("buffer-budget", "")
        budgets.append(plan_budget(asic, settings, ports, RealPorts(64, "t"), 1, d, "b/x"))
        derivations.append(d.to_dict())
    assert budgets[0] == budgets[1] and derivations[0] == derivations[1]
    budget, unlisted = budgets[0], 64 - len(shared)
    listed = [h for pgs in shared for h in pgs]
    assert budget.lossless_pgs == len(listed) + unlisted
    assert budget.reserved_headroom_bytes == (
        sum(h.size for h in listed) + unlisted * large.size + 64 * asic.lossy_pg_reserved_bytes
    )
    total_xoff = sum(h.xoff for h in listed) + unlisted * large.xoff
    assert budget.shared_headroom_pool_bytes == -(-total_xoff // 2)
    assert budget.largest_port_headroom_bytes == 40_000 + asic.lossy_pg_reserved_bytes
    assert budget.largest_port_xoff_bytes == 26_000
    assert f"(size {large.size}, xoff {large.xoff})" in derivations[0]["notes"][0]


def test_devices_alike_share_a_budget_worked_out_once(write):
    """The budget of devices alike (same ASIC, settings, real ports and ports' PGs) is
    worked out once: one derivation under each device's key, each device its own BudgetPlan
    naming its own derivation. leaf2, cabled differently, has a budget of its own."""
    pod = plan_fabric(load_inventory(POD))
    first, second = pod.devices["leaf01"].budget, pod.devices["leaf02"].budget
    assert (first.derivation, second.derivation) == ("budget/leaf01", "budget/leaf02")
    assert first is not second
    assert dataclasses.replace(first, derivation="") == dataclasses.replace(second, derivation="")
    assert pod.derivations["budget/leaf01"] is pod.derivations["budget/leaf02"]
    first.fits = not first.fits  # a device's budget is its own
    assert second.fits != first.fits
    plan = plan_fabric(load_inventory(write(RANGE)))
    leaf1, leaf2 = plan.devices["leaf1"].budget, plan.devices["leaf2"].budget
    assert leaf1.reserved_headroom_bytes != leaf2.reserved_headroom_bytes
    assert plan.derivations["budget/leaf1"] != plan.derivations["budget/leaf2"]
