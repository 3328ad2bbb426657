"""How renderers gather ports: items grouped by a key in order of first appearance (one QoS
profile per distinct set of settings, one host section per server), and for an OS with a
switch-wide ECN profile the lossless ports' ECN plan that marks earliest."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from typing import Any, TypeVar

T = TypeVar("T")
K = TypeVar("K", bound=Hashable)


def group(items: Iterable[T], key: Callable[[T], K]) -> dict[K, list[T]]:
    """Items grouped by key, groups in order of first appearance."""
    groups: dict[K, list[T]] = {}
    for item in items:
        groups.setdefault(key(item), []).append(item)
    return groups


def earliest_ecn(ports: Iterable[Any]) -> Any:
    """For an OS whose ECN is set once for the whole switch: of the lossless ports' ECN plans,
    the one that marks earliest (smallest max threshold), or None."""
    return min(
        (e for p in ports if p.lossless for e in p.ecn), key=lambda e: e.max_bytes, default=None
    )
