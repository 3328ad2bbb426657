"""ECN/WRED thresholds of the lossless queue, and the check that ECN marks before PFC fires.

PFC trigger (docs/reference/physics.md 3.4 [DERIVED], SAI dynamic-threshold semantics [SRC]): with n
priority groups congested on a shared buffer B, each PG may hold T(n) = alpha*B/(1 + n*alpha)
before it sends PFC, alpha = 2^dynamic_th. A static share (alpha infinite, Mellanox SAI
dynamic_th 7) is T = B/n, the DCQCN paper's static case. One ingress PG feeding f congested
egress queues fires PFC while each queue holds only T/f, so ECN marks first only if
Kmin < T/f (and marks fully first if Kmax <= T/f).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from lossless.model import EcnPolicy
from lossless.planner.derivation import Derivation, num


@dataclass(frozen=True)
class EcnPreset:
    min_bytes_per_gbps: float | None  # thresholds that scale with the link
    max_bytes_per_gbps: float | None
    min_bytes: int | None  # or fixed thresholds
    max_bytes: int | None
    probability_percent: int
    source: str
    scale_limit_gbps: float | None = None  # link speed above which scaling stops


# The buffer a PG may fill before PFC does not grow with the link, so thresholds scaled with
# C would overtake the PFC trigger on fast links (dcqcn-scaled at 400G: Kmin 1.6 MB, above
# T at 41 PGs on SN5600); scaling stops at 100G, the HPCC artifact's host links (its 200G
# and 400G rows are its 4x uplinks, ecn-defaults.csv [SRC]) [DERIVED].
DCQCN_SCALE_LIMIT_GBPS = 100


# Values and sources: tests/data/reference/ecn-defaults.csv and docs/reference/physics.md 3.3.
PRESETS: dict[str, EcnPreset] = {
    "nvidia": EcnPreset(
        None,
        None,
        150_000,
        1_500_000,
        100,
        "NVIDIA Cumulus `nv set qos roce` / Onyx roce defaults, 150 kB / 1.5 MB / 100 % [SRC]",
    ),
    "sonic": EcnPreset(
        None,
        None,
        1_048_576,
        2_097_152,
        5,
        "SONiC qos_config.j2 WRED_PROFILE AZURE_LOSSLESS, 1 MiB / 2 MiB / 5 % [SRC]",
    ),
    "cisco": EcnPreset(
        None,
        None,
        150_000,
        3_000_000,
        7,
        "Cisco Nexus 9000 AI/ML blueprint, 150 / 3000 kbytes, 7 % (as reproduced) [2ND]",
    ),
    "dcqcn-scaled": EcnPreset(
        4_000,
        16_000,
        None,
        None,
        20,
        "HPCC artifact DCQCN baseline: Kmin = 100 KB x C/25G, Kmax = 400 KB x C/25G, 20 % "
        "(alibaba-edu/High-Precision-Congestion-Control simulation/run.py) [SRC]; held at "
        "the 100G values above 100G (the PFC trigger does not grow with C) [DERIVED]",
        scale_limit_gbps=DCQCN_SCALE_LIMIT_GBPS,
    ),
}


@dataclass(frozen=True)
class EcnThresholds:
    min_bytes: int
    max_bytes: int
    probability_percent: int
    preset: str | None


def ecn_thresholds(policy: EcnPolicy, speed_mbps: int, d: Derivation) -> EcnThresholds:
    """The thresholds a policy gives at this speed: the preset, then explicit values."""
    preset = PRESETS[policy.preset] if policy.preset else None
    gbps = speed_mbps / 1000
    minimum = maximum = probability = None
    if preset is not None:
        d.constant(f"preset {policy.preset}", policy.preset, preset.source)
        if preset.scale_limit_gbps is not None and gbps > preset.scale_limit_gbps:
            gbps = d.step(
                "scaled_gbps",
                "min(C, scale_limit)",
                f"min({num(gbps)}, {num(preset.scale_limit_gbps)})",
                preset.scale_limit_gbps,
                "Gb/s",
            )
        if preset.min_bytes_per_gbps is not None and preset.max_bytes_per_gbps is not None:
            minimum = int(
                d.step(
                    "kmin",
                    "min_bytes_per_gbps * C",
                    f"{num(preset.min_bytes_per_gbps)} * {num(gbps)}",
                    round(preset.min_bytes_per_gbps * gbps),
                )
            )
            maximum = int(
                d.step(
                    "kmax",
                    "max_bytes_per_gbps * C",
                    f"{num(preset.max_bytes_per_gbps)} * {num(gbps)}",
                    round(preset.max_bytes_per_gbps * gbps),
                )
            )
        else:
            minimum, maximum = preset.min_bytes, preset.max_bytes
        probability = preset.probability_percent
    for name, value in (
        ("min_bytes", policy.min_bytes),
        ("max_bytes", policy.max_bytes),
        ("probability_percent", policy.probability_percent),
    ):
        if value is not None:
            d.notes.append(f"{name} = {value} set explicitly in the inventory")
    minimum = policy.min_bytes if policy.min_bytes is not None else minimum
    maximum = policy.max_bytes if policy.max_bytes is not None else maximum
    probability = (
        policy.probability_percent if policy.probability_percent is not None else probability
    )
    if minimum is None or maximum is None or probability is None:
        raise ValueError(
            "ECN policy needs a preset or min_bytes, max_bytes and probability_percent"
        )
    return EcnThresholds(minimum, maximum, probability, policy.preset)


def pfc_trigger_bytes(shared_bytes: float, alpha_value: float, pgs: int) -> float:
    """Occupancy at which each of `pgs` congested PGs sends PFC: alpha*B/(1 + n*alpha)."""
    if math.isinf(alpha_value):
        return shared_bytes / pgs
    return alpha_value * shared_bytes / (1 + pgs * alpha_value)


def largest_pgs_before_pfc(
    threshold_bytes: int, shared_bytes: float, alpha_value: float, fan_out: int
) -> int:
    """The most PGs that can congest together while a queue at `threshold_bytes` still sits
    below the PFC trigger: the largest n with threshold * f < T(n) (0 when none)."""
    if threshold_bytes * fan_out >= pfc_trigger_bytes(shared_bytes, alpha_value, 1):
        return 0
    bound = shared_bytes / (threshold_bytes * fan_out)
    if not math.isinf(alpha_value):
        bound -= 1 / alpha_value
    n = max(1, math.ceil(bound) - 1)
    while pfc_trigger_bytes(shared_bytes, alpha_value, n + 1) > threshold_bytes * fan_out:
        n += 1  # float rounding at the boundary
    while n > 1 and pfc_trigger_bytes(shared_bytes, alpha_value, n) <= threshold_bytes * fan_out:
        n -= 1
    return n
