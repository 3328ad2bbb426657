"""Vendors at the edge: one module per OS turns a DevicePlan into that OS's terms.

Each module exposes TEMPLATE (under templates/), EXTENSION (of the rendered file) and
context(device, fabric) -> dict, the values the template prints. Unit conversions and names
happen here; the templates compute nothing. Nothing outside this package knows a syntax.
"""

from __future__ import annotations

from types import ModuleType

from lossless.vendors import cumulus, eos, junos, nxos, sonic

VENDORS: dict[str, ModuleType] = {
    "sonic": sonic,
    "cumulus": cumulus,
    "eos": eos,
    "nxos": nxos,
    "junos": junos,
}


def vendor_for(os_name: str) -> ModuleType:
    return VENDORS[os_name]
