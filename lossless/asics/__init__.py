"""The ASIC catalogue (catalogue.yaml beside this file) and custom ASICs from inventories."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from functools import cache
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML

from lossless.units import parse_speed

CATALOGUE_FILE = Path(__file__).with_name("catalogue.yaml")
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


_FIELD_NAMES = {f.name for f in fields(Asic)}


def asic_from_mapping(name: str, values: dict[str, Any]) -> Asic:
    """Build an Asic from catalogue/inventory keys (speeds as '400G' strings)."""
    data = {key: value for key, value in values.items() if key in _FIELD_NAMES}
    data["speeds_mbps"] = tuple(sorted(parse_speed(s) for s in values.get("speeds", [])))
    data.setdefault("vendor", "custom")
    data.setdefault("description", name)
    data["sources"] = dict(values.get("sources", {}))
    return Asic(name=name, **data)


@cache
def _catalogue_mappings() -> dict[str, dict[str, Any]]:
    loaded = YAML(typ="safe", pure=True).load(CATALOGUE_FILE.read_text())
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
