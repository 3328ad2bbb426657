"""Regenerate qos_params_headroom.csv from a checkout of sonic-net/sonic-mgmt.

    python3 tests/data/qos_params/extract_qos_params.py /path/to/sonic-mgmt > \
        tests/data/qos_params/qos_params_headroom.csv

Reads tests/qos/files/qos_params.<asic>.yaml of the Broadcom families in the catalogue at the
checkout's HEAD (git objects) and writes one row per distinct PFC xoff test point: a profile
key `<speed>_<cable>m` under a topology, and its xoff_N block. SONiC's PFC test
(tests/saitests/py3/sai_qos_tests.py, PFCtest) counts its 64-byte packets in cells (one cell
each at these cell sizes), so the headroom the test exercises is (pkts_num_trig_ingr_drp -
pkts_num_trig_pfc) cells of the profile's cell_size.
"""

from __future__ import annotations

import csv
import re
import subprocess
import sys

import yaml

FAMILIES = {
    "th": "tomahawk-1",
    "th2": "tomahawk-2",
    "th3": "tomahawk-3",
    "th5": "tomahawk-5",
    "td2": "trident-2",
    "td3": "trident-3",
}
PROFILE = re.compile(r"(\d+)_(\d+)m")
FIELDS = (
    "asic",
    "speed_mbps",
    "cable_m",
    "topology",
    "test",
    "pkts_num_trig_pfc",
    "pkts_num_trig_ingr_drp",
    "cell_size",
    "headroom_bytes",
    "file",
    "commit",
)


def points(node: object, path: list[str]):
    if not isinstance(node, dict):
        return
    for key, value in node.items():
        match = PROFILE.fullmatch(str(key))
        if not (match and isinstance(value, dict)):
            yield from points(value, [*path, str(key)])
            continue
        cells = {b["cell_size"] for b in value.values() if isinstance(b, dict) and "cell_size" in b}
        for name, block in value.items():
            if re.fullmatch(r"xoff_\d+", name) and "packet_size" not in block:
                (cell,) = cells
                yield path, int(match[1]), int(match[2]), name, block, cell


def main(checkout: str) -> None:
    def git(*args: str) -> str:
        return subprocess.run(
            ["git", "-C", checkout, *args], check=True, capture_output=True, text=True
        ).stdout

    commit = git("rev-parse", "HEAD").strip()
    out = csv.DictWriter(sys.stdout, FIELDS, lineterminator="\n")
    out.writeheader()
    for short, asic in FAMILIES.items():
        path = f"tests/qos/files/qos_params.{short}.yaml"
        data = yaml.safe_load(git("show", f"HEAD:{path}"))["qos_params"]
        for where, speed, cable, name, block, cell in points(data, []):
            pfc, drop = block["pkts_num_trig_pfc"], block["pkts_num_trig_ingr_drp"]
            out.writerow(
                {
                    "asic": asic,
                    "speed_mbps": speed,
                    "cable_m": cable,
                    "topology": "/".join(where[1:]),
                    "test": name,
                    "pkts_num_trig_pfc": pfc,
                    "pkts_num_trig_ingr_drp": drop,
                    "cell_size": cell,
                    "headroom_bytes": (drop - pfc) * cell,
                    "file": path,
                    "commit": commit,
                }
            )


if __name__ == "__main__":
    main(sys.argv[1])
