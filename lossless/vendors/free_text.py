"""Free text in a switch config: a port's description. The inventory schema already refuses
control and invisible formatting characters in descriptions; a description read back from a
config we did not write, or one made from names, goes through here too, so that no text can
end a config line or open a block: every OS writes it through its own `description()`."""

from __future__ import annotations

import re

from lossless.plan import PortPlan

# What no config line may carry: C0 and C1 controls and DEL (a line break ends the statement
# and starts the attacker's next one), and the invisible characters that make a line read
# other than it is (bidi controls, zero-width, line separators, BOM): the schema's `text`.
_UNPRINTABLE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff]")


def port_description(port: PortPlan) -> str:
    """What a port's description says: the inventory's, else the link peer, else nothing."""
    return port.description or (f"peer {port.peer}" if port.peer else "")


def one_line(text: str) -> str:
    """The text on one line of printable characters: each unprintable character becomes '?'."""
    return _UNPRINTABLE.sub("?", text)
