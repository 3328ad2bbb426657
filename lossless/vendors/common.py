"""Small helpers the vendor modules share (grouping, number formatting)."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from typing import TypeVar

T = TypeVar("T")
K = TypeVar("K", bound=Hashable)


def group(items: Iterable[T], key: Callable[[T], K]) -> dict[K, list[T]]:
    """Items grouped by key, groups in order of first appearance."""
    groups: dict[K, list[T]] = {}
    for item in items:
        groups.setdefault(key(item), []).append(item)
    return groups


def seconds(ms: int, decimals: int) -> str:
    """Milliseconds as seconds with at most `decimals` decimals: 200 -> '0.2'."""
    text = f"{ms / 1000:.{decimals}f}".rstrip("0").rstrip(".")
    return text or "0"
