"""lossless.vendors.sonic.state: SONiC's Redis dumps (sonic-db-dump) read into a DeviceState,
from the lab recordings in tests/data/verify/lab (README.md there says what each holds)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from conftest import INVENTORIES
from napalm.base.mock import MockDriver
from verify_recordings import VERIFY_DATA, mock_folder

from lossless.inventory import load_inventory
from lossless.observed import DeviceState, Output
from lossless.plan import DevicePlan
from lossless.planner.fabric import plan_fabric
from lossless.vendors.registry import vendor_for
from lossless.vendors.sonic import state

LAB = VERIFY_DATA / "lab"
LEAF1 = ("Ethernet0", "Ethernet4", "Ethernet248", "Ethernet252")
SPINE2 = ("Ethernet0", "Ethernet4", "Ethernet8", "Ethernet12")
READ_ERRORS = (ValueError, KeyError, TypeError)


@pytest.fixture(scope="module")
def plan():
    return plan_fabric(load_inventory(INVENTORIES / "lab.yaml"), hosts=False)


def outputs(device: str, *folders: str) -> dict[str, Output]:
    """The device's recordings, later folders (a fault's) replacing earlier ones' files."""
    found = {}
    for folder in folders:
        for stem in state.COMMANDS:
            path = LAB / folder / device / f"{stem}.json"
            if path.exists():
                found[stem] = Output(path.read_text(), str(path))
    return found


def read(plan, device: str, *folders: str) -> DeviceState:
    return state.read(outputs(device, *folders), plan.devices[device])


def edited(output: Output, key: str, field: str, value: str | None) -> Output:
    """The dump with one field of one hash set (or removed, for None)."""
    data = json.loads(output.text)
    fields = data[key]["value"]
    if value is None:
        del fields[field]
    else:
        fields[field] = value
    return Output(json.dumps(data, indent=2, sort_keys=True), output.source)


def test_the_reader_is_the_sonic_vendors(plan):
    assert vendor_for("sonic").state_reader == "lossless.vendors.sonic.state"
    assert state.commands(plan.devices["leaf1"]) == state.COMMANDS
    assert all(c.startswith("sonic-db-dump -n ") for c in state.COMMANDS.values())


def test_leaf1_after_reads_every_planned_port(plan):
    leaf1 = read(plan, "leaf1", "after")
    assert (leaf1.device, leaf1.os, leaf1.unread) == ("leaf1", "sonic", [])
    assert leaf1.watchdog_enabled is None  # SONiC's watchdog is per port
    # Ethernet8 is in every dump but not in the plan
    assert tuple(leaf1.ports) == LEAF1
    for name, port in leaf1.ports.items():
        assert port.oper_up is True, name
        assert port.pfc_enabled == (3,), name
        assert port.link_changes == 1, name  # flap_count 1, as portsorch counts
        assert sorted(port.queues) == list(range(8)), name
        assert port.queues[3].dropped_packets == 0, name
        assert port.queues[3].ecn_marked_packets > 0, name
        assert set(port.watchdog) == {3}, name  # pfcwd watches the lossless queue only
        assert vars(port.watchdog[3]) == {
            "enabled": True,
            "storms_detected": 0,
            "storms_restored": 0,
            "stormed": False,
        }
        assert port.ingress_drops == dict.fromkeys(range(8), 0), name
    first = leaf1.ports["Ethernet0"]
    assert first.pfc_rx == {0: 0, 1: 0, 2: 0, 3: 19_490, 4: 0, 5: 0, 6: 0, 7: 0}
    assert first.pfc_tx[3] == 43_223
    assert vars(first.queues[3]) == {
        "tx_packets": 4_963_575_305,
        "dropped_packets": 0,
        "ecn_marked_packets": 2_161_978,
    }
    assert (first.queues[0].tx_packets, first.queues[0].dropped_packets) == (12_922_741, 19)
    assert first.queues[6].tx_packets == 4_214_476
    path = LAB / "after" / "leaf1" / "port_table.json"
    line = path.read_text().splitlines().index('  "PORT_TABLE:Ethernet0": {') + 1
    assert first.source == f"{path}:{line}:3"


@pytest.mark.parametrize(("device", "ports"), [("leaf1", LEAF1), ("spine2", SPINE2)])
def test_a_clean_fabric_grows_its_counters(plan, device, ports):
    before, after = read(plan, device, "before"), read(plan, device, "after")
    assert tuple(after.ports) == ports
    for name in ports:
        old, new = before.ports[name], after.ports[name]
        assert new.pfc_rx[3] > old.pfc_rx[3] and new.pfc_tx[3] > old.pfc_tx[3], name
        assert new.queues[3].tx_packets > old.queues[3].tx_packets, name
        assert new.queues[3].ecn_marked_packets > old.queues[3].ecn_marked_packets, name
        assert new.queues[3].dropped_packets == old.queues[3].dropped_packets == 0, name
        assert new.watchdog[3].storms_detected == 0, name
        assert new.pfc_enabled == (3,) and new.oper_up, name


def test_storm_on_leaf1_ethernet0(plan):
    after = read(plan, "leaf1", "after")
    storm = read(plan, "leaf1", "after", "faults/storm")
    stormed = storm.ports["Ethernet0"]
    assert stormed.pfc_rx[3] - after.ports["Ethernet0"].pfc_rx[3] == 2_915_406
    assert vars(stormed.watchdog[3]) == {
        "enabled": True,
        "storms_detected": 1,
        "storms_restored": 0,
        "stormed": True,
    }
    assert stormed.queues[3].dropped_packets == 51_332  # the watchdog's drop action
    for name in LEAF1[1:]:  # the other ports as in after/
        assert replace(storm.ports[name], sources={}) == replace(after.ports[name], sources={})


def test_ecn_absent_on_spine2(plan):
    before = read(plan, "spine2", "before")
    fault = read(plan, "spine2", "after", "faults/ecn-absent")
    for name in SPINE2:
        assert fault.ports[name].queues[3].ecn_marked_packets == (
            before.ports[name].queues[3].ecn_marked_packets
        )
        assert fault.ports[name].queues[3].tx_packets > before.ports[name].queues[3].tx_packets
    assert fault.ports["Ethernet0"].queues[3].dropped_packets == 1_843
    assert fault.ports["Ethernet4"].queues[3].dropped_packets == 977


def test_pfc_off_never_configured_and_not_shown(plan):
    found = outputs("leaf1", "after")
    key = "PORT_QOS_MAP|Ethernet252"
    found["port_qos_map"] = edited(found["port_qos_map"], key, "pfc_enable", "")
    off = state.read(found, plan.devices["leaf1"])
    assert off.ports["Ethernet252"].pfc_enabled == ()
    assert off.ports["Ethernet248"].pfc_enabled == (3,)
    # no pfc_enable, or no PORT_QOS_MAP entry at all: qosorch programs no PFC on the port
    found["port_qos_map"] = edited(found["port_qos_map"], key, "pfc_enable", None)
    assert state.read(found, plan.devices["leaf1"]).ports["Ethernet252"].pfc_enabled == ()
    dump = json.loads(found["port_qos_map"].text)
    del dump["PORT_QOS_MAP|Ethernet248"]
    without = {**found, "port_qos_map": Output(json.dumps(dump), found["port_qos_map"].source)}
    assert state.read(without, plan.devices["leaf1"]).ports["Ethernet248"].pfc_enabled == ()
    # the dump not collected: unknown
    del without["port_qos_map"]
    assert state.read(without, plan.devices["leaf1"]).ports["Ethernet248"].pfc_enabled is None
    found["port_qos_map"] = edited(found["port_qos_map"], key, "pfc_enable", "3,9")
    with pytest.raises(ValueError, match="priorities 0-7"):
        state.read(found, plan.devices["leaf1"])


def test_a_missing_dump_is_unread_and_unknown(plan):
    found = outputs("leaf1", "after")
    del found["counters"]
    leaf1 = state.read(found, plan.devices["leaf1"])
    assert [what for what, _ in leaf1.unread] == [
        "PFC pause, queue, ingress drop and watchdog counters"
    ]
    assert "counters (sonic-db-dump -n COUNTERS_DB" in leaf1.unread[0][1]
    port = leaf1.ports["Ethernet0"]
    assert (port.pfc_rx, port.pfc_tx, port.queues, port.watchdog) == ({}, {}, {}, {})
    assert port.oper_up is True and port.pfc_enabled == (3,)

    del found["port_table"]
    alone = state.read(found, plan.devices["leaf1"])
    assert len(alone.unread) == 2
    assert alone.ports["Ethernet0"].oper_up is None
    assert alone.ports["Ethernet0"].link_changes is None
    assert alone.ports["Ethernet0"].source.startswith(found["port_qos_map"].source + ":")
    nothing = state.read({}, plan.devices["leaf1"])
    assert len(nothing.unread) == 3 and nothing.ports["Ethernet0"].pfc_enabled is None


def test_absent_fields_stay_unknown(plan):
    found = outputs("leaf1", "after")
    found["port_table"] = edited(
        edited(found["port_table"], "PORT_TABLE:Ethernet4", "oper_status", None),
        "PORT_TABLE:Ethernet4",
        "flap_count",
        None,
    )
    counters = json.loads(found["counters"].text)
    queue = counters["COUNTERS_QUEUE_NAME_MAP"]["value"]["Ethernet4:3"]
    del counters[f"COUNTERS:{queue}"]["value"]["SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS"]
    found["counters"] = Output(json.dumps(counters), found["counters"].source)
    port = state.read(found, plan.devices["leaf1"]).ports["Ethernet4"]
    assert (port.oper_up, port.link_changes) == (None, None)
    assert port.queues[3].ecn_marked_packets is None
    assert port.queues[3].tx_packets is not None


def test_a_plan_port_named_by_its_alias(plan):
    """SN5600 breakout aliases (etp1a = Ethernet0) as the plan's port names."""
    leaf1 = plan.devices["leaf1"]
    aliases = {"Ethernet0": "etp1a", "Ethernet4": "etp1b", "Ethernet248": "etp32a"}
    renamed: DevicePlan = replace(
        leaf1, ports={aliases.get(name, name): port for name, port in leaf1.ports.items()}
    )
    by_alias = state.read(outputs("leaf1", "after"), renamed)
    by_name = read(plan, "leaf1", "after")
    assert tuple(by_alias.ports) == ("etp1a", "etp1b", "etp32a", "Ethernet252")
    assert by_alias.ports["etp1a"].name == "etp1a"
    assert by_alias.ports["etp1a"].pfc_rx == by_name.ports["Ethernet0"].pfc_rx
    assert by_alias.ports["etp32a"].queues == by_name.ports["Ethernet248"].queues
    assert by_alias.ports["etp1b"].source == by_name.ports["Ethernet4"].source


def _hash(key: str, fields: object) -> str:
    return json.dumps({key: {"type": "hash", "value": fields}})


JUNK = {
    "not JSON": "Error: redis connection refused",
    "a list": "[]",
    "a string": '"PORT_TABLE"',
    "nested too deep": "[" * 100_000,
    "a hash of numbers": _hash("PORT_TABLE:Ethernet0", {"oper_status": 1}),
    "a hash that is a list": _hash("PORT_TABLE:Ethernet0", ["up"]),
}


@pytest.mark.parametrize("junk", JUNK.values(), ids=JUNK.keys())
def test_junk_raises_only_what_verify_reports(plan, junk):
    found = outputs("leaf1", "after")
    found["port_table"] = Output(junk, "leaf1/port_table.json")
    with pytest.raises(READ_ERRORS):
        state.read(found, plan.devices["leaf1"])


def test_junk_counters_raise_only_what_verify_reports(plan):
    found = outputs("leaf1", "after")
    data = json.loads(found["counters"].text)
    oid = data["COUNTERS_PORT_NAME_MAP"]["value"]["Ethernet0"]
    data[f"COUNTERS:{oid}"]["value"]["SAI_PORT_STAT_PFC_3_RX_PKTS"] = "1e9"
    found["counters"] = Output(json.dumps(data), "counters.json")
    with pytest.raises(ValueError, match="not a number"):
        state.read(found, plan.devices["leaf1"])
    # keys of other types (a set, a string) and other tables are not read
    other = {"COUNTERS_LAG_NAME_MAP": {"type": "set", "value": ["x"]}}
    found["counters"] = Output(json.dumps(other), "counters.json")
    assert state.read(found, plan.devices["leaf1"]).ports["Ethernet0"].queues == {}


def test_napalm_mock_serves_the_recordings(plan, tmp_path: Path):
    recorded = LAB / "after" / "leaf1"
    commands = state.commands(plan.devices["leaf1"])
    mock_folder(recorded, tmp_path, commands)
    driver = MockDriver("leaf1", "admin", "secret", optional_args={"path": str(tmp_path)})
    driver.open()
    answer = driver.cli(list(commands.values()))
    for stem, command in commands.items():
        assert answer[command] == (recorded / f"{stem}.json").read_text(), stem
    live = {stem: Output(answer[c], f"leaf1: {c}") for stem, c in commands.items()}
    from_live = state.read(live, plan.devices["leaf1"]).ports
    from_files = read(plan, "leaf1", "after").ports
    assert from_live["Ethernet0"].source.startswith("leaf1: sonic-db-dump -n APPL_DB")
    assert {n: replace(p, source="", sources={}) for n, p in from_live.items()} == {
        n: replace(p, source="", sources={}) for n, p in from_files.items()
    }


def test_verify_reads_the_recorded_folder(plan):
    from lossless.verify.collect import snapshot_from_folder

    snapshot = snapshot_from_folder(plan, LAB / "after")
    assert "leaf1" in snapshot.devices and "spine2" in snapshot.devices
    assert snapshot.devices["spine2"].ports["Ethernet12"].pfc_enabled == (3,)


def _without_watchdog_fields(output: Output, queue: str) -> Output:
    """The counters dump as pfcwd leaves it when it stops watching a queue: the queue's hash
    without its PFC_WD_* fields."""
    data = json.loads(output.text)
    oid = data["COUNTERS_QUEUE_NAME_MAP"]["value"][queue]
    fields = data[f"COUNTERS:{oid}"]["value"]
    for name in [f for f in fields if f.startswith("PFC_WD_")]:
        del fields[name]
    return Output(json.dumps(data, indent=2), output.source)


def test_a_lossless_queue_the_watchdog_does_not_watch(plan):
    found = outputs("leaf1", "after")
    found["counters"] = _without_watchdog_fields(found["counters"], "Ethernet0:3")
    leaf1 = state.read(found, plan.devices["leaf1"])
    assert leaf1.ports["Ethernet0"].watchdog[3].enabled is False
    assert leaf1.ports["Ethernet4"].watchdog[3].enabled is True
    # pfcwd_sw_enable without the priority: not watched, whatever the counters say
    found = outputs("leaf1", "after")
    key = "PORT_QOS_MAP|Ethernet4"
    found["port_qos_map"] = edited(found["port_qos_map"], key, "pfcwd_sw_enable", "")
    assert state.read(found, plan.devices["leaf1"]).ports["Ethernet4"].watchdog[3].enabled is False


def test_an_unsupported_counter_is_unknown(plan):
    found = outputs("leaf1", "after")
    data = json.loads(found["counters"].text)
    oid = data["COUNTERS_QUEUE_NAME_MAP"]["value"]["Ethernet0:3"]
    data[f"COUNTERS:{oid}"]["value"]["SAI_QUEUE_STAT_DROPPED_PACKETS"] = str(2**64 - 1)
    found["counters"] = Output(json.dumps(data), found["counters"].source)
    leaf1 = state.read(found, plan.devices["leaf1"])
    assert leaf1.ports["Ethernet0"].queues[3].dropped_packets is None


CAPTURES = VERIFY_DATA / "captures" / "sonic"  # provenance: tests/data/verify/captures/README.md


def test_wred_drops_of_a_lossless_queue_are_drops(plan):
    """A lossless queue whose only drops are WRED drops (SAI_QUEUE_STAT_WRED_DROPPED_PACKETS,
    `show queue wredcounters`) dropped packets."""
    found = outputs("leaf1", "after")
    counters = json.loads(found["counters"].text)
    queue = counters["COUNTERS_QUEUE_NAME_MAP"]["value"]["Ethernet4:3"]
    stats = counters[f"COUNTERS:{queue}"]["value"]
    assert stats["SAI_QUEUE_STAT_DROPPED_PACKETS"] == "0"
    stats["SAI_QUEUE_STAT_WRED_DROPPED_PACKETS"] = "1843"
    found["counters"] = Output(json.dumps(counters), found["counters"].source)
    assert state.read(found, plan.devices["leaf1"]).ports["Ethernet4"].queues[
        3
    ].dropped_packets == (1843)


def test_sonic_utilities_mock_tables(plan):
    """sonic-utilities' own test tables (tests/mock_tables counters_db.json and appl_db.json,
    converted to sonic-db-dump's shape): each queue reads as dropped the larger of
    SAI_QUEUE_STAT_DROPPED_PACKETS and SAI_QUEUE_STAT_WRED_DROPPED_PACKETS, the pause
    counters per priority, the PG drops, and PORT_TABLE's oper_status."""
    found = {
        stem: Output((CAPTURES / f"{stem}.json").read_text(), str(CAPTURES / f"{stem}.json"))
        for stem in ("counters", "port_table")
    }
    read_state = state.read(found, plan.devices["leaf1"])
    port = read_state.ports["Ethernet0"]
    assert port.oper_up is False  # oper_status "down" in appl_db.json
    assert (port.queues[3].dropped_packets, port.queues[3].tx_packets) == (52, 52)  # 19 / 52
    assert port.queues[6].dropped_packets == 49  # DROPPED 2, WRED 49
    assert port.queues[3].ecn_marked_packets is not None
    assert port.pfc_rx and port.pfc_tx and port.ingress_drops
    assert read_state.ports["Ethernet4"].oper_up is None  # no PORT_TABLE entry there


@pytest.mark.parametrize(
    "flap_count", [None, "N/A", "40.0", "-1", "\u0663", "9" * 5000, str(2**64)]
)
def test_a_flap_count_that_is_no_counter_is_not_checked_naming_the_port(plan, flap_count):
    """Issue 35 item 14: flap_count missing, or not a whole number, would pass a link that
    flapped: LL310 says the link flap counter of the port was not checked."""
    from lossless.verify.collect import read_device

    found = outputs("leaf1", "after")
    found["port_table"] = edited(
        found["port_table"], "PORT_TABLE:Ethernet4", "flap_count", flap_count
    )
    read_back = read_device(plan.devices["leaf1"], found, "x", None)
    assert isinstance(read_back, DeviceState)
    assert read_back.ports["Ethernet4"].link_changes is None
    assert read_back.ports["Ethernet0"].link_changes == 1
    assert read_back.ports["Ethernet4"].oper_up is True  # the rest of the port still read
    [(what, why)] = [u for u in read_back.unread if u[0].startswith("link flap counter")]
    assert what == "link flap counter of Ethernet4"
    assert why.startswith(f"not in the output of `{state.COMMANDS['port_table']}`")
