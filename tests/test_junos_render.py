"""What the Junos output says, line by line, against the JVD and Juniper's documented values,
and that it reads back as the plan (vendors/junos.py)."""

from __future__ import annotations

import dataclasses
import math

import pytest
from conftest import INVENTORIES

from lossless.inventory import load_inventory
from lossless.lint.drift import drift
from lossless.planner.fabric import plan_fabric
from lossless.vendors.junos import render as junos_render
from lossless.vendors.junos.parse import parse
from lossless.vendors.junos.statements import read
from lossless.vendors.registry import not_expressed, vendor_for
from lossless.vendors.rendering import render_device

JUNOS_LEAF = """
fabric:
  name: j
  policy:
    mtu: {mtu}
    ecmp: {{hash_fields: {fields}}}
devices:
  leaf1:
    role: leaf
    os: junos
    asic: tomahawk-3
    platform: QFX5220-32CD
    ports:
      et-0/0/[0:1]: {{speed: 400G}}
servers:
  gpu1:
    nics:
      eth[0:1]: {{speed: 400G}}
links:
  - {{a: "leaf1:et-0/0/[0:1]", b: "gpu1:eth[0:1]", cable_m: 3}}
"""


@pytest.fixture(scope="module")
def lab():
    return plan_fabric(load_inventory(INVENTORIES / "lab.yaml"))


@pytest.fixture(scope="module")
def leaf4(lab):
    return lab.devices["leaf4"], render_device(lab.devices["leaf4"], lab)


def _statements(text: str) -> set[str]:
    return {s.text for s in read(text, "x").statements}


def test_queues_as_the_jvd_has_them(leaf4):
    _, text = leaf4
    lines = _statements(text)
    cos = "class-of-service "
    # NO-LOSS on queue 4 [JVD]: queue 3 is the default lossless fcoe class
    assert cos + "forwarding-classes class NO-LOSS queue-num 4 no-loss pfc-priority 3" in lines
    profile = cos + "congestion-notification-profile ROCE_PFC_1M "
    assert profile + "output ieee-802.1 code-point 011 flow-control-queue 4" in lines
    # CNP strict-high with a transmit rate, which caps what it takes [SCHED] [APSTRA]
    assert cos + "schedulers S_CNP priority strict-high" in lines
    assert cos + "schedulers S_CNP transmit-rate percent 5" in lines
    # network-control gets a share: a scheduler map gives classes it leaves out nothing
    assert cos + "scheduler-maps ROCE_SM forwarding-class network-control scheduler S_NC" in lines
    assert cos + "schedulers S_NC transmit-rate percent 5" in lines
    rates = [int(s.split()[-1]) for s in lines if "transmit-rate percent" in s]
    assert sorted(rates) == [5, 5, 45, 45] and sum(rates) == 100


def test_interface_mtu_counts_the_ethernet_header(leaf4, lab):
    device, text = leaf4
    assert "interfaces et-0/0/0 mtu 9114" in _statements(text)  # IP MTU 9100 + 14
    assert parse(text, "x", "leaf4").ports["et-0/0/0"].mtu == device.ports["et-0/0/0"].mtu


def test_an_mtu_junos_cannot_take_is_bad_input(write, run):
    path = write(JUNOS_LEAF.format(mtu=9216, fields="[src-ip, dst-ip, src-port, dst-port]"))
    result = run("render", str(path), "-o", str(path.parent / "out"))
    assert result.code == 2
    assert "above the QFX maximum of 9216" in result.err + result.out
    assert not (path.parent / "out" / "leaf1.conf").exists()


def test_ecn_fill_levels_are_percent_of_the_queues_partition_share(leaf4):
    """fill = thresholds / (P/100 * PFC trigger), P the egress lossless partition."""
    device, text = leaf4
    ecn = device.ports["et-0/0/0"].ecn[0]
    share = junos_render.partitions(device)["egress lossless"]
    buffer = share / 100 * ecn.pfc_trigger_bytes
    low = math.floor(100 * ecn.min_bytes / buffer + 0.5)
    high = math.floor(100 * ecn.max_bytes / buffer + 0.5)
    assert 0 < low < high < 100  # both thresholds mark before the queue's buffer is full
    assert f"class-of-service drop-profiles ROCE_ECN interpolate fill-level [ {low} {high} ]" in (
        _statements(text)
    )


def test_shared_buffer_partitions_are_the_jvds(leaf4):
    """With headroom that fits the JVD's 10 %, the JVD's partitions; the lab's leaf4 needs more
    (32 ports of TH3 headroom: test_the_headroom_partition_grows_to_hold_the_planned_headroom)
    and its rendered partitions are what partitions() says."""
    device, text = leaf4
    budget = device.budget
    small = dataclasses.replace(budget, total_headroom_bytes=budget.buffer_bytes // 20)
    assert junos_render.partitions(dataclasses.replace(device, budget=small)) == {
        "ingress lossless": 80,
        "ingress lossless-headroom": 10,
        "ingress lossy": 10,
        "egress lossless": 90,
        "egress lossy": 10,
    }
    lines = _statements(text)
    for key, percent in junos_render.partitions(device).items():
        side, partition = key.split()
        statement = f"class-of-service shared-buffer {side} buffer-partition {partition} percent"
        assert f"{statement} {percent}" in lines


def test_partitions_from_the_planned_need_are_the_jvds_where_it_fits(tmp_path):
    """Issue 39: a QFX5220-32CD (Tomahawk 3) with 3 m 400G links. Its planned headroom is
    9,176,512 B of 66,394,076 B at a 1:1 shared headroom pool (32 ports): 14 %, so the
    headroom partition is 14 (30 before issue 39's model, 19,417,792 B). At over-subscribe
    ratio 2 the need (reserved xon + half the xoff) is under 10 % and the config commits the
    JVD's partitions exactly: ingress lossless 80, lossless-headroom 10, lossy 10
    (configlet_dcqcn.tf, commit 0966905)."""
    inventory = tmp_path / "fabric.yaml"
    text = JUNOS_LEAF.format(mtu=9100, fields="[src-ip, dst-ip, src-port]")
    inventory.write_text(text)
    device = plan_fabric(load_inventory(inventory)).devices["leaf1"]
    assert device.budget.total_headroom_bytes == 9_176_512
    assert junos_render.partitions(device)["ingress lossless-headroom"] == 14
    inventory.write_text(
        text.replace("  policy:\n", "  policy:\n    headroom: {over_subscribe_ratio: 2}\n", 1)
    )
    plan = plan_fabric(load_inventory(inventory))
    device = plan.devices["leaf1"]
    assert device.budget.total_headroom_bytes <= device.budget.buffer_bytes // 10
    lines = _statements(render_device(device, plan))
    for side, partition, percent in (
        ("ingress", "lossless", 80),
        ("ingress", "lossless-headroom", 10),
        ("ingress", "lossy", 10),
        ("egress", "lossless", 90),
        ("egress", "lossy", 10),
    ):
        statement = f"class-of-service shared-buffer {side} buffer-partition {partition} percent"
        assert f"{statement} {percent}" in lines


def test_the_headroom_partition_grows_to_hold_the_planned_headroom(leaf4):
    device, _ = leaf4
    budget = device.budget
    big = dataclasses.replace(budget, total_headroom_bytes=budget.buffer_bytes * 23 // 100)
    shares = junos_render.partitions(dataclasses.replace(device, budget=big))
    assert shares["ingress lossless-headroom"] == 23
    assert shares["ingress lossless"] == 67
    # the egress pool holds no headroom: it keeps the JVD's 90/10 (configlet_dcqcn.tf, commit
    # 0966905: egress lossless 90, lossy 10, while ingress lossless is 80)
    assert (shares["egress lossless"], shares["egress lossy"]) == (90, 10)
    assert sum(v for k, v in shares.items() if k.startswith("ingress")) == 100
    assert sum(v for k, v in shares.items() if k.startswith("egress")) == 100


def test_hash_seed_and_fields(leaf4, write):
    device, text = leaf4
    lines = _statements(text)
    assert f"forwarding-options enhanced-hash-key hash-seed seed-value {device.ecmp.seed}" in lines
    assert not any(" enhanced-hash-key inet " in s for s in lines)  # every field is hashed
    plan = plan_fabric(
        load_inventory(write(JUNOS_LEAF.format(mtu=9100, fields="[src-ip, dst-ip, dst-port]")))
    )
    other = render_device(plan.devices["leaf1"], plan)
    exclusions = {s.split()[-1] for s in _statements(other) if " enhanced-hash-key inet " in s}
    assert exclusions == {"no-protocol", "no-l4-source-port"}
    parsed = parse(other, "x", "leaf1")
    assert parsed.ecmp.hash_fields == ["src-ip", "dst-ip", "dst-port"]
    assert parsed.ecmp.hashes_udp_source_port is False


def test_the_classifier_lists_every_code_point_once(leaf4):
    _, text = leaf4
    codes = []
    for s in read(text, "x").statements:
        if s.words[1] == "classifiers":
            codes += [w for w in s.words[s.words.index("code-points") + 1 :] if w not in "[]"]
    assert sorted(codes) == [format(d, "06b") for d in range(64)]


def test_what_junos_cannot_say_is_listed(leaf4):
    device, _ = leaf4
    listed = dict(not_expressed(device))
    assert set(listed) == {
        "ECMP hash offset / rotate",
        "ECMP resilient hashing",
        "PFC headroom bytes (the switch sizes headroom itself)",
        # leaf4 is a QFX5220: Juniper documents `pfc-watchdog` on QFX5230/QFX5240 only
        "PFC watchdog",
    }
    assert "consistent-hash" in listed["ECMP resilient hashing"]
    assert "QFX5220-32CD" in listed["PFC watchdog"]
    assert "23.4R2" in listed["PFC watchdog"]


def test_the_rendered_config_read_back_with_the_inventory_has_no_drift(leaf4):
    device, text = leaf4
    parsed = parse(text, "leaf4.conf", "leaf4", device)
    assert drift(device, parsed, vendor_for("junos")) == []
    assert junos_render.expressed(parsed) == junos_render.expressed(
        junos_render.as_rendered(device)
    )


def test_as_rendered_swaps_the_roce_queue_with_queue_4_only(leaf4):
    device, _ = leaf4
    rendered = junos_render.as_rendered(device)
    assert rendered.maps.tc_to_queue == {0: 0, 1: 1, 2: 2, 3: 4, 4: 3, 5: 5, 6: 6, 7: 7}
    assert [(q.queue, q.traffic) for q in rendered.queues] == [
        (0, "default"),
        (4, "roce"),
        (6, "cnp"),
        (7, "default"),
    ]
    assert device.maps.tc_to_queue[3] == 3  # the plan itself is left alone


def test_the_readme_excerpt_is_the_golden_output():
    readme = (INVENTORIES.parent / "docs" / "rendering.md").read_text()
    start = readme.index("Juniper Junos (`leaf4.conf`, excerpt")
    excerpt = readme[
        readme.index("```\n", start) + 4 : readme.index("```", readme.index("```\n", start) + 4)
    ]
    assert excerpt in (INVENTORIES.parent / "golden" / "lab" / "leaf4.conf").read_text()


def test_no_empty_blocks_without_lossless_ports(write):
    path = write(
        "fabric:\n  name: j\ndevices:\n  leaf1:\n    role: leaf\n    os: junos\n"
        "    asic: tomahawk-3\n    ports:\n      et-0/0/0: {speed: 400G, lossless: false}\n"
    )
    plan = plan_fabric(load_inventory(path))
    text = render_device(plan.devices["leaf1"], plan)
    assert "{\n    }" not in text and "{\n        }" not in text
    assert "congestion-notification-profile" not in text
    assert parse(text, "x", "leaf1").ports["et-0/0/0"].lossless is False
