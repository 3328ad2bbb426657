"""ranges.expand_split: link ends expanded as device names and port names, the same ends in
the same order as expanding each "device:port" name and splitting it at its first colon."""

from __future__ import annotations

import pytest

from lossless.text import ranges


@pytest.mark.parametrize(
    "text",
    [
        "leaf[0001:0128]:Ethernet[0:124:4]",  # ranges on both sides
        "gpu[00001:04096]:eth0",  # a range before the colon only
        "leaf1:Ethernet[0:8:4]",  # after it only
        "leaf1:Ethernet0",  # none
        "leaf1",  # no colon: the whole name is the node, the port empty
        "pod[1:2]-leaf[1:3]:swp[1:2]s[0:1]",  # several ranges each side
        "leaf[1:2]x:y:Ethernet[0:4:4]",  # a second colon stays in the port
        "spine:[1:3]",  # the colon right before a range
        "[1:3]:[5:6]",  # names that are ranges only
    ],
)
def test_expand_split_is_expand_partitioned(text):
    nodes, ports = ranges.expand_split(text, ":")
    pairs = [(node, port) for node in nodes for port in ports]
    assert pairs == [tuple(name.partition(":")[::2]) for name in ranges.expand(text)]


def test_expand_split_refuses_what_expand_refuses():
    with pytest.raises(ranges.RangeError, match="names"):
        ranges.expand_split("leaf[1:1000000]:Ethernet[0:3]", ":")
    with pytest.raises(ranges.RangeError, match="ends before it starts"):
        ranges.expand_split("leaf[3:1]:Ethernet0", ":")
