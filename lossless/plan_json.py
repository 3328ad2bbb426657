"""`lossless plan --format json`: the plan JSON, written device by device.

The text is exactly `json.dump(plan.to_dict(), stream, indent=2)` (tests compare the two),
but produced without holding the whole document: each device is encoded on its own and
indented to its depth, so memory stays that of one device however large the fabric. Values
are encoded by orjson, in C, with dataclasses turned into their JSON fields on the way
(lossless.plan.json_fields); the standard library encodes instead where orjson's text would
differ from it: strings with non-ASCII or DEL characters (json escapes them), floats it
writes with an exponent (json writes 1e+16, orjson 1e16), integers beyond 64 bits. NaN and
infinity cannot occur: the inventory loader refuses them and the planner derives only
finite numbers.
"""

from __future__ import annotations

import json
import re
from typing import Any, TextIO

import orjson

from lossless.plan import FabricPlan, json_fields, plain

_OPTIONS = orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS | orjson.OPT_PASSTHROUGH_DATACLASS
_EXPONENT = re.compile(rb"[0-9]e[-0-9]")  # orjson's 1e16, 2.5e-7 (or a string that looks so)


def _fields(value: Any) -> dict[str, Any]:
    """orjson's hook for a dataclass: its JSON fields, which orjson then encodes."""
    fields = json_fields(type(value))
    if fields is None:
        raise TypeError(f"{type(value).__name__} is not JSON serializable")
    return {name: getattr(value, name) for name in fields}


def encode(value: Any, depth: int = 0) -> str:
    """value as json.dumps(plain(value), indent=2) writes it, indented to `depth` levels
    (continuation lines start 2 x depth spaces further in)."""
    try:
        data: bytes | None = orjson.dumps(value, default=_fields, option=_OPTIONS)
    except (orjson.JSONEncodeError, TypeError):  # e.g. an integer beyond 64 bits
        data = None
    if data is not None and data.isascii() and b"\x7f" not in data and not _EXPONENT.search(data):
        text = data.decode("ascii")
    else:
        text = json.dumps(plain(value), indent=2)
    return text.replace("\n", "\n" + "  " * depth) if depth else text


def write_plan_json(plan: FabricPlan, stream: TextIO) -> None:
    """The plan JSON (schemas/plan.schema.json) and a final newline."""
    stream.write("{")
    for index, name in enumerate(json_fields(FabricPlan) or ()):
        value = getattr(plan, name)
        stream.write(f'{"," if index else ""}\n  {json.dumps(name)}: ')
        if name != "devices" or not value:
            stream.write(encode(value, 1))
            continue
        stream.write("{")
        for number, (device_name, device) in enumerate(value.items()):
            stream.write(f'{"," if number else ""}\n    {json.dumps(device_name)}: ')
            stream.write(encode(device, 2))
        stream.write("\n  }")
    stream.write("\n}\n")
