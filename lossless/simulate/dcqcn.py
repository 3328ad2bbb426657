"""DCQCN's reaction and notification points (Zhu et al., "Congestion Control for
Large-Scale RDMA Deployments", SIGCOMM 2015, section 3 and figure 7), with NVIDIA's
documented defaults for ConnectX-4 and later.

The neutral names are `lossless/hosts/nvidia.py` DCQCN_KNOBS', so an inventory's NIC
`dcqcn:` settings and `lossless simulate --dcqcn NAME=VALUE` speak the same language.
"""

from __future__ import annotations

import dataclasses
import math

from lossless.text.printable import printable

# NVIDIA DOCA SDK "DCQCN CC Parameters" (networking-docs.nvidia.com/doca/archive/3-4-0/
# dcqcn-cc-parameters), the MLNX_OFED column: [SRC] read there. [2ND]: that page's
# rate-increase and notification-point rows were not read here; the values are those an
# `mlxconfig query` of a ConnectX adapter with untouched DCQCN settings prints (RPG_*,
# MIN_TIME_BETWEEN_CNPS, in a public mailing-list thread), which agree with every [SRC] row.
# docs/simulate.md lists them.
DOCA = "NVIDIA DOCA 3.4 'DCQCN CC Parameters'"
QUERY = "mlxconfig query of a ConnectX adapter"
DEFAULTS: dict[str, tuple[float, str]] = {
    "alpha_g": (1019, f"dce_tcp_g 1019 (fixed point, 10 fraction bits), {DOCA} [SRC]"),
    "alpha_update_period_us": (1, f"dce_tcp_rtt 1 us, {DOCA} [SRC]"),
    "initial_alpha": (1023, f"initial_alpha_value 1023 (/1024), {DOCA} [SRC]"),
    "rate_on_first_cnp_mbps": (0, f"rate_to_set_on_first_cnp 0 (not used), {DOCA} [SRC]"),
    "min_decrease_percent": (50, f"rpg_min_dec_fac 50 %, {DOCA} [SRC]"),
    "min_rate_mbps": (1, f"rpg_min_rate 1 Mb/s, {DOCA} [SRC]"),
    "rate_reduce_period_us": (4, f"rate_reduce_monitor_period 4 us, {DOCA} [SRC]"),
    "rate_increase_period_us": (300, f"rpg_time_reset 300 us (RPG_TIME_RESET), {QUERY} [2ND]"),
    "rate_increase_bytes": (32767, f"rpg_byte_reset 32767 B (RPG_BYTE_RESET), {QUERY} [2ND]"),
    "rate_increase_threshold": (1, f"rpg_threshold 1 (RPG_THRESHOLD), {QUERY} [2ND]"),
    "ai_rate_mbps": (5, f"rpg_ai_rate 5 Mb/s (RPG_AI_RATE), {QUERY} [2ND]"),
    "hai_rate_mbps": (50, f"rpg_hai_rate 50 Mb/s (RPG_HAI_RATE), {QUERY} [2ND]"),
    "cnp_interval_us": (2, f"min_time_between_cnps 2 us (MIN_TIME_BETWEEN_CNPS), {QUERY} [2ND]"),
    # when a cut makes the target rate the current rate: clamp_tgt_rate 1, at every cut (the
    # paper's figure 7); 0, only if the rate rose since the last cut, by the byte counter or
    # (clamp_tgt_rate_after_time_inc 1) the timer, so that cuts in a row keep the target
    "clamp_target_rate": (0, f"clamp_tgt_rate 0 (CLAMP_TGT_RATE), {QUERY} [2ND]"),
    "clamp_after_timer_increase": (
        1,
        f"clamp_tgt_rate_after_time_inc 1 (CLAMP_TGT_RATE_AFTER_TIME_INC), {QUERY} [2ND]",
    ),
}


# The values each knob takes (DOCA's "Values" column where it gives one; a period or a
# counter of 0 would make the model step forever): (lowest, highest), None: no bound.
RANGES: dict[str, tuple[float, float | None]] = {
    "alpha_g": (0, 1023),
    "alpha_update_period_us": (1, 131071),
    "initial_alpha": (1, 1023),
    "rate_on_first_cnp_mbps": (0, None),
    "min_decrease_percent": (0, 100),
    "min_rate_mbps": (1, None),
    "rate_reduce_period_us": (1, None),
    "rate_increase_period_us": (1, None),
    "rate_increase_bytes": (1, None),
    "rate_increase_threshold": (1, None),
    "ai_rate_mbps": (0, None),
    "hai_rate_mbps": (0, None),
    "cnp_interval_us": (0, None),
    "clamp_target_rate": (0, 1),
    "clamp_after_timer_increase": (0, 1),
}


@dataclasses.dataclass(frozen=True)
class Dcqcn:
    """DCQCN constants in the simulation's units (seconds, bits/s, bytes, fractions)."""

    g: float  # alpha's gain: (1024 - dce_tcp_g) / 1024, Zhu's g (1/256 there)
    alpha_period: float
    initial_alpha: float
    rate_on_first_cnp: float  # bits/s, 0: cut as any other CNP
    min_factor: float  # one cut leaves at least this share of the rate
    min_rate: float
    reduce_period: float  # at most one cut per period
    increase_period: float  # the timer T
    increase_bytes: float  # the byte counter B
    threshold: int  # F: stages of fast recovery
    ai_rate: float
    hai_rate: float
    cnp_interval: float
    clamp_always: bool  # every cut makes the target the current rate
    clamp_after_timer: bool  # a timer increase since the last cut does too (bytes always do)
    sources: dict[str, str]


def dcqcn(overrides: dict[str, float] | None = None) -> Dcqcn:
    """NVIDIA's defaults with these neutral-name overrides (names checked by the caller)."""
    values = {name: value for name, (value, _) in DEFAULTS.items()}
    sources = {name: source for name, (_, source) in DEFAULTS.items()}
    for name, value in (overrides or {}).items():
        values[name] = value
        sources[name] = "set for this run"
    us = 1e-6
    return Dcqcn(
        g=(1024 - values["alpha_g"]) / 1024,
        alpha_period=values["alpha_update_period_us"] * us,
        initial_alpha=values["initial_alpha"] / 1024,
        rate_on_first_cnp=values["rate_on_first_cnp_mbps"] * 1e6,
        min_factor=values["min_decrease_percent"] / 100,
        min_rate=values["min_rate_mbps"] * 1e6,
        reduce_period=values["rate_reduce_period_us"] * us,
        increase_period=values["rate_increase_period_us"] * us,
        increase_bytes=values["rate_increase_bytes"],
        threshold=int(values["rate_increase_threshold"]),
        ai_rate=values["ai_rate_mbps"] * 1e6,
        hai_rate=values["hai_rate_mbps"] * 1e6,
        cnp_interval=values["cnp_interval_us"] * us,
        clamp_always=bool(values["clamp_target_rate"]),
        clamp_after_timer=bool(values["clamp_after_timer_increase"]),
        sources=sources,
    )


def parse_overrides(pairs: list[str]) -> dict[str, float]:
    """`NAME=VALUE` knobs (--dcqcn) checked against RANGES; ValueError names the bad one."""
    overrides = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or name not in DEFAULTS:
            raise ValueError(
                f"--dcqcn {printable(pair)!r}: NAME=VALUE with NAME one of {', '.join(DEFAULTS)}"
            )
        try:
            number = float(value)
        except ValueError:
            number = float("nan")
        low, high = RANGES[name]
        if not low <= number <= (float("inf") if high is None else high) or math.isinf(number):
            upper = f" and {high:g}" if high is not None else ""
            raise ValueError(
                f"--dcqcn {name}: {printable(value)!r} is not a number "
                + (f"between {low:g}{upper}" if high is not None else f">= {low:g}")
            )
        if not number.is_integer():
            # the NIC takes every DCQCN knob as an integer (mlxconfig, sysfs): 0.5 is no setting
            raise ValueError(f"--dcqcn {name}: {printable(value)!r} is not a whole number")
        overrides[name] = number
    return overrides
