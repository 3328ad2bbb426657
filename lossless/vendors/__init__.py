"""Vendors at the edge: one module per OS turns a DevicePlan into that OS's terms.

Each module exposes TEMPLATE (under templates/), EXTENSION (of the rendered file) and
context(device, fabric) -> dict, the values the template prints. Unit conversions and names
happen here; the templates compute nothing. Nothing outside this package knows a syntax.

A plan value an OS's config cannot say is never dropped silently: the module lists it in
NOT_EXPRESSED (key of PLAN_VALUES -> why, with the source; or a function of the device plan
giving why, or None when this device's value can be said), and `plan` and `render` show it.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator, Mapping
from functools import cache
from types import ModuleType
from typing import Any

OS_NAMES = ("sonic", "cumulus", "eos", "nxos", "junos")


class _Vendors(Mapping[str, ModuleType]):
    """OS name -> its vendor module, imported when first asked for: a run that lints one
    SONiC switch does not pay for importing the other four (their parsers and tables)."""

    def __init__(self) -> None:
        self._loaded: dict[str, ModuleType] = {}

    def __getitem__(self, os_name: str) -> ModuleType:
        module = self._loaded.get(os_name)
        if module is None:
            if os_name not in OS_NAMES:
                raise KeyError(os_name)
            module = self._loaded[os_name] = importlib.import_module(f"lossless.vendors.{os_name}")
        return module

    def __iter__(self) -> Iterator[str]:
        return iter(OS_NAMES)

    def __len__(self) -> int:
        return len(OS_NAMES)


VENDORS: Mapping[str, ModuleType] = _Vendors()


def vendor_for(os_name: str) -> ModuleType:
    return VENDORS[os_name]


def imported_when_read(sources: dict[str, str]) -> Callable[[str], Any]:
    """A vendor module's __getattr__ (PEP 562) for what it offers from its parser and differ
    (name -> module): imported when first read, so rendering or linting a plan imports no
    parser (70 ms for the five OSes, in every such run of a mixed fabric)."""

    def __getattr__(name: str) -> Any:
        module = sources.get(name)
        if module is None:
            raise AttributeError(name)
        return getattr(importlib.import_module(module), name)

    return __getattr__


# Plan values some OS configs cannot hold: key -> (what a reader calls it, is it asked for).
PLAN_VALUES: dict[str, tuple[str, Callable[[Any], bool]]] = {
    "ecmp.seed": ("ECMP hash seed", lambda d: d.ecmp.seed is not None),
    "ecmp.hash_offset": ("ECMP hash offset / rotate", lambda d: d.ecmp.hash_offset is not None),
    "ecmp.hash_fields": ("ECMP hash fields", lambda d: bool(d.ecmp.hash_fields)),
    "ecmp.resilient": ("ECMP resilient hashing", lambda d: d.ecmp.resilient),
    "pfc_watchdog.timers": (
        "PFC watchdog timers",
        lambda d: any(p.watchdog and p.watchdog.enabled for p in d.ports.values()),
    ),
    "pfc_watchdog.port_timers": (
        "PFC watchdog timers that differ between ports",
        lambda d: len(_watchdog_timers(d)) > 1,
    ),
    "pfc_watchdog.action": (
        "PFC watchdog action other than drop",
        lambda d: any(t[3] != "drop" for t in _watchdog_timers(d)),
    ),
    "headroom.bytes": (
        "PFC headroom bytes (the switch sizes headroom itself)",
        lambda d: any(p.headroom for p in d.ports.values()),
    ),
    "headroom.cable_rows": (
        "cable lengths the switch's static headroom table has no row for",
        lambda d: any(p.lossless for p in d.ports.values()),
    ),
}


def _watchdog_timers(device: Any) -> set[tuple[int, int, int, str]]:
    """The distinct (detection, restoration, poll, action) of the device's watching ports."""
    return {
        (w.detection_ms, w.restoration_ms, w.poll_ms, w.action)
        for w in (p.watchdog for p in device.ports.values())
        if w is not None and w.enabled
    }


@cache  # asked for every port by LL118
def max_mtu(os_name: str) -> int | None:
    """The largest interface MTU the OS accepts (its vendor module's MAX_MTU), if it has one."""
    return getattr(VENDORS.get(os_name), "MAX_MTU", None)


def not_expressed(device: Any) -> list[tuple[str, str]]:
    """(what, why) for every value the device's plan asks for that its OS's config cannot say."""
    vendor = vendor_for(device.os)
    found = []
    for key, why in getattr(vendor, "NOT_EXPRESSED", {}).items():
        if not PLAN_VALUES[key][1](device):
            continue
        reason = why(device) if callable(why) else why
        if reason:
            found.append((PLAN_VALUES[key][0], reason))
    return found
