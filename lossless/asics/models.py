"""Which ASIC a switch model name is: what a config's own header says (EOS `! device: leaf1
(DCS-7060DX5-32, EOS-4.32.2F)`, an NVUE header's `model: SN5600`, SONiC's DEVICE_METADATA
hwsku), so that a config linted alone is judged for its hardware.

A model in platforms.yaml is that platform (its real port count too). An Arista model SONiC
also runs is the chip of its SONiC platform's files (sonic_skus.py: DCS-7060DX4-32 is
x86_64-arista_7060dx4_32, whose Broadcom config is th3-...). Other models are known by their
family (the chip a vendor's product line is built on), from the vendors' datasheets; a model
none of these names is not guessed at. A model whose chip is known but not in the catalogue
(Jericho2, Tofino ...) is said to be that chip (chip_of_model), never judged as another.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from lossless.asics import find_platform
from lossless.asics.sonic_skus import Sku, sku_table


@dataclass(frozen=True)
class ModelMatch:
    asic: str  # catalogue ASIC
    platform: str | None  # catalogue platform (platforms.yaml), None: known by family only
    source: str  # why this model is this ASIC


# Model families -> catalogue ASIC. Matched on the upper-case model with vendor prefixes
# (DCS-, N9K-, MSN/SN) kept; the first match wins, so longer family names come first.
_FAMILIES = (
    # Arista 7060X6 (Tomahawk 5), 7060X5 DX5/PX5 (Tomahawk 4), 7260CX3 (Tomahawk 2), 7060CX
    # and CX2 (Tomahawk), 7050X4 (Trident 4), 7050CX3/SX3/TX3 (Trident 3): Arista 7060X,
    # 7260X3 and 7050X series datasheets [2ND]
    (r"7060X6", "tomahawk-5", "Arista 7060X6 series datasheet: Broadcom Tomahawk 5 [2ND]"),
    (r"7060[DP]X5|7388X5", "tomahawk-4", "Arista 7060X5 series datasheet: Tomahawk 4 [2ND]"),
    (r"7260CX3", "tomahawk-2", "Arista 7260X3 series datasheet: Tomahawk 2 [2ND]"),
    (r"7060CX2?\b", "tomahawk-1", "Arista 7060X series datasheet: Tomahawk [2ND]"),
    (r"7050[CDPS]X4", "trident-4", "Arista 7050X4 series datasheet: Trident 4 [2ND]"),
    (r"7050[CST]X3", "trident-3", "Arista 7050X3 series datasheet: Trident 3 [2ND]"),
    # Arista 7060X4 (DX4/PX4, 32 x 400G): Tomahawk 3; 7050X (QX/SX/TX): Trident 2. Arista
    # 7060X4 and 7050X datasheets [2ND], and the SONiC ports of the same switches name these
    # chips in their Broadcom configs (bi:device/arista/x86_64-arista_7060dx4_32/
    # th3-a7060dx4-32-flex.config.bcm, x86_64-arista_7050_qx32/*/td2-a7050-qx32-*.config.bcm)
    (r"7060[DP]X4", "tomahawk-3", "Arista 7060X4 series datasheet: Tomahawk 3 [2ND]"),
    (r"7050[QST]X-", "trident-2", "Arista 7050X series datasheet: Trident 2 [2ND]"),
    # Juniper QFX52x0 / QFX51x0: Juniper QFX5000 line datasheets [2ND]
    (r"QFX5240", "tomahawk-5", "Juniper QFX5240 datasheet: Tomahawk 5 [2ND]"),
    (r"QFX5230", "tomahawk-4", "Juniper QFX5230 datasheet: Tomahawk 4 [2ND]"),
    (r"QFX5220", "tomahawk-3", "Juniper QFX5220 datasheet: Tomahawk 3 [2ND]"),
    (r"QFX5130", "trident-4", "Juniper QFX5130 datasheet: Trident 4 [2ND]"),
    (r"QFX5120", "trident-3", "Juniper QFX5120 datasheet: Trident 3 [2ND]"),
    # Dell PowerSwitch Z9864F (Tomahawk 5), Z9664F (Tomahawk 4), Z9332F (Tomahawk 3),
    # S5232F (Trident 3): Dell datasheets [2ND]
    (r"Z9864F", "tomahawk-5", "Dell Z9864F-ON datasheet: Tomahawk 5 [2ND]"),
    (r"Z9664F", "tomahawk-4", "Dell Z9664F-ON datasheet: Tomahawk 4 [2ND]"),
    (r"Z9332F", "tomahawk-3", "Dell Z9332F-ON datasheet: Tomahawk 3 [2ND]"),
    (r"S5232F", "trident-3", "Dell S5232F-ON datasheet: Trident 3 [2ND]"),
    # Cisco Nexus 9300-GX2 (N9K-C9332D-GX2B, N9K-C9364D-GX2A, N9K-C9348D-GX2A): Cloud Scale
    # GX2, Cisco Nexus 9300-GX2 datasheet [2ND]
    (r"N9K-C93\d\dD-GX2", "cisco-cloud-scale-gx", "Cisco Nexus 9300-GX2 datasheet [2ND]"),
    # NVIDIA Spectrum switches by model number, as sonic-buildimage's
    # platform/mellanox/asic_table.j2 groups them (docs/reference/sonic.md) [SRC]
    (r"M?SN2\d{3}|LSSN2700", "spectrum-1", "bi:platform/mellanox/asic_table.j2 [SRC]"),
    (r"M?SN3\d{3}", "spectrum-2", "bi:platform/mellanox/asic_table.j2 [SRC]"),
    (r"M?SN4\d{3}", "spectrum-3", "bi:platform/mellanox/asic_table.j2 [SRC]"),
    (r"M?SN5(400|600|610)", "spectrum-4", "bi:platform/mellanox/asic_table.j2 [SRC]"),
    (r"M?SN5640", "spectrum-5", "bi:platform/mellanox/asic_table.j2 [SRC]"),
    (r"M?SN6\d{3}", "spectrum-6", "bi:platform/mellanox/asic_table.j2 [SRC]"),
)
# Families whose chip the catalogue does not have: named, so that a config of one is said to
# be that chip rather than "not named" (and never judged as a catalogue ASIC)
_OTHER_FAMILIES = (
    # Arista 7280R3 Switch Architecture white paper: "based on Broadcom Jericho2 silicon";
    # 7500R3/7800R3 modular (R3 line cards): Arista 7500R3 and 7800R3 datasheets [2ND]
    (r"7[258]\d0[A-Z]*R3", "Broadcom Jericho2 family (Arista 7280R3/7500R3/7800R3) [2ND]"),
    # Arista 7280R/7500R: Jericho, 7280R2/7500R2: Jericho+ (Arista 7280R and 7500R2
    # architecture white papers) [2ND]
    (r"7[25]\d0[A-Z]*R2", "Broadcom Jericho+ (Arista 7280R2/7500R2) [2ND]"),
    (r"7[25]\d0[A-Z]*R(?![0-9])", "Broadcom Jericho (Arista 7280R/7500R) [2ND]"),
    # Arista 7170 series datasheet: Barefoot (Intel) Tofino [2ND]
    (r"7170", "Intel Tofino (Arista 7170) [2ND]"),
    # Arista 7060XE7 (Tomahawk 6), Arista announcement of June 2026 [2ND]
    (r"7060XE7", "Broadcom Tomahawk 6 (Arista 7060XE7) [2ND]"),
)
_COMPILED = tuple((re.compile(rf"(?:^|[^A-Z0-9])(?:{p})", re.ASCII), a, s) for p, a, s in _FAMILIES)
_OTHER = tuple((re.compile(rf"(?:^|[^A-Z0-9])(?:{p})", re.ASCII), s) for p, s in _OTHER_FAMILIES)
# A vendor's order-code prefix that platforms.yaml names leave out
_PREFIXES = ("DCS-",)


def identify_model(model: str) -> ModelMatch | None:
    """The catalogue ASIC (and platform, when platforms.yaml has it) of a switch model name
    as a config prints it; None for a model this catalogue cannot place."""
    name = model.strip().upper()
    if not name or len(name) > 80:
        return None
    candidates = [name, *(name[len(p) :] for p in _PREFIXES if name.startswith(p))]
    if name.startswith("MSN"):
        candidates.append("SN" + name[3:])
    for candidate in candidates:
        platform = find_platform(candidate)
        if platform is not None:
            return ModelMatch(platform.asic, platform.name, f"platforms.yaml: {platform.source}")
    arista = _arista_sonic(name)
    if arista is not None:
        return ModelMatch(arista.asic, None, arista.source(sku_table().commit, arista.platform))
    return model_family(name)


def model_family(model: str) -> ModelMatch | None:
    """The catalogue ASIC of a model's product family alone (the vendors' datasheets)."""
    name = model.strip().upper()
    for pattern, asic, source in _COMPILED:
        if pattern.search(name):
            return ModelMatch(asic, None, source)
    return None


def _sonic_platform(name: str) -> Sku | None:
    """The SONiC platform an Arista order code is (DCS-7060DX4-32: x86_64-arista_7060dx4_32,
    the naming of bi:device/arista/), when its hwsku folders agree on one row."""
    if not name.startswith("DCS-"):
        return None
    rows = sku_table().by_platform.get("x86_64-arista_" + name[4:].lower().replace("-", "_"))
    kinds = {(row.asic, row.chip) for row in rows or ()}
    return rows[0] if rows and len(kinds) == 1 else None


def _arista_sonic(name: str) -> Sku | None:
    """An Arista model whose SONiC platform's files name a catalogue ASIC."""
    row = _sonic_platform(name)
    return row if row is not None and row.asic else None


def chip_of_model(model: str) -> str | None:
    """What a model is when identify_model cannot place it in the catalogue: the chip its
    SONiC platform's files name, or a family whose chip the catalogue does not have (with the
    source); None when nothing names it."""
    name = model.strip().upper()
    if not name or len(name) > 80:
        return None
    row = _sonic_platform(name)
    if row is not None and row.chip:
        return f"{row.what()}, sonic-buildimage {sku_table().commit[:8]} {row.platform}"
    return next((source for pattern, source in _OTHER if pattern.search(name)), None)
