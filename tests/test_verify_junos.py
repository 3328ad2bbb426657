"""The Junos state reader (lossless/vendors/junos/state.py) on the lab's leaf4 recordings
(tests/data/verify/lab, formats in tests/data/verify/README.md)."""

from __future__ import annotations

import json
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
from lossless.vendors.junos import VENDOR
from lossless.vendors.junos.state import COMMANDS, commands, read
from lossless.verify.collect import read_device

LAB = VERIFY_DATA / "lab"
DEVICE = "leaf4"
PORTS = ("et-0/0/0", "et-0/0/1", "et-0/0/30", "et-0/0/31")
ROCE_QUEUE, CNP_QUEUE = 4, 6  # forwarding-class NO-LOSS queue-num 4, CNP 6 (golden/lab/leaf4.conf)


@pytest.fixture(scope="module")
def device() -> DevicePlan:
    return lab_device(DEVICE)


def outputs(stage: str, fault: str | None = None) -> dict[str, Output]:
    return lab_outputs(DEVICE, stage, fault)


def state(device: DevicePlan, stage: str = "after", fault: str | None = None) -> DeviceState:
    return read(outputs(stage, fault), device)


def test_clean_fabric_after(device: DevicePlan) -> None:
    after = state(device)
    assert sorted(after.ports) == sorted(PORTS)  # et-0/0/2 and em0 are not planned
    for name in PORTS:
        port = after.ports[name]
        assert port.oper_up is True
        assert port.link_changes == 1
        assert port.pfc_enabled is None  # not shown by Junos: unread, not "off"
        assert sorted(port.queues) == [0, ROCE_QUEUE, CNP_QUEUE, 7]
        assert port.queues[ROCE_QUEUE].dropped_packets == 0
        assert (port.queues[ROCE_QUEUE].ecn_marked_packets or 0) > 0
        assert port.queues[CNP_QUEUE].ecn_marked_packets == 0
        assert port.pfc_rx[3] > 0 and port.pfc_tx[3] > 0
        assert all(port.pfc_rx[p] == 0 for p in range(8) if p != 3)
        assert port.watchdog == {}  # QFX5220 has no PFC watchdog
    port = after.ports["et-0/0/0"]
    assert (port.pfc_rx[3], port.pfc_tx[3]) == (2380, 692)
    assert vars(port.queues[ROCE_QUEUE]) == {
        "tx_packets": 46750000,
        "dropped_packets": 0,
        "ecn_marked_packets": 73900,
    }
    assert after.watchdog_enabled is None
    assert [what for what, _ in after.unread] == ["PFC operational priorities"]


def test_counters_grow_from_before(device: DevicePlan) -> None:
    before, after = state(device, "before"), state(device)
    for name in PORTS:
        was, now = before.ports[name], after.ports[name]
        assert now.pfc_rx[3] > was.pfc_rx[3] and now.pfc_tx[3] > was.pfc_tx[3]
        q_was, q_now = was.queues[ROCE_QUEUE], now.queues[ROCE_QUEUE]
        assert (q_now.ecn_marked_packets or 0) > (q_was.ecn_marked_packets or 0)
        assert q_now.dropped_packets == q_was.dropped_packets == 0


def test_source_points_at_the_port_in_its_output(device: DevicePlan) -> None:
    port = state(device).ports["et-0/0/30"]
    path, line, column = port.source.rsplit(":", 2)
    text = Path(path).read_text().splitlines()[int(line) - 1]
    assert path.endswith("interfaces.json")
    assert text[int(column) - 1 :].startswith('"et-0/0/30"')


def test_ecn_absent_while_the_lossless_queue_drops(device: DevicePlan) -> None:
    folder = LAB / "faults" / "ecn-absent" / DEVICE
    assert [p.name for p in folder.iterdir()] == ["queues.json"]
    before, faulty = state(device, "before"), state(device, fault="ecn-absent")
    for name in PORTS:
        roce = faulty.ports[name].queues[ROCE_QUEUE]
        assert roce.ecn_marked_packets == before.ports[name].queues[ROCE_QUEUE].ecn_marked_packets
        assert (roce.tx_packets or 0) > (before.ports[name].queues[ROCE_QUEUE].tx_packets or 0)
    assert faulty.ports["et-0/0/30"].queues[ROCE_QUEUE].dropped_packets == 6417


def test_missing_output_is_unread(device: DevicePlan) -> None:
    found = outputs("after")
    del found["queues"]
    partial = read(found, device)
    assert (
        "egress queue counters and ECN marked packets",
        f"no output of `{COMMANDS['queues']}`",
    ) in partial.unread
    port = partial.ports["et-0/0/1"]
    assert port.queues == {} and port.oper_up is True and port.pfc_rx[3] == 2093


def test_other_letter_case_maps_to_the_plan(device: DevicePlan) -> None:
    found = {"interfaces": outputs("after")["interfaces"]}
    text = found["interfaces"].text.replace('"et-0/0/31"', '"ET-0/0/31"')
    found["interfaces"] = Output(text, "x/interfaces.json")
    port = read(found, device).ports["et-0/0/31"]
    assert port.oper_up is True and port.source == found["interfaces"].at('"ET-0/0/31"')


def test_absent_fields_stay_unknown(device: DevicePlan) -> None:
    bare = {"interface-information": [{"physical-interface": [{"name": [{"data": "et-0/0/0"}]}]}]}
    found = {stem: Output(json.dumps(bare), f"x/{stem}.json") for stem in COMMANDS}
    port = read(found, device).ports["et-0/0/0"]
    assert (port.oper_up, port.link_changes, port.pfc_enabled) == (None, None, None)
    assert port.queues == {} and port.pfc_rx == {} and port.pfc_tx == {}


def _interface(**leaves: object) -> str:
    body = {"name": [{"data": "et-0/0/0"}], **leaves}
    return json.dumps({"interface-information": [{"physical-interface": [body]}]})


JUNK = [
    "not json {",
    "[]",
    "{}",
    '{"interface-information": {"physical-interface": []}}',
    '{"interface-information": [{"physical-interface": [7, {"name": "et-0/0/0"}]}]}',
    _interface(**{"oper-status": [{"data": ["up"]}], "output-error-list": "x"}),
    _interface(**{"output-error-list": [{"carrier-transitions": [{"data": "9" * 5000}]}]}),
    _interface(
        **{
            "ethernet-mac-pfc-statistics": [
                {"mac-pfc-dot1p": [{"data": "99"}], "input-mac-pfc-frames": [{"data": "1"}]},
                {"mac-pfc-dot1p": [{"data": "3"}], "input-mac-pfc-frames": [{"data": "-5"}]},
            ]
        }
    ),
    _interface(**{"queue-counters": [{"queue": [{"queue-number": [{"data": "1e3"}]}, "q"]}]}),
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
        assert port.link_changes in (None, 1)
        assert set(port.pfc_rx) <= set(range(8))
        assert all(0 <= count < 10**12 for count in port.pfc_rx.values())
        assert set(port.queues) <= {0, ROCE_QUEUE, CNP_QUEUE, 7}


def test_commands_and_vendor(device: DevicePlan) -> None:
    assert VENDOR.state_reader == "lossless.vendors.junos.state"
    assert import_module(VENDOR.state_reader).COMMANDS is COMMANDS
    assert all(c.endswith("| display json") for c in COMMANDS.values())
    assert commands(device) == COMMANDS


def test_napalm_mock_driver_serves_the_recordings(device: DevicePlan, tmp_path: Path) -> None:
    check_mock_driver_serves(read, device, COMMANDS, tmp_path)


# A real vQFX 17.4R1 `show interfaces | display json`, ending in the CLI's {master:0} banner
# (batfish/lab-validation; provenance in tests/data/verify/captures/README.md)
CAPTURE = VERIFY_DATA / "captures" / "junos" / "show_interfaces_display_json.txt"


def _xe_ports(device: DevicePlan) -> DevicePlan:
    """leaf4's plan with its ports named as the capture's switch names them (xe-0/0/N)."""
    return replace(
        device, ports={f"xe-0/0/{i}": port for i, port in enumerate(device.ports.values())}
    )


def test_a_real_capture_with_its_trailing_banner_is_read(device: DevicePlan) -> None:
    text = CAPTURE.read_text()
    assert text.rstrip().endswith("{master:0}")
    found = read_device(_xe_ports(device), {"interfaces": Output(text, str(CAPTURE))}, "x", None)
    assert isinstance(found, DeviceState), found
    assert [found.ports[f"xe-0/0/{i}"].oper_up for i in range(4)] == [True] * 4
    assert found.ports["xe-0/0/0"].source.startswith(f"{CAPTURE}:")


@pytest.mark.parametrize(
    "before, after",
    [
        ("user@qfx> show interfaces extensive | display json\n", "\n{master:0}\nuser@qfx> "),
        ("", "{backup:1}\n"),
        ("", "\n{master:0}[edit]\n"),
        ("leaf4# show interfaces extensive | display json | no-more\n\n", ""),
    ],
)
def test_prompts_and_banners_around_the_json_are_skipped(
    device: DevicePlan, before: str, after: str
) -> None:
    found = outputs("after")
    found["interfaces"] = Output(before + found["interfaces"].text + after, "x/interfaces.json")
    read_back = read_device(device, found, "x", None)
    assert isinstance(read_back, DeviceState), read_back
    assert read_back.ports["et-0/0/0"].oper_up is True
    # where a port was read is still the line of the file (the banner lines are kept blank)
    assert read_back.ports["et-0/0/0"].source == found["interfaces"].at('"et-0/0/0"')


@pytest.mark.parametrize(
    "after", ["\nMessage from syslogd@qfx at Apr 28 23:06:48 ...\n", "\n{master:0}\n{}\n"]
)
def test_other_text_after_the_json_is_still_not_json(device: DevicePlan, after: str) -> None:
    found = outputs("after")
    lines = found["interfaces"].text.count("\n") + 2
    found["interfaces"] = Output(found["interfaces"].text + after, "x/interfaces.json")
    failed = read_device(device, found, "x", None)
    assert not isinstance(failed, DeviceState)
    assert "not JSON" in failed.reason and failed.at.startswith(f"x/interfaces.json:{lines}:")
