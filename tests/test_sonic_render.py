"""SONiC render: what each line of config_db.json means on the switch (docs/vendors/sonic.md).

Buffer model by platform, profile NULL vs a headroom override under a name buffermgrd never
generates, buffermgrd's own name and Broadcom's profile form on traditional switches, the
whole DSCP map, SWITCH_HASH, and every output valid against SONiC's YANG models."""

from __future__ import annotations

import json
import re

import pytest
from conftest import INVENTORIES, REPO, SONIC_YANG

from lossless.inventory import load_inventory
from lossless.planner.fabric import plan_fabric
from lossless.vendors.registry import not_expressed
from lossless.vendors.rendering import render_device

VARIANTS = REPO / "tests" / "configs" / "sonic" / "variants.yaml"
PLAN = plan_fabric(load_inventory(VARIANTS))
LAB = plan_fabric(load_inventory(INVENTORIES / "lab.yaml"))


def _db(name: str, plan=PLAN) -> dict:
    return json.loads(render_device(plan.devices[name], plan))


def test_dynamic_model_leaves_headroom_to_buffermgrd():
    """Spectrum runs the dynamic buffer model: lossless PGs are NULL, no lossless profile is
    written (a pg_lossless_* profile in CONFIG_DB would collide with buffermgrd's own), and
    buffermgrd gets the inputs of its formula instead."""
    db = _db("spine1")
    assert db["DEVICE_METADATA"] == {"localhost": {"buffer_model": "dynamic"}}
    assert db["BUFFER_PG"] == {p: {"profile": "NULL"} for p in ("Ethernet0|3", "Ethernet4|3")}
    assert "BUFFER_PROFILE" not in db
    assert db["CABLE_LENGTH"] == {"AZURE": {"Ethernet0": "40m", "Ethernet4": "40m"}}
    pattern = db["LOSSLESS_TRAFFIC_PATTERN"]["AZURE"]
    assert pattern == {"mtu": "1024", "small_packet_percentage": "50"}
    assert db["DEFAULT_LOSSLESS_BUFFER_PARAMETER"]["AZURE"] == {"default_dynamic_th": "0"}


def test_lab_spectrum_switches_render_null_profiles():
    for name in ("leaf1", "spine2"):
        db = _db(name, LAB)
        assert {v["profile"] for v in db["BUFFER_PG"].values()} == {"NULL"}
        assert not any(p.startswith("pg_lossless_") for p in db.get("BUFFER_PROFILE", {}))


def test_override_uses_a_name_buffermgrd_never_generates():
    db = _db("leaf-override")
    [profile] = {v["profile"] for v in db["BUFFER_PG"].values()}
    assert not profile.startswith("pg_lossless_")  # buffermgrdyn's getDynamicProfileName
    port = PLAN.devices["leaf-override"].ports["Ethernet4"]
    [headroom] = port.headroom
    assert db["BUFFER_PROFILE"][profile] == {
        "dynamic_th": "0",
        "pool": "ingress_lossless_pool",
        "size": str(headroom.size),
        "xoff": str(headroom.xoff),
        "xon": str(headroom.xon),
    }
    # docs/reference/sonic.md 2, SPECTRUM-4 400G: xon 19456 at any cable; the bytes are the
    # planner's
    assert headroom.xon == 19456 and headroom.size == headroom.xon + headroom.xoff


def test_traditional_broadcom_profile_form_and_buffermgrd_name():
    """Tomahawk 3 runs the traditional model: the profile has buffermgrd's name for the port
    (so buffermgrd reuses it) and Broadcom's form: size the guaranteed minimum as the vendor
    publishes it for 400G 40 m (2,540 B, DellEMC-Z9332f-O32's pg_profile_lookup.ini, the
    highest Tomahawk 3 SKU: issue 26), xon 0, xoff the headroom, xon_offset the resume
    gap."""
    db = _db("leaf-th3")
    assert db["DEVICE_METADATA"] == {"localhost": {"buffer_model": "traditional"}}
    assert db["BUFFER_PG"]["Ethernet12|3"] == {"profile": "pg_lossless_400000_40m_profile"}
    profile = db["BUFFER_PROFILE"]["pg_lossless_400000_40m_profile"]
    [headroom] = PLAN.devices["leaf-th3"].ports["Ethernet12"].headroom
    assert profile == {
        "dynamic_th": "-2",  # Tomahawk 3 SKUs ship dynamic_th -2 (issue 10 catalogue)
        "pool": "ingress_lossless_pool",
        "size": "2540",
        "xoff": str(headroom.xoff),
        "xon": "0",
        "xon_offset": str(headroom.xon),
    }
    assert "LOSSLESS_TRAFFIC_PATTERN" not in db  # inputs of the dynamic model only


def test_ports_sharing_buffermgrd_name_get_the_largest_headroom():
    """Ethernet8 runs MTU 9000, the others 9100: one profile name, the larger headroom."""
    db = _db("leaf-th3")
    ports = PLAN.devices["leaf-th3"].ports
    assert ports["Ethernet8"].headroom[0].xoff < ports["Ethernet0"].headroom[0].xoff
    names = {db["BUFFER_PG"][f"{p}|3"]["profile"] for p in ("Ethernet0", "Ethernet4", "Ethernet8")}
    assert names == {"pg_lossless_400000_2m_profile"}
    profile = db["BUFFER_PROFILE"]["pg_lossless_400000_2m_profile"]
    assert int(profile["xoff"]) == ports["Ethernet0"].headroom[0].xoff


def test_broadcom_xoff_is_never_below_the_vendor_table():
    """DellEMC-Z9332f-O32 pg_profile_lookup.ini (Tomahawk 3, sonic-buildimage 086b03bd):
    400000 40m xoff 201930; the rendered profile for a 40 m link holds at least that."""
    profile = _db("leaf-th3")["BUFFER_PROFILE"]["pg_lossless_400000_40m_profile"]
    assert int(profile["xoff"]) >= 201930


def test_cable_lengths_without_a_table_row_are_said():
    said = dict(not_expressed(PLAN.devices["leaf-th3"]))
    note = said["cable lengths the switch's static headroom table has no row for"]
    assert "CABLE_LENGTH 2m" in note and "40m:" not in note
    assert "cable lengths the switch's static headroom table has no row for" not in dict(
        not_expressed(PLAN.devices["spine1"])
    )


def test_headroom_bytes_are_said_not_expressed_only_where_the_switch_computes_them():
    key = "PFC headroom bytes (the switch sizes headroom itself)"
    assert key in dict(not_expressed(PLAN.devices["spine1"]))
    assert key not in dict(not_expressed(PLAN.devices["leaf-override"]))
    assert key not in dict(not_expressed(PLAN.devices["leaf-th3"]))


def test_ecmp_hash_fields_are_rendered_and_seed_offset_resilient_are_said():
    db = _db("spine1")
    assert db["SWITCH_HASH"]["GLOBAL"]["ecmp_hash"][:5] == [
        "SRC_IP",
        "DST_IP",
        "IP_PROTOCOL",
        "L4_SRC_PORT",
        "L4_DST_PORT",
    ]
    said = dict(not_expressed(PLAN.devices["spine1"]))
    assert "ECMP hash fields" not in said
    assert "APPL_DB SWITCH_TABLE" in said["ECMP hash seed"]
    assert "ecmp_hash_offset" in said["ECMP hash offset / rotate"]
    assert "FG_NHG" in said["ECMP resilient hashing"]


def test_every_dscp_is_mapped_explicitly():
    for name in PLAN.devices:
        [mapping] = _db(name)["DSCP_TO_TC_MAP"].values()
        assert sorted(int(d) for d in mapping) == list(range(64))


def test_render_is_the_old_byte_format():
    """config_db.json is written with json.dumps(indent=4, sort_keys=True) + newline."""
    text = render_device(PLAN.devices["spine1"], PLAN)
    assert text == json.dumps(json.loads(text), indent=4, sort_keys=True) + "\n"


# -- YANG ------------------------------------------------------------------------------------

YANG_DIR = SONIC_YANG  # the copy in tests/data (test_data_provenance.py: unchanged)


def _hash_field_enum() -> set[str]:
    """The enum of sonic-types.yang's hash-field typedef, which sonic-hash.yang (absent from
    tests/data/sonic-yang) restricts SWITCH_HASH's ecmp_hash to."""
    text = (YANG_DIR / "sonic-types.yang").read_text()
    block = text[text.index("typedef hash-field") :]
    block = block[: block.index("typedef", 10)]
    return set(re.findall(r"enum (\w+);", block))


@pytest.mark.parametrize("name", sorted(PLAN.devices))
def test_variants_are_valid_yang(name):
    pytest.importorskip("libyang", reason="libyang not installed: run bash .ci/install")
    from sonic_base import merged_with_device

    from lossless.vendors.sonic.yang import SonicYang

    device = PLAN.devices[name]
    fragment = _db(name)
    hashing = fragment.pop("SWITCH_HASH")
    assert set(hashing) == {"GLOBAL"} and set(hashing["GLOBAL"]) == {"ecmp_hash"}
    enum = _hash_field_enum()
    assert {"L4_SRC_PORT", "INNER_DST_IP", "IPV6_FLOW_LABEL"} <= enum
    assert set(hashing["GLOBAL"]["ecmp_hash"]) <= enum
    lanes = {p.name: p.lanes for p in device.ports.values()}
    SonicYang(YANG_DIR).validate(merged_with_device(fragment, lanes))
