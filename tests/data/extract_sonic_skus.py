"""Regenerate lossless/asics/sonic_hwskus.csv: every SONiC platform and hwsku of
sonic-buildimage's device/ tree with the ASIC its files name.

    .venv/bin/python tests/data/extract_sonic_skus.py /path/to/sonic-buildimage \\
        > lossless/asics/sonic_hwskus.csv

The path is a checkout or a bare mirror (the search tool's `fetch
github:sonic-net/sonic-buildimage`); git objects are read at its HEAD, whose commit the
file's first line records. One row per hwsku folder (device/VENDOR/PLATFORM/HWSKU, links
followed), with whether it ships buffer tables (buffers.json.j2, buffers_defaults_*.j2 or
pg_profile_lookup.ini, in the folder or one folder down). The ASIC, from the most direct
evidence the tree has, first that wins:

1. the platform's entry in an ASIC table SONiC's buffer manager reads
   (platform/mellanox/asic_table.j2, platform/barefoot/asic_table.j2: platform -> ASIC_TABLE
   key, e.g. MELLANOX-SPECTRUM-3), mapped to the catalogue ASIC with that sonic_asic_table_key;
2. Broadcom (platform_asic broadcom*): the chip the SDK config file is named for (th3-...,
   td3-...), in the hwsku folder, or the file its sai.profile loads, or the platform folder's
   when those name one family; then the platform (FAMILY_PATTERNS of sonic_device_tree.py);
   a Broadcom DNX config (jr2-, jr2p-, j2p-, jr2cp-, q3d-...) is named as such;
3. platform_asic `vs`: SONiC's virtual switch (VS-ASIC, platform/vs/docker-sonic-vs/
   asic_table.json), the catalogue's sonic-vs. The plain KVM platform (x86_64-kvm_x86_64-r0)
   has no platform_asic, and its hwskus copy real switches' files: not placed.

`asic` is the catalogue ASIC (lossless/asics/catalogue.yaml) or empty; `chip` says what the
evidence names when the catalogue does not have it (tomahawk-6, BAREFOOT-TOFINO-2, a DNX
config), empty when nothing in the tree names the chip (Marvell, Centec, Nephos ... only say
their vendor in platform_asic). A platform name is the evidence only where the platform's
files name no chip (FAMILY_PATTERNS, from the vendors' datasheets; the evidence column says
so).
"""

from __future__ import annotations

import csv
import posixpath
import re
import sys

from sonic_device_tree import CONFIG_PREFIX, PREFIX_FAMILY, DeviceTree, family_of

from lossless.asics import catalogue

PLATFORM = re.compile(r"(x86_64|arm64|armhf)-")
BUFFER_FILE = re.compile(r"buffers\.json\.j2|buffers_defaults_[^/]*\.j2|pg_profile_lookup\.ini")
HWSKU_FILE = re.compile(rf"port_config\.ini|hwsku\.json|sai\.profile|{BUFFER_FILE.pattern}")
CONFIG_FILE = re.compile(r".*\.(bcm|ya?ml)")
# Broadcom SDK config names of chips the catalogue does not have, named as they are (Helix 5;
# DNX: Jericho2, 2C, 2C+, Qumran ...), never widened into a family they may not be
OTHER_PREFIX = re.compile(r"(hx5|jr2c?p?|j2c?p?|q2[ac]?|q3d|jr3|j3)[-_]")
ASIC_TABLES = ("platform/mellanox/asic_table.j2", "platform/barefoot/asic_table.j2")
ASIC_TABLE_ENTRY = re.compile(r"'([\w.-]+)'\s*:\s*'([\w-]+)'")
SAI_CONFIG = re.compile(r"^SAI_INIT_CONFIG_FILE=(\S+)", re.MULTILINE)
COLUMNS = ("platform", "hwsku", "platform_asic", "buffers", "asic", "chip", "evidence")


def asic_tables(device: DeviceTree) -> dict[str, tuple[str, str]]:
    """platform -> (ASIC_TABLE key, the file that says so)."""
    table: dict[str, tuple[str, str]] = {}
    for path in ASIC_TABLES:
        text = device.git("show", f"HEAD:{path}")
        for platform, key in ASIC_TABLE_ENTRY.findall(text):
            table[platform] = (key, path)
    return table


def broadcom_family(device: DeviceTree, platform_dir: str, sku_dir: str) -> tuple[str, str]:
    """(family, evidence) of a Broadcom hwsku; ("", "") when nothing names it."""
    configs = [name for name in device.listdir(sku_dir) if CONFIG_FILE.fullmatch(name)]
    for sub in device.listdir(sku_dir):  # multi-ASIC SKUs: one folder per ASIC (0/, 1/)
        if device.is_folder(f"{sku_dir}/{sub}"):
            configs += [n for n in device.listdir(f"{sku_dir}/{sub}") if CONFIG_FILE.fullmatch(n)]
    if device.exists(f"{sku_dir}/sai.profile"):
        configs += [
            posixpath.basename(p) for p in SAI_CONFIG.findall(device.text(f"{sku_dir}/sai.profile"))
        ]
    for config in sorted(set(configs)):
        if named := CONFIG_PREFIX.match(config):
            return PREFIX_FAMILY[named.group(1)], config
        if named := OTHER_PREFIX.match(config):
            return f"broadcom {named.group(1)}", config
    shared = {
        PREFIX_FAMILY[named.group(1)]: name
        for name in device.listdir(platform_dir)
        if CONFIG_FILE.fullmatch(name) and (named := CONFIG_PREFIX.match(name))
    }
    if len(shared) == 1:
        family, name = shared.popitem()
        return family, f"platform folder {name}"
    family = family_of(f"{device.real(sku_dir)} {sku_dir}")
    return (family, "platform name (sonic_device_tree.FAMILY_PATTERNS)") if family else ("", "")


def main(repo: str) -> None:
    device = DeviceTree(repo)
    tables = asic_tables(device)
    by_key = {
        a.sonic_asic_table_key: name for name, a in catalogue().items() if a.sonic_asic_table_key
    }
    rows = []
    for vendor in device.listdir("device"):
        for platform in device.listdir(f"device/{vendor}"):
            platform_dir = f"device/{vendor}/{platform}"
            if not PLATFORM.match(platform) or not device.is_folder(platform_dir):
                continue
            platform_asic = (
                device.text(f"{platform_dir}/platform_asic").strip()
                if device.exists(f"{platform_dir}/platform_asic")
                else ""
            )
            for hwsku in device.listdir(platform_dir):
                sku_dir = f"{platform_dir}/{hwsku}"
                if not device.is_folder(sku_dir):
                    continue
                names = set(device.listdir(sku_dir))
                for sub in list(names):
                    if device.is_folder(f"{sku_dir}/{sub}"):
                        names |= set(device.listdir(f"{sku_dir}/{sub}"))
                if not any(HWSKU_FILE.fullmatch(name) for name in names):
                    continue
                buffers = any(BUFFER_FILE.fullmatch(name) for name in names)
                chip, evidence = "", ""
                if platform in tables:
                    chip, source = tables[platform]
                    evidence = source
                elif platform_asic.startswith("broadcom"):
                    chip, evidence = broadcom_family(device, platform_dir, sku_dir)
                elif platform_asic == "vs":
                    chip, evidence = "VS-ASIC", "platform_asic vs"
                asic = by_key.get(chip, chip if chip in catalogue() else "")
                rows.append(
                    (
                        platform,
                        hwsku,
                        platform_asic,
                        "yes" if buffers else "no",
                        asic,
                        "" if asic else chip,
                        evidence,
                    )
                )
    out = csv.writer(sys.stdout, lineterminator="\n")
    sys.stdout.write(
        f"# sonic-net/sonic-buildimage {device.commit} device/, written by "
        "tests/data/extract_sonic_skus.py\n"
    )
    out.writerow(COLUMNS)
    out.writerows(sorted(rows))


if __name__ == "__main__":
    main(sys.argv[1])
