"""lossless.json_text writes what json.dumps writes, byte for byte, through orjson."""

from __future__ import annotations

import json

import pytest

from lossless.text import json_text

VALUE = {
    "b": {"Ethernet8|3": {"profile": "NULL"}, "a": [1, 2.5, None, True, "x"]},
    "a": {"deep": {"deeper": {"deepest": ["  leading spaces", "", {}, []]}}},
    "é": "ü \x7f \x00 \n",
    "n": [1e16, 2**70, 1e-05],
    "": {},
}


@pytest.mark.parametrize("sort_keys", [False, True])
@pytest.mark.parametrize("indent", [2, 4])
def test_dumps_is_the_standard_librarys(indent, sort_keys):
    for sample in (VALUE, VALUE["b"], VALUE["a"], {}, [], "text", 3, {1: "x", 10: "y", 2: "z"}):
        expected = json.dumps(sample, indent=indent, sort_keys=sort_keys)
        assert json_text.dumps(sample, indent, sort_keys=sort_keys) == expected


def test_orjson_text_is_refused_where_it_would_differ():
    assert json_text.orjson_text({"a": 1.5}, 0) is not None
    for different in ({"a": "é"}, {"a": "\x7f"}, {"a": 1e16}, {"a": 2.5e-7}, {"a": 2**70}):
        assert json_text.orjson_text(different, 0) is None
    assert json_text.orjson_text({"a": 5e-05}, 0) is None  # orjson writes 0.00005


def test_numbers_orjson_writes_are_json_dumps_numbers_or_refused():
    """Seeded floats over 30 decades: whatever orjson's version, a text orjson_text keeps is
    json.dumps's."""
    import random

    numbers = random.Random(13)
    values = [10.0**e for e in range(-20, 25)] + [
        numbers.uniform(-1, 1) * 10 ** numbers.randint(-12, 20) for _ in range(20_000)
    ]
    for value in values:
        data = json_text.orjson_text([value], 0)
        assert data is None or data.decode() == json.dumps([value], indent=2), value


def test_tables_are_written_as_json_sorts_and_indents_them():
    shared = {"profile": "NULL"}
    tables = {
        "BUFFER_PG": {f"Ethernet{i}|3": shared for i in (0, 4, 8, 100)},
        "PORT": {"Ethernet4": {"mtu": "9100", "speed": "400000"}, "Ethernet0": {}},
        "EMPTY": {},
        "SWITCH_HASH": {"GLOBAL": {"ecmp_hash": ["SRC_IP", "L4_SRC_PORT"]}},
        "ÉTÉ": {"é": "ü"},
    }
    for sample in (tables, {}, {"A": {1: "x", 10: "y"}}, {"A": "not a table"}):
        expected = json.dumps(sample, indent=4, sort_keys=True)
        assert json_text.dumps_tables(sample, 4) == expected
