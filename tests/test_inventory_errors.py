"""Every kind of bad inventory gets FILE:LINE:COL: path: message and exit 2, never a traceback."""

from __future__ import annotations

import re
import time

import pytest
from conftest import MINIMAL


def only_problem(result) -> str:
    lines = [
        line for line in result.err.splitlines() if not re.fullmatch(r"[0-9,]+ problems?", line)
    ]
    assert result.code == 2, result.out + result.err
    assert "Traceback" not in result.err
    assert len(lines) == 1, result.err
    return lines[0]


def test_minimal_inventory_is_valid(run, write):
    result = run("validate", str(write(MINIMAL)))
    assert result.code == 0, result.err
    assert result.out.splitlines()[0] == "OK"
    assert "2 devices, 3 ports, 1 server, 1 NIC, 2 links" in result.out


def test_unknown_key_with_suggestion(run, write):
    path = write(MINIMAL.replace("  name: t\n", "  name: t\n  polcy: {}\n"))
    line = only_problem(run("validate", str(path)))
    assert line == f"{path}:3:3: fabric.polcy: unknown key 'polcy' (did you mean \"policy\"?)"


def test_number_replaced_by_word(run, write):
    path = write(MINIMAL.replace("cable_m: 40", "cable_m: forty"))
    line = only_problem(run("validate", str(path)))
    assert line == f"{path}:22:58: links[1].cable_m: expected a number, got 'forty'"


def test_enum_with_suggestion(run, write):
    path = write(MINIMAL.replace("os: eos", "os: eso"))
    line = only_problem(run("validate", str(path)))
    assert line.startswith(f"{path}:12:9: devices.spine1.os: 'eso' is not one of:")
    assert line.endswith('(did you mean "eos"?)')


def test_missing_required_key(run, write):
    path = write(MINIMAL.replace("    role: spine\n", ""))
    line = only_problem(run("validate", str(path)))
    assert line == f"{path}:11:5: devices.spine1: 'role' is required"


def test_duplicate_yaml_key(run, write):
    path = write(MINIMAL.replace("    os: eos\n", "    os: eos\n    os: sonic\n"))
    line = only_problem(run("validate", str(path)))
    assert line == (
        f"{path}:13:5: devices.spine1.os: duplicate key 'os' (first written on line 12)"
    )


def test_yaml_syntax_error(run, write):
    path = write("fabric:\n  name: t\ndevices: [1, 2\n")
    line = only_problem(run("validate", str(path)))
    assert line.startswith(f"{path}:4:1: YAML syntax:")


def test_tab_indentation_is_a_syntax_error(run, write):
    path = write("fabric:\n\tname: t\n")
    line = only_problem(run("validate", str(path)))
    assert line.startswith(f"{path}:2:1: YAML syntax:")


def test_empty_file(run, write):
    path = write("")
    assert only_problem(run("validate", str(path))) == (
        f"{path}:1:1: file is empty: expected a mapping"
    )


def test_comment_only_file_is_empty(run, write):
    path = write("# nothing here\n")
    assert "file is empty" in only_problem(run("validate", str(path)))


def test_not_a_mapping(run, write):
    path = write("- leaf1\n- leaf2\n")
    assert only_problem(run("validate", str(path))) == (
        f"{path}:1:1: expected a mapping at the top, not a list"
    )


def test_scalar_document(run, write):
    path = write("just text\n")
    assert "not a single value" in only_problem(run("validate", str(path)))


def test_non_utf8_bytes(run, tmp_path):
    path = tmp_path / "latin1.yaml"
    path.write_bytes(b"fabric:\n  name: t\n  description: caf\xe9\n")
    line = only_problem(run("validate", str(path)))
    assert line.startswith(f"{path}:3:19: not UTF-8: byte 0xe9")


def test_missing_file(run, tmp_path):
    line = only_problem(run("validate", str(tmp_path / "nope.yaml")))
    assert line.endswith("cannot read file: No such file or directory")


def test_billion_laughs_is_bounded(run, write):
    rows = ['a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for level in range(1, 10):
        refs = ", ".join([f"*a{level - 1}"] * 10)
        rows.append(f"a{level}: &a{level} [{refs}]")
    path = write("\n".join(rows) + "\n")
    started = time.monotonic()
    line = only_problem(run("validate", str(path)))
    assert time.monotonic() - started < 5
    assert "aliases expand this document to more than" in line
    # 10 x 10 x ... passes two million nodes at the seventh level, in its row.
    assert line.startswith(f"{path}:7:")


def test_recursive_alias(run, write):
    path = write("fabric: &f\n  name: t\n  self: *f\n")
    line = only_problem(run("validate", str(path)))
    assert line == f"{path}:3:9: alias *f refers to the node that contains it"


def test_deep_nesting_is_bounded(run, write):
    path = write("fabric: " + "[" * 500 + "]" * 500 + "\n")
    line = only_problem(run("validate", str(path)))
    assert "nesting deeper than 100 levels" in line


def test_link_to_missing_port_with_suggestion(run, write):
    path = write(MINIMAL.replace("b: gpu1:eth0", "b: gpu1:eht0"))
    line = only_problem(run("validate", str(path)))
    assert line == f"{path}:21:29: links[0].b: gpu1 has no port 'eht0' (did you mean \"eth0\"?)"


def test_link_to_missing_device(run, write):
    path = write(MINIMAL.replace("a: leaf1:Ethernet4", "a: leaf2:Ethernet4"))
    line = only_problem(run("validate", str(path)))
    assert line == f"{path}:22:9: links[1].a: no device or server 'leaf2' (did you mean \"leaf1\"?)"


def test_port_used_by_two_links(run, write):
    path = write(MINIMAL.replace("a: leaf1:Ethernet4", "a: leaf1:Ethernet0"))
    line = only_problem(run("validate", str(path)))
    assert (
        line
        == f"{path}:22:9: links[1].a: leaf1:Ethernet0 is already used by the link at {path}:21:5"
    )


def test_speed_disagreement(run, write):
    path = write(MINIMAL.replace("eth0: {speed: 400G}", "eth0: {speed: 200G}"))
    line = only_problem(run("validate", str(path)))
    assert line == (f"{path}:21:9: links[0].a: leaf1:Ethernet0 runs at 400G but gpu1:eth0 at 200G")


def test_unknown_asic_with_suggestion(run, write):
    path = write(MINIMAL.replace("asic: tomahawk-5", "asic: tomahawk5"))
    line = only_problem(run("validate", str(path)))
    assert (
        line == f"{path}:13:11: devices.spine1.asic: unknown ASIC 'tomahawk5'"
        ' (did you mean "tomahawk-5"?)'
    )


def test_duplicate_device_from_range(run, write):
    text = MINIMAL.replace("  spine1:\n", "  leaf[1:2]:\n").replace(
        "spine1:Ethernet1/1", "leaf2:Ethernet1/1"
    )
    path = write(text)
    line = only_problem(run("validate", str(path)))
    assert (
        line
        == f"{path}:10:3: devices.leaf[1:2]: device 'leaf1' is defined twice (defined at line 4)"
    )


def test_server_name_clashes_with_device(run, write):
    path = write(MINIMAL.replace("  gpu1:\n", "  leaf1:\n").replace("gpu1:eth0", "leaf1:eth0"))
    line = only_problem(run("validate", str(path)))
    assert line == f"{path}:17:3: servers.leaf1: 'leaf1' names a device already, defined at line 4"


def test_overlapping_port_ranges(run, write):
    path = write(
        MINIMAL.replace(
            "      Ethernet[0:4:4]: {speed: 400G}\n",
            "      Ethernet[0:4:4]: {speed: 400G}\n      Ethernet4: {speed: 400G}\n",
        )
    )
    line = only_problem(run("validate", str(path)))
    assert line == (
        f"{path}:10:7: devices.leaf1.ports.Ethernet4: port 'Ethernet4' is also defined by "
        "'Ethernet[0:4:4]'"
    )


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("Ethernet[4:0]", "ends before it starts"),
        ("Ethernet[0:5:4]", "does not end on a step"),
    ],
)
def test_bad_range(run, write, name, message):
    path = write(MINIMAL.replace("Ethernet[0:4:4]", name))
    result = run("validate", str(path))
    assert result.code == 2
    assert f"{path}:9:7: devices.leaf1.ports.{name}:" in result.err
    assert message in result.err


def test_unclosed_range_is_rejected_by_the_schema(run, write):
    path = write(MINIMAL.replace("Ethernet[0:4:4]", "Ethernet[0:4"))
    line = only_problem(run("validate", str(path)))
    assert line.startswith(
        f"{path}:9:7: devices.leaf1.ports.Ethernet[0:4: 'Ethernet[0:4' is not a valid name"
    )


def test_unknown_profile(run, write):
    path = write(MINIMAL.replace("Ethernet1/1: {speed: 400G}", "Ethernet1/1: {profile: uplink}"))
    line = only_problem(run("validate", str(path)))
    assert (
        line == f"{path}:15:30: devices.spine1.ports.Ethernet1/1.profile: no port profile 'uplink'"
    )


def test_speed_not_supported_by_asic(run, write):
    path = write(MINIMAL.replace("asic: spectrum-4", "asic: spectrum-2"))
    result = run("validate", str(path))
    assert result.code == 2
    assert (
        f"{path}:9:7: devices.leaf1.ports.Ethernet[0:4:4]: spectrum-2 does not run ports at 400G"
        in result.err
    )


def test_link_needs_cable(run, write):
    path = write(MINIMAL.replace(", cable_m: 2}", "}"))
    line = only_problem(run("validate", str(path)))
    assert (
        line == f"{path}:21:5: links[0]: a link needs cable_m (metres) or a cable type (cable: dac)"
    )


def test_unknown_cable_type(run, write):
    path = write(MINIMAL.replace("cable_m: 2}", "cable: dak}"))
    line = only_problem(run("validate", str(path)))
    assert line.startswith(
        f"{path}:21:47: links[0].cable: unknown cable type 'dak' (did you mean \"dac\"?)"
    )


def test_range_ends_must_pair(run, write):
    path = write(
        MINIMAL.replace(
            "a: leaf1:Ethernet0, b: gpu1:eth0", "a: 'leaf1:Ethernet[0:4:4]', b: gpu1:eth0"
        )
    )
    line = only_problem(run("validate", str(path)))
    assert "a expands to 2 ends and b to 1" in line


def test_mesh_short_of_ports(run, write):
    text = MINIMAL.replace(
        "  - {a: leaf1:Ethernet4, b: spine1:Ethernet1/1, cable_m: 40}\n",
        "  - mesh:\n"
        "      a: {devices: leaf1, ports: 'Ethernet[4:4]'}\n"
        "      b: {devices: spine1, ports: Ethernet1/1}\n"
        "      links_per_pair: 2\n"
        "    cable_m: 40\n",
    )
    path = write(text)
    line = only_problem(run("validate", str(path)))
    assert (
        line == f"{path}:23:34: links[1].mesh.a.ports: "
        "each a device needs 2 ports for the mesh, ports gives 1"
    )


def test_every_problem_is_reported_at_once(run, write):
    text = MINIMAL.replace("os: eos", "os: eso").replace("cable_m: 40", "cable_m: forty")
    result = run("validate", str(write(text)))
    assert result.code == 2
    assert "2 problems" in result.err


def test_a_lower_case_speed_unit_is_refused_in_an_inventory(run, write):
    path = write(MINIMAL.replace("eth0: {speed: 400G}", "eth0: {speed: 400g}"))
    result = run("validate", str(path))
    assert result.code == 2
    assert "400g" in result.err


def test_a_nic_range_at_the_wrong_speed_is_one_problem_at_the_nic(run, write):
    """Four servers of one range whose NIC speed is wrong: one problem, at the NIC's speed
    (the line every server of the range shares), naming the link entry; was four, one per
    link, at the link line."""
    path = write(
        "fabric: {name: f}\n"
        "devices:\n"
        "  leaf1: {role: leaf, os: eos, asic: trident-3,\n"
        '          ports: {"Ethernet[1:4]/1": {speed: 100G}}}\n'
        "servers:\n"
        "  gpu[01:04]:\n"
        "    nics:\n"
        "      eth0: {speed: 200G}\n"
        "links:\n"
        '  - {a: "leaf1:Ethernet[1:4]/1", b: "gpu[01:04]:eth0", cable_m: 3}\n'
    )
    line = only_problem(run("validate", str(path)))
    assert line.startswith(f"{path}:8:"), line
    assert "servers.gpu[01:04].nics.eth0.speed: 200G" in line
    assert "run at 100G: leaf1:Ethernet1/1 - gpu01:eth0 and 3 more links (links[0])" in line


# The links' common case is decided inline (resolve_links); these are the cases it must hand
# to _check_link, which says what is wrong.
def test_port_linked_to_itself(run, write):
    path = write(MINIMAL.replace("b: spine1:Ethernet1/1", "b: leaf1:Ethernet4"))
    line = only_problem(run("validate", str(path)))
    assert line == f"{path}:22:9: links[1].a: leaf1:Ethernet4 is linked to itself"


def test_link_of_two_nics(run, write):
    two_servers = MINIMAL.replace(
        "      eth0: {speed: 400G}\n",
        "      eth0: {speed: 400G}\n  gpu2:\n    nics:\n      eth0: {speed: 400G}\n",
    ).replace("a: leaf1:Ethernet0, b: gpu1:eth0", "a: gpu1:eth0, b: gpu2:eth0")
    path = write(two_servers)
    line = only_problem(run("validate", str(path)))
    assert line.startswith(f"{path}:")
    assert line.endswith(
        "links[0].a: gpu1:eth0 - gpu2:eth0: a link needs a switch on at least one end"
    )


def test_two_ports_of_one_switch_may_be_linked(run, write):
    path = write(
        MINIMAL.replace("b: spine1:Ethernet1/1", "b: leaf1:Ethernet8").replace(
            "Ethernet[0:4:4]", "Ethernet[0:8:4]"
        )
    )
    result = run("validate", str(path))
    assert result.code == 0, result.err
