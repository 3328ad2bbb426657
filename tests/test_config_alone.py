"""A config linted alone (issue 25): judged for the hosts' default DSCPs (RoCE 26, CNP 48),
for the hardware its own header names (or --asic/--platform), and, where the hardware is
unknown, against every supported switch of its OS, as warnings that say so."""

from __future__ import annotations

import json

import pytest
from conftest import REPO

from lossless.asics import catalogue
from lossless.asics.models import identify_model
from lossless.planner.pfc_trigger import config_trigger, loosest_trigger

CONFIGS = REPO / "tests" / "configs"
AVD = CONFIGS / "eos" / "avd-leaf-clean.cfg"
SONIC_TH3 = CONFIGS / "sonic" / "z9332f-traditional-legacy-keys.json"


def _lines(result, rule_id):
    return [line for line in result.out.splitlines() if f" {rule_id} " in line]


# Model names as each OS prints them -> the catalogue ASIC (vendor datasheets, platforms.yaml)
@pytest.mark.parametrize(
    ("model", "asic"),
    [
        ("DCS-7060DX5-32", "tomahawk-4"),  # EOS `! device:` header
        ("DCS-7060X6-64PE", "tomahawk-5"),
        ("DCS-7050CX3-32S", "trident-3"),
        ("SN5600", "spectrum-4"),  # NVUE header
        ("MSN2700", "spectrum-1"),
        ("Mellanox-SN5600-V256", "spectrum-4"),  # SONiC hwsku
        ("x86_64-nvidia_sn5640-r0", "spectrum-5"),  # SONiC platform
        ("DellEMC-Z9332f-O32", "tomahawk-3"),
        ("QFX5220-32CD", "tomahawk-3"),
        ("QFX5240-64OD", "tomahawk-5"),
        ("N9K-C9332D-GX2B", "cisco-cloud-scale-gx"),
    ],
)
def test_a_model_name_is_its_asic(model, asic):
    match = identify_model(model)
    assert match is not None and match.asic == asic


@pytest.mark.parametrize("model", ["DCS-7280CR3-32P4", "Force10-S6000", "", "x" * 200])
def test_a_model_the_catalogue_cannot_place_is_not_guessed(model):
    assert identify_model(model) is None


def test_the_hosts_default_dscps_are_assumed_and_said(run, tmp_path):
    # RoCE DSCP 26 maps to TC 3, PFC (and ECN) on priority 4: the classic defect
    config = tmp_path / "leaf.cfg"
    text = AVD.read_text().replace("priority-flow-control priority 3 no-drop", "priority 4 x")
    config.write_text(
        text.replace("priority 4 x", "priority-flow-control priority 4 no-drop").replace(
            "tx-queue 3\n      no priority\n      bandwidth percent 50\n      random-detect",
            "tx-queue 4\n      no priority\n      bandwidth percent 50\n      random-detect",
        )
    )
    result = run("lint", "--config", str(config), "--os", "eos")
    assert result.code == 1, result.out + result.err
    (finding,) = _lines(result, "LL124")
    assert "RoCE DSCP 26 (assumed, the hosts' default; --roce-dscp sets it) maps to TC 3" in (
        finding
    )
    assert "PFC is on priority 4" in finding
    # at the DSCP map line that puts 26 in TC 3
    line = int(finding.split(":")[1])
    assert text.splitlines()[line - 1] == "qos map dscp 26 to traffic-class 3"
    assert "note: judged for RoCE DSCP 26 and CNP DSCP 48, the hosts' defaults" in result.err
    # told which DSCPs the hosts send, nothing is assumed and nothing said
    told = run("lint", "--config", str(config), "--os", "eos", "--roce-dscp", "34")
    assert "(assumed" not in told.out and "RoCE DSCP 34" not in told.err
    assert "CNP DSCP 48, the hosts' default" in told.err


def test_cnp_beside_roce_in_one_class_is_found_without_flags(run, tmp_path):
    config = tmp_path / "leaf.cfg"
    config.write_text(
        AVD.read_text().replace(
            "qos map dscp 48 to traffic-class 6", "qos map dscp 48 to traffic-class 3"
        )
    )
    result = run("lint", "--config", str(config), "--os", "eos")
    assert result.code == 1
    assert any("CNP DSCP 48 (assumed" in line for line in _lines(result, "LL121"))


def test_the_header_names_the_hardware_and_ecn_is_judged_against_its_trigger(run, tmp_path):
    config = tmp_path / "leaf.cfg"
    config.write_text(
        AVD.read_text().replace("maximum-threshold 1500 kbytes", "maximum-threshold 48 mbytes")
    )
    result = run("lint", "--config", str(config), "--os", "eos")
    assert "note: ASIC tomahawk-4: the model DCS-7060DX5-32" in result.err
    (finding,) = _lines(result, "LL112")
    assert "warning LL112" in finding and "ECN max 48000000 B is above" in finding
    assert "at n = 32 PGs" in finding  # the 7060DX5-32's 32 ports, one lossless PG each
    # the same config whose header names no model: judged against every EOS switch
    unknown = tmp_path / "unknown.cfg"
    unknown.write_text(config.read_text().replace("(DCS-7060DX5-32, ", "(DCS-7999, "))
    result = run("lint", "--config", str(unknown), "--os", "eos")
    (finding,) = _lines(result, "LL112")
    assert "on any supported EOS switch" in finding and "The hardware is not known" in finding
    # it names a model (issue 36: "does not name its hardware" was not true of the file)
    assert "note: the config names DCS-7999 at " in result.err
    assert "a model the catalogue cannot place" in result.err
    # told the hardware, it is judged exactly
    told = run("lint", "--config", str(unknown), "--os", "eos", "--platform", "DCS-7060DX5-32")
    assert "on any supported" not in told.out and len(_lines(told, "LL112")) == 1


def test_a_kmin_no_switch_can_honour_is_an_error_on_known_hardware(run, tmp_path):
    config = tmp_path / "leaf.cfg"
    config.write_text(
        AVD.read_text()
        .replace("minimum-threshold 150 kbytes", "minimum-threshold 2 mbytes")
        .replace("maximum-threshold 1500 kbytes", "maximum-threshold 3 mbytes")
    )
    assert run("lint", "--config", str(config), "--os", "eos").code == 1
    blind = tmp_path / "blind.cfg"
    blind.write_text(config.read_text().replace("(DCS-7060DX5-32, ", "(DCS-7999, "))
    result = run("lint", "--config", str(blind), "--os", "eos")
    assert result.code == 0  # a warning: the hardware is assumed
    (finding,) = _lines(result, "LL112")
    assert "ECN min 2000000 B is at or above" in finding


def _sonic_5m_profile_on_300m(tmp_path, hwsku: str | None):
    data = json.loads(SONIC_TH3.read_text())
    metadata = data["DEVICE_METADATA"]["localhost"]
    metadata.pop("hwsku")
    metadata["platform"] = "x86_64-unknown-r0"
    if hwsku:
        metadata["hwsku"] = hwsku
    data["CABLE_LENGTH"]["AZURE"] = dict.fromkeys(data["CABLE_LENGTH"]["AZURE"], "300m")
    profile = data["BUFFER_PROFILE"].pop("pg_lossless_400000_40m_profile")
    profile["xoff"] = "120000"  # what a 5 m profile holds, far short of 300 m
    data["BUFFER_PROFILE"]["pg_lossless_400000_5m_profile"] = profile
    text = json.dumps(data, indent=4).replace("400000_40m_profile", "400000_5m_profile")
    path = tmp_path / "leaf.json"
    path.write_text(text)
    return path


def test_headroom_shorter_than_the_configured_cable(run, tmp_path):
    known = run(
        "lint",
        "--config",
        str(_sonic_5m_profile_on_300m(tmp_path, "DellEMC-Z9332f-O32")),
        "--os",
        "sonic",
    )
    assert any("error LL101" in line and "300 m" in line for line in _lines(known, "LL101"))
    blind = run("lint", "--config", str(_sonic_5m_profile_on_300m(tmp_path, None)), "--os", "sonic")
    findings = _lines(blind, "LL101")
    assert findings and all("warning LL101" in line for line in findings)
    assert all("any supported SONiC switch needs for a 400G link of 300 m" in f for f in findings)
    told = run(
        "lint",
        "--config",
        str(_sonic_5m_profile_on_300m(tmp_path, None)),
        "--os",
        "sonic",
        "--asic",
        "tomahawk-3",
    )
    assert told.code == 1 and any("error LL101" in line for line in _lines(told, "LL101"))


@pytest.mark.parametrize(
    ("flags", "words"),
    [
        (["--asic", "tomahawk4"], 'did you mean "tomahawk-4"'),
        (["--platform", "SN9999"], "cannot place the model"),
        (["--asic", "spectrum-4", "--platform", "DCS-7060DX5-32"], "is tomahawk-4, not"),
    ],
)
def test_hardware_flags_are_checked(run, flags, words):
    result = run("lint", "--config", str(AVD), "--os", "eos", *flags)
    assert result.code == 2 and words in result.err


def test_hardware_flags_are_for_a_config_alone(run):
    result = run("lint", str(REPO / "inventories" / "lab.yaml"), "--asic", "spectrum-4")
    assert result.code == 2 and "--config" in result.err


def test_the_config_trigger_is_the_published_formula():
    """T = alpha*B/(1 + n*alpha), B the SKU's pool less its headroom pool per partition, n the
    platform's ports x PGs (docs/reference/physics.md 3.4), from the catalogue's constants."""
    asic = catalogue()["spectrum-4"]
    trigger = config_trigger("spectrum-4", "SN5600", 400_000, 1, None)
    assert trigger is not None
    alpha = 2.0**asic.lossless_dynamic_th
    shared = (asic.ingress_pool_bytes - asic.ingress_pool_xoff_bytes) / asic.buffer_partitions
    n = 128  # SN5600: 64 cages of 800G, two 400G ports each
    assert trigger.plan.sharing_pgs == n
    assert trigger.plan.trigger_bytes == int(alpha * shared / (1 + n * alpha))


def test_the_loosest_trigger_is_the_highest_of_the_os_switches():
    nvidia = [a for a in catalogue().values() if a.vendor == "nvidia" and 400_000 in a.speeds_mbps]
    triggers = [config_trigger(a.name, None, 400_000, 1, None) for a in nvidia]
    highest = max(t.plan.queue_trigger_bytes for t in triggers if t)
    loosest = loosest_trigger(400_000, 1, ("nvidia",))
    assert loosest is not None and loosest[0] == highest


def test_junos_ecn_is_read_on_the_queue_that_marks_it():
    """A scheduler that marks ECN on queue 4 marks it, whichever priority its class pauses:
    the config with PFC on the wrong priority is one cause (LL124), not also a missing ECN."""
    from lossless.vendors.untrusted import parse_config_file

    device = parse_config_file("junos", str(REPO / "tests/data/meaning/junos-roce-lossy.txt"), "x")
    assert all(4 in {e.queue for e in p.ecn} for p in device.ports.values() if p.lossless)


def test_nvue_headroom_a_profile_states_is_read_and_the_rest_left_to_the_switch():
    from lossless.vendors.untrusted import parse_config_file

    device = parse_config_file(
        "cumulus", str(REPO / "tests/data/meaning/nvue-headroom-short.yaml"), "x"
    )
    stated = [p for p in device.ports.values() if p.headroom and not p.headroom[0].by_switch]
    assert {(h.xoff, h.xon, h.size) for p in stated for h in p.headroom} == {(65536, 19456, 131072)}
    derived = [p for p in device.ports.values() if p.lossless and p not in stated]
    assert derived and all(h.by_switch for p in derived for h in p.headroom)


@pytest.mark.parametrize(
    ("flags", "code", "severity"),
    [
        ((), 1, "error"),  # hardware unknown: held to the watchdog most platforms have
        (("--platform", "QFX5240-64OD"), 1, "error"),  # it has one: the config lacks it
        (("--platform", "QFX5220-32CD"), 0, "warning"),  # no watchdog on it: nothing to add
    ],
)
def test_a_missing_watchdog_is_an_error_where_the_switch_has_one(run, flags, code, severity):
    path = CONFIGS / "junos" / "jvd-leaf-no-watchdog.conf"
    result = run("lint", "--config", str(path), "--os", "junos", *flags)
    assert result.code == code
    (finding,) = _lines(result, "LL114")
    assert f"{severity} LL114" in finding
