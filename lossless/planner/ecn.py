"""ECN/WRED thresholds of the lossless queue, and the check that ECN marks before PFC fires."""

from __future__ import annotations

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
        "(alibaba-edu/High-Precision-Congestion-Control simulation/run.py) [SRC]",
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


def pfc_trigger_bytes(
    shared_buffer_bytes: int | None, dynamic_th: int, congested_pgs: int, d: Derivation
) -> int | None:
    """Shared-buffer occupancy of one PG at which PFC fires, with n PGs congested together.

    T_pfc(n) = alpha * B / (1 + n * alpha), alpha = 2^dynamic_th
    (docs/reference/physics.md 3.4 [DERIVED],
    SAI dynamic threshold semantics [SRC]).
    """
    if shared_buffer_bytes is None:
        d.notes.append("ASIC buffer size unknown: the PFC trigger cannot be computed")
        return None
    alpha = 2.0**dynamic_th
    d.constant(
        "dynamic_th", dynamic_th, "SONiC DEFAULT_LOSSLESS_BUFFER_PARAMETER default_dynamic_th [SRC]"
    )
    d.step("alpha", "2 ^ dynamic_th", f"2 ^ {dynamic_th}", alpha, "")
    return int(
        d.step(
            "pfc_trigger",
            "alpha * B / (1 + n * alpha)",
            f"{num(alpha)} * {shared_buffer_bytes} / (1 + {congested_pgs} * {num(alpha)})",
            int(alpha * shared_buffer_bytes / (1 + congested_pgs * alpha)),
        )
    )
