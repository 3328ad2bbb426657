"""observed.Output.at: where a needle stands, whatever order readers ask in (the cursor for
asks in the output's order, the index for many asks out of it)."""

from __future__ import annotations

import json
import random

from lossless.observed import WRAPS_BEFORE_INDEX, Output


def _naive(text: str, needle: str, source: str = "f") -> str:
    offset = text.find(needle)
    line = text.count("\n", 0, offset) + 1
    return f"{source}:{line}:{offset - text.rfind(chr(10), 0, offset)}"


TEXT = json.dumps({f"COUNTERS:oid:0x{i:x}": {"SAI_X": str(i)} for i in range(500)}, indent=2)
NEEDLES = [f'"COUNTERS:oid:0x{i:x}"' for i in range(500)]


def test_in_order_and_out_of_order_asks_name_the_first_occurrence() -> None:
    in_order = Output(TEXT, "f")
    assert [in_order.at(n) for n in NEEDLES] == [_naive(TEXT, n) for n in NEEDLES]
    shuffled = list(NEEDLES)
    random.Random(7).shuffle(shuffled)
    out_of_order = Output(TEXT, "f")
    assert [out_of_order.at(n) for n in shuffled] == [_naive(TEXT, n) for n in shuffled]
    assert out_of_order.__dict__["_memo"][2] > WRAPS_BEFORE_INDEX  # the index served


def test_a_port_in_two_rows_is_named_at_the_row_being_read() -> None:
    text = '{"rows": [\n{"if": "Eth1/1", "dir": "Egress"},\n{"if": "Eth1/1", "dir": "Ingress"}]}'
    output = Output(text, "q.json")
    assert output.at('"Eth1/1"') == "q.json:2:8"
    assert output.at('"Egress"') == "q.json:2:25"
    assert output.at('"Eth1/1"') == "q.json:3:8"  # the next row's, not the first one's again


def test_a_needle_not_there_is_line_1() -> None:
    output = Output(TEXT, "f")
    assert output.at('"COUNTERS:oid:0x10"') == _naive(TEXT, '"COUNTERS:oid:0x10"')
    assert output.at('"nowhere"') == "f:1:1"
    assert output.at('"COUNTERS:oid:0x11"') == _naive(TEXT, '"COUNTERS:oid:0x11"')
