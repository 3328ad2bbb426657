"""NX-OS configs we did not write: Cisco RoCE-script style running configs and hand-written
pull-request changes (tests/configs/nxos), NX-OS's defaults for what a config leaves out, only
attached policies counting, first-match classification, removals found at their line,
repeated sections, and files that are not NX-OS configs."""

from __future__ import annotations

import dataclasses
import shutil

import pytest
from cli_cases import assert_lints, assert_refused, assert_removal_found, line_of
from conftest import INVENTORIES, REPO

from lossless.errors import InputError
from lossless.inventory import load_inventory
from lossless.plan import replaced
from lossless.planner.fabric import plan_fabric
from lossless.vendors.nxos import render as nxos_render
from lossless.vendors.nxos.parse import parse
from lossless.vendors.registry import vendor_for
from lossless.vendors.rendering import render_device

CORPUS = REPO / "tests" / "configs" / "nxos"
GOLDEN = REPO / "golden" / "lab"
LAB = str(INVENTORIES / "lab.yaml")


def _lab():
    return plan_fabric(load_inventory(INVENTORIES / "lab.yaml"))


# file -> (exit code, rule expected, the statement it must point at, extra lint arguments)
CORPUS_CASES = {
    # clean of errors; Cisco's Kmax 3,000 kbytes is above the PFC trigger of a Nexus 9300-GX
    # with every PG congested, and the hardware is not in a running config: a warning
    "roce-script-clean.cfg": (0, "LL112", "random-detect minimum-threshold", ()),
    "l2-hosts-clean.cfg": (0, "LL112", "random-detect minimum-threshold", ()),
    "l2-mtu-rejected.cfg": (1, "LL118", "mtu 9000", ()),
    "queuing-not-attached.cfg": (1, "LL110", "system qos", ()),
    "watchdog-off.cfg": (1, "LL114", "interface Ethernet1/1", ()),
    "wred-drop-on-lossless.cfg": (1, "LL122", "random-detect minimum-threshold", ()),
    # which DSCP the hosts send CNPs with is not in a switch config: given here
    "cnp-in-roce-class.cfg": (
        1,
        "LL121",
        "pause pfc-cos 3",
        ("--roce-dscp", "26", "--cnp-dscp", "48"),
    ),
}


@pytest.mark.parametrize("name", sorted(CORPUS_CASES))
def test_corpus_config_lints_as_expected(run, name):
    code, rule_id, needle, extra = CORPUS_CASES[name]
    assert_lints(run, CORPUS / name, "nxos", code, rule_id, needle, *extra)


def test_nxos_defaults_for_what_a_config_leaves_out():
    device = parse("hostname x\n!\ninterface Ethernet1/1\n  description bare\n", "x.cfg", "x")
    assert set(device.maps.dscp_to_tc.values()) == {0}  # no qos policy: all in qos-group 0
    # default 8-queue egress policy: queue 0 round robin 100 %, nothing strict
    assert [(q.queue, q.scheduler, q.weight) for q in device.queues] == [(0, "dwrr", 100)]
    assert device.lossless_priorities == []  # default network-qos: no no-drop class
    port = device.ports["Ethernet1/1"]
    assert (port.mtu, port.trust, port.lossless, port.watchdog) == (1500, "none", False, None)
    assert (device.watchdog.enabled, device.watchdog.poll_ms) == (False, 100)
    assert device.ecmp.seed is None and device.ecmp.hashes_udp_source_port is None


def test_pfc_mode_auto_is_not_lossless():
    text = (CORPUS / "roce-script-clean.cfg").read_text()
    device = parse(text.replace("mode on", "mode auto", 1), "f.cfg", "x")
    assert not device.ports["Ethernet1/1"].lossless and device.ports["Ethernet1/2"].lossless


def test_the_watchdog_timers_are_read_and_an_interface_overrides_the_global_switch():
    device = parse((CORPUS / "l2-hosts-clean.cfg").read_text(), "f.cfg", "x")
    watchdog = device.ports["Ethernet1/3"].watchdog
    assert watchdog is not None and watchdog.enabled
    # interval 200 ms, shutdown after 2 intervals, restore after 5
    assert (watchdog.poll_ms, watchdog.detection_ms, watchdog.restoration_ms) == (200, 400, 1000)
    text = (CORPUS / "roce-script-clean.cfg").read_text()
    off = text.replace(
        "  priority-flow-control watch-dog-interval on",
        "  priority-flow-control watch-dog-interval off",
        1,
    )
    ports = parse(off, "f.cfg", "x").ports
    assert not ports["Ethernet1/1"].watchdog.enabled and ports["Ethernet1/2"].watchdog.enabled
    # the global switch covers a port without a line of its own
    bare = text.replace("  priority-flow-control watch-dog-interval on\n", "")
    assert all(p.watchdog.enabled for p in parse(bare, "f.cfg", "x").ports.values())


def test_classification_is_first_match_and_unlisted_dscps_take_class_default():
    text = (CORPUS / "roce-script-clean.cfg").read_text()
    device = parse(text, "f.cfg", "x")
    assert {d: tc for d, tc in device.maps.dscp_to_tc.items() if tc} == {24: 3, 26: 3, 48: 7}
    # CNP added to the RoCE class, which comes first: CNP lands in the no-drop class
    cnp_in_roce = parse((CORPUS / "cnp-in-roce-class.cfg").read_text(), "f.cfg", "x")
    assert cnp_in_roce.maps.dscp_to_tc[48] == 3
    # class-default sets qos-group 1: every unlisted DSCP follows it
    default_1 = text.replace(
        "  class class-default\n    set qos-group 0", "  class class-default\n    set qos-group 1"
    )
    mapped = parse(default_1, "f.cfg", "x").maps.dscp_to_tc
    assert mapped[0] == mapped[47] == 1 and mapped[26] == 3
    # match-all with two lines: a packet has one DSCP, so only what both lines name matches
    both = text.replace("  match dscp 24,26\n", "  match dscp 24,26\n  match dscp 26,27\n")
    assert {d for d, tc in parse(both, "f.cfg", "x").maps.dscp_to_tc.items() if tc == 3} == {26}


def test_every_dscp_maps_exactly_the_plan_dscps_to_the_lossless_and_cnp_classes():
    """Read through the parser with NX-OS's defaults: our config puts only DSCP 26 in the
    lossless class and only 48 in the CNP class (everything else in class-default, qos-group
    0); Cisco's script style `match dscp 24-31` puts the whole range in the no-drop class."""
    plan = _lab()
    planned = plan.devices["leaf3"]
    ours = parse(render_device(planned, plan), "leaf3.cfg", "leaf3", hint=planned)
    lossless = {d for d, tc in ours.maps.dscp_to_tc.items() if tc == ours.roce_priority}
    cnp = {d for d, tc in ours.maps.dscp_to_tc.items() if tc == ours.cnp_priority}
    assert (lossless, cnp) == ({planned.roce_dscp}, {planned.cnp_dscp})
    assert set(ours.maps.dscp_to_tc) == set(range(64))
    script = (CORPUS / "roce-script-clean.cfg").read_text().replace("dscp 24,26", "dscp 24-31")
    theirs = parse(script, "s.cfg", "s", hint=planned)
    lossless = {d for d, tc in theirs.maps.dscp_to_tc.items() if tc == theirs.roce_priority}
    cnp = {d for d, tc in theirs.maps.dscp_to_tc.items() if tc == theirs.cnp_priority}
    assert (lossless, cnp) == (set(range(24, 32)), {48})


def test_the_cnp_dscp_has_its_own_class_matched_first():
    plan = _lab()
    device = plan.devices["leaf3"]
    device.maps.dscp_to_tc[49] = 6  # another DSCP in the CNP traffic class
    [cnp, *others] = nxos_render.classes(device)
    assert (cnp["name"], cnp["dscps"], cnp["tc"]) == ("CNP", "48", 6)
    assert [(c["name"], c["dscps"]) for c in others] == [("ROCE", "26"), ("TC6", "49")]


def test_policies_count_only_when_attached():
    text = (CORPUS / "roce-script-clean.cfg").read_text()
    no_nq = parse(text.replace("  service-policy type network-qos qos_network\n", ""), "f", "x")
    assert no_nq.lossless_priorities == [] and not any(p.lossless for p in no_nq.ports.values())
    system_line = text.splitlines().index("system qos") + 1
    assert no_nq.ports["Ethernet1/1"].sources["pfc_priorities"] == f"f:{system_line}:1"
    # an attachment naming a policy that does not exist applies NX-OS's default
    renamed = parse(text.replace("output custom-8q-out-policy", "output CUSTOM"), "f", "x")
    assert [(q.queue, q.weight) for q in renamed.queues] == [(0, 100)]
    assert renamed.ports["Ethernet1/1"].ecn == []
    # a queuing policy on the interface wins over the system's
    local = text.replace(
        "  service-policy type qos input QOS_CLASSIFICATION\n  ip address 10.10.1.0/31",
        "  service-policy type qos input QOS_CLASSIFICATION\n"
        "  service-policy type queuing output default-8q-out-policy\n  ip address 10.10.1.0/31",
    )
    local += "policy-map type queuing default-8q-out-policy\n  class type queuing c-out-8q-q3\n"
    local += "    bandwidth remaining percent 50\n"
    ports = parse(local, "f", "x").ports
    assert ports["Ethernet1/1"].ecn == [] and ports["Ethernet1/2"].ecn


def test_switchport_mtu_is_1500_or_the_system_jumbo_mtu():
    text = (CORPUS / "roce-script-clean.cfg").read_text()
    l2 = text.replace("  no switchport\n", "")
    assert all(p.mtu == 9216 for p in parse(l2, "f", "x").ports.values())  # jumbo default 9216
    at_9100 = l2.replace("mtu 9216", "mtu 9100")
    assert {p.mtu for p in parse(at_9100, "f", "x").ports.values()} == {1500}  # refused
    jumbo = parse("system jumbomtu 9100\n" + at_9100, "f", "x")
    assert {p.mtu for p in jumbo.ports.values()} == {9100}
    routed = parse(text.replace("mtu 9216", "mtu 9100"), "f", "x")  # routed: any MTU
    assert {p.mtu for p in routed.ports.values()} == {9100}
    default_routed = parse("no system default switchport\n" + at_9100, "f", "x")
    assert {p.mtu for p in default_routed.ports.values()} == {9100}
    # the no-drop class MTU bounds L2 frames
    small = parse(
        l2.replace("    mtu 9216\n    pause pfc-cos 3", "    mtu 4200\n    pause pfc-cos 3"),
        "f",
        "x",
    )
    assert {p.mtu for p in small.ports.values()} == {4200}


def test_the_default_class_mtu_bounds_a_switchports_best_effort_not_roce():
    """issue 36: c-8q-nq-default's MTU bounds the frames of qos-group 0 on a switchport
    (lossy_mtu), RoCE's no-drop class MTU its own (mtu); a routed port is bounded by neither
    class for best effort."""
    text = (CORPUS / "roce-script-clean.cfg").read_text()
    default_class = "  class type network-qos c-8q-nq-default\n    mtu 9216\n"
    l2 = text.replace("  no switchport\n", "")
    assert {(p.mtu, p.lossy_mtu) for p in parse(l2, "f", "x").ports.values()} == {(9216, None)}
    lower = l2.replace(default_class, default_class.replace("9216", "4608"))
    assert {(p.mtu, p.lossy_mtu) for p in parse(lower, "f", "x").ports.values()} == {(9216, 4608)}
    unstated = parse(l2.replace(default_class, ""), "f", "x")  # the class at NX-OS's 1500
    assert {(p.mtu, p.lossy_mtu) for p in unstated.ports.values()} == {(9216, 1500)}
    routed = parse(text.replace(default_class, ""), "f", "x").ports.values()
    assert {(p.mtu, p.lossy_mtu) for p in routed} == {(9216, None)}


def test_the_strict_priority_level_is_read():
    """`priority level N` (1 the highest, `priority` alone is 1): CNP's queue below another
    strict queue's level is LL113 at its line; a level NX-OS does not take is refused."""
    path = GOLDEN / "leaf3.cfg"
    text = path.read_text()
    assert parse(text, "f", "x").strict_levels == {}
    two = text.replace("    priority level 1\n", "    priority level 2\n")
    assert parse(two, "f", "x").strict_levels == {7: 2}
    assert parse(text.replace("priority level 1", "priority"), "f", "x").strict_levels == {}
    with pytest.raises(InputError, match="priority level 9"):
        parse(text.replace("priority level 1", "priority level 9"), "f", "x")


def test_cnp_below_another_strict_level_is_found_at_its_line(run, tmp_path):
    text = (GOLDEN / "leaf3.cfg").read_text()
    path = tmp_path / "leaf3.cfg"
    path.write_text(
        text.replace("    priority level 1\n", "    priority level 2\n").replace(
            "  class type queuing c-out-8q-q6\n    bandwidth remaining percent 0\n",
            "  class type queuing c-out-8q-q6\n    priority level 1\n",
        )
    )
    result = run("lint", "--config", str(path), "--os", "nxos", "--select", "LL113")
    assert result.code == 1, result.out
    assert f"{path}:{line_of(path, 'priority level 2')}:1: error LL113 " in result.out
    assert "is at strict-priority level 2, below queue 6 at level 1" in result.out


def test_ecmp_rotate_and_universal_id():
    plan = _lab()
    device = parse(render_device(plan.devices["leaf3"], plan), "f", "leaf3")
    assert (device.ecmp.seed, device.ecmp.hash_offset) == (5696, 2)
    assert device.ecmp.seed == plan.devices["leaf3"].ecmp.seed != 0
    line = "port source-destination rotate 2 universal-id 5696\n"
    assert line in (GOLDEN / "leaf3.cfg").read_text()
    bare = parse("ip load-sharing address source-destination\ninterface Ethernet1/1\n", "f", "x")
    assert bare.ecmp.hashes_udp_source_port is False and bare.ecmp.seed is None


def test_watchdog_timers_are_whole_intervals():
    plan = _lab()
    device = plan.devices["leaf3"]
    assert nxos_render.watchdog_settings(device.watchdog) == (100, 2, 2)
    device.watchdog = replaced(device.watchdog, detection_ms=250, poll_ms=50)
    assert nxos_render.watchdog_settings(device.watchdog) == (100, 3, 2)  # poll at least 100 ms
    assert nxos_render.watchdog_timers(device.watchdog) == (100, 300, 200)
    # `plan` and `render` say so, and that per-port timers and other actions cannot be said
    from lossless.vendors.registry import not_expressed

    for port in device.ports.values():
        port.watchdog = device.watchdog
    assert [w for w, _ in not_expressed(device) if "watchdog" in w] == ["PFC watchdog timers"]
    port = device.ports["Ethernet1/1"]
    port.watchdog = dataclasses.replace(device.watchdog, action="alert")
    said = dict(not_expressed(device))
    assert "300" in said["PFC watchdog timers"] and "PFC watchdog action other than drop" in said
    assert "PFC watchdog timers that differ between ports" in said


def test_pause_buffer_only_when_the_inventory_asks(tmp_path):
    plan = _lab()
    device = plan.devices["leaf3"]
    assert "pause buffer-size" not in render_device(device, plan)
    device.headroom_settings.override = True
    text = render_device(device, plan)
    largest = max((h for p in device.ports.values() for h in p.headroom), key=lambda h: h.size)
    # resume one frame below the pause threshold: the largest interface MTU, the GPU
    # switchports' 9216 (issue 39: the uplinks are routed at 9100)
    assert (
        f"pause buffer-size {largest.size} pause-threshold {largest.size - largest.xoff} "
        f"resume-threshold {largest.size - largest.xoff - 9216}" in text
    )
    assert "  service-policy type queuing input QOS_INGRESS" in text
    parsed = parse(text, "f", "leaf3")
    assert parsed.headroom_known and parsed.headroom_settings.override
    assert nxos_render.expressed(parsed) == nxos_render.expressed(nxos_render.as_rendered(device))
    # the plan lists the bytes as not expressed only while the switch sizes headroom
    assert nxos_render.NOT_EXPRESSED["headroom.bytes"](device) is None
    device.headroom_settings.override = False
    assert "headroom.override" in nxos_render.NOT_EXPRESSED["headroom.bytes"](device)


def test_a_port_whose_ecn_differs_gets_its_own_egress_policy():
    plan = _lab()
    device = plan.devices["leaf3"]
    port = device.ports["Ethernet1/32"]
    port.ecn[0] = replaced(port.ecn[0], max_bytes=1_200_000)
    text = render_device(device, plan)
    assert "policy-map type queuing QOS_EGRESS_2" in text
    assert "  service-policy type queuing output QOS_EGRESS_2\n" in text
    parsed = parse(text, "f", "leaf3")
    assert [e.max_bytes for e in parsed.ports["Ethernet1/32"].ecn] == [1_200_000]
    assert [e.max_bytes for e in parsed.ports["Ethernet1/31"].ecn] == [500_000]
    assert nxos_render.expressed(parsed) == nxos_render.expressed(nxos_render.as_rendered(device))


def test_interface_ranges_and_abbreviations():
    device = parse("interface Eth1/1-3, ethernet1/10\n  mtu 9216\n", "f", "x")
    assert list(device.ports) == ["Ethernet1/1", "Ethernet1/2", "Ethernet1/3", "Ethernet1/10"]
    with pytest.raises(InputError, match="names more than"):
        parse("interface Ethernet1/1-100000000\n  mtu 9216\n", "f", "x")


def test_a_repeated_interface_section_is_merged():
    device = parse((CORPUS / "l2-hosts-clean.cfg").read_text(), "f.cfg", "x")
    port = device.ports["Ethernet1/2"]  # the range, then a section of its own
    assert port.lossless and port.mtu == 9216 and port.trust == "dscp"


@pytest.mark.parametrize(
    ("other", "why"),
    [
        (GOLDEN / "leaf1.json", "it is JSON"),
        (GOLDEN / "spine2.json", "it is JSON"),
        (GOLDEN / "leaf2.yaml", "YAML"),
        (GOLDEN / "spine1.cfg", "Arista EOS"),
        (REPO / "tests" / "configs" / "eos" / "avd-leaf-clean.cfg", "Arista EOS"),
        (GOLDEN / "leaf4.conf", "Junos"),
    ],
)
def test_another_os_config_is_not_an_nxos_config(run, other, why):
    assert_refused(run, other, "nxos", "NX-OS", why)


@pytest.mark.parametrize(
    "text",
    ["", "\n\n", "# lossless\n\nSome notes.\n", "nv set interface swp1 link mtu 9216\n"],
)
def test_text_that_is_no_nxos_config_is_refused(text):
    with pytest.raises(InputError, match="this is not an NX-OS config"):
        parse(text, "x.cfg", "x")


def test_banner_text_is_not_read_as_statements():
    text = "banner motd #\nset system host-name x\nqos map dscp 1 to traffic-class 1\n#\n"
    device = parse(text + "interface Ethernet1/1\n", "x.cfg", "x")
    assert list(device.ports) == ["Ethernet1/1"]


@pytest.fixture
def configs(tmp_path):
    folder = tmp_path / "configs"
    shutil.copytree(GOLDEN, folder)
    return folder


# A setting removed from our leaf3.cfg: (text removed, text left), the rule, the statement the
# finding points at, and words of its message. A removed line has no line of its own: the
# finding names the statement that no longer says it (a missing attachment: `system qos`).
REMOVED = {
    "network-qos attachment": (
        ("  service-policy type network-qos QOS_NETWORK\n", ""),
        "LL200",
        "system qos",
        "PFC priorities is none in the config, 3 in the plan: priority 3 is lossy here",
    ),
    "egress attachment": (
        ("  service-policy type queuing output QOS_EGRESS\n", ""),
        "LL200",
        "system qos",
        "egress scheduling",
    ),
    "no-drop class": (
        ("    pause pfc-cos 3\n", ""),
        "LL200",
        "policy-map type network-qos QOS_NETWORK",
        "PFC priorities is none in the config",
    ),
    "ECN": (
        ("    random-detect minimum-threshold", "    ! random-detect minimum-threshold"),
        "LL110",
        "class type queuing c-out-8q-q3",
        "no ECN marking",
    ),
    "interface classification": (
        (
            "  service-policy type qos input QOS_CLASSIFY\n!\ninterface Ethernet1/2",
            "!\ninterface Ethernet1/2",
        ),
        "LL200",
        "interface Ethernet1/1",
        "QoS trust",
    ),
    "PFC mode": (
        ("  priority-flow-control mode on\n", ""),
        "LL200",
        "interface Ethernet1/1",
        "PFC priorities is none in the config, 3 in the plan: priority 3 is lossy here",
    ),
    "interface mtu": (
        (
            "  description fabric uplink\n  no switchport\n  mtu 9100\n",
            "  description fabric uplink\n  no switchport\n",
        ),
        "LL106",
        "interface Ethernet1/31",
        "MTU 1500 on leaf3:Ethernet1/31",
    ),
    "watchdog multiplier": (
        ("priority-flow-control watch-dog shutdown-multiplier 2\n", ""),
        "LL200",
        "priority-flow-control auto-restore multiplier 2",
        "PFC watchdog timers is detection 100 ms, restoration 200 ms in the config",
    ),
    "CNP class": (
        ("  class CNP\n    set qos-group 7\n", ""),
        "LL200",
        "set qos-group 0",
        "CNP class is DSCP 48 in TC 0 in the config",
    ),
    # issue 36: the strict-priority level is read (1 the highest), not only "strict"
    "CNP priority level": (
        ("    priority level 1\n", "    priority level 2\n"),
        "LL200",
        "priority level 2",
        "egress scheduling: queue 7: strict at priority level 2 (cnp) in the config, "
        "strict (cnp) in the plan",
    ),
    # issue 36: the default class MTU bounds a switchport's best effort (the no-drop class
    # MTU bounds RoCE's frames, compared as the port's MTU)
    "default class MTU changed": (
        (
            "  class type network-qos c-8q-nq-default\n    mtu 9216\n",
            "  class type network-qos c-8q-nq-default\n    mtu 4608\n",
        ),
        "LL200",
        "mtu 4608",
        "MTU of the traffic outside the lossless class is 4608 in the config, the port's MTU "
        "in the plan (2 ports: Ethernet1/1, Ethernet1/2)",
    ),
    "default class MTU": (
        (
            "  class type network-qos c-8q-nq-default\n    mtu 9216\n",
            "  class type network-qos c-8q-nq-default\n",
        ),
        "LL200",
        "class type network-qos c-8q-nq-default",
        "MTU of the traffic outside the lossless class is 1500 in the config",
    ),
    "rotate": (
        ("rotate 2 ", ""),
        "LL200",
        "ip load-sharing",
        "ECMP hash offset is not set in the config, 2 in the plan",
    ),
    "universal-id": (
        (" universal-id 5696", ""),
        "LL200",
        "ip load-sharing",
        "ECMP hash seed is not set in the config",
    ),
}


@pytest.mark.parametrize("case", sorted(REMOVED))
def test_a_removed_setting_is_found_at_its_line(run, configs, case):
    assert_removal_found(run, LAB, configs / "leaf3.cfg", REMOVED[case])


def test_a_system_wide_cause_is_one_finding(run, configs):
    path = configs / "leaf3.cfg"
    path.write_text(path.read_text().replace("    pause pfc-cos 3\n", "    pause pfc-cos 3,7\n"))
    result = run("lint", LAB, "--configs", str(configs))
    hits = [x for x in result.out.splitlines() if " LL121 " in x]
    assert len(hits) == 1 and "(4 ports:" in hits[0], result.out
    assert hits[0].startswith(f"{path}:{line_of(path, 'pause pfc-cos 3,7')}:")


def test_diff_merges_a_repeated_section_of_the_running_config(run, configs):
    path = configs / "leaf3.cfg"
    path.write_text(path.read_text() + "interface Ethernet1/1\n  mtu 9000\n!\n")
    result = run("diff", LAB, "--running", str(configs), "--device", "leaf3")
    assert result.code == 0, result.err
    assert "mtu 9216" in result.out  # the later `mtu 9000` is what the switch runs


def test_negations_and_top_level_statements_are_not_taken_for_new_values():
    """`no shutdown` is not a new value of `no switchport`; at the top level `feature bgp`
    does not replace `feature lldp`, nor a bare `interface` (NX-OS prints every port) the one
    before it."""
    from lossless.vendors.cli_tree import parse_tree

    tree = parse_tree(
        "feature lldp\nfeature bgp\ninterface Ethernet1/5\ninterface Ethernet1/6\n"
        "interface Ethernet1/7\n  no switchport\n  no shutdown\n  mtu 9100\n  mtu 9216\n"
    )
    assert [n.text for n in tree] == [
        "feature lldp",
        "feature bgp",
        "interface Ethernet1/5",
        "interface Ethernet1/6",
        "interface Ethernet1/7",
    ]
    port = tree.child("interface Ethernet1/7")
    assert port is not None
    assert [n.text for n in port] == ["no switchport", "no shutdown", "mtu 9216"]
    device = parse("interface Ethernet1/5\ninterface Ethernet1/6\n", "f", "x")
    assert list(device.ports) == ["Ethernet1/5", "Ethernet1/6"]


def test_a_missing_pause_buffer_is_drift_when_the_inventory_asks_for_it():
    from lossless.lint.drift import drift

    plan = _lab()
    device = plan.devices["leaf3"]
    device.headroom_settings.override = True
    text = render_device(device, plan)
    removed = text.replace("  service-policy type queuing input QOS_INGRESS\n", "")
    parsed = parse(removed, "leaf3.cfg", "leaf3", hint=device)
    findings = [f for f in drift(device, parsed, vendor_for("nxos")) if "PFC headroom" in f.message]
    system_line = removed.splitlines().index("system qos") + 1
    assert findings and {f.source for f in findings} == {f"leaf3.cfg:{system_line}:1"}
    assert "not set in the config" in findings[0].message


def test_value_lists_are_bounded():
    from lossless.vendors.nxos.parse import numbers

    assert numbers("24-31,af41 ef cs6") == [*range(24, 32), 34, 46, 48]
    assert numbers("60-999999999") == [60, 61, 62, 63]
    assert numbers("3,9", 8) == [3]


def test_strict_priority_below_q7_is_outside_cisco_guideline(run):
    # issue 26: CNP strict on c-out-8q-q6 while q7 is round-robin (the style of our
    # renders before qos-group 7); Cisco's guideline wants the highest-numbered queues
    path = CORPUS / "l2-hosts-clean.cfg"
    result = run("lint", "--config", str(path), "--os", "nxos", "--select", "LL126")
    assert result.code == 0
    line = line_of(path, "policy-map type queuing AI_EGRESS")
    assert f"{path}:{line}:1: warning LL126 [nxos-priority-queue-order] " in result.out
    assert "strict priority on c-out-8q-q6, not the highest-numbered queues (q7)" in result.out
    # the rendered lab config (CNP in qos-group 7) is within it
    clean = run("lint", "--config", str(GOLDEN / "leaf3.cfg"), "--os", "nxos", "--select", "LL126")
    assert clean.out.splitlines()[-1] == "0 errors, 0 warnings"


def test_a_lossless_qos_group_7_keeps_cnp_below_it(run, tmp_path):
    text = (INVENTORIES / "lab.yaml").read_text()
    text = text.replace("data: {dscp: 26, priority: 3}", "data: {dscp: 26, priority: 7}")
    inventory = tmp_path / "lab.yaml"
    inventory.write_text(text)
    result = run("lint", str(inventory), "--select", "LL126")
    assert result.code == 0, result.err
    [finding] = [line for line in result.out.splitlines() if "LL126 [" in line]
    assert "leaf3" in finding and "strict priority on c-out-8q-q6" in finding
    assert "qos-group 7 is lossless here, so CNP cannot move there" in finding


# -- issue 39: a switchport stays a switchport ------------------------------------------------
FULL_RUNNING = CORPUS / "full-running-l2-gpu-ports.cfg"  # `show running-config` of leaf3
UPLINK = "  uplink-400g: {speed: 400G, description: fabric uplink}\n"


def _uplinks(tmp_path, routed: bool):
    """The lab with its fabric uplinks' `routed` said in the inventory."""
    text = (INVENTORIES / "lab.yaml").read_text()
    assert text.count(UPLINK) == 1
    path = tmp_path / "lab-routed.yaml"
    word = "true" if routed else "false"
    path.write_text(text.replace(UPLINK, UPLINK.replace("}", f", routed: {word}}}")))
    return path


def _diff_full_running(run, tmp_path, inventory: str = LAB) -> str:
    folder = tmp_path / "running"
    folder.mkdir()
    shutil.copy(FULL_RUNNING, folder / "leaf3.cfg")
    result = run("diff", inventory, "--running", str(folder), "--device", "leaf3")
    assert result.code == 0, result.err
    return result.out


def _mode_changes(diff_out: str) -> list[str]:
    """Remediation or impact lines that change a port's mode (`switchport`, `no switchport`)."""
    return [
        line
        for line in diff_out.splitlines()
        if line.strip().removeprefix("no ") == "switchport"
        or line.endswith("> no switchport")
        or line.endswith("> switchport")
    ]


def test_gpu_switchports_in_vlans_stay_switchports(run, tmp_path):
    """leaf3's GPU ports are access ports of VLAN 2003 at `mtu 9216` in a full running config;
    the plan's MTU 9100 was rendered `no switchport` + `mtu 9100`, which took them out of their
    VLAN. A port to a server stays a switchport: a switchport takes 1500 or the jumbo MTU
    only, so 9216 is kept. The uplinks, links to the spines at 9100, are routed (as they run)
    and get their MTU."""
    out = _diff_full_running(run, tmp_path)
    assert not _mode_changes(out)
    assert "interface Ethernet1/1\n" not in out and "interface Ethernet1/2\n" not in out
    assert "    interface Ethernet1/31\n      mtu 9100\n" in out
    plan = _lab()
    rendered = render_device(plan.devices["leaf3"], plan)
    gpu = rendered[
        rendered.index("interface Ethernet1/1\n") : rendered.index("interface Ethernet1/2\n")
    ]
    assert "no switchport" not in gpu and "  mtu 9216\n" in gpu
    uplink = rendered[rendered.index("interface Ethernet1/31\n") :]
    assert "  no switchport\n  mtu 9100\n" in uplink


def test_a_port_the_inventory_keeps_layer_2_is_never_unrouted(run, tmp_path):
    """`routed: false` on the uplinks: they are rendered switchports at the jumbo MTU, and the
    running config's routed uplinks (`no switchport`, `ip address`) are left routed: no
    `switchport` is remediated, and at 9216 nothing changes on them."""
    out = _diff_full_running(run, tmp_path, str(_uplinks(tmp_path, routed=False)))
    assert not _mode_changes(out)
    assert ": 0 changes" in out


def test_the_inventory_routes_a_server_port(tmp_path):
    plan = plan_fabric(load_inventory(_uplinks(tmp_path, routed=True)))
    text = render_device(plan.devices["leaf3"], plan)
    assert text.count("  no switchport\n  mtu 9100\n") == 2  # the uplinks, as without it
    lab = (INVENTORIES / "lab.yaml").read_text()
    server = "  server-400g: {speed: 400G, description: GPU NIC}\n"
    assert lab.count(server) == 1
    path = tmp_path / "routed-servers.yaml"
    path.write_text(lab.replace(server, server.replace("}", ", routed: true}")))
    plan = plan_fabric(load_inventory(path))
    assert render_device(plan.devices["leaf3"], plan).count("  no switchport\n") == 4


def test_routed_is_read_back():
    """`no switchport` reads back as a routed port: the uplinks, not the GPU switchports. It is
    not compared as a fact (a port lossless does not route keeps the switch's mode); a routed
    port's missing `no switchport` shows as its MTU (a switchport takes only 1500 or 9216)."""
    plan = _lab()
    device = plan.devices["leaf3"]
    parsed = parse(render_device(device, plan), "leaf3.cfg", "leaf3")
    assert {n: p.routed for n, p in parsed.ports.items()} == {
        "Ethernet1/1": False,
        "Ethernet1/2": False,
        "Ethernet1/31": True,
        "Ethernet1/32": True,
    }
    assert {n: p.mtu for n, p in parsed.ports.items()}["Ethernet1/1"] == 9216
