"""The NVUE fragment in the words of the Cumulus Linux release it is for (inventory
`os_version`): 5.15 renamed `qos roce enable on` to `qos roce state enabled` and every
`system forwarding ecmp-hash` field's on/off to enabled/disabled (Cumulus Linux 5.15 "New and
Changed NVUE Commands", tab On/Off); a release lossless has not checked is refused at its
inventory line; the offline diff speaks the running config's release."""

from __future__ import annotations

import dataclasses
import io
import re
from pathlib import Path

import pytest
from conftest import INVENTORIES
from ruamel.yaml import YAML

from lossless.errors import InputError
from lossless.inventory import load_inventory
from lossless.inventory.schema import inventory_validator
from lossless.planner.fabric import plan_fabric
from lossless.vendors.cumulus import diff as cumulus_diff
from lossless.vendors.cumulus import parse as cumulus_parse
from lossless.vendors.cumulus import render as cumulus_render
from lossless.vendors.cumulus.read import read_nvue
from lossless.vendors.rendering import render_device

LAB = (INVENTORIES / "lab.yaml").read_text()
CUMULUS = "    os: cumulus\n"
assert LAB.count(CUMULUS) == 1  # leaf2, the lab's Cumulus switch


def _lab(tmp_path: Path, version: str | None, name: str = "lab.yaml") -> Path:
    path = tmp_path / name
    line = "" if version is None else f"    os_version: {version}\n"
    path.write_text(LAB.replace(CUMULUS, CUMULUS + line))
    return path


def _render(path: Path, device: str = "leaf2") -> str:
    plan = plan_fabric(load_inventory(path))
    return render_device(plan.devices[device], plan)


def _set(text: str) -> dict:
    return YAML(typ="safe", pure=True).load(text)[0]["set"]


@pytest.fixture(scope="module")
def fragments(tmp_path_factory) -> dict[str | None, str]:
    folder = tmp_path_factory.mktemp("releases")
    versions = (None, '"5.9"', '"5.14"', '"5.14.1"', '"5.15"', '"5.15.0"', '"5.16"', '"5.17"')
    return {v: _render(_lab(folder, v, f"lab{i}.yaml")) for i, v in enumerate(versions)}


# -- render --------------------------------------------------------------------------------


def test_514_uses_enable_on_and_on_off(fragments):
    tree = _set(fragments['"5.14"'])
    assert tree["qos"]["roce"] == {"enable": "on", "mode": "lossless"}
    hashes = tree["system"]["forwarding"]["ecmp-hash"]
    assert hashes["source-port"] == "on" and hashes["ipv6-label"] == "off"
    assert set(hashes.values()) == {"on", "off"} and len(hashes) == 13
    assert "(Cumulus Linux 5.14)" in fragments['"5.14"'].splitlines()[0]


def test_515_uses_state_enabled_and_enabled_disabled(fragments):
    text = fragments['"5.15"']
    tree = _set(text)
    assert tree["qos"]["roce"] == {"mode": "lossless", "state": "enabled"}
    hashes = tree["system"]["forwarding"]["ecmp-hash"]
    assert hashes["source-port"] == "enabled" and hashes["ipv6-label"] == "disabled"
    assert set(hashes.values()) == {"enabled", "disabled"} and len(hashes) == 13
    assert "enable: on" not in text and not re.search(r": (on|off)$", text, re.MULTILINE)


def test_only_the_renamed_words_differ_between_514_and_515(fragments):
    old, new = _set(fragments['"5.14"']), _set(fragments['"5.15"'])
    assert old != new
    assert cumulus_render.in_words(old, cumulus_render.ENABLED_DISABLED) == new
    assert cumulus_render.in_words(new, cumulus_render.ON_OFF) == old
    # keys the template emits whose words did not change: the interface watchdog, ECN, RED, rx/tx
    for tree in (old, new):
        assert tree["interface"]["swp1"]["qos"]["pfc-watchdog"] == {"state": "enable"}
        ecn = tree["qos"]["congestion-control"]["default-global"]["traffic-class"]["3"]
        assert ecn["ecn"] == "enable" and ecn["red"] == "disable"
        assert {p["rx"] for p in tree["qos"]["pfc"].values()} == {"enable"}


def test_the_default_is_the_newest_release_and_a_patch_release_renders_as_its_minor(fragments):
    assert cumulus_render.RELEASES[-1] == "5.17"
    assert fragments['"5.15"'] == fragments['"5.15.0"']
    assert _set(fragments[None]) == _set(fragments['"5.17"']) == _set(fragments['"5.15"'])
    # without os_version: 5.15's words, named so (they are 5.16's and 5.17's too)
    assert fragments[None].splitlines()[0] == fragments['"5.15"'].splitlines()[0]
    assert fragments['"5.14.1"'] == fragments['"5.14"']
    assert re.sub(r"Linux 5\.9\b", "Linux 5.14", fragments['"5.9"']) == fragments['"5.14"']


def test_golden_is_rendered_for_the_newest_words(fragments):
    golden = (INVENTORIES.parent / "golden" / "lab" / "leaf2.yaml").read_text()
    assert golden == fragments[None]


@pytest.mark.parametrize("version", ['"5.16"', '"5.17"'])
def test_516_and_517_are_written_in_515_s_words(fragments, version):
    """Issue 39: 5.16 and 5.17 were refused, though their "New and Removed NVUE Commands"
    pages (CumulusNetworks/docs, cumulus-linux-516 and -517) change none of the keys lossless
    writes: the same tree as 5.15, under their own release in the header."""
    assert _set(fragments[version]) == _set(fragments['"5.15"'])
    number = version.strip('"')
    assert f"(Cumulus Linux {number}), rendered by lossless" in fragments[version]
    assert "# (the inventory's os_version):" in fragments[version]


def test_without_os_version_the_header_and_stderr_say_which_words(run, fragments, tmp_path):
    """Issue 39: with no os_version the fragment is in the newest release's words, which a
    5.14 switch rejects at `nv config patch`: the header and the render run say so."""
    header = fragments[None].splitlines()[:3]
    assert header[1] == "# It is written in the NVUE words of Cumulus Linux 5.15"
    assert header[2] == (
        "# (no os_version given: the words of 5.15 to 5.17, the newest lossless knows; 5.9 "
        "to 5.14 reject them, give their os_version):"
    )
    result = run("render", str(_lab(tmp_path, None)), "-o", str(tmp_path / "out"))
    assert result.code == 0, result.err
    assert (
        "note: leaf2: NVUE written in the words of Cumulus Linux 5.15 (no os_version given"
        in result.err
    )
    pinned = run("render", str(_lab(tmp_path, '"5.17"', "pinned.yaml")), "-o", str(tmp_path / "p"))
    assert pinned.code == 0 and "NVUE written in the words" not in pinned.err


@pytest.mark.parametrize("version", ['"5.14"', '"5.15"'])
def test_both_releases_read_back_to_the_plan(fragments, tmp_path, version):
    """The parser reads either release's words (parse.py: `enable`/`state`, on/off and
    enabled/disabled), so the round trip holds for both."""
    plan = plan_fabric(load_inventory(_lab(tmp_path, version)))
    device = plan.devices["leaf2"]
    parsed = cumulus_parse.parse(fragments[version], "leaf2.yaml", "leaf2", device)
    in_nvue_terms = cumulus_render.as_rendered(device)  # detection in whole polls
    assert cumulus_render.expressed(parsed) == cumulus_render.expressed(in_nvue_terms)


# -- refused releases ------------------------------------------------------------------------


def _only_error(run, path: Path) -> str:
    result = run("render", str(path), "-o", str(path.parent / "out"))
    assert result.code == 2, result.out + result.err
    assert "Traceback" not in result.err
    lines = [line for line in result.err.splitlines() if not re.fullmatch(r"\d+ problems?", line)]
    assert len(lines) == 1, result.err
    return lines[0]


def _line_of(path: Path, text: str) -> int:
    return next(i for i, line in enumerate(path.read_text().splitlines(), 1) if text in line)


@pytest.mark.parametrize("version", ['"5.8"', '"5.18"', '"6.0"', '"4.4.3"', '"latest"', '"5.15x"'])
def test_a_release_lossless_has_not_checked_is_refused_at_its_line(run, tmp_path, version):
    path = _lab(tmp_path, version)
    line = _only_error(run, path)
    where = f"{path}:{_line_of(path, 'os_version')}:17: devices.leaf2.os_version: "
    assert line.startswith(where), line
    assert "Cumulus Linux 5.9 to 5.17 only" in line
    assert not (tmp_path / "out").exists()  # nothing rendered


def test_an_unquoted_release_is_refused_with_the_reason(run, tmp_path):
    path = _lab(tmp_path, "5.10")  # YAML: the number 5.1
    line = _only_error(run, path)
    assert line.startswith(f"{path}:{_line_of(path, 'os_version')}:17: devices.leaf2.os_version")
    assert "expected text, got 5.1 (write it in quotes" in line


def test_every_release_the_renderer_knows_is_valid_and_no_other(tmp_path):
    """The schema's Cumulus pattern (the refusal at the inventory line) and the renderer's
    releases say the same thing."""
    validator = inventory_validator()
    device = {"role": "leaf", "os": "cumulus", "asic": "spectrum-4"}
    for version in [*cumulus_render.RELEASES, "5.12.1", "5.8", "5.18", "6.0", "5.9.1.1", "v5.15"]:
        inventory = {"fabric": {"name": "t"}, "devices": {"s": {**device, "os_version": version}}}
        valid = not list(validator.iter_errors(inventory))
        assert valid == (cumulus_render.release(version) is not None), version


def test_another_os_takes_any_release_and_renders_the_same(run, tmp_path):
    text = LAB.replace("    os: sonic\n", '    os: sonic\n    os_version: "202405"\n', 1)
    (tmp_path / "lab.yaml").write_text(text)
    plan = plan_fabric(load_inventory(tmp_path / "lab.yaml"))
    base = plan_fabric(load_inventory(INVENTORIES / "lab.yaml"))
    assert plan.devices["leaf1"].os_version == "202405"
    assert render_device(plan.devices["leaf1"], plan) == render_device(base.devices["leaf1"], base)


def test_a_plan_made_another_way_with_an_unknown_release_is_refused_at_the_device():
    plan = plan_fabric(load_inventory(INVENTORIES / "lab.yaml"))
    device = dataclasses.replace(plan.devices["leaf2"], os_version="5.8")
    with pytest.raises(InputError) as caught:
        render_device(device, plan)
    (problem,) = caught.value.problems
    assert f"{problem.file}:{problem.line}:{problem.column}" == device.source
    assert problem.path == "devices.leaf2.os_version" and "5.9 to 5.17 only" in problem.message


# -- diff: the running config's release --------------------------------------------------------


def _with_header(text: str, version: str) -> str:
    header = "- header:\n    model: SN4700\n    rev-id: 1.0\n"
    return f"{header}    version: Cumulus Linux {version}\n{text}"


def _dump(tree: dict) -> str:
    yaml = YAML(typ="safe", pure=True)
    yaml.default_flow_style = False
    stream = io.StringIO()
    yaml.dump([{"set": tree}], stream)
    return stream.getvalue()


def test_a_running_config_of_the_other_release_with_the_same_meaning_needs_nothing(fragments):
    for running, intended in (('"5.14"', '"5.15"'), ('"5.15"', '"5.14"')):
        version = running.strip('"') + ".0"
        running_text = _with_header(fragments[running], version)
        assert cumulus_diff.diff(running_text, fragments[intended]) == []


@pytest.mark.parametrize(
    ("version", "on", "switch"),
    [("5.11.0", "on", "enable"), ("5.14.2", "on", "enable"), ("5.15.0", "enabled", "state")],
)
def test_commands_use_the_words_of_the_running_header_s_release(fragments, version, on, switch):
    """The fragment is rendered for 5.15 (the default); the commands are for the switch."""
    tree = _set(fragments['"5.14"'])
    tree["system"]["forwarding"]["ecmp-hash"]["source-port"] = "off"
    del tree["qos"]["roce"]
    changes = cumulus_diff.diff(_with_header(_dump(tree), version), fragments[None])
    assert changes == [
        *sorted([f"nv set qos roce {switch} {on}", "nv set qos roce mode lossless"]),
        f"nv set system forwarding ecmp-hash source-port {on}",
    ]


def test_without_a_header_the_running_config_s_own_words_decide(fragments):
    tree = _set(fragments['"5.14"'])
    tree["system"]["forwarding"]["ecmp-hash"]["ipv6-label"] = "on"
    commands = [
        "nv set qos roce enable on",
        "nv set qos roce mode lossless",
        *(
            f"nv set system forwarding ecmp-hash {field} {value}"
            for field, value in tree["system"]["forwarding"]["ecmp-hash"].items()
        ),
    ]
    running = "\n".join(commands) + "\n"
    changes = cumulus_diff.diff(running, fragments[None])
    assert "nv set system forwarding ecmp-hash ipv6-label off" in changes
    assert not any("enabled" in change or "disabled" in change for change in changes)


def test_a_running_release_lossless_cannot_write_for_is_bad_input_at_the_header(fragments):
    running = _with_header(fragments['"5.14"'], "5.8.1")
    with pytest.raises(InputError) as caught:
        cumulus_diff.diff(running, fragments[None], "backups/leaf2.yaml")
    (problem,) = caught.value.problems
    assert (problem.file, problem.line, problem.column) == ("backups/leaf2.yaml", 4, 14)
    assert "Cumulus Linux 5.8.1: lossless writes NVUE for Cumulus Linux 5.9 to 5.17" in str(problem)


def test_the_diff_reads_the_header_of_a_full_startup_yaml():
    running = INVENTORIES.parent / "tests" / "configs" / "cumulus" / "02-startup-full.yaml"
    text = running.read_text()
    config = read_nvue(text, str(running))
    assert cumulus_diff.header_release(text, str(running)) is cumulus_render.ON_OFF  # 5.11.0
    assert cumulus_diff.running_words(config, text, config) is cumulus_render.ON_OFF


def test_a_number_that_quoting_would_not_fix_gets_both_reasons_at_once(run, tmp_path):
    """`speed: 400` was told to write it in quotes, then, quoted, that its unit is missing:
    one message now says both."""
    path = tmp_path / "fabric.yaml"
    path.write_text(
        "fabric: {name: f}\n"
        "devices:\n"
        "  leaf1: {role: leaf, os: eos, asic: trident-3, ports: {Ethernet1/1: {speed: 400}}}\n"
    )
    result = run("validate", str(path))
    assert result.code == 2
    line = result.err.splitlines()[0]
    assert line.startswith(
        f"{path}:3:",
    ), line
    assert "devices.leaf1.ports.Ethernet1/1.speed: expected text" in line
    assert "'400' in quotes would not be valid either" in line
    assert "Line rate with a unit" in line and "write it in quotes" not in line
