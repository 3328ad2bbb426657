"""What SONiC does differently per platform: which buffer model it runs, what a lossless
buffer profile's fields mean on the ASIC, and which ASIC a DEVICE_METADATA names.

Sources (pinned snapshots of docs/reference/sonic.md: `bi:` sonic-buildimage 086b03bd,
`swss:` sonic-swss e6b0c5b5):

* Buffer model: `bi:platform/mellanox/rules.mk` builds NVIDIA images with
  SONIC_BUFFER_MODEL=dynamic; every other platform keeps the `traditional` default of
  `bi:files/build_templates/init_cfg.json.j2`. buffermgrd's dynamic mode has headroom
  plugins only for mellanox, barefoot and vs (`swss:cfgmgr/buffer_headroom_*.lua`).
* Broadcom profile form: on Broadcom SAI a lossless profile's `size` is the PG's guaranteed
  minimum and `xoff` the headroom above it; resume is `xon_offset` below the pause point, with
  `xon` 0 (`bi:device/arista/x86_64-arista_7060x6_64pe/Arista-7060X6-64PE-O128S2/
  pg_profile_lookup.ini`: size 18796, xon 0, xoff 612140, xon_offset 3556; every Broadcom
  pg_profile_lookup.ini carries a small size and an xon_offset, docs/reference/sonic.md 3). On
  NVIDIA
  Spectrum `size` is the whole reserved headroom, xon + xoff (docs/reference/sonic.md 1.1, 3).
* ASIC names: `bi:platform/mellanox/asic_table.j2` maps each NVIDIA platform to its
  ASIC_TABLE key (the catalogue's `sonic_asic_table_key`); Broadcom SKUs are named by the
  chip of their SDK config (`th5-a7060x6-64pe.config.bcm`, `th4-a7060dx5-64s.config.bcm`,
  `th3-z9332f-32x400G.config.bcm`; the Arista-7050CX3 tables are Trident 3's,
  docs/reference/sonic.md 3).
"""

from __future__ import annotations

import math
import re

from lossless.asics import catalogue

DYNAMIC = "dynamic"
TRADITIONAL = "traditional"
# Catalogue vendors whose SONiC images run the dynamic buffer model by default.
DYNAMIC_VENDORS = {"nvidia"}

# NVIDIA platform model (from `x86_64-mlnx_msn2700-r0`, `x86_64-nvidia_sn5600-r0`, hwsku
# `Mellanox-SN5600-V256`, `ACS-SN5600`) -> ASIC_TABLE key, as asic_table.j2 groups them.
_NVIDIA_MODELS = (
    (re.compile(r"^(2\d{3}|lssn2700)"), "MELLANOX-SPECTRUM"),
    (re.compile(r"^3\d{3}"), "MELLANOX-SPECTRUM-2"),
    (re.compile(r"^4\d{3}"), "MELLANOX-SPECTRUM-3"),
    (re.compile(r"^(5400|5600|5610)"), "MELLANOX-SPECTRUM-4"),
    (re.compile(r"^5640"), "MELLANOX-SPECTRUM-5"),
    (re.compile(r"^6\d{3}"), "MELLANOX-SPECTRUM-6"),
)
_NVIDIA_MODEL = re.compile(r"(?:^|[_-])m?sn(\d{4})", re.IGNORECASE)
# Broadcom SKUs, by a word of the platform or hwsku name (lower case) -> catalogue ASIC.
_BROADCOM_SKUS = {
    "7060x6": "tomahawk-5",
    "7060dx5": "tomahawk-4",
    "z9664f": "tomahawk-4",
    "z9332f": "tomahawk-3",
    "7050cx3": "trident-3",
}


def asic_vendor(asic: str) -> str | None:
    known = catalogue().get(asic)
    return known.vendor if known else None


def buffer_model(asic: str) -> str:
    """The buffer model a SONiC image for this ASIC runs by default."""
    return DYNAMIC if asic_vendor(asic) in DYNAMIC_VENDORS else TRADITIONAL


def broadcom_form(asic: str) -> bool:
    """Lossless profiles in Broadcom's form: `size` a guaranteed minimum, `xoff` on top."""
    return asic_vendor(asic) == "broadcom"


def pg_minimum_bytes(asic: str, port_mtu: int) -> int:
    """The guaranteed minimum of a Broadcom lossless PG: one port-MTU frame in whole cells,
    so a paused PG can still take a frame (9100 B in 254-B cells is 9144 B, the value of
    DellEMC-Z9664f-O64's pg_profile_lookup.ini)."""
    cell = catalogue()[asic].cell_size
    return cell * math.ceil(port_mtu / cell)


def asic_from_metadata(platform: str | None, hwsku: str | None) -> str | None:
    """The catalogue ASIC a DEVICE_METADATA platform/hwsku names, if we know it."""
    by_key = {a.sonic_asic_table_key: a.name for a in catalogue().values()}
    for text in (platform, hwsku):
        if not text:
            continue
        match = _NVIDIA_MODEL.search(text)
        if match:
            for pattern, key in _NVIDIA_MODELS:
                if pattern.match(match.group(1)) and key in by_key:
                    return by_key[key]
        lowered = text.lower()
        for word, asic in _BROADCOM_SKUS.items():
            if word in lowered:
                return asic
    return None


def headroom_from_profile(
    fields: dict[str, int], broadcom: bool, shared_headroom_pool: bool
) -> tuple[int, int, int]:
    """(xon, xoff, size) in the plan's terms from a lossless profile's integer fields.

    The plan's size is the reserved headroom: xon + xoff, or xon with a shared headroom pool
    (headroom_ieee.py). A Broadcom profile states the headroom as `xoff` above a guaranteed
    minimum `size`, and the resume gap as `xon_offset` (or `xon` where that is not given), so
    in the plan's terms its reserved headroom is that gap plus xoff."""
    xoff = fields.get("xoff", 0)
    if not broadcom:
        return fields.get("xon", 0), xoff, fields.get("size", 0)
    gap = fields.get("xon_offset", fields.get("xon", 0))
    return gap, xoff, gap if shared_headroom_pool else gap + xoff
