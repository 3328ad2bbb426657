"""The Cumulus NVUE parser: both input forms, the OS defaults and the `qos roce` presets,
command-list syntax, and bad input (wrong shapes, other OSes' files) as exit 2 at a line."""

from __future__ import annotations

import contextlib
import random
import textwrap

import pytest
from conftest import INVENTORIES, REPO

from lossless.errors import InputError
from lossless.inventory import load_inventory
from lossless.planner.fabric import plan_fabric
from lossless.vendors.cumulus import parse as cumulus_parse
from lossless.vendors.cumulus import render as cumulus_render
from lossless.vendors.cumulus.read import read_nvue
from lossless.vendors.rendering import render_device

GOLDEN = REPO / "golden" / "lab" / "leaf2.yaml"


@pytest.fixture(scope="module")
def lab():
    return plan_fabric(load_inventory(INVENTORIES / "lab.yaml"))


def _parse(text: str, hint=None):
    return cumulus_parse.parse(textwrap.dedent(text).lstrip("\n"), "sw.txt", "sw", hint)


def _lossless_dscps(device):
    return sorted(d for d, tc in device.maps.dscp_to_tc.items() if tc in device.lossless_priorities)


# -- the two forms say the same ---------------------------------------------------------------


def test_a_command_list_reads_like_the_yaml_it_stands_for(lab):
    """The lab leaf written as an engineer would type it (ranges, lists, quotes) parses to
    the same facts as the rendered YAML, and both equal the plan."""
    device = lab.devices["leaf2"]
    commands = f"""
        nv set qos roce mode lossless
        nv set interface swp1,swp2 description 'GPU NIC'
        nv set interface swp31-32 description "fabric uplink"
        nv set interface swp1-2,swp31-32 link mtu 9100
        nv set interface swp1-2,swp31-32 link speed 400G
        nv set interface swp1-2 qos pfc profile roce-3m
        nv set interface swp31 qos pfc profile roce-50m
        nv set interface swp32 qos pfc profile roce-55m
        nv set interface swp1-2,swp31-32 qos pfc-watchdog state enable
        nv set qos congestion-control default-global traffic-class 3 max-threshold 500000
        nv set qos mapping default-global trust l3
        nv set qos mapping default-global dscp 0-25,27-47,49-63 switch-priority 0
        nv set qos mapping default-global dscp 26 switch-priority 3
        nv set qos mapping default-global dscp 48 switch-priority 6
        nv set qos egress-queue-mapping default-global switch-priority 0 traffic-class 0
        nv set qos egress-queue-mapping default-global switch-priority 1 traffic-class 1
        nv set qos egress-queue-mapping default-global switch-priority 2 traffic-class 2
        nv set qos egress-queue-mapping default-global switch-priority 4 traffic-class 4
        nv set qos egress-queue-mapping default-global switch-priority 5 traffic-class 5
        nv set qos egress-queue-mapping default-global switch-priority 7 traffic-class 7
        nv set qos egress-scheduler default-global traffic-class 1,2,4,5,7 mode dwrr
        nv set qos egress-scheduler default-global traffic-class 1,2,4,5,7 bw-percent 0
        nv set qos pfc roce-3m switch-priority 3
        nv set qos pfc roce-3m cable-length 3
        nv set qos pfc roce-50m switch-priority 3
        nv set qos pfc roce-50m cable-length 50
        nv set qos pfc roce-55m switch-priority 3
        nv set qos pfc roce-55m cable-length 55
        nv set qos pfc-watchdog polling-interval 100
        nv set qos pfc-watchdog robustness 2
        nv set system forwarding hash-seed {device.ecmp.seed}
        nv set system forwarding ecmp-hash ipv6-label off
        nv config apply -y
    """
    from_commands = _parse(commands, device)
    from_yaml = cumulus_parse.parse(GOLDEN.read_text(), str(GOLDEN), "leaf2", device)
    assert cumulus_render.expressed(from_commands) == cumulus_render.expressed(from_yaml)
    in_nvue_terms = cumulus_render.as_rendered(device)  # detection in whole polls
    assert cumulus_render.expressed(from_yaml) == cumulus_render.expressed(in_nvue_terms)


# -- what the switch does where the config is silent ------------------------------------------


def test_cumulus_defaults_apply_where_the_config_says_nothing():
    device = _parse("nv set interface swp1 type swp\n")
    port = device.ports["swp1"]
    assert port.mtu == 9216 and port.speed_mbps == 0
    assert not port.lossless and port.watchdog is None
    # trust 802.1p by default: untagged routed traffic takes the default priority 0
    assert set(device.maps.dscp_to_tc.values()) == {0}
    assert [(q.queue, q.scheduler, q.weight) for q in device.queues] == [
        (tc, "dwrr", 12 if tc % 2 == 0 else 13) for tc in range(8)
    ]
    assert device.ecmp.seed is None and device.ecmp.hashes_udp_source_port is True
    assert "ipv6-flow-label" in device.ecmp.hash_fields


def test_trusting_dscp_without_a_map_uses_dscp_divided_by_eight():
    device = _parse("nv set qos mapping default-global trust l3\nnv set interface swp1\n")
    assert device.maps.dscp_to_tc == {dscp: dscp // 8 for dscp in range(64)}


def test_qos_roce_makes_every_port_lossless_with_its_documented_defaults():
    device = _parse(
        """
        nv set qos roce
        nv set interface swp1 link mtu 9216
        nv set interface swp1 qos pfc-watchdog
        """
    )
    port = device.ports["swp1"]
    assert port.lossless and port.pfc_priorities == [3] and port.cable_m == 100
    assert [(e.queue, e.min_bytes, e.max_bytes, e.probability_percent) for e in port.ecn] == [
        (3, 150_000, 1_500_000, 100)
    ]
    assert port.watchdog.enabled and port.watchdog.detection_ms == 300
    assert [(q.queue, q.scheduler, q.weight) for q in device.queues] == [
        (0, "dwrr", 50),
        (3, "dwrr", 50),
        (6, "strict", None),
    ]
    assert device.maps.tc_to_queue == {0: 0, 1: 0, 2: 0, 3: 3, 4: 0, 5: 0, 6: 6, 7: 0}
    # the preset keeps the default DSCP map: 24-31 share RoCE's no-drop priority
    assert _lossless_dscps(device) == list(range(24, 32))
    # judged for the hosts' default DSCPs (26, 48), not for the lowest DSCP of a class
    assert (device.roce_dscp, device.roce_priority, device.cnp_priority) == (26, 3, 6)


@pytest.mark.parametrize(
    ("mode", "lossless", "ecn_queues"),
    [
        ("lossless", True, [3]),
        ("lossless-single-ipool", True, [3]),
        ("lossy", False, []),
        ("lossy-multi-tc", False, []),
    ],
)
def test_each_roce_mode(mode, lossless, ecn_queues):
    device = _parse(f"nv set qos roce mode {mode}\nnv set interface swp1 type swp\n")
    port = device.ports["swp1"]
    assert port.lossless is lossless
    assert [e.queue for e in port.ecn] == ecn_queues
    if mode == "lossy-multi-tc":
        assert device.maps.dscp_to_tc[26] == 4 and all(q.scheduler == "dwrr" for q in device.queues)


@pytest.mark.parametrize("switch", ["nv set qos roce enable off", "nv set qos roce state disabled"])
def test_roce_switched_off_is_no_preset(switch):
    device = _parse(f"nv set qos roce mode lossless\n{switch}\nnv set interface swp1\n")
    assert not device.ports["swp1"].lossless


def test_cl516_state_enabled_style_is_read():
    device = _parse(
        """
        nv set qos roce state enabled
        nv set interface swp1 qos pfc-watchdog state enabled
        nv set system forwarding ecmp-hash source-port disabled
        """
    )
    port = device.ports["swp1"]
    assert port.lossless and port.watchdog.enabled
    assert device.ecmp.hashes_udp_source_port is False


def test_a_port_bound_to_a_profile_takes_that_profile_not_default_global():
    device = _parse(
        """
        nv set qos roce
        nv set qos pfc uplinks switch-priority 3
        nv set qos pfc uplinks cable-length 40
        nv set qos congestion-control uplinks traffic-class 3 min-threshold 50000
        nv set qos congestion-control uplinks traffic-class 3 max-threshold 500000
        nv set interface swp1 qos pfc profile uplinks
        nv set interface swp1 qos congestion-control profile uplinks
        nv set interface swp2 type swp
        """
    )
    swp1, swp2 = device.ports["swp1"], device.ports["swp2"]
    assert swp1.cable_m == 40 and swp2.cable_m == 100
    assert (swp1.ecn[0].min_bytes, swp1.ecn[0].max_bytes) == (50_000, 500_000)
    assert swp1.ecn[0].probability_percent == 100  # field left out: its default
    assert (swp2.ecn[0].min_bytes, swp2.ecn[0].max_bytes) == (150_000, 1_500_000)


def test_pfc_that_does_not_send_pause_frames_is_not_lossless():
    device = _parse(
        "nv set qos roce\nnv set qos pfc default-global tx disable\nnv set interface swp1\n"
    )
    assert not device.ports["swp1"].lossless
    assert device.ports["swp1"].sources["lossless"] == "sw.txt:2:1"


def test_a_broken_out_port_is_not_a_port_but_its_subports_are():
    device = _parse("nv set interface swp1 link breakout 2x\nnv set interface swp1s0-1 type swp\n")
    assert list(device.ports) == ["swp1s0", "swp1s1"]


def test_only_switch_ports_are_ports():
    device = _parse(
        """
        nv set interface lo ip address 10.0.0.1/32
        nv set interface eth0 type eth
        nv set interface bond1 bond member swp1
        nv set interface vlan10 type svi
        nv set interface swp1 type swp
        nv set interface uplink1 type swp
        """
    )
    assert list(device.ports) == ["swp1", "uplink1"]


# -- every DSCP value: exactly the plan's DSCPs in the lossless and CNP classes -----------------


def test_every_dscp_maps_exactly_as_planned(lab):
    """The rendered config states all 64 DSCPs; read back through the parser with the
    Cumulus defaults, exactly the hosts' RoCE DSCP is in the lossless class and exactly
    the CNP DSCP in CNP's class."""
    device = lab.devices["leaf2"]
    parsed = cumulus_parse.parse(render_device(device, lab), "leaf2.yaml", "leaf2", device)
    assert sorted(parsed.maps.dscp_to_tc) == list(range(64))
    assert _lossless_dscps(parsed) == [device.roce_dscp]
    cnp = sorted(d for d, tc in parsed.maps.dscp_to_tc.items() if tc == device.cnp_priority)
    assert cnp == [device.cnp_dscp]


def test_a_map_of_only_26_and_48_leaves_the_rest_to_dscp_divided_by_eight():
    """What the old render said: the switch then has 24-31 no-drop and 48-55 with CNP."""
    device = _parse(
        """
        nv set qos roce
        nv set qos mapping default-global trust l3
        nv set qos mapping default-global dscp 26 switch-priority 3
        nv set qos mapping default-global dscp 48 switch-priority 6
        nv set interface swp1
        """
    )
    assert _lossless_dscps(device) == list(range(24, 32))
    assert sorted(d for d, tc in device.maps.dscp_to_tc.items() if tc == 6) == list(range(48, 56))


# -- command-list syntax --------------------------------------------------------------------------


def test_command_syntax_prompts_comments_quotes_ranges_and_continuations():
    config = read_nvue(
        textwrap.dedent(
            """\
            #!/bin/bash
            # a comment
            cumulus@leaf01:mgmt:~$ nv set interface swp1-2,swp4 description 'rack #3: GPU'  # note
            nv set interface swp2-3,5 link mtu 9000
            nv set interface swp7s0-1 type swp
            nv set interface swp8s0-swp8s1 type swp
            nv set qos congestion-control default-global traffic-class 0,3 \\
                red enable
            nv set system message pre-login 'line one
            line two'
            nv unset interface swp4 description
            nv show interface
            """
        ),
        "r.txt",
    )
    interfaces = config.tree["interface"]
    assert sorted(interfaces) == sorted(
        ["swp1", "swp2", "swp3", "swp4", "swp5", "swp7s0", "swp7s1", "swp8s0", "swp8s1"]
    )
    assert interfaces["swp1"]["description"] == "rack #3: GPU"
    assert "description" not in interfaces["swp4"]
    assert interfaces["swp5"]["link"]["mtu"] == "9000"
    classes = config.tree["qos"]["congestion-control"]["default-global"]["traffic-class"]
    assert classes == {"0": {"red": "enable"}, "3": {"red": "enable"}}
    assert config.tree["system"]["message"]["pre-login"] == "line one\nline two"
    assert config.where(("interface", "swp4", "description")) == "r.txt:11:1"
    assert config.where(("interface", "swp1", "description")) == "r.txt:3:24"


def test_yaml_operations_apply_in_order():
    config = read_nvue(
        "- header:\n    rev-id: 1.0\n"
        "- set:\n    qos:\n      roce:\n        mode: lossy\n"
        "- unset:\n    qos:\n      roce:\n"
        "- set:\n    interface:\n      swp1:\n        type: swp\n",
        "p.yaml",
    )
    assert config.tree == {"qos": {}, "interface": {"swp1": {"type": "swp"}}}
    assert config.where(("qos", "roce")) == "p.yaml:9:7"


# -- bad input: exit 2 with a location, never a traceback ---------------------------------------

WRONG_SHAPES = {
    "interfaces as a list": ("- set:\n    interface: [swp1, swp2]\n", 2, 5),
    "a port as a number": ("- set:\n    interface:\n      swp1: 5\n", 3, 7),
    "mtu not a number": (
        "- set:\n    interface:\n      swp1:\n        link:\n          mtu: abc\n",
        5,
        11,
    ),
    "dscp out of range": (
        "- set:\n    qos:\n      mapping:\n        default-global:\n          dscp:\n"
        "            '99':\n              switch-priority: 3\n",
        6,
        13,
    ),
    "priorities as a list": (
        "- set:\n    qos:\n      pfc:\n        p:\n          switch-priority: [3]\n",
        5,
        11,
    ),
    "set of a scalar": ("- set: 5\n", 1, 8),
    "unknown operation": ("- replace:\n    qos: {}\n", 1, 3),
    "a list of names": ("- swp1\n- swp2\n", 1, 3),
    "a mapping at the top": ("---\nqos: {}\n", 2, 1),
    "deep nesting": ("- set:\n" + "".join("  " * (i + 2) + f"k{i}:\n" for i in range(120)), 0, 0),
    "alias bomb": (
        "- set:\n    a: &a [x, x, x, x, x, x, x, x, x, x]\n"
        + "".join(
            f"    {chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, "
            f"*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, "
            f"*{chr(97 + i)}, *{chr(97 + i)}]\n"
            for i in range(9)
        ),
        0,
        0,
    ),
    "unclosed quote": ("nv set interface swp1 description 'GPU\n", 1, 1),
    "not a command": ("nv set interface swp1 type swp\nhostname leaf1\n", 2, 1),
    "dscp 70 in a command": ("nv set qos mapping default-global dscp 70 switch-priority 3\n", 1, 1),
    "nv alone": ("nv\n", 1, 1),
    "speed as a mapping": ("nv set interface swp1 link speed 400G\n", 0, 0),  # fine: a value
}


@pytest.mark.parametrize("case", sorted(WRONG_SHAPES))
def test_wrong_shapes_are_bad_input_at_their_line(run, tmp_path, case):
    text, line, column = WRONG_SHAPES[case]
    path = tmp_path / "sw.yaml"
    path.write_text(text)
    result = run("lint", "--config", str(path), "--os", "cumulus")
    assert "Traceback" not in result.err
    if case == "speed as a mapping":
        assert result.code in (0, 1)
        return
    assert result.code == 2, result.out + result.err
    if line:
        assert result.err.startswith(f"{path}:{line}:{column}:"), result.err


@pytest.mark.parametrize(
    "name", ["leaf1.json", "leaf3.cfg", "leaf4.conf", "spine1.cfg", "spine2.json"]
)
def test_another_os_config_is_not_an_nvue_config(run, name):
    path = REPO / "golden" / "lab" / name
    result = run("lint", "--config", str(path), "--os", "cumulus")
    assert result.code == 2, result.out
    assert "this is not an NVUE config" in result.err
    assert "Traceback" not in result.err


def test_empty_file_is_not_an_nvue_config(tmp_path):
    with pytest.raises(InputError, match="this is not an NVUE config"):
        cumulus_parse.parse("# nothing here\n\n", "e.yaml", "e")


def test_mutated_configs_never_crash():
    """Lines deleted, repeated, swapped and characters flipped in both forms: the parser
    reads the file or reports bad input, nothing else."""
    sources = [
        GOLDEN.read_text(),
        *(p.read_text() for p in (REPO / "tests/configs/cumulus").iterdir()),
    ]
    rng = random.Random(20260911)
    for case in range(300):
        lines = rng.choice(sources).splitlines()
        for _ in range(rng.randint(1, 4)):
            position = rng.randrange(len(lines))
            action = rng.choice(["delete", "repeat", "swap", "flip", "indent"])
            if action == "delete":
                del lines[position]
            elif action == "repeat":
                lines.insert(position, lines[position])
            elif action == "swap":
                other = rng.randrange(len(lines))
                lines[position], lines[other] = lines[other], lines[position]
            elif action == "flip" and lines[position]:
                at = rng.randrange(len(lines[position]))
                text = lines[position]
                lines[position] = text[:at] + rng.choice("x9:-'\"[]{}#&*!| ,") + text[at + 1 :]
            elif action == "indent":
                lines[position] = "  " + lines[position]
            if not lines:
                lines = ["nv set interface swp1"]
        with contextlib.suppress(InputError):
            cumulus_parse.parse("\n".join(lines) + "\n", f"m{case}.yaml", "m")


@pytest.mark.parametrize(
    "text",
    [
        "\ufeffnv set qos roce\r\nnv set interface swp1 type swp\r\n",
        "\ufeff- set:\r\n    qos:\r\n      roce: {}\r\n    interface:\r\n      swp1: {}\r\n",
    ],
    ids=["commands", "yaml"],
)
def test_windows_line_ends_and_byte_order_mark_are_read(text):
    assert cumulus_parse.parse(text, "w.txt", "w").ports["swp1"].lossless


def test_commands_after_the_last_apply_are_pending_not_in_effect():
    device = _parse(
        """
        nv set qos roce
        nv set interface swp1 link mtu 9000
        nv config apply -y
        nv set interface swp1 link mtu 9216
        nv set interface swp1 qos pfc-watchdog state enable
        """
    )
    port = device.ports["swp1"]
    assert port.mtu == 9000 and not port.watchdog.enabled
    assert port.sources["mtu"] == "sw.txt:2:1"
