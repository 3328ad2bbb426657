"""Read a fabric from Nautobot's GraphQL API as `SourceData`.

`POST /api/graphql/` with `{"query": ..., "variables": ...}` and the header `Authorization:
Token <token>` (Nautobot 2.x, https://docs.nautobot.com/projects/core/en/stable/user-guide/
platform-functionality/graphql/ and .../rest-api/authentication/): the devices of the filter
(`location`, `role`, `tags`, `tenant`: the DeviceFilterSet's names) with their interfaces, and
every cable, front port and rear port, from which the path of each cable through patch panels
is followed here (front port -> its rear port at a position -> the rear port's cable -> the
front port at that position on the far panel ...), as NetBox's trace does. Nautobot 2.x names
roles, platforms, device types (`model`) and tags; it has no slugs, so the mapping's keys are
those names.

Pages: every list takes `limit` and `offset` (GraphQL pagination, Nautobot 1.3 release notes,
#1109). The first query asks for the first page of the four lists; the next asks, at the next
offset, only for the lists whose last page was full, until none is.

Interface `speed` (kbps) exists from Nautobot 2.4.22 on. An older Nautobot answers the query
with "Cannot query field 'speed'": the query is sent again without it, and every port takes
its speed from its port profile (each comment says so). Choice values may come back as
GraphQL enum names (`M`, `FT`): they are read case-insensitively.
"""

from __future__ import annotations

from typing import Any, NoReturn

import requests

from lossless.errors import UsageError
from lossless.importers.inventory_yaml import (
    BREAKOUT,
    Cable,
    Connection,
    SourceData,
    SourceDevice,
    SourceError,
    SourceInterface,
    SourceProblem,
    decimal_or_none,
)
from lossless.importers.netbox import base_url
from lossless.importers.session import MAX_PAGES, ImportSession, http_session
from lossless.text.printable import printable

# --filter KEY -> the DeviceFilterSet argument of Nautobot's `devices` query
FILTER_ARGUMENTS = {
    "site": "location",
    "location": "location",
    "role": "role",
    "tag": "tags",
    "tenant": "tenant",
}
MAX_HOPS = 64  # panels on one path; a loop in the cabling data ends here
PAGE_SIZE = 1000  # objects per list and query (Nautobot's default MAX_PAGE_SIZE)
LISTS = ("devices", "cables", "front_ports", "rear_ports")

_FIELDS = {
    "devices": """{{
    id name
    role {{ name }}
    device_type {{ model }}
    platform {{ name }}
    primary_ip4 {{ address }}
    tags {{ name }}
    interfaces {{ id name {speed}mtu description mgmt_only enabled }}
  }}""",
    "cables": """{{
    id label length length_unit status {{ name }}
    {ends}
  }}""",
    "front_ports": "{{ id name device {{ name }} rear_port {{ id }} rear_port_position }}",
    "rear_ports": "{{ id name device {{ name }} }}",
}


# A cable's ends, per major version. 2.x: `termination_a_type` is a String ("dcim.interface",
# CableType.resolve_termination_a_type) beside `termination_a_id`. 3.x keeps that String but
# drops termination_a_id: a cable's ends are rows of CableToCableTermination, the cable's
# `terminations` (cable_end "A"/"B", connector 1.., one of interface, front_port, rear_port);
# a breakout cable has several connectors on a side (nautobot/dcim/models/cables.py, 3.x).
CABLE_ENDS = {
    2: "termination_a_type termination_a_id termination_b_type termination_b_id",
    3: "terminations {{ cable_end connector interface {{ id }} front_port {{ id }} "
    "rear_port {{ id }} }}",
}


def fabric_query(
    filters: dict[str, list[str]],
    speed: bool = True,
    lists: tuple[str, ...] = LISTS,
    page: tuple[int, int] | None = None,
    major: int = 3,
) -> tuple[str, dict[str, Any]]:
    """The GraphQL query and its variables for `lists`, the devices filtered; with `page`
    (limit, offset), one page of each; cables' ends as Nautobot `major` serves them."""
    variables: dict[str, Any] = {}
    for key, values in filters.items():
        variables.setdefault(FILTER_ARGUMENTS[key], []).extend(values)
    names = sorted(variables)
    declared = [f"${name}: [String]" for name in names]
    paging = []
    if page is not None:
        declared += ["$limit: Int", "$offset: Int"]
        paging = ["limit: $limit", "offset: $offset"]
        variables["limit"], variables["offset"] = page
    parts = []
    for name in lists:
        arguments = paging + ([f"{n}: ${n}" for n in names] if name == "devices" else [])
        call = f"{name}({', '.join(arguments)})" if arguments else name
        fields = _FIELDS[name].replace("{ends}", CABLE_ENDS[min(max(major, 2), 3)])
        parts.append(f"  {call} " + fields.format(speed="speed " if speed else ""))
    header = f"query LosslessFabric({', '.join(declared)})" if declared else "query LosslessFabric"
    return header + " {\n" + "\n".join(parts) + "\n}\n", variables


def read_nautobot(
    url: str,
    token: str,
    filters: dict[str, list[str]],
    session: ImportSession | None = None,
    page_size: int = PAGE_SIZE,
) -> SourceData:
    base = base_url(url, "Nautobot")
    session = session or http_session()
    session.bind("Nautobot", base, token)
    major = _major_version(session, base, token)
    data, has_speed = _read_pages(session, base, token, filters, page_size, major)
    try:
        return _source(data, base, has_speed)
    except (KeyError, TypeError, ValueError, AttributeError) as error:
        raise UsageError(
            f"Nautobot at {base} answered in a shape lossless does not know "
            f"({type(error).__name__}: {str(error)[:80]}): is it Nautobot 2.x?"
        ) from None


def _read_pages(
    session: requests.Session,
    base: str,
    token: str,
    filters: dict[str, list[str]],
    page_size: int,
    major: int,
) -> tuple[dict[str, list[Any]], bool]:
    """Every page of the four lists, and whether interfaces have `speed`: a Nautobot before
    2.4.22 refuses the first query, which is asked again without it."""
    speed = True
    data: dict[str, list[Any]] = {name: [] for name in LISTS}
    open_lists: tuple[str, ...] = LISTS
    for number in range(MAX_PAGES):
        page = (page_size, number * page_size)
        query = fabric_query(filters, speed, open_lists, page, major)
        answer = _ask(session, base, token, query, speed)
        if answer is None:  # no interface speed in this Nautobot
            speed = False
            query = fabric_query(filters, False, open_lists, page, major)
            answer = _ask(session, base, token, query)
        if answer is None:
            raise UsageError(f"Nautobot at {base} refused the query")
        full = []
        for name in open_lists:
            items = answer.get(name)
            if not isinstance(items, list):
                raise UsageError(f"Nautobot at {base} answered without a list of {name}")
            if len(items) > page_size:
                raise UsageError(
                    f"Nautobot at {base} answered {len(items)} {name} for a page of "
                    f"{page_size}: it ignores GraphQL pagination (Nautobot 1.3 or later has it)"
                )
            data[name].extend(items)
            if len(items) == page_size:
                full.append(name)
        open_lists = tuple(full)
        if not open_lists:
            return data, speed
    raise UsageError(
        f"Nautobot at {base} has more than {MAX_PAGES} pages of {', '.join(open_lists)} "
        f"({page_size} per page): narrow it with --filter or raise --page-size"
    )


def _send(
    session: requests.Session, method: str, url: str, token: str, body: Any = None
) -> tuple[requests.Response, Any]:
    """One request to Nautobot and its JSON answer (None: not JSON); the connection failing or
    the token refused is a usage error."""
    headers = {"Authorization": f"Token {token}", "Accept": "application/json"}
    base = url.split("/api/", 1)[0]
    try:
        response = session.request(method, url, json=body, headers=headers)
    except requests.RequestException as error:
        raise UsageError(f"cannot reach Nautobot at {base}: {type(error).__name__}") from None
    if response.status_code in (401, 403):
        raise UsageError(f"Nautobot refused the token (HTTP {response.status_code})")
    try:
        return response, response.json()
    except ValueError:
        return response, None


def _major_version(session: requests.Session, base: str, token: str) -> int:
    """The server's major version, from `GET /api/status/` (`"nautobot-version": "3.2.7"`):
    the cables' ends are asked for as that version serves them."""
    response, answer = _send(session, "GET", f"{base}/api/status/", token)
    version = answer.get("nautobot-version") if isinstance(answer, dict) else None
    major = str(version).split(".")[0] if isinstance(version, str) else ""
    if not major.isascii() or not major.isdigit() or len(major) > 3:
        raise UsageError(
            f"Nautobot at {base} answered /api/status/ (HTTP {response.status_code}) without "
            "its nautobot-version: is --url the Nautobot address?"
        )
    if int(major) < 2:
        raise UsageError(
            f"Nautobot at {base} is {printable(str(version))[:20]}: lossless reads 2.0 and later"
        )
    return int(major)


def _ask(
    session: requests.Session,
    base: str,
    token: str,
    request: tuple[str, dict[str, Any]],
    speed: bool = False,
) -> dict[str, Any] | None:
    """The answer's data; None when a query with speed meets a Nautobot without it."""
    query, variables = request
    body = {"query": query, "variables": variables}
    response, answer = _send(session, "POST", f"{base}/api/graphql/", token, body)
    if not isinstance(answer, dict):
        raise UsageError(
            f"Nautobot at {base} answered HTTP {response.status_code} without GraphQL JSON: "
            "is --url the Nautobot address?"
        )
    errors = answer.get("errors") or []
    if errors:
        if not isinstance(errors, list):
            errors = [errors]
        messages = "; ".join(
            str(e.get("message", e) if isinstance(e, dict) else e)[:200] for e in errors if e
        )
        if speed and "speed" in messages:
            return None
        raise UsageError(f"Nautobot refused the query: {messages[:400]}")
    if not isinstance(answer.get("data"), dict):
        raise UsageError(f"Nautobot at {base} answered HTTP {response.status_code} with no data")
    return dict(answer["data"])


def _name(value: Any) -> str | None:
    return str(value["name"]) if isinstance(value, dict) and value.get("name") else None


def _number(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _source(data: dict[str, Any], base: str, has_speed: bool) -> SourceData:
    devices, interfaces = [], []
    for item in data["devices"] or []:
        primary = item.get("primary_ip4")
        address = primary.get("address") if isinstance(primary, dict) else None
        device_type = item.get("device_type") or {}
        devices.append(
            SourceDevice(
                ref=f"dcim.devices {item['id']}",
                name=str(item["name"] or ""),
                role=_name(item.get("role")) or "",
                device_type=str(device_type.get("model") or ""),
                model=str(device_type["model"]) if device_type.get("model") else None,
                platform=_name(item.get("platform")),
                mgmt=str(address).split("/")[0] if address else None,
                tags=tuple(sorted(str(tag["name"]) for tag in item.get("tags") or [])),
            )
        )
        for interface in item.get("interfaces") or []:
            if interface.get("mgmt_only"):
                continue
            interfaces.append(
                SourceInterface(
                    ref=f"dcim.interfaces {interface['id']}",
                    device=str(item["name"]),
                    name=str(interface["name"]),
                    speed_kbps=_number(interface.get("speed")),
                    mtu=_number(interface.get("mtu")),
                    description=str(interface.get("description") or ""),
                    enabled=interface.get("enabled") is not False,
                )
            )
    source = SourceData("Nautobot", base, devices, interfaces, [], has_speed=has_speed)
    if not has_speed:
        source.notes.append(
            "this Nautobot has no interface speed (before 2.4.22): port speeds "
            "come from the mapping's port profiles"
        )
    _Paths(data, interfaces, source).connect()
    return source


# a 3.x termination row's field per content type of the 2.x fields
TERMINATION_FIELDS = {
    "interface": "dcim.interface",
    "front_port": "dcim.frontport",
    "rear_port": "dcim.rearport",
}


def _ends(cable: dict[str, Any]) -> tuple[list[End], list[End]]:
    """A cable's A and B ends (content type, id), from 2.x's termination_a_type and _id or
    3.x's terminations (in connector order; other kinds, a circuit, end the path)."""
    if "terminations" not in cable:
        return (
            [(_kind(cable["termination_a_type"]), str(cable["termination_a_id"]))],
            [(_kind(cable["termination_b_type"]), str(cable["termination_b_id"]))],
        )
    sides: dict[str, list[tuple[int, End]]] = {"A": [], "B": []}
    for row in cable["terminations"] or []:
        for name, kind in TERMINATION_FIELDS.items():
            if isinstance(row.get(name), dict):
                end = (kind, str(row[name]["id"]))
                sides[str(row.get("cable_end", "")).upper()].append(
                    (_number(row.get("connector")) or 1, end)
                )
    return tuple([end for _, end in sorted(ends)] for ends in sides.values())  # type: ignore[return-value]


def _kind(value: Any) -> str:
    """'dcim.interface' from a content type object or string."""
    if isinstance(value, dict):
        return f"{value.get('app_label')}.{value.get('model')}"
    return str(value)


def _unit(value: Any) -> str | None:
    """A length unit as Nautobot's GraphQL gives it: the value ('m') or its enum name ('M')."""
    if value in (None, ""):
        return None
    return str(value).lower().removeprefix("a_")


End = tuple[str, str]  # (content type, id)


class _Paths:
    """Cable paths between the interfaces of the query, through front and rear ports."""

    def __init__(self, data: dict[str, Any], interfaces: list[SourceInterface], source: SourceData):
        self.source = source
        self.interfaces: dict[str, tuple[str, str]] = {
            i.ref.split(" ", 1)[1]: (i.device, i.name) for i in interfaces
        }
        self.names: dict[End, str] = {}
        self.front: dict[str, tuple[str, int]] = {}  # front port -> (rear port, position)
        self.front_at: dict[tuple[str, int], str] = {}  # (rear port, position) -> front port
        for port in data.get("front_ports") or []:
            rear = str((port.get("rear_port") or {}).get("id"))
            position = _number(port.get("rear_port_position")) or 1
            self.front[str(port["id"])] = (rear, position)
            self.front_at[(rear, position)] = str(port["id"])
            self.names[("dcim.frontport", str(port["id"]))] = _port_name(port)
        for port in data.get("rear_ports") or []:
            self.names[("dcim.rearport", str(port["id"]))] = _port_name(port)
        for key, (device, name) in self.interfaces.items():
            self.names[("dcim.interface", key)] = f"{device}:{name}"
        self.cables: dict[End, tuple[dict[str, Any], End]] = {}
        for cable in data.get("cables") or []:
            a, b = _ends(cable)
            if len(a) > 1 or len(b) > 1:
                self._breakout(cable, a, b)
            if a and b:
                self.cables[a[0]], self.cables[b[0]] = (cable, b[0]), (cable, a[0])

    def _breakout(self, cable: dict[str, Any], a: list[End], b: list[End]) -> NoReturn:
        """A cable with several connectors on a side (3.x breakout) is no link: an error
        naming it and every end, never servers dropped silently."""
        label = f" ({str(cable['label'])!r})" if cable.get("label") else ""
        ends = " to ".join(", ".join(self.names.get(e, "?") for e in side) for side in (a, b))
        raise SourceError(
            [SourceProblem("Nautobot", 0, 0, f"dcim.cables {cable['id']}{label}",
                           f"joins {ends}{BREAKOUT}")]
        )  # fmt: skip

    def connect(self) -> None:
        done: set[str] = set()
        for key in sorted(self.interfaces):
            start: End = ("dcim.interface", key)
            if key in done or start not in self.cables:
                continue
            far, cables = self.follow(start)
            done.add(key)
            if far is not None and far[0] == "dcim.interface" and far[1] not in self.interfaces:
                self.source.outside.add(self.interfaces[key])  # its peer is not imported
            if far is None or far[0] != "dcim.interface" or far[1] not in self.interfaces:
                self.source.notes.append(
                    f"{self.names[start]}: its cable path does not end at an imported "
                    "interface: no link"
                )
                continue
            done.add(far[1])
            self.source.connections.append(
                Connection(self.interfaces[key], self.interfaces[far[1]], tuple(cables))
            )

    def follow(self, start: End) -> tuple[End | None, list[Cable]]:
        """The interface at the other end of the path and the cables on the way."""
        cables: list[Cable] = []
        positions: list[int] = []
        here = start
        for _ in range(MAX_HOPS):
            if here not in self.cables:
                return None, cables
            cable, there = self.cables[here]
            if any(c.ref == f"dcim.cables {cable['id']}" for c in cables):
                self._loop(start, "passes this cable twice", cable)
            cables.append(self._cable(cable, here, there))
            if there[0] == "dcim.interface":
                return there, cables
            leave = self._through_panel(there, positions)
            if leave is None:
                return None, cables
            here = leave
        self._loop(start, f"passes more than {MAX_HOPS} cables", cable)

    def _loop(self, start: End, what: str, cable: dict[str, Any]) -> NoReturn:
        """A loop in the cabling data is an error naming the cable, never a guessed length."""
        raise SourceError(
            [
                SourceProblem(
                    "Nautobot",
                    0,
                    0,
                    f"dcim.cables {cable['id']}",
                    f"the cable path from {self.names.get(start, '?')} {what}: "
                    "a loop in the cabling data",
                )
            ]
        )

    def _through_panel(self, arrived: End, positions: list[int]) -> End | None:
        """Where a path that arrived at a front or rear port leaves its panel."""
        if arrived[0] == "dcim.frontport" and arrived[1] in self.front:
            rear, position = self.front[arrived[1]]
            positions.append(position)
            return ("dcim.rearport", rear)
        if arrived[0] == "dcim.rearport":
            position = positions.pop() if positions else 1
            front = self.front_at.get((arrived[1], position))
            return ("dcim.frontport", front) if front else None
        return None

    def _cable(self, cable: dict[str, Any], near: End, far: End) -> Cable:
        status = _name(cable.get("status"))
        if status is None:  # every cable has one: a token without view on statuses reads none
            raise SourceError(
                [
                    SourceProblem(
                        "Nautobot",
                        0,
                        0,
                        f"dcim.cables {cable['id']}",
                        "its status is not readable (a planned cable is no link): give the "
                        "token view permission on extras.status",
                    )
                ]
            )
        return Cable(
            ref=f"dcim.cables {cable['id']}",
            label=str(cable.get("label") or ""),
            length=decimal_or_none(cable.get("length")),
            unit=_unit(cable.get("length_unit")),
            ends=(self.names.get(near, "?"), self.names.get(far, "?")),
            status=status,
        )


def _port_name(port: dict[str, Any]) -> str:
    return f"{_name(port.get('device')) or '?'}:{port.get('name', '?')}"
