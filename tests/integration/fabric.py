"""Load the lab of inventories/lab.yaml into a real NetBox or Nautobot through its REST API.

The fabric is the one tests/data/netbox/make_recordings.py describes (LAB_DEVICES,
LAB_LINKS): 6 switches of five OSes, 4 GPU servers, 2 patch panels joined by a trunk between
their rear ports, lengths in cm, m, ft, in and km (Nautobot has no km: 100 m there). Names
equal slugs, so inventories/netbox/lab-mapping.yaml maps both servers. The loader remembers
the ids it was given, for the scenarios that change one object afterwards.

Requests follow each server's REST API as its own serializers define it: NetBox 4.7
(`dcim/api/serializers_/`: cables with `a_terminations`/`b_terminations` of
`{object_type, object_id}`, front ports with `rear_ports: [{position, rear_port,
rear_port_position}]`), Nautobot 2.4/3.x (`nautobot/dcim/api/serializers.py`: cables with
`termination_a_type`/`termination_a_id`, locations with a location type, statuses and roles
as objects, IP addresses in a namespace, assigned through `ipam/ip-address-to-interface`).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

import requests

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "data" / "netbox"))
from make_recordings import LAB_DEVICES, LAB_LINKS, NIC_MTU, PORT_MTU

SPEED_400G = 400_000_000  # kbps
# an end of a cable as both servers name its content type
KINDS = {"interface": "dcim.interface", "frontport": "dcim.frontport", "rearport": "dcim.rearport"}


class Rest:
    def __init__(self, url: str, header: str):
        self.url, self.session = url, requests.Session()
        self.session.headers.update(
            {
                "Authorization": header,
                "Accept": "application/json",
                "Content-Type": "application/json",
            }
        )

    def call(self, method: str, path: str, body: Any = None, **query: Any) -> Any:
        answer = self.session.request(
            method, f"{self.url}/api/{path}/", json=body, params=query or None, timeout=120
        )
        if answer.status_code >= 400:
            raise AssertionError(f"{method} {path}: HTTP {answer.status_code}: {answer.text[:600]}")
        return answer.json() if answer.content else None

    def post(self, path: str, **body: Any) -> Any:
        return self.call("POST", path, body)

    def patch(self, path: str, id_: Any, **body: Any) -> Any:
        return self.call("PATCH", f"{path}/{id_}", body)

    def delete(self, path: str, id_: Any) -> None:
        self.call("DELETE", f"{path}/{id_}")

    def first(self, path: str, **query: Any) -> Any:
        results = self.call("GET", path, **query)["results"]
        if not results:
            raise AssertionError(f"GET {path} {query}: nothing")
        return results[0]["id"]


@dataclass
class Loader:
    """What both servers share: the lab's devices, interfaces, panels and cables."""

    rest: Rest
    devices: dict[str, Any] = field(default_factory=dict)
    interfaces: dict[str, Any] = field(default_factory=dict)  # "leaf1:Ethernet0" -> id
    cables: dict[str, Any] = field(default_factory=dict)  # "leaf1:Ethernet0" (a end) -> id
    rear: dict[str, Any] = field(default_factory=dict)
    front: dict[tuple[str, int], Any] = field(default_factory=dict)

    # -- per server -------------------------------------------------------------------------
    def prepare(self) -> None:
        raise NotImplementedError

    def placed(self) -> dict[str, Any]:
        """Where a device stands and its status, in this server's words."""
        raise NotImplementedError

    def interface_status(self) -> dict[str, Any]:
        """An interface's status, where the server has one."""
        return {}

    def device(self, name: str, role: str, kind: str, platform: str | None) -> Any:
        return self.rest.post(
            "dcim/devices",
            name=name,
            role=self.roles[role],
            device_type=self.types[kind],
            platform=self.platforms.get(platform or ""),
            **self.placed(),
        )["id"]

    def interface(self, end: str, speed: int, mtu: int, mgmt: bool = False, **more: Any) -> Any:
        device, name = end.split(":", 1)
        return self.rest.post(
            "dcim/interfaces",
            device=self.devices[device],
            name=name,
            type="1000base-t" if mgmt else "400gbase-x-osfp",
            speed=speed,
            mtu=mtu,
            mgmt_only=mgmt,
            **self.interface_status(),
            **more,
        )["id"]

    def primary_ip(self, device: str, address: str) -> None:
        raise NotImplementedError

    def panel_ports(self, panel: str) -> None:
        raise NotImplementedError

    def cable(self, a: list[tuple[str, Any]], b: list[tuple[str, Any]], **more: Any) -> Any:
        """a, b: [(kind 'interface'|'frontport'|'rearport', id)]."""
        raise NotImplementedError

    def unit_length(self, length: Any, unit: str) -> tuple[Any, str]:
        return length, unit

    def breakouts(self, leaf: Any, nics: list[Any], version: str) -> Iterator[tuple[str, Any]]:
        """A breakout cable from the leaf interface to the NICs, each way the server has (the
        caller deletes each before the next): (how, cable id)."""
        raise NotImplementedError

    # -- the lab ----------------------------------------------------------------------------
    def load_lab(self) -> None:
        self.prepare()
        for _, name, role, kind, platform, address in LAB_DEVICES:
            self.devices[name] = self.device(name, role, kind, platform)
            if address:
                self.primary_ip(name, address)
        for panel in ("pp-row1", "pp-row2"):
            self.panel_ports(panel)
        trunk_done = False
        for a, b, path in LAB_LINKS:
            for end in (a, b):
                server = end.split(":")[0].startswith("gpu")
                self.interfaces[end] = self.interface(
                    end, SPEED_400G, NIC_MTU if server else PORT_MTU
                )
            if len(path) == 1:
                _, label, _, length, unit = path[0]
                self.cables[a] = self.cable(
                    [("interface", self.interfaces[a])],
                    [("interface", self.interfaces[b])],
                    **self.length(length, unit, label),
                )
                continue
            number = 1 if path[0][1].endswith("F1") else 2
            first, trunk, last = path
            self.cables[a] = self.cable(
                [("interface", self.interfaces[a])],
                [("frontport", self.front[("pp-row1", number)])],
                **self.length(first[3], first[4], first[1]),
            )
            self.cable(
                [("frontport", self.front[("pp-row2", number)])],
                [("interface", self.interfaces[b])],
                **self.length(last[3], last[4], last[1]),
            )
            if not trunk_done:
                self.cable(
                    [("rearport", self.rear["pp-row1"])],
                    [("rearport", self.rear["pp-row2"])],
                    **self.length(trunk[3], trunk[4], trunk[1]),
                )
                trunk_done = True

    def length(self, length: Any, unit: str, label: str) -> dict[str, Any]:
        length, unit = self.unit_length(length, unit)
        return {"length": length, "length_unit": unit, "label": label}


class NetBoxLoader(Loader):
    def prepare(self) -> None:
        r = self.rest
        self.site = r.post("dcim/sites", name="lab", slug="lab")["id"]
        self.maker = r.post("dcim/manufacturers", name="Generic", slug="generic")["id"]
        self.types: dict[str, Any] = {}
        self.roles: dict[str, Any] = {}
        self.platforms: dict[str, Any] = {}
        for _, _, role, kind, platform, _ in LAB_DEVICES:
            if kind not in self.types:
                self.types[kind] = r.post(
                    "dcim/device-types", manufacturer=self.maker, model=kind, slug=kind
                )["id"]
            if role not in self.roles:
                self.roles[role] = r.post(
                    "dcim/device-roles", name=role, slug=role, color="2196f3"
                )["id"]
            if platform and platform not in self.platforms:
                self.platforms[platform] = r.post("dcim/platforms", name=platform, slug=platform)[
                    "id"
                ]

    def placed(self) -> dict[str, Any]:
        return {"site": self.site, "status": "active"}

    def primary_ip(self, device: str, address: str) -> None:
        mgmt = self.interface(f"{device}:mgmt0", 1_000_000, 1500, mgmt=True)
        ip = self.rest.post(
            "ipam/ip-addresses",
            address=address,
            assigned_object_type="dcim.interface",
            assigned_object_id=mgmt,
        )["id"]
        self.rest.patch("dcim/devices", self.devices[device], primary_ip4=ip)

    def panel_ports(self, panel: str) -> None:
        rear = self.rest.post(
            "dcim/rear-ports", device=self.devices[panel], name="Rear1", type="mpo", positions=24
        )["id"]
        self.rear[panel] = rear
        for number in (1, 2):
            self.front[(panel, number)] = self.rest.post(
                "dcim/front-ports",
                device=self.devices[panel],
                name=f"Front{number}",
                type="lc",
                rear_ports=[{"position": 1, "rear_port": rear, "rear_port_position": number}],
            )["id"]

    def cable(self, a: list[tuple[str, Any]], b: list[tuple[str, Any]], **more: Any) -> Any:
        def ends(side: list[tuple[str, Any]]) -> list[dict[str, Any]]:
            return [{"object_type": KINDS[kind], "object_id": id_} for kind, id_ in side]

        more = {k: v for k, v in more.items() if v is not None}
        return self.rest.post(
            "dcim/cables",
            a_terminations=ends(a),
            b_terminations=ends(b),
            status="connected",
            **more,
        )["id"]

    def breakouts(self, leaf: Any, nics: list[Any], version: str) -> Iterator[tuple[str, Any]]:
        for profile in (None, "breakout-1c2p-2c1p"):
            cable = self.cable(
                [("interface", leaf)],
                [("interface", nic) for nic in nics],
                label="BREAKOUT-1",
                profile=profile,
                length=3,
                length_unit="m",
            )
            yield f"NetBox, cable profile {profile}", cable


class NautobotLoader(Loader):
    def status(self, name: str) -> Any:
        return self.rest.first("extras/statuses", name=name)

    def prepare(self) -> None:
        r = self.rest
        self.active = self.status("Active")
        kind = r.post("dcim/location-types", name="Site", content_types=["dcim.device"])["id"]
        self.location = r.post(
            "dcim/locations", name="lab", location_type=kind, status=self.active
        )["id"]
        self.maker = r.post("dcim/manufacturers", name="Generic")["id"]
        self.namespace = r.first("ipam/namespaces", name="Global")
        r.post(
            "ipam/prefixes",
            prefix="192.0.2.0/24",
            namespace=self.namespace,
            status=self.active,
            type="network",
        )
        self.types: dict[str, Any] = {}
        self.roles: dict[str, Any] = {}
        self.platforms: dict[str, Any] = {}
        for _, _, role, kind_, platform, _ in LAB_DEVICES:
            if kind_ not in self.types:
                self.types[kind_] = r.post(
                    "dcim/device-types", manufacturer=self.maker, model=kind_
                )["id"]
            if role not in self.roles:
                self.roles[role] = r.post(
                    "extras/roles", name=role, color="2196f3", content_types=["dcim.device"]
                )["id"]
            if platform and platform not in self.platforms:
                self.platforms[platform] = r.post("dcim/platforms", name=platform)["id"]

    def placed(self) -> dict[str, Any]:
        return {"location": self.location, "status": self.active}

    def interface_status(self) -> dict[str, Any]:
        return {"status": self.active}

    def primary_ip(self, device: str, address: str) -> None:
        mgmt = self.interface(f"{device}:mgmt0", 1_000_000, 1500, mgmt=True)
        ip = self.rest.post(
            "ipam/ip-addresses",
            address=address,
            namespace=self.namespace,
            status=self.active,
            type="host",
        )["id"]
        self.rest.post("ipam/ip-address-to-interface", ip_address=ip, interface=mgmt)
        self.rest.patch("dcim/devices", self.devices[device], primary_ip4=ip)

    def panel_ports(self, panel: str) -> None:
        rear = self.rest.post(
            "dcim/rear-ports", device=self.devices[panel], name="Rear1", type="mpo", positions=24
        )["id"]
        self.rear[panel] = rear
        for number in (1, 2):
            self.front[(panel, number)] = self.rest.post(
                "dcim/front-ports",
                device=self.devices[panel],
                name=f"Front{number}",
                type="lc",
                rear_port=rear,
                rear_port_position=number,
            )["id"]

    def unit_length(self, length: Any, unit: str) -> tuple[Any, str]:
        if unit == "km":  # Nautobot has no km, and whole lengths only
            return int(Decimal(str(length)) * 1000), "m"
        return length, unit

    def cable(self, a: list[tuple[str, Any]], b: list[tuple[str, Any]], **more: Any) -> Any:
        if len(a) != 1 or len(b) != 1:
            raise AssertionError("a Nautobot cable of the REST API joins one end to one")
        more = {k: v for k, v in more.items() if v is not None}
        return self.rest.post(
            "dcim/cables",
            termination_a_type=KINDS[a[0][0]],
            termination_a_id=a[0][1],
            termination_b_type=KINDS[b[0][0]],
            termination_b_id=b[0][1],
            status=self.status(more.pop("status", "Connected")),
            **more,
        )["id"]

    def breakouts(self, leaf: Any, nics: list[Any], version: str) -> Iterator[tuple[str, Any]]:
        if int(version.split(".")[0]) < 3:
            return  # a 2.x cable joins one end to one
        kind = self.rest.post(
            "dcim/cable-types", name="800G-to-2x400G", a_connectors=1, b_connectors=2, total_lanes=2
        )["id"]
        ends = {"a1": leaf, **{f"b{n}": nic for n, nic in enumerate(nics, 1)}}
        cable = self.rest.post(
            "dcim/cables",
            cable_type=kind,
            status=self.status("Connected"),
            length=3,
            length_unit="m",
            label="BREAKOUT-1",
            terminations={k: {"object_type": "dcim.interface", "id": v} for k, v in ends.items()},
        )["id"]
        yield "Nautobot 3.x, a cable type of 2 B connectors", cable
