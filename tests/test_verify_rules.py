"""The state rules (LL301-LL312) over states built by hand for the lab fabric: each fault
gives its finding at the port and counter, a clean state none, deltas against a baseline,
counters that went backwards, and snapshots saved and loaded (and refused when junk)."""

from __future__ import annotations

import copy
import json

import pytest
from conftest import INVENTORIES

from lossless.errors import InputError
from lossless.inventory import load_inventory
from lossless.observed import DeviceState, PortState, QueueCounters, WatchdogCounters
from lossless.planner.fabric import plan_fabric
from lossless.verify.collect import Snapshot, load_snapshot, snapshot_json
from lossless.verify.judge import judge, lossless_queues

PLAN = plan_fabric(load_inventory(str(INVENTORIES / "lab.yaml")), hosts=False)
T0, T1 = 1_790_000_000.0, 1_790_000_300.0


def _healthy_port(name: str, queue: int, scale: int) -> PortState:
    return PortState(
        name,
        f"state/{name}:1:1",
        oper_up=True,
        link_changes=2,
        pfc_enabled=(3,),
        pfc_rx={3: 100 * scale, 0: 0},
        pfc_tx={3: 50 * scale},
        queues={queue: QueueCounters(1_000_000 * scale, 0, 2_000 * scale)},
        ingress_drops={3: 0},
        watchdog={3: WatchdogCounters(True, 0, 0, False)},
    )


def _snapshot(at: float, scale: int) -> Snapshot:
    snapshot = Snapshot()
    for name, device in PLAN.devices.items():
        queue = lossless_queues(device)[3]
        snapshot.devices[name] = DeviceState(
            name,
            device.os,
            f"state/{name}",
            at,
            {p: _healthy_port(p, queue, scale) for p in device.ports},
            watchdog_enabled=True,
        )
    return snapshot


BEFORE, AFTER = _snapshot(T0, 1), _snapshot(T1, 2)


def _judged(after: Snapshot, before: Snapshot | None = BEFORE):
    return judge(PLAN, after, before).findings


def _only(findings, rule):
    found = [f for f in findings if f.rule == rule]
    assert found, [f"{f.rule} {f.message}" for f in findings]
    return found


def test_a_healthy_fabric_passes_with_and_without_a_baseline():
    assert _judged(AFTER) == []
    assert _judged(AFTER, None) == []


def test_the_junos_roce_queue_is_queue_4():
    assert lossless_queues(PLAN.devices["leaf4"]) == {3: 4}
    assert lossless_queues(PLAN.devices["leaf1"]) == {3: 3}


def test_pfc_off_on_one_end_names_the_peer():
    after = copy.deepcopy(AFTER)
    after.devices["spine1"].ports["Ethernet3/1"].pfc_enabled = ()
    [finding] = _judged(after)
    assert (finding.rule, finding.severity) == ("LL301", "error")
    assert (finding.device, finding.port) == ("spine1", "Ethernet3/1")
    assert finding.message == (
        "PFC is operationally off for priority 3 (plan: priority 3, on: none); "
        "leaf3:Ethernet1/31 runs PFC on priority 3"
    )
    assert finding.source == "state/Ethernet3/1:1:1"


def test_pfc_on_a_lossy_priority_is_a_warning():
    after = copy.deepcopy(AFTER)
    after.devices["leaf2"].ports["swp1"].pfc_enabled = (3, 4)
    [finding] = _judged(after)
    assert (finding.rule, finding.severity) == ("LL301", "warning")
    assert "priority 4, which the plan leaves lossy" in finding.message


def test_drops_on_the_lossless_queue_with_no_ecn_marking():
    after = copy.deepcopy(AFTER)
    queue = after.devices["leaf4"].ports["et-0/0/30"].queues[4]
    queue.dropped_packets, queue.ecn_marked_packets = 1_234, 2_000  # marking unchanged
    [finding] = _judged(after)
    assert finding.rule == "LL302" and finding.severity == "error"
    assert finding.message == (
        "egress queue 4 (priority 3, lossless) dropped 1,234 packets in the 300 s since the "
        "baseline, and ECN marked none: ECN is not marking before the queue overflows"
    )


def test_drops_with_ecn_marking_say_how_much_was_marked():
    after = copy.deepcopy(AFTER)
    after.devices["leaf1"].ports["Ethernet0"].queues[3].dropped_packets = 10
    [finding] = _judged(after)
    assert finding.message.endswith("(ECN marked 2,000)")


def test_paused_without_ecn_marking_is_a_warning():
    after = copy.deepcopy(AFTER)
    after.devices["spine2"].ports["Ethernet0"].queues[3].ecn_marked_packets = 2_000
    [finding] = _judged(after)
    assert (finding.rule, finding.severity) == ("LL303", "warning")
    assert finding.message == (
        "priority 3 was paused 100 times in the 300 s since the baseline and egress queue 3 "
        "(priority 3) marked no packet with ECN"
    )


def test_a_storm_detected_and_one_going_on():
    after = copy.deepcopy(AFTER)
    after.devices["leaf3"].ports["Ethernet1/1"].watchdog[3] = WatchdogCounters(True, 1, 1, False)
    after.devices["leaf1"].ports["Ethernet0"].watchdog[3] = WatchdogCounters(True, 1, 0, True)
    findings = _only(_judged(after), "LL304")
    assert [(f.device, f.message) for f in findings] == [
        ("leaf1", "priority 3 is in a PFC storm now: the watchdog has taken it over"),
        (
            "leaf3",
            "the PFC watchdog detected 1 pause storm on priority 3 in the 300 s since the "
            "baseline, 1 restored",
        ),
    ]


def test_watchdog_off_per_port_and_per_switch():
    after = copy.deepcopy(AFTER)
    after.devices["leaf2"].ports["swp2"].watchdog[3].enabled = False
    after.devices["spine2"].watchdog_enabled = False
    findings = _judged(after)
    assert {(f.rule, f.device) for f in findings} == {("LL305", "leaf2"), ("LL312", "spine2")}


def test_a_pause_rate_that_could_keep_the_link_paused():
    after = copy.deepcopy(AFTER)
    # 400G: one frame of 65,535 quanta pauses 83.9 us; 1,200 frames/s is 10 % of the time
    after.devices["leaf1"].ports["Ethernet4"].pfc_rx[3] = 100 + 1_200 * 300
    [finding] = _judged(after)
    assert finding.rule == "LL307"
    assert finding.message == (
        "received 1,200 pause frames/s on priority 3 in the 300 s since the baseline: paused "
        "up to 10% of the time"
    )


def test_pause_frames_counted_per_port_only():
    # EOS and NX-OS count pause frames per port: LL307 and LL303 judge the port's
    before, after = copy.deepcopy(BEFORE), copy.deepcopy(AFTER)
    for snapshot, frames in ((before, 1_000), (after, 1_000 + 1_300 * 300)):
        port = snapshot.devices["spine1"].ports["Ethernet2/1"]
        port.pfc_rx, port.pfc_tx = {}, {}
        port.pause_rx_frames, port.pause_tx_frames = frames, 5
    after.devices["spine1"].ports["Ethernet2/1"].queues[3].ecn_marked_packets = 2_000
    findings = judge(PLAN, after, before).findings
    assert {(f.rule, f.port) for f in findings} == {
        ("LL307", "Ethernet2/1"),
        ("LL303", "Ethernet2/1"),
    }
    rate = _only(findings, "LL307")[0]
    assert rate.message == (
        "received 1,300 pause frames/s on the port (all priorities) in the 300 s since the "
        "baseline: paused up to 11% of the time"
    )
    assert _only(findings, "LL303")[0].message.startswith(
        "the port was paused (all priorities) 390,000 times"
    )


def test_pause_frames_for_a_lossy_priority():
    after = copy.deepcopy(AFTER)
    after.devices["leaf1"].ports["Ethernet252"].pfc_rx[0] = 7
    [finding] = _judged(after)
    assert finding.rule == "LL306"
    assert "received 7 pause frames from spine2:Ethernet0 for priority 0" in finding.message


def test_ingress_drops_and_a_link_down():
    after = copy.deepcopy(AFTER)
    after.devices["leaf2"].ports["swp31"].ingress_drops[3] = 5
    after.devices["leaf3"].ports["Ethernet1/2"].oper_up = False
    findings = _judged(after)
    assert {(f.rule, f.port) for f in findings} == {("LL308", "swp31"), ("LL311", "Ethernet1/2")}


@pytest.mark.parametrize("now", [3, 4, 6])
def test_a_link_change_counter_that_grew_is_a_flap(now):
    """An up port's link state change counter grew since the baseline: the link went down
    and came back, however the OS counts (EOS counts downs and ups: an up vEOS port shows 2
    or 4; halving 2 -> 3 found no flap). Equal counts are none."""
    after = copy.deepcopy(AFTER)
    after.devices["spine1"].ports["Ethernet1/1"].link_changes = now
    [finding] = _judged(after)
    assert (finding.rule, finding.port) == ("LL311", "Ethernet1/1")
    assert finding.message.endswith(f"(its link state change counter grew by {now - 2})")
    assert _judged(after, None) == []  # without a baseline, a count is no growth


def test_a_baseline_of_halved_flaps_is_not_compared(tmp_path):
    """A snapshot saved before link_changes has link_flaps (halved changes): it is not
    compared with the counts read now, and LL310 says the baseline lacks them."""
    saved = json.loads(snapshot_json(BEFORE))
    for device in saved["devices"].values():
        for port in device["ports"].values():
            port["link_flaps"] = port.pop("link_changes") // 2  # what an older lossless saved
    path = tmp_path / "old.json"
    path.write_text(json.dumps(saved))
    findings = _judged(AFTER, load_snapshot(path))
    assert not [f for f in findings if f.rule == "LL311"]
    assert any("baseline lacks" in f.message for f in findings if f.rule == "LL310")


def test_counters_that_went_backwards_are_judged_from_zero():
    after = copy.deepcopy(AFTER)
    port = after.devices["leaf3"].ports["Ethernet1/31"]
    port.queues[3] = QueueCounters(10, 3, 0)  # cleared: 3 drops since
    port.pfc_rx[3] = 1
    findings = _judged(after)
    reset = _only(findings, "LL309")[0]
    assert reset.severity == "warning" and "Ethernet1/31" in reset.message
    drop = _only(findings, "LL302")[0]
    assert "dropped 3 packets" in drop.message


def test_an_unread_device_is_an_error_and_unread_outputs_warnings():
    after = copy.deepcopy(AFTER)
    del after.devices["leaf4"]
    after.failures["leaf4"] = "connect: timed out"
    after.devices["leaf2"].unread.append(("ECN-marked counters", "queue.out missing"))
    del after.devices["spine1"].ports["Ethernet4/1"]
    findings = _judged(after)
    assert {f.source for f in findings if f.device == "leaf4"} == {PLAN.devices["leaf4"].source}
    unread = sorted((f.device, f.severity, f.message) for f in findings if f.rule == "LL310")
    assert unread == [
        ("leaf2", "warning", "not checked: ECN-marked counters (queue.out missing)"),
        ("leaf4", "error", "not verified: connect: timed out"),
        ("spine1", "warning", "no state for 1 planned port: Ethernet4/1"),
    ]


def test_select_and_ignore_apply():
    after = copy.deepcopy(AFTER)
    after.devices["leaf2"].ports["swp31"].ingress_drops[3] = 5
    assert judge(PLAN, after, BEFORE, ignore=["LL308"]).findings == []
    assert judge(PLAN, after, BEFORE, select=["LL301"]).findings == []


def test_a_snapshot_round_trips(tmp_path):
    after = copy.deepcopy(AFTER)
    after.failures["leaf4"] = "connect: timed out"
    del after.devices["leaf4"]
    path = tmp_path / "snap.json"
    path.write_text(snapshot_json(after))
    loaded = load_snapshot(path)
    assert loaded == after
    assert snapshot_json(loaded) == path.read_text()


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ("[]", ""),
        ('{"format": "lossless-state-snapshot", "version": 2}', "version"),
        (
            '{"format": "lossless-state-snapshot", "version": 1, "devices": {"leaf1": '
            '{"os": "sonic", "source": "x", "ports": {"Ethernet0": {"source": "x", '
            '"pfc_rx": {"3": -1}}}}}}',
            "devices.leaf1.ports.Ethernet0.pfc_rx.3",
        ),
        (
            '{"format": "lossless-state-snapshot", "version": 1, "devices": {"leaf1": '
            '{"os": "sonic", "source": "x", "ports": {"Ethernet0": {"source": "x", '
            '"pfc_enabled": [9]}}}}}',
            "devices.leaf1.ports.Ethernet0.pfc_enabled",
        ),
        ("{" * 5000, ""),
        ("not json", ""),
    ],
)
def test_a_junk_snapshot_is_bad_input_naming_where(tmp_path, text, where):
    path = tmp_path / "snap.json"
    path.write_text(text)
    with pytest.raises(InputError) as raised:
        load_snapshot(path)
    [problem] = raised.value.problems
    assert problem.file == str(path) and problem.path == where


def test_snapshot_json_is_plain_json():
    data = json.loads(snapshot_json(AFTER))
    assert data["devices"]["leaf1"]["ports"]["Ethernet0"]["queues"]["3"] == {
        "tx_packets": 2_000_000,
        "dropped_packets": 0,
        "ecn_marked_packets": 4_000,
    }


# -- 2^64 - 1, "unsupported" ---------------------------------------------------------------


def _unsupported(node, keys: set[str]):
    """The JSON with every value of the keys set to 2^64 - 1 (a Junos leaf's "data" too)."""
    sentinel = 2**64 - 1
    if isinstance(node, list):
        return [_unsupported(item, keys) for item in node]
    if not isinstance(node, dict):
        return node
    found = {}
    for key, value in node.items():
        if key in keys and isinstance(value, list):  # Junos: [{"data": "12"}]
            found[key] = [{"data": str(sentinel)}]
        elif key in keys:
            found[key] = sentinel if isinstance(value, int) else str(sentinel)
        else:
            found[key] = _unsupported(value, keys)
    return found


@pytest.mark.parametrize(
    ("device", "stem", "keys", "read"),
    [
        ("spine1", "queue_counters", {"droppedPackets"}, lambda p: p.queues[3].dropped_packets),
        ("leaf3", "pfc", {"rx-stats"}, lambda p: p.pause_rx_frames),
        (
            "leaf4",
            "queues",
            {"queue-counters-total-drop-packets"},
            lambda p: p.queues[4].dropped_packets,
        ),
        (
            "leaf2",
            "qos-counters-swp1",
            {"tx-uc-buffer-discards", "wred-discards"},
            lambda p: p.queues[3].dropped_packets,
        ),
    ],
)
def test_an_unsupported_counter_reads_as_unknown(device, stem, keys, read):
    from verify_recordings import lab_device, lab_outputs

    from lossless.observed import Output
    from lossless.verify.collect import reader

    plan = lab_device(device)
    outputs = lab_outputs(device, "after")
    data = _unsupported(json.loads(outputs[stem].text), keys)
    outputs[stem] = Output(json.dumps(data), outputs[stem].source)
    state = reader(plan.os).read(outputs, plan)
    # the first planned port (swp1 for Cumulus, whose outputs are per port)
    assert read(state.ports[next(iter(plan.ports))]) is None
