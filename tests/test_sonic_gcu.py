"""SONiC's `config apply-patch` (GCU) takes every patch lossless emits.

GCU refuses a whole patch when one of its operations touches a field its per-table
validators forbid (BUFFER_POOL: nothing; BUFFER_PROFILE: replace of xoff / dynamic_th, add or
replace of packet_discard_action, whole profiles; PFC_WD: the watchdog fields). The
validators are SONiC's own code, vendored unchanged as test data with minimal shims
(tests/data/sonic-utilities/README.md): `ConfigWrapper.validate_field_operation(running,
target)` is what `GenericUpdater.apply` runs first. The patched config must also pass GCU's
supplemental checks (lanes, BGP peer ranges) and SONiC's YANG models (lossless's libyang
check, tests/data/sonic-yang), and may not leave two BUFFER_PG / BUFFER_QUEUE keys of a port
overlapping (`|3` beside `|3-4`).

The running configs are what a switch holds from its SKU templates (docs/reference/sonic.md
4), with two ports the inventory does not plan; the patches are those of the golden files
(what `lossless render` writes for the lab and pod-2048 inventories) and of a Broadcom
Tomahawk 3 leaf (tests/configs/sonic/variants.yaml) whose SKU lossless profile is shared with
ports the plan does not have.
"""

from __future__ import annotations

import copy
import json
import re
import sys
from types import SimpleNamespace
from typing import Any

import jsonpatch
import pytest
from conftest import REPO

from lossless.inventory import load_inventory
from lossless.planner.fabric import plan_fabric
from lossless.vendors.rendering import render_device
from lossless.vendors.sonic import diff as sonic_diff

VENDORED = REPO / "tests" / "data" / "sonic-utilities"
YANG_DIR = REPO / "tests" / "data" / "sonic-yang"
for _path in (VENDORED / "shims", VENDORED):
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

from generic_config_updater import field_operation_validators, gu_common  # noqa: E402
from sonic_py_common import device_info  # noqa: E402
from swsscommon import swsscommon  # noqa: E402

GOLDEN = {
    "lab/leaf1": REPO / "golden" / "lab" / "leaf1.json",
    "lab/spine2": REPO / "golden" / "lab" / "spine2.json",
    "pod-2048/leaf01": REPO / "golden" / "pod-2048" / "leaf01.json",
    "pod-2048/spine01": REPO / "golden" / "pod-2048" / "spine01.json",
}
# The switches GCU is asked to patch: (asic_type, hwsku, platform, build_version). The hwsku
# decides the validators' ASIC family (helper_data of the conf file); a build of 202511.
SPECTRUM_4 = ("mellanox", "Mellanox-SN5600-V256", "x86_64-nvidia_sn5600-r0", "SONiC.20251110.12")
TOMAHAWK_3 = ("broadcom", "Nokia-IXR7220-H3", "x86_64-nokia_ixr7220_h3-r0", "SONiC.20251110.12")
SKU_POOL_XOFF = "4194304"  # the SKU's shared headroom pool (buffers_defaults), not the plan's
# A Tomahawk 3 pg_profile_lookup.ini row, 400G 40m (DellEMC-Z9332f, tests/data/
# vendor_headroom.csv): the profile buffermgrd made for every 400G 40m port
SKU_TH3_40M = {
    "dynamic_th": "-2",
    "pool": "ingress_lossless_pool",
    "size": "2540",
    "xoff": "201930",
    "xon": "2540",
    "xon_offset": "2540",
}


# -- the switch the vendored validators run on -------------------------------------------------


class _Hwsku:
    """What `sonic-cfggen -d -v DEVICE_METADATA.localhost.hwsku` prints on the switch
    (field_operation_validators.get_asic_name runs it through subprocess.Popen)."""

    PIPE = -1

    def __init__(self, hwsku: str):
        self.hwsku = hwsku

    def Popen(self, *_args: Any, **_kwargs: Any) -> Any:
        return SimpleNamespace(communicate=lambda: (self.hwsku + "\n", None), returncode=0)


@pytest.fixture
def switch(monkeypatch):
    def use(kind: tuple[str, str, str, str]) -> None:
        asic_type, hwsku, _platform, build = kind
        monkeypatch.setattr(
            device_info, "VERSION_INFO", {"asic_type": asic_type, "build_version": build}
        )
        monkeypatch.setattr(field_operation_validators, "subprocess", _Hwsku(hwsku))
        monkeypatch.setattr(swsscommon, "STATE_DB", {})

    return use


def gcu_apply(running: dict, patch: list[dict]) -> dict:
    """The patched config, after GCU's field-operation validators and supplemental checks
    (each raises or returns an error when GCU would refuse the patch)."""
    target = jsonpatch.apply_patch(running, patch)
    wrapper = gu_common.ConfigWrapper()
    wrapper.validate_field_operation(copy.deepcopy(running), copy.deepcopy(target))
    for check in (wrapper.validate_lanes, wrapper.validate_bgp_peer_group):
        ok, error = check(target)
        assert ok, error
    return target


# -- running configs ---------------------------------------------------------------------------


def _number(port: str) -> int:
    return int(re.sub(r"\D", "", port))


def sku_running(intended: dict, kind: tuple[str, str, str, str], extra: int = 2) -> dict:
    """A switch as its SKU templates leave it (qos_config.j2, buffers_config.j2 defaults) with
    the intended fragment's ports plus `extra` ports the inventory does not plan."""
    _asic_type, hwsku, platform, _build = kind
    model = intended["DEVICE_METADATA"]["localhost"]["buffer_model"]
    planned = sorted(intended["PORT"], key=_number)
    last = max(_number(p) for p in planned)
    unplanned = [f"Ethernet{last + 4 * (i + 1)}" for i in range(extra)]
    ports = planned + unplanned
    db: dict[str, Any] = {
        "DEVICE_METADATA": {
            "localhost": {
                "buffer_model": model,
                "hostname": "switch1",
                "hwsku": hwsku,
                "platform": platform,
                "type": "LeafRouter",
            }
        },
        "PORT": {
            p: {
                "admin_status": "up",
                "alias": f"etp{i + 1}",
                "lanes": ",".join(str(_number(p) * 2 + lane) for lane in range(8)),
                "mtu": "9100",
                "speed": intended["PORT"].get(p, {}).get("speed", "400000"),
            }
            for i, p in enumerate(ports)
        },
        "CABLE_LENGTH": {"AZURE": dict.fromkeys(ports, "40m")},
        "BUFFER_POOL": {
            "egress_lossless_pool": {"mode": "static", "size": "60817392", "type": "egress"},
            "egress_lossy_pool": {"mode": "dynamic", "size": "50000000", "type": "egress"},
            "ingress_lossless_pool": {
                "mode": "dynamic",
                "size": "50000000",
                "type": "ingress",
                "xoff": SKU_POOL_XOFF,
            },
        },
        "BUFFER_PROFILE": {
            "egress_lossless_profile": {
                "pool": "egress_lossless_pool",
                "size": "0",
                "static_th": "60817392",
            },
            "egress_lossy_profile": {
                "dynamic_th": "7",
                "pool": "egress_lossy_pool",
                "size": "9216",
            },
            "ingress_lossy_profile": {
                "dynamic_th": "3",
                "pool": "ingress_lossless_pool",
                "size": "0",
            },
        },
        "BUFFER_PG": {},
        "BUFFER_QUEUE": {},
        "DSCP_TO_TC_MAP": {
            "AZURE": {str(d): "1" for d in range(64)}
            | {"3": "3", "4": "4", "5": "2", "8": "0", "46": "5", "48": "6"}
        },
        "TC_TO_QUEUE_MAP": {"AZURE": {str(t): str(t) for t in range(8)}},
        "TC_TO_PRIORITY_GROUP_MAP": {
            "AZURE": {str(t): {3: "3", 4: "4", 7: "7"}.get(t, "0") for t in range(8)}
        },
        "MAP_PFC_PRIORITY_TO_QUEUE": {"AZURE": {str(t): str(t) for t in range(8)}},
        "PORT_QOS_MAP": {"global": {"dscp_to_tc_map": "AZURE"}},
        "SCHEDULER": {
            "scheduler.0": {"type": "DWRR", "weight": "14"},
            "scheduler.1": {"type": "DWRR", "weight": "15"},
        },
        "WRED_PROFILE": {
            "AZURE_LOSSLESS": {
                "ecn": "ecn_all",
                "green_drop_probability": "5",
                "green_max_threshold": "2097152",
                "green_min_threshold": "1048576",
                "wred_green_enable": "true",
            }
        },
        "QUEUE": {},
        "PFC_WD": {"GLOBAL": {"POLL_INTERVAL": "200"}},
        "LOOPBACK_INTERFACE": {"Loopback0": {}, "Loopback0|10.1.0.1/32": {}},
    }
    if model == "dynamic":
        db["PFC_PRIORITY_TO_PRIORITY_GROUP_MAP"] = {"AZURE": {"3": "3", "4": "4"}}
        db["LOSSLESS_TRAFFIC_PATTERN"] = {
            "AZURE": {"mtu": "1024", "small_packet_percentage": "100"}
        }
        db["DEFAULT_LOSSLESS_BUFFER_PARAMETER"] = {"AZURE": {"default_dynamic_th": "0"}}
        lossless_pg = "NULL"
    else:
        db["BUFFER_PROFILE"]["pg_lossless_400000_40m_profile"] = dict(SKU_TH3_40M)
        lossless_pg = "pg_lossless_400000_40m_profile"
    for p in ports:
        db["BUFFER_PG"][f"{p}|0"] = {"profile": "ingress_lossy_profile"}
        db["BUFFER_PG"][f"{p}|3-4"] = {"profile": lossless_pg}
        db["BUFFER_QUEUE"][f"{p}|0-2"] = {"profile": "egress_lossy_profile"}
        db["BUFFER_QUEUE"][f"{p}|3-4"] = {"profile": "egress_lossless_profile"}
        db["BUFFER_QUEUE"][f"{p}|5-6"] = {"profile": "egress_lossy_profile"}
        db["PORT_QOS_MAP"][p] = {
            "dscp_to_tc_map": "AZURE",
            "pfc_enable": "3,4",
            "pfc_to_queue_map": "AZURE",
            "pfcwd_sw_enable": "3,4",
            "tc_to_pg_map": "AZURE",
            "tc_to_queue_map": "AZURE",
        }
        if model == "dynamic":
            db["PORT_QOS_MAP"][p]["pfc_to_pg_map"] = "AZURE"
        for q in range(7):
            entry = {"scheduler": "scheduler.1" if q in (3, 4) else "scheduler.0"}
            if q in (3, 4):
                entry["wred_profile"] = "AZURE_LOSSLESS"
            db["QUEUE"][f"{p}|{q}"] = entry
        db["PFC_WD"][p] = {
            "action": "drop",
            "detection_time": "400",
            "pfc_stat_history": "disable",
            "restoration_time": "400",
        }
    return db


def _patch(running: dict, intended_text: str) -> list[dict]:
    return sonic_diff.diff(json.dumps(running, indent=4), intended_text)


def _held_back(running: dict, intended_text: str) -> list[str]:
    return sonic_diff.held_back(json.dumps(running, indent=4), intended_text)


def _members(key: str) -> set[int]:
    low, _, high = key.rpartition("|")[2].partition("-")
    return set(range(int(low), int(high or low) + 1))


def assert_no_overlapping_keys(db: dict) -> None:
    for table in ("BUFFER_PG", "BUFFER_QUEUE"):
        seen: dict[str, dict[int, str]] = {}
        for key in db.get(table, {}):
            port = key.partition("|")[0]
            for member in _members(key):
                other = seen.setdefault(port, {}).get(member)
                assert other is None, f"{table}: {key} overlaps {other}"
                seen[port][member] = key


def assert_valid_yang(db: dict) -> None:
    pytest.importorskip("libyang", reason="libyang not installed: run bash .ci/install")
    from lossless.vendors.sonic.yang import SonicYang

    checker = SonicYang(YANG_DIR)
    # tables with a model in tests/data/sonic-yang (SWITCH_HASH's sonic-hash.yang and the
    # unrelated LOOPBACK_INTERFACE are not among them)
    checker.validate({t: e for t, e in db.items() if t in checker.tables})


# -- the vendored validators are SONiC's ------------------------------------------------------


def test_the_vendored_validators_refuse_what_gcu_refuses(switch):
    """The harness is live: the pod-2048 patch of before issue 26 (pool xoff replaced) and a
    Broadcom SKU profile's size / xon_offset replaced are refused; dynamic_th and xoff of a
    profile, and a whole new profile, are accepted."""
    switch(SPECTRUM_4)
    running = sku_running(json.loads(GOLDEN["pod-2048/leaf01"].read_text()), SPECTRUM_4)
    refused = [
        [{"op": "replace", "path": "/BUFFER_POOL/ingress_lossless_pool/xoff", "value": "1"}],
        [{"op": "add", "path": "/BUFFER_PROFILE/egress_lossy_profile/xon_offset", "value": "1"}],
        [{"op": "replace", "path": "/BUFFER_PROFILE/egress_lossy_profile/size", "value": "1"}],
    ]
    for patch in refused:
        with pytest.raises(gu_common.IllegalPatchOperationError):
            gcu_apply(running, patch)
    accepted = [
        [
            {
                "op": "replace",
                "path": "/BUFFER_PROFILE/egress_lossy_profile/dynamic_th",
                "value": "1",
            }
        ],
        [{"op": "add", "path": "/BUFFER_PROFILE/p1", "value": {"pool": "x", "size": "1"}}],
        [{"op": "replace", "path": "/PFC_WD/Ethernet0/detection_time", "value": "200"}],
    ]
    for patch in accepted:
        gcu_apply(running, patch)


# -- the golden patches ------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_every_golden_patch_is_taken_by_gcu(name, switch):
    switch(SPECTRUM_4)
    intended_text = GOLDEN[name].read_text()
    running = sku_running(json.loads(intended_text), SPECTRUM_4)
    patch = _patch(running, intended_text)
    assert patch, "the SKU defaults differ from the plan"
    target = gcu_apply(running, patch)
    assert not [op for op in patch if op["path"].startswith("/BUFFER_POOL")]
    assert_no_overlapping_keys(target)
    assert_valid_yang(target)


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_what_the_patch_cannot_do_is_said(name):
    """A change GCU refuses is not dropped: held_back names it and how to apply it; with it
    done (here: by hand), nothing is left to patch."""
    intended_text = GOLDEN[name].read_text()
    intended = json.loads(intended_text)
    running = sku_running(intended, SPECTRUM_4)
    held = _held_back(running, intended_text)
    want = intended.get("BUFFER_POOL", {}).get("ingress_lossless_pool", {}).get("xoff")
    if want is None:
        assert held == []
        return
    [note] = held
    assert "BUFFER_POOL|ingress_lossless_pool" in note and "xoff" in note
    assert f"{SKU_POOL_XOFF} -> {want}" in note and "sonic-db-cli CONFIG_DB hset" in note
    patched = jsonpatch.apply_patch(running, _patch(running, intended_text))
    patched["BUFFER_POOL"]["ingress_lossless_pool"]["xoff"] = want
    assert _patch(patched, intended_text) == []
    assert _held_back(patched, intended_text) == []


def test_the_skus_queue_range_is_not_overlapped():
    """The SKU's BUFFER_QUEUE|<port>|3-4 already gives queue 3 the lossless egress profile the
    plan asks for: no `|3` beside it."""
    intended_text = GOLDEN["lab/leaf1"].read_text()
    running = sku_running(json.loads(intended_text), SPECTRUM_4)
    patch = _patch(running, intended_text)
    assert not [op for op in patch if op["path"].startswith("/BUFFER_QUEUE")]


def test_a_queue_range_with_another_profile_is_split_not_overlapped(switch):
    switch(SPECTRUM_4)
    intended_text = GOLDEN["lab/leaf1"].read_text()
    running = sku_running(json.loads(intended_text), SPECTRUM_4)
    running["BUFFER_QUEUE"]["Ethernet0|3-4"] = {"profile": "egress_lossy_profile"}
    patch = _patch(running, intended_text)
    queue_ops = [op for op in patch if op["path"].startswith("/BUFFER_QUEUE")]
    assert queue_ops == [
        {"op": "remove", "path": "/BUFFER_QUEUE/Ethernet0|3-4"},
        {
            "op": "add",
            "path": "/BUFFER_QUEUE/Ethernet0|3",
            "value": {"profile": "egress_lossless_profile"},
        },
        {
            "op": "add",
            "path": "/BUFFER_QUEUE/Ethernet0|4",
            "value": {"profile": "egress_lossy_profile"},
        },
    ]
    removal = patch.index(queue_ops[0])
    assert removal < patch.index(queue_ops[1])  # the range is freed before ours is added
    target = gcu_apply(running, patch)
    assert_no_overlapping_keys(target)
    assert_valid_yang(target)


# -- a Broadcom SKU profile shared with ports the plan does not have -------------------------

VARIANTS = plan_fabric(load_inventory(REPO / "tests" / "configs" / "sonic" / "variants.yaml"))


def test_a_shared_broadcom_sku_profile_is_not_edited(switch):
    """leaf-th3's Ethernet12 (400G, 40m) shares buffermgrd's pg_lossless_400000_40m_profile
    with two ports the plan does not have. Replacing its size / xon_offset is refused by GCU
    and would change their headroom: the patch leaves it and says so."""
    switch(TOMAHAWK_3)
    intended_text = render_device(VARIANTS.devices["leaf-th3"], VARIANTS)
    intended = json.loads(intended_text)
    running = sku_running(intended, TOMAHAWK_3)
    patch = _patch(running, intended_text)
    touched = [op for op in patch if "pg_lossless_400000_40m_profile" in op["path"]]
    assert touched == []
    target = gcu_apply(running, patch)
    assert target["BUFFER_PROFILE"]["pg_lossless_400000_40m_profile"] == SKU_TH3_40M
    assert_no_overlapping_keys(target)
    assert_valid_yang(target)
    [note] = [n for n in _held_back(running, intended_text) if "40m" in n]
    assert "BUFFER_PROFILE|pg_lossless_400000_40m_profile" in note
    assert "Ethernet16" in note and "Ethernet20" in note  # the ports sharing it
    for field in ("xoff", "xon", "xon_offset"):
        assert field in note
    assert "size" not in note  # the plan's guaranteed minimum is the SKU's (2,540 B): issue 26


def test_a_new_broadcom_profile_is_added_whole(switch):
    """The 2m profile does not exist on the switch: it is added as one object, which GCU's
    BUFFER_PROFILE validator accepts (object-level add)."""
    switch(TOMAHAWK_3)
    intended_text = render_device(VARIANTS.devices["leaf-th3"], VARIANTS)
    running = sku_running(json.loads(intended_text), TOMAHAWK_3)
    patch = _patch(running, intended_text)
    [added] = [op for op in patch if "pg_lossless_400000_2m_profile" in op["path"]]
    assert added["op"] == "add" and added["path"] == "/BUFFER_PROFILE/pg_lossless_400000_2m_profile"


def test_lossless_diff_says_what_the_patch_holds_back(run, tmp_path):
    """`lossless diff --running` prints the held-back change beside the patch, in text and
    JSON, and counts the device as changed (--exit-code)."""
    intended_text = GOLDEN["pod-2048/leaf01"].read_text()
    running = sku_running(json.loads(intended_text), SPECTRUM_4)
    backups = tmp_path / "backups"
    backups.mkdir()
    (backups / "leaf01.json").write_text(json.dumps(running, indent=4))
    inventory = str(REPO / "inventories" / "pod-2048.yaml")
    args = ("diff", inventory, "--running", str(backups), "--device", "leaf01")
    text = run(*args, "--exit-code")
    assert text.code == 1, text.err
    held = [line for line in text.out.splitlines() if "# held back" in line]
    assert len(held) == 1 and "BUFFER_POOL|ingress_lossless_pool xoff" in held[0]
    [device] = json.loads(run(*args, "--format", "json").out)["devices"]
    assert device["status"] == "changed" and len(device["held_back"]) == 1
