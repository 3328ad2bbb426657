"""The NX-OS state reader (lossless/vendors/nxos/state.py) on the lab's leaf3 recordings
(tests/data/verify/lab, formats in tests/data/verify/README.md)."""

from __future__ import annotations

import json
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
from lossless.vendors.nxos import VENDOR
from lossless.vendors.nxos.state import COMMANDS, commands, read

LAB = VERIFY_DATA / "lab"
DEVICE = "leaf3"
PORTS = ("Ethernet1/1", "Ethernet1/2", "Ethernet1/31", "Ethernet1/32")
ROCE_QUEUE, CNP_QUEUE = 3, 7  # qos-group 3 and 7 in golden/lab/leaf3.cfg
# pause frames (rx-stats, tx-stats) per port in pfc.json
PAUSE_BEFORE = {
    "Ethernet1/1": (1204, 3411),
    "Ethernet1/2": (998, 2760),
    "Ethernet1/31": (5120, 402),
    "Ethernet1/32": (4877, 388),
}
PAUSE_AFTER = {
    "Ethernet1/1": (1389, 3902),
    "Ethernet1/2": (1150, 3121),
    "Ethernet1/31": (5893, 466),
    "Ethernet1/32": (5560, 451),
}


@pytest.fixture(scope="module")
def device() -> DevicePlan:
    return lab_device(DEVICE)


def outputs(stage: str, fault: str | None = None) -> dict[str, Output]:
    return lab_outputs(DEVICE, stage, fault)


def state(device: DevicePlan, stage: str = "after", fault: str | None = None) -> DeviceState:
    return read(outputs(stage, fault), device)


def test_clean_fabric_after(device: DevicePlan) -> None:
    after = state(device)
    assert sorted(after.ports) == sorted(PORTS)  # mgmt0 and Ethernet1/3 are not planned
    for name in PORTS:
        port = after.ports[name]
        assert port.oper_up is True
        assert port.link_changes is None  # NX-OS shows when, not how often
        assert port.pfc_enabled == (3,)
        roce = port.queues[ROCE_QUEUE]
        assert roce.dropped_packets == 0
        assert roce.tx_packets is not None and roce.tx_packets > 0
        assert roce.ecn_marked_packets is not None and roce.ecn_marked_packets > 0
        assert port.queues[CNP_QUEUE].ecn_marked_packets == 0
        assert port.watchdog[3].enabled is True and port.watchdog[3].stormed is False
        assert port.pfc_rx == {} and port.pfc_tx == {}  # per port only: the totals below
        assert (port.pause_rx_frames, port.pause_tx_frames) == PAUSE_AFTER[name]
    port = after.ports["Ethernet1/1"]
    assert (port.queues[ROCE_QUEUE].tx_packets, port.queues[ROCE_QUEUE].ecn_marked_packets) == (
        49900000,
        91450,
    )
    assert port.queues[0].dropped_packets == 219
    assert vars(after.ports["Ethernet1/2"].watchdog[3]) == {
        "enabled": True,
        "storms_detected": 2,  # history from before T0
        "storms_restored": 2,
        "stormed": False,
    }
    assert [what for what, _ in after.unread] == ["which priorities were paused"]


def test_counters_grow_from_before(device: DevicePlan) -> None:
    before, after = state(device, "before"), state(device)
    for name in PORTS:
        was, now = before.ports[name].queues[ROCE_QUEUE], after.ports[name].queues[ROCE_QUEUE]
        assert (now.ecn_marked_packets or 0) > (was.ecn_marked_packets or 0) > 0
        assert (now.tx_packets or 0) > (was.tx_packets or 0) > 0
        assert now.dropped_packets == 0


def test_pause_frames_grow_a_little_from_before(device: DevicePlan) -> None:
    before, after = state(device, "before"), state(device)
    for name in PORTS:
        was, now = before.ports[name], after.ports[name]
        assert (was.pause_rx_frames, was.pause_tx_frames) == PAUSE_BEFORE[name]
        grown_rx = (now.pause_rx_frames or 0) - (was.pause_rx_frames or 0)
        grown_tx = (now.pause_tx_frames or 0) - (was.pause_tx_frames or 0)
        assert 0 < grown_rx < 3000 and 0 < grown_tx < 3000  # some, far below a storm


def test_source_points_at_the_port_in_its_output(device: DevicePlan) -> None:
    port = state(device).ports["Ethernet1/31"]
    path, line, column = port.source.rsplit(":", 2)
    text = Path(path).read_text().splitlines()[int(line) - 1]
    assert text[int(column) - 1 :].startswith('"Ethernet1/31"')


def test_fault_files_only_differ() -> None:
    for fault, files in {
        "storm": ["pfc.json", "pfc_queue.json"],
        "reset": ["pfc.json", "pfc_queue.json", "queuing.json"],
        "pfc-off": ["pfc.json"],
    }.items():
        folder = LAB / "faults" / fault / DEVICE
        assert sorted(p.name for p in folder.iterdir()) == files
        for name in files:
            assert (folder / name).read_text() != (LAB / "after" / DEVICE / name).read_text()


def test_storm_on_the_server_port(device: DevicePlan) -> None:
    storm = state(device, fault="storm")
    watchdog = storm.ports["Ethernet1/1"].watchdog[3]
    assert (watchdog.storms_detected, watchdog.storms_restored, watchdog.stormed) == (1, 0, True)
    assert storm.ports["Ethernet1/1"].pfc_enabled == (3,)  # the qos group stays PFC [YES]
    assert storm.ports["Ethernet1/31"].watchdog[3].stormed is False


def test_storm_pause_frames_climb(device: DevicePlan) -> None:
    clean, storm = state(device), state(device, fault="storm")
    stormed = storm.ports["Ethernet1/1"]
    assert (stormed.pause_rx_frames, stormed.pause_tx_frames) == (2919829, 3902)
    assert 2919829 - PAUSE_BEFORE["Ethernet1/1"][0] > 2_000_000  # ~9,700/s in 300 s
    # the stuck queue to gpu03 backs up: leaf3 pauses spine1 on the uplink
    uplink = storm.ports["Ethernet1/31"]
    assert (uplink.pause_rx_frames, uplink.pause_tx_frames) == (5893, 1196518)
    for name in ("Ethernet1/2", "Ethernet1/32"):
        assert vars(storm.ports[name]) == vars(clean.ports[name]) | {
            "source": storm.ports[name].source,
            "sources": storm.ports[name].sources,
        }


def test_storm_pauses_agree_with_spine1(device: DevicePlan) -> None:
    """What leaf3 Ethernet1/31 sent in the storm is what spine1 Ethernet3/1 received."""
    sent = state(device, fault="storm").ports["Ethernet1/31"].pause_tx_frames
    spine1 = {
        stage: json.loads((LAB / stage / "spine1" / "pfc_counters.json").read_text())
        for stage in ("after", "faults/storm")
    }
    received = {s: d["interfaceCounters"]["Ethernet3/1"]["rxFrames"] for s, d in spine1.items()}
    assert sent is not None
    assert sent - PAUSE_AFTER["Ethernet1/31"][1] == received["faults/storm"] - received["after"]


def test_pfc_off_at_spine1_sends_leaf3_no_pauses(device: DevicePlan) -> None:
    faulty = state(device, fault="pfc-off").ports["Ethernet1/31"]
    assert faulty.pause_rx_frames == PAUSE_BEFORE["Ethernet1/31"][0]  # none since before/
    assert faulty.pause_tx_frames == PAUSE_AFTER["Ethernet1/31"][1]
    assert faulty.pfc_enabled == (3,)  # leaf3's end keeps PFC on


def test_reset_counters_fall(device: DevicePlan) -> None:
    before, reset = state(device, "before"), state(device, fault="reset")
    for name in PORTS:
        was, now = before.ports[name].queues[ROCE_QUEUE], reset.ports[name].queues[ROCE_QUEUE]
        assert (now.tx_packets or 0) < (was.tx_packets or 0)
        assert (now.ecn_marked_packets or 0) < (was.ecn_marked_packets or 0)
        rx, tx = reset.ports[name].pause_rx_frames, reset.ports[name].pause_tx_frames
        assert rx is not None and tx is not None
        assert rx < PAUSE_BEFORE[name][0] and tx < PAUSE_BEFORE[name][1]
    assert reset.ports["Ethernet1/2"].watchdog[3].storms_detected == 0
    assert before.ports["Ethernet1/2"].watchdog[3].storms_detected == 2


def test_pfc_oper_off_is_off(device: DevicePlan) -> None:
    found = outputs("after")
    text = found["pfc"].text.replace(
        '"if_name_str": "Ethernet1/32", "admin": "On", "oper": "On"',
        '"if_name_str": "Ethernet1/32", "admin": "On", "oper": "Off"',
    )
    assert text != found["pfc"].text
    found["pfc"] = Output(text, "x/pfc.json")
    assert read(found, device).ports["Ethernet1/32"].pfc_enabled == ()


def test_missing_output_is_unread(device: DevicePlan) -> None:
    found = outputs("after")
    del found["pfc_queue"]
    partial = read(found, device)
    assert (
        "PFC priorities and PFC watchdog",
        f"no output of `{COMMANDS['pfc_queue']}`",
    ) in partial.unread
    port = partial.ports["Ethernet1/1"]
    assert port.pfc_enabled is None  # oper On, but which priorities is not shown
    assert port.watchdog == {}
    assert port.queues[ROCE_QUEUE].dropped_packets == 0


def test_missing_pause_counters_are_unread(device: DevicePlan) -> None:
    found = outputs("after")
    del found["pfc"]
    partial = read(found, device)
    assert (
        "PFC operational mode and pause frames",
        f"no output of `{COMMANDS['pfc']}`",
    ) in partial.unread
    assert any(what == "which priorities were paused" for what, _ in partial.unread)
    port = partial.ports["Ethernet1/1"]
    assert (port.pause_rx_frames, port.pause_tx_frames) == (None, None)
    assert port.pfc_enabled == (3,)  # from pfc-queue detail


def test_abbreviated_names_map_to_the_plan(device: DevicePlan) -> None:
    found = {"interface": outputs("after")["interface"]}
    text = found["interface"].text.replace('"Ethernet1/31"', '"Eth1/31"')
    found["interface"] = Output(text, "x/interface.json")
    port = read(found, device).ports["Ethernet1/31"]
    assert port.oper_up is True
    assert port.source == found["interface"].at('"Eth1/31"')


def test_one_row_is_an_object_not_a_list(device: DevicePlan) -> None:
    row = {"interface": "Ethernet1/2", "state": "down"}
    found = {"interface": Output(json.dumps({"TABLE_interface": {"ROW_interface": row}}), "x/i")}
    assert read(found, device).ports["Ethernet1/2"].oper_up is False


def test_absent_fields_stay_unknown(device: DevicePlan) -> None:
    module: dict[str, object] = {"TABLE_module": {"ROW_module": {}}}
    bare = {
        "interface": {"TABLE_interface": {"ROW_interface": [{"interface": "Ethernet1/1"}]}},
        "pfc": {
            "TABLE_module": {
                "ROW_module": {
                    "TABLE_pfc_interface": {"ROW_pfc_interface": {"if_name_str": "Ethernet1/1"}}
                }
            }
        },
        "pfc_queue": module,
        "queuing": module,
    }
    found = {stem: Output(json.dumps(data), f"x/{stem}.json") for stem, data in bare.items()}
    port = read(found, device).ports["Ethernet1/1"]
    assert (port.oper_up, port.link_changes, port.pfc_enabled) == (None, None, None)
    assert port.queues == {} and port.watchdog == {}
    assert (port.pause_rx_frames, port.pause_tx_frames) == (None, None)


JUNK = [
    "not json {",
    "[]",
    "null",
    '{"TABLE_interface": []}',
    '{"TABLE_interface": {"ROW_interface": [5, "x", {"interface": 7}]}}',
    '{"TABLE_module": {"ROW_module": [{"TABLE_pfc_interface": {"ROW_pfc_interface": '
    '{"if_name_str": "Ethernet1/1", "oper": ["On"], "rx-stats": "' + "9" * 5000 + '"}}}]}}',
    '{"TABLE_module": {"ROW_module": {"TABLE_queuing_interface": {"ROW_queuing_interface": '
    '[{"if_name_str": "Ethernet1/1 [Enabled]", "dir": "Egress", "TABLE_qosgrp_stats": '
    '{"ROW_qosgrp_stats": [{"eq-qosgrp": "3 PFC [YES] PFC-COS [3]", "TABLE_qosgrp_stats_entry": '
    '{"ROW_qosgrp_stats_entry": [{"q-stat-type": ["Shutdown"]}, {"q-a": 1, "q-b": 2}]}}]}, '
    '"TABLE_qosgrp_egress_stats": {"ROW_qosgrp_egress_stats": [{"eq-qosgrp": {}}, '
    '{"eq-qosgrp": "3", "TABLE_qosgrp_egress_stats_entry": {"ROW_qosgrp_egress_stats_entry": '
    '[{"eq-stat-type": "Tx", "eq-stat-units": "Pkts", "eq-uc-stat-value": -1}]}}]}}]}}}}',
    '{"TABLE_module": {"ROW_module": {"TABLE_pfc_interface": {"ROW_pfc_interface": '
    '[{"if_name_str": "Ethernet1/2", "rx-stats": -3, "tx-stats": "1.5e30"}, '
    '{"if_name_str": "Ethernet1/31", "rx-stats": true, "tx-stats": [4]}]}}}}',
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
        assert port.pause_rx_frames in (None, PAUSE_AFTER[port.name][0])
        assert port.pause_tx_frames in (None, PAUSE_AFTER[port.name][1])
        for queue in port.queues.values():
            assert queue.tx_packets is None or 0 <= queue.tx_packets < 10**12
        for watchdog in port.watchdog.values():
            assert watchdog.storms_detected in (None, 0, 2)


def test_commands_and_vendor(device: DevicePlan) -> None:
    assert VENDOR.state_reader == "lossless.vendors.nxos.state"
    assert import_module(VENDOR.state_reader).COMMANDS is COMMANDS
    assert all(c.endswith("| json") for c in COMMANDS.values())
    assert commands(device) == COMMANDS


def test_napalm_mock_driver_serves_the_recordings(device: DevicePlan, tmp_path: Path) -> None:
    check_mock_driver_serves(read, device, COMMANDS, tmp_path)


# -- Cisco's published schema (Nexus 9000 NX-OS Show Commands 9.3(x), Q Show Commands) ----


def _schema_shaped(text: str) -> str:
    """The lab's pfc-queue detail in the shape of Cisco's schema of `show queuing pfc-queue`:
    if_name_str and wd-status apart, and eq-qosgrp, eq-qosgrp-state, pfc-configured and
    pfc-cos as separate fields (no capture of this shape is public)."""
    data = json.loads(text)
    for row in data["TABLE_module"]["ROW_module"]["TABLE_queuing_interface"][
        "ROW_queuing_interface"
    ]:
        name, _, status = row["if_name_str"].partition(" Interface PFC watchdog: ")
        row["if_name_str"], row["wd-status"] = name, status.strip("[]")
        for group in row["TABLE_qosgrp_stats"]["ROW_qosgrp_stats"]:
            number, state, _, configured, _, cos = group["eq-qosgrp"].split()
            group.update(
                {
                    "eq-qosgrp": number,
                    "eq-qosgrp-state": state.strip("[]"),
                    "pfc-configured": configured.strip("[]"),
                    "pfc-cos": cos.strip("[]"),
                }
            )
    return json.dumps(data)


@pytest.mark.parametrize("fault", [None, "storm"])
def test_schema_shape_reads_as_the_combined_string(device: DevicePlan, fault: str | None) -> None:
    combined = outputs("after", fault)
    separate = dict(combined)
    separate["pfc_queue"] = Output(_schema_shaped(combined["pfc_queue"].text), "x/pfc_queue.json")
    assert '"pfc-configured": "YES"' in separate["pfc_queue"].text
    one, other = read(combined, device), read(separate, device)
    for name in PORTS:
        assert other.ports[name].pfc_enabled == one.ports[name].pfc_enabled == (3,)
        assert other.ports[name].watchdog == one.ports[name].watchdog
    assert not any("qos group" in why for _, why in other.unread)


def test_pfc_no_groups_are_pfc_off(device: DevicePlan) -> None:
    found = outputs("after")
    text = _schema_shaped(found["pfc_queue"].text).replace('"YES"', '"NO"')
    found["pfc_queue"] = Output(text, "x/pfc_queue.json")
    port = read(found, device).ports["Ethernet1/1"]
    assert port.pfc_enabled == () and port.watchdog == {}


@pytest.mark.parametrize(
    "old, new",
    [
        ('"3 [Active] PFC [YES] PFC-COS [3]"', '"3 Active PFC on for 3"'),  # another wording
        ('"3 [Active] PFC [YES] PFC-COS [3]"', '"3 [Active] PFC [YES] PFC-COS [x]"'),
    ],
)
def test_a_group_of_neither_shape_is_unknown(device: DevicePlan, old: str, new: str) -> None:
    """Read as "no PFC group", every port would get LL301 "PFC off": it is unknown instead,
    and `unread` names the key."""
    found = outputs("after")
    text = found["pfc_queue"].text.replace(old, new)
    assert text != found["pfc_queue"].text
    found["pfc_queue"] = Output(text, "x/pfc_queue.json")
    state = read(found, device)
    assert all(state.ports[name].pfc_enabled is None for name in PORTS)
    (why,) = [why for what, why in state.unread if what.startswith("PFC priorities of")]
    assert "eq-qosgrp" in why and "pfc-configured" in why and "x/pfc_queue.json:" in why


def test_per_cos_pause_counts_of_show_queuing(device: DevicePlan) -> None:
    """Cisco's schema of `show queuing` has TABLE_pfc_stats: pause frames per CoS, which fill
    pfc_rx/pfc_tx (and `unread` no longer says which priorities were paused is unknown)."""
    found = outputs("after")
    data = json.loads(found["queuing"].text)
    rows = data["TABLE_module"]["ROW_module"]["TABLE_queuing_interface"]["ROW_queuing_interface"]
    ingress = next(r for r in rows if r["dir"] == "Ingress" and r["if_name_str"] == "Ethernet1/1")
    ingress.update({"tx-ppp": 3902, "rx-ppp": 1389})
    ingress["TABLE_pfc_stats"] = {
        "ROW_pfc_stats": [
            {
                "cos": cos,
                "pfc-qosgrp": cos,
                "tx-pause-state": "Inactive",
                "tx-pause-count": 3902 if cos == 3 else 0,
                "rx-pause-state": "Inactive",
                "rx-pause-count": 1389 if cos == 3 else 0,
            }
            for cos in range(8)
        ]
    }
    found["queuing"] = Output(json.dumps(data), "x/queuing.json")
    state = read(found, device)
    port = state.ports["Ethernet1/1"]
    assert port.pfc_rx == {c: 1389 if c == 3 else 0 for c in range(8)}
    assert port.pfc_tx[3] == 3902 and port.pause_rx_frames == 1389
    assert port.queues[ROCE_QUEUE].dropped_packets == 0  # the egress rows still read
    assert not any(what == "which priorities were paused" for what, _ in state.unread)
    assert state.ports["Ethernet1/2"].pfc_rx == {}
