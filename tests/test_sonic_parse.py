"""The SONiC parser on configs we did not write: wrong shapes and other OSes' files are bad
input at their line (exit 2), SONiC's defaults fill what a config leaves out, only bound maps
count, profile NULL means headroom sized by the switch, and the ASIC comes from
DEVICE_METADATA."""

from __future__ import annotations

import copy
import json

import pytest
from conftest import INVENTORIES, REPO

from lossless.errors import InputError
from lossless.inventory import load_inventory
from lossless.plan import HEADROOM_BY_SWITCH
from lossless.planner.fabric import plan_fabric
from lossless.vendors.rendering import render_device
from lossless.vendors.sonic import parse as sonic_parse
from lossless.vendors.sonic import render as sonic_render

CORPUS = REPO / "tests" / "configs" / "sonic"
GOLDEN = REPO / "golden" / "lab"
LAB = plan_fabric(load_inventory(INVENTORIES / "lab.yaml"))
VARIANTS = plan_fabric(load_inventory(CORPUS / "variants.yaml"))
DYNAMIC = json.loads((CORPUS / "sn5600-dynamic.json").read_text())


def _parse(db: dict, hint=None, name="leaf1"):
    return sonic_parse.parse(json.dumps(db, indent=4), "running.json", name, hint)


# -- bad input -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "where", "message"),
    [
        ('{"PORT": {"Ethernet0": 5}}', "1:11: PORT.Ethernet0", "expected an object of fields"),
        ('{\n "PORT": {\n  "Ethernet0": {\n   "mtu": null\n  }\n }\n}', "4:4:", "not null"),
        ('{"PORT": [1]}', "1:2: PORT:", "expected an object of PORT entries, not a list"),
        ('{"PORT": {"Ethernet0": {"lanes": {"a": "1"}}}}', "1:25: PORT.Ethernet0.lanes", "object"),
        ('{"PORT": {"Ethernet0": {"mtu": "abc"}}}', "1:25: PORT.Ethernet0.mtu", "whole number"),
        ('{"PORT": {"Ethernet0": {"speed": 1e999}}}', "1:25:", "not a number"),
        (
            '{"QUEUE": {"Ethernet0|x": {"scheduler": "s"}}, "PORT": {"Ethernet0": {}}, '
            '"PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "3"}}}',
            "1:12: QUEUE.Ethernet0|x",
            "3-4",
        ),
        ('{"CABLE_LENGTH": {"A": {"E0": "5"}}, "PORT": {"E0": {}}}', "1:25: CABLE_LENGTH.A", "5m"),
        ("[1, 2]", "1:1:", "this is not a SONiC config_db"),
        ('{"name": "lab", "devices": {}}', "1:1:", "this is not a SONiC config_db"),
        ('{"PORT": {"Ethernet0": {"mtu": "9100",}}}', "1:39:", "JSON:"),
    ],
)
def test_wrong_shapes_are_bad_input_at_their_line(run, write, text, where, message):
    path = write(text, "db.json")
    result = run("lint", "--config", str(path), "--os", "sonic")
    assert result.code == 2
    assert "Traceback" not in result.err
    [problem] = [line for line in result.err.splitlines() if line.startswith(str(path))]
    assert problem.startswith(f"{path}:{where}"), problem
    assert message in problem


def test_deep_nesting_is_refused_before_json_recursion(run, write):
    path = write('{"PORT": {"E": {"mtu": ' + "[" * 100_000 + "]" * 100_000 + "}}}", "deep.json")
    result = run("lint", "--config", str(path), "--os", "sonic")
    assert result.code == 2
    assert f"{path}:1:25: PORT.E.mtu: nested deeper than CONFIG_DB's" in result.err


def test_huge_number_is_bad_input(run, write):
    path = write('{"PORT": {"E": {"speed": ' + "9" * 5000 + "}}}", "huge.json")
    result = run("lint", "--config", str(path), "--os", "sonic")
    assert result.code == 2 and f"{path}:1:1: JSON:" in result.err


@pytest.mark.parametrize("name", ["leaf2.yaml", "leaf3.cfg", "leaf4.conf", "spine1.cfg"])
def test_another_os_config_is_not_a_sonic_config_db(run, name):
    result = run("lint", "--config", str(GOLDEN / name), "--os", "sonic")
    assert result.code == 2
    assert f"{GOLDEN / name}:1:1: this is not a SONiC config_db" in result.err
    assert " LL" not in result.out  # no rule findings


# -- SONiC's defaults and what is bound -------------------------------------------------------


def test_unlisted_dscps_go_to_tc_0_and_the_global_map_applies_to_unbound_ports():
    """sn5600-dynamic.json lists only 26->3 and 48->6 in a map bound per port and globally."""
    device = sonic_parse.parse_file(str(CORPUS / "sn5600-dynamic.json"), "x")
    assert {d for d, tc in device.maps.dscp_to_tc.items() if tc != 0} == {26, 48}
    db = copy.deepcopy(DYNAMIC)
    for entry in db["PORT_QOS_MAP"].values():
        entry.pop("dscp_to_tc_map", None)
    db["PORT_QOS_MAP"]["global"] = {"dscp_to_tc_map": "ROCE_DSCP"}
    assert _parse(db).maps.dscp_to_tc == device.maps.dscp_to_tc  # switch-level map
    db["PORT_QOS_MAP"].pop("global")
    assert set(_parse(db).maps.dscp_to_tc.values()) == {0}  # no map bound: port default TC 0


def test_a_map_that_is_defined_but_not_bound_does_not_count():
    db = copy.deepcopy(DYNAMIC)
    db["TC_TO_QUEUE_MAP"]["SPARE"] = {str(tc): "0" for tc in range(8)}
    assert _parse(db).maps.tc_to_queue == {tc: tc for tc in range(8)}
    for entry in db["PORT_QOS_MAP"].values():
        entry.pop("tc_to_queue_map", None)
        entry.pop("tc_to_pg_map", None)
    parsed = _parse(db)
    assert parsed.maps.tc_to_queue == {tc: tc for tc in range(8)}  # SAI default: identity
    assert set(parsed.maps.tc_to_pg.values()) == {0}  # no TC->PG map: every TC in PG 0


def test_missing_mtu_poll_interval_and_watchdog_enable_take_sonic_defaults():
    db = copy.deepcopy(DYNAMIC)
    del db["PORT"]["Ethernet0"]["mtu"]
    del db["PFC_WD"]["GLOBAL"]
    del db["PORT_QOS_MAP"]["Ethernet4"]["pfcwd_sw_enable"]
    device = _parse(db)
    assert device.ports["Ethernet0"].mtu == 9100
    assert device.ports["Ethernet0"].watchdog.poll_ms == 100
    assert device.watchdog.poll_ms == 100
    assert not device.ports["Ethernet4"].watchdog.enabled  # pfcwdorch watches only those TCs
    assert device.ports["Ethernet0"].watchdog.enabled


def test_the_hosts_dscps_and_only_they_land_in_the_lossless_and_cnp_classes():
    """Every DSCP value, read through the parser with SONiC's defaults: our render (all 64
    listed), a running config listing only 26 and 48, and SONiC's AZURE map (3->3, 4->4,
    5->2, 8->0, 46->5, 48->6, the rest 1; qos_config.j2), which puts DSCP 3, not 26, in the
    lossless class."""
    planned = LAB.devices["leaf1"]

    def classes(device):
        lossless = {d for d, tc in device.maps.dscp_to_tc.items() if tc == planned.roce_priority}
        cnp = {d for d, tc in device.maps.dscp_to_tc.items() if tc == planned.cnp_priority}
        return lossless, cnp

    ours = sonic_parse.parse(render_device(planned, LAB), "leaf1.json", "leaf1", planned)
    running = sonic_parse.parse_file(str(CORPUS / "sn5600-dynamic.json"), "leaf1", planned)
    assert classes(ours) == classes(running) == ({26}, {48}) == classes(planned)
    assert (ours.roce_priority, ours.cnp_priority) == (3, 6)
    azure = copy.deepcopy(DYNAMIC)
    azure["DSCP_TO_TC_MAP"]["ROCE_DSCP"] = {str(d): "1" for d in range(64)} | {
        "3": "3",
        "4": "4",
        "5": "2",
        "8": "0",
        "46": "5",
        "48": "6",
    }
    parsed = _parse(azure, planned)
    assert classes(parsed) == ({3}, {48})
    assert parsed.roce_priority == 1  # DSCP 26 lands in lossy TC 1


def test_null_profile_is_headroom_sized_by_the_switch_only_on_the_dynamic_model():
    device = sonic_parse.parse_file(str(CORPUS / "sn5600-dynamic.json"), "x")
    [headroom] = device.ports["Ethernet0"].headroom
    assert headroom.model == HEADROOM_BY_SWITCH and headroom.priority_group == 3
    traditional = copy.deepcopy(DYNAMIC)
    traditional["DEVICE_METADATA"]["localhost"]["buffer_model"] = "traditional"
    assert _parse(traditional).ports["Ethernet0"].headroom == []  # NULL: no headroom at all


def test_legacy_keys_and_references_are_read():
    """Comma-joined ports, index ranges and "[TABLE|name]" references (older sonic-cfggen)."""
    device = sonic_parse.parse_file(str(CORPUS / "z9332f-traditional-legacy-keys.json"), "x")
    for port in device.ports.values():
        assert port.pfc_priorities == [3, 4]
        assert [(h.priority_group, h.xoff) for h in port.headroom] == [(3, 297180), (4, 297180)]
        assert [e.queue for e in port.ecn] == [3, 4]
    assert [(q.queue, q.scheduler) for q in device.queues][-1] == (6, "strict")


def test_broadcom_profile_reads_in_the_plans_terms():
    """size 2540 is the guaranteed minimum; the headroom is xoff, the resume gap xon_offset."""
    device = sonic_parse.parse_file(str(CORPUS / "z9332f-traditional-legacy-keys.json"), "x")
    assert device.asic == "tomahawk-3"
    assert device.headroom_settings.shared_headroom_pool  # ingress_lossless_pool xoff
    [h3, _] = device.ports["Ethernet0"].headroom
    assert (h3.xon, h3.xoff, h3.size) == (2540, 297180, 2540)


@pytest.mark.parametrize(
    ("platform", "hwsku", "asic"),
    [
        ("x86_64-nvidia_sn5600-r0", "Mellanox-SN5600-V256", "spectrum-4"),
        (None, "ACS-SN5600", "spectrum-4"),
        ("x86_64-mlnx_msn2700-r0", "Mellanox-SN2700", "spectrum-1"),
        ("x86_64-mlnx_msn3800-r0", None, "spectrum-2"),
        ("x86_64-mlnx_msn4700-r0", None, "spectrum-3"),
        ("x86_64-nvidia_sn5640-r0", None, "spectrum-5"),
        ("x86_64-dellemc_z9332f_d1508-r0", "DellEMC-Z9332f-O32", "tomahawk-3"),
        ("x86_64-arista_7060x6_64pe", "Arista-7060X6-64PE-O128S2", "tomahawk-5"),
        ("x86_64-kvm_x86_64-r0", "Force10-S6000", "unknown"),
    ],
)
def test_asic_from_device_metadata(platform, hwsku, asic):
    db = copy.deepcopy(DYNAMIC)
    metadata = db["DEVICE_METADATA"]["localhost"]
    metadata.pop("platform"), metadata.pop("hwsku")
    if platform:
        metadata["platform"] = platform
    if hwsku:
        metadata["hwsku"] = hwsku
    assert _parse(db).asic == asic


# -- round trip ------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(VARIANTS.devices))
def test_round_trip_of_every_buffer_form(name):
    device = VARIANTS.devices[name]
    parsed = sonic_parse.parse(render_device(device, VARIANTS), f"{name}.json", name, device)
    assert sonic_render.expressed(parsed) == sonic_render.expressed(device)
    if name == "spine1":
        assert all(h.model == HEADROOM_BY_SWITCH for p in parsed.ports.values() for h in p.headroom)


def test_round_trip_notices_a_changed_override_profile():
    device = VARIANTS.devices["leaf-override"]
    db = json.loads(render_device(device, VARIANTS))
    [profile] = db["BUFFER_PROFILE"].values()
    profile["xoff"] = str(int(profile["xoff"]) - 1024)
    parsed = _parse(db, device, "leaf-override")
    assert sonic_render.expressed(parsed) != sonic_render.expressed(device)


def test_bad_input_raises_input_error_not_key_error():
    with pytest.raises(InputError):
        sonic_parse.parse('{"PORT": {"Ethernet0": {"lanes": "0,x"}}}', "f.json", "f")
