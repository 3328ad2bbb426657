"""Machine-readable output of validate and explain, device selection for plan, and the
plan's note on the shared headroom pool."""

from __future__ import annotations

import json

from conftest import INVENTORIES

LAB = str(INVENTORIES / "lab.yaml")
POD = str(INVENTORIES / "pod-2048.yaml")


def test_validate_as_json(run):
    result = run("validate", LAB, "--format", "json")
    assert result.code == 0
    assert json.loads(result.out) == {
        "inventory": LAB,
        "valid": True,
        "fabric": "lab",
        "devices": 6,
        "ports": 24,
        "servers": 4,
        "nics": 8,
        "links": 16,
    }


def test_validate_problems_as_json(run, write):
    text = (INVENTORIES / "lab.yaml").read_text().replace("cable_m: 90", "cable_m: ninety")
    path = write(text.replace("  policy:\n", "  polcy:\n", 1))
    result = run("validate", str(path), "--format", "json")
    assert result.code == 2
    report = json.loads(result.out)
    assert report["valid"] is False and report["inventory"] == str(path)
    assert {p["message"] for p in report["problems"]} >= {
        "unknown key 'polcy' (did you mean \"policy\"?)",
        "expected a number, got 'ninety'",
    }
    first = report["problems"][0]
    assert set(first) == {"file", "line", "column", "path", "message"}
    assert first["file"] == str(path) and first["line"] >= 1


def test_explain_as_json_carries_every_derivation_it_uses(run):
    text = run("explain", LAB, "leaf1", "Ethernet0")
    result = run("explain", LAB, "leaf1", "Ethernet0", "--format", "json")
    assert result.code == 0
    data = json.loads(result.out)
    assert data["device"] == "leaf1" and data["port"]["name"] == "Ethernet0"
    [headroom] = data["port"]["headroom"]
    assert (headroom["xon"], headroom["xoff"], headroom["size"]) == (19456, 96256, 115712)
    assert f"xoff {headroom['xoff']}, size {headroom['size']} bytes" in text.out
    derivation = data["derivations"][headroom["derivation"]]
    assert derivation["model"] == "sonic-mellanox"
    assert [s["name"] for s in derivation["steps"]][-1] == "size"
    assert set(data["derivations"]) == {
        headroom["derivation"],
        data["port"]["ecn"][0]["derivation"],
        data["budget"]["derivation"],
    }


def test_plan_takes_device_ranges_and_several_os(run):
    result = run("plan", LAB, "--device", "leaf[1:2],spine1", "--format", "json")
    assert list(json.loads(result.out)["devices"]) == ["leaf1", "leaf2", "spine1"]
    by_os = run("plan", LAB, "--os", "nxos", "--os", "junos", "--format", "json")
    assert list(json.loads(by_os.out)["devices"]) == ["leaf3", "leaf4"]


def test_plan_says_why_size_is_below_xoff_with_a_shared_headroom_pool(run):
    pooled = run("plan", POD, "--device", "leaf01")
    assert "shared headroom pool on: each lossless PG reserves only xon (size = xon)" in (
        pooled.out
    )
    assert "over-subscribe ratio 2" in pooled.out
    private = run("plan", LAB, "--device", "leaf1")
    assert "shared headroom pool on" not in private.out
