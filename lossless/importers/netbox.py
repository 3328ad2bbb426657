"""Read a fabric from NetBox's REST API (through pynetbox) as `SourceData`.

Requests, per the NetBox REST API (https://netboxlabs.com/docs/netbox/en/stable/integrations/
rest-api/; the OpenAPI schema every NetBox serves at /api/schema/), written for NetBox 4.x:

* `GET /api/dcim/devices/?site=..&role=..&tag=..` — the devices (role, device_type, platform,
  primary_ip4, tags), paginated by pynetbox (offset pagination: `limit`, `offset`, `next`);
* `GET /api/dcim/interfaces/?device_id=..&cabled=true` — their cabled interfaces (`speed` in
  kbps, `mtu`, `description`), 50 devices a request;
* `GET /api/dcim/interfaces/{id}/trace/` — the cable path (NetBox `PathEndpointMixin.trace`):
  a list of `[near-end terminations, cable, far-end terminations]`, one per cable, through
  front and rear ports of patch panels; the cable is NetBox's `TracedCableSerializer` (`id`,
  `label`, `type`, `length`, `length_unit`). One trace per connection: the far end found is
  not traced again; TRACE_WORKERS traces are in flight at once.

Every request goes through session.py's session (Nautobot's too: the token sent to --url's
origin only, a deadline, retries, a size cap). A page's `next` link is followed on --url's
scheme, host and port whatever it names (a NetBox behind a TLS proxy writes http:// links;
one naming another host would take the token there), and a list whose links come back to a
page read already, or run past MAX_PAGES pages, is refused. A 401/403 says NetBox refused
the token; the token itself (read from the environment variable --token-env names) is
never printed, logged or put in a URL.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any, NoReturn
from urllib.parse import urlsplit, urlunsplit

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
from lossless.importers.session import MAX_PAGES, ImportSession, http_session
from lossless.text.printable import printable

DEVICES_PER_REQUEST = 50
# Traces are one request per link (NetBox has no bulk trace) and a real NetBox takes tens of
# ms for one: this many in flight at once
TRACE_WORKERS = 8
PAGE_SIZE = 1000  # NetBox's default MAX_PAGE_SIZE
FILTER_KEYS = ("site", "role", "tag", "location", "tenant")


def base_url(url: str, source: str) -> str:
    """The server's address without a trailing slash, path /api or credentials."""
    try:
        parts = urlsplit(url.strip())
        parts.port  # noqa: B018 - raises ValueError for a port that is not a number
    except ValueError as error:  # 'https://[::1' (an unclosed IPv6 address), a bad port
        raise UsageError(f"--url {url!r} is not a URL ({error})") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise UsageError(
            f"--url {url!r}: give the {source} address, e.g. https://{source.lower()}.example.com"
        )
    if parts.username or parts.password or parts.query or parts.fragment:
        raise UsageError(f"--url: give the {source} address only (no user, password or query)")
    path = parts.path.rstrip("/").removesuffix("/api")
    return urlunsplit((parts.scheme, parts.netloc, path, "", ""))


def parse_filters(items: list[str], keys: tuple[str, ...] = FILTER_KEYS) -> dict[str, list[str]]:
    """--filter KEY=VALUE (repeatable) as {key: [values]}."""
    filters: dict[str, list[str]] = {}
    for item in items:
        key, equals, value = item.partition("=")
        if not equals or not value or key not in keys:
            raise UsageError(f"--filter {item!r}: give KEY=VALUE with KEY one of {', '.join(keys)}")
        filters.setdefault(key, []).append(value)
    return filters


def read_netbox(
    url: str,
    token: str,
    filters: dict[str, list[str]],
    session: ImportSession | None = None,
    page_size: int = PAGE_SIZE,
) -> SourceData:
    """Devices, interfaces and traced connections of the fabric; UsageError when NetBox cannot
    be reached or refuses the token."""
    try:
        import pynetbox
        from pynetbox.core.query import ContentError, Request, RequestError
    except ImportError:
        from lossless.system.origin import direct_url, install_extra_command

        raise UsageError(
            "lossless import netbox needs pynetbox: "
            + install_extra_command("netbox", direct_url())
        ) from None
    base = base_url(url, "NetBox")
    api = pynetbox.api(base, token=token)
    session = session or http_session()
    session.bind("NetBox", base, token)

    def get(path: str, query: dict[str, Any] | None = None, limit: int | None = None) -> Any:
        request = Request(
            base=f"{api.base_url}/{path}",
            http_session=_Pages(session, path),
            filters=query,
            limit=limit,
            token=token,
        )
        return request.get()

    try:
        return _read(get, base, filters, page_size)
    except RequestError as error:
        raise UsageError(_refusal(error.req, base)) from None
    except ContentError:
        raise UsageError(f"{base} is not a NetBox API: its answer is not JSON") from None
    except requests.RequestException as error:
        raise UsageError(f"cannot reach NetBox at {base}: {type(error).__name__}") from None
    except (KeyError, TypeError, ValueError, AttributeError) as error:
        raise UsageError(
            f"NetBox at {base} answered in a shape lossless does not know ({type(error).__name__}:"
            f" {str(error)[:80]}): is it NetBox 3.3 or later?"
        ) from None


class _Pages:
    """What pynetbox's Request sends one list's requests through (its `http_session`): each
    page on --url's origin, and no page twice nor more than MAX_PAGES of them."""

    def __init__(self, session: ImportSession, path: str):
        self.session, self.path = session, path
        self.asked: set[str] = set()

    def get(self, url: str, **kwargs: Any) -> Any:
        url = self.session.on_origin(url)
        prepared = requests.Request("GET", url, params=kwargs.get("params")).prepare()
        parts = urlsplit(str(prepared.url))
        page = f"{parts.path}?{'&'.join(sorted(parts.query.split('&')))}"  # in any order
        if page in self.asked:
            raise UsageError(
                f"NetBox at {self.session.base}: the pages of {self.path} link back to one "
                f"read already ({page}): a loop"
            )
        if len(self.asked) == MAX_PAGES:
            raise UsageError(
                f"NetBox at {self.session.base} has more than {MAX_PAGES} pages of "
                f"{self.path}: narrow it with --filter or raise --page-size"
            )
        self.asked.add(page)
        return self.session.get(url, **kwargs)


def _refusal(response: Any, base: str) -> str:
    code = response.status_code
    path = urlsplit(response.url).path
    if code in (401, 403):
        return f"NetBox refused the token (HTTP {code}); check it and its permissions"
    if code == 404:
        return f"NetBox at {base} has no {path} (HTTP 404): is --url the NetBox address?"
    return f"NetBox at {base} answered HTTP {code} for {path}" + _reason(response)


MAX_REASON = 300


def _reason(response: Any) -> str:
    """': site: Select a valid choice...' from the JSON NetBox answers a bad request (400)
    with ({"site": ["Select a valid choice. nosuch is not one of the available choices."]}),
    printable and bounded; '' for any other body."""
    try:
        body = response.json()
    except ValueError:
        return ""
    if isinstance(body, dict):
        parts = [
            f"{key}: {' '.join(map(str, value)) if isinstance(value, list) else value}"
            for key, value in body.items()
        ]
        text = "; ".join(parts)
    elif isinstance(body, list):
        text = "; ".join(map(str, body))
    else:
        return ""
    text = printable(text)
    return f": {text[:MAX_REASON]}" + ("..." if len(text) > MAX_REASON else "") if text else ""


Getter = Callable[..., Iterator[Any]]


def _read(get: Getter, base: str, filters: dict[str, list[str]], page_size: int) -> SourceData:
    query = {key: values for key, values in filters.items()}
    raw_devices = list(get("dcim/devices", query, page_size))
    devices = [_device(item) for item in raw_devices]
    interfaces: dict[int, dict[str, Any]] = {}
    ids = sorted(int(item["id"]) for item in raw_devices)
    for start in range(0, len(ids), DEVICES_PER_REQUEST):
        batch = ids[start : start + DEVICES_PER_REQUEST]
        for item in get("dcim/interfaces", {"device_id": batch, "cabled": "true"}, page_size):
            interfaces[int(item["id"])] = item
    data = SourceData("NetBox", base, devices, [_interface(i) for i in interfaces.values()], [])
    candidates = [i for i in sorted(interfaces) if not interfaces[i].get("mgmt_only")]

    def trace(interface_id: int) -> list[Any]:
        return list(get(f"dcim/interfaces/{interface_id}/trace"))

    traced: set[int] = set()

    def take(interface_id: int, path: list[Any]) -> None:
        if interface_id in traced:  # the far end of a path traced already: listed wrong
            return
        connection, far_id = _connection(path, data)
        traced.add(interface_id)
        if far_id is not None:
            traced.add(far_id)
        if connection is not None:
            data.connections.append(connection)

    # Those a trace one at a time asks for (the far end NetBox lists with an interface,
    # `connected_endpoints`, is not traced again), in flight together and taken in order;
    # then, one at a time, any that the traces showed the listing wrong about
    first = _first_ends(candidates, interfaces)
    with ThreadPoolExecutor(TRACE_WORKERS) as pool:
        for interface_id, path in zip(first, pool.map(trace, first), strict=True):
            take(interface_id, path)
    for interface_id in candidates:
        if interface_id not in traced:
            take(interface_id, trace(interface_id))
    return data


def _first_ends(candidates: list[int], interfaces: dict[int, dict[str, Any]]) -> list[int]:
    """The interfaces to trace, in id order: each but one whose lower-id far end (NetBox's
    `connected_endpoints`, the end of its cable path) is traced already."""
    chosen, covered = [], set()
    for interface_id in candidates:
        if interface_id in covered:
            continue
        chosen.append(interface_id)
        far = interfaces[interface_id].get("connected_endpoints") or []
        if isinstance(far, list) and len(far) == 1 and isinstance(far[0], dict):
            end = far[0].get("id")
            if isinstance(end, int) and not isinstance(end, bool):
                covered.add(end)
    return chosen


def _slug(value: Any) -> str | None:
    return str(value["slug"]) if isinstance(value, dict) and value.get("slug") else None


def _device(item: dict[str, Any]) -> SourceDevice:
    device_type = item["device_type"]
    primary = item.get("primary_ip4") or item.get("primary_ip")
    address = primary.get("address") if isinstance(primary, dict) else None
    return SourceDevice(
        ref=f"dcim.devices {item['id']}",
        name=str(item["name"] or ""),  # NetBox devices may have no name
        role=_slug(item.get("role") or item.get("device_role")) or "",
        device_type=_slug(device_type) or "",
        model=str(device_type["model"]) if device_type.get("model") else None,
        platform=_slug(item.get("platform")),
        mgmt=str(address).split("/")[0] if address else None,
        tags=tuple(sorted(str(tag["slug"]) for tag in item.get("tags") or [])),
    )


def _int_or_none(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _interface(item: dict[str, Any]) -> SourceInterface:
    return SourceInterface(
        ref=f"dcim.interfaces {item['id']}",
        device=str(item["device"]["name"]),
        name=str(item["name"]),
        speed_kbps=_int_or_none(item.get("speed")),
        mtu=_int_or_none(item.get("mtu")),
        description=str(item.get("description") or ""),
        enabled=item.get("enabled") is not False,
    )


def _end_name(termination: dict[str, Any]) -> str:
    device = termination.get("device") or {}
    return f"{device.get('name', '?')}:{termination.get('name', '?')}"


def _is_interface(termination: dict[str, Any]) -> bool:
    return "/dcim/interfaces/" in str(termination.get("url", "")) and bool(
        termination.get("device")
    )


def _choice(value: Any) -> str | None:
    """A choice as NetBox serializes it: the value, or {"value": ..., "label": ...}."""
    if isinstance(value, dict):
        value = value.get("value")
    return str(value) if value not in (None, "") else None


def _breakout(near: list[Any], far: list[Any], cable: Cable) -> NoReturn:
    """A path from one interface to several (a breakout cable, with or without a NetBox cable
    profile) is no link of the inventory: an error naming the cable and every end."""
    label = f" ({cable.label!r})" if cable.label else ""
    ends = " to ".join(", ".join(_end_name(t) for t in side) for side in (near, far))
    raise SourceError(
        [SourceProblem("NetBox", 0, 0, f"{cable.ref}{label}", f"joins {ends}{BREAKOUT}")]
    )


def _connection(path: list[Any], data: SourceData) -> tuple[Connection | None, int | None]:
    """The traced path as a connection between two interfaces, and the far interface's id;
    a path that does not end at an interface is a note, not a link."""
    if not path:
        return None, None
    near, far = path[0][0], path[-1][2]
    cables: list[Cable] = []
    for near_ends, cable, far_ends in path:
        if not cable:
            continue
        if any(c.ref == f"dcim.cables {cable['id']}" for c in cables):
            start = _end_name(near[0]) if near else "?"
            raise SourceError(
                [
                    SourceProblem(
                        "NetBox",
                        0,
                        0,
                        f"dcim.cables {cable['id']}",
                        f"the cable path from {start} passes this cable twice: a loop in the "
                        "cabling data (its length would count twice)",
                    )
                ]
            )
        ends = (
            _end_name(near_ends[0]) if near_ends else "?",
            _end_name(far_ends[0]) if far_ends else "?",
        )
        cables.append(
            Cable(
                ref=f"dcim.cables {cable['id']}",
                label=str(cable.get("label") or ""),
                length=decimal_or_none(cable.get("length")),
                unit=_choice(cable.get("length_unit")),
                ends=ends,
                status=_choice(cable.get("status")) or "connected",
            )
        )
    if (len(near) > 1 or len(far) > 1) and all(map(_is_interface, [*near, *far])) and cables:
        _breakout(near, far, cables[-1])
    if len(near) != 1 or len(far) != 1 or not _is_interface(near[0]) or not _is_interface(far[0]):
        start = _end_name(near[0]) if near else "?"
        data.notes.append(f"{start}: its cable path does not end at one interface: no link")
        return None, None
    a = (str(near[0]["device"]["name"]), str(near[0]["name"]))
    b = (str(far[0]["device"]["name"]), str(far[0]["name"]))
    return Connection(a, b, tuple(cables)), int(far[0]["id"])
