"""JSON text exactly as the standard library's json.dumps writes it, encoded by orjson in C.

json.dumps with an indent runs its pure-Python encoder: at fabric scale (a SONiC config_db of
every switch, the plan of 100,000 ports) that was most of the time of `render` and `plan`.
orjson writes the same text for what lossless writes, except where it does not, which is
checked on its output: json escapes non-ASCII and DEL characters (orjson writes them as
they are), writes exponents as 1e+16 (orjson 1e16), NaN as NaN (orjson null: it cannot
occur here, the loaders refuse NaN and infinity), and orjson refuses integers beyond 64
bits and, unless asked, keys that are not strings. Where the text could differ, the
standard library writes it. Tests compare both on every case.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from json.encoder import encode_basestring_ascii as quoted  # what json.dumps writes a str as
from typing import Any

import orjson

# orjson writes an exponent as 1e16 or 2.5e-7: with every digit and sign read as 0, "0e0"
# (a substring search, much faster than a regular expression over the text).
_DIGITS_AS_ZERO = bytes.maketrans(b"123456789+-", b"00000000000")


def same_as_json(data: bytes) -> bool:
    """orjson's text is what json.dumps writes: ASCII without DEL, and no number that the
    two write differently: any with an exponent (json.dumps writes 1e+16 and 2.5e-07,
    orjson 3.8 1e16 and 3.13 2.5e-7) and any below 1e-4 (json.dumps 5e-05, orjson
    0.00005). Text merely looking like such a number (in a string) goes to json.dumps too."""
    if not data.isascii() or b"\x7f" in data:
        return False
    digits = data.translate(_DIGITS_AS_ZERO)
    return b"0e0" not in digits and b"0.0000" not in digits


def orjson_text(
    value: Any, option: int, default: Callable[[Any], Any] | None = None
) -> bytes | None:
    """orjson's indented text of value when it is json.dumps's, else None."""
    try:
        data = orjson.dumps(value, default=default, option=option | orjson.OPT_INDENT_2)
    except (orjson.JSONEncodeError, TypeError):  # an integer beyond 64 bits, a key type
        return None
    return data if same_as_json(data) else None


def indent_four(data: bytes) -> bytes:
    """2-space indented JSON re-indented by 4. A raw newline only ever starts a line (one in
    a string is escaped), and so does a run of spaces after it: each line's leading pairs of
    spaces become quadruples, one pair per pass, through a marker byte that orjson never
    writes raw (control characters in strings are escaped)."""
    text = data.replace(b"\n  ", b"\n\x00")
    while b"\x00  " in text:
        text = text.replace(b"\x00  ", b"\x00\x00")
    return text.replace(b"\x00", b"    ")


def dumps(value: Any, indent: int, *, sort_keys: bool = False) -> str:
    """json.dumps(value, indent=indent, sort_keys=sort_keys) for an indent of 2 or 4."""
    if indent not in (2, 4):
        raise ValueError(f"indent {indent}: 2 or 4")
    data = orjson_text(value, orjson.OPT_SORT_KEYS if sort_keys else 0)
    if data is None:
        return json.dumps(value, indent=indent, sort_keys=sort_keys)
    return (indent_four(data) if indent == 4 else data).decode("ascii")


def dumps_tables(tables: dict[str, dict[str, Any]], indent: int) -> str:
    """json.dumps(tables, indent=indent, sort_keys=True) of a mapping of mappings (a SONiC
    config_db). Each entry of a table is written once however many keys share the object
    (a switch's ports share most of theirs), and the rest is joined here."""
    pad = " " * indent
    written: dict[int, str] = {}  # id of an entry -> its text at depth 2 (entries stay alive)
    lines = []
    try:
        for name in sorted(tables):
            table = tables[name]
            for entry in table.values():
                if id(entry) not in written:
                    text = dumps(entry, indent, sort_keys=True)
                    written[id(entry)] = text.replace("\n", "\n" + pad * 2)
            members = [
                f"{pad * 2}{quoted(key)}: {written[id(table[key])]}" for key in sorted(table)
            ]
            body = "{\n" + ",\n".join(members) + f"\n{pad}}}" if members else "{}"
            lines.append(f"{pad}{quoted(name)}: {body}")
    except (TypeError, AttributeError):  # a key that is not a str, a table that is no mapping
        return dumps(tables, indent, sort_keys=True)
    return "{\n" + ",\n".join(lines) + "\n}" if lines else "{}"
