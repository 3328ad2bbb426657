"""The plan JSON's compact form (docs/plan-json.md): what `lossless plan --format json` and
`lossless ci --plan-json` write, and `expand`, which gives back the per-port form.

A 131,072-GPU fabric has 393,216 switch ports and 131,072 NICs but a few thousand distinct
port settings: the planner already gives ports alike the same frozen headroom, ECN and
watchdog objects. Written per port, the plan was 860 MB, most of it the same settings again.
Here each distinct setting is written once, in `port_settings` or `nic_settings`, and a port
or NIC names its setting (`like`) beside what is its own (its peer, where it was written).
A source FILE:LINE:COL is written `at`: [index in `files`, line, column], as the inventory's
path would otherwise repeat on every line. Each port, link, NIC and derivation is one line.
The text is ASCII and its values are those json.dumps writes (lossless.text.json_text).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from itertools import islice
from json.encoder import encode_basestring_ascii as quoted
from operator import attrgetter
from typing import Any

import orjson

from lossless.plan import (
    DevicePlan,
    FabricPlan,
    LinkPlan,
    NicPlan,
    PortPlan,
    json_fields,
    plain,
)
from lossless.text.json_text import same_as_json

SCHEMA_VERSION = 2
_OPTIONS = orjson.OPT_NON_STR_KEYS | orjson.OPT_PASSTHROUGH_DATACLASS


def _fields(value: Any) -> dict[str, Any]:
    """orjson's hook for a dataclass: its JSON fields."""
    fields = json_fields(value.__class__)
    if fields is None:
        raise TypeError(f"{type(value).__name__} is not JSON serializable")
    return {name: getattr(value, name) for name in fields}


def compact(value: Any) -> bytes:
    """json.dumps(plain(value), separators=(",", ":")) as bytes, by orjson where its text is
    the same (see lossless.text.json_text)."""
    try:
        data = orjson.dumps(value, default=_fields, option=_OPTIONS)
    except (orjson.JSONEncodeError, TypeError):  # an integer beyond 64 bits
        data = b""
    if data and same_as_json(data):
        return data
    return json.dumps(plain(value), separators=(",", ":")).encode("ascii")


class _Sources:
    """FILE:LINE:COL sources as `at` [file, line, column], the files numbered as met."""

    def __init__(self) -> None:
        self.files: dict[str, int] = {}
        self.written: dict[str, str] = {}  # source -> its member (ports of a range share one)

    def member(self, source: str) -> str:
        """`"at":[f,l,c]`, or `"source":"..."` for a source of another shape."""
        text = self.written.get(source)
        if text is None:
            file, _, column = source.rpartition(":")
            file, _, line = file.rpartition(":")
            if file and _number(line) and _number(column):
                index = self.files.setdefault(file, len(self.files))
                text = f'"at":[{index},{line},{column}]'
            else:
                text = '"source":' + quoted(source)
            self.written[source] = text
        return text


def _string(value: str | None) -> str:
    """A peer (a string or null) as JSON."""
    return "null" if value is None else quoted(value)


def _number(text: str) -> bool:
    """Digits as int() reads and str() writes them back (no sign, no leading zero)."""
    return text.isascii() and text.isdigit() and (text == "0" or text[0] != "0")


class _Settings:
    """The distinct settings of ports, NICs or devices, named p0, p1... as first met. An
    entry holds its `own` members and names its setting (`like`); the setting holds the rest,
    its `defaults` (a source) those of the first entry, which another entry states only
    where its own differ. Two entries share a setting when the text of the rest is the same;
    `key` makes the common case a lookup (the planner's shared objects, by identity)."""

    def __init__(self, prefix: str, cls: type, own: tuple[str, ...], defaults: tuple[str, ...]):
        self.prefix = prefix
        fields = json_fields(cls) or ()
        self.shared = tuple(f for f in fields if f not in own and f not in defaults)
        self.defaults = defaults
        self.texts: dict[bytes, tuple[str, dict[str, str]]] = {}  # -> name, defaults' text
        self.by_key: dict[tuple, tuple[str, dict[str, str]]] = {}
        self.sources = _Sources()

    def likes(
        self, values: Iterable[Any], key: Callable[[Any], tuple]
    ) -> list[tuple[str, dict[str, str]]]:
        """like() of each value, whose setting is looked up by its key where met before
        (hundreds of thousands of ports and NICs, a few thousand settings)."""
        by_key = self.by_key
        found = []
        for value in values:
            value_key = key(value)
            found.append(by_key.get(value_key) or self.like(value, value_key))
        return found

    def like(self, value: Any, key: tuple | None = None) -> tuple[str, dict[str, str]]:
        """The name of value's setting, and the text of the setting's defaults."""
        found = self.by_key.get(key) if key is not None else None
        if found is None:
            text = compact({field: getattr(value, field) for field in self.shared})
            found = self.texts.get(text)
            if found is None:
                found = (f"{self.prefix}{len(self.texts)}", self._defaults(value))
                self.texts[text] = found
            if key is not None:
                self.by_key[key] = found
        return found

    def _defaults(self, value: Any) -> dict[str, str]:
        return {
            field: self.sources.member(value.source)
            if field == "source"
            else f'"{field}":' + compact(getattr(value, field)).decode()
            for field in self.defaults
        }

    def overrides(self, value: Any, defaults: dict[str, str]) -> str:
        """The members of value's defaults that differ from its setting's, each after a comma."""
        if self.defaults == ("source",):  # ports and NICs: the common case, made short
            member = self.sources.member(value.source)
            return "" if member == defaults["source"] else "," + member
        text = ""
        for member, base in zip(self._defaults(value).values(), defaults.values(), strict=True):
            if member != base:
                text += "," + member
        return text

    def lines(self) -> Iterator[str]:
        for text, (name, defaults) in self.texts.items():
            members = [text[1:-1].decode(), *defaults.values()]
            yield f'"{name}":{{{",".join(filter(None, members))}}}'


def _port_key(port: PortPlan) -> tuple:
    """What decides a port's setting: its values, its frozen parts by identity (kept alive by
    the plan), and the types where equal numbers print differently (2 and 2.0)."""
    return (
        tuple(map(id, port.headroom)),
        tuple(map(id, port.ecn)),
        id(port.watchdog),
        port.description,
        port.speed_mbps,
        port.lanes,
        port.mtu,
        port.peer_kind,
        port.cable_m,
        type(port.cable_m),
        port.lossless,
        tuple(port.pfc_priorities),
        tuple(port.lint_ignore.items()),
        tuple(port.wred_drop_queues),
    )


def _link_key(link: LinkPlan) -> tuple:
    """What decides a link's setting: its length (2 and 2.0 print differently) and source."""
    return link.cable_m, type(link.cable_m), link.source


NIC_OWN = ("server", "name", "peer")
# NicPlan's fields that hold a list or dict of its own (each NIC a copy: hosts/plan.py), and
# the rest of those of its setting
_NIC_CONTAINERS = ("pfc_priorities", "dcqcn", "sources")
_NIC_HELD = attrgetter(
    *(f for f in json_fields(NicPlan) or () if f not in (*NIC_OWN, "source", *_NIC_CONTAINERS))
)


def _nic_key(nic: NicPlan) -> tuple:
    """What decides a NIC's setting, by identity: the objects its fields hold and those in
    its own list and dicts. NICs whose host settings are alike hold the same objects
    (hosts/plan.py works their values out once), and the same objects are the same text;
    equal values of other types (9000 and 9000.0) are other objects, so they are never taken
    for each other. The plan keeps the objects alive, so their ids stay theirs. `sources`
    maps names to FILE:LINE:COL texts, which are the same text where they are equal."""
    pfc, dcqcn = nic.pfc_priorities, nic.dcqcn
    return (
        tuple(map(id, _NIC_HELD(nic))),
        pfc if pfc is None else tuple(map(id, pfc)),
        tuple(map(id, dcqcn)),
        tuple(map(id, dcqcn.values())),
        tuple(nic.sources.items()),
    )


def write_compact(plan: FabricPlan, write: Callable[[bytes], Any]) -> None:
    """The compact plan JSON and a final newline, a piece at a time."""
    ports = _Settings("p", PortPlan, ("name", "peer"), ("source",))
    devices = _Settings("d", DevicePlan, DEVICE_OWN, ("mgmt", "source"))
    links = _Settings("l", LinkPlan, ("a", "b"), ())
    nics = _Settings("n", NicPlan, NIC_OWN, ("source",))
    sources = ports.sources  # one numbering of files for the whole text
    devices.sources = links.sources = nics.sources = sources
    # settings named before the entries are written, in the order of the text
    port_likes = {
        name: ports.likes(device.ports.values(), _port_key) for name, device in plan.devices.items()
    }
    device_likes = [devices.like(device) for device in plan.devices.values()]
    link_likes = [name for name, _ in links.likes(plan.links, _link_key)]
    planned = plan.planned_nics()
    nic_likes = nics.likes(planned.values(), _nic_key)
    write(f'{{\n  "schema_version": {SCHEMA_VERSION},\n  "form": "compact",\n'.encode())
    for name in ("name", "inventory"):
        write(f"  {quoted(name)}: ".encode() + compact(getattr(plan, name)) + b",\n")
    write(b'  "files": ' + compact(list(sources.files)) + b",\n")
    _mapping(write, "device_settings", devices.lines())
    _mapping(write, "port_settings", ports.lines())
    write(b'  "devices": {')
    for index, (name, device) in enumerate(plan.devices.items()):
        text = _device(device, device_likes[index], devices, port_likes[name], ports)
        write((b",\n    " if index else b"\n    ") + quoted(name).encode() + b": " + text)
    write(b"\n  },\n" if plan.devices else b"},\n")
    _mapping(write, "link_settings", links.lines())
    _list(
        write,
        "links",
        (
            f'[{quoted(link.a)},{quoted(link.b)},"{like}"]'
            for link, like in zip(plan.links, link_likes, strict=True)
        ),
    )
    _mapping(
        write,
        "derivations",
        (
            quoted(str(key)) + ":" + compact(value).decode()
            for key, value in plan.derivations.items()
        ),
    )
    _mapping(write, "nic_settings", nics.lines())
    _mapping(
        write,
        "nics",
        (
            f'{quoted(str(key))}:{{"like":"{like}","server":{quoted(nic.server)}'
            f',"name":{quoted(nic.name)},"peer":{_string(nic.peer)}'
            f"{nics.overrides(nic, defaults)}}}"
            for (key, nic), (like, defaults) in zip(planned.items(), nic_likes, strict=True)
        ),
    )
    write(b'  "lint_ignore": ' + compact(plan.lint_ignore) + b",\n")
    write(b'  "forwarding_servers": ' + compact(plan.forwarding_servers) + b"\n}\n")


# What differs from one device to the next however alike they are (ECMP seeds differ per
# switch, budget and PFC trigger name their derivations): their own members.
DEVICE_OWN = ("name", "ecmp", "budget", "pfc_trigger", "ports")


def _device(
    device: DevicePlan,
    like: tuple[str, dict[str, str]],
    devices: _Settings,
    likes: list[tuple[str, dict[str, str]]],
    ports: _Settings,
) -> bytes:
    """A device on one line, its ports last, each on a line of its own."""
    own = compact({field: getattr(device, field) for field in DEVICE_OWN[:-1]}).decode()
    text = f'{{"like":"{like[0]}"{devices.overrides(device, like[1])},{own[1:-1]}'
    if not device.ports:
        return (text + ',"ports":{}}').encode()
    source = ports.sources.member
    lines = []
    for (name, port), (name_of, defaults) in zip(device.ports.items(), likes, strict=True):
        at = source(port.source)  # compared here, not in overrides(): 393,216 ports at 128k
        lines.append(
            f'{quoted(name)}:{{"like":"{name_of}","peer":{_string(port.peer)}'
            f"{'' if at == defaults['source'] else ',' + at}}}"
        )
    return (text + ',"ports":{\n      ' + ",\n      ".join(lines) + "\n    }}").encode()


def _mapping(write: Callable[[bytes], Any], name: str, lines: Iterable[str]) -> None:
    _members(write, name, lines, "{", "}")


def _list(write: Callable[[bytes], Any], name: str, lines: Iterable[str]) -> None:
    _members(write, name, lines, "[", "]")


_LINES_AT_ONCE = 4096  # lines of a member written together: one write, not one per line


def _members(
    write: Callable[[bytes], Any], name: str, lines: Iterable[str], opening: str, closing: str
) -> None:
    """A top-level member whose members are one line each."""
    write(f"  {quoted(name)}: {opening}".encode())
    lines = iter(lines)
    separator = "\n    "
    while chunk := list(islice(lines, _LINES_AT_ONCE)):
        write((separator + ",\n    ".join(chunk)).encode())
        separator = ",\n    "
    write(((f"\n  {closing}" if separator != "\n    " else closing) + ",\n").encode())


def expand(data: dict[str, Any]) -> dict[str, Any]:
    """The per-port form (`plan --format json --expanded`) of a compact plan JSON as
    json.loads read it; a plan JSON already expanded is returned as it is."""
    if data.get("form") != "compact":
        return data
    files = data["files"]

    def entry(own: dict[str, Any], settings: str, cls: type) -> dict[str, Any]:
        """An entry's fields in order: its setting's, its own members replacing them."""
        merged = {**data[settings][own["like"]], **own}
        if "at" in merged:
            file, line, column = merged.pop("at")
            merged["source"] = f"{files[file]}:{line}:{column}"
        return {field: merged[field] for field in json_fields(cls) or ()}

    devices = {}
    for name, device in data["devices"].items():
        ports = {
            key: entry({**port, "name": key}, "port_settings", PortPlan)
            for key, port in device["ports"].items()
        }
        devices[name] = {**entry(device, "device_settings", DevicePlan), "ports": ports}
        devices[name] = {field: devices[name][field] for field in json_fields(DevicePlan) or ()}
    members = {
        "devices": devices,
        "links": [
            entry({"a": a, "b": b, "like": like}, "link_settings", LinkPlan)
            for a, b, like in data["links"]
        ],
        "nics": {key: entry(nic, "nic_settings", NicPlan) for key, nic in data["nics"].items()},
    }
    return {
        "schema_version": data["schema_version"],
        "form": "expanded",
        **{field: members.get(field, data.get(field)) for field in json_fields(FabricPlan) or ()},
    }
