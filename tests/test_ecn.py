"""ECN presets against ecn-defaults.csv, and the ECN-before-PFC check of
docs/reference/physics.md 3.4."""

from __future__ import annotations

import csv
import json

import pytest
from conftest import REFERENCE

from lossless.model import EcnPolicy
from lossless.planner.derivation import Derivation
from lossless.planner.ecn import ecn_thresholds, pfc_trigger_bytes

DEFAULTS = list(csv.DictReader((REFERENCE / "ecn-defaults.csv").open()))


def _row(source_part: str, platform_part: str = "", speed: str | None = None) -> dict:
    rows = [
        r
        for r in DEFAULTS
        if source_part in r["source"]
        and platform_part in r["platform"]
        and (speed is None or r["speed_gbps"] == speed)
    ]
    assert rows, (source_part, platform_part, speed)
    return rows[0]


def _thresholds(preset: str, speed_mbps: int = 400_000, **explicit):
    policy = EcnPolicy(
        preset=preset,
        min_bytes=explicit.get("min_bytes"),
        max_bytes=explicit.get("max_bytes"),
        probability_percent=explicit.get("probability_percent"),
        congested_pgs=16,
    )
    return ecn_thresholds(policy, speed_mbps, Derivation("t", "t"))


@pytest.mark.parametrize(
    ("preset", "source", "platform"),
    [
        ("nvidia", "RDMA-over-Converged-Ethernet-RoCE.md", "nv set qos roce"),
        ("sonic", "qos_config.j2", "SONiC"),
        ("cisco", "Blueprint", "CloudScale"),
    ],
)
def test_fixed_presets_match_published_defaults(preset, source, platform):
    row = _row(source, platform)
    for speed in (25_000, 100_000, 400_000, 800_000):
        t = _thresholds(preset, speed)
        assert (t.min_bytes, t.max_bytes, t.probability_percent) == (
            int(row["kmin_bytes"]),
            int(row["kmax_bytes"]),
            int(row["pmax_percent"]),
        )


@pytest.mark.parametrize("gbps", ["25", "50", "100", "200", "400"])
def test_scaled_preset_matches_hpcc_simulator(gbps):
    row = _row("High-Precision-Congestion-Control", "DCQCN baseline", gbps)
    t = _thresholds("dcqcn-scaled", int(gbps) * 1000)
    assert (t.min_bytes, t.max_bytes, t.probability_percent) == (
        int(row["kmin_bytes"]),
        int(row["kmax_bytes"]),
        int(row["pmax_percent"]),
    )


def test_explicit_values_override_the_preset():
    t = _thresholds("nvidia", min_bytes=200_000, probability_percent=20)
    assert (t.min_bytes, t.max_bytes, t.probability_percent) == (200_000, 1_500_000, 20)


@pytest.mark.parametrize(("n", "expected"), [(1, 32e6), (4, 12.8e6), (16, 3.76e6)])
def test_pfc_trigger_matches_physics_example(n, expected):
    """docs/reference/physics.md 3.4: B = 64 MB, alpha = 1 -> 32 MB at n = 1, 12.8 MB at 4, 3.8 MB
    at 16."""
    trigger = pfc_trigger_bytes(64_000_000, 0, n, Derivation("t", "t"))
    assert trigger == pytest.approx(expected, rel=0.01)


def test_pfc_trigger_follows_the_alpha():
    d = Derivation("t", "t")
    assert pfc_trigger_bytes(64_000_000, 1, 1, d) == int(2 * 64_000_000 / 3)
    assert pfc_trigger_bytes(None, 0, 1, d) is None


ECN_INVENTORY = """
fabric:
  name: ecn
  policy:
    ecn: {{preset: {preset}, congested_pgs: 16}}
devices:
  leaf1:
    role: leaf
    os: eos
    asic: trident-3
    ports:
      Ethernet[1:16]/1: {{speed: 100G}}
servers:
  srv[01:16]:
    nics:
      eth0: {{speed: 100G}}
links:
  - {{a: "leaf1:Ethernet[1:16]/1", b: "srv[01:16]:eth0", cable_m: 3}}
"""


def test_plan_flags_ecn_that_would_let_pfc_fire_first(run, write):
    """Trident 3 (32 MiB), 16 congested PGs: T_pfc is about 1.97 MB, below SONiC's 2 MiB Kmax."""
    result = run("plan", str(write(ECN_INVENTORY.format(preset="sonic"))), "--format", "json")
    assert result.code == 0, result.err
    port = json.loads(result.out)["devices"]["leaf1"]["ports"]["Ethernet1/1"]
    [ecn] = port["ecn"]
    assert ecn["max_bytes"] == 2_097_152
    assert ecn["pfc_trigger_bytes"] < 2_097_152
    assert ecn["max_below_trigger"] is False
    assert ecn["min_below_trigger"] is True


def test_plan_accepts_ecn_that_marks_before_pfc(run, write):
    result = run("plan", str(write(ECN_INVENTORY.format(preset="nvidia"))), "--format", "json")
    port = json.loads(result.out)["devices"]["leaf1"]["ports"]["Ethernet1/1"]
    assert port["ecn"][0]["max_below_trigger"] is True
