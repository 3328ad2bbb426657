"""Free text in a switch config: a port's description. The inventory schema already refuses
control and invisible formatting characters in descriptions; a description read back from a
config we did not write, or one made from names, goes through here too, so that no text can
end a config line or open a block: every OS writes it through its own `description()`."""

from __future__ import annotations

from lossless.plan import PortPlan
from lossless.text.printable import show_hidden


def port_description(port: PortPlan) -> str:
    """What a port's description says: the inventory's, else the link peer, else nothing."""
    return port.description or (f"peer {port.peer}" if port.peer else "")


def one_line(text: str) -> str:
    """The text on one line of printable characters: each hidden character (a control
    character, which would end the statement and start the attacker's next one; an invisible
    one, which makes the line read other than it is) becomes '?'."""
    return show_hidden(text, lambda _char: "?")
