"""The plan JSON, written device by device: the compact form (report/plan_compact.py), or
with `expanded` every port's settings in full (`plan --format json --expanded`).

The expanded text is exactly `json.dump(plan.to_dict(), stream, indent=2)` after the two
members naming the schema version and the form (tests compare the two),
but produced without holding the whole document: each device is encoded on its own and
indented to its depth, so memory stays that of one device however large the fabric. Values
are encoded by orjson where its text is the standard library's (lossless.json_text), with
dataclasses turned into their JSON fields on the way (lossless.plan.json_fields).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from functools import cache, partial
from operator import attrgetter
from typing import Any, TextIO

import orjson

from lossless.plan import DevicePlan, FabricPlan, json_fields, plain
from lossless.report.plan_compact import SCHEMA_VERSION, write_compact
from lossless.system.parallel import ordered_bytes
from lossless.text.json_text import orjson_text

# Dataclasses through _fields (their JSON fields only), or natively: orjson then writes every
# field but those named with an underscore, which only _device's input needs.
_OPTIONS = orjson.OPT_NON_STR_KEYS | orjson.OPT_PASSTHROUGH_DATACLASS
_NATIVE = orjson.OPT_NON_STR_KEYS


@cache
def _mapping_of(cls: type) -> Callable[[Any], dict[str, Any]] | None:
    """For a dataclass: a function giving an instance's JSON fields as a mapping."""
    fields = json_fields(cls)
    if fields is None:
        return None
    values = attrgetter(*fields)
    if len(fields) == 1:
        return lambda value: {fields[0]: values(value)}
    return lambda value: dict(zip(fields, values(value), strict=True))


def _fields(value: Any) -> dict[str, Any]:
    """orjson's hook for a dataclass: its JSON fields, which orjson then encodes."""
    mapping = _mapping_of(value.__class__)
    if mapping is None:
        raise TypeError(f"{type(value).__name__} is not JSON serializable")
    return mapping(value)


def _device(device: DevicePlan) -> dict[str, Any]:
    """A device plan as a mapping of its JSON fields, its ports likewise. They are the only
    parts of a device with fields kept out of the JSON (tests/test_plan_json.py checks), so
    orjson can encode what they hold natively, which is faster than a hook per object."""
    data = _fields(device)
    data["ports"] = {name: _fields(port) for name, port in device.ports.items()}
    return data


def encode(value: Any, depth: int = 0, *, native: bool = False) -> str:
    """value as json.dumps(plain(value), indent=2) writes it, indented to `depth` levels
    (continuation lines start 2 x depth spaces further in). Where orjson's text would differ,
    a container is encoded member by member, so only the members concerned (a float with an
    exponent, a string with an accent) go through the slower standard library. `native`:
    value holds no dataclass with fields kept out of the JSON (see _device)."""
    return encoded(value, depth, native=native).decode("ascii")


def encoded(value: Any, depth: int = 0, *, native: bool = False) -> bytes:
    """encode()'s text as ASCII bytes (json.dumps escapes everything else). orjson indents
    from the top level only, so the value is encoded inside `depth` one-member mappings,
    whose lines are then cut off: re-indenting the text afterwards took longer than
    encoding it (the plan of a 32k fabric is 200 MB)."""
    wrapped = value
    for _ in range(depth):
        wrapped = {"": wrapped}
    data = orjson_text(wrapped, _NATIVE if native else _OPTIONS, _fields)
    if data is not None:
        opening, closing = _wrapping(depth)
        return data[len(opening) : len(data) - len(closing)]
    if _members(value):
        return "".join(_pieces(value, depth)).encode("ascii")
    text = json.dumps(plain(value), indent=2)
    return (text.replace("\n", "\n" + "  " * depth) if depth else text).encode("ascii")


@cache
def _wrapping(depth: int) -> tuple[bytes, bytes]:
    """The text orjson writes around a value held in `depth` one-member mappings keyed ""."""
    opening = b"".join(b"{\n" + b"  " * (level + 1) + b'"": ' for level in range(depth))
    closing = b"".join(b"\n" + b"  " * level + b"}" for level in reversed(range(depth)))
    return opening, closing


def _members(value: Any) -> list[tuple[str | None, Any]]:
    """(key, value) of each member of a mapping or dataclass, (None, item) of a list's."""
    mapping = None if isinstance(value, type) else _mapping_of(value.__class__)
    if mapping is not None:
        return list(mapping(value).items())
    if isinstance(value, dict):
        return [(str(key), member) for key, member in value.items()]
    if isinstance(value, list | tuple):
        return [(None, member) for member in value]
    return []


def _pieces(value: Any, depth: int) -> Iterator[str]:
    """A non-empty container as JSON text at `depth`, one piece per member."""
    members = _members(value)
    opening, closing = ("[", "]") if members[0][0] is None else ("{", "}")
    indent = "\n" + "  " * (depth + 1)
    yield opening
    for index, (key, member) in enumerate(members):
        yield ("," if index else "") + indent
        if key is not None:
            yield json.dumps(key) + ": "
        yield encode(member, depth + 1)
    yield "\n" + "  " * depth + closing


def write_plan_json(plan: FabricPlan, stream: TextIO, *, expanded: bool = False) -> None:
    """The plan JSON (schemas/plan.schema.json) and a final newline, a piece at a time (a
    device, the links, the NICs...); as bytes to the stream's binary buffer where it has one
    (stdout, a file). On a large fabric the expanded form's pieces are encoded by worker
    processes too; the compact form's are a few lines per device, made here."""
    sink = getattr(stream, "buffer", None)
    if sink is not None:
        stream.flush()
        write = sink.write
    else:
        write = lambda data: stream.write(data.decode("ascii"))  # noqa: E731
    if expanded:
        _write_expanded(plan, write)
    else:
        write_compact(plan, write)
    if sink is not None:
        sink.flush()


def _write_expanded(plan: FabricPlan, write: Callable[[bytes], Any]) -> None:
    heads: list[str] = []  # the text before each piece
    pieces: list[Callable[[], bytes]] = []
    text = f'{{\n  "schema_version": {SCHEMA_VERSION},\n  "form": "expanded",'
    for index, name in enumerate(json_fields(FabricPlan) or ()):
        text += f"{',' if index else ''}\n  {json.dumps(name)}: "
        if name != "devices" or not plan.devices:
            heads.append(text)
            pieces.append(partial(_member_text, plan, name))
            text = ""
            continue
        text += "{"
        for number, (device_name, device) in enumerate(plan.devices.items()):
            heads.append(text + f"{',' if number else ''}\n    {json.dumps(device_name)}: ")
            pieces.append(partial(_device_text, device))
            text = ""
        text = "\n  }"
    made = ordered_bytes(lambda index: pieces[index](), len(pieces))
    for head, piece in zip(heads, made, strict=True):
        write(head.encode())
        write(piece)
    write(f"{text}\n}}\n".encode())


def _member_text(plan: FabricPlan, name: str) -> bytes:
    """A top-level member of the plan JSON; the NICs planned by the process that encodes
    them if plan_fabric left them for later (FabricPlan.planned_nics)."""
    value = plan.planned_nics() if name == "nics" else getattr(plan, name)
    return encoded(value, 1, native=True)


def _device_text(device: DevicePlan) -> bytes:
    return encoded(_device(device), 2, native=True)
