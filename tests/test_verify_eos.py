"""The EOS state reader (lossless/vendors/eos/state.py) on the lab's spine1 recordings
(tests/data/verify/lab, formats in tests/data/verify/README.md)."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from importlib import import_module
from pathlib import Path

import pytest
from verify_recordings import (
    VERIFY_DATA,
    check_mock_driver_serves,
    lab_device,
    lab_outputs,
)

from lossless.observed import DeviceState, Output
from lossless.plan import DevicePlan
from lossless.vendors.eos import VENDOR
from lossless.vendors.eos.state import COMMANDS, VOQ_COMMANDS, commands, read, voq_platform

LAB = VERIFY_DATA / "lab"
DEVICE = "spine1"
PORTS = ("Ethernet1/1", "Ethernet2/1", "Ethernet3/1", "Ethernet4/1")
ROCE_QUEUE = 3  # uc-tx-queue 3 in golden/lab/spine1.cfg
# pause frames (rx, tx) per port in pfc_counters.json; the 300 s growth is what the link
# peer's recordings show it sent/received (leaf1 Ethernet248, leaf2 swp31, leaf3 Ethernet1/31,
# leaf4 et-0/0/30)
PAUSE_BEFORE = {
    "Ethernet1/1": (166930, 73488),
    "Ethernet2/1": (185102, 76051),
    "Ethernet3/1": (417, 5205),
    "Ethernet4/1": (866, 2911),
}
PAUSE_AFTER = {
    "Ethernet1/1": (169008, 74548),
    "Ethernet2/1": (187099, 77127),
    "Ethernet3/1": (481, 5978),
    "Ethernet4/1": (933, 3132),
}
STORM_RX = 1196533  # Ethernet3/1 rxFrames in faults/storm: +1,196,052 over after/


@pytest.fixture(scope="module")
def device() -> DevicePlan:
    return lab_device(DEVICE)


def outputs(stage: str, fault: str | None = None) -> dict[str, Output]:
    return lab_outputs(DEVICE, stage, fault)


def state(device: DevicePlan, stage: str = "after", fault: str | None = None) -> DeviceState:
    return read(outputs(stage, fault), device)


def test_clean_fabric_after(device: DevicePlan) -> None:
    after = state(device)
    assert sorted(after.ports) == sorted(PORTS)  # Ethernet5/1 and Management1 are not planned
    assert after.os == "eos" and after.source.endswith("after/spine1")
    for name in PORTS:
        port = after.ports[name]
        assert port.oper_up is True
        assert port.link_changes == 2  # linkStatusChanges 2, as EOS counts (never halved)
        assert port.pfc_enabled == (3,)
        assert port.queues[ROCE_QUEUE].dropped_packets == 0
        assert port.queues[0].ecn_marked_packets is None  # "-": ECN is not on queue 0
        assert port.queues[ROCE_QUEUE].tx_packets is None  # not in the published shape
        assert vars(port.watchdog[3]) == {
            "enabled": True,
            "storms_detected": 0,  # absent from the watchdog counters: no event yet
            "storms_restored": 0,
            "stormed": None,
        }
        assert port.pfc_rx == {} and port.pfc_tx == {}  # per port only: the totals below
        assert (port.pause_rx_frames, port.pause_tx_frames) == PAUSE_AFTER[name]
    assert after.ports["Ethernet1/1"].queues[ROCE_QUEUE].ecn_marked_packets == 235447
    assert after.ports["Ethernet1/1"].queues[0].dropped_packets == 1611
    assert [what for what, _ in after.unread] == ["which priorities were paused"]


def test_pause_frames_grow_a_little_from_before(device: DevicePlan) -> None:
    before, after = state(device, "before"), state(device)
    for name in PORTS:
        was, now = before.ports[name], after.ports[name]
        assert (was.pause_rx_frames, was.pause_tx_frames) == PAUSE_BEFORE[name]
        assert now.pause_rx_frames is not None and was.pause_rx_frames is not None
        assert now.pause_tx_frames is not None and was.pause_tx_frames is not None
        # a clean fabric: some pause frames, far below a storm's thousands per second
        assert 0 < now.pause_rx_frames - was.pause_rx_frames < 3000
        assert 0 < now.pause_tx_frames - was.pause_tx_frames < 3000


def test_counters_grow_from_before(device: DevicePlan) -> None:
    before, after = state(device, "before"), state(device)
    for name in PORTS:
        was, now = before.ports[name].queues[ROCE_QUEUE], after.ports[name].queues[ROCE_QUEUE]
        assert was.ecn_marked_packets is not None and now.ecn_marked_packets is not None
        assert now.ecn_marked_packets > was.ecn_marked_packets
        assert was.dropped_packets == now.dropped_packets == 0


def test_source_points_at_the_port_in_its_output(device: DevicePlan) -> None:
    port = state(device).ports["Ethernet3/1"]
    path, line, _ = port.source.rsplit(":", 2)
    text = Path(path).read_text().splitlines()[int(line) - 1]
    assert '"Ethernet3/1"' in text and path.endswith("interfaces.json")


def test_fault_files_only_differ() -> None:
    for fault, files in {
        "pfc-off": ["pfc_counters.json", "pfc_status.json"],
        "storm": ["pfc_counters.json", "pfc_watchdog.json"],
        "ecn-absent": ["ecn_counters.json", "queue_counters.json"],
    }.items():
        folder = LAB / "faults" / fault / DEVICE
        assert sorted(p.name for p in folder.iterdir()) == files
        for name in files:
            assert (folder / name).read_text() != (LAB / "after" / DEVICE / name).read_text()


def test_pfc_off_on_the_leaf3_link(device: DevicePlan) -> None:
    faulty = state(device, fault="pfc-off")
    assert faulty.ports["Ethernet3/1"].pfc_enabled == ()
    assert faulty.ports["Ethernet3/1"].watchdog == {}
    assert all(faulty.ports[p].pfc_enabled == (3,) for p in PORTS if p != "Ethernet3/1")
    # PFC off: no pause frames since before/ on that port; leaf2 swp31 (PFC off there too)
    # sends Ethernet2/1 none
    off = faulty.ports["Ethernet3/1"]
    assert (off.pause_rx_frames, off.pause_tx_frames) == PAUSE_BEFORE["Ethernet3/1"]
    assert faulty.ports["Ethernet2/1"].pause_rx_frames == PAUSE_BEFORE["Ethernet2/1"][0]
    assert faulty.ports["Ethernet2/1"].pause_tx_frames == PAUSE_AFTER["Ethernet2/1"][1]


def test_storm_counted_by_the_watchdog(device: DevicePlan) -> None:
    clean, storm = state(device), state(device, fault="storm")
    assert clean.ports["Ethernet3/1"].watchdog[3].storms_detected == 0
    stormed = storm.ports["Ethernet3/1"].watchdog[3]
    assert (stormed.enabled, stormed.storms_detected, stormed.storms_restored) == (True, 1, 1)
    assert storm.ports["Ethernet1/1"].watchdog[3].storms_detected == 0


def test_storm_pause_frames_climb(device: DevicePlan) -> None:
    before, clean, storm = state(device, "before"), state(device), state(device, fault="storm")
    stormed = storm.ports["Ethernet3/1"]
    assert stormed.pause_rx_frames == STORM_RX
    assert STORM_RX - PAUSE_BEFORE["Ethernet3/1"][0] > 1_000_000  # ~4,000/s in 300 s
    assert stormed.pause_tx_frames == clean.ports["Ethernet3/1"].pause_tx_frames
    for name in PORTS:
        if name != "Ethernet3/1":
            assert storm.ports[name].pause_rx_frames == clean.ports[name].pause_rx_frames
    assert before.ports["Ethernet3/1"].pause_rx_frames == PAUSE_BEFORE["Ethernet3/1"][0]


def test_ecn_absent_while_the_lossless_queue_drops(device: DevicePlan) -> None:
    before, faulty = state(device, "before"), state(device, fault="ecn-absent")
    for name in PORTS:
        marked = faulty.ports[name].queues[ROCE_QUEUE].ecn_marked_packets
        assert marked == before.ports[name].queues[ROCE_QUEUE].ecn_marked_packets
    assert faulty.ports["Ethernet4/1"].queues[ROCE_QUEUE].dropped_packets == 8812


def test_missing_output_is_unread(device: DevicePlan) -> None:
    found = outputs("after")
    del found["ecn_counters"]
    del found["pfc_status"]
    partial = read(found, device)
    assert ("ECN marked packets", f"no output of `{COMMANDS['ecn_counters']}`") in partial.unread
    assert any(what == "PFC operational status and watchdog" for what, _ in partial.unread)
    port = partial.ports["Ethernet1/1"]
    assert port.queues[ROCE_QUEUE].ecn_marked_packets is None
    assert port.pfc_enabled is None and port.watchdog == {}
    assert port.queues[ROCE_QUEUE].dropped_packets == 0  # what was read still is


def test_missing_pause_counters_are_unread(device: DevicePlan) -> None:
    found = outputs("after")
    del found["pfc_counters"]
    partial = read(found, device)
    assert ("PFC pause frames", f"no output of `{COMMANDS['pfc_counters']}`") in partial.unread
    assert any(what == "which priorities were paused" for what, _ in partial.unread)
    port = partial.ports["Ethernet3/1"]
    assert (port.pause_rx_frames, port.pause_tx_frames) == (None, None)
    assert port.oper_up is True


def test_abbreviated_names_map_to_the_plan(device: DevicePlan) -> None:
    found = outputs("after")
    text = found["interfaces"].text.replace('"Ethernet2/1"', '"Et2/1"')
    found["interfaces"] = Output(text, "x/interfaces.json")
    del found["pfc_status"], found["queue_counters"], found["ecn_counters"]
    del found["pfc_watchdog"], found["pfc_counters"]
    port = read(found, device).ports["Ethernet2/1"]
    assert port.oper_up is True and port.link_changes == 2
    assert port.source == Output(text, "x/interfaces.json").at('"Et2/1"')


def test_abbreviated_names_in_pause_counters(device: DevicePlan) -> None:
    text = outputs("after")["pfc_counters"].text.replace('"Ethernet3/1"', '"Et3/1"')
    found = {"pfc_counters": Output(text, "x/pfc_counters.json")}
    port = read(found, device).ports["Ethernet3/1"]
    assert (port.pause_rx_frames, port.pause_tx_frames) == PAUSE_AFTER["Ethernet3/1"]
    assert port.source == found["pfc_counters"].at('"Et3/1"')


def test_absent_fields_stay_unknown(device: DevicePlan) -> None:
    bare = {
        "interfaces": {"interfaces": {"Ethernet1/1": {}}},
        "pfc_status": {"interfaceStatuses": {"Ethernet1/1": {}}},
        "queue_counters": {"egressQueueCounters": {"interfaces": {"Ethernet1/1": {}}}},
        "ecn_counters": {"intfQueueCounters": {}},
        "pfc_watchdog": {},
        "pfc_counters": {"interfaceCounters": {"Ethernet1/1": {}}},
    }
    found = {stem: Output(json.dumps(data), f"x/{stem}.json") for stem, data in bare.items()}
    port = read(found, device).ports["Ethernet1/1"]
    assert (port.oper_up, port.link_changes, port.pfc_enabled) == (None, None, None)
    assert port.queues == {} and port.watchdog == {}
    assert (port.pause_rx_frames, port.pause_tx_frames) == (None, None)


JUNK = [
    "not json {",
    "[]",
    '"text"',
    '{"interfaces": []}',
    '{"interfaces": {"Ethernet1/1": 5}}',
    '{"interfaces": {"Ethernet1/1": {"interfaceCounters": {"linkStatusChanges": "'
    + "9" * 5000
    + '"}}}}',
    '{"interfaceStatuses": {"Ethernet1/1": {"enabled": "yes", "priorities": "3"}}}',
    '{"egressQueueCounters": {"interfaces": {"Ethernet1/1": {"ucastQueues": {"trafficClasses": '
    '{"TC3": {"dropPrecedences": [1, 2]}}}}}}}',
    '{"intfQueueCounters": {"Ethernet1/1": {"queueCounters": {"3": -4, "99999": "1"}}}}',
    '{"interfaces": {"Ethernet1/1": {"txQueues": {"3": {"stuckCount": 1e400}}}}}',
    '{"interfaceCounters": {"Ethernet1/1": {"rxFrames": "-7", "txFrames": [1]}, "x": null}}',
    '{"interfaceCounters": {"Ethernet1/1": {"rxFrames": true, "txFrames": "1.5e30"}}}',
    "9" * 100_000,
]


@pytest.mark.parametrize("stem", sorted(COMMANDS))
@pytest.mark.parametrize("text", JUNK)
def test_junk_raises_only_value_key_type_errors(device: DevicePlan, stem: str, text: str) -> None:
    found = outputs("after")
    found[stem] = Output(text, f"x/{stem}.json")
    try:
        junk = read(found, device)
    except (ValueError, KeyError, TypeError):
        return
    for port in junk.ports.values():  # read: no junk became a value
        assert port.link_changes in (None, 2)
        assert port.pfc_enabled in (None, (3,))
        assert port.pause_rx_frames in (None, PAUSE_AFTER[port.name][0])
        assert port.pause_tx_frames in (None, PAUSE_AFTER[port.name][1])
        for queue in port.queues.values():
            assert queue.ecn_marked_packets is None or queue.ecn_marked_packets < 10**12


def test_commands_and_vendor() -> None:
    assert VENDOR.state_reader == "lossless.vendors.eos.state"
    module = import_module(VENDOR.state_reader)
    assert module.COMMANDS is COMMANDS
    assert all(re.search(r"\| json( revision \d+)?$", c) for c in COMMANDS.values())


def test_commands_ask_for_the_revision_the_reader_reads() -> None:
    """The revisions ANTA's tests ask for, whose unit data the reader was written from
    (anta/tests/interfaces.py: VerifyInterfacesCounterDetails, ...EgressQueueDrops,
    ...ECNCounters, ...PFCCounters revision 3, ...VoqAndEgressQueueDrops)."""
    assert COMMANDS["pfc_counters"] == "show priority-flow-control counters | json revision 3"
    assert COMMANDS["interfaces"].endswith("| json revision 1")
    assert COMMANDS["queue_counters"].endswith("| json revision 1")
    assert COMMANDS["ecn_counters"].endswith("| json revision 1")
    assert VOQ_COMMANDS["queue_drops"] == ("show interfaces counters queue drops | json revision 1")


def test_commands_of_a_device(device: DevicePlan) -> None:
    assert commands(device) == COMMANDS


def test_napalm_mock_driver_serves_the_recordings(device: DevicePlan, tmp_path: Path) -> None:
    check_mock_driver_serves(read, device, COMMANDS, tmp_path)


# ANTA's unit-test eos_data (aristanetworks/anta tests/units/anta_tests/test_interfaces.py),
# as JSON; provenance in tests/data/verify/captures/README.md
CAPTURES = VERIFY_DATA / "captures" / "eos"


def _capture(name: str) -> Output:
    path = CAPTURES / f"{name}.json"
    return Output(path.read_text(), str(path))


def _named(device: DevicePlan, *names: str, platform: str | None = None) -> DevicePlan:
    """spine1's plan with its first ports named as the capture's switch names them."""
    ports = dict(zip(names, device.ports.values(), strict=False))
    return replace(device, ports=ports, platform=platform or device.platform)


def test_a_range_key_holding_the_lossless_class_is_read(device: DevicePlan) -> None:
    """TC0-2 / DP0-2: classes and drop precedences counted together. The group's drops are
    each class's (a lossless class among them is judged by them), and `unread` says which
    classes are counted together."""
    plan = _named(device, "Ethernet1")
    found = {
        "queue_counters": _capture(
            "VerifyInterfacesEgressQueueDrops.failure-traffic-claas-and-dp-range"
        )
    }
    state = read(found, plan)
    port = state.ports["Ethernet1"]
    assert {q: c.dropped_packets for q, c in port.queues.items()} == {0: 2, 1: 2, 2: 2}
    assert ("which of traffic classes 0-2 dropped") in [what for what, _ in state.unread]


def test_voq_platforms_collect_and_read_the_voq_drops(device: DevicePlan) -> None:
    assert not voq_platform(device)  # 7060DX5-32: a Tomahawk, drops at egress only
    assert "queue_drops" not in commands(device)
    for platform in ("7280CR3-32P4", "DCS-7280SR3-48YC8", "7800R3-36P-LC", "7500R2-36CQ"):
        voq = _named(device, "Ethernet48", "Ethernet49", platform=platform)
        assert voq_platform(voq), platform
        assert commands(voq)["queue_drops"] == VOQ_COMMANDS["queue_drops"]
    voq = _named(device, "Ethernet48", "Ethernet49", platform="7280CR3-32P4")
    state = read({"queue_drops": _capture("VerifyInterfacesVoqAndEgressQueueDrops.failure")}, voq)
    drops = {n: {q: c.dropped_packets for q, c in p.queues.items()} for n, p in state.ports.items()}
    assert drops == {"Ethernet48": {0: 3, 1: 9}, "Ethernet49": {0: 11, 1: 14}}  # VOQ + egress


def test_voq_drops_alone_are_drops(device: DevicePlan) -> None:
    """TC0-5 of ANTA's VOQ range case: 1 packet dropped in the ingress VOQ, none at egress,
    is a drop of lossless class 3 (LL302 then), where the egress queue counters show none."""
    voq = _named(device, "Ethernet48", "Ethernet49", platform="7280CR3-32P4")
    found = {
        "queue_drops": _capture(
            "VerifyInterfacesVoqAndEgressQueueDrops.failure-range-of-traffic-class"
        )
    }
    assert read(found, voq).ports["Ethernet48"].queues[ROCE_QUEUE].dropped_packets == 1


def test_pause_frames_of_revision_3(device: DevicePlan) -> None:
    plan = _named(device, "Ethernet3/1/1", "Ethernet3/2/1")
    state = read({"pfc_counters": _capture("VerifyInterfacesPFCCounters.failure")}, plan)
    assert (
        state.ports["Ethernet3/1/1"].pause_rx_frames,
        state.ports["Ethernet3/2/1"].pause_tx_frames,
    ) == (1, 2)


def test_the_collection_script_asks_a_voq_platform_for_its_voq_drops() -> None:
    from conftest import INVENTORIES

    from lossless.inventory import load_inventory
    from lossless.planner.fabric import plan_fabric
    from lossless.verify.script import collection_script

    plan = plan_fabric(load_inventory(INVENTORIES / "lab.yaml"), hosts=False)
    assert "counters queue drops" not in collection_script(plan)
    plan.devices["spine1"] = replace(plan.devices["spine1"], platform="7280CR3-32P4")
    script = collection_script(plan)
    assert "'show interfaces counters queue drops | json revision 1'" in script
    assert "'show priority-flow-control counters | json revision 3'" in script


@pytest.mark.parametrize("changes", [40.0, "N/A", None, -1])
def test_link_status_changes_not_a_counter_is_not_checked(device: DevicePlan, changes) -> None:
    """Issue 35 item 14 on EOS: linkStatusChanges absent or not a whole number."""
    from lossless.verify.collect import read_device

    found = outputs("after")
    data = json.loads(found["interfaces"].text)
    counters = data["interfaces"]["Ethernet2/1"]["interfaceCounters"]
    if changes is None:
        del counters["linkStatusChanges"]
    else:
        counters["linkStatusChanges"] = changes
    found["interfaces"] = Output(json.dumps(data), "x/interfaces.json")
    read_back = read_device(device, found, "x", None)
    assert isinstance(read_back, DeviceState)
    assert read_back.ports["Ethernet2/1"].link_changes is None
    assert ("link flap counter of Ethernet2/1") in [what for what, _ in read_back.unread]
