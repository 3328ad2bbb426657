"""The five switch OSes: the inventory's name for each and the package that holds it."""

from __future__ import annotations

from functools import cache
from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the command line reads OS_NAMES at start-up: nothing else is imported
    from lossless.plan import DevicePlan
    from lossless.vendors.vendor import Vendor

# OS name -> its package (lossless/vendors/<os>/), whose VENDOR says what it offers. A package
# is imported when its OS is first asked for: the command line starts without any (the five
# take 55-80 ms from a bare start), and a run of one OS imports one (the other four cost
# 13 ms once an inventory is loaded).
PACKAGES = {
    "sonic": "lossless.vendors.sonic",
    "cumulus": "lossless.vendors.cumulus",
    "eos": "lossless.vendors.eos",
    "nxos": "lossless.vendors.nxos",
    "junos": "lossless.vendors.junos",
}
OS_NAMES = tuple(PACKAGES)


@cache
def vendor_for(os_name: str) -> Vendor:
    """The OS's VENDOR (KeyError for an OS lossless does not know)."""
    vendor: Vendor = import_module(PACKAGES[os_name]).VENDOR
    return vendor


def vendors() -> list[Vendor]:
    """All five, in OS_NAMES order."""
    return [vendor_for(os_name) for os_name in OS_NAMES]


@cache  # asked for every port by LL118
def max_mtu(os_name: str) -> int | None:
    """The largest interface MTU the OS accepts, if it has one."""
    return vendor_for(os_name).max_mtu if os_name in PACKAGES else None


def asic_vendors(os_name: str) -> tuple[str, ...]:
    """The catalogue vendors whose chips an OS runs on (empty: any)."""
    return vendor_for(os_name).asic_vendors if os_name in PACKAGES else ()


def not_expressed(device: DevicePlan) -> list[tuple[str, str]]:
    """(what, why) for every value the device's plan asks for that its OS's config cannot say."""
    return vendor_for(device.os).not_expressed_in(device)
