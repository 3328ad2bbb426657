"""Built-in policy: what a fabric gets where the inventory says nothing.

Each value is a published default, so a bare inventory renders what vendors document.
"""

from __future__ import annotations

from typing import Any

# The traffic class of all traffic no DSCP map entry names (and so no RoCE class may use it).
DEFAULT_TC = 0

DEFAULT_POLICY: dict[str, Any] = {
    # RoCE data DSCP 26 -> priority 3 (lossless); CNP DSCP 48 -> priority 6 (strict, lossy): Cumulus
    # `nv set qos roce` defaults and the NVIDIA NIC defaults (docs/reference/physics.md 3.5 [SRC]).
    "roce": {"data": {"dscp": 26, "priority": 3}, "cnp": {"dscp": 48, "priority": 6}},
    # Port MTU 9100: SONiC's default port MTU (docs/reference/sonic.md 4, PORT [SRC]); valid on
    # every OS we render (EOS takes at most 9214) and above a 9000-byte NIC MTU plus L2 overhead.
    "mtu": 9100,
    # ECN: NVIDIA Cumulus/Onyx RoCE defaults 150 000 / 1 500 000 B, 100 % (ecn-defaults.csv [SRC]).
    # fan_out 1: one ingress PG feeds one congested egress queue, docs/reference/physics.md 3.4's
    # worst case
    # for "ECN first" [DERIVED]; the PFC trigger's n is the platform's real port count.
    "ecn": {
        "preset": "nvidia",
        "min_bytes": None,
        "max_bytes": None,
        "probability_percent": None,
        "fan_out": 1,
        # Not an inventory key: with no Kmax chosen (no preset, no max_bytes), the preset's
        # 1.5 MB is lowered to what a queue holds when PFC fires on the device (planner/fabric.py)
        "fit_to_trigger": True,
    },
    # Watchdog: detection/restoration 200 ms (SONiC pfcwd defaults, Juniper 2 x 100 ms polls), poll
    # 100 ms (Cumulus, Juniper, Arista AI guide), action drop (docs/reference/physics.md 4 rule 8).
    "pfc_watchdog": {
        "enabled": True,
        "detection_ms": 200,
        "restoration_ms": 200,
        "poll_ms": 100,
        "action": "drop",
    },
    # ECMP: the Cumulus default field set minus the IPv6 flow label; the UDP source port is the only
    # per-flow field of RoCE v2 (docs/reference/physics.md 5 [SRC]). seed None = the tier's seed.
    "ecmp": {
        "hash_fields": ["src-ip", "dst-ip", "ip-protocol", "src-port", "dst-port"],
        "seed": None,
        "resilient": True,
        # SONiC's DEVICE_METADATA type (which also picks BGP and other templates) is the
        # operator's unless they hand it to lossless
        "device_type": False,
    },
    # SONiC LOSSLESS_TRAFFIC_PATTERN defaults (mtu 1024, small packets 50 %)
    # (docs/reference/sonic.md 1.3
    # [SRC]). Shared headroom pool and dynamic_th: None = as the ASIC's SONiC SKUs ship them
    # (catalogue.yaml: a shared pool on Broadcom, none on NVIDIA; TH3 dynamic_th -2).
    "headroom": {
        "lossless_mtu": 1024,
        "small_packet_percent": 50,
        "shared_headroom_pool": None,
        "over_subscribe_ratio": None,
        "dynamic_th": None,
        # The switch sizes headroom itself where it can (NX-OS, SONiC's dynamic buffer model,
        # which computes it with the plan's formula, docs/reference/sonic.md 1); true writes
        # the planned bytes instead (NX-OS pause buffer, a fixed SONiC profile).
        "override": False,
    },
    # Cumulus RoCE ETS: TC3 DWRR 50 %, TC0 DWRR 50 %, TC6 strict (docs/reference/vendors.md 4h
    # [SRC]).
    "scheduler": {"roce_weight": 50, "default_weight": 50},
    # Host side (NICs), inherited by the NIC at the other end of each switch port:
    # trust dscp: DSCP-based PFC, as every switch here classifies (docs/reference/physics.md
    # 4 rule 12; Guo 2016). NIC MTU 9000 under a 9100+ switch MTU (docs/reference/physics.md
    # 4 rule 13: the AMD guide runs NICs at 9000 under 9214-9216 switches). DCQCN
    # notification and reaction point on: NVIDIA's default (DOCA "DCQCN CC Parameters":
    # DcQcnEnablePrio default Enable), and without them
    # the switches' ECN marks reach no sender. dcqcn {}: NIC firmware defaults. gid_index None:
    # NCCL >= 2.21 and UCX pick the RoCE v2 GID themselves. sriov_vfs 0: bare-metal GPU backend
    # NICs carry no VFs (only the NVIDIA operator output states it).
    "host": {
        "trust": "dscp",
        "mtu": 9000,
        "ecn": {"np": True, "rp": True},
        "dcqcn": {},
        "gid_index": None,
        "sriov_vfs": 0,
    },
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
            if key == "ecn" and ("preset" in value or "max_bytes" in value):
                inherited["fit_to_trigger"] = False  # the inventory chose its Kmax
            merged[key] = merge_policy(inherited, value)
        else:
            merged[key] = value
    return merged
