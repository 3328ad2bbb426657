"""Built-in policy: what a fabric gets where the inventory says nothing.

Each value is a published default, so a bare inventory renders what vendors document.
"""

from __future__ import annotations

from typing import Any

DEFAULT_POLICY: dict[str, Any] = {
    # RoCE data DSCP 26 -> priority 3 (lossless); CNP DSCP 48 -> priority 6 (strict, lossy):
    # Cumulus `nv set qos roce` defaults and the NVIDIA NIC defaults (physics.md 3.5 [SRC]).
    "roce": {"data": {"dscp": 26, "priority": 3}, "cnp": {"dscp": 48, "priority": 6}},
    # Port MTU 9100: SONiC's default port MTU (sonic.md 4, PORT [SRC]); valid on every OS we
    # render (EOS takes at most 9214) and above a 9000-byte NIC MTU plus L2 overhead.
    "mtu": 9100,
    # ECN: NVIDIA Cumulus/Onyx RoCE defaults 150 000 / 1 500 000 B, 100 % (ecn-defaults.csv [SRC]).
    # congested_pgs: physics.md 3.4 worked example (rule holds "up to 16 congested PGs").
    "ecn": {
        "preset": "nvidia",
        "min_bytes": None,
        "max_bytes": None,
        "probability_percent": None,
        "congested_pgs": 16,
    },
    # Watchdog: detection/restoration 200 ms (SONiC pfcwd defaults, Juniper 2 x 100 ms polls),
    # poll 100 ms (Cumulus, Juniper, Arista AI guide), action drop (physics.md 4 rule 8).
    "pfc_watchdog": {
        "enabled": True,
        "detection_ms": 200,
        "restoration_ms": 200,
        "poll_ms": 100,
        "action": "drop",
    },
    # ECMP: the Cumulus default field set minus the IPv6 flow label; the UDP source port is
    # the only per-flow field of RoCE v2 (physics.md 5 [SRC]). seed None = the tier's seed.
    "ecmp": {
        "hash_fields": ["src-ip", "dst-ip", "ip-protocol", "src-port", "dst-port"],
        "seed": None,
        "resilient": True,
    },
    # SONiC LOSSLESS_TRAFFIC_PATTERN defaults (mtu 1024, small packets 50 %), independent
    # headroom (no shared pool), default_dynamic_th 0 (sonic.md 1.3 [SRC]).
    "headroom": {
        "lossless_mtu": 1024,
        "small_packet_percent": 50,
        "shared_headroom_pool": False,
        "over_subscribe_ratio": None,
        "dynamic_th": 0,
        # The switch sizes headroom where it can (SONiC's dynamic buffer model computes it
        # from speed and cable with the same formula as the plan, sonic.md 1); true renders
        # the planned bytes as a fixed profile instead.
        "override": False,
    },
    # Cumulus RoCE ETS: TC3 DWRR 50 %, TC0 DWRR 50 %, TC6 strict (vendors.md 4h [SRC]).
    "scheduler": {"roce_weight": 50, "default_weight": 50},
}

ECN_THRESHOLD_KEYS = ("min_bytes", "max_bytes", "probability_percent")


def merge_policy(base: dict[str, Any], override: dict[str, Any]) -> dict[str, Any]:
    """Deep-merge override onto base. Naming an ECN preset drops inherited explicit thresholds."""
    merged = dict(base)
    for key, value in override.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            inherited = dict(merged[key])
            if key == "ecn" and "preset" in value:
                for threshold in ECN_THRESHOLD_KEYS:
                    inherited[threshold] = None
            merged[key] = merge_policy(inherited, value)
        else:
            merged[key] = value
    return merged
