"""Free text from a pull request never becomes config, script or YAML syntax (issue 24, items 1
and 3): the schema gives every free-text field one validated shape (one line, printable, a
length limit) and every name a full-match pattern, and each OS writes a description through
one escaping function, so text that passes the schema still cannot end a line, close a
quoted string or open a block."""

from __future__ import annotations

import json

import pytest
from conftest import INVENTORIES

from lossless.inventory import load_inventory
from lossless.planner.fabric import plan_fabric
from lossless.vendors.cumulus.read import read_nvue
from lossless.vendors.eos import render as eos_render
from lossless.vendors.junos import render as junos_render
from lossless.vendors.junos.statements import read as read_junos
from lossless.vendors.nxos import render as nxos_render
from lossless.vendors.rendering import render_device

LAB = (INVENTORIES / "lab.yaml").read_text()
# The attack of the issue: a description that ends its line and adds a top-level command.
INJECTION = "uplink\nusername evil privilege 15 secret 0 x\ninterface Ethernet9/9"


def _lab_with(old: str, new: str) -> str:
    assert old in LAB
    return LAB.replace(old, new, 1)


def _problem_at(result, path: str) -> bool:
    return result.code == 2 and any(path in line for line in result.err.splitlines())


# -- item 1: free text has one shape -----------------------------------------------------


@pytest.mark.parametrize(
    ("old", "new", "path"),
    [
        # a port profile's description (reaches EOS, NX-OS, Junos and NVUE configs)
        (
            "server-400g: {speed: 400G, description: GPU NIC}",
            f"server-400g: {{speed: 400G, description: {json.dumps(INJECTION)}}}",
            "port_profiles.server-400g.description",
        ),
        # a carriage return, an ESC sequence, a right-to-left override, a zero-width space
        (
            "description: Mixed-vendor RoCE v2 lab",
            'description: "lab\\r"',
            "fabric.description",
        ),
        ("platform: SN5600", 'platform: "SN5600\\e[2J"', "devices.leaf1.platform"),
        ("model: ConnectX-7, mtu", 'model: "ConnectX-7\\u202e", mtu', "model"),
        (
            "dac: {length_m: 3, description: in-rack passive copper}",
            'dac: {length_m: 3, description: "in-rack\\u200b"}',
            "cable_types.dac.description",
        ),
        # a lint_ignore reason is printed in every report
        (
            "    mgmt: 192.0.2.11\n",
            '    mgmt: 192.0.2.11\n    lint_ignore: {LL117: "ok\\n::error::pwned"}\n',
            "devices.leaf1.lint_ignore.LL117",
        ),
        # too long for any switch OS's description
        (
            "server-400g: {speed: 400G, description: GPU NIC}",
            f"server-400g: {{speed: 400G, description: {'x' * 201}}}",
            "port_profiles.server-400g.description",
        ),
    ],
    ids=["newline", "carriage-return", "escape", "bidi", "zero-width", "reason", "too-long"],
)
@pytest.mark.parametrize("command", ["validate", "lint", "render", "push"])
def test_free_text_that_is_not_one_printable_line_is_refused(
    run, write, tmp_path, command, old, new, path
):
    inventory = str(write(_lab_with(old, new)))
    argv = {
        "validate": ["validate", inventory],
        "lint": ["lint", inventory],
        "render": ["render", inventory, "-o", str(tmp_path / "out")],
        "push": ["push", inventory, "--all", "--commit", "--mock", str(tmp_path / "mock")],
    }[command]
    result = run(*argv)
    assert _problem_at(result, path), result.err
    assert "\x1b" not in result.err and "\n::error" not in result.err
    assert not (tmp_path / "out").exists()


def test_printable_text_of_any_script_still_passes(run, write):
    """Quotes, braces, semicolons, hashes, backslashes and non-ASCII letters are descriptions
    people write; they pass and are escaped per OS below."""
    text = 'a "quoted" {brace}; #hash \\ back é'
    inventory = write(
        _lab_with(
            "server-400g: {speed: 400G, description: GPU NIC}",
            f"server-400g: {{speed: 400G, description: {json.dumps(text)}}}",
        )
    )
    assert run("validate", str(inventory)).code == 0


# -- item 3: names match whole, never start with a dash ----------------------------------


@pytest.mark.parametrize(
    ("old", "new", "path"),
    [
        ("  name: lab", '  name: "lab\\n"', "fabric.name"),
        (
            '"eth[0:1]": {speed: 400G, model: ConnectX-7',
            '"eth0\\n": {speed: 400G, model: ConnectX-7',
            "nics",
        ),
        (
            '"eth[0:1]": {speed: 400G, model: ConnectX-7',
            '"-eth0": {speed: 400G, model: ConnectX-7',
            "nics",
        ),
        ("  leaf1:\n    role: leaf", '  "leaf1\\n":\n    role: leaf', "devices"),
        ("  leaf1:\n    role: leaf", '  "-leaf1":\n    role: leaf', "devices"),
        ("      Ethernet[0:4:4]: {profile", '      "-Ethernet0": {profile', "ports"),
        (
            "    mgmt: 192.0.2.11\n",
            '    mgmt: 192.0.2.11\n    lint_ignore: {"LL117\\n": x y z}\n',
            "lint_ignore",
        ),
    ],
    ids=[
        "fabric-newline",
        "nic-newline",
        "nic-dash",
        "device-newline",
        "device-dash",
        "port-dash",
        "rule-newline",
    ],
)
def test_names_match_whole_and_never_start_with_a_dash(run, write, old, new, path):
    result = run("validate", str(write(_lab_with(old, new))))
    assert result.code == 2, result.out
    assert path in result.err


def test_the_schema_reads_dollar_as_json_schema_means_it():
    """`$` is the end of the text (ECMA-262), not before a final newline (Python's re)."""
    from lossless.inventory.schema import _ecma_regex

    assert _ecma_regex("^[a-z0-9]+$").search("eth0")
    assert not _ecma_regex("^[a-z0-9]+$").search("eth0\n")
    assert _ecma_regex("^[$]x$").search("$x")  # a `$` in a class is a dollar sign
    assert _ecma_regex(r"^a\$$").search("a$")


# -- item 1: each OS writes a description through one function ---------------------------

HOSTILE = ['a "quoted" {brace}; #hash \\ back', 'x"; }\nsystem { login', "end\\", "é\x1bÿ"]


@pytest.mark.parametrize("text", HOSTILE)
def test_junos_descriptions_stay_inside_their_quotes(text):
    rendered = junos_render.description(text)
    config = f'interfaces {{\n    et-0/0/0 {{\n        description "{rendered}";\n    }}\n}}\n'
    statements = read_junos(config, "t.conf").statements
    assert [s.words[:3] for s in statements] == [("interfaces", "et-0/0/0", "description")]
    assert len(statements[0].words) == 4  # the quoted string is one word


@pytest.mark.parametrize("render", [eos_render.description, nxos_render.description])
@pytest.mark.parametrize("text", HOSTILE)
def test_cli_descriptions_are_one_line(render, text):
    line = render(text)
    assert "\n" not in line and "\r" not in line and "\x1b" not in line
    assert line.replace("?", "") in text.replace("\n", "").replace("\x1b", "")


def _plan_with_description(tmp_path, text: str):
    """The lab with `text` as the description of every port profile (so of every port)."""
    inventory = tmp_path / "inv.yaml"
    lab = LAB
    for plain in ("GPU NIC", "fabric uplink", "fabric downlink"):
        assert f"description: {plain}}}" in lab
        lab = lab.replace(f"description: {plain}}}", f"description: {json.dumps(text)}}}")
    inventory.write_text(lab)
    return plan_fabric(load_inventory(inventory))


@pytest.mark.parametrize("text", ['a "quoted" {brace}; #hash \\ back', "x'; } system {", "-- !"])
def test_a_description_that_passes_the_schema_changes_no_config_structure(tmp_path, text):
    """Rendered with and without the hostile description, every OS's config has the same
    lines but the description's own: nothing is added, closed or opened."""
    plain = plan_fabric(load_inventory(INVENTORIES / "lab.yaml"))
    hostile = _plan_with_description(tmp_path, text)
    for name in ("leaf2", "leaf3", "leaf4", "spine1"):
        before = render_device(plain.devices[name], plain).splitlines()
        after = render_device(hostile.devices[name], hostile).splitlines()
        assert len(before) == len(after), name
        changed = [(b, a) for b, a in zip(before, after, strict=True) if b != a]
        assert changed, name
        assert all("description" in b and "description" in a for b, a in changed), name
    leaf2 = hostile.devices["leaf2"]
    tree = read_nvue(render_device(leaf2, hostile), "leaf2.yaml").tree
    descriptions = {name: port.get("description") for name, port in tree["interface"].items()}
    assert descriptions["swp1"] == text
