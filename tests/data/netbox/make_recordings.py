"""Write the recorded API answers of tests/data/netbox/ and tests/data/nautobot/ (README.md
there says which API versions and documents they follow). Run from the repository root:

    .venv/bin/python tests/data/netbox/make_recordings.py

The fabric is inventories/lab.yaml as it would be kept in NetBox: the same devices, ports and
cable lengths, some cables measured in cm, ft, in or km, two fabric links patched through a
pair of patch panels (an MPO trunk between their rear ports), and the panels themselves.
`broken.json` is a small Clos whose source of truth has two mistakes: a patched cable with no
length and a leaf whose device type the mapping does not know.
"""

from __future__ import annotations

import copy
import json
import uuid
from pathlib import Path
from urllib.parse import urlencode

HERE = Path(__file__).resolve().parent
NAUTOBOT = HERE.parent / "nautobot"
BASE = "http://netbox.example.com"
STAMP = "2026-11-02T09:00:00.000000Z"
SPEED_400G = 400_000_000  # kbps

MANUFACTURERS = {"NVIDIA": 1, "Arista": 2, "Cisco": 3, "Juniper": 4, "Dell": 5, "Generic": 6}
# slug -> (model, manufacturer)
TYPES = {
    "sn5600": ("SN5600", "NVIDIA"),
    "sn4700": ("SN4700", "NVIDIA"),
    "n9k-c9332d-gx2b": ("N9K-C9332D-GX2B", "Cisco"),
    "qfx5220-32cd": ("QFX5220-32CD", "Juniper"),
    "dcs-7060dx5-32": ("DCS-7060DX5-32", "Arista"),
    "dgx-h100": ("DGX H100", "NVIDIA"),
    "poweredge-xe9680": ("PowerEdge XE9680", "Dell"),
    "24-port-mpo-panel": ("24-port MPO panel", "Generic"),
    "sn9999": ("SN9999", "NVIDIA"),
}
ROLES = {"leaf": "Leaf", "spine": "Spine", "gpu-server": "GPU server", "patch-panel": "Patch panel"}
PLATFORMS = {
    "sonic": "SONiC",
    "cumulus-linux": "Cumulus Linux",
    "nxos": "Cisco NX-OS",
    "junos": "Juniper Junos",
    "eos": "Arista EOS",
}

# id, name, role, device type, platform, primary IPv4
LAB_DEVICES = [
    (11, "leaf1", "leaf", "sn5600", "sonic", "192.0.2.11/24"),
    (12, "leaf2", "leaf", "sn4700", "cumulus-linux", "192.0.2.12/24"),
    (13, "leaf3", "leaf", "n9k-c9332d-gx2b", "nxos", "192.0.2.13/24"),
    (14, "leaf4", "leaf", "qfx5220-32cd", "junos", "192.0.2.14/24"),
    (21, "spine1", "spine", "dcs-7060dx5-32", "eos", "192.0.2.1/24"),
    (22, "spine2", "spine", "sn5600", "sonic", "192.0.2.2/24"),
    (31, "gpu01", "gpu-server", "dgx-h100", None, None),
    (32, "gpu02", "gpu-server", "dgx-h100", None, None),
    (33, "gpu03", "gpu-server", "poweredge-xe9680", None, None),
    (34, "gpu04", "gpu-server", "poweredge-xe9680", None, None),
    (41, "pp-row1", "patch-panel", "24-port-mpo-panel", None, None),
    (42, "pp-row2", "patch-panel", "24-port-mpo-panel", None, None),
]
# a, b, [(cable id, label, type, length, unit, panel hop)] — a hop's far end is a front port
# ("pp-row1", 1) or the trunk between the panels' rear ports ("trunk", None)
LAB_LINKS = [
    ("leaf1:Ethernet0", "gpu01:eth0", [(101, "", "dac-passive", 200, "cm")]),
    ("leaf1:Ethernet4", "gpu02:eth0", [(102, "", "dac-passive", 2, "m")]),
    ("leaf2:swp1", "gpu01:eth1", [(103, "", "dac-passive", 3, "m")]),
    ("leaf2:swp2", "gpu02:eth1", [(104, "", "dac-passive", 3, "m")]),
    ("leaf3:Ethernet1/1", "gpu03:eth0", [(105, "", "dac-passive", 3, "m")]),
    ("leaf3:Ethernet1/2", "gpu04:eth0", [(106, "", "dac-passive", 3, "m")]),
    ("leaf4:et-0/0/0", "gpu03:eth1", [(107, "", "dac-passive", 39, "in")]),
    ("leaf4:et-0/0/1", "gpu04:eth1", [(108, "", "dac-passive", 1, "m")]),
    (
        "leaf1:Ethernet248",
        "spine1:Ethernet1/1",
        [
            (201, "R1-F1", "mmf-om4", 12, "m"),
            (200, "TRUNK-1", "mmf-om4", 3, "m"),
            (202, "R2-F1", "mmf-om4", 15, "m"),
        ],
    ),
    ("leaf1:Ethernet252", "spine2:Ethernet0", [(203, "", "smf-os2", 35, "m")]),
    ("leaf2:swp31", "spine1:Ethernet2/1", [(204, "", "smf-os2", 164, "ft")]),
    (
        "leaf2:swp32",
        "spine2:Ethernet4",
        [
            (205, "R1-F2", "mmf-om4", 10, "m"),
            (200, "TRUNK-1", "mmf-om4", 3, "m"),
            (206, "R2-F2", "mmf-om4", 42, "m"),
        ],
    ),
    ("leaf3:Ethernet1/31", "spine1:Ethernet3/1", [(207, "", "smf-os2", 70, "m")]),
    ("leaf3:Ethernet1/32", "spine2:Ethernet8", [(208, "", "smf-os2", 75, "m")]),
    ("leaf4:et-0/0/30", "spine1:Ethernet4/1", [(209, "", "smf-os2", 0.1, "km")]),
    ("leaf4:et-0/0/31", "spine2:Ethernet12", [(210, "", "smf-os2", 90, "m")]),
]
NIC_MTU = 9000
PORT_MTU = 9100

BROKEN_DEVICES = [
    (51, "leaf01", "leaf", "sn5600", "sonic", "198.51.100.1/24"),
    (52, "leaf02", "leaf", "sn9999", "sonic", "198.51.100.2/24"),
    (53, "spine01", "spine", "sn5600", "sonic", "198.51.100.11/24"),
    (41, "pp-row1", "patch-panel", "24-port-mpo-panel", None, None),
    (42, "pp-row2", "patch-panel", "24-port-mpo-panel", None, None),
]
BROKEN_LINKS = [
    (
        "leaf01:Ethernet0",
        "spine01:Ethernet0",
        [
            (301, "R1-F1", "mmf-om4", 20, "m"),
            (300, "TRUNK-9", "mmf-om4", None, None),
            (302, "R2-F1", "mmf-om4", 5, "m"),
        ],
    ),
    ("leaf02:Ethernet0", "spine01:Ethernet4", [(303, "", "smf-os2", 100, "ft")]),
]


def url(path: str) -> str:
    return f"{BASE}/api/{path}"


def brief(kind: str, path: str, id_: int, display: str, **extra: object) -> dict[str, object]:
    return {"id": id_, "url": url(f"{path}/{id_}/"), "display": display, **extra}


class NetBox:
    """The objects of one fabric as NetBox 4.2's serializers write them."""

    def __init__(self, devices: list[tuple], links: list[tuple]):
        self.devices = {d[1]: d for d in devices}
        self.links = links
        self.interfaces: dict[str, dict[str, object]] = {}
        self.next_id = 1001
        for a, b, _ in links:
            for end in (a, b):
                self._interface(end)

    def device_brief(self, name: str) -> dict[str, object]:
        id_ = self.devices[name][0]
        return brief("device", "dcim/devices", id_, name, name=name, description="")

    def device(self, name: str) -> dict[str, object]:
        id_, _, role, kind, platform, address = self.devices[name]
        model, maker = TYPES[kind]
        manufacturer = brief(
            "manufacturer",
            "dcim/manufacturers",
            MANUFACTURERS[maker],
            maker,
            name=maker,
            slug=maker.lower(),
            description="",
        )
        ip = None
        if address:
            ip = brief(
                "ip",
                "ipam/ip-addresses",
                id_,
                address,
                family={"value": 4, "label": "IPv4"},
                address=address,
                description="",
            )
        return {
            "id": id_,
            "url": url(f"dcim/devices/{id_}/"),
            "display_url": f"{BASE}/dcim/devices/{id_}/",
            "display": name,
            "name": name,
            "device_type": brief(
                "type",
                "dcim/device-types",
                list(TYPES).index(kind) + 1,
                model,
                manufacturer=manufacturer,
                model=model,
                slug=kind,
                description="",
            ),
            "role": brief(
                "role",
                "dcim/device-roles",
                list(ROLES).index(role) + 1,
                ROLES[role],
                name=ROLES[role],
                slug=role,
                description="",
            ),
            "tenant": None,
            "platform": None
            if platform is None
            else brief(
                "platform",
                "dcim/platforms",
                list(PLATFORMS).index(platform) + 1,
                PLATFORMS[platform],
                name=PLATFORMS[platform],
                slug=platform,
                description="",
            ),
            "serial": "",
            "asset_tag": None,
            "site": brief("site", "dcim/sites", 1, "Lab", name="Lab", slug="lab", description=""),
            "location": None,
            "rack": None,
            "status": {"value": "active", "label": "Active"},
            "airflow": None,
            "primary_ip": ip,
            "primary_ip4": ip,
            "primary_ip6": None,
            "oob_ip": None,
            "description": "",
            "comments": "",
            "config_template": None,
            "local_context_data": None,
            "tags": [],
            "custom_fields": {},
            "created": STAMP,
            "last_updated": STAMP,
        }

    def _interface(self, end: str) -> None:
        device, name = end.split(":", 1)
        server = self.devices[device][2] == "gpu-server"
        id_ = self.next_id
        self.next_id += 1
        self.interfaces[end] = {
            "id": id_,
            "url": url(f"dcim/interfaces/{id_}/"),
            "display_url": f"{BASE}/dcim/interfaces/{id_}/",
            "display": name,
            "device": self.device_brief(device),
            "vdcs": [],
            "module": None,
            "name": name,
            "label": "",
            "type": {"value": "400gbase-x-osfp", "label": "OSFP (400GE)"},
            "enabled": True,
            "parent": None,
            "bridge": None,
            "lag": None,
            "mtu": NIC_MTU if server else PORT_MTU,
            "mac_address": None,
            "speed": SPEED_400G,
            "duplex": None,
            "wwn": None,
            "mgmt_only": False,
            "description": "",
            "mode": None,
            "mark_connected": False,
            "cable": None,
            "cable_end": "",
            "wireless_link": None,
            "link_peers": [],
            "link_peers_type": None,
            "wireless_lans": [],
            "vrf": None,
            "l2vpn_termination": None,
            "connected_endpoints": None,
            "connected_endpoints_type": None,
            "connected_endpoints_reachable": None,
            "tags": [],
            "custom_fields": {},
            "created": STAMP,
            "last_updated": STAMP,
            "count_ipaddresses": 0,
            "count_fhrp_groups": 0,
            "_occupied": True,
        }

    def interface_brief(self, end: str) -> dict[str, object]:
        full = self.interfaces[end]
        device, name = end.split(":", 1)
        return {
            "id": full["id"],
            "url": full["url"],
            "display": name,
            "device": self.device_brief(device),
            "name": name,
            "description": "",
            "cable": full["cable"],
            "_occupied": True,
        }

    def port_brief(self, panel: str, kind: str, number: int, cable: int) -> dict[str, object]:
        panel_id = self.devices[panel][0]
        id_ = panel_id * 100 + number
        name = f"{'Front' if kind == 'front-ports' else 'Rear'}{number}"
        return {
            "id": id_,
            "url": url(f"dcim/{kind}/{id_}/"),
            "display": name,
            "device": self.device_brief(panel),
            "name": name,
            "description": "",
            "cable": cable,
            "_occupied": True,
        }

    def cable(self, cable: tuple) -> dict[str, object]:
        id_, label, kind, length, unit = cable
        return {
            "id": id_,
            "url": url(f"dcim/cables/{id_}/"),
            "display_url": f"{BASE}/dcim/cables/{id_}/",
            "type": kind,
            "status": "connected",
            "label": label,
            "color": "",
            "length": None if length is None else float(length),
            "length_unit": unit,
            "description": "",
        }

    def trace(self, a: str, b: str, cables: list[tuple]) -> list[list[object]]:
        """NetBox's trace: [near ends, cable, far ends] per cable, panels in between."""
        if len(cables) == 1:
            return [[[self.interface_brief(a)], self.cable(cables[0]), [self.interface_brief(b)]]]
        number = 1 if cables[0][1].endswith("F1") else 2
        first, trunk, last = cables
        return [
            [
                [self.interface_brief(a)],
                self.cable(first),
                [self.port_brief("pp-row1", "front-ports", number, first[0])],
            ],
            [
                [self.port_brief("pp-row1", "rear-ports", 1, trunk[0])],
                self.cable(trunk),
                [self.port_brief("pp-row2", "rear-ports", 1, trunk[0])],
            ],
            [
                [self.port_brief("pp-row2", "front-ports", number, last[0])],
                self.cable(last),
                [self.interface_brief(b)],
            ],
        ]

    def cabled(self) -> None:
        for a, b, cables in self.links:
            for end, peer, cable in ((a, b, cables[0]), (b, a, cables[-1])):
                full = self.interfaces[end]
                full["cable"] = {
                    "id": cable[0],
                    "url": url(f"dcim/cables/{cable[0]}/"),
                    "display": cable[1] or f"#{cable[0]}",
                    "label": cable[1],
                    "description": "",
                }
                full["cable_end"] = "A" if end == a else "B"
                full["connected_endpoints"] = [self.interface_brief(peer)]
                full["connected_endpoints_type"] = "dcim.interface"
                full["connected_endpoints_reachable"] = True
                if len(cables) == 1:
                    full["link_peers"] = [self.interface_brief(peer)]
                    full["link_peers_type"] = "dcim.interface"
                else:
                    panel = "pp-row1" if end == a else "pp-row2"
                    number = 1 if cables[0][1].endswith("F1") else 2
                    full["link_peers"] = [self.port_brief(panel, "front-ports", number, cable[0])]
                    full["link_peers_type"] = "dcim.frontport"


def paged(path: str, query: dict[str, object], items: list[object], size: int) -> list[dict]:
    """A list endpoint's answers as pynetbox asks for them (offset pagination): the first
    page with `limit`, the others with `limit` and `offset`, as NetBox's `next` links say."""
    out = []
    for offset in range(0, max(len(items), 1), size):
        asked = {**query, "limit": str(size)} | ({"offset": str(offset)} if offset else {})
        following = None
        if offset + size < len(items):
            params = {**query, "limit": str(size), "offset": str(offset + size)}
            following = f"{url(path + '/')}?{urlencode(params, doseq=True)}"
        body = {
            "count": len(items),
            "next": following,
            "previous": None,
            "results": items[offset : offset + size],
        }
        out.append(exchange(path, asked, body))
    return out


def exchange(path: str, query: dict[str, object], body: object, status: int = 200) -> dict:
    return {
        "method": "GET",
        "path": f"/api/{path}/",
        "query": query,
        "status": status,
        "headers": {"API-Version": "4.2", "Content-Type": "application/json"},
        "body": body,
    }


def netbox_recording(netbox: NetBox, size: int) -> list[dict]:
    """The answers `lossless import netbox` asks for, in pages of `size` objects."""
    netbox.cabled()
    devices = [
        netbox.device(name) for name in sorted(netbox.devices, key=lambda n: netbox.devices[n][0])
    ]
    out = paged("dcim/devices", {}, devices, size)
    interfaces = sorted(netbox.interfaces.values(), key=lambda i: int(str(i["id"])))
    ids = [str(i) for i in sorted(d[0] for d in netbox.devices.values())]
    out += paged("dcim/interfaces", {"cabled": "true", "device_id": ids}, interfaces, size)
    traced: set[str] = set()
    for end in sorted(netbox.interfaces, key=lambda e: int(str(netbox.interfaces[e]["id"]))):
        if end in traced:
            continue
        a, b, cables = next(link for link in netbox.links if end in link[:2])
        traced.update({a, b})
        trace = netbox.trace(a, b, cables)
        if end == b:  # traced from its b end: the same hops, the other way round
            trace = [[far, cable, near] for near, cable, far in reversed(trace)]
        out.append(exchange(f"dcim/interfaces/{netbox.interfaces[end]['id']}/trace", {}, trace))
    return out


# -- Nautobot -------------------------------------------------------------------------------


def uid(kind: str, key: object) -> str:
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"https://nautobot.example.com/{kind}/{key}"))


NAUTOBOT_ROLES = {
    "leaf": "Leaf",
    "spine": "Spine",
    "gpu-server": "GPU Server",
    "patch-panel": "Patch Panel",
}
NAUTOBOT_UNITS = {"m": "m", "cm": "cm", "ft": "ft", "in": "in"}


def nautobot_data(speed: bool) -> dict[str, object]:
    """The `data` of the GraphQL answer (Nautobot 2.4.22 with speed, or an older 2.x)."""
    netbox = NetBox(LAB_DEVICES, LAB_LINKS)
    devices = []
    for id_, name, role, kind, platform, address in LAB_DEVICES:
        interfaces = []
        for end, interface in netbox.interfaces.items():
            if end.split(":", 1)[0] != name:
                continue
            entry = {"id": uid("interface", end), "name": end.split(":", 1)[1]}
            if speed:
                entry["speed"] = interface["speed"]
            entry |= {
                "mtu": interface["mtu"],
                "description": "",
                "mgmt_only": False,
                "enabled": True,
            }
            interfaces.append(entry)
        devices.append(
            {
                "id": uid("device", id_),
                "name": name,
                "role": {"name": NAUTOBOT_ROLES[role]},
                "device_type": {"model": TYPES[kind][0]},
                "platform": None if platform is None else {"name": PLATFORMS[platform]},
                "primary_ip4": None if address is None else {"address": address},
                "tags": [],
                "interfaces": interfaces,
            }
        )
    cables, seen = [], set()
    for a, b, path in LAB_LINKS:
        ends = [("interface", a)]
        if len(path) == 3:
            number = 1 if path[0][1].endswith("F1") else 2
            ends += [
                ("frontport", f"pp-row1:Front{number}"),
                ("rearport", "pp-row1:Rear1"),
                ("rearport", "pp-row2:Rear1"),
                ("frontport", f"pp-row2:Front{number}"),
            ]
        ends.append(("interface", b))
        for index, (id_, label, _kind, length, unit) in enumerate(path):
            if id_ in seen:
                continue
            seen.add(id_)
            if unit == "km":  # Nautobot has no km: recorded as metres
                length, unit = length * 1000, "m"
            (ta, ka), (tb, kb) = ends[2 * index], ends[2 * index + 1]
            cables.append(
                {
                    "id": uid("cable", id_),
                    "label": label or None,
                    "length": int(length),
                    "length_unit": NAUTOBOT_UNITS[unit].upper(),
                    "status": {"name": "Connected"},
                    "termination_a_type": f"dcim.{ta}",
                    "termination_a_id": uid(ta, ka),
                    "termination_b_type": f"dcim.{tb}",
                    "termination_b_id": uid(tb, kb),
                }
            )
    front_ports = [
        {
            "id": uid("frontport", f"{panel}:Front{n}"),
            "name": f"Front{n}",
            "device": {"name": panel},
            "rear_port": {"id": uid("rearport", f"{panel}:Rear1")},
            "rear_port_position": n,
        }
        for panel in ("pp-row1", "pp-row2")
        for n in (1, 2)
    ]
    rear_ports = [
        {"id": uid("rearport", f"{panel}:Rear1"), "name": "Rear1", "device": {"name": panel}}
        for panel in ("pp-row1", "pp-row2")
    ]
    return {
        "devices": devices,
        "cables": cables,
        "front_ports": front_ports,
        "rear_ports": rear_ports,
    }


def main() -> None:
    recordings = {
        "lab.json": netbox_recording(NetBox(LAB_DEVICES, LAB_LINKS), 5),
        "broken.json": netbox_recording(NetBox(BROKEN_DEVICES, BROKEN_LINKS), 50),
    }
    for name, exchanges in recordings.items():
        (HERE / name).write_text(json.dumps(exchanges, indent=1, sort_keys=True) + "\n")
    speed_error = {
        "errors": [
            {
                "message": 'Cannot query field "speed" on type "InterfaceType".',
                "locations": [{"line": 9, "column": 20}],
            }
        ]
    }
    nautobot = {
        "lab-2.4.json": [{"status": 200, "body": {"data": nautobot_data(True)}}],
        "lab-2.3.json": [
            {"status": 200, "body": speed_error},
            {"status": 200, "body": {"data": nautobot_data(False)}},
        ],
    }
    for name, answers in nautobot.items():
        (NAUTOBOT / name).write_text(
            json.dumps(copy.deepcopy(answers), indent=1, sort_keys=True) + "\n"
        )


if __name__ == "__main__":
    main()
