"""Names in the order people count them: Ethernet0, Ethernet4, Ethernet12 (not Ethernet0,
Ethernet12, Ethernet4 as text sorts them); Ethernet1/2 before Ethernet1/10; et-0/0/2 before
et-0/0/10; swp2 before swp10; leaf2 before leaf10.

Every listing of ports or devices sorts with `natural_key`, so each OS's interface names
(SONiC `EthernetN`, Cumulus `swpN[sM]`, EOS `EthernetN/M`, NX-OS `EthernetN/M[/K]`, Junos
`et-F/P/N[:C]`) come out in slot, port and lane order.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_PARTS = re.compile(r"(\d+)")

# A run of digits is compared as a number; text between runs as text. Each part is a pair
# (text, number) so every two keys compare without mixing str and int.
# The name itself breaks ties (leaf01 and leaf1), so the order never depends on the input's.
NaturalKey = tuple[tuple[tuple[str, int], ...], str]


def natural_key(name: str) -> NaturalKey:
    """Sort key of a name: its text and number runs, numbers compared by value."""
    pieces = _PARTS.split(name)
    # split gives text, digits, text, digits, ..., text: pair each text with the number after
    runs = tuple(
        (pieces[i], int(pieces[i + 1]) if i + 1 < len(pieces) else -1)
        for i in range(0, len(pieces), 2)
    )
    return runs, name


def natural_sorted(names: Iterable[str]) -> list[str]:
    return sorted(names, key=natural_key)
