"""SONiC's ECMP hash seed comes from DEVICE_METADATA type (issue 39): read from a running
config_db and judged (LL117, drift, `diff --running`), and rendered per tier where the
inventory hands it to lossless (policy.ecmp.device_type).

Published values: sonic-net/sonic-buildimage dockers/docker-orchagent/switch.json.j2 (ToRRouter
0, LeafRouter 10, SpineRouter 25, FabricSpineRouter 40 and UpperSpineRouter 50 after
SpineRouter's test, namespace_id added); the running config is tests/configs/sonic/
sn5600-dynamic.json, a full `config save` of an SN5600 leaf whose type is LeafRouter."""

from __future__ import annotations

import json
import shutil

import pytest
from conftest import INVENTORIES, REPO, SONIC_YANG

from lossless.inventory import load_inventory
from lossless.planner.fabric import plan_fabric
from lossless.vendors.rendering import render_device
from lossless.vendors.sonic import diff as sonic_diff
from lossless.vendors.sonic import parse as sonic_parse
from lossless.vendors.sonic.device_type import seed_of

RUNNING = REPO / "tests" / "configs" / "sonic" / "sn5600-dynamic.json"
LAB = INVENTORIES / "lab.yaml"
OWNED = """
fabric:
  name: t
  policy:
    ecmp: {device_type: true}
devices:
  leaf1:
    role: leaf
    os: sonic
    asic: spectrum-4
    ports:
      Ethernet0: {speed: 400G}
  spine1:
    role: spine
    os: sonic
    asic: spectrum-4
    ports:
      Ethernet0: {speed: 400G}
  ss1:
    role: super-spine
    os: sonic
    asic: spectrum-4
    ports:
      Ethernet0: {speed: 400G}
links:
  - {a: leaf1:Ethernet0, b: spine1:Ethernet0, cable_m: 10}
"""


@pytest.mark.parametrize(
    ("device_type", "namespace", "seed"),
    [
        ("ToRRouter", 0, 0),
        ("LeafRouter", 0, 10),
        ("SpineRouter", 0, 25),
        # "SpineRouter" is tested before FabricSpineRouter/UpperSpineRouter in the template
        ("FabricSpineRouter", 0, 25),
        ("UpperSpineRouter", 0, 25),
        ("BackEndLeafRouter", 0, 10),
        ("MgmtTsToR", 0, 0),
        (None, 0, 0),
        ("LeafRouter", 2, 12),  # a multi-ASIC switch's namespace_id is added
    ],
)
def test_seed_of_a_type_is_switch_json_j2_s(device_type, namespace, seed):
    assert seed_of(device_type, namespace) == seed


def _plan(tmp_path, text: str = OWNED):
    path = tmp_path / "fabric.yaml"
    path.write_text(text)
    return plan_fabric(load_inventory(path))


def test_owned_type_is_rendered_per_tier_and_yang_valid(tmp_path):
    pytest.importorskip("libyang", reason="libyang not installed: run bash .ci/install")
    from sonic_base import merged_with_device

    from lossless.vendors.sonic.yang import SonicYang

    plan = _plan(tmp_path)
    types = {}
    for name, device in plan.devices.items():
        fragment = json.loads(render_device(device, plan))
        types[name] = fragment["DEVICE_METADATA"]["localhost"]["type"]
        fragment.pop("SWITCH_HASH")  # sonic-hash.yang is not in tests/data/sonic-yang
        lanes = {p.name: p.lanes for p in device.ports.values()}
        SonicYang(SONIC_YANG).validate(merged_with_device(fragment, lanes))
    assert types == {"leaf1": "ToRRouter", "spine1": "LeafRouter", "ss1": "SpineRouter"}
    assert len({seed_of(t) for t in types.values()}) == 3  # 0, 10, 25: a seed per tier


def test_type_is_the_operator_s_unless_handed_over():
    plan = plan_fabric(load_inventory(LAB))
    for name in ("leaf1", "spine2"):
        fragment = json.loads(render_device(plan.devices[name], plan))
        assert fragment["DEVICE_METADATA"]["localhost"] == {"buffer_model": "dynamic"}


def test_a_running_config_db_s_type_gives_its_seed():
    device = sonic_parse.parse_file(str(RUNNING), "leaf1")
    assert device.ecmp.seed == 10  # "type": "LeafRouter"
    assert device.sources["ecmp_seed"].endswith("sn5600-dynamic.json:270:13")
    text = RUNNING.read_text().replace('"type": "LeafRouter"', '"deployment_tier": "x"')
    untyped = sonic_parse.parse(text, "untyped.json", "leaf1")
    assert untyped.ecmp.seed == 0  # a whole config_db without type: switch.json.j2's 0
    fragment = (REPO / "golden" / "lab" / "leaf1.json").read_text()
    assert sonic_parse.parse(fragment, "leaf1.json", "leaf1").ecmp.seed is None


def test_lint_flags_two_tiers_installed_with_one_type(run, tmp_path):
    """The lab's SONiC leaf1 and spine2, both installed as LeafRouter: orchagent gives both
    seed 10, the polarisation LL117 exists for; before issue 39 a SONiC config stated no seed
    and lint said nothing."""
    folder = tmp_path / "running"
    folder.mkdir()
    shutil.copy(RUNNING, folder / "leaf1.json")
    (folder / "spine2.json").write_text(RUNNING.read_text().replace("rail3-leaf07", "spine2"))
    result = run("lint", str(LAB), "--configs", str(folder), "--select", "LL117")
    assert result.code == 0, result.err  # a warning
    lines = [line for line in result.out.splitlines() if " warning LL117 " in line]
    assert len(lines) == 2
    assert all(":270:13: warning LL117" in line for line in lines)
    assert all("ECMP seed 10 is shared by tiers leaf, spine" in line for line in lines)


def test_drift_when_lossless_owns_the_type(tmp_path):
    from lossless.lint.drift import drift
    from lossless.vendors.registry import vendor_for

    plan = _plan(tmp_path)
    leaf = plan.devices["leaf1"]
    parsed = sonic_parse.parse_file(str(RUNNING), "leaf1", leaf)
    findings = [f for f in drift(leaf, parsed, vendor_for("sonic")) if "seed" in f.message]
    assert [f.message for f in findings] == ["ECMP hash seed is 10 in the config, 0 in the plan"]
    assert findings[0].source.endswith(":270:13")
    # not owned (the lab): the switch's type is its own business, no drift on it
    lab = plan_fabric(load_inventory(LAB))
    mine = sonic_parse.parse_file(str(RUNNING), "leaf1", lab.devices["leaf1"])
    assert not [
        f for f in drift(lab.devices["leaf1"], mine, vendor_for("sonic")) if "seed" in f.message
    ]


def test_diff_running_sets_the_tier_type_only_where_owned(tmp_path):
    plan = _plan(tmp_path)
    running = RUNNING.read_text()
    ops = sonic_diff.diff(running, render_device(plan.devices["leaf1"], plan))
    assert {"op": "replace", "path": "/DEVICE_METADATA/localhost/type", "value": "ToRRouter"} in ops
    spine = sonic_diff.diff(running, render_device(plan.devices["spine1"], plan))
    assert not [op for op in spine if op["path"].startswith("/DEVICE_METADATA")]  # already so
    (tmp_path / "not-owned").mkdir()
    mine = _plan(tmp_path / "not-owned", OWNED.replace("device_type: true", "device_type: false"))
    ours = sonic_diff.diff(running, render_device(mine.devices["leaf1"], mine))
    assert not [op for op in ours if op["path"].startswith("/DEVICE_METADATA")]


def test_the_type_change_says_when_the_seed_changes(run, tmp_path):
    inventory = tmp_path / "fabric.yaml"
    inventory.write_text(OWNED)
    folder = tmp_path / "running"
    folder.mkdir()
    shutil.copy(RUNNING, folder / "leaf1.json")
    result = run("diff", str(inventory), "--running", str(folder), "--device", "leaf1")
    assert result.code == 0, result.err
    assert "replace /DEVICE_METADATA/localhost/type" in result.out
    assert "only when swss restarts" in result.out
