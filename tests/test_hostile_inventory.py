"""A hostile or broken inventory (one from a pull request) is bad input at its line: names
that would be paths, YAML tags, ranges and port counts that would exhaust memory, files that
are not files, RoCE classes no vendor can render, and numbers that are not numbers."""

from __future__ import annotations

import itertools
import os
import threading
import time

import pytest
from conftest import INVENTORIES, MINIMAL

from lossless.errors import InputError
from lossless.inventory import resolve
from lossless.inventory.yamlsource import Document, load_yaml
from lossless.planner.fabric import plan_fabric
from lossless.text import ranges
from lossless.vendors.rendering import render_fabric

LAB = (INVENTORIES / "lab.yaml").read_text()


def _lab_with(write, old: str, new: str):
    assert old in LAB, old
    return write(LAB.replace(old, new, 1))


# -- names become file names --------------------------------------------------------------


@pytest.mark.parametrize(
    "name", ["./../../pwned", "a/b", ".hidden", "..", "leaf1/../../x", "/etc/x", "a\\b"]
)
def test_device_name_that_is_a_path_is_refused(run, write, tmp_path, name):
    inventory = _lab_with(write, "  leaf1:\n", f"  {name!r}:\n".replace("'", '"'))
    result = run("render", str(inventory), "-o", str(tmp_path / "out"))
    assert result.code == 2
    assert f"{inventory}:35:3: devices." in result.err
    assert "not starting with a dot" in result.err
    assert not (tmp_path / "out").exists()
    assert not list(tmp_path.parent.glob("pwned*"))


@pytest.mark.parametrize("name", ["../gpu", "gpu/1", ".gpu[1:2]"])
def test_server_name_that_is_a_path_is_refused(run, write, name):
    inventory = write(MINIMAL.replace("  gpu1:\n", f'  "{name}":\n'))
    result = run("validate", str(inventory))
    assert result.code == 2
    assert f"{inventory}:17:3: servers." in result.err


def test_names_are_checked_again_after_range_expansion():
    """The schema refuses unsafe keys; the resolver checks every expanded name again."""
    resolver = resolve._Resolver(Document("inv.yaml", {}))
    assert resolver._safe_names(["leaf1", "leaf-2.a_b", "01"], ("devices", "x"))
    assert not resolver._safe_names(["ok", ".."], ("devices", "x"))
    assert "'..' is not a safe name" in resolver.problems[0].message


# -- YAML tags ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("!!int abc", "'abc' is not a valid !!int"),
        ("!!float x", "'x' is not a valid !!float"),
        ("!!bool maybe", "'maybe' is not a valid !!bool"),
        ("!!timestamp abc", "'abc' is not a valid !!timestamp"),
        ("!custom x", "YAML tag !custom is not allowed here"),
        ('!!python/name:os.system ""', "YAML tag !!python/name:os.system is not allowed"),
        ("!!python/object/apply:os.system [id]", "YAML tag !!python/object/apply:os.system"),
        ("!!binary aGVsbG8=", "YAML tag !!binary is not allowed"),
        ("!!set {a, b}", "YAML tag !!set is not allowed"),
        ("!!omap [a: 1]", "YAML tag !!omap is not allowed"),
        pytest.param("9" * 5000, "'" + "9" * 40 + "...' is not a valid !!int", id="5000-digits"),
    ],
)
def test_yaml_tags_are_bad_input_at_their_node(run, write, value, message):
    inventory = _lab_with(write, "    mtu: 9100\n", f"    mtu: {value}\n")
    result = run("validate", str(inventory))
    assert result.code == 2, result.out
    assert "Traceback" not in result.err
    assert f"{inventory}:14:10: fabric.policy.mtu: {message}" in result.err


def test_plain_timestamps_stay_text(run, write):
    inventory = _lab_with(write, "  description: Mixed", "  description: 2024-01-01 Mixed")
    assert run("validate", str(inventory)).code == 0


# -- bounded work ---------------------------------------------------------------------------


def test_a_huge_range_is_counted_not_expanded(run, write):
    inventory = _lab_with(write, "Ethernet[0:4:4]:", "Ethernet[0:100000000]:")
    started = time.perf_counter()
    result = run("validate", str(inventory))
    assert time.perf_counter() - started < 5
    assert result.code == 2
    assert f"{inventory}:42:7: devices.leaf1.ports: 100,000,003 ports (at most 4,096 each)" in (
        result.err
    )


def test_ranges_are_counted_before_expansion():
    assert ranges.count("leaf[01:32]:Ethernet[0:252:4]") == 32 * 64
    with pytest.raises(ranges.RangeError, match="100,000,001 names"):
        ranges.expand("Ethernet[0:100000000]")
    with pytest.raises(ranges.RangeError, match="at most 18 digits"):
        ranges.count("x[0:" + "9" * 5000 + "]")


def test_ports_in_all_are_capped(run, write, monkeypatch):
    monkeypatch.setattr(resolve, "MAX_PORTS", 5_000)
    inventory = write(
        LAB.replace("  leaf4:\n", "  leaf[4:3000]:\n").replace("mgmt: 192.0.2.14", "description: x")
    )
    result = run("validate", str(inventory))
    assert result.code == 2
    assert "devices.leaf[4:3000]: more than 5,000 ports and NICs in all" in result.err
    assert sum("more than" in line for line in result.err.splitlines()) == 1


def test_names_expanded_in_all_are_capped(run, write, monkeypatch):
    monkeypatch.setattr(resolve, "MAX_EXPANDED_NAMES", 50)
    result = run("validate", str(INVENTORIES / "lab.yaml"))
    assert result.code == 2
    assert "ranges give more than 50 names in all (the limit of one inventory)" in result.err


def test_a_mesh_is_counted_before_it_is_built(run, write):
    mesh = (
        "  - mesh:\n"
        '      a: {devices: "x[1:1000]", ports: "p[1:1000]"}\n'
        '      b: {devices: "y[1:1000]", ports: "p[1:1000]"}\n'
        "    cable_m: 5\n"
    )
    inventory = write(LAB.replace("links:\n", "links:\n" + mesh, 1))
    started = time.perf_counter()
    result = run("validate", str(inventory))
    assert time.perf_counter() - started < 5
    assert result.code == 2
    assert "the mesh makes 1,000,000 links (at most 500,000)" in result.err


@pytest.mark.parametrize("special", ["/dev/zero", "/dev/null", "/dev/urandom"])
def test_a_device_file_is_not_read(run, special):
    if not os.path.exists(special):
        pytest.skip(f"no {special}")
    result = run("validate", special)
    assert result.code == 2
    assert f"{special}:1:1: file is not a regular file" in result.err


def test_a_fifo_is_refused_without_waiting(run, tmp_path):
    fifo = tmp_path / "inventory.yaml"
    os.mkfifo(fifo)
    finished = threading.Event()

    def unblock():  # if the read waited for a writer, give it one so the test ends
        if not finished.wait(5):
            with open(fifo, "w") as stream:
                stream.write("x")

    threading.Thread(target=unblock, daemon=True).start()
    started = time.perf_counter()
    result = run("validate", str(fifo))
    finished.set()
    assert time.perf_counter() - started < 4
    assert result.code == 2 and "is not a regular file" in result.err


def test_a_file_over_the_cap_is_refused(run, tmp_path, monkeypatch):
    from lossless.system import files

    monkeypatch.setattr(files, "MAX_INPUT_BYTES", 100)
    monkeypatch.setattr(files.read_bounded, "__defaults__", (100,))
    big = tmp_path / "big.yaml"
    big.write_text("fabric: {name: t}\n" + "# padding\n" * 20)
    result = run("validate", str(big))
    assert result.code == 2 and "larger than" in result.err


def test_a_config_that_is_a_device_is_not_read(run):
    result = run("lint", "--config", "/dev/zero", "--os", "eos")
    assert result.code == 2
    assert "/dev/zero:1:1: config is not a regular file" in result.err


# -- what render cannot produce, validate refuses -------------------------------------------


@pytest.mark.parametrize(
    ("roce", "message"),
    [
        ("cnp: {dscp: 48, priority: 0}", "CNP has priority 0, the default class"),
        ("cnp: {dscp: 48, priority: 3}", "RoCE data and CNP share priority 3"),
        ("cnp: {dscp: 26, priority: 6}", "RoCE data and CNP share DSCP 26"),
    ],
)
def test_roce_classes_that_collide_are_refused(run, write, tmp_path, roce, message):
    inventory = _lab_with(write, "cnp: {dscp: 48, priority: 6}", roce)
    result = run("render", str(inventory), "-o", str(tmp_path / "out"))
    assert result.code == 2
    assert f"{inventory}:12:7: fabric.policy.roce: {message}" in result.err
    assert "Traceback" not in result.err


def test_data_priority_zero_is_refused_where_it_is_written(run, write):
    inventory = _lab_with(
        write,
        "  spine:\n    policy:\n",
        "  spine:\n    policy:\n      roce: {data: {priority: 0}}\n",
    )
    result = run("validate", str(inventory))
    assert result.code == 2
    assert "roles.spine.policy.roce: RoCE data has priority 0" in result.err


def test_every_priority_pair_that_validates_renders():
    """The general cause: each (data, CNP) priority pair either fails validate at its line
    or renders on every OS."""
    document = load_yaml(INVENTORIES / "lab.yaml")
    roce = document.data["fabric"]["policy"]["roce"]
    for data, cnp in itertools.product(range(8), repeat=2):
        roce["data"]["priority"], roce["cnp"]["priority"] = data, cnp
        try:
            inventory = resolve.resolve_inventory(document)
        except InputError as error:
            assert data == cnp or 0 in (data, cnp), (data, cnp)
            assert [p.path for p in error.problems] == ["fabric.policy.roce"]
            continue
        assert data != cnp and 0 not in (data, cnp)
        assert len(render_fabric(plan_fabric(inventory))) == 6


# -- numbers that are not numbers on the command line ---------------------------------------


@pytest.mark.parametrize(
    "option",
    ["--gearbox-delay-ns", "--pipeline-latency-kib", "--mac-phy-delay-kib", "--peer-response-kib"],
)
@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "1e999"])
def test_headroom_refuses_non_finite_numbers(run, option, value):
    result = run("headroom", f"{option}={value}")
    assert result.code == 2
    assert "is not a finite number" in result.err
    assert "Traceback" not in result.err


def test_headroom_refuses_an_infinite_cable(run):
    result = run("headroom", "--cable", "9" * 400 + "m")
    assert result.code == 2 and "too large" in result.err


# -- the last line: a bug is exit 3, one line -----------------------------------------------


def test_an_unexpected_exception_is_one_line_and_exit_3(run, monkeypatch):
    from lossless.cli import plan as plan_commands

    def broken(_args):
        raise KeyError("default")

    monkeypatch.setattr(plan_commands, "plan_command", broken)
    result = run("plan", str(INVENTORIES / "lab.yaml"))
    assert result.code == 3
    assert result.err == "lossless: internal error: KeyError: 'default' (please report)\n"
