"""EOS configs we did not write: AVD-style and hand-written configs (tests/configs/eos), EOS's
defaults for what a config leaves out, removals found at their line, repeated sections, and
files that are not EOS configs."""

from __future__ import annotations

import shutil

import pytest
from cli_cases import assert_lints, assert_refused, assert_removal_found
from conftest import INVENTORIES, REPO

from lossless.errors import InputError
from lossless.inventory import load_inventory
from lossless.planner.fabric import plan_fabric
from lossless.vendors.eos import render as eos_render
from lossless.vendors.eos.parse import parse

CORPUS = REPO / "tests" / "configs" / "eos"
GOLDEN = REPO / "golden" / "lab"
LAB = str(INVENTORIES / "lab.yaml")


# file -> (exit code, rule expected, the statement it must point at); clean files: no finding
CORPUS_CASES = {
    # only 26 -> 3 and 48 -> 6: EOS's default map puts 24, 25, 27-31 in lossless TC 3 (issue 36)
    "avd-leaf-clean.cfg": (0, "LL127", "qos map dscp 26 to traffic-class 3"),
    "per-interface-pfc-clean.cfg": (0, None, None),
    "wred-drop-on-lossless.cfg": (1, "LL122", "random-detect drop"),
    "cnp-priority-no-drop.cfg": (1, "LL121", "priority-flow-control priority 6 no-drop"),
    "watchdog-removed.cfg": (1, "LL114", "qos profile ROCE_LOSSLESS"),
    "ecn-removed.cfg": (1, "LL110", "tx-queue 3"),  # the profile's queue 3 lacks it
}


@pytest.mark.parametrize("name", sorted(CORPUS_CASES))
def test_corpus_config_lints_as_expected(run, name):
    code, rule_id, needle = CORPUS_CASES[name]
    assert_lints(run, CORPUS / name, "eos", code, rule_id, needle)


def test_a_repeated_interface_section_is_merged():
    device = parse((CORPUS / "per-interface-pfc-clean.cfg").read_text(), "f.cfg", "edge")
    port = device.ports["Ethernet2"]
    # PFC from the first section, watchdog and queues from the second
    assert port.lossless and port.pfc_priorities == [3]
    assert port.watchdog is not None and port.watchdog.enabled
    assert [(e.queue, e.min_bytes, e.max_bytes) for e in port.ecn] == [(3, 100_000, 1_000_000)]


def test_eos_defaults_for_what_a_config_leaves_out():
    device = parse("hostname x\n!\ninterface Ethernet1\n   description bare\n", "x.cfg", "x")
    assert device.maps.dscp_to_tc == {d: d // 8 for d in range(64)}  # DSCP/8
    assert [q.scheduler for q in device.queues] == ["strict"] * 8
    port = device.ports["Ethernet1"]
    assert port.mtu == 1500 and port.trust == "cos" and not port.lossless
    routed = parse("interface Ethernet1\n   no switchport\n", "x.cfg", "x").ports["Ethernet1"]
    assert routed.trust == "dscp"
    defaults = parse("interface defaults\n   mtu 9214\n!\ninterface Ethernet1\n", "x.cfg", "x")
    assert defaults.ports["Ethernet1"].mtu == 9214
    assert defaults.ports["Ethernet1"].sources["mtu"] == "x.cfg:2:1"


def test_a_service_profile_that_does_not_exist_applies_nothing():
    text = (CORPUS / "avd-leaf-clean.cfg").read_text()
    device = parse(text.replace("service-profile ROCE_LOSSLESS", "service-profile ROCE"), "f", "x")
    assert not any(p.lossless for p in device.ports.values())
    port = device.ports["Ethernet1/1"]
    line = text.splitlines().index("   service-profile ROCE_LOSSLESS") + 1
    assert port.sources["pfc_priorities"] == f"f:{line}:1"


def test_every_dscp_maps_exactly_the_plan_dscps_to_the_lossless_and_cnp_classes():
    """Read through the parser with EOS's defaults: our config states all 64 DSCPs, so only
    DSCP 26 is lossless and only 48 is CNP; the two-line map AVD examples show leaves EOS's
    DSCP/8 default in place, which puts 24-31 in the no-drop class and 48-55 in CNP's."""
    plan = plan_fabric(load_inventory(INVENTORIES / "lab.yaml"))
    planned = plan.devices["spine1"]
    ours = parse((GOLDEN / "spine1.cfg").read_text(), "spine1.cfg", "spine1", hint=planned)
    lossless = {d for d, tc in ours.maps.dscp_to_tc.items() if tc == ours.roce_priority}
    cnp = {d for d, tc in ours.maps.dscp_to_tc.items() if tc == ours.cnp_priority}
    assert (lossless, cnp) == ({planned.roce_dscp}, {planned.cnp_dscp})
    two_lines = parse((CORPUS / "avd-leaf-clean.cfg").read_text(), "a.cfg", "a", hint=planned)
    lossless = {d for d, tc in two_lines.maps.dscp_to_tc.items() if tc == two_lines.roce_priority}
    cnp = {d for d, tc in two_lines.maps.dscp_to_tc.items() if tc == two_lines.cnp_priority}
    assert lossless == set(range(24, 32)) and cnp == set(range(48, 56))


@pytest.mark.parametrize(
    ("other", "why"),
    [
        ("leaf1.json", "it is JSON"),
        ("spine2.json", "it is JSON"),
        ("leaf2.yaml", "YAML"),
        ("leaf3.cfg", "NX-OS"),
        ("leaf4.conf", "Junos"),
    ],
)
def test_another_os_config_is_not_an_eos_config(run, other, why):
    assert_refused(run, GOLDEN / other, "eos", "EOS", why)


@pytest.mark.parametrize(
    "text",
    ["", "\n\n", "# lossless\n\nSome notes.\n", "set interfaces et-0/0/0 mtu 9216\n"],
)
def test_text_that_is_no_eos_config_is_refused(text):
    with pytest.raises(InputError, match="this is not an EOS config"):
        parse(text, "x.cfg", "x")


def test_the_nxos_golden_file_is_refused_at_an_nxos_statement():
    with pytest.raises(InputError) as error:
        parse((GOLDEN / "leaf3.cfg").read_text(), "leaf3.cfg", "leaf3")
    [problem] = error.value.problems
    assert problem.line > 1 and "NX-OS" in problem.message


@pytest.fixture
def configs(tmp_path):
    folder = tmp_path / "configs"
    shutil.copytree(GOLDEN, folder)
    return folder


# A setting removed from our spine1.cfg: (text removed, text left), the rule, the statement
# the finding points at, and words of its message. A removed line has no line of its own:
# the finding names the profile, interface or map statement that no longer says it.
REMOVED = {
    "qos trust": (("   qos trust dscp\n", ""), "LL200", "qos profile ROCE_LOSSLESS", "QoS trust"),
    "mtu": (
        (
            "   description fabric downlink\n   mtu 9100\n   service-profile ROCE_LOSSLESS\n!\n"
            "interface Ethernet3/1",
            "   description fabric downlink\n   service-profile "
            "ROCE_LOSSLESS\n!\ninterface Ethernet3/1",
        ),
        "LL106",
        "interface Ethernet2/1",
        "1500 on spine1:Ethernet2/1",
    ),
    "dscp map": (
        ("qos map dscp 0 1 2 ", "! qos map dscp 0 1 2 "),
        "LL200",
        "qos map dscp 26 to traffic-class 3",
        "DSCP 24-25, 27-31: 3 in the config, 0 in the plan",
    ),
    "queue 5 scheduling": (
        ("   uc-tx-queue 5\n      no priority\n", "   uc-tx-queue 5\n"),
        "LL200",
        "uc-tx-queue 0",
        "queue 5: strict",
    ),
    "service-profile": (
        ("   mtu 9100\n   service-profile ROCE_LOSSLESS\n", "   mtu 9100\n"),
        "LL200",
        "interface Ethernet1/1",
        "PFC priorities is none in the config, 3 in the plan: priority 3 is lossy here",
    ),
    "no-drop": (
        ("   priority-flow-control priority 3 no-drop\n", ""),
        "LL200",
        "qos profile ROCE_LOSSLESS",
        "PFC priorities is none in the config",
    ),
}


@pytest.mark.parametrize("case", sorted(REMOVED))
def test_a_removed_setting_is_found_at_its_line(run, configs, case):
    assert_removal_found(run, LAB, configs / "spine1.cfg", REMOVED[case])


def test_diff_merges_a_repeated_section_of_the_running_config(run, configs):
    path = configs / "spine1.cfg"
    path.write_text(path.read_text() + "interface Ethernet1/1\n   mtu 9000\n!\n")
    result = run("diff", LAB, "--running", str(configs), "--device", "spine1")
    assert result.code == 0, result.err
    assert "mtu 9100" in result.out  # the later `mtu 9000` is what the switch runs


def test_speed_is_stated_only_off_the_platform_default():
    plan = plan_fabric(load_inventory(INVENTORIES / "lab.yaml"))
    device = plan.devices["spine1"]  # Tomahawk 4: 400G on 8 lanes is the default
    port = device.ports["Ethernet1/1"]
    assert not eos_render.states_speed(port, device)
    port.speed_mbps, port.lanes = 100_000, 2
    assert eos_render.states_speed(port, device) and eos_render.speed_token(port) == "100g-2"


def test_every_queue_is_explicit_and_none_above_roce_is_strict_by_default():
    plan = plan_fabric(load_inventory(INVENTORIES / "lab.yaml"))
    queues = eos_render.eos_queues(plan.devices["spine1"])
    assert [(q.queue, q.scheduler) for q in queues] == [
        (0, "dwrr"),
        (1, "dwrr"),
        (2, "dwrr"),
        (3, "dwrr"),
        (4, "dwrr"),
        (5, "dwrr"),
        (6, "strict"),
        (7, "strict"),
    ]
    text = (GOLDEN / "spine1.cfg").read_text()
    assert all(f"   uc-tx-queue {q}\n" in text for q in range(8))
    assert "hardware counter feature ecn out" not in text and "   speed " not in text
    assert "ip load-sharing trident fields ip source-ip destination-ip source-port" in text


# -- issue 39: the watchdog action words EOS takes ----------------------------------------------
# pyavd 6.x schema (aristanetworks/avd python-avd/pyavd/_eos_cli_config_gen/schema/
# schema_fragments/priority_flow_control.schema.yml): the global action's valid values; the
# qos profile's port action: drop or notify-only. `no-drop` (AVD 5.x) is refused by EOS
# (aristanetworks/avd issue 6399, PR 6400).
GLOBAL_ACTIONS = {"drop", "errdisable", "notify-only"}
PORT_ACTIONS = {"drop", "notify-only"}


def _actions(text: str) -> tuple[set[str], set[str]]:
    lines = [line.strip() for line in text.splitlines()]
    glob = "priority-flow-control pause watchdog action "
    port = "priority-flow-control pause watchdog port action "
    return (
        {line.removeprefix(glob) for line in lines if line.startswith(glob)},
        {line.removeprefix(port) for line in lines if line.startswith(port)},
    )


@pytest.mark.parametrize("action", ["drop", "alert", "forward"])
def test_watchdog_actions_are_words_eos_takes(tmp_path, action):
    from lossless.vendors.rendering import render_device

    text = (INVENTORIES / "lab.yaml").read_text().replace("action: drop}", f"action: {action}}}")
    (tmp_path / "lab.yaml").write_text(text)
    plan = plan_fabric(load_inventory(tmp_path / "lab.yaml"))
    glob, port = _actions(render_device(plan.devices["spine1"], plan))
    assert glob == {"drop"} and glob <= GLOBAL_ACTIONS
    assert port == (set() if action == "drop" else {"notify-only"}) and port <= PORT_ACTIONS


def test_the_docs_give_eos_s_words_not_avd_5_s():
    """docs/vendors/eos.md said the global action takes `drop` or `no-drop`: EOS refuses
    `no-drop` there. The docs and the renderer's sources now give EOS's three words."""
    for path in (REPO / "docs" / "vendors" / "eos.md", REPO / "lossless/vendors/eos/render.py"):
        text = " ".join(path.read_text().split())
        assert "takes `drop` or `no-drop`" not in text, path
        assert "`drop`, `errdisable`" in text and "`notify-only`" in text, path


def test_a_full_running_config_at_eos_s_default_action_gets_drop(run, tmp_path):
    """spine1's `show running-config` without the global action line (EOS shows no default:
    errdisable, which shuts the port on a storm): the diff sets `drop`, hitless."""
    folder = tmp_path / "running"
    folder.mkdir()
    shutil.copy(CORPUS / "full-running-watchdog-default-action.cfg", folder / "spine1.cfg")
    result = run("diff", LAB, "--running", str(folder), "--device", "spine1")
    assert result.code == 0, result.err
    assert "1 change, 0 disruptive" in result.out
    assert "    priority-flow-control pause watchdog action drop\n" in result.out
