"""`verify --state DIR` judges each switch where its outputs are read (verify/saved.py) and
keeps of it only the findings and what the link rules read of a peer: it finds what judging
the whole snapshot finds (judge.judge), in one process and in workers, with and without a
baseline, on the lab's recordings and each seeded fault; the link rules read nothing of a
port beyond the fields kept; a baseline that is not one is refused as before."""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path

import pytest
from conftest import INVENTORIES
from verify_recordings import LAB

from lossless.errors import InputError
from lossless.inventory import load_inventory
from lossless.observed import PortState
from lossless.planner.fabric import plan_fabric
from lossless.system import parallel
from lossless.verify import judge as judging
from lossless.verify.collect import load_snapshot, snapshot_from_folder
from lossless.verify.judge import judge, state_rules
from lossless.verify.rules import JUDGES, READS_PEER
from lossless.verify.saved import judge_saved

PLAN = plan_fabric(load_inventory(str(INVENTORIES / "lab.yaml")), hosts=False)
FAULTS = LAB / "faults"


def _state(tmp_path: Path, fault: str | None) -> Path:
    """after/ with a fault's files laid over it; "broken": a switch unreadable, another
    missing, a third's PFC off (pfc-off) so that LL301 names a peer that cannot be read."""
    folder = tmp_path / (fault or "clean")
    shutil.copytree(LAB / "after", folder)
    if fault in FAULT_NAMES:
        shutil.copytree(FAULTS / fault, folder, dirs_exist_ok=True)
    if fault == "broken":
        shutil.copytree(FAULTS / "pfc-off", folder, dirs_exist_ok=True)
        (folder / "leaf1" / "counters.json").write_text('{"COUNTERS:oid:0x1": ')
        shutil.rmtree(folder / "leaf3")
    return folder


FAULT_NAMES = sorted(p.name for p in FAULTS.iterdir())


def _trimmed(name: str, state: PortState) -> PortState:
    """The port's state as judge_saved keeps it for the link rules."""
    return judging.state_of(name, judging.kept(state))


def _both(tmp_path, fault, baseline):
    state = _state(tmp_path, fault)
    before = snapshot_from_folder(PLAN, LAB / "before", baseline=True) if baseline else None
    whole = judge(PLAN, snapshot_from_folder(PLAN, state), before)
    streamed = judge_saved(PLAN, state, LAB / "before" if baseline else None, "before")
    return whole, streamed


@pytest.mark.parametrize("baseline", [False, True])
@pytest.mark.parametrize("fault", [None, *FAULT_NAMES, "broken"])
def test_judged_where_read_finds_what_the_whole_snapshot_finds(tmp_path, fault, baseline):
    whole, streamed = _both(tmp_path, fault, baseline)
    assert streamed == whole
    if fault in ("pfc-off", "broken"):  # the link rule ran, naming the peer as it runs PFC
        peers = [f.message for f in streamed.findings if f.rule == "LL301"]
        assert peers and any("; " in message for message in peers), peers


@pytest.mark.parametrize("fault", ["pfc-off", "broken"])
def test_judged_in_workers_finds_the_same(tmp_path, monkeypatch, fault):
    state = _state(tmp_path, fault)
    before = snapshot_from_folder(PLAN, LAB / "before", baseline=True)
    whole = judge(PLAN, snapshot_from_folder(PLAN, state), before)
    monkeypatch.setattr(parallel, "MIN_ITEMS", 1)  # the lab's 6 switches, in workers
    monkeypatch.setenv("LOSSLESS_JOBS", "2")
    assert parallel._in_workers(len(PLAN.devices))
    assert judge_saved(PLAN, state, LAB / "before", "before") == whole


def test_a_snapshot_file_as_baseline_is_judged_alike(tmp_path, run):
    snapshot = tmp_path / "before.json"
    lab = str(INVENTORIES / "lab.yaml")
    run("verify", lab, "--state", str(LAB / "before"), "--snapshot", str(snapshot))
    state = _state(tmp_path, "storm")
    before = load_snapshot(snapshot)
    whole = judge(PLAN, snapshot_from_folder(PLAN, state), before)
    assert judge_saved(PLAN, state, before, str(snapshot)) == whole
    assert any(f.rule == "LL304" for f in whole.findings)


def test_the_link_rules_read_only_the_fields_kept_of_each_end(tmp_path):
    """Each READS_PEER rule over every lab port beside its peer, with PFC on, off and
    unknown at either end: the views of the whole states and of the states trimmed to
    the rule's JUDGES fields give the same findings (a rule reading another field of the
    port or its peer would tell them apart)."""
    now = snapshot_from_folder(PLAN, _state(tmp_path, "pfc-off"))
    rules = [r for r in state_rules() if r.id in READS_PEER]
    checked = 0
    for shown in [None, (), (3,), (3, 4)]:
        for name, state in now.devices.items():
            device = PLAN.devices[name]
            mutated = {
                port: dataclasses.replace(found, pfc_enabled=shown) if index % 2 else found
                for index, (port, found) in enumerate(state.ports.items())
            }
            trimmed = {port: _trimmed(port, found) for port, found in mutated.items()}
            for views in (mutated, trimmed):
                assert all(isinstance(v, PortState) for v in views.values())

            def peer_in(ports, shown=shown, mutated=mutated):
                def peer(text):
                    peer_device, _, peer_port = text.partition(":")
                    found = now.devices.get(peer_device)
                    if found is None or peer_port not in found.ports:
                        return None
                    whole = dataclasses.replace(found.ports[peer_port], pfc_enabled=shown)
                    return whole if ports is mutated else _trimmed(peer_port, whole)

                return peer

            results = []
            for ports in (mutated, trimmed):
                device_state = dataclasses.replace(state, ports=ports)
                found = []
                views = judging.port_views(PLAN, device, device_state, None, peer_in(ports))
                for view in views:
                    for rule_ in rules:
                        found += [(rule_.id, view.port.name, str(i)) for i in rule_.check(view)]
                        found.append(view.now.at(*JUDGES[rule_.id]))
                        checked += 1
                results.append(found)
            assert results[0] == results[1]
    assert checked > 50


def _baseline_of_another_os(run, snapshot: Path, device: str, os_name: str) -> Path:
    """The lab's before/ saved as a snapshot file, `device` in it said to run `os_name`."""
    lab = str(INVENTORIES / "lab.yaml")
    run("verify", lab, "--state", str(LAB / "before"), "--snapshot", str(snapshot))
    data = json.loads(snapshot.read_text())
    data["devices"][device]["os"] = os_name
    snapshot.write_text(json.dumps(data))
    return snapshot


def test_a_baseline_of_another_fabric_is_refused(tmp_path, run):
    """A baseline snapshot whose spine1 is another OS: exit 2 naming the baseline, as
    check_baseline says it of the whole snapshot."""
    lab = str(INVENTORIES / "lab.yaml")
    snapshot = _baseline_of_another_os(run, tmp_path / "before.json", "spine1", "sonic")
    result = run("verify", lab, "--state", str(LAB / "after"), "--baseline", str(snapshot))
    assert result.code == 2
    assert f"{snapshot}:1:1: spine1 is 'sonic' in the baseline but eos now" in result.err
    with pytest.raises(InputError, match="spine1 is 'sonic'"):
        judge_saved(PLAN, LAB / "after", load_snapshot(snapshot), str(snapshot))


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_the_snapshot_is_written_as_the_switches_are_read(tmp_path, run, monkeypatch, jobs):
    """`verify --state --snapshot` never builds the snapshot: each switch's text is written
    as it comes back, the same bytes as the whole snapshot's (a switch unreadable, another
    missing: its failures), and the report is the one without --snapshot."""
    from lossless.verify import collect

    lab = str(INVENTORIES / "lab.yaml")
    state = _state(tmp_path, "broken")
    whole = collect.snapshot_json(snapshot_from_folder(PLAN, state))
    monkeypatch.setattr(parallel, "MIN_ITEMS", 1)
    monkeypatch.setenv("LOSSLESS_JOBS", jobs)
    built = []
    reading = collect.snapshot_from_folder
    monkeypatch.setattr(
        collect, "snapshot_from_folder", lambda *a, **k: built.append(1) or reading(*a, **k)
    )
    argv = [
        "verify",
        lab,
        "--state",
        str(state),
        "--baseline",
        str(LAB / "before"),
        "--format",
        "json",
    ]
    saved = run(*argv, "--snapshot", str(tmp_path / "s.json"))
    alone = run(*argv)
    assert not built
    assert saved.code == alone.code == 1
    assert json.loads(saved.out) == json.loads(alone.out)
    assert (tmp_path / "s.json").read_text() == whole
    assert "lossless: snapshot written to" in saved.err


def test_no_snapshot_is_left_by_a_baseline_refused(tmp_path, run):
    lab = str(INVENTORIES / "lab.yaml")
    snapshot = _baseline_of_another_os(run, tmp_path / "before.json", "leaf1", "eos")
    result = run(
        "verify", lab, "--state", str(LAB / "after"), "--baseline", str(snapshot),
        "--snapshot", str(tmp_path / "now.json"),
    )  # fmt: skip
    assert result.code == 2
    assert "leaf1 is 'eos' in the baseline" in result.err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["before.json"]


def test_bad_input_found_in_a_worker_is_said_as_it_was_found(tmp_path, run, monkeypatch):
    """A saved collected-at that is not a time, read in a worker process: exit 2 naming the
    file, as in one process."""
    state = _state(tmp_path, None)
    (state / "leaf2" / "collected-at").write_text("yesterday\n")
    monkeypatch.setattr(parallel, "MIN_ITEMS", 1)
    monkeypatch.setenv("LOSSLESS_JOBS", "2")
    result = run("verify", str(INVENTORIES / "lab.yaml"), "--state", str(state))
    assert result.code == 2
    assert result.err.count("\n") < 5, result.err
    assert f"{state / 'leaf2' / 'collected-at'}:1:1: not seconds since the epoch" in result.err
