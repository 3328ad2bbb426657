"""The ASIC catalogue (catalogue.yaml beside this file), custom ASICs from inventories, the
switch platforms (platforms.yaml) and the vendors' published headroom tables
(vendor_headroom.csv): product data with a source for every value."""

from __future__ import annotations

import csv
from dataclasses import dataclass, field, fields
from functools import cache
from pathlib import Path
from typing import Any

import yaml

from lossless.text.units import parse_speed

CATALOGUE_FILE = Path(__file__).with_name("catalogue.yaml")
PLATFORMS_FILE = Path(__file__).with_name("platforms.yaml")
VENDOR_HEADROOM_FILE = Path(__file__).with_name("vendor_headroom.csv")
HEADROOM_MODELS = ("sonic-mellanox", "ieee-8021qbb")


@dataclass(frozen=True)
class Asic:
    name: str
    vendor: str
    description: str
    headroom_model: str
    cell_size: int
    serdes_gbps: int
    speeds_mbps: tuple[int, ...]
    max_lossless_priorities: int
    pipeline_latency_kib: float = 0.0
    mac_phy_delay_kib: float = 0.0
    peer_response_time_kib: float = 0.0
    sonic_asic_table_key: str | None = None
    bytes_on_tile: bool = False
    xoff_compensation_bytes: int = 0
    port_reserved_shp_cells: int | None = None
    port_max_shp_cells: int | None = None
    buffer_bytes: int | None = None
    max_headroom_per_port_bytes: int | None = None
    resilient_hashing: bool = False
    vendor_headroom_table: str | None = None
    bandwidth_gbps: int | None = None
    ingress_pool_bytes: int | None = None
    ingress_pool_xoff_bytes: int = 0
    buffer_partitions: int = 1
    lossless_dynamic_th: int = 0
    shared_headroom_pool: bool = False
    lossy_pg_reserved_bytes: int = 0
    # Chip architecture where it decides how an OS configures it (catalogue.yaml header)
    family: str | None = None
    sources: dict[str, str] = field(default_factory=dict, compare=False, hash=False)

    def source(self, name: str) -> str:
        return self.sources.get(name, "catalogue value without a recorded source")

    def evidence(self, name: str) -> str:
        """The evidence tag of a value's source (SRC, 2ND, UNV ...), UNV when unknown."""
        text = self.source(name)
        for tag in ("SRC", "RUN", "DERIVED", "2ND", "UNV"):
            if f"[{tag}" in text:
                return tag
        return "UNV"

    def default_lanes(self, speed_mbps: int) -> int:
        """Lanes a port of this speed uses on this ASIC's SerDes (at least one)."""
        per_lane = self.serdes_gbps * 1000
        return min(8, max(1, -(-speed_mbps // per_lane)))

    def full_radix(self, speed_mbps: int) -> int | None:
        """Ports of this speed the ASIC's bandwidth carries (None when it is not known)."""
        if self.bandwidth_gbps is None:
            return None
        return max(1, self.bandwidth_gbps * 1000 // speed_mbps)


_FIELD_NAMES = {f.name for f in fields(Asic)}


def asic_from_mapping(name: str, values: dict[str, Any]) -> Asic:
    """Build an Asic from catalogue/inventory keys (speeds as '400G' strings)."""
    data = {key: value for key, value in values.items() if key in _FIELD_NAMES}
    data["speeds_mbps"] = tuple(sorted(parse_speed(s) for s in values.get("speeds", [])))
    data.setdefault("vendor", "custom")
    data.setdefault("description", name)
    data["sources"] = dict(values.get("sources", {}))
    return Asic(name=name, **data)


def load_data_file(path: Path) -> Any:
    """One of the YAML files of this folder: our own data, read by libyaml (through PyYAML)
    in a hundredth of the time ruamel's pure-Python parser takes, which every command paid
    at start-up. tests/test_catalogue.py checks that ruamel (YAML 1.2, as inventories are
    read) reads each file the same: the two YAML versions differ on values they do not use."""
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # C where PyYAML was built with it
    return yaml.load(path.read_text(), Loader=loader)


@cache
def _catalogue_mappings() -> dict[str, dict[str, Any]]:
    loaded = load_data_file(CATALOGUE_FILE)
    return {name: dict(values) for name, values in loaded.items()}


@cache
def catalogue() -> dict[str, Asic]:
    return {name: asic_from_mapping(name, values) for name, values in _catalogue_mappings().items()}


def catalogue_mapping(name: str) -> dict[str, Any]:
    """Raw catalogue values of one ASIC, the base a custom ASIC overrides."""
    return dict(_catalogue_mappings()[name])


REQUIRED_CUSTOM_KEYS = (
    "headroom_model",
    "cell_size",
    "serdes_gbps",
    "speeds",
    "max_lossless_priorities",
)


@dataclass(frozen=True)
class Platform:
    """A switch model: its cages and how far they break out."""

    name: str
    asic: str
    cages: int
    cage_speed_mbps: int
    max_breakout: int
    source: str

    def ports_at(self, speed_mbps: int) -> int:
        """Ports the platform runs at this speed: every cage, broken out as far as it goes."""
        return self.cages * min(self.max_breakout, max(1, self.cage_speed_mbps // speed_mbps))


@cache
def platforms() -> dict[str, Platform]:
    """Catalogue platforms by upper-case name."""
    loaded = load_data_file(PLATFORMS_FILE)
    return {
        name.upper(): Platform(
            name=name,
            asic=values["asic"],
            cages=values["cages"],
            cage_speed_mbps=parse_speed(values["cage_speed"]),
            max_breakout=values["max_breakout"],
            source=values["source"],
        )
        for name, values in loaded.items()
    }


def find_platform(name: str | None) -> Platform | None:
    return platforms().get(name.upper()) if name else None


@dataclass(frozen=True)
class VendorHeadroomRow:
    """One line of a vendor's published headroom table (SONiC pg_profile_lookup.ini)."""

    table: str  # the ASIC family the row belongs to
    speed_mbps: int
    cable_m: int
    xoff: int
    size: int
    xon: int
    dynamic_th: int
    file: str  # upstream path
    skus: str
    commit: str

    def cite(self) -> str:
        return (
            f"{self.speed_mbps // 1000}G {self.cable_m}m xoff {self.xoff} in "
            f"sonic-net/sonic-buildimage {self.file} @ {self.commit[:7]} [SRC]"
        )


@cache
def vendor_headroom_rows() -> tuple[VendorHeadroomRow, ...]:
    with VENDOR_HEADROOM_FILE.open(newline="") as handle:
        return tuple(
            VendorHeadroomRow(
                table=row["asic"],
                speed_mbps=int(row["speed_mbps"]),
                cable_m=int(row["cable_m"]),
                xoff=int(row["xoff"]),
                size=int(row["size"]),
                xon=int(row["xon"]),
                dynamic_th=int(row["dynamic_th"]),
                file=row["file"],
                skus=row["skus"],
                commit=row["commit"],
            )
            for row in csv.DictReader(handle)
        )
