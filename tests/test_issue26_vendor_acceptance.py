"""Issue 26 acceptance, one test per item, on realistic full running configs where it applies
(unrelated sections, another ordering, as `show running-config` prints them):

* NX-OS: CNP in qos-group 7 / c-out-8q-q7 with `priority level 1`, the strict queues the
  highest-numbered and contiguous (Cisco QoS guide, priority guidelines; Cisco's RoCE script);
  `system jumbomtu` never rendered and never lowered or removed by the diff.
* Junos: `pfc-watchdog` only on QFX5230/QFX5240 (Juniper "PFC Watchdog", Junos OS Evolved
  23.4R2+), listed as not expressed on a QFX5220; egress shared buffer lossless 90 % (Juniper
  AI JVD, terraform-apstra-examples ai-cluster-jvd/configlet_dcqcn.tf commit 0966905).
* EOS: the global watchdog action is `drop` or `no-drop` only (`notify-only` is per port, in
  the qos profile); the diff never emits `no speed`; `ip load-sharing trident seed` rendered
  and read back.
"""

from __future__ import annotations

import re

import pytest
from conftest import INVENTORIES

from lossless.inventory import load_inventory
from lossless.planner.fabric import plan_fabric
from lossless.vendors.eos import diff as eos_diff
from lossless.vendors.eos import render as eos_render
from lossless.vendors.eos.parse import parse as eos_parse
from lossless.vendors.junos import render as junos_render
from lossless.vendors.junos.parse import parse as junos_parse
from lossless.vendors.junos.statements import read
from lossless.vendors.nxos import diff as nxos_diff
from lossless.vendors.nxos.parse import parse as nxos_parse
from lossless.vendors.registry import not_expressed
from lossless.vendors.rendering import render_device

LAB_TEXT = (INVENTORIES / "lab.yaml").read_text()
QFX5220 = "asic: tomahawk-3\n    platform: QFX5220-32CD"
QFX5240 = "asic: tomahawk-5\n    platform: QFX5240-64OD"


def _plan(write, text: str = LAB_TEXT):
    return plan_fabric(load_inventory(write(text)))


@pytest.fixture(scope="module")
def lab():
    return plan_fabric(load_inventory(INVENTORIES / "lab.yaml"))


def _rendered(plan, name: str) -> str:
    return render_device(plan.devices[name], plan)


# -- NX-OS ---------------------------------------------------------------------------------------


def _egress_strict(text: str) -> dict[int, bool]:
    """queue -> strict (`priority level`) in the system egress queuing policy QOS_EGRESS."""
    block = re.search(r"^policy-map type queuing QOS_EGRESS\n((?:  .*\n)+)", text, re.M)
    assert block is not None
    strict: dict[int, bool] = {}
    queue = None
    for line in block.group(1).splitlines():
        if match := re.fullmatch(r"  class type queuing c-out-8q-q(\d|-default)", line):
            queue = 0 if match.group(1) == "-default" else int(match.group(1))
            strict[queue] = False
        elif line.strip().startswith("priority level") and queue is not None:
            strict[queue] = True
    return strict


def test_nxos_cnp_is_in_qos_group_7_and_the_strict_queues_are_the_highest_contiguous(lab):
    text = _rendered(lab, "leaf3")
    assert re.search(r"^  class CNP\n    set qos-group 7$", text, re.M)
    strict = _egress_strict(text)
    assert sorted(strict) == list(range(8))
    assert strict[7] is True  # CNP's queue: `priority level 1`
    strict_queues = sorted(q for q, is_strict in strict.items() if is_strict)
    # contiguous from the top: no strict queue below a non-strict one
    assert strict_queues == list(range(strict_queues[0], 8))
    parsed = nxos_parse(text, "leaf3.cfg", "leaf3")
    [cnp] = [q for q in parsed.queues if q.traffic == "cnp"]
    assert (cnp.queue, cnp.scheduler, cnp.lossless) == (7, "strict", False)
    assert parsed.maps.dscp_to_tc[lab.devices["leaf3"].cnp_dscp] == 7
    # the RoCE DSCP's class is unchanged: that is what crosses the link (LL108)
    assert parsed.maps.dscp_to_tc[26] == 3


# A Nexus 9332D-GX2B as an operator would have it before lossless: Cisco's older layout
# with CNP in qos-group 6, `system jumbomtu 9216` stated, a storage switchport at 9216,
# management, routing and line sections around the QoS.
NXOS_RUNNING = """\

!Command: show running-config
!Running configuration last done at: Wed Mar 11 09:12:40 2026
!Time: Wed Mar 11 09:15:02 2026

version 10.4(3) Bios:version 01.17
hostname leaf3
vdc leaf3 id 1
  limit-resource vlan minimum 16 maximum 4094

feature nxapi
feature bgp
feature lldp
feature interface-vlan

system jumbomtu 9216
username admin password 5 $5$REDACTED role network-admin
ip domain-lookup
copp profile strict

class-map type qos match-any ROCE
  match dscp 26
class-map type qos match-any CNP
  match dscp 48
policy-map type qos QOS_CLASSIFY
  class CNP
    set qos-group 6
  class ROCE
    set qos-group 3
  class class-default
    set qos-group 0
policy-map type queuing QOS_EGRESS
  class type queuing c-out-8q-q7
    bandwidth remaining percent 0
  class type queuing c-out-8q-q6
    priority level 1
  class type queuing c-out-8q-q5
    bandwidth remaining percent 0
  class type queuing c-out-8q-q4
    bandwidth remaining percent 0
  class type queuing c-out-8q-q3
    bandwidth remaining percent 50
    random-detect minimum-threshold 150 kbytes maximum-threshold 500 kbytes \
drop-probability 100 weight 0 ecn
  class type queuing c-out-8q-q2
    bandwidth remaining percent 0
  class type queuing c-out-8q-q1
    bandwidth remaining percent 0
  class type queuing c-out-8q-q-default
    bandwidth remaining percent 50
policy-map type network-qos QOS_NETWORK
  class type network-qos c-8q-nq3
    mtu 9216
    pause pfc-cos 3
  class type network-qos c-8q-nq-default
    mtu 9216
system qos
  service-policy type network-qos QOS_NETWORK
  service-policy type queuing output QOS_EGRESS
priority-flow-control watch-dog-interval on
priority-flow-control watch-dog shutdown-multiplier 2
priority-flow-control auto-restore multiplier 2

ip load-sharing address source-destination port source-destination rotate 2 universal-id 5696
vlan 1,200
vlan 200
  name storage

vrf context management
  ip route 0.0.0.0/0 192.0.2.1

interface Vlan200
  no shutdown
  mtu 9216
  ip address 10.200.0.1/24

interface Ethernet1/1
  description GPU NIC
  mtu 9100
  priority-flow-control mode on
  priority-flow-control watch-dog-interval on
  no switchport
  service-policy type qos input QOS_CLASSIFY
  ip address 10.10.3.0/31
  no shutdown

interface Ethernet1/2
  description GPU NIC
  mtu 9100
  priority-flow-control mode on
  priority-flow-control watch-dog-interval on
  no switchport
  service-policy type qos input QOS_CLASSIFY
  ip address 10.10.3.2/31
  no shutdown

interface Ethernet1/31
  description fabric uplink
  mtu 9100
  priority-flow-control mode on
  priority-flow-control watch-dog-interval on
  no switchport
  service-policy type qos input QOS_CLASSIFY
  ip address 10.255.3.1/31
  no shutdown

interface Ethernet1/32
  description fabric uplink
  mtu 9100
  priority-flow-control mode on
  priority-flow-control watch-dog-interval on
  no switchport
  service-policy type qos input QOS_CLASSIFY
  ip address 10.255.3.3/31
  no shutdown

interface Ethernet1/40
  description storage array
  switchport
  switchport access vlan 200
  mtu 9216
  no shutdown

interface mgmt0
  vrf member management
  ip address 192.0.2.13/24

interface loopback0
  ip address 10.254.0.3/32
line console
line vty
boot nxos bootflash:/nxos64-cs.10.4.3.F.bin
router bgp 65103
  router-id 10.254.0.3
"""


def test_nxos_never_renders_system_jumbomtu_and_the_diff_never_lowers_or_removes_it(lab):
    intended = _rendered(lab, "leaf3")
    assert "jumbomtu" not in intended
    # the network-qos class MTU is at least the system jumbo MTU: the storage switchport's
    # 9216-byte frames still pass
    assert set(re.findall(r"^    mtu (\d+)$", intended, re.M)) == {"9216"}
    changes = nxos_diff.diff(NXOS_RUNNING, intended)
    assert changes  # CNP moves: there is something to change
    assert not [line for line in changes if "jumbomtu" in line]
    # the move to qos-group 7 / c-out-8q-q7 is what changes
    assert any(line.strip() == "set qos-group 7" for line in changes)
    assert any(line.strip() == "priority level 1" for line in changes)
    # the switchport lossless does not own is left alone (its MTU, mode and VLAN)
    assert not [line for line in changes if "Ethernet1/40" in line or "access vlan" in line]
    # the running config (with its stated jumbo MTU) reads back at 9216
    assert nxos_parse(NXOS_RUNNING, "leaf3.cfg", "leaf3").ports["Ethernet1/1"].mtu == 9100


def test_nxos_a_running_config_with_a_lower_jumbomtu_is_left_as_it_is(lab):
    """Even a `system jumbomtu` other than the default is not lossless's to change."""
    running = NXOS_RUNNING.replace("system jumbomtu 9216", "system jumbomtu 9100")
    changes = nxos_diff.diff(running, _rendered(lab, "leaf3"))
    assert not [line for line in changes if "jumbomtu" in line]


# -- Junos ---------------------------------------------------------------------------------------


def _statements(text: str) -> list[str]:
    return [s.text for s in read(text, "x").statements]


def test_junos_watchdog_is_rendered_on_a_qfx5240_and_not_on_a_qfx5220(write, lab):
    assert QFX5220 in LAB_TEXT
    qfx5240 = _plan(write, LAB_TEXT.replace(QFX5220, QFX5240))
    device = qfx5240.devices["leaf4"]
    text = render_device(device, qfx5240)
    watchdogs = [s for s in _statements(text) if " pfc-watchdog " in s]
    assert (
        "class-of-service congestion-notification-profile ROCE_PFC_1M pfc-watchdog "
        "poll-interval 100"
    ) in watchdogs
    assert {s.split()[2] for s in watchdogs} == {"ROCE_PFC_1M", "ROCE_PFC_100M", "ROCE_PFC_90M"}
    assert "PFC watchdog" not in dict(not_expressed(device))
    parsed = junos_parse(text, "leaf4.conf", "leaf4", device)
    assert all(p.watchdog and p.watchdog.enabled for p in parsed.ports.values() if p.lossless)

    # the lab's leaf4, a QFX5220: no watchdog, and the plan says why
    qfx5220 = lab.devices["leaf4"]
    assert qfx5220.platform == "QFX5220-32CD"
    text = _rendered(lab, "leaf4")
    assert "pfc-watchdog" not in text
    reason = dict(not_expressed(qfx5220))["PFC watchdog"]
    assert "QFX5220-32CD" in reason and "23.4R2" in reason
    # what it is compared with says the watchdog is off, so the config is no drift
    rendered = junos_render.as_rendered(qfx5220)
    assert not any(p.watchdog and p.watchdog.enabled for p in rendered.ports.values())
    parsed = junos_parse(text, "leaf4.conf", "leaf4", qfx5220)
    assert junos_render.expressed(parsed) == junos_render.expressed(rendered)


def test_junos_egress_lossless_partition_is_90_percent(lab):
    statements = _statements(_rendered(lab, "leaf4"))
    egress = "class-of-service shared-buffer egress buffer-partition"
    assert f"{egress} lossless percent 90" in statements
    assert f"{egress} lossy percent 10" in statements
    # the ingress side gives up lossless share to the headroom the plan needs; egress does not
    ingress = [s for s in statements if "shared-buffer ingress buffer-partition" in s]
    assert sum(int(s.split()[-1]) for s in ingress) == 100
    assert "class-of-service shared-buffer ingress buffer-partition lossless percent 90" not in (
        statements
    )


# -- EOS -----------------------------------------------------------------------------------------


def test_eos_global_watchdog_action_is_drop_or_no_drop_only(write):
    forward = _plan(write, LAB_TEXT.replace("action: drop}", "action: forward}"))
    device = forward.devices["spine1"]
    assert {p.watchdog.action for p in device.ports.values() if p.watchdog} == {"forward"}
    text = render_device(device, forward)
    globals_ = re.findall(r"^priority-flow-control pause watchdog action (\S+)$", text, re.M)
    assert globals_ and set(globals_) <= {"drop", "no-drop"}
    # notify-only is only ever the per-port action, inside the qos profile
    for line in (line for line in text.splitlines() if "notify-only" in line):
        assert line == "   priority-flow-control pause watchdog port action notify-only"
    assert "   priority-flow-control pause watchdog port action notify-only" in text.splitlines()
    parsed = eos_parse(text, "spine1.cfg", "spine1", device)
    assert {p.watchdog.action for p in parsed.ports.values() if p.watchdog} == {"notify-only"}
    assert eos_render.expressed(parsed) == eos_render.expressed(device)


# An Arista 7060DX5-32 running config in the layout `show running-config` prints (AVD style):
# header, management, `speed 400g-8` stated on every fabric port (the platform's default),
# routing, and the QoS lossless owns in another order than it renders it.
def _eos_running(intended: str) -> str:
    qos = intended[: intended.index("interface Ethernet1/1\n")]
    ports = "".join(
        f"interface Ethernet{n}/1\n"
        "   description fabric downlink\n"
        "   mtu 9100\n"
        "   speed 400g-8\n"
        "   no switchport\n"
        f"   ip address 10.255.{n}.0/31\n"
        "   service-profile ROCE_LOSSLESS\n"
        "!\n"
        for n in (4, 3, 2, 1)
    )
    return (
        "! Command: show running-config\n"
        "! device: spine1 (DCS-7060DX5-32, EOS-4.32.2F)\n!\n"
        "! boot system flash:/EOS-4.32.2F.swi\n!\n"
        "no aaa root\n!\n"
        "username admin privilege 15 role network-admin secret sha512 $6$redacted\n!\n"
        "hostname spine1\n!\n"
        "spanning-tree mode none\n!\n"
        "vrf instance MGMT\n!\n"
        "interface Management1\n   vrf MGMT\n   ip address 192.0.2.1/24\n!\n"
        + ports
        + qos
        + "ip routing\nno ip routing vrf MGMT\n!\n"
        "router bgp 65000\n   router-id 10.254.0.1\n   maximum-paths 64\n!\nend\n"
    )


def test_eos_diff_never_emits_no_speed(lab):
    intended = _rendered(lab, "spine1")
    assert "\n   speed " not in intended  # 400G on 8 lanes is the platform's default
    running = _eos_running(intended)
    assert running.count("   speed 400g-8\n") == 4
    changes = eos_diff.diff(running, intended)
    assert not [line for line in changes if re.match(r"\s*no speed\b", line)]
    assert not [line for line in changes if "speed" in line]
    # the ports read back at the platform's speed: no drift either way
    parsed = eos_parse(running, "spine1.cfg", "spine1", lab.devices["spine1"])
    assert {(p.speed_mbps, p.lanes) for p in parsed.ports.values()} == {(400_000, 8)}


def test_eos_hash_seed_is_rendered_and_read_back(lab):
    device = lab.devices["spine1"]
    seed = device.ecmp.seed
    assert seed is not None
    text = _rendered(lab, "spine1")
    assert f"ip load-sharing trident seed {seed}" in text.splitlines()
    for hint in (device, None):  # with the inventory, and the config alone
        parsed = eos_parse(text, "spine1.cfg", "spine1", hint)
        assert parsed.ecmp.seed == seed
        assert eos_render.expressed(parsed) == eos_render.expressed(device)
    # the seed is owned: a running config with another seed is set back
    running = text.replace(f"trident seed {seed}", f"trident seed {seed + 1}")
    assert f"ip load-sharing trident seed {seed}" in eos_diff.diff(running, text)
