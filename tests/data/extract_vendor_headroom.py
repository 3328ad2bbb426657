"""Regenerate vendor_headroom.csv from a checkout of sonic-net/sonic-buildimage.

    python3 tests/data/extract_vendor_headroom.py /path/to/sonic-buildimage > vendor_headroom.csv

Reads every device/**/pg_profile_lookup.ini of the Broadcom families in the catalogue at the
checkout's HEAD (git objects, so symbolic links are followed the way git stores them), keeps
one copy of each file that several SKUs share through symlinks, and writes one row per table
line. The ASIC family of a file is read from the Broadcom config file beside it (th-, th2-,
th3-, th4-, th5-, td2-, td3-, td4- prefixes) or from the platform name (see FAMILY_PATTERNS:
Nokia 7220 IXR-H4/H5/D4 are Tomahawk 4/5 and Trident 4, NextHop 4010/4020 Tomahawk 5); the
evidence column gives the config file, or the Broadcom chip its header names, or the platform.
Files of other ASICs (Tomahawk 6, Helix 5, Jericho, Marvell, Mellanox) are left out: the
catalogue has no ASIC for them, or their vendor formula is modelled exactly.
"""

from __future__ import annotations

import csv
import posixpath
import re
import subprocess
import sys

FAMILY_PATTERNS = (
    (r"(^|/)th-|7060_cx32s|z9100|seastone-r0|s6100|profiles/th/", "tomahawk-1"),
    (r"(^|/)th2-|7260cx3|z9264f|profiles/th2/", "tomahawk-2"),
    (r"(^|/)th3-|z9332f|silverstone|snj60d0|ix9_", "tomahawk-3"),
    (r"(^|/)th4-|z9664f|ixr7220_h4|profiles/th4/", "tomahawk-4"),
    (
        r"(^|/)th5|7060x6|z9864f|micas_m2-w6940|ixr7220_h5|nexthop_40[12]0|profiles/th5/",
        "tomahawk-5",
    ),
    (r"ixr7220_h6|nexthop_4210", "tomahawk-6"),
    (r"(^|/)td2-|7050_qx32|s6000|profiles/td2/", "trident-2"),
    (
        r"(^|/)td3-|7050cx3|7050sx3|ds3000|seastone_2|s52[123]|n3248pxe|d6332|d6356|quanta_ix[78]",
        "trident-3",
    ),
    (r"(^|/)td4-|s5448f|ixr7220_d4", "trident-4"),
)
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
    def git(*args: str) -> str:
        return subprocess.run(
            ["git", "-C", repo, *args], capture_output=True, text=True, check=True
        ).stdout

    commit = git("rev-parse", "HEAD").strip()
    tree = {}
    for line in git("ls-tree", "-r", "-t", "HEAD", "device").splitlines():
        meta, path = line.split("\t", 1)
        mode, _, sha = meta.split()
        tree[path] = (mode, sha)

    def real(path: str) -> str:
        parts, current = path.split("/"), ""
        for i, part in enumerate(parts):
            current = posixpath.join(current, part) if current else part
            if tree.get(current, ("",))[0] == "120000":
                target = git("cat-file", "-p", tree[current][1]).strip()
                rest = "/".join(parts[i + 1 :])
                joined = posixpath.normpath(posixpath.join(posixpath.dirname(current), target))
                return real(posixpath.join(joined, rest) if rest else joined)
        return current

    def text(path: str) -> str:
        return git("cat-file", "-p", tree[real(path)][1])

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
        family = next((f for pattern, f in FAMILY_PATTERNS if re.search(pattern, key)), None)
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
