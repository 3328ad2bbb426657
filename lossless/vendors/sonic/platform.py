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
* ASIC names: lossless/asics/sonic_skus.py, every platform and hwsku of `bi:device/` with the
  ASIC its files name (NVIDIA platforms as `bi:platform/mellanox/asic_table.j2` groups them,
  Broadcom SKUs by the chip their SDK config is named for: `th3-a7060dx4-c32-32x400G.config.bcm`);
  a name the table does not have falls back to lossless/asics/models.py (model families from
  the vendors' datasheets).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from lossless.asics import catalogue
from lossless.asics.models import ModelMatch, identify_model
from lossless.asics.sonic_skus import find_sku, sku_table
from lossless.planner.headroom_floor import vendor_floor

DYNAMIC = "dynamic"
TRADITIONAL = "traditional"
# Catalogue vendors whose SONiC images run the dynamic buffer model by default.
DYNAMIC_VENDORS = {"nvidia"}


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


def broadcom_pg_minimum(asic: str, port_mtu: int, speed_mbps: int, cable_m: int) -> int:
    """A Broadcom lossless profile's `size` (the PG's guaranteed minimum): the vendor's
    published size for the ASIC, speed and cable where its tables have one (the highest SKU,
    planner/headroom_floor.py; issue 26: TH5 400G 5 m publishes 18,796 B, Tomahawk 1-3
    SKUs 1,248-1,270 B), in whole cells; else one port-MTU frame (pg_minimum_bytes)."""
    known = catalogue()[asic]
    table = known.vendor_headroom_table
    floor = vendor_floor(table, speed_mbps, cable_m, "size") if table else None
    if floor is None:
        return pg_minimum_bytes(asic, port_mtu)
    return known.cell_size * math.ceil(floor.value / known.cell_size)


@dataclass(frozen=True)
class Hardware:
    """What DEVICE_METADATA's platform and hwsku say the switch is."""

    key: str  # the DEVICE_METADATA field that says it: "hwsku" or "platform"
    name: str  # its value
    match: ModelMatch | None  # the catalogue ASIC, None where the catalogue does not have it
    chip: str  # what sonic-buildimage names when the catalogue does not have it


def hardware_from_metadata(platform: str | None, hwsku: str | None) -> Hardware | None:
    """The hardware DEVICE_METADATA names: sonic-buildimage's own platform and hwsku folders
    first (asics/sonic_skus.py), then a model family the catalogue knows by name
    (asics/models.py), then a folder whose files name only the vendor; None if none does."""
    found = find_sku(platform, hwsku)
    if found is not None and (found[2].asic or found[2].chip):
        key, name, row, folder = found
        if not row.asic:
            return Hardware(key, name, None, row.what())
        named = identify_model(name)  # a catalogue platform (its port count), when it is one
        known = named.platform if named is not None and named.asic == row.asic else None
        source = row.source(sku_table().commit, folder)
        return Hardware(key, name, ModelMatch(row.asic, known, source), "")
    for field, text in (("platform", platform), ("hwsku", hwsku)):
        if text and (match := identify_model(text)) is not None:
            return Hardware(field, text, match, "")
    if found is not None:  # a folder whose files name no chip: the vendor, at least
        key, name, row, _folder = found
        return Hardware(key, name, None, row.what())
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
