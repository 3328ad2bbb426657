"""Which ASIC a switch model name is: what a config's own header says (EOS `! device: leaf1
(DCS-7060DX5-32, EOS-4.32.2F)`, an NVUE header's `model: SN5600`, SONiC's DEVICE_METADATA
hwsku), so that a config linted alone is judged for its hardware.

A model in platforms.yaml is that platform (its real port count too). Other models are known
by their family (the chip a vendor's product line is built on), from the vendors' datasheets;
a model neither names is not guessed at.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from lossless.asics import find_platform


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
_COMPILED = tuple((re.compile(rf"(?:^|[^A-Z0-9])(?:{p})", re.ASCII), a, s) for p, a, s in _FAMILIES)
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
    for pattern, asic, source in _COMPILED:
        if pattern.search(name):
            return ModelMatch(asic, None, source)
    return None
