"""The host plan: each NIC inherits its RoCE settings from the switch port at the other end of
its cable, then its server's and its own overrides; the schema documents and checks them."""

from __future__ import annotations

import textwrap

import pytest
from conftest import INVENTORIES

from lossless.hosts.plan import plan_nics
from lossless.inventory import load_inventory
from lossless.lint.runner import lint
from lossless.planner.fabric import plan_fabric
from lossless.report.plan_compact import expand

BASE = """
fabric:
  name: t
  policy:
    roce: {data: {dscp: 24, priority: 3}}
    host: {mtu: 4200, dcqcn: {ai_rate_mbps: 5}}
roles:
  leaf:
    policy:
      host: {dcqcn: {hai_rate_mbps: 50}}
devices:
  leaf1:
    role: leaf
    os: sonic
    asic: spectrum-4
    policy:
      roce: {cnp: {dscp: 46, priority: 5}}
    ports:
      Ethernet[0:8:4]: {speed: 400G}
servers:
  gpu1:
    host: {ecn: {rp: false}}
    nics:
      eth0: {speed: 400G, model: ConnectX-7}
      eth1: {speed: 400G, model: ConnectX-7, roce: {data: {dscp: 26}}, pfc_priorities: [3, 4]}
      eth2: {speed: 400G, model: ConnectX-7}
links:
  - {a: leaf1:Ethernet0, b: gpu1:eth0, cable_m: 2.5}
  - {a: leaf1:Ethernet4, b: gpu1:eth1, cable_m: 3}
"""


@pytest.fixture
def nics(write):
    return plan_nics(load_inventory(write(BASE)))


def test_a_nic_inherits_from_its_switch_port(nics):
    nic = nics["gpu1:eth0"]
    assert nic.peer == "leaf1:Ethernet0"
    # fabric roce data, device roce cnp, built-in trust, fabric MTU, role + fabric DCQCN
    assert (nic.roce_dscp, nic.roce_priority, nic.cnp_dscp, nic.cnp_priority) == (24, 3, 46, 5)
    assert nic.trust == "dscp" and nic.mtu == 4200 and nic.pfc_priorities == [3]
    assert nic.dcqcn == {"ai_rate_mbps": 5, "hai_rate_mbps": 50}
    assert nic.cable_m == 3  # 2.5 m rounded up: the NIC's buffer is never sized short
    assert nic.link_pause is False and nic.gid_index is None and nic.sriov_vfs == 0


def test_server_and_nic_overrides_merge_key_by_key(nics):
    nic = nics["gpu1:eth1"]
    assert nic.ecn_np is True and nic.ecn_rp is False  # the server turned rp off only
    assert (nic.roce_dscp, nic.roce_priority) == (26, 3)  # the NIC changed the DSCP only
    assert nic.pfc_priorities == [3, 4]


def test_a_nic_without_a_link_inherits_the_fabric_policy(nics):
    nic = nics["gpu1:eth2"]
    assert nic.peer is None and nic.cable_m is None
    assert (nic.cnp_dscp, nic.cnp_priority) == (48, 6)  # not leaf1's device policy
    assert nic.dcqcn == {"ai_rate_mbps": 5}  # no role either


def test_overrides_that_disagree_with_the_switch_are_lint_errors(write):
    plan = plan_fabric(load_inventory(write(BASE)))
    rules = {f.rule for f in lint(plan).findings if f.severity == "error"}
    assert {"LL131", "LL132"} <= rules  # eth1: PFC on 3 and 4, RoCE DSCP 26 vs 24
    assert "LL134" in rules  # the server turned the DCQCN reaction point off


def test_the_examples_inherit_and_agree():
    plan = plan_fabric(load_inventory(INVENTORIES / "lab.yaml"))
    assert len(plan.nics) == 8
    assert {n.peer.split(":")[0] for n in plan.nics.values() if n.peer} == {
        "leaf1",
        "leaf2",
        "leaf3",
        "leaf4",
    }
    assert all(n.trust == "dscp" and n.pfc_priorities == [3] for n in plan.nics.values())


@pytest.mark.parametrize(
    "snippet, message",
    [
        ("host: {trust: l3}", "servers.gpu1.host.trust"),
        ("host: {ecn: {np: yes-please}}", "servers.gpu1.host.ecn.np"),
        ("host: {dcqcn: {alpha_g: 2048}}", "servers.gpu1.host.dcqcn.alpha_g"),
        ("host: {dcqcn: {ai_rate: 5}}", 'did you mean "ai_rate_mbps"'),
        ("host: {mtuu: 9000}", 'did you mean "mtu"'),
    ],
)
def test_bad_host_settings_are_located(run, write, snippet, message):
    text = BASE.replace("host: {ecn: {rp: false}}", snippet)
    result = run("validate", str(write(textwrap.dedent(text))))
    assert result.code == 2
    assert message in result.err, result.err


def test_plan_json_carries_the_host_plan(run, write):
    import json

    result = run("plan", str(write(BASE)), "--format", "json")
    nic = expand(json.loads(result.out))["nics"]["gpu1:eth1"]
    assert nic["roce_dscp"] == 26 and nic["ecn_rp"] is False and nic["cable_m"] == 3


def test_nics_left_for_later_are_planned_by_their_first_reader(write):
    """plan_fabric(hosts="later") plans no NIC until one is read (planned_nics); lint and the
    plan's dict then hold what an eager plan holds."""
    inventory = load_inventory(write(BASE))
    eager = plan_fabric(inventory)
    later = plan_fabric(inventory, hosts="later")
    assert later.nics == {}
    assert lint(later).findings == lint(eager).findings  # the host rules planned them
    assert later.nics == eager.nics and later.to_dict() == eager.to_dict()
    untouched = plan_fabric(inventory, hosts="later")
    assert untouched.to_dict() == eager.to_dict()  # to_dict reads them through planned_nics


def test_the_nics_of_a_range_share_their_source_text():
    """A NIC's FILE:LINE:COL is made once per location, not per NIC: the 2,048 NICs of the
    pod (one range) hold one string, which the plan JSON then finds as the same object."""
    nics = plan_nics(load_inventory(INVENTORIES / "pod-2048.yaml")).values()
    assert len(nics) == 2048
    assert len({id(nic.source) for nic in nics}) == len({nic.source for nic in nics}) == 1
