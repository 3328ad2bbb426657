"""What a source of truth (NetBox, Nautobot) says about a fabric, made into our inventory YAML.

The source modules (`netbox.py`, `nautobot.py`) reduce their API's answers to `SourceData`:
devices, interfaces and connections (the cables of one traced path, patch panels included).
`build_inventory` joins them with the mapping (`mapping.py`) into the inventory's shape and
`inventory_text` writes it: deterministic (sorted, no timestamp), ranges folded where the
ports, servers and links allow, and a comment per value naming the object and field it came
from. The text is read back and must give the same data (a value can never escape its
scalar, a comment never its line), and `load_imported` loads it through the inventory loader
(schema, references) before anything is written; a problem found there is told by the source
objects (or the mapping) its line came from, never by a line of a text nobody will see.

Cable length is the sum over the traced path. NetBox stores `length` (a decimal) and
`length_unit` (NetBox `CableLengthUnitChoices`: km, m, cm, mi, ft, in; Nautobot
`CableLengthUnitChoices`: m, cm, ft, in). Metric lengths convert exactly (Decimal); a path
with any imperial length (by definition 1 in = 0.0254 m, 1 ft = 0.3048 m, 1 mi = 1609.344 m)
is rounded up to the whole metre: the headroom is sized for a cable at least as long as the
real one. A cable without length (or unit) is an error naming the cable and its two ends.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import os
import re
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from decimal import ROUND_CEILING, Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from lossless.errors import InputError, Problem
from lossless.importers.mapping import DeviceType, Mapping
from lossless.inventory import inventory_from_document
from lossless.inventory.yamlsource import load_yaml
from lossless.model import Inventory
from lossless.text.printable import printable
from lossless.text.ranges import RangeError, expand
from lossless.text.units import format_speed, parse_speed

METRES_PER_UNIT = {
    "km": Decimal(1000),
    "m": Decimal(1),
    "cm": Decimal("0.01"),
    "mi": Decimal("1609.344"),
    "ft": Decimal("0.3048"),
    "in": Decimal("0.0254"),
}
IMPERIAL = {"mi", "ft", "in"}
ROLE_RANK = {"leaf": 0, "spine": 1, "super-spine": 2, "server": 3}
DEFAULT_MTU = 9100  # the inventory schema's default port MTU
_NAME_RE = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}")
_PORT_RE = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_./:-]{0,127}")
# what the inventory schema's `text` refuses: control and invisible formatting characters
_HIDDEN_RE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff]")


@dataclass(frozen=True, order=True)
class SourceProblem(Problem):
    """A problem with an object of the source, not a line of a file: 'NetBox dcim.cables 7:'."""

    def __str__(self) -> str:
        return f"{self.file} {self.path}: {self.message}"


class SourceError(InputError):
    """Facts the source holds that cannot become an inventory (exit 2)."""


@dataclass(frozen=True)
class Cable:
    ref: str  # "dcim.cables 7"
    label: str
    length: Decimal | None
    unit: str | None
    ends: tuple[str, str]  # "leaf1:Ethernet0", "PP-1:Front1": named in errors
    status: str = "connected"  # "planned", "decommissioning": not (or no longer) a link


@dataclass(frozen=True)
class SourceDevice:
    ref: str
    name: str
    role: str
    device_type: str
    model: str | None
    platform: str | None
    mgmt: str | None
    tags: tuple[str, ...] = ()


@dataclass(frozen=True)
class SourceInterface:
    ref: str
    device: str
    name: str
    speed_kbps: int | None
    mtu: int | None
    description: str = ""
    enabled: bool = True  # a disabled interface carries no link


@dataclass(frozen=True)
class Connection:
    a: tuple[str, str]  # (device, interface)
    b: tuple[str, str]
    cables: tuple[Cable, ...]


@dataclass
class SourceData:
    source: str  # "NetBox" or "Nautobot"
    url: str
    devices: list[SourceDevice]
    interfaces: list[SourceInterface]
    connections: list[Connection]
    has_speed: bool = True  # Nautobot before 2.4.22 has no interface speed
    notes: list[str] = field(default_factory=list)  # what was skipped, for stderr
    # (device, interface) of an imported device whose cable path leads to a device the
    # import leaves out (--filter, an unmapped role): its link is missing because of that
    outside: set[tuple[str, str]] = field(default_factory=set)


# -- cable length ---------------------------------------------------------------------------


def path_length_m(cables: Sequence[Cable], source: str) -> Decimal:
    """The path's length in metres: exact for metric units, rounded up to the whole metre
    when any cable of it is measured in imperial units."""
    problems: list[Problem] = []
    total, imperial = Decimal(0), False
    for cable in cables:
        unit = (cable.unit or "").lower()
        if cable.length is None or unit not in METRES_PER_UNIT or cable.length <= 0:
            problems.append(_cable_problem(cable, source, unit))
            continue
        total += cable.length * METRES_PER_UNIT[unit]
        imperial = imperial or unit in IMPERIAL
    if problems:
        raise SourceError(problems)
    if imperial:
        total = total.to_integral_value(rounding=ROUND_CEILING)
    return total.normalize() if total != total.to_integral_value() else Decimal(int(total))


def _cable_problem(cable: Cable, source: str, unit: str) -> SourceProblem:
    label = f" ({cable.label!r})" if cable.label else ""
    between = f"between {cable.ends[0]} and {cable.ends[1]}"
    if cable.length is None:
        what = "has no length: headroom cannot be sized (set length and length_unit)"
    elif unit not in METRES_PER_UNIT:
        what = f"has length {cable.length} in no known unit ({unit or 'none'!r})"
    else:
        what = f"has length {cable.length} {unit}: not a length"
    return SourceProblem(source, 0, 0, f"{cable.ref}{label}", f"cable {between} {what}")


def decimal_or_none(value: Any) -> Decimal | None:
    """A length as the API gave it (number or string), or None when it is not a number."""
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        return None
    try:
        number = Decimal(str(value))
    except InvalidOperation:
        return None
    return number if number.is_finite() else None


# -- building the inventory -----------------------------------------------------------------


@dataclass
class Entry:
    """One key of the output with its settings and the comment saying where they came from."""

    name: str
    settings: dict[str, Any]
    kind: str  # "NetBox dcim.devices", "dcim.interfaces": what the ids are
    ids: tuple[str, ...]
    detail: str
    sort_key: tuple[Any, ...] = ()
    who: str = ""  # the source objects, for errors found in the written text ("" = kind ids)
    parts: tuple[tuple[str, str], ...] = ()  # a folded link's (its ends, who) per member

    @property
    def comment(self) -> str:
        if not self.ids:
            return self.detail
        return f"{self.kind} {', '.join(self.ids)}" + (f": {self.detail}" if self.detail else "")


def _entry(name: str, settings: dict[str, Any], ref: str, detail: str, **more: Any) -> Entry:
    """An entry whose comment names the object `ref` ("dcim.interfaces 1001")."""
    kind, _, id_ = ref.rpartition(" ")
    return Entry(name, settings, kind, (id_,), detail, **more)


@dataclass
class Imported:
    source: str  # "NetBox"
    mapping_file: str
    header: list[str]
    fabric: dict[str, Any]
    roles: dict[str, Any]
    port_profiles: dict[str, Any]
    devices: list[tuple[Entry, list[Entry]]]  # device, its ports
    servers: list[tuple[Entry, list[Entry]]]  # server, its NICs
    links: list[Entry]  # name unused; settings {a, b, cable_m}
    # "device:port" -> why the source has no link there though a cable ends there (a planned
    # cable, a disabled port, the other end left out of the import), for --check
    absent: dict[str, str] = field(default_factory=dict)
    outside: frozenset[str] = frozenset()  # of those, the ends whose peer is left out


@dataclass
class _Node:
    device: SourceDevice
    role: str  # ours
    entry: Entry


class _Builder:
    def __init__(self, data: SourceData, mapping: Mapping):
        self.data, self.mapping = data, mapping
        self.problems: list[Problem] = []
        self.nodes: dict[str, _Node] = {}
        self.interfaces = {(i.device, i.name): i for i in data.interfaces}
        self.absent: dict[str, str] = {}

    def problem(self, ref: str, message: str) -> None:
        self.problems.append(SourceProblem(self.data.source, 0, 0, ref, message))

    def device_nodes(self) -> None:
        refs: dict[str, list[str]] = {}
        for device in self.data.devices:  # a patch panel's name is no inventory name
            if device.role in self.mapping.device_roles:
                refs.setdefault(device.name, []).append(device.ref)
        for device in sorted(self.data.devices, key=lambda d: natural_key(d.name)):
            if len(refs.get(device.name, [])) > 1:
                if device.ref == refs[device.name][0]:  # one problem per name
                    self.same_name(device.name, refs[device.name])
                continue
            role = self.mapping.device_roles.get(device.role)
            if role is None:
                self.data.notes.append(
                    f"{device.name}: role {device.role!r} is not in the mapping's "
                    "device_roles: not imported"
                )
                continue
            if not _NAME_RE.fullmatch(device.name):
                self.problem(
                    device.ref,
                    f"name {device.name!r} cannot be an inventory name "
                    "(letters, digits, _ . - only, at most 128)",
                )
                continue
            if role == "server":
                entry = self.server_entry(device)
            else:
                entry = self.switch_entry(device, role)
            if entry is not None:
                self.nodes[device.name] = _Node(device, role, entry)

    def same_name(self, name: str, refs: list[str]) -> None:
        """NetBox names a device uniquely per site and tenant only; an inventory name is one
        device, so the import cannot tell which ports and links belong to which."""
        kind = refs[0].rpartition(" ")[0]
        ids = " and ".join(ref.rpartition(" ")[2] for ref in refs)
        self.problems.append(
            SourceProblem(
                self.data.source,
                0,
                0,
                f"{kind} {ids}",
                f"{len(refs)} devices are named {name!r}: rename them, or narrow --filter "
                "to one site or tenant",
            )
        )

    def device_type(self, device: SourceDevice) -> DeviceType | None:
        found = self.mapping.device_types.get(device.device_type)
        if found is None:
            self.problem(
                device.ref,
                f"device {device.name}: device type {device.device_type!r} is not in the "
                f"mapping's device_types ({self.mapping.file}): say its ASIC there",
            )
        return found

    def switch_entry(self, device: SourceDevice, role: str) -> Entry | None:
        kind = self.device_type(device)
        os_name = self.mapping.platforms.get(device.platform or "")
        if device.platform is None or os_name is None:
            self.problem(
                device.ref,
                f"device {device.name}: platform {device.platform!r} is not "
                f"in the mapping's platforms ({self.mapping.file})",
            )
        if kind is None or os_name is None:
            return None
        if kind.asic is None:
            self.problem(
                device.ref,
                f"device {device.name}: the mapping's device type "
                f"{device.device_type!r} names no asic",
            )
            return None
        settings: dict[str, Any] = {"role": role, "os": os_name, "asic": kind.asic}
        platform = kind.platform or device.model
        if platform:
            settings["platform"] = platform
        if device.mgmt:
            settings["mgmt"] = device.mgmt
        if kind.gearbox_delay_ns is not None:
            settings["gearbox_delay_ns"] = kind.gearbox_delay_ns
        policy = self.tag_policy(device)
        if policy:
            settings["policy"] = policy
        where = f"role {device.role}, type {device.device_type}, platform {device.platform}"
        if device.tags:
            where += f", tags {', '.join(sorted(device.tags))}"
        return _entry(device.name, settings, f"{self.data.source} {device.ref}", where)

    def server_entry(self, device: SourceDevice) -> Entry | None:
        kind = self.device_type(device)
        if kind is None:
            return None
        settings = {"nic_model": kind.nic_model} if kind.nic_model else {}
        where = f"role {device.role}, type {device.device_type}"
        return _entry(device.name, settings, f"{self.data.source} {device.ref}", where)

    def tag_policy(self, device: SourceDevice) -> dict[str, Any]:
        merged: dict[str, Any] = {}
        for tag in sorted(device.tags):
            if tag in self.mapping.tags:
                clash = merge_into(merged, self.mapping.tags[tag])
                if clash:
                    self.problem(
                        device.ref,
                        f"device {device.name}: tag {tag!r} sets {clash} "
                        "differently from another of its tags",
                    )
        return merged


def merge_into(target: dict[str, Any], extra: dict[str, Any], path: str = "") -> str | None:
    """Deep-merge extra into target; the dotted key of the first conflicting value, if any."""
    for key, value in extra.items():
        here = f"{path}.{key}" if path else key
        if isinstance(value, dict) and isinstance(target.get(key), dict):
            clash = merge_into(target[key], value, here)
            if clash:
                return clash
        elif key in target and target[key] != value:
            return here
        else:
            target[key] = copy.deepcopy(value)  # the mapping's own dicts stay untouched
    return None


def build_inventory(data: SourceData, mapping: Mapping, mapping_shown: str = "") -> Imported:
    """The inventory the source and the mapping say; SourceError with every problem.
    `mapping_shown` is the mapping's name in the header (default: as given)."""
    builder = _Builder(data, mapping)
    builder.device_nodes()
    links = _links(builder)
    if builder.problems:
        raise SourceError(builder.problems)
    if not any(node.role != "server" for node in builder.nodes.values()):
        # never an inventory without switches: a scheduled sync would delete the fabric
        raise SourceError(
            [
                SourceProblem(
                    data.source,
                    0,
                    0,
                    data.url,
                    f"none of its {len(data.devices)} devices is a switch of a role in the "
                    f"mapping's device_roles ({mapping.file}): nothing to import",
                )
            ]
        )
    ports, nics = _ports_and_nics(builder, links)
    if builder.problems:
        raise SourceError(builder.problems)
    devices, servers = [], []
    for name, node in builder.nodes.items():
        if node.role == "server":
            server_nics = nics.get(name, [])
            if server_nics:
                servers.append((node.entry, fold(server_nics)))
        else:
            devices.append((node.entry, fold(ports.get(name, []))))
    devices.sort(key=lambda d: (ROLE_RANK[d[0].settings["role"]], natural_key(d[0].name)))
    return Imported(
        source=data.source,
        mapping_file=mapping.file,
        header=_header(data, mapping_shown or mapping.file),
        fabric=mapping.fabric,
        roles=mapping.roles,
        port_profiles=mapping.port_profiles,
        devices=devices,
        servers=fold_servers(servers),
        links=fold_links(links),
        absent={**{f"{d}:{p}": OUTSIDE for d, p in data.outside}, **builder.absent},
        outside=frozenset(f"{d}:{p}" for d, p in data.outside),
    )


OUTSIDE = "its cable path leads to a device not imported (--filter, the mapping's device_roles)"


def mapping_shown(mapping_file: str, output: str | None) -> str:
    """The mapping as the header names it: relative to the output file's folder (the same
    bytes on a laptop and in CI), else (stdout, or nothing in common but the root) its name
    only."""
    if output in (None, "-"):
        return Path(mapping_file).name
    folder, mapping = Path(output).resolve().parent, Path(mapping_file).resolve()
    try:
        if Path(os.path.commonpath([folder, mapping])) == Path(folder.anchor):
            return mapping.name
        return Path(os.path.relpath(mapping, folder)).as_posix()
    except ValueError:  # another drive (Windows)
        return mapping.name


def _header(data: SourceData, mapping_file: str) -> list[str]:
    return [
        # A file the user has (the schema's $id is a name, no server answers it)
        "yaml-language-server: $schema=inventory.schema.json",
        "(for editors: `lossless schema inventory -o inventory.schema.json` writes it here)",
        "",
        f"Imported from {data.source} {data.url} with the mapping {mapping_file}",
        f"by `lossless import {data.source.lower()}`. Change {data.source} or the mapping and "
        "import again;",
        "a comment names the object each value came from.",
    ]


@dataclass
class _Link:
    a: tuple[str, str]
    b: tuple[str, str]
    cable_m: Decimal
    comment: str
    who: str  # "dcim.interfaces 1001 and 1002 (dcim.cables 5)"


def _links(builder: _Builder) -> list[_Link]:
    found: list[_Link] = []
    ends: dict[tuple[str, str], Connection] = {}
    for connection in builder.data.connections:
        a, b = connection.a, connection.b
        if a[0] not in builder.nodes or b[0] not in builder.nodes:
            inside = [end for end in (a, b) if end[0] in builder.nodes]
            if inside:
                builder.data.notes.append(
                    f"{a[0]}:{a[1]} - {b[0]}:{b[1]}: the other end is not imported: no link"
                )
                builder.data.outside.update(inside)
            continue
        if not _two_devices(builder, connection) or not _ends_once(builder, connection, ends):
            continue
        down = _not_live(builder, connection)
        if down:
            builder.data.notes.append(f"{a[0]}:{a[1]} - {b[0]}:{b[1]}: {down}: no link")
            for end in (a, b):
                builder.absent[f"{end[0]}:{end[1]}"] = down
            continue
        try:
            length = path_length_m(connection.cables, builder.data.source)
        except SourceError as error:
            builder.problems.extend(error.problems)
            continue
        rank_a, rank_b = (ROLE_RANK[builder.nodes[end[0]].role] for end in (a, b))
        if (rank_b, natural_key(b[0])) < (rank_a, natural_key(a[0])):
            a, b = b, a
        found.append(
            _Link(
                a,
                b,
                length,
                _cable_comment(connection.cables),
                _who(builder, a, b, connection.cables),
            )
        )
    found.sort(key=lambda link: (natural_key(link.a[0]), natural_key(link.a[1])))
    return found


LIVE = "connected"  # NetBox and Nautobot's cable status of a cable in service


def _not_live(builder: _Builder, connection: Connection) -> str:
    """Why a path is no link although it ends at two imported ports ('' when it is one): a
    cable not connected (planned: not yet a link; decommissioning: soon none) or a port
    disabled. Such a path is left out, said on stderr and by --check."""
    for cable in connection.cables:
        if cable.status.lower() != LIVE:
            label = f" {cable.label!r}" if cable.label else ""
            return f"cable {cable.ref}{label} is {cable.status.lower()}"
    for end in (connection.a, connection.b):
        interface = builder.interfaces.get(end)
        if interface is not None and not interface.enabled:
            return f"{interface.ref} ({end[0]}:{end[1]}) is disabled"
    return ""


def _two_devices(builder: _Builder, connection: Connection) -> bool:
    """A path from a device back to itself is no link (a loop in the cabling data)."""
    a, b = connection.a, connection.b
    if a[0] != b[0]:
        return True
    what = "the same port" if a == b else f"{b[0]}:{b[1]}, a port of the same device"
    builder.problem(
        _refs_of(builder, a, connection.cables),
        f"the cable path from {a[0]}:{a[1]} ends at {what}: a link joins two devices",
    )
    return False


def _ends_once(
    builder: _Builder, connection: Connection, ends: dict[tuple[str, str], Connection]
) -> bool:
    """A port is the end of one cable path; two paths ending there contradict each other."""
    for end in (connection.a, connection.b):
        other = ends.get(end)
        if other is not None:
            cables = (*other.cables, *connection.cables)
            shared = sorted({c.ref for c in other.cables} & {c.ref for c in connection.cables})
            why = f" (through {', '.join(shared)})" if shared else ""
            builder.problem(
                _refs_of(builder, end, cables),
                f"{end[0]}:{end[1]} ends two cable paths (to {_far(other, end)} and to "
                f"{_far(connection, end)}){why}" + (BREAKOUT if shared else ""),
            )
            return False
    ends[connection.a] = ends[connection.b] = connection
    return True


# A breakout cable (one switch port to several NICs) is no link of the inventory, whose link
# joins one port to one port: said as an error, never a server dropped silently
BREAKOUT = (
    ": a breakout cable; the inventory joins one port to one port: model each split port "
    "as its own interface (Ethernet0, Ethernet4 ...), each cabled to one NIC"
)


def _far(connection: Connection, end: tuple[str, str]) -> str:
    far = connection.b if connection.a == end else connection.a
    return f"{far[0]}:{far[1]}"


def _refs_of(builder: _Builder, end: tuple[str, str], cables: Sequence[Cable]) -> str:
    """'dcim.interfaces 1001 (dcim.cables 5, 6)': an interface and cables, for an error."""
    interface = builder.interfaces.get(end)
    ref = interface.ref if interface else f"{end[0]}:{end[1]}"
    # sorted: the same path traced from either end is one problem
    ids = ", ".join(sorted({c.ref.rpartition(" ")[2] for c in cables}, key=natural_key))
    kind = cables[0].ref.rpartition(" ")[0] if cables else ""
    return f"{ref} ({kind} {ids})" if cables else ref


def _who(builder: _Builder, a: tuple[str, str], b: tuple[str, str], cables: Sequence[Cable]) -> str:
    """'dcim.interfaces 1001 and 1002 (cable dcim.cables 5)': a link's objects, for errors."""
    refs = [builder.interfaces[e].ref if e in builder.interfaces else _endpoint(e) for e in (a, b)]
    kind, _, _ = refs[0].rpartition(" ")
    kind_b, _, id_b = refs[1].rpartition(" ")
    ends = f"{refs[0]} and {id_b if kind and kind_b == kind else refs[1]}"
    ids = ", ".join(dict.fromkeys(c.ref.rpartition(" ")[2] for c in cables))
    noun = "cable" if len(cables) == 1 else "cables"
    return f"{ends} ({noun} {cables[0].ref.rpartition(' ')[0]} {ids})" if cables else ends


def _cable_comment(cables: Sequence[Cable]) -> str:
    """'dcim.cables 7 "C7": 30 m', or the cables of a path through patch panels."""
    kind = cables[0].ref.rsplit(" ", 1)[0]
    ids = [c.ref.rsplit(" ", 1)[-1] + (f" {c.label!r}" if c.label else "") for c in cables]
    lengths = [f"{_decimal_text(c.length)} {c.unit}" for c in cables]
    return f"{kind} {' + '.join(ids)}: {' + '.join(lengths)}"


def _decimal_text(value: Decimal | None) -> str:
    """200.0 -> '200', 0.10 -> '0.1'."""
    if value is None:
        return "none"
    text = format(value.normalize(), "f")
    return text


def _ports_and_nics(
    builder: _Builder, links: list[_Link]
) -> tuple[dict[str, list[Entry]], dict[str, list[Entry]]]:
    ports: dict[str, list[Entry]] = {}
    nics: dict[str, list[Entry]] = {}
    switch_speed: dict[tuple[str, str], str] = {}
    for link in links:  # switch ends first: a NIC without a speed takes its switch port's
        for end, other in ((link.a, link.b), (link.b, link.a)):
            if builder.nodes[end[0]].role != "server":
                entry = _port_entry(builder, end, builder.nodes[other[0]].role)
                if entry is not None:
                    ports.setdefault(end[0], []).append(entry)
                    switch_speed[end] = entry.settings.pop("_speed")
    for link in links:
        for end, other in ((link.a, link.b), (link.b, link.a)):
            if builder.nodes[end[0]].role == "server":
                entry = _nic_entry(builder, end, switch_speed.get(other))
                if entry is not None:
                    nics.setdefault(end[0], []).append(entry)
    return ports, nics


def _interface(builder: _Builder, end: tuple[str, str]) -> SourceInterface | None:
    interface = builder.interfaces.get(end)
    if interface is None:
        builder.problem(f"{end[0]}:{end[1]}", "a cable ends here but the interface is unknown")
        return None
    if not _PORT_RE.fullmatch(interface.name) or interface.name.endswith(":"):
        builder.problem(
            interface.ref,
            f"interface name {interface.name!r} cannot be an "
            "inventory port name (letters, digits, _ . / : - only)",
        )
        return None
    if not _printable_text(interface.description):
        builder.problem(
            interface.ref,
            f"{end[0]}:{end[1]}: description holds control or "
            "invisible characters or is longer than 200",
        )
        return None
    return interface


def _printable_text(text: str) -> bool:
    """The inventory schema's `text`: one line of at most 200 visible characters."""
    return len(text) <= 200 and not _HIDDEN_RE.search(text)


def _speed_text(builder: _Builder, interface: SourceInterface) -> str | None:
    if interface.speed_kbps is None or interface.speed_kbps <= 0:
        return None
    if interface.speed_kbps % 1000:
        builder.problem(interface.ref, f"speed {interface.speed_kbps} kbps is not whole Mb/s")
        return None
    return format_speed(interface.speed_kbps // 1000)


def _profile(builder: _Builder, role: str, peer_role: str, speed: str | None) -> str | None:
    for rule in builder.mapping.profile_rules:
        if rule.role not in (None, role) or rule.peer_role not in (None, peer_role):
            continue
        if rule.speed is not None and (
            speed is None or parse_speed(rule.speed) != parse_speed(speed)
        ):
            continue
        return rule.profile
    return None


def _device_mtu(builder: _Builder, device: str) -> int:
    """The MTU a port of the device inherits: device (tags) -> role -> fabric -> default."""
    node = builder.nodes[device]
    for policy in (
        node.entry.settings.get("policy", {}),
        builder.mapping.roles.get(node.role, {}).get("policy", {}),
        builder.mapping.fabric.get("policy", {}),
    ):
        if "mtu" in policy:
            return int(policy["mtu"])
    return DEFAULT_MTU


def _port_entry(builder: _Builder, end: tuple[str, str], peer_role: str) -> Entry | None:
    interface = _interface(builder, end)
    if interface is None:
        return None
    role = builder.nodes[end[0]].role
    speed = _speed_text(builder, interface)
    profile = _profile(builder, role, peer_role, speed)
    profile_settings = builder.mapping.port_profiles.get(profile, {}) if profile else {}
    settings: dict[str, Any] = {"profile": profile} if profile else {}
    comment = ""
    if speed is None:
        if "speed" not in profile_settings:
            builder.problem(
                interface.ref,
                f"{end[0]}:{end[1]} has no speed in "
                f"{builder.data.source} and no port profile gives one",
            )
            return None
        speed = profile_settings["speed"]
        comment += f"no speed in {builder.data.source}, {speed} from profile {profile}"
    else:
        comment += f"speed {interface.speed_kbps} kbps"
        if "speed" not in profile_settings or parse_speed(profile_settings["speed"]) != parse_speed(
            speed
        ):
            settings["speed"] = speed
    if interface.mtu is not None:
        comment += f", mtu {interface.mtu}"
        if interface.mtu != _device_mtu(builder, end[0]):
            settings["policy"] = {"mtu": interface.mtu}
    if interface.description and interface.description != profile_settings.get("description"):
        settings["description"] = interface.description
    settings["_speed"] = speed
    return _entry(end[1], settings, interface.ref, comment, sort_key=natural_key(end[1]))


def _nic_entry(builder: _Builder, end: tuple[str, str], switch_speed: str | None) -> Entry | None:
    interface = _interface(builder, end)
    if interface is None:
        return None
    speed = _speed_text(builder, interface)
    comment = ""
    if speed is None:
        if switch_speed is None:
            builder.problem(interface.ref, f"{end[0]}:{end[1]} has no speed")
            return None
        speed = switch_speed
        comment += f"no speed in {builder.data.source}, {speed} of its switch port"
    else:
        comment += f"speed {interface.speed_kbps} kbps"
    settings: dict[str, Any] = {"speed": speed}
    model = builder.nodes[end[0]].entry.settings.get("nic_model")
    if model:
        settings["model"] = model
    if interface.mtu is not None:
        settings["mtu"] = interface.mtu
        comment += f", mtu {interface.mtu}"
    if interface.description:
        settings["description"] = interface.description
    return _entry(end[1], settings, interface.ref, comment, sort_key=natural_key(end[1]))


# -- folding ranges -------------------------------------------------------------------------

_NUMBER_RE = re.compile(r"([0-9]+)")


def natural_key(name: str) -> tuple[Any, ...]:
    """Ethernet2 before Ethernet10: digits compare as numbers."""
    return tuple(
        (0, int(part), part) if part.isdigit() else (1, 0, part)
        for part in _NUMBER_RE.split(name)
        if part
    )


def _tokens(name: str) -> list[str]:
    return _NUMBER_RE.split(name)  # odd indexes are the numbers


def _range_name(names: Sequence[str], position: int) -> str | None:
    """names (differing only in the number at token `position`, in increasing order with one
    step) as one range name, if the inventory's ranges expand it back to exactly names."""
    tokens = _tokens(names[0])
    first, last = tokens[position], _tokens(names[-1])[position]
    step = int(_tokens(names[1])[position]) - int(first)
    if len(names) == 2 and step > 8:  # Ethernet[0:248:248] says less than two lines
        return None
    body = f"{first}:{last}" + (f":{step}" if step != 1 else "")
    folded = "".join(tokens[:position]) + f"[{body}]" + "".join(tokens[position + 1 :])
    try:
        return folded if expand(folded) == list(names) else None
    except RangeError:
        return None


def _runs(items: list[tuple[int, Entry]]) -> list[list[Entry]]:
    """Maximal runs with one step between consecutive numbers (items sorted by number)."""
    runs: list[list[Entry]] = []
    index = 0
    while index < len(items):
        run = [items[index]]
        if index + 1 < len(items):
            step = items[index + 1][0] - items[index][0]
            while (
                index + len(run) < len(items)
                and step > 0
                and items[index + len(run)][0] - run[-1][0] == step
            ):
                run.append(items[index + len(run)])
        runs.append([entry for _, entry in run])
        index += len(run)
    return runs


def _settings_key(entry: Entry) -> str:
    """Entries fold when their settings and their comment's detail are the same: a folded
    comment states its detail of every member."""
    return json.dumps([entry.settings, entry.detail], sort_keys=True, default=str)


def fold(entries: list[Entry], key: Callable[[Entry], str] = _settings_key) -> list[Entry]:
    """Entries with the same settings whose names differ in one number, stepping evenly,
    become one range entry (their comments joined); tried from the last number backwards."""
    done: list[Entry] = []
    pending = sorted(entries, key=lambda e: natural_key(e.name))
    max_numbers = max((len(_tokens(e.name)) // 2 for e in pending), default=0)
    for from_end in range(max_numbers):
        groups: dict[tuple[Any, ...], list[tuple[int, Entry]]] = {}
        left: list[Entry] = []
        for entry in pending:
            tokens = _tokens(entry.name)
            position = len(tokens) - 2 - 2 * from_end
            if position < 1:
                left.append(entry)
                continue
            rest = (*tokens[:position], *tokens[position + 1 :], key(entry), position)
            groups.setdefault(rest, []).append((int(tokens[position]), entry))
        for (*_, position), members in groups.items():
            for run in _runs(sorted(members, key=lambda m: m[0])):
                name = _range_name([e.name for e in run], position) if len(run) > 1 else None
                if name is None:
                    left.extend(run)
                else:
                    done.append(_joined(name, run))
        pending = left
    done.extend(pending)
    return sorted(done, key=lambda e: e.sort_key or natural_key(e.name))


def _joined(name: str, run: list[Entry]) -> Entry:
    ids = tuple(id_ for entry in run for id_ in entry.ids)
    first = run[0]
    order = first.sort_key or natural_key(first.name)
    return Entry(name, first.settings, first.kind, ids, first.detail, order)


def fold_servers(servers: list[tuple[Entry, list[Entry]]]) -> list[tuple[Entry, list[Entry]]]:
    """Servers with the same NICs become one range entry, each NIC's comment naming the
    interfaces of every server in it."""
    by_name = {entry.name: nics for entry, nics in servers}
    entries = [
        Entry(
            entry.name,
            {"nics": [(n.name, n.settings, n.detail) for n in nics]},
            entry.kind,
            entry.ids,
            entry.detail,
        )
        for entry, nics in servers
    ]
    out = []
    for entry in fold(entries):
        members = expand(entry.name) if "[" in entry.name else [entry.name]
        nics = [
            _joined(nic.name, [by_name[member][index] for member in members])
            for index, nic in enumerate(by_name[members[0]])
        ]
        out.append((entry, nics))
    return out


def fold_links(links: list[_Link]) -> list[Entry]:
    """Links with the same length whose a and b ends step together become one range link."""
    out: list[Entry] = []
    index = 0
    while index < len(links):
        run = [links[index]]
        while index + len(run) < len(links) and _extends(run, links[index + len(run)]):
            run.append(links[index + len(run)])
        out.append(_link_entry(run))
        index += len(run)
    return out


def _endpoint(end: tuple[str, str]) -> str:
    return f"{end[0]}:{end[1]}"


def _single_difference(first: str, second: str) -> tuple[int, int] | None:
    """(token position, step) when the names differ only in one number, else None."""
    a, b = _tokens(first), _tokens(second)
    if len(a) != len(b):
        return None
    differing = [i for i in range(len(a)) if a[i] != b[i]]
    if len(differing) != 1 or differing[0] % 2 == 0:
        return None
    step = int(b[differing[0]]) - int(a[differing[0]])
    return (differing[0], step) if step > 0 else None


def _extends(run: list[_Link], link: _Link) -> bool:
    last = run[-1]
    if link.cable_m != last.cable_m:
        return False
    a_step = _single_difference(_endpoint(last.a), _endpoint(link.a))
    b_step = _single_difference(_endpoint(last.b), _endpoint(link.b))
    if a_step is None or b_step is None:
        return False
    if len(run) == 1:
        return True
    return (a_step, b_step) == (
        _single_difference(_endpoint(run[0].a), _endpoint(run[1].a)),
        _single_difference(_endpoint(run[0].b), _endpoint(run[1].b)),
    )


def _link_entry(run: list[_Link]) -> Entry:
    a = [_endpoint(link.a) for link in run]
    b = [_endpoint(link.b) for link in run]
    if len(run) > 1:
        a_name = _range_name(a, _single_difference(a[0], a[1])[0])  # type: ignore[index]
        b_name = _range_name(b, _single_difference(b[0], b[1])[0])  # type: ignore[index]
        if a_name is None or b_name is None:  # never folds what does not expand back
            return _link_entry(run[:1])
        a, b = [a_name], [b_name]
    comment = "; ".join(link.comment for link in run)
    who = "; ".join(link.who for link in run)
    parts = tuple((f"{_endpoint(link.a)} {_endpoint(link.b)}", link.who) for link in run)
    settings = {"a": a[0], "b": b[0], "cable_m": run[0].cable_m}
    return Entry("", settings, "", (), comment, who=who, parts=parts)


# -- writing YAML ---------------------------------------------------------------------------

_PLAIN_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_./:-]*")
_NOT_PLAIN = {"true", "false", "yes", "no", "on", "off", "null", "y", "n"}


def scalar(value: Any) -> str:
    """A YAML scalar that reads back as value: plain where unambiguous, else JSON-quoted
    (ASCII with every control character escaped: a valid YAML double-quoted scalar)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, Decimal):
        return format(value, "f")
    if isinstance(value, int | float):
        return repr(value)
    text = str(value)
    if _PLAIN_RE.fullmatch(text) and text.lower() not in _NOT_PLAIN and not text.endswith(":"):
        return text
    return json.dumps(text)


def comment(text: str) -> str:
    """A comment that stays one comment: printable (no newline, no control character)."""
    return printable(text)[:300]


def flow(value: Any) -> str:
    if isinstance(value, dict):
        return "{" + ", ".join(f"{scalar(k)}: {flow(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(flow(v) for v in value) + "]"
    return scalar(value)


def block(value: dict[str, Any], indent: int) -> list[str]:
    """A mapping in block style down to the leaves, whose small mappings stay in flow style."""
    lines = []
    pad = " " * indent
    for key, item in value.items():
        if isinstance(item, dict) and item and any(isinstance(v, dict) for v in item.values()):
            lines.append(f"{pad}{scalar(key)}:")
            lines.extend(block(item, indent + 2))
        else:
            lines.append(f"{pad}{scalar(key)}: {flow(item)}")
    return lines


def _with_comment(line: str, note: str) -> str:
    return f"{line}  # {comment(note)}" if note else line


def inventory_text(imported: Imported) -> str:
    """The inventory's text (load_imported checks that it reads back as written)."""
    return _joined_lines(text_lines(imported))


def _joined_lines(lines: list[tuple[str, str]]) -> str:
    return "\n".join(line for line, _ in lines) + "\n"


def _who_of(imported: Imported, entry: Entry) -> str:
    who = entry.who or f"{entry.kind} {', '.join(entry.ids)}"
    return who if who.startswith(f"{imported.source} ") else f"{imported.source} {who}"


def text_lines(imported: Imported) -> list[tuple[str, str]]:
    """The lines of the inventory, each with the objects it came from ('' on a line that
    only belongs to the one above, like a device's settings)."""
    mapping = f"the mapping {imported.mapping_file}"
    lines = [(f"# {comment(line)}".rstrip(), "") for line in imported.header] + [("", "")]
    top = block({"fabric": imported.fabric}, 0)
    if imported.roles:
        top += ["", *block({"roles": imported.roles}, 0)]
    if imported.port_profiles:
        top += ["", "port_profiles:", *block(imported.port_profiles, 2)]
    lines += [(line, mapping) for line in top]
    lines += [("", ""), ("devices:", "")]
    for entry, ports in imported.devices:
        who = _who_of(imported, entry)
        lines.append((_with_comment(f"  {scalar(entry.name)}:", entry.comment), who))
        settings = dict(entry.settings)
        policy = settings.pop("policy", None)
        body = [f"    {scalar(k)}: {flow(v)}" for k, v in settings.items()]
        if policy:
            body += ["    policy:", *block(policy, 6)]
        lines += [(line, who) for line in body]
        if ports:
            lines.append(("    ports:", who))
            lines += _named_entries(imported, ports)
    if imported.servers:
        lines += [("", ""), ("servers:", "")]
        for entry, nics in imported.servers:
            who = _who_of(imported, entry)
            lines.append((_with_comment(f"  {scalar(entry.name)}:", entry.comment), who))
            lines.append(("    nics:", who))
            lines += _named_entries(imported, nics)
    if imported.links:
        lines += [("", ""), ("links:", "")]
        for link in imported.links:
            line = _with_comment(f"  - {flow(link.settings)}", link.comment)
            lines.append((line, _member_whos(imported, link)))
    return lines


def _named_entries(imported: Imported, entries: list[Entry]) -> list[tuple[str, str]]:
    """A device's ports or a server's NICs: `name: {settings}  # where from`, one a line."""
    return [
        (
            _with_comment(f"      {scalar(e.name)}: {flow(e.settings)}", e.comment),
            _who_of(imported, e),
        )
        for e in entries
    ]


def _member_whos(imported: Imported, link: Entry) -> str:
    """A link line's objects: per member of a folded link, 'ENDS\tWHO' lines, so that a
    problem naming two ends can be told by that member's objects alone."""
    if len(link.parts) < 2:
        return _who_of(imported, link)
    return "\n".join(f"{ends}\t{imported.source} {who}" for ends, who in link.parts)


@dataclass(frozen=True, order=True)
class ImportProblem(Problem):
    """A problem the inventory loader found in the generated text, told by the source objects
    (or the mapping) the offending line came from: the text was never written."""

    def __str__(self) -> str:
        where = f"{self.path}: " if self.path else ""
        return f"{self.file}: {where}{self.message} (nothing written)"


def _from_source(problem: Problem, lines: list[tuple[str, str]], generated: str) -> Problem:
    """The loader's problem at a line of the generated text as one naming its objects."""
    if problem.file != generated:
        return problem
    index = min(max(problem.line, 1), len(lines)) - 1
    while index > 0 and not lines[index][1]:
        index -= 1
    who = _member_named(lines[index][1], problem.message) or "the import"
    path = "" if problem.path.startswith("links") else problem.path  # the objects say which
    return ImportProblem(who, 0, 0, path, problem.message)


def _member_named(who: str, message: str) -> str:
    """The objects of the folded link members whose two ends the message names (all of
    them when it names none)."""
    if "\t" not in who:
        return who
    members = [line.split("\t") for line in who.splitlines()]
    named = [w for ends, w in members if all(end in message.split() for end in ends.split())]
    return "; ".join(named or [w for _, w in members])


def _loaded(load: Callable[[Path], Any], text: str, lines: list[tuple[str, str]], name: str) -> Any:
    """load(a temporary file holding text); its problems told by their source objects."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / name
        path.write_text(text, encoding="utf-8")
        try:
            return load(path)
        except InputError as error:
            raise InputError([_from_source(p, lines, str(path)) for p in error.problems]) from None


def expected_data(imported: Imported) -> dict[str, Any]:
    """The data inventory_text must read back as."""
    data: dict[str, Any] = {"fabric": imported.fabric}
    if imported.roles:
        data["roles"] = imported.roles
    if imported.port_profiles:
        data["port_profiles"] = imported.port_profiles
    data["devices"] = {
        entry.name: {
            **entry.settings,
            **({"ports": {p.name: p.settings for p in ports}} if ports else {}),
        }
        for entry, ports in imported.devices
    }
    if imported.servers:
        data["servers"] = {
            entry.name: {"nics": {n.name: n.settings for n in nics}}
            for entry, nics in imported.servers
        }
    if imported.links:
        data["links"] = [dict(link.settings) for link in imported.links]
    return json.loads(json.dumps(data, default=_number))


def _number(value: Any) -> Any:
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    raise TypeError(type(value).__name__)


def _read_back(path: Path, imported: Imported) -> Inventory:
    """The written text read once: it must hold what was imported (else a bug of ours,
    never the source's text), then through the inventory loader."""
    document = load_yaml(path)
    if document.data != expected_data(imported):
        raise AssertionError("the imported inventory does not read back as written")
    return inventory_from_document(document)


def load_imported(imported: Imported, text: str) -> Inventory:
    """The imported text read back as written and through the inventory loader (schema,
    references, defaults); a problem names the source objects (or the mapping) of its line,
    never the text's."""
    inventory: Inventory = _loaded(
        lambda path: _read_back(path, imported), text, text_lines(imported), "imported.yaml"
    )
    return inventory


# -- drift ----------------------------------------------------------------------------------


def removed_outside(imported: Imported, source: Inventory, written: Inventory) -> list[str]:
    """The ports, NICs and links of the written inventory the import would remove only because
    their other end is left out of it (--filter role=leaf keeps the leaves, not their peers):
    a scheduled sync must not open a pull request deleting them."""
    removed = []
    for noun, facts_of in FACTS[1:]:
        theirs = facts_of(source)
        for key in sorted(set(facts_of(written)) - set(theirs), key=natural_key):
            if any(end in imported.outside for end in key.split(" - ")):
                removed.append(f"{noun} {key}")
    return removed


def _facts_of_devices(inventory: Inventory) -> dict[str, dict[str, Any]]:
    return {
        name: {
            "role": d.role,
            "os": d.os,
            "asic": d.asic.name,
            "platform": d.platform,
            "mgmt": d.mgmt,
            "gearbox_delay_ns": d.gearbox_delay_ns,
            "policy": d.policy,
        }
        for name, d in inventory.devices.items()
    }


def _facts_of_ports(inventory: Inventory) -> dict[str, dict[str, Any]]:
    return {
        f"{name}:{port.name}": {
            "speed": format_speed(port.speed_mbps),
            "lanes": port.lanes,
            "mtu": port.policy.mtu,
            "description": port.description,
            "ecn": port.policy.ecn,
            "pfc_watchdog": port.policy.pfc_watchdog,
        }
        for name, device in inventory.devices.items()
        for port in device.ports.values()
    }


def _facts_of_nics(inventory: Inventory) -> dict[str, dict[str, Any]]:
    return {
        f"{name}:{nic.name}": {
            "speed": format_speed(nic.speed_mbps),
            "model": nic.model,
            "host": nic.host,
        }
        for name, server in inventory.servers.items()
        for nic in server.nics.values()
    }


def _facts_of_links(inventory: Inventory) -> dict[str, dict[str, Any]]:
    facts = {}
    for link in inventory.links:
        ends = sorted((str(link.a), str(link.b)), key=natural_key)
        facts[" - ".join(ends)] = {"cable_m": link.cable_m}
    return facts


FACTS = (
    ("device", _facts_of_devices),
    ("port", _facts_of_ports),
    ("NIC", _facts_of_nics),
    ("link", _facts_of_links),
)


def drift(
    source: Inventory, written: Inventory, source_name: str, absent: dict[str, str] | None = None
) -> list[str]:
    """What differs between the inventory the source gives and the one written, per device,
    port, NIC and link: one line each, sorted; empty when they state the same facts. `absent`
    ("device:port" -> why) says why the source has no link where a cable ends (status)."""
    lines: list[str] = []
    absent = absent or {}
    for noun, facts_of in FACTS:
        ours, theirs = facts_of(written), facts_of(source)
        for key in sorted(set(ours) | set(theirs), key=natural_key):
            if key not in ours:
                lines.append(f"{noun} {key}: in {source_name}, not in the inventory")
            elif key not in theirs:
                why = next((absent[e] for e in key.split(" - ") if e in absent), "")
                lines.append(
                    f"{noun} {key}: in the inventory, not in {source_name}"
                    + (f" ({why})" if why else "")
                )
            else:
                lines += _fact_lines(noun, key, ours[key], theirs[key], source_name)
    return lines


# facts whose values the mapping gives (the rest come from the source)
FROM_MAPPING = frozenset({"policy", "ecn", "pfc_watchdog"})


def _fact_lines(
    noun: str, key: str, ours: dict[str, Any], theirs: dict[str, Any], source_name: str
) -> list[str]:
    """One line per differing value, with both: a policy or the host settings of a NIC
    compared leaf by leaf ('policy.roce.data.dscp 24 in the inventory, 26 from the mapping')."""
    lines = []
    for name in ours:
        where = "from the mapping" if name in FROM_MAPPING else f"in {source_name}"
        mine, other = _leaves(ours[name], name), _leaves(theirs[name], name)
        for leaf in sorted(set(mine) | set(other), key=natural_key):
            if mine.get(leaf) != other.get(leaf):
                lines.append(
                    f"{noun} {key}: {leaf} {_shown(mine.get(leaf))} in the inventory, "
                    f"{_shown(other.get(leaf))} {where}"
                )
    return lines


def _leaves(value: Any, path: str) -> dict[str, Any]:
    """{'policy.roce.data.dscp': 26, ...}: the scalars of a policy, dict or list."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        value = {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        leaves: dict[str, Any] = {}
        for name, item in value.items():
            leaves.update(_leaves(item, f"{path}.{name}"))
        return leaves
    if isinstance(value, list | tuple) and any(
        isinstance(v, dict | list | tuple) or dataclasses.is_dataclass(v) for v in value
    ):
        leaves = {}
        for index, item in enumerate(value):
            leaves.update(_leaves(item, f"{path}[{index}]"))
        return leaves
    if isinstance(value, list | tuple):
        return {path: ", ".join(_shown(v) for v in value)}
    return {path: value}


def _shown(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:g}"
    return "none" if value is None else str(value)
