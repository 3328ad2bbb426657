#!/usr/bin/env python3
"""Speed of reading a full SONiC running config_db.json as the switch grows.

Run by hand: python3 benchmarks/bench_sonic_parse.py [PORTS ...]   (default 128 256 512)

Builds a running config_db the way a SONiC switch holds it (DEVICE_METADATA, PORT with lanes,
per port: PORT_QOS_MAP, seven QUEUE entries, lossy and lossless BUFFER_PG, three BUFFER_QUEUE
ranges, PFC_WD, CABLE_LENGTH; pools, profiles, maps, schedulers, WRED, BGP neighbours), then
times the SONiC parser (JSON, line marks, shape checks and the device plan), best of 3, and
reports microseconds per port: reading is linear in ports when that figure stays flat.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from lossless.vendors.sonic import parse as sonic_parse  # noqa: E402


def running_config(ports: int) -> str:
    names = [f"Ethernet{8 * i}" for i in range(ports)]
    db: dict = {
        "DEVICE_METADATA": {
            "localhost": {
                "buffer_model": "dynamic",
                "hwsku": "Mellanox-SN5600-V256",
                "platform": "x86_64-nvidia_sn5600-r0",
                "type": "LeafRouter",
            }
        },
        "BUFFER_POOL": {
            "ingress_lossless_pool": {"mode": "dynamic", "type": "ingress"},
            "egress_lossy_pool": {"mode": "dynamic", "type": "egress"},
        },
        "BUFFER_PROFILE": {
            "ingress_lossy_profile": {
                "dynamic_th": "3",
                "pool": "ingress_lossless_pool",
                "size": "0",
            },
            "egress_lossless_profile": {
                "dynamic_th": "7",
                "pool": "egress_lossy_pool",
                "size": "0",
            },
            "q_lossy_profile": {"dynamic_th": "3", "pool": "egress_lossy_pool", "size": "0"},
        },
        "DSCP_TO_TC_MAP": {
            "AZURE": {str(d): "3" if d == 26 else "6" if d == 48 else "0" for d in range(64)}
        },
        "TC_TO_QUEUE_MAP": {"AZURE": {str(t): str(t) for t in range(8)}},
        "TC_TO_PRIORITY_GROUP_MAP": {"AZURE": {str(t): "3" if t == 3 else "0" for t in range(8)}},
        "MAP_PFC_PRIORITY_TO_QUEUE": {"AZURE": {str(t): str(t) for t in range(8)}},
        "SCHEDULER": {
            "scheduler.0": {"type": "DWRR", "weight": "10"},
            "scheduler.1": {"type": "STRICT"},
        },
        "WRED_PROFILE": {
            "AZURE_LOSSLESS": {
                "ecn": "ecn_all",
                "green_min_threshold": "150000",
                "green_max_threshold": "1500000",
                "green_drop_probability": "100",
                "wred_green_enable": "true",
            }
        },
        "PFC_WD": {"GLOBAL": {"POLL_INTERVAL": "100"}},
        "BGP_NEIGHBOR": {f"10.0.{i // 128}.{i % 128 * 2}": {"asn": "65100"} for i in range(ports)},
        "PORT": {},
        "PORT_QOS_MAP": {},
        "QUEUE": {},
        "BUFFER_PG": {},
        "BUFFER_QUEUE": {},
        "CABLE_LENGTH": {"AZURE": {}},
    }
    for index, name in enumerate(names):
        db["PORT"][name] = {
            "admin_status": "up",
            "alias": f"etp{index + 1}",
            "lanes": ",".join(str(8 * index + lane) for lane in range(8)),
            "mtu": "9100",
            "speed": "400000",
        }
        db["PORT_QOS_MAP"][name] = {
            "dscp_to_tc_map": "AZURE",
            "tc_to_queue_map": "AZURE",
            "tc_to_pg_map": "AZURE",
            "pfc_to_queue_map": "AZURE",
            "pfc_enable": "3",
            "pfcwd_sw_enable": "3",
        }
        for queue in range(7):
            entry = {"scheduler": "scheduler.1" if queue == 6 else "scheduler.0"}
            if queue == 3:
                entry["wred_profile"] = "AZURE_LOSSLESS"
            db["QUEUE"][f"{name}|{queue}"] = entry
        db["BUFFER_PG"][f"{name}|0"] = {"profile": "ingress_lossy_profile"}
        db["BUFFER_PG"][f"{name}|3"] = {"profile": "NULL"}
        for queues, profile in (
            ("0-2", "q_lossy_profile"),
            ("3", "egress_lossless_profile"),
            ("4-6", "q_lossy_profile"),
        ):
            db["BUFFER_QUEUE"][f"{name}|{queues}"] = {"profile": profile}
        db["PFC_WD"][name] = {"action": "drop", "detection_time": "200", "restoration_time": "200"}
        db["CABLE_LENGTH"]["AZURE"][name] = "5m"
    return json.dumps(db, indent=4, sort_keys=True)


def best_of(runs: int, action) -> float:
    best = float("inf")
    for _ in range(runs):
        started = time.perf_counter()
        action()
        best = min(best, time.perf_counter() - started)
    return best


def main(sizes: list[int]) -> None:
    print(f"{'ports':>6} {'bytes':>10} {'parse s':>9} {'us/port':>8}")
    for ports in sizes:
        text = running_config(ports)
        seconds = best_of(3, lambda text=text: sonic_parse.parse(text, "running.json", "leaf"))
        print(f"{ports:>6} {len(text):>10} {seconds:>9.3f} {seconds / ports * 1e6:>8.0f}")


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [128, 256, 512])
