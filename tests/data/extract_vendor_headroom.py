"""Regenerate vendor_headroom.csv from a checkout of sonic-net/sonic-buildimage.

    python3 tests/data/extract_vendor_headroom.py /path/to/sonic-buildimage > vendor_headroom.csv

Reads every device/**/pg_profile_lookup.ini of the Broadcom families in the catalogue at the
checkout's HEAD (git objects, so symbolic links are followed the way git stores them), keeps
one copy of each file that several SKUs share through symlinks, and writes one row per table
line. The ASIC family of a file is read from the Broadcom config file beside it (th-, th2-,
th3-, th4-, th5-, td2-, td3-, td4- prefixes) or from the platform name (FAMILY_PATTERNS of
sonic_device_tree.py, shared with extract_sonic_skus.py); the evidence column gives the
config file, or the Broadcom chip its header names, or the platform.
Files of other ASICs (Tomahawk 6, Helix 5, Jericho, Marvell, Mellanox) are left out: the
catalogue has no ASIC for them, or their vendor formula is modelled exactly.
"""

from __future__ import annotations

import csv
import posixpath
import re
import sys

from sonic_device_tree import DeviceTree, family_of

FAMILIES = {
    "tomahawk-1",
    "tomahawk-2",
    "tomahawk-3",
    "tomahawk-4",
    "tomahawk-5",
    "trident-2",
    "trident-3",
    "trident-4",
}
BROADCOM = {"broadcom", "broadcom-legacy-th", ""}  # platform_asic; "" for shared profiles
COLUMNS = (
    "asic",
    "speed_mbps",
    "cable_m",
    "xoff",
    "size",
    "xon",
    "xon_offset",
    "dynamic_th",
    "file",
    "skus",
    "asic_evidence",
    "commit",
)


def main(repo: str) -> None:
    device = DeviceTree(repo)
    commit, tree, real, text, git = device.commit, device.tree, device.real, device.text, device.git

    files: dict[str, dict] = {}
    for path in sorted(tree):
        if not path.endswith("pg_profile_lookup.ini") or tree[path][0] == "040000":
            continue
        if "/virtual/" in path or "RDMA-CENTRIC" in path:
            continue
        folder = posixpath.dirname(path)
        platform_asic = tree.get(real(posixpath.join(posixpath.dirname(folder), "platform_asic")))
        vendor = git("cat-file", "-p", platform_asic[1]).strip() if platform_asic else ""
        if vendor not in BROADCOM:
            continue
        configs = sorted(
            posixpath.basename(p)
            for p in tree
            if posixpath.dirname(p) == real(folder) and p.endswith((".bcm", ".yml", ".yaml"))
        )
        chip = ""
        for config in configs:
            named = re.search(r"BCM\d+", text(posixpath.join(real(folder), config))[:400])
            chip = f"{named.group(0)} in {config}" if named else chip
        key = " ".join([path, real(path), *configs])
        family = family_of(key)
        if family not in FAMILIES:
            continue
        entry = files.setdefault(real(path), {"family": family, "skus": set(), "evidence": ""})
        entry["skus"].add(
            posixpath.basename(folder)
            if not folder.endswith("BALANCED")
            else posixpath.basename(posixpath.dirname(folder))
        )
        named_by_config = [c for c in configs if re.match(r"t[hd]\d?[-_]", c)]
        entry["evidence"] = entry["evidence"] or (
            named_by_config[0]
            if named_by_config
            else f"platform {posixpath.dirname(folder)}" + (f" ({chip})" if chip else "")
        )
    out = csv.writer(sys.stdout, lineterminator="\n")
    out.writerow(COLUMNS)
    for path, entry in sorted(files.items()):
        for line in text(path).splitlines():
            fields = line.split("#")[0].split()
            if len(fields) < 6 or not fields[0].isdigit():
                continue
            speed, cable, size, xon, xoff, threshold = fields[:6]
            out.writerow(
                (
                    entry["family"],
                    speed,
                    cable.rstrip("m"),
                    xoff,
                    size,
                    xon,
                    fields[6] if len(fields) > 6 else "",
                    threshold,
                    path,
                    " ".join(sorted(entry["skus"])),
                    entry["evidence"],
                    commit,
                )
            )


if __name__ == "__main__":
    main(sys.argv[1])
