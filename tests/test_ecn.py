"""ECN presets against ecn-defaults.csv, and the ECN-before-PFC check of
docs/reference/physics.md 3.4."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from lossless.model import EcnPolicy
from lossless.planner.derivation import Derivation
from lossless.planner.ecn import ecn_thresholds, pfc_trigger_bytes
from lossless.report.plan_compact import expand

DEFAULTS_CSV = Path(__file__).parent / "data" / "reference" / "ecn-defaults.csv"
DEFAULTS = list(csv.DictReader(DEFAULTS_CSV.open()))


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
        fan_out=1,
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


@pytest.mark.parametrize("gbps", ["25", "50", "100"])
def test_scaled_preset_matches_hpcc_simulator(gbps):
    row = _row("High-Precision-Congestion-Control", "DCQCN baseline", gbps)
    t = _thresholds("dcqcn-scaled", int(gbps) * 1000)
    assert (t.min_bytes, t.max_bytes, t.probability_percent) == (
        int(row["kmin_bytes"]),
        int(row["kmax_bytes"]),
        int(row["pmax_percent"]),
    )


@pytest.mark.parametrize("gbps", ["200", "400"])
def test_scaled_preset_stops_at_the_100g_values(gbps):
    """The HPCC simulator keeps scaling (its 200G/400G rows), but the PFC trigger does not
    grow with the link: above 100G the preset holds the 100G thresholds."""
    at_100g = _row("High-Precision-Congestion-Control", "DCQCN baseline", "100")
    scaled = _row("High-Precision-Congestion-Control", "DCQCN baseline", gbps)
    t = _thresholds("dcqcn-scaled", int(gbps) * 1000)
    assert (t.min_bytes, t.max_bytes) == (int(at_100g["kmin_bytes"]), int(at_100g["kmax_bytes"]))
    assert t.min_bytes < int(scaled["kmin_bytes"])


def test_explicit_values_override_the_preset():
    t = _thresholds("nvidia", min_bytes=200_000, probability_percent=20)
    assert (t.min_bytes, t.max_bytes, t.probability_percent) == (200_000, 1_500_000, 20)


@pytest.mark.parametrize(("n", "expected"), [(1, 32e6), (4, 12.8e6), (16, 3.76e6)])
def test_pfc_trigger_matches_physics_example(n, expected):
    """docs/reference/physics.md 3.4: B = 64 MB, alpha = 1 -> 32 MB at n = 1, 12.8 MB at 4,
    3.8 MB at 16."""
    assert pfc_trigger_bytes(64_000_000, 1.0, n) == pytest.approx(expected, rel=0.01)


def test_pfc_trigger_follows_the_alpha():
    assert pfc_trigger_bytes(64_000_000, 2.0, 1) == pytest.approx(2 * 64_000_000 / 3)


ECN_INVENTORY = """
fabric:
  name: ecn
  policy:
    ecn: {{preset: {preset}}}
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


def _ecn(run, write, preset):
    result = run("plan", str(write(ECN_INVENTORY.format(preset=preset))), "--format", "json")
    assert result.code == 0, result.err
    device = expand(json.loads(result.out))["devices"]["leaf1"]
    return device, device["pfc_trigger"], device["ports"]["Ethernet1/1"]["ecn"][0]


def test_plan_flags_ecn_that_would_let_pfc_fire_first(run, write):
    """Trident 3 with 16 listed ports still has 32 (3.2 Tb/s / 100G, no platform given), so
    n = 32; its SKU pool leaves B = 26284032 - 6291456 and alpha = 2^-3: T is near 0.5 MB,
    below SONiC's 1 MiB Kmin: PFC pauses before ECN marks."""
    device, trigger, ecn = _ecn(run, write, "sonic")
    assert trigger["sharing_pgs"] == 32 and trigger["alpha"] == 0.125
    # The SKU's pool minus its shared headroom pool, or what the planned headroom of all 32
    # ports leaves of the buffer, whichever is less.
    shared = min(26_284_032 - 6_291_456, device["budget"]["shared_buffer_bytes"])
    assert trigger["shared_buffer_bytes"] == shared
    assert ecn["pfc_trigger_bytes"] == int(0.125 * shared / (1 + 32 * 0.125))
    assert ecn["min_bytes"] == 1_048_576 > ecn["queue_trigger_bytes"]
    assert ecn["min_below_trigger"] is False and ecn["max_below_trigger"] is False
    n = ecn["largest_pgs_min"]  # the most PGs with 1 MiB still below T(n)
    assert 0.125 * shared / (1 + n * 0.125) > 1_048_576 >= 0.125 * shared / (1 + (n + 1) * 0.125)


def test_plan_accepts_ecn_that_marks_before_pfc(run, write):
    _, trigger, ecn = _ecn(run, write, "nvidia")
    assert ecn["min_below_trigger"] is True  # 150 kB below T
    assert ecn["max_below_trigger"] is False  # 1.5 MB above it: a warning in lint
    assert trigger["largest_n_ecn_before_pfc"] == ecn["largest_pgs_min"] > 32


DEFAULT_ECN_INVENTORY = ECN_INVENTORY.replace("  policy:\n    ecn: {{preset: {preset}}}\n", "")


@pytest.mark.parametrize(
    "policy",
    ["", "  policy:\n    ecn: {fan_out: 1}\n", "  policy:\n    ecn: {min_bytes: 100000}\n"],
    ids=["no-ecn", "fan-out-only", "kmin-only"],
)
def test_the_default_ecn_lints_clean_on_its_hardware(run, write, policy):
    """An inventory that chooses no Kmax: the nvidia preset's 1.5 MB is lowered to the queue's
    PFC trigger T/f (Trident 3 at n = 32: about 0.5 MB), so the defaults give no LL112 (they
    gave one warning per port); explain says why."""
    text = DEFAULT_ECN_INVENTORY.format().replace("  name: ecn\n", "  name: ecn\n" + policy)
    path = str(write(text))
    result = run("plan", path, "--format", "json")
    ecn = expand(json.loads(result.out))["devices"]["leaf1"]["ports"]["Ethernet1/1"]["ecn"][0]
    assert ecn["max_bytes"] == ecn["queue_trigger_bytes"] < 1_500_000
    assert ecn["max_below_trigger"] is True
    lint = run("lint", path)
    assert "LL112" not in lint.out, lint.out
    explained = run("explain", path, "leaf1", "Ethernet1/1")
    assert "lowered to the" in explained.out and "ecn.max_bytes overrides" in explained.out


def test_a_chosen_kmax_is_kept_and_judged(run, write):
    """`preset: nvidia` or `max_bytes` in the inventory is the user's choice: kept as written,
    and LL112 still warns when it is above the trigger."""
    for policy in ("{preset: nvidia}", "{max_bytes: 1500000}"):
        text = ECN_INVENTORY.replace(
            "{{preset: {preset}}}", policy.replace("{", "{{").replace("}", "}}")
        )
        path = str(write(text.format()))
        ecn = expand(json.loads(run("plan", path, "--format", "json").out))["devices"]["leaf1"][
            "ports"
        ]["Ethernet1/1"]["ecn"][0]
        assert ecn["max_bytes"] == 1_500_000, policy
        assert "LL112" in run("lint", path).out, policy
