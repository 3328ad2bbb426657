"""lossless.vendors.cumulus.state: NVUE's per-interface JSON read into a DeviceState, from the
lab recordings in tests/data/verify/lab (README.md there says what each holds)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from conftest import INVENTORIES
from napalm.base.mock import MockDriver
from verify_recordings import VERIFY_DATA, mock_folder

from lossless.inventory import load_inventory
from lossless.observed import DeviceState, Output
from lossless.planner.fabric import plan_fabric
from lossless.vendors.cumulus import state
from lossless.vendors.registry import vendor_for

LAB = VERIFY_DATA / "lab"
LEAF2 = ("swp1", "swp2", "swp31", "swp32")
READ_ERRORS = (ValueError, KeyError, TypeError)


@pytest.fixture(scope="module")
def plan():
    return plan_fabric(load_inventory(INVENTORIES / "lab.yaml"), hosts=False)


@pytest.fixture(scope="module")
def leaf2(plan):
    return plan.devices["leaf2"]


def outputs(leaf2, *folders: str) -> dict[str, Output]:
    """leaf2's recordings, later folders (a fault's) replacing earlier ones' files."""
    found = {}
    for folder in folders:
        for stem in state.commands(leaf2):
            path = LAB / folder / "leaf2" / f"{stem}.json"
            if path.exists():
                found[stem] = Output(path.read_text(), str(path))
    return found


def read(leaf2, *folders: str) -> DeviceState:
    return state.read(outputs(leaf2, *folders), leaf2)


def edited(output: Output, change: Any) -> Output:
    data = json.loads(output.text)
    change(data)
    return Output(json.dumps(data, indent=2), output.source)


def test_the_commands_are_per_planned_port(leaf2):
    from lossless.verify.collect import file_stem

    assert vendor_for("cumulus").state_reader == "lossless.vendors.cumulus.state"
    commands = state.commands(leaf2)
    assert len(commands) == 4 * len(LEAF2)
    assert commands["qos-counters-swp31"] == "nv show interface swp31 counters qos -o json"
    assert commands["pfc-watchdog-swp1"] == "nv show interface swp1 qos pfc-watchdog -o json"
    assert commands["roce-swp2"] == "nv show interface swp2 qos roce status -o json"
    assert commands["link-swp32"] == "nv show interface swp32 link -o json"
    assert all(file_stem(stem) == stem for stem in commands)  # saved under its own name


def test_leaf2_after_reads_every_planned_port(leaf2):
    after = read(leaf2, "after")
    assert (after.device, after.os, after.unread, after.watchdog_enabled) == (
        "leaf2",
        "cumulus",
        [],
        None,
    )
    assert tuple(after.ports) == LEAF2
    for name, port in after.ports.items():
        assert port.oper_up is True, name
        assert port.pfc_enabled == (3,), name
        assert sorted(port.queues) == list(range(8)), name
        assert port.queues[3].dropped_packets == 0, name
        assert port.queues[3].ecn_marked_packets > 0, name
        assert sorted(port.watchdog) == list(range(8)), name
        assert vars(port.watchdog[3]) == {
            "enabled": True,
            "storms_detected": 0,
            "storms_restored": None,  # NVUE counts no restorations
            "stormed": False,
        }
        assert port.ingress_drops == dict.fromkeys(range(8), 0), name
        assert port.source == f"{LAB / 'after' / 'leaf2' / f'link-{name}.json'}:1:1"
    assert [after.ports[n].link_changes for n in LEAF2] == [1, 1, 3, 1]  # as the kernel counts
    swp1 = after.ports["swp1"]
    assert swp1.pfc_rx == {0: 0, 1: 0, 2: 0, 3: 46_683, 4: 0, 5: 0, 6: 0, 7: 0}
    assert swp1.pfc_tx[3] == 112_674
    assert vars(swp1.queues[3]) == {
        "tx_packets": 11_601_678_585,
        "dropped_packets": 0,
        "ecn_marked_packets": 5_757_468,
    }
    assert (swp1.queues[0].tx_packets, swp1.queues[0].dropped_packets) == (33_098_608, 28)


def test_a_clean_fabric_grows_its_counters(leaf2):
    before, after = read(leaf2, "before"), read(leaf2, "after")
    for name in LEAF2:
        old, new = before.ports[name], after.ports[name]
        assert new.pfc_rx[3] > old.pfc_rx[3] and new.pfc_tx[3] > old.pfc_tx[3], name
        assert new.queues[3].tx_packets > old.queues[3].tx_packets, name
        assert new.queues[3].ecn_marked_packets > old.queues[3].ecn_marked_packets, name
        assert new.queues[3].dropped_packets == old.queues[3].dropped_packets == 0, name
        assert new.link_changes == old.link_changes, name


def test_pfc_off_on_swp31(leaf2):
    before = read(leaf2, "before")
    fault = read(leaf2, "after", "faults/pfc-off")
    assert fault.ports["swp31"].pfc_enabled == ()
    assert fault.ports["swp31"].pfc_rx == before.ports["swp31"].pfc_rx  # no pause since
    assert fault.ports["swp31"].pfc_tx == before.ports["swp31"].pfc_tx
    assert [fault.ports[n].pfc_enabled for n in ("swp1", "swp2", "swp32")] == [(3,)] * 3


def test_reset_counters_go_back(leaf2):
    before = read(leaf2, "before")
    reset = read(leaf2, "after", "faults/reset")
    for name in LEAF2:
        old, new = before.ports[name], reset.ports[name]
        assert new.pfc_tx[3] < old.pfc_tx[3] and new.pfc_rx[3] < old.pfc_rx[3], name
        assert new.queues[3].tx_packets < old.queues[3].tx_packets, name
        assert new.queues[3].ecn_marked_packets < old.queues[3].ecn_marked_packets, name


def test_a_deadlock_is_a_storm(leaf2):
    found = outputs(leaf2, "after")

    def deadlock(data: dict) -> None:
        data["status"]["3"] = {"deadlock-count": 1, "status": "DEADLOCK"}

    found["pfc-watchdog-swp1"] = edited(found["pfc-watchdog-swp1"], deadlock)
    watched = state.read(found, leaf2).ports["swp1"].watchdog[3]
    assert (watched.enabled, watched.storms_detected, watched.stormed) == (True, 1, True)


def test_the_watchdog_off(leaf2):
    found = outputs(leaf2, "after")
    found["pfc-watchdog-swp2"] = Output('{"state": "disabled"}', "pfc-watchdog-swp2.json")
    port = state.read(found, leaf2).ports["swp2"]
    assert {p: w.enabled for p, w in port.watchdog.items()} == {3: False}


def test_a_missing_output_is_unread_and_unknown(leaf2):
    found = outputs(leaf2, "after")
    del found["qos-counters-swp1"]
    for what in state.PER_PORT:
        del found[f"{what}-swp2"]
    read_ = state.read(found, leaf2)
    assert [what for what, _ in read_.unread] == [
        "swp1 PFC pause, queue and ingress drop counters",
        "swp2 oper status and link flaps",
        "swp2 operational PFC priorities",
        "swp2 PFC pause, queue and ingress drop counters",
        "swp2 PFC watchdog state",
    ]
    command = "qos-counters-swp1 (nv show interface swp1 counters qos -o json)"
    assert command in read_.unread[0][1]
    swp1 = read_.ports["swp1"]
    assert (swp1.pfc_rx, swp1.queues, swp1.ingress_drops) == ({}, {}, {})
    assert swp1.oper_up is True and swp1.pfc_enabled == (3,)
    swp2 = read_.ports["swp2"]
    assert (swp2.source, swp2.oper_up, swp2.pfc_enabled, swp2.watchdog) == ("", None, None, {})


def test_absent_fields_stay_unknown(leaf2):
    found = outputs(leaf2, "after")

    def bare_link(data: dict) -> None:
        del data["stats"], data["oper-status"], data["state"]

    def no_ecn(data: dict) -> None:
        del data["egress-queue-stats"]["3"]["ecn-marked-frames"]
        del data["egress-queue-stats"]["0"]["tx-uc-buffer-discards"]
        del data["egress-queue-stats"]["0"]["wred-discards"]

    found["link-swp1"] = edited(found["link-swp1"], bare_link)
    found["roce-swp1"] = edited(found["roce-swp1"], lambda data: data.pop("pfc"))
    found["qos-counters-swp1"] = edited(found["qos-counters-swp1"], no_ecn)
    found["pfc-watchdog-swp1"] = edited(found["pfc-watchdog-swp1"], lambda d: d.pop("state"))
    port = state.read(found, leaf2).ports["swp1"]
    assert (port.oper_up, port.link_changes, port.pfc_enabled) == (None, None, None)
    assert port.queues[3].ecn_marked_packets is None
    assert port.queues[3].tx_packets is not None
    assert port.queues[0].dropped_packets is None
    assert port.watchdog[3].enabled is None and port.watchdog[3].storms_detected == 0


def test_state_as_a_key_and_one_way_pfc(leaf2):
    found = outputs(leaf2, "after")

    def down(data: dict) -> None:
        del data["oper-status"]
        data["state"] = {"down": {}}

    def rx_only(data: dict) -> None:
        data["pfc"]["tx-enabled"] = "no"

    found["link-swp32"] = edited(found["link-swp32"], down)
    found["roce-swp32"] = edited(found["roce-swp32"], rx_only)
    port = state.read(found, leaf2).ports["swp32"]
    assert port.oper_up is False
    assert port.pfc_enabled == ()  # paused one way only is not lossless


def test_unrelated_ports_are_ignored(leaf2):
    found = outputs(leaf2, "after")
    for what in state.PER_PORT:
        found[f"{what}-swp10"] = found[f"{what}-swp1"]
    assert tuple(state.read(found, leaf2).ports) == LEAF2


JUNK = {
    "not JSON": "Error: Command not found: counters",
    "a list": "[]",
    "null": "null",
    "nested too deep": "[" * 100_000,
    "a table that is a list": '{"pfc-stats": [1, 2]}',
    "a class that is a string": '{"pfc-stats": {"3": "many"}}',
    "a class out of range": '{"pfc-stats": {"12": {"rx-pause-frames": 1}}}',
    "a counter that is text": '{"pfc-stats": {"3": {"rx-pause-frames": "lots"}}}',
    "huge number as text": '{"pfc-stats": {"3": {"rx-pause-frames": "' + "9" * 5000 + '"}}}',
    "huge number": '{"pfc-stats": {"3": {"rx-pause-frames": ' + "9" * 5000 + "}}}",
    "a counter past 64 bits": '{"pfc-stats": {"3": {"tx-pause-frames": ' + str(2**64) + "}}}",
    "a negative counter": '{"egress-queue-stats": {"3": {"tx-frames": -5}}}',
    "a float counter": '{"egress-queue-stats": {"3": {"tx-frames": 1.5}}}',
    "a true counter": '{"ingress-buffer-stats": {"3": {"rx-buffer-discards": true}}}',
}


@pytest.mark.parametrize("junk", JUNK.values(), ids=JUNK.keys())
def test_junk_raises_only_what_verify_reports(leaf2, junk):
    found = outputs(leaf2, "after")
    found["qos-counters-swp31"] = Output(junk, "leaf2/qos-counters-swp31.json")
    with pytest.raises(READ_ERRORS):
        state.read(found, leaf2)


@pytest.mark.parametrize(
    ("stem", "junk"),
    [
        ("roce-swp1", '{"pfc": {"pfc-priority": "3,8"}}'),
        ("roce-swp1", '{"pfc": {"pfc-priority": [3]}}'),
        ("roce-swp1", '{"pfc": {"pfc-priority": "3", "rx-enabled": "maybe"}}'),
        ("roce-swp1", '{"pfc": "on"}'),
        ("link-swp1", '{"stats": {"carrier-transitions": "x"}}'),
        ("link-swp1", '{"stats": []}'),
        ("pfc-watchdog-swp1", '{"state": 1}'),
        ("pfc-watchdog-swp1", '{"status": {"3": []}}'),
    ],
)
def test_junk_state_raises_only_what_verify_reports(leaf2, stem, junk):
    found = outputs(leaf2, "after")
    found[stem] = Output(junk, f"leaf2/{stem}.json")
    with pytest.raises(READ_ERRORS):
        state.read(found, leaf2)


def test_napalm_mock_serves_the_recordings(leaf2, tmp_path: Path):
    recorded = LAB / "after" / "leaf2"
    commands = state.commands(leaf2)
    mock_folder(recorded, tmp_path, commands)
    driver = MockDriver("leaf2", "cumulus", "secret", optional_args={"path": str(tmp_path)})
    driver.open()
    answer = driver.cli(list(commands.values()))
    for stem, command in commands.items():
        assert answer[command] == (recorded / f"{stem}.json").read_text(), stem
    live = {stem: Output(answer[c], f"leaf2: {c}") for stem, c in commands.items()}
    from_live = state.read(live, leaf2).ports
    assert from_live["swp31"].source == "leaf2: nv show interface swp31 link -o json:1:1"
    assert {n: replace(p, source="", sources={}) for n, p in from_live.items()} == {
        n: replace(p, source="", sources={}) for n, p in read(leaf2, "after").ports.items()
    }


def test_verify_reads_the_recorded_folder(plan):
    from lossless.verify.collect import snapshot_from_folder

    snapshot = snapshot_from_folder(plan, LAB / "after")
    assert snapshot.devices["leaf2"].ports["swp31"].link_changes == 3
