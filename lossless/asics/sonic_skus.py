"""Every SONiC platform and hwsku of sonic-buildimage's device/ tree with the ASIC its own
files name (sonic_hwskus.csv beside this file): the NVIDIA and Barefoot platforms as
`platform/*/asic_table.j2` lists them, Broadcom SKUs by the chip their SDK config is named
for (`th3-a7060dx4-c32-32x400G.config.bcm`), a few by their platform where the files name no
chip. The table is written by tests/data/extract_sonic_skus.py from a snapshot whose commit
its first line records (docs/vendors/sonic.md says how to regenerate it).

A name is looked up exactly as SONiC spells it: a DEVICE_METADATA platform and hwsku as the
pair, then the platform alone, then an hwsku name every platform that has it agrees on.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from functools import cache
from pathlib import Path

SKUS_FILE = Path(__file__).with_name("sonic_hwskus.csv")


@dataclass(frozen=True)
class Sku:
    """One hwsku folder of sonic-buildimage's device/ tree (a row of sonic_hwskus.csv)."""

    platform: str
    hwsku: str
    platform_asic: str  # the vendor SONiC's platform_asic file names (broadcom, mellanox ...)
    buffers: bool  # ships buffer tables (buffers*.j2, pg_profile_lookup.ini)
    asic: str  # catalogue ASIC, "" where the catalogue does not have it
    chip: str  # what the evidence names when the catalogue does not have it, else ""
    evidence: str  # the file that names the chip

    def source(self, commit: str, folder: str) -> str:
        """Where the ASIC of this row (speaking for `folder`) comes from, with its tag."""
        tag = "[2ND]" if self.evidence.startswith("platform name") else "[SRC]"
        return (
            f"sonic-buildimage {commit[:8]} device/ ({folder}: {self.evidence}), "
            f"lossless/asics/sonic_hwskus.csv {tag}"
        )

    def what(self) -> str:
        """The chip as the evidence names it, for an ASIC the catalogue does not have."""
        if self.chip:
            return f"{self.chip} ({self.evidence})"
        return f"a {self.platform_asic or 'switch'} ASIC whose chip sonic-buildimage does not name"


@dataclass(frozen=True)
class SkuTable:
    commit: str
    rows: tuple[Sku, ...]
    pairs: dict[tuple[str, str], Sku]
    by_platform: dict[str, tuple[Sku, ...]]
    by_hwsku: dict[str, tuple[Sku, ...]]


@cache
def sku_table() -> SkuTable:
    """sonic_hwskus.csv, indexed; its first line names the sonic-buildimage commit."""
    with SKUS_FILE.open(newline="") as handle:
        commit = handle.readline().split()[2]
        rows = tuple(
            Sku(
                platform=row["platform"],
                hwsku=row["hwsku"],
                platform_asic=row["platform_asic"],
                buffers=row["buffers"] == "yes",
                asic=row["asic"],
                chip=row["chip"],
                evidence=row["evidence"],
            )
            for row in csv.DictReader(handle)
        )
    by_platform: dict[str, list[Sku]] = {}
    by_hwsku: dict[str, list[Sku]] = {}
    for row in rows:
        by_platform.setdefault(row.platform, []).append(row)
        by_hwsku.setdefault(row.hwsku, []).append(row)
    return SkuTable(
        commit,
        rows,
        {(row.platform, row.hwsku): row for row in rows},
        {name: tuple(group) for name, group in by_platform.items()},
        {name: tuple(group) for name, group in by_hwsku.items()},
    )


def _agreed(rows: tuple[Sku, ...]) -> Sku | None:
    """The one row of these that speaks for all (same ASIC and chip), None if they differ."""
    kinds = {(row.asic, row.chip, row.platform_asic) for row in rows}
    return rows[0] if len(kinds) == 1 else None


def find_sku(platform: str | None, hwsku: str | None) -> tuple[str, str, Sku, str] | None:
    """(the field that placed it: "platform" or "hwsku", its value, the row, the folder the
    row speaks for) for a SONiC platform and hwsku; None when the table has neither."""
    table = sku_table()
    if platform and hwsku and (platform, hwsku) in table.pairs:
        return "hwsku", hwsku, table.pairs[platform, hwsku], f"{platform}/{hwsku}"
    if platform and platform in table.by_platform:
        row = _agreed(table.by_platform[platform])
        if row is not None:
            return "platform", platform, row, f"{platform}/"
    if hwsku and hwsku in table.by_hwsku:
        row = _agreed(table.by_hwsku[hwsku])
        if row is not None:
            return "hwsku", hwsku, row, f"{row.platform}/{hwsku}"
    return None
