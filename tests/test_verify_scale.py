"""What makes `verify --state` fast at fabric scale (benchmarks/bench_verify.py, issue 37)
changes nothing it reports: a switch folder listed once reads the same outputs as a file
looked up per command (symlinks, folders named like outputs, a folder that cannot be
listed), a baseline read without locations judges the same, judging in worker processes
gives the same findings in the same order, and LL309/LL310's counter comparison names what
the generic walk over every counter it replaced named."""

from __future__ import annotations

import io
import json
import os
import shutil

import pytest
from conftest import INVENTORIES
from hypothesis import given, settings
from hypothesis import strategies as st
from verify_recordings import LAB

from lossless.errors import UsageError
from lossless.inventory import load_inventory
from lossless.observed import DeviceState, Output, PortState, QueueCounters, WatchdogCounters
from lossless.planner.fabric import plan_fabric
from lossless.system import parallel
from lossless.verify import collect, rules
from lossless.verify.collect import snapshot_from_folder, snapshot_json
from lossless.verify.judge import judge

PLAN = plan_fabric(load_inventory(str(INVENTORIES / "lab.yaml")), hosts=False)


def _copy(tmp_path, which: str = "after"):
    folder = tmp_path / which
    shutil.copytree(LAB / which, folder)
    return folder


# -- a switch folder listed once -----------------------------------------------------------


def test_a_folder_that_cannot_be_listed_is_read_file_by_file(tmp_path, monkeypatch):
    folder = _copy(tmp_path)
    listed = snapshot_json(snapshot_from_folder(PLAN, folder))

    def refused(path):
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(collect.os, "scandir", refused)  # a folder with x but not r
    assert snapshot_json(snapshot_from_folder(PLAN, folder)) == listed


def test_an_output_that_is_a_folder_gives_way_to_the_json_one(tmp_path):
    folder = _copy(tmp_path)
    (folder / "leaf1" / "port_table.out").mkdir()  # not a file: the recording's .json is read
    before = snapshot_json(snapshot_from_folder(PLAN, _copy(tmp_path / "plain")))
    assert snapshot_json(snapshot_from_folder(PLAN, folder)) == before.replace(
        str(tmp_path / "plain"), str(tmp_path)
    )


def test_an_output_symlinked_inside_the_folder_is_read_and_outside_refused(tmp_path):
    folder = _copy(tmp_path)
    device = folder / "leaf1"
    (device / "port_table.json").rename(device / "saved-port-table")
    (device / "port_table.out").symlink_to("saved-port-table")
    state = snapshot_from_folder(PLAN, folder).devices["leaf1"]
    assert state.ports["Ethernet0"].oper_up is True
    outside = tmp_path / "outside.json"
    (device / "saved-port-table").rename(outside)
    (device / "port_table.out").unlink()
    (device / "port_table.out").symlink_to(outside)
    with pytest.raises(UsageError, match="leads outside"):
        snapshot_from_folder(PLAN, folder)


def test_a_hidden_partial_output_is_never_read(tmp_path):
    folder = _copy(tmp_path)
    device = folder / "leaf1"
    (device / "port_table.json").rename(device / ".port_table.out.x1Y2z3")
    state = snapshot_from_folder(PLAN, folder).devices["leaf1"]
    assert state.ports["Ethernet0"].oper_up is None
    assert any("port_table" in why for _, why in state.unread)


# -- a baseline is read without locations --------------------------------------------------


def test_an_output_not_located_says_line_1():
    output = Output('{\n  "a": 1\n}', "f.json", located=False)
    assert output.at('"a"') == "f.json:1:1"
    assert Output('{\n  "a": 1\n}', "f.json").at('"a"') == "f.json:2:3"


@pytest.mark.parametrize("fault", [None, "storm", "reset", "pfc-off", "ecn-absent"])
def test_a_baseline_read_without_locations_judges_the_same(tmp_path, fault):
    now_folder = _copy(tmp_path)
    if fault:
        shutil.copytree(LAB / "faults" / fault, now_folder, dirs_exist_ok=True)
    now = snapshot_from_folder(PLAN, now_folder)
    located = snapshot_from_folder(PLAN, LAB / "before")
    unlocated = snapshot_from_folder(PLAN, LAB / "before", baseline=True)
    # the same counters, and no location looked up (nor `unread` said) in the baseline
    for name, state in located.devices.items():
        other = unlocated.devices[name]
        for port, seen in state.ports.items():
            assert other.ports[port].queues == seen.queues
            assert other.ports[port].pfc_rx == seen.pfc_rx
            assert all(s.endswith(":1:1") for s in other.ports[port].sources.values())
    assert judge(PLAN, now, located).findings == judge(PLAN, now, unlocated).findings


def test_reading_in_workers_only_reports_what_one_process_reports(tmp_path, monkeypatch):
    """Saved state is read only in worker processes (collect.snapshot_from_folder): a switch
    a worker cannot read (its output not JSON, its folder missing) is the same LL310 error,
    pointing at the same file:line, as when this process reads it; the states come back
    whole and in order."""
    folder = _copy(tmp_path)
    (folder / "leaf1" / "counters.json").write_text('{"COUNTERS:oid:0x1": ')
    shutil.rmtree(folder / "spine1")
    alone_snapshot = snapshot_from_folder(PLAN, folder)
    alone = judge(PLAN, alone_snapshot).findings
    readers = tmp_path / "readers"
    readers.mkdir()
    read_saved = collect.read_saved

    def marked(*args, **kwargs):  # which processes read (a forked worker's list is its own)
        (readers / str(os.getpid())).touch()
        return read_saved(*args, **kwargs)

    monkeypatch.setattr(collect, "read_saved", marked)
    monkeypatch.setattr(parallel, "MIN_ITEMS", 1)  # the lab's 6 switches, in workers
    monkeypatch.setenv("LOSSLESS_JOBS", "2")
    shared = snapshot_from_folder(PLAN, folder)
    assert {p.name for p in readers.iterdir()} and str(os.getpid()) not in {
        p.name for p in readers.iterdir()
    }
    assert snapshot_json(shared) == snapshot_json(alone_snapshot)
    assert shared.failed_at == alone_snapshot.failed_at
    assert judge(PLAN, shared).findings == alone
    failed = {f.device: f for f in alone if f.rule == "LL310" and f.severity == "error"}
    assert set(failed) == {"leaf1", "spine1"}
    assert "counters.json" in failed["leaf1"].source


# -- --snapshot written as it is made ------------------------------------------------------


def _whole(snapshot: collect.Snapshot) -> str:
    """The snapshot's JSON made whole in memory, as `verify --snapshot` made it before it was
    written device by device (2.6 GB at 32,768 GPUs)."""
    data = {
        "format": collect.SNAPSHOT_FORMAT,
        "version": collect.SNAPSHOT_VERSION,
        "devices": {name: state.to_dict() for name, state in sorted(snapshot.devices.items())},
        "failures": dict(sorted(snapshot.failures.items())),
    }
    return json.dumps(data, indent=2, sort_keys=True) + "\n"


def test_a_snapshot_written_device_by_device_is_the_whole_ones_text(tmp_path):
    folder = _copy(tmp_path)
    (folder / "leaf1" / "counters.json").write_text("not json")
    shutil.rmtree(folder / "spine1")
    snapshot = snapshot_from_folder(PLAN, folder)
    assert snapshot.failures and snapshot.devices
    assert snapshot_json(snapshot) == _whole(snapshot)
    state = next(iter(snapshot.devices.values()))
    state.unread.append(('a "quoted"\nname', "\u00e9\\"))  # escapes stay on their line
    odd = collect.Snapshot(devices={'leaf "9"\u00e9': state}, failures={})
    assert snapshot_json(odd) == _whole(odd)
    assert snapshot_json(collect.Snapshot()) == _whole(collect.Snapshot())


def test_a_snapshot_is_written_before_the_next_device_is_made(monkeypatch):
    """Each device's dict is made when the devices before it are written out (held whole,
    a 32k fabric's snapshot peaked at 2.6 GB)."""
    snapshot = snapshot_from_folder(PLAN, LAB / "after")
    stream = io.StringIO()
    written = []
    to_dict = DeviceState.to_dict

    def made(state):
        written.append(len(stream.getvalue()))
        return to_dict(state)

    monkeypatch.setattr(DeviceState, "to_dict", made)
    collect.write_snapshot(stream, snapshot)
    assert len(written) == len(snapshot.devices) > 1
    assert written == sorted(set(written))  # more written before each


# -- LL309 and LL310 compare a port's counters field by field ------------------------------


def _pairs_reference(now: PortState, before: PortState):
    """The generic walk _went_back and _lacks replaced (rules.py before issue 37's speed
    work): (name template, key, now, baseline) of every counter of the port."""
    yield "link state changes", None, now.link_changes, before.link_changes
    yield "pause frames received", None, now.pause_rx_frames, before.pause_rx_frames
    yield "pause frames sent", None, now.pause_tx_frames, before.pause_tx_frames
    for field, what in (
        ("pfc_rx", "priority {} pause frames received"),
        ("pfc_tx", "priority {} pause frames sent"),
        ("ingress_drops", "priority group {} ingress drops"),
    ):
        mine, theirs = getattr(now, field), getattr(before, field)
        for key in sorted(mine.keys() | theirs.keys()):
            yield what, key, mine.get(key), theirs.get(key)
    empty = QueueCounters()
    for queue in sorted(now.queues.keys() | before.queues.keys()):
        a, b = now.queues.get(queue) or empty, before.queues.get(queue) or empty
        yield "queue {} packets", queue, a.tx_packets, b.tx_packets
        yield "queue {} drops", queue, a.dropped_packets, b.dropped_packets
        yield "queue {} ECN marks", queue, a.ecn_marked_packets, b.ecn_marked_packets
    watch = WatchdogCounters()
    for priority in sorted(now.watchdog.keys() | before.watchdog.keys()):
        a_, b_ = now.watchdog.get(priority) or watch, before.watchdog.get(priority) or watch
        yield "priority {} watchdog storms", priority, a_.storms_detected, b_.storms_detected


_COUNT = st.one_of(st.none(), st.integers(0, 5))
_KEYS = st.integers(0, 7)


@st.composite
def _ports(draw):
    def port() -> PortState:
        return PortState(
            "Ethernet0",
            "f:1:1",
            link_changes=draw(_COUNT),
            pause_rx_frames=draw(_COUNT),
            pause_tx_frames=draw(_COUNT),
            pfc_rx=draw(st.dictionaries(_KEYS, st.integers(0, 5), max_size=3)),
            pfc_tx=draw(st.dictionaries(_KEYS, st.integers(0, 5), max_size=3)),
            ingress_drops=draw(st.dictionaries(_KEYS, st.integers(0, 5), max_size=3)),
            queues=draw(
                st.dictionaries(_KEYS, st.builds(QueueCounters, _COUNT, _COUNT, _COUNT), max_size=3)
            ),
            watchdog=draw(
                st.dictionaries(
                    _KEYS, st.builds(WatchdogCounters, st.none(), _COUNT, _COUNT), max_size=3
                )
            ),
        )

    return port(), port()


@settings(max_examples=400, deadline=None)
@given(_ports())
def test_counters_compared_with_the_baseline_as_the_generic_walk_did(ports):
    now, before = ports
    walk = list(_pairs_reference(now, before))
    went_back = [w.format(k) for w, k, x, y in walk if x is not None and y is not None and x < y]
    lacks = any(x is not None and y is None for _, _, x, y in walk)
    assert rules._went_back(now, before) == went_back
    assert rules._lacks(now, before) == lacks


def test_the_listing_and_the_lookups_by_name_agree_on_every_lab_output(tmp_path):
    folder = _copy(tmp_path)
    for device in PLAN.devices.values():
        where = folder / device.name
        listed = collect._listed(where, {collect.file_stem(s) for s in collect.commands(device)})
        assert listed is not None and "collected-at" not in listed  # only the stems' files
        for stem in collect.commands(device):
            name = collect.file_stem(stem)
            assert collect._saved(where, name, listed) == collect._saved(where, name, None)
