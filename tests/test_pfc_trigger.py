"""The PFC trigger T = alpha*B/(1 + n*alpha) with every PG of the platform, and the fan-out
check Kmin < T/f: against the DCQCN paper's example and SONiC's published pool sizes."""

from __future__ import annotations

import json
import math

import pytest

from lossless.inventory import load_inventory
from lossless.lint.runner import lint
from lossless.planner.ecn import largest_pgs_before_pfc, pfc_trigger_bytes
from lossless.planner.fabric import plan_fabric
from lossless.report.plan_compact import expand

SN5600_POOL = 67_737_959  # bi:device/mellanox/x86_64-nvidia_sn5600-r0/ACS-SN5600 t0, [SRC]


def test_dcqcn_paper_static_example():
    """DCQCN (Zhu et al., SIGCOMM 2015), buffer settings: a Trident II with B = 12 MB shared
    by n = 32 ports x 8 priorities, t_flight = 22.4 KB of headroom each, gives a static PFC
    threshold t_PFC = (B - 8n t_flight) / (8n) = 24.47 KB (KB = 1000 B) [UNV: as quoted].
    A static share is the dynamic threshold with alpha infinite."""
    pgs = 32 * 8
    shared = 12_000_000 - pgs * 22_400
    assert pfc_trigger_bytes(shared, math.inf, pgs) / 1000 == pytest.approx(24.47, abs=0.01)
    # a dynamic threshold only approaches the static share from below
    assert pfc_trigger_bytes(shared, 2.0**7, pgs) < pfc_trigger_bytes(shared, math.inf, pgs)


INVENTORY = """
fabric:
  name: t
  policy:
    ecn: {{preset: {preset}, fan_out: {fan_out}}}
devices:
  leaf1:
    role: leaf
    os: sonic
    asic: {asic}
    platform: {platform}
    ports:
      Ethernet[0:{last}:{step}]: {{speed: {speed}}}
servers:
  srv[1:{count}]:
    nics:
      eth0: {{speed: {speed}}}
links:
  - {{a: "leaf1:Ethernet[0:{last}:{step}]", b: "srv[1:{count}]:eth0", cable_m: 3}}
"""


def _plan(
    write,
    *,
    preset="nvidia",
    fan_out=1,
    asic="spectrum-4",
    platform="SN5600",
    speed="400G",
    count=4,
):
    step = 4
    text = INVENTORY.format(
        preset=preset,
        fan_out=fan_out,
        asic=asic,
        platform=platform,
        speed=speed,
        count=count,
        last=(count - 1) * step,
        step=step,
    )
    return plan_fabric(load_inventory(write(text)))


def test_n_is_the_platforms_ports_not_the_listed_ones(write):
    """SN5600: 64 cages of 800G breaking out 2 x 400G. Listing 4 ports does not clamp n."""
    few = _plan(write, count=4).devices["leaf1"].pfc_trigger
    full = _plan(write, count=128).devices["leaf1"].pfc_trigger
    assert few.sharing_pgs == full.sharing_pgs == 128
    assert few.trigger_bytes == full.trigger_bytes
    at_800g = _plan(write, speed="800G").devices["leaf1"].pfc_trigger
    assert at_800g.sharing_pgs == 64


def test_a_128_port_leaf_has_n_128_times_its_lossless_pgs(write):
    device = _plan(write, count=128).devices["leaf1"]
    trigger = device.pfc_trigger
    assert trigger.ports == 128 and trigger.lossless_pgs_per_port == len(device.lossless_priorities)
    assert trigger.sharing_pgs == 128 * trigger.lossless_pgs_per_port
    assert device.budget.lossless_pgs == 128 * trigger.lossless_pgs_per_port


def test_unknown_platform_counts_the_asics_full_radix(write):
    trigger = _plan(write, platform="SN5600-custom").devices["leaf1"].pfc_trigger
    assert trigger.sharing_pgs == 51_200 // 400


def test_sn5600_trigger_uses_the_published_pool(write):
    """B is SONiC's SN5600 ingress_lossless_pool (no shared headroom pool in that SKU); with
    alpha 1 and n = 128, T = B / 129."""
    trigger = _plan(write).devices["leaf1"].pfc_trigger
    assert trigger.shared_buffer_bytes == SN5600_POOL
    assert trigger.alpha == 1.0
    assert trigger.trigger_bytes == int(SN5600_POOL / 129)


@pytest.mark.parametrize(
    ("preset", "kmin_breaks_at", "kmax_breaks_at"),
    [
        # issue 10: SONiC's, Cisco's and the scaled presets break at n of 22-64 on SN5600
        ("sonic", 64, 32),  # Kmin 1 MiB, Kmax 2 MiB
        ("cisco", 451, 22),  # Kmin 150 kB, Kmax 3 MB
        ("dcqcn-scaled", 169, 42),  # the 100G values at 400G: 400 kB, 1.6 MB
        ("nvidia", 451, 45),  # Kmin 150 kB, Kmax 1.5 MB
    ],
)
def test_largest_n_before_pfc_on_sn5600(preset, kmin_breaks_at, kmax_breaks_at):
    """The first n at which T(n) = B/(1+n) no longer exceeds the threshold."""
    from lossless.model import EcnPolicy
    from lossless.planner.derivation import Derivation
    from lossless.planner.ecn import ecn_thresholds

    t = ecn_thresholds(EcnPolicy(preset, None, None, None, 1), 400_000, Derivation("t", "t"))
    assert largest_pgs_before_pfc(t.min_bytes, SN5600_POOL, 1.0, 1) == kmin_breaks_at - 1
    assert largest_pgs_before_pfc(t.max_bytes, SN5600_POOL, 1.0, 1) == kmax_breaks_at - 1
    # T(n) = B/(1+n): at the breaking n it no longer exceeds Kmax, one PG fewer it did
    assert SN5600_POOL / (1 + kmax_breaks_at) <= t.max_bytes < SN5600_POOL / kmax_breaks_at


def _ll112(plan):
    return [f for f in lint(plan, select=["LL112"]).findings if f.rule == "LL112"]


def test_lint_fails_a_preset_whose_kmin_is_above_t_at_the_real_n(write):
    """SONiC's 1 MiB Kmin on an 800G SN5600: n = 64, T = B/65 = 1,042,122 B < 1,048,576.
    With only 4 ports listed the old inventory clamp (n = 4) hid it."""
    plan = _plan(write, preset="sonic", speed="800G", count=4)
    device = plan.devices["leaf1"]
    assert device.pfc_trigger.sharing_pgs == 64
    assert device.pfc_trigger.largest_n_ecn_before_pfc == 63
    findings = _ll112(plan)
    assert findings and all(f.severity == "error" for f in findings)
    assert "at n = 64 PGs" in findings[0].message and "holds up to 63 PGs" in findings[0].message


def test_fan_out_divides_the_trigger(write):
    """One ingress PG feeding f congested queues fires PFC while each holds T/f: NVIDIA's
    150 kB Kmin holds at f = 1 (T = 525 kB at n = 128) and fails at f = 4 (131 kB)."""
    one = _plan(write, fan_out=1)
    four = _plan(write, fan_out=4)
    ecn_one = one.devices["leaf1"].ports["Ethernet0"].ecn[0]
    ecn_four = four.devices["leaf1"].ports["Ethernet0"].ecn[0]
    assert ecn_four.queue_trigger_bytes == ecn_one.pfc_trigger_bytes // 4
    assert ecn_one.min_below_trigger is True and ecn_four.min_below_trigger is False
    assert all(f.severity == "warning" for f in _ll112(one))  # Kmax 1.5 MB above T
    assert any(f.severity == "error" for f in _ll112(four))


def test_tomahawk5_sees_half_its_pool_and_tomahawk3_ships_alpha_a_quarter(write):
    th5 = _plan(write, asic="tomahawk-5", platform="7060X6-64PE").devices["leaf1"]
    pool = (166_115_492 - 29_423_360) / 2  # per ITM
    budget_left = th5.budget.shared_buffer_bytes / 2
    assert th5.pfc_trigger.buffer_partitions == 2
    assert th5.pfc_trigger.shared_buffer_bytes == int(min(pool, budget_left))
    th3 = _plan(write, asic="tomahawk-3", platform="Z9332F-ON").devices["leaf1"]
    assert th3.pfc_trigger.dynamic_th == -2 and th3.pfc_trigger.alpha == 0.25
    assert th3.headroom_settings.dynamic_th == -2


def test_shared_headroom_pool_defaults_as_the_skus_ship_it(write):
    broadcom = _plan(write, asic="tomahawk-4", platform="Z9664F-ON").devices["leaf1"]
    nvidia = _plan(write).devices["leaf1"]
    assert broadcom.headroom_settings.shared_headroom_pool is True
    assert all(h.size == h.xon for p in broadcom.ports.values() for h in p.headroom)
    assert broadcom.budget.shared_headroom_pool_bytes > 0
    assert nvidia.headroom_settings.shared_headroom_pool is False


def test_plan_json_carries_the_trigger(run, write):
    path = write(
        INVENTORY.format(
            preset="nvidia",
            fan_out=1,
            asic="spectrum-4",
            platform="SN5600",
            speed="400G",
            count=2,
            last=4,
            step=4,
        )
    )
    device = expand(json.loads(run("plan", str(path), "--format", "json").out))["devices"]["leaf1"]
    trigger = device["pfc_trigger"]
    assert trigger["sharing_pgs"] == 128
    assert trigger["largest_n_ecn_before_pfc"] == 450
    assert trigger["largest_n_full_marking_before_pfc"] == 44
    assert device["budget"]["ports"] == 128 and device["budget"]["unlisted_ports"] == 126
