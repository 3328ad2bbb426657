"""Junos configs we did not write: a corpus in the real styles (Apstra/JVD configlets, `show
configuration | display set` of a full running config, repeated and inactive sections), each
clean or with one defect at a known line; Junos defaults; not-a-Junos-config."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from conftest import INVENTORIES, REPO

from lossless.errors import InputError
from lossless.inventory import load_inventory
from lossless.lint.runner import lint
from lossless.planner.fabric import plan_fabric
from lossless.vendors.junos import render as junos_render
from lossless.vendors.junos.parse import parse, parse_file
from lossless.vendors.junos.statements import read

CORPUS = Path(__file__).parent / "configs" / "junos"
GOLDEN = REPO / "golden" / "lab"

# file -> (exit code of `lint --config FILE --os junos`, {(rule, line)} of its findings)
EXPECTED = {
    "apstra-dcqcn-evo.conf": (0, set()),  # Apstra 6.1 configlet in an EVO running config
    "display-set-full.set": (0, set()),  # display set, aliases af31/cs6, deactivate, full config
    "repeated-inactive.conf": (0, set()),  # repeated blocks, inactive:, groups, replace:
    "jvd-leaf-no-watchdog.conf": (1, {("LL114", 66)}),  # the JVD profile has no pfc-watchdog
    "cnp-not-strict.conf": (1, {("LL113", 71)}),  # the CNP scheduler lacks strict-high
    "wred-drop-lossless.set": (1, {("LL122", 20), ("LL110", 19)}),  # drop profile, no ECN
    # pause stops queue 3, RoCE is on 4: RoCE's class is not the one PFC stops, and the queue
    # PFC stops marks no ECN
    "flow-control-wrong-queue.set": (1, {("LL124", 11), ("LL110", 11)}),
    "mtu-default.conf": (None, {("LL118", 2)}),  # no mtu: Junos default 1514, IP MTU 1500
}
# None: the exit code follows the finding's severity (a rule's, not the parser's, choice)


def test_the_corpus_is_all_here():
    assert sorted(p.name for p in CORPUS.iterdir()) == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_corpus_config_lints_as_expected(run, name):
    code, findings = EXPECTED[name]
    path = CORPUS / name
    result = run("lint", "--config", str(path), "--os", "junos", "--format", "json")
    if code is None:
        code = int(any(f["severity"] == "error" for f in json.loads(result.out)))
    assert result.code == code, result.out + result.err
    found = {(f["rule"], f["line"]) for f in json.loads(result.out)}
    assert found == findings
    assert all(f["file"] == str(path) for f in json.loads(result.out))


def _parsed(name: str, hint=None):
    return parse_file(str(CORPUS / name), Path(name).stem, hint)


def test_apstra_configlet_reads_the_jvd_queues():
    device = _parsed("apstra-dcqcn-evo.conf")
    # NO-LOSS queue 4 with PFC priority 3, CNP on queue 3: CNP's TC is not the queue number,
    # which is the lossless priority, but the highest free one
    assert (device.roce_dscp, device.roce_priority) == (26, 3)
    assert (device.cnp_dscp, device.cnp_priority) == (48, 6)
    assert device.maps.tc_to_queue[3] == 4 and device.maps.tc_to_queue[6] == 3
    assert device.maps.pfc_priority_to_queue[3] == 4
    assert [(q.queue, q.scheduler, q.weight, q.traffic) for q in device.queues] == [
        (3, "strict", 5, "cnp"),
        (4, "dwrr", None, "roce"),
    ]
    assert device.buffer_partitions["ingress lossless-headroom"] == 24
    # et-* covers every port; the breakout parent et-0/0/0 carries no traffic itself
    assert sorted(device.ports) == ["et-0/0/0:0", "et-0/0/0:1", "et-0/0/12"]
    port = device.ports["et-0/0/12"]
    assert port.mtu == 9216 - 14 and port.lossless and port.pfc_priorities == [3]
    assert port.cable_m == 100  # no cable-length: the Junos default
    assert [(e.queue, e.min_bytes, e.max_bytes) for e in port.ecn] == [(4, 55, 90)]  # percent
    assert device.ecmp.hashes_udp_source_port is True and device.ecmp.seed is None


def test_display_set_reads_aliases_lists_and_deactivate():
    device = _parsed("display-set-full.set")
    assert [d for d, tc in device.maps.dscp_to_tc.items() if tc == 3] == [26]  # af31
    assert [d for d, tc in device.maps.dscp_to_tc.items() if tc == 6] == [48]  # cs6
    port = device.ports["et-0/0/62"]
    assert port.wred_drop_queues == []  # be-sched's drop profile is deactivated
    assert port.watchdog is not None and port.watchdog.restoration_ms == 400
    assert port.cable_m == 5
    assert device.ecmp.seed == 6212
    assert "em0" not in device.ports and "lo0" not in device.ports


def test_repeated_sections_merge_and_inactive_statements_do_not_count():
    device = _parsed("repeated-inactive.conf")
    assert device.ports["et-0/0/4"].mtu == 9202  # from the second `interfaces` block
    assert device.ports["et-0/0/4"].pfc_priorities == [3]  # the inactive code point 110000
    assert device.ports["et-0/0/4"].wred_drop_queues == []  # the inactive drop-profile-map
    rates = {q.queue: q.weight for q in device.queues}
    assert rates[4] == 50  # not the 10 of the unapplied group


def test_unlisted_code_points_follow_the_junos_default_classifier():
    """A classifier naming 26 and 48 only: cs6/cs7 go to network-control, the rest to
    best-effort; no other DSCP lands in the lossless or the CNP class."""
    device = _parsed("cnp-not-strict.conf")
    table = device.maps.dscp_to_tc
    assert [d for d, tc in table.items() if tc == device.roce_priority] == [26]
    assert [d for d, tc in table.items() if tc == device.cnp_priority] == [48]
    assert table[56] == 7 and device.maps.tc_to_queue[7] == 7  # default network-control
    assert {table[d] for d in range(64) if d not in (26, 48, 56)} == {0}


def test_every_dscp_maps_exactly_the_plans_dscps_to_the_lossless_and_cnp_classes():
    """Our rendered classifier lists all 64 code points; read back with the inventory, exactly
    the hosts' RoCE DSCP is in the lossless class and exactly the CNP DSCP in the CNP class."""
    plan = plan_fabric(load_inventory(INVENTORIES / "lab.yaml"))
    planned = plan.devices["leaf4"]
    text = (GOLDEN / "leaf4.conf").read_text()
    classifier = [s for s in read(text, "x").statements if s.words[1] == "classifiers"]
    listed = sum(len([w for w in s.words[9:] if w not in "[]"]) for s in classifier)
    assert listed == 64
    device = parse(text, "leaf4.conf", "leaf4", planned)
    table = device.maps.dscp_to_tc
    assert [d for d, tc in table.items() if tc == device.roce_priority] == [planned.roce_dscp]
    assert [d for d, tc in table.items() if tc == device.cnp_priority] == [planned.cnp_dscp]
    assert device.roce_priority in device.lossless_priorities
    assert device.cnp_priority not in device.lossless_priorities
    assert table == planned.maps.dscp_to_tc


@pytest.mark.parametrize("name", ["leaf1.json", "leaf2.yaml", "leaf3.cfg", "spine1.cfg"])
def test_another_os_config_is_not_a_junos_config(run, name):
    result = run("lint", "--config", str(GOLDEN / name), "--os", "junos")
    assert result.code == 2
    assert f"{GOLDEN / name}:" in result.err and "this is not a Junos config" in result.err
    assert "Traceback" not in result.err


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "no statements"),
        ("class-of-service {\n    schedulers {\n", "never closed"),
        ("interfaces {\n}\n}\n", "`}` closes no block"),
        ("{\n", "not a Junos config"),
        ("nv set qos roce\n", "looks like NVIDIA NVUE"),
        ("interface Ethernet1/1\n   mtu 9214\n", "looks like an EOS or NX-OS"),
        ("a {\n" * 100, "nested too deep"),
        ("/* never closed\nset interfaces et-0/0/0 mtu 9216\n", "never closed"),
        ("set\n", "names no statement"),
    ],
)
def test_broken_or_foreign_text_is_bad_input_with_a_line(text, message):
    with pytest.raises(InputError) as error:
        parse(text, "x.conf", "x")
    assert message in str(error.value)
    assert str(error.value).startswith("x.conf:")


def test_set_and_brace_formats_read_the_same():
    text = (GOLDEN / "leaf4.conf").read_text()
    set_text = "\n".join("set " + s.text for s in read(text, "x").statements) + "\n"
    brace, flat = parse(text, "b", "leaf4"), parse(set_text, "s", "leaf4")
    assert junos_render.expressed(brace) == junos_render.expressed(flat)


def test_delete_and_deactivate_commands_apply_in_order():
    text = (
        "set interfaces et-0/0/1 mtu 9216\n"
        "delete interfaces et-0/0/1 mtu\n"
        "set interfaces et-0/0/2 description gpu\n"
        "set interfaces et-0/0/2 mtu 9216\n"
        "deactivate interfaces et-0/0/2 mtu\n"
        "set interfaces et-0/0/3 mtu 9216\n"
        "deactivate interfaces et-0/0/3 mtu\n"
        "activate interfaces et-0/0/3 mtu\n"
        "set interfaces et-0/0/1 mtu 9100\n"
    )
    ports = parse(text, "x", "x").ports
    assert {n: p.mtu for n, p in ports.items()} == {
        "et-0/0/1": 9086,
        "et-0/0/2": 1500,  # deactivated: the Junos default
        "et-0/0/3": 9202,
    }


def test_facts_point_at_the_statement_that_states_them():
    device = _parsed("display-set-full.set")
    port = device.ports["et-0/0/0"]
    lines = (CORPUS / "display-set-full.set").read_text().splitlines()

    def line(where: str) -> str:
        return lines[int(where.rsplit(":", 2)[1]) - 1]

    assert line(port.sources["mtu"]) == "set interfaces et-0/0/0 mtu 9216"
    assert "pfc-priority 3" in line(port.sources["pfc_priorities"])
    assert "cable-length 5" in line(port.sources["cable_m"])
    assert "fill-level 10" in line(port.sources["ecn"])
    assert "pfc-watchdog" in line(port.sources["watchdog"])
    assert "flow-control-queue 4" in line(device.sources["pfc_priority_to_queue"])
    assert "cnp-sched priority strict-high" in line(device.sources["queues"])
    assert "seed-value 6212" in line(device.sources["ecmp_seed"])


def test_mutated_configs_parse_or_are_bad_input_never_a_crash():
    """Seeded mutations of the golden config in both formats: dropped, repeated, cut and
    scrambled lines. Each one parses (with the inventory) or is bad input with a line."""
    import random

    plan = plan_fabric(load_inventory(INVENTORIES / "lab.yaml"))
    hint = plan.devices["leaf4"]
    brace = (GOLDEN / "leaf4.conf").read_text()
    flat = "".join(f"set {s.text}\n" for s in read(brace, "x").statements)
    rng = random.Random(11)
    for case in range(300):
        lines = (brace if case % 2 else flat).splitlines()
        for _ in range(rng.randint(1, 4)):
            i = rng.randrange(len(lines))
            kind = rng.randrange(5)
            if kind == 0:
                del lines[i]
            elif kind == 1:
                lines.insert(i, lines[rng.randrange(len(lines))])
            elif kind == 2:
                lines[i] = lines[i][: rng.randrange(len(lines[i]) + 1)]
            elif kind == 3:
                words = lines[i].split()
                rng.shuffle(words)
                lines[i] = " ".join(words)
            else:
                lines[i] = lines[i].replace(rng.choice("0123456789"), rng.choice('[]{};x"#'))
        try:
            device = parse("\n".join(lines), "m.conf", "leaf4", hint)
        except InputError as error:
            assert str(error).startswith("m.conf:"), str(error)
        else:
            junos_render.expressed(device)
            fabric = dataclasses.replace(plan, devices={**plan.devices, "leaf4": device})
            lint(fabric)  # every rule runs on what was read
