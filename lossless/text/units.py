"""Parsing and formatting of the units people write in inventories and on the command line."""

from __future__ import annotations

import math
import re
from decimal import Decimal

SPEED_PATTERN = r"^[0-9]+(\.[0-9]+)?[MGT]$"
_SPEED_RE = re.compile(r"([0-9]+(?:\.[0-9]+)?)([MGT])", re.IGNORECASE)  # 400g on a command line
_SPEED_SCALE_MBPS = {"M": 1, "G": 1000, "T": 1_000_000}

_LENGTH_RE = re.compile(r"([0-9]+(?:\.[0-9]+)?)\s*(m|km)?")


def parse_speed(text: str) -> int:
    """'400G' (or '400g') -> 400000 (Mb/s). Raises ValueError on anything else. An inventory's
    speeds are upper case (its schema's SPEED_PATTERN: one shape in files under review)."""
    match = _SPEED_RE.fullmatch(text.strip())
    if not match:
        raise ValueError(f"speed {text!r} is not a number with a unit M, G or T (e.g. 100G)")
    mbps = Decimal(match.group(1)) * _SPEED_SCALE_MBPS[match.group(2).upper()]
    if mbps != int(mbps) or mbps <= 0:
        raise ValueError(f"speed {text!r} is not a whole positive number of Mb/s")
    return int(mbps)


def format_speed(mbps: int) -> str:
    """400000 -> '400G', 100 -> '100M', 1600000 -> '1.6T'."""
    if mbps >= 1_000_000 and mbps % 100_000 == 0:
        value = mbps / 1_000_000
        return f"{value:g}T"
    if mbps >= 1000 and mbps % 1000 == 0:
        return f"{mbps // 1000}G"
    return f"{mbps}M"


def parse_length_m(text: str) -> float:
    """'40m' or '2km' or '5' -> metres."""
    match = _LENGTH_RE.fullmatch(text.strip())
    if not match:
        raise ValueError(f"cable length {text!r} is not a number of metres (e.g. 40m or 2km)")
    metres = float(match.group(1)) * (1000 if match.group(2) == "km" else 1)
    if not math.isfinite(metres):  # 400 digits of nines are "inf" as a float
        raise ValueError(f"cable length {text[:20]!r}... is too large")
    if metres <= 0:
        raise ValueError(f"cable length {text!r} must be more than 0 m")
    return metres


def whole_metres(length_m: float) -> int:
    """Round a cable length up to whole metres: headroom must cover the real cable."""
    return math.ceil(length_m)


def format_bytes(value: int) -> str:
    """Bytes with thousands separators, as engineers read them in tables."""
    return f"{value:,}"


def seconds(ms: int, decimals: int) -> str:
    """Milliseconds as seconds with at most `decimals` decimals: 200 -> '0.2'."""
    text = f"{ms / 1000:.{decimals}f}".rstrip("0").rstrip(".")
    return text or "0"
