"""Change impact (docs/change-impact.md): every change of a diff is hitless or disruptive with
the reason its OS documents, PFC changes that must land on both ends of a link are ordered into
one phase, and push batches follow that order (napalm's mock driver, as
tests/test_deploy_live.py). Backups are the golden lab configs with real-style edits."""

from __future__ import annotations

import json
import shutil

import pytest
from conftest import INVENTORIES, REPO
from test_deploy_live import DIFF, _golden_file, _raises, _results, _running, mock  # noqa: F401

from lossless.deploy.impact import classify
from lossless.deploy.order import ChangeOrder, Link, Phase, broken_links, push_batches
from lossless.vendors.impact import DISRUPTIVE, HITLESS

LAB = str(INVENTORIES / "lab.yaml")
GOLDEN = REPO / "golden" / "lab"


@pytest.fixture
def backups(tmp_path):
    folder = tmp_path / "oxidized"
    shutil.copytree(GOLDEN, folder, ignore=shutil.ignore_patterns("hosts", "README.md"))
    return folder


def _edit(path, old, new):
    text = path.read_text()
    assert old in text, old
    path.write_text(text.replace(old, new, 1))


def _edit_sonic(path, table, key, field, value):
    db = json.loads(path.read_text())
    db[table][key][field] = value
    path.write_text(json.dumps(db, indent=4))


def _diff(run, folder, *args):
    result = run("diff", LAB, "--running", str(folder), "--format", "json", *args)
    assert result.code in (0, 1), result.err
    return result.code, json.loads(result.out)


def _device(report, name):
    [entry] = [d for d in report["devices"] if d["device"] == name]
    return entry


def _impacts(report, name):
    return [(i["impact"], i["pfc_coupled"], i["change"]) for i in _device(report, name)["impacts"]]


# -- the cases ---------------------------------------------------------------------------


def test_a_pfc_priority_change_on_both_ends_of_a_link_is_disruptive_and_ordered(run, backups):
    # leaf1 (SONiC) has PFC off on its uplink to spine1, spine1 (EOS) lacks the no-drop
    # priority: both ends of leaf1:Ethernet248 - spine1:Ethernet1/1 change PFC
    _edit_sonic(backups / "leaf1.json", "PORT_QOS_MAP", "Ethernet248", "pfc_enable", "")
    _edit(backups / "spine1.cfg", "   priority-flow-control priority 3 no-drop\n", "")
    # leaf4 (Junos) only changes an ECN threshold
    _edit(backups / "leaf4.conf", "fill-level [ 15 51 ];", "fill-level [ 5 50 ];")
    _, report = _diff(run, backups)
    assert _impacts(report, "leaf1") == [
        (DISRUPTIVE, True, "replace /PORT_QOS_MAP/Ethernet248/pfc_enable")
    ]
    assert _impacts(report, "spine1") == [
        (
            DISRUPTIVE,
            True,
            "qos profile ROCE_LOSSLESS > priority-flow-control priority 3 no-drop",
        )
    ]
    [leaf1] = _device(report, "leaf1")["impacts"]
    assert leaf1["port"] == "Ethernet248"
    assert "pauses and honours" in leaf1["reason"]
    assert "docs/reference/vendors.md 11e" in leaf1["source"]
    # the documented order: hitless first, the coupled pair together in one phase, last
    assert report["order"]["phases"] == [
        {"phase": 1, "kind": "hitless", "why": "hitless changes only", "devices": ["leaf4"]},
        {
            "phase": 2,
            "kind": "pfc-coupled",
            "why": "PFC-coupled across links: push together, in one batch",
            "devices": ["leaf1", "spine1"],
            "links": ["leaf1:Ethernet248 - spine1:Ethernet1/1"],
        },
    ]
    assert report["order"]["split_links"] == []
    assert _device(report, "leaf1")["phase"] == _device(report, "spine1")["phase"] == 2
    assert _device(report, "leaf3")["phase"] is None  # nothing to change
    assert report["summary"]["disruptive_changes"] == 2
    assert report["summary"]["disruptive_devices"] == 2
    assert report["summary"]["pfc_coupled_devices"] == 2


def test_the_order_and_the_summary_are_printed_with_the_text_diff(run, backups):
    _edit_sonic(backups / "leaf1.json", "PORT_QOS_MAP", "Ethernet248", "pfc_enable", "")
    _edit(backups / "spine1.cfg", "   priority-flow-control priority 3 no-drop\n", "")
    result = run("diff", LAB, "--running", str(backups))
    assert result.code == 0, result.err
    lines = result.out.splitlines()
    assert (
        f"leaf1 (sonic, json-patch, {backups / 'leaf1.json'}): 1 change, 1 disruptive, phase 1"
        in lines
    )
    assert "    disruptive, PFC-coupled  replace /PORT_QOS_MAP/Ethernet248/pfc_enable" in lines
    assert "order (docs/change-impact.md):" in lines
    assert (
        "  phase 1, PFC-coupled across links: push together, in one batch: leaf1, spine1 "
        "(links leaf1:Ethernet248 - spine1:Ethernet1/1)"
    ) in lines
    assert lines[-1] == (
        "summary: 2 changed, 4 unchanged, 0 missing backup; 2 disruptive changes on 2 devices, "
        "2 devices with PFC-coupled changes"
    )


def test_a_cumulus_hash_seed_change_restarts_switchd(run, backups):
    _edit(backups / "leaf2.yaml", "hash-seed: 5846", "hash-seed: 17")
    _, report = _diff(run, backups)
    [impact] = _device(report, "leaf2")["impacts"]
    assert impact["change"].startswith("nv set system forwarding hash-seed 5846")
    assert impact["impact"] == DISRUPTIVE and not impact["pfc_coupled"]
    assert impact["reason"].startswith("restarts switchd: every port on the switch resets")
    assert impact["source"] == "docs/reference/vendors.md 11d item 2 [SRC]"
    assert report["order"]["phases"][0]["kind"] == "disruptive"


def test_a_description_only_change_is_hitless(run, backups):
    _edit(backups / "spine1.cfg", "   description fabric downlink\n", "   description old\n")
    code, report = _diff(run, backups, "--fail-on", "disruptive")
    assert code == 0
    assert _impacts(report, "spine1") == [
        (HITLESS, False, "interface Ethernet1/1 > no description old"),
        (HITLESS, False, "interface Ethernet1/1 > description fabric downlink"),
    ]
    assert report["order"]["phases"] == [
        {"phase": 1, "kind": "hitless", "why": "hitless changes only", "devices": ["spine1"]}
    ]
    assert report["summary"]["disruptive_changes"] == 0


# -- every OS: a disruptive and a hitless change, as its diff states them -----------------------

CASES = {
    # OS: (device, file, edits, expected (impact, coupled, change) in the diff's order)
    "sonic": (
        "leaf1",
        "leaf1.json",
        [
            ("PORT", "Ethernet0", "mtu", "9000"),
            ("WRED_PROFILE", "ROCE_150000_500000_P100", "green_max_threshold", "3000000"),
        ],
        [
            (
                HITLESS,
                False,
                "replace /WRED_PROFILE/ROCE_150000_500000_P100/green_max_threshold",
            ),
            (DISRUPTIVE, False, "replace /PORT/Ethernet0/mtu"),
        ],
    ),
    "cumulus": (
        "leaf2",
        "leaf2.yaml",
        [
            ("cable-length: 50", "cable-length: 10"),
            ("max-threshold: 500000", "max-threshold: 1500000"),
        ],
        [
            (
                HITLESS,
                False,
                "nv set qos congestion-control default-global traffic-class 3 max-threshold 500000",
            ),
            (DISRUPTIVE, False, "nv set qos pfc roce-50m cable-length 50"),
        ],
    ),
    "eos": (
        "spine1",
        "spine1.cfg",
        [
            ("maximum-threshold 500 kbytes", "maximum-threshold 3000 kbytes"),
            (
                "ip load-sharing trident fields ip source-ip destination-ip source-port",
                "ip load-sharing trident fields ip source-ip destination-ip",
            ),
        ],
        None,  # checked by kind below: ECN hitless, the ECMP fields disruptive
    ),
    "nxos": (
        "leaf3",
        "leaf3.cfg",
        [
            ("maximum-threshold 500 kbytes", "maximum-threshold 3000 kbytes"),
            ("    pause pfc-cos 3\n", ""),
        ],
        None,
    ),
    "junos": (
        "leaf4",
        "leaf4.conf",
        [
            ("fill-level [ 15 51 ];", "fill-level [ 5 50 ];"),
            ("        mtu 9114;\n", "        mtu 9000;\n"),
        ],
        None,
    ),
}


@pytest.mark.parametrize("os_name", sorted(CASES))
def test_each_os_has_a_disruptive_and_a_hitless_change(run, backups, os_name):
    device, file, edits, expected = CASES[os_name]
    path = backups / file
    for edit in edits:
        if file.endswith(".json"):
            _edit_sonic(path, *edit)
        else:
            _edit(path, *edit)
    code, report = _diff(run, backups, "--device", device, "--fail-on", "disruptive")
    assert code == 1  # a disruptive change fails the gate
    found = _impacts(report, device)
    if expected is not None:
        assert found == expected
    kinds = {impact for impact, _, _ in found}
    assert kinds == {HITLESS, DISRUPTIVE}, found
    for impact in _device(report, device)["impacts"]:
        assert impact["reason"] and impact["source"], impact


def test_each_os_states_why_for_its_disruptive_cases(run, backups):
    _edit(backups / "leaf3.cfg", "    pause pfc-cos 3\n", "")
    _edit(backups / "leaf4.conf", "        mtu 9114;\n", "        mtu 9000;\n")
    _edit(
        backups / "spine1.cfg",
        "ip load-sharing trident fields ip source-ip destination-ip source-port",
        "ip load-sharing trident fields ip source-ip destination-ip",
    )
    _, report = _diff(run, backups)
    reasons = {
        name: [i["reason"] for i in _device(report, name)["impacts"] if i["impact"] == DISRUPTIVE]
        for name in ("leaf3", "leaf4", "spine1")
    }
    assert any("no-drop classes" in r for r in reasons["leaf3"]), reasons
    assert any("deleted and added again" in r for r in reasons["leaf4"]), reasons
    assert any("ECMP rehash" in r for r in reasons["spine1"]), reasons


# -- the gate and the exit codes -------------------------------------------------------------------


def test_fail_on_disruptive_and_exit_code_are_separate(run, backups):
    _edit(backups / "leaf2.yaml", "hash-seed: 5846", "hash-seed: 17")
    assert run("diff", LAB, "--running", str(backups)).code == 0
    assert run("diff", LAB, "--running", str(backups), "--exit-code").code == 1
    assert run("diff", LAB, "--running", str(backups), "--fail-on", "disruptive").code == 1
    assert run("diff", LAB, "--running", str(GOLDEN), "--fail-on", "disruptive").code == 0
    assert run("diff", LAB, "--running", str(backups), "--fail-on", "anything").code == 2


def test_a_coupled_change_whose_peer_has_no_backup_is_a_split_link(run, backups):
    _edit(backups / "spine1.cfg", "   priority-flow-control priority 3 no-drop\n", "")
    (backups / "leaf1.json").unlink()
    _, report = _diff(run, backups)
    assert report["order"]["split_links"] == [
        "spine1:Ethernet1/1 - leaf1:Ethernet248 (leaf1's change is not known here)"
    ]
    text = run("diff", LAB, "--running", str(backups)).out
    assert (
        "  split link spine1:Ethernet1/1 - leaf1:Ethernet248 (leaf1's change is not known here): "
        "its ends disagree on PFC until both are changed"
    ) in text.splitlines()


# -- the mechanism ------------------------------------------------------------------------------


def test_a_change_no_rule_knows_is_disruptive():
    [impact] = classify("cumulus", "nvue-commands", ["nv set qos advance-buffer-config x y"])
    assert impact.impact == DISRUPTIVE
    assert impact.reason.startswith("lossless does not know what this change does")


def test_a_whole_table_add_is_judged_by_its_fields():
    op = {
        "op": "add",
        "path": "/PORT_QOS_MAP",
        "value": {"Ethernet0": {"dscp_to_tc_map": "ROCE", "pfc_enable": "3"}},
    }
    [impact] = classify("sonic", "json-patch", [op])
    assert (impact.impact, impact.link, impact.port) == (DISRUPTIVE, True, "Ethernet0")
    assert impact.change == "add /PORT_QOS_MAP"


def test_cli_remediation_units_carry_their_sections():
    lines = [
        "interface Ethernet1/31",
        "  description uplink",
        "  priority-flow-control mode on",
        "policy-map type queuing QOS_EGRESS",
        "  class type queuing c-out-8q-q3",
        "    random-detect minimum-threshold 150 kbytes maximum-threshold 500 kbytes",
    ]
    found = classify("nxos", "remediation", lines)
    assert [(i.index, i.impact, i.link, i.port) for i in found] == [
        (1, HITLESS, False, "Ethernet1/31"),
        (2, DISRUPTIVE, True, "Ethernet1/31"),
        (5, HITLESS, False, None),
    ]
    assert found[2].change.startswith("policy-map type queuing QOS_EGRESS > class type queuing")


def _order(*phases):
    return ChangeOrder(list(phases), [])


def test_push_batches_never_split_a_coupled_group():
    order = _order(
        Phase(1, "hitless", ["a", "b"]),
        Phase(2, "disruptive", ["c"]),
        Phase(3, "pfc-coupled", ["d", "e", "f"]),
        Phase(4, "unchanged", ["g"]),
    )
    assert push_batches(order, canary=1, batch_size=2) == [
        ["a"],
        ["b", "c"],
        ["d", "e", "f"],
        ["g"],
    ]
    assert push_batches(order, canary=0, batch_size=10) == [["a", "b", "c", "d", "e", "f", "g"]]
    # a canary that falls on a coupled group brings the whole group
    coupled_first = _order(Phase(1, "pfc-coupled", ["d", "e"]), Phase(2, "hitless", ["a"]))
    assert push_batches(coupled_first, canary=1, batch_size=5) == [["d", "e"], ["a"]]


def test_a_failure_inside_a_coupled_batch_names_the_links_left_disagreeing():
    link = Link("leaf3", "Ethernet1/31", "spine1", "Ethernet3/1")
    order = _order(Phase(1, "pfc-coupled", ["leaf3", "spine1"], [link]))
    assert broken_links(order, failed={"leaf3"}, changed={"spine1"}) == {
        "spine1": ["leaf3:Ethernet1/31 - spine1:Ethernet3/1 (leaf3 failed)"]
    }
    assert broken_links(order, failed=set(), changed={"leaf3", "spine1"}) == {}


# -- push follows the order (napalm mock driver) -------------------------------------------------

# leaf3 (NX-OS) and spine1 (EOS) both change PFC on their link; leaf4 (Junos) only ECN.
RUNNING = {
    "leaf3": ("leaf3.cfg", ("    pause pfc-cos 3\n", "")),
    "spine1": ("spine1.cfg", ("   priority-flow-control priority 3 no-drop\n", "")),
    "leaf4": ("leaf4.conf", ("fill-level [ 15 51 ];", "fill-level [ 5 50 ];")),
}


def _record(mock, load_fails: str | None = None):  # noqa: F811
    root = None
    for device, (file, change) in RUNNING.items():
        load = (
            _raises("MergeConfigException", "simulated load failure")
            if device == load_fails
            else {}
        )
        root = mock(
            device,
            get_config__1=_running(file, change),
            load_merge_candidate__1=load,
            compare_config__1={"diff": DIFF},
            discard_config__1={},
        )
    return root


def _push(run, root, *args):
    return run(
        "push",
        LAB,
        "--device",
        "leaf3,leaf4,spine1",
        "--canary",
        "1",
        "--batch-size",
        "1",
        "--mock",
        str(root),
        "--format",
        "json",
        *args,
    )


def test_the_dry_run_shows_the_batches_in_the_change_order(run, mock):  # noqa: F811
    result = _push(run, _record(mock))
    assert result.code == 0, result.out + result.err
    report = json.loads(result.out)
    assert report["order"]["batches"] == [["leaf4"], ["leaf3", "spine1"]]
    assert [p["kind"] for p in report["order"]["phases"]] == ["hitless", "pfc-coupled"]
    devices = _results(result)
    assert devices["leaf3"]["phase"] == devices["spine1"]["phase"] == 2
    assert {d["status"] for d in devices.values()} == {"would-change"}
    text = _push(run, _record(mock), "--format", "text").out
    assert "push plan: 2 batches, in this order:" in text
    assert "  batch 1 (canary): leaf4" in text
    assert "  batch 2: leaf3, spine1, 2 > 1: a PFC-coupled group is not split" in text


def test_a_failing_canary_stops_before_the_coupled_pair(run, mock):  # noqa: F811
    result = _push(run, _record(mock, load_fails="leaf4"))
    assert result.code == 1
    devices = _results(result)
    assert devices["leaf4"]["status"] == "failed"
    assert devices["leaf3"]["status"] == devices["spine1"]["status"] == "skipped"


def test_the_two_ends_of_a_coupled_link_go_in_the_same_batch(run, mock):  # noqa: F811
    # leaf3 fails in batch 2; spine1 is in that batch too, so it was worked on, not skipped
    result = _push(run, _record(mock, load_fails="leaf3"))
    assert result.code == 1
    devices = _results(result)
    assert devices["leaf4"]["status"] == "would-change"
    assert devices["leaf3"]["status"] == "failed"
    assert devices["spine1"]["status"] == "would-change"


def test_a_commit_that_leaves_a_link_peer_out_is_refused(run, mock):  # noqa: F811
    root = _record(mock)
    result = run(
        "push", LAB, "--device", "spine1", "--commit", "--mock", str(root), "--format", "json"
    )
    assert result.code == 1
    spine1 = _results(result)["spine1"]
    assert spine1["status"] == "skipped"
    assert spine1["message"].startswith("not pushed: PFC-coupled changes would leave")
    assert "spine1:Ethernet3/1 - leaf3:Ethernet1/31" in spine1["message"]
    # the dry run shows the same plan without refusing
    dry = run("push", LAB, "--device", "spine1", "--mock", str(root), "--format", "json")
    assert dry.code == 0
    assert json.loads(dry.out)["order"]["split_links"]


def test_a_push_whose_running_config_cannot_be_read_pushes_nothing(run, mock):  # noqa: F811
    root = _record(mock)
    (root / "leaf4" / "get_config.1").unlink()  # reading leaf4 fails
    result = _push(run, root)
    assert result.code == 1
    devices = _results(result)
    assert devices["leaf4"]["status"] == "failed"
    assert devices["leaf4"]["message"].startswith("read: ")
    for name in ("leaf3", "spine1"):
        assert devices[name]["status"] == "skipped"
        assert devices[name]["message"].startswith("not pushed: the change order needs")


def test_the_live_diff_classifies_and_orders_like_the_offline_one(run, mock, backups):  # noqa: F811
    root = _record(mock)
    result = run(
        "diff", LAB, "--live", "--mock", str(root), "--format", "json", "--fail-on", "disruptive"
    )
    assert result.code == 1  # PFC changes are disruptive
    live = json.loads(result.out)
    for file, change in RUNNING.values():
        _edit(backups / file, *change)
    _, offline = _diff(run, backups)
    for device in RUNNING:
        assert _results(result)[device]["impacts"] == _device(offline, device)["impacts"]
    # SONiC and Cumulus have no napalm driver: unknown here, so their links to spine1 split
    assert [p["devices"] for p in live["order"]["phases"]] == [["leaf4"], ["leaf3", "spine1"]]
    assert (
        "spine1:Ethernet1/1 - leaf1:Ethernet248 (leaf1's change is not known here)"
        in (live["order"]["split_links"])
    )


def test_a_pfc_change_on_a_server_port_alone_is_its_own_phase(run, backups):
    _edit_sonic(backups / "leaf1.json", "PORT_QOS_MAP", "Ethernet0", "pfc_enable", "")
    _, report = _diff(run, backups)
    assert _impacts(report, "leaf1") == [
        (DISRUPTIVE, True, "replace /PORT_QOS_MAP/Ethernet0/pfc_enable")
    ]
    [phase] = report["order"]["phases"]
    assert phase["kind"] == "pfc-coupled" and phase["devices"] == ["leaf1"]
    assert phase["why"] == "PFC change, no switch link peer changing PFC with it"
    assert "links" not in phase and report["order"]["split_links"] == []
