"""From schema-valid inventory data to the Inventory model.

Expands name ranges, applies port profiles and the policy inheritance
(built-in -> fabric -> role -> device -> port profile -> port), and makes the checks a
schema cannot: unknown ASICs and profiles, duplicate names, links to ports that do not
exist, a port on two links, speeds the two ends of a link disagree on, RoCE classes that
collide. An inventory may come from a pull request, so the work is bounded before it is
done: ranges are counted before they are expanded, against caps on ports per device, on
ports in all and on names expanded in all; and every device or server name, once expanded,
is a safe file name.
"""

from __future__ import annotations

import ipaddress
import json
import re
from collections.abc import Iterator
from typing import Any

from lossless.asics import (
    REQUIRED_CUSTOM_KEYS,
    Asic,
    asic_from_mapping,
    catalogue,
    catalogue_mapping,
)
from lossless.errors import InputError
from lossless.inventory.defaults import DEFAULT_POLICY, DEFAULT_TC, merge_policy
from lossless.inventory.schema import suggest
from lossless.inventory.yamlsource import Document, PathKey
from lossless.model import (
    Device,
    Endpoint,
    Inventory,
    Link,
    Location,
    Nic,
    Policy,
    Port,
    Server,
)
from lossless.system.files import is_safe_name
from lossless.text import ranges
from lossless.text.grammar import plural
from lossless.text.units import format_speed, parse_speed

# Caps on what an inventory may ask for. The largest chassis has about 2,300 ports with
# breakouts; a 100,000-GPU fabric has about 500,000 switch ports and NICs.
MAX_PORTS_PER_DEVICE = 4096  # ports of a switch, or NICs of a server
MAX_PORTS = 1_000_000  # switch ports and NICs in all
MAX_EXPANDED_NAMES = 4_000_000  # every name a range gives, counted over the whole inventory

# Keys of a NIC spec that are host settings (schema host_settings): the planner merges them
# over what the NIC inherits from its switch port.
HOST_SETTINGS = (
    "roce",
    "pfc_priorities",
    "trust",
    "mtu",
    "ecn",
    "dcqcn",
    "gid_index",
    "sriov_vfs",
    "rdma_device",  # on a NIC only (schema nic)
)

# Default length of a cable type is the longest that type reaches, so that a link written
# with a type never gets less headroom than the real cable needs (docs/reference/physics.md 6).
BUILTIN_CABLE_TYPES: dict[str, float] = {
    "dac": 3,  # in-rack copper DAC, 1-3 m [2ND]
    "aec": 7,  # active electrical cable, 3-7 m [UNV]
    "aoc": 10,  # active optical cable, 3-10 m [2ND]
    "mmf": 100,  # SR4/SR8 multimode, <= 100 m on OM4 [UNV]
    "smf-dr": 500,  # DR4 single-mode, <= 500 m [UNV]
    "smf-fr": 2000,  # FR4 single-mode, <= 2 km [UNV]
}


class _Resolver:
    def __init__(self, document: Document):
        self.doc = document
        self.data: dict[str, Any] = document.data
        self.problems: list[Any] = []
        self._policy_cache: dict[str, Policy] = {}
        self._origin_cache: dict[tuple[PathKey, ...], dict[str, Location]] = {}
        # Names whose definition already has a problem: links to them are not reported
        # again, so one mistake gives one message.
        self.broken: set[str] = set()
        self.expanded = 0  # names given by ranges so far (MAX_EXPANDED_NAMES)
        self.ports = 0  # switch ports and NICs so far (MAX_PORTS)
        self.over_cap = False  # a cap was reached and reported: expand nothing more
        self.links: list[Link] = []
        # both ends of every link made so far -> its index in links (the Inventory's index)
        self.link_index: dict[tuple[str, str], int] = {}
        # a NIC definition (shared by its server range) -> the path of its speed
        self.nic_speed_paths: dict[Location, PathKey] = {}
        # links whose ends differ in speed, one list per cause (_say_speed_mismatches)
        self.speed_mismatches: dict[tuple[PathKey, int, int], list] = {}

    # -- helpers -------------------------------------------------------------------------

    def problem(self, path: PathKey, message: str, *, key: bool = False) -> None:
        self.problems.append(self.doc.problem(path, message, key=key))

    def first_at(self, first: Location, path: PathKey) -> str:
        """Where a name met again at path was first defined: its line, or FILE:LINE:COL when
        that is another file."""
        if first.file == self.where(path).file:
            return f"defined at line {first.line}"
        return f"defined at {first}"

    def where(self, path: PathKey, *, key: bool = False) -> Location:
        return Location(self.doc.file, *self.doc.mark(path, key=key))

    def expand(self, text: str, path: PathKey, *, key: bool = False) -> list[str]:
        try:
            return ranges.expand(text) if self._within_caps(text, path) else []
        except ranges.RangeError as error:
            self.problem(path, str(error), key=key)
            return []

    def expand_ends(self, text: str, path: PathKey) -> list[Endpoint]:
        """The link ends text names ("device:port", ranges in either), counted and checked
        as expand() does: each name of expand(text) split at its first colon."""
        try:
            if not self._within_caps(text, path):
                return []
            nodes, ports = ranges.expand_split(text, ":")
        except ranges.RangeError as error:
            self.problem(path, str(error))
            return []
        make = tuple.__new__  # Endpoint(node, port) without its Python-level __new__
        return [make(Endpoint, (node, port)) for node in nodes for port in ports]

    def _within_caps(self, text: str, path: PathKey) -> bool:
        """Count the names text gives against MAX_EXPANDED_NAMES: False once past it (said
        once), or past it before (RangeError: a bad range, for the caller to say)."""
        if self.over_cap:
            return False
        self.expanded += ranges.count(text)
        if self.expanded > MAX_EXPANDED_NAMES:
            self.cap_reached(path, f"ranges give more than {MAX_EXPANDED_NAMES:,} names in all")
            return False
        return True

    def count(self, text: str) -> int:
        """Names text expands to (0 for a bad range: expand() reports it)."""
        try:
            return ranges.count(text)
        except ranges.RangeError:
            return 0

    def cap_reached(self, path: PathKey, what: str) -> None:
        """One message for a cap; the resolver then stops expanding so the work stays bounded."""
        self.problem(path, f"{what} (the limit of one inventory)", key=True)
        self.over_cap = True

    def add_ports(self, specs: dict[str, Any], nodes: int, path: PathKey, what: str) -> bool:
        """Count the ports (or NICs) specs gives each of `nodes` devices (servers) against the
        caps before any is built; False (reported) when a cap is passed."""
        if self.over_cap:
            return False
        per_node = sum(self.count(key) for key in specs)
        if per_node > MAX_PORTS_PER_DEVICE:
            self.problem(
                (*path, what), f"{per_node:,} {what} (at most {MAX_PORTS_PER_DEVICE:,} each)"
            )
            return False
        self.ports += per_node * nodes
        if self.ports > MAX_PORTS:
            self.cap_reached(path, f"more than {MAX_PORTS:,} ports and NICs in all")
            return False
        return True

    def policy(self, layers: list[dict[str, Any]]) -> Policy:
        merged: dict[str, Any] = DEFAULT_POLICY
        for layer in layers:
            merged = merge_policy(merged, layer)
        cache_key = json.dumps(merged, sort_keys=True)
        if cache_key not in self._policy_cache:
            self._policy_cache[cache_key] = Policy.from_mapping(merged)
        return self._policy_cache[cache_key]

    def policy_origin(self, layer_paths: list[PathKey]) -> dict[str, Location]:
        """Where each policy key was set: for every key and nested key ("pfc_watchdog",
        "pfc_watchdog.poll_ms") the key's own line in the most specific layer that sets it.
        Findings about a value point there (the line a change is made on)."""
        cache_key = tuple(layer_paths)
        if cache_key not in self._origin_cache:
            origin: dict[str, Location] = {}
            for path in layer_paths:
                self._record_origin(self.doc_value(path), path, "", origin)
            self._origin_cache[cache_key] = origin
        return self._origin_cache[cache_key]

    def _record_origin(
        self, value: Any, path: PathKey, prefix: str, origin: dict[str, Location]
    ) -> None:
        if not isinstance(value, dict):
            return
        for key, child in value.items():
            dotted = f"{prefix}{key}"
            origin[dotted] = self.where((*path, key), key=True)
            self._record_origin(child, (*path, key), f"{dotted}.", origin)

    def doc_value(self, path: PathKey) -> Any:
        """The inventory's data at path, or None."""
        value: Any = self.data
        for part in path:
            if not isinstance(value, dict) or part not in value:
                return None
            value = value[part]
        return value

    # -- ASICs ---------------------------------------------------------------------------

    def resolve_asics(self) -> dict[str, Asic]:
        asics = dict(catalogue())
        for name, values in self.data.get("asics", {}).items():
            path: PathKey = ("asics", name)
            base_name = values.get("base")
            if base_name is not None:
                if base_name not in catalogue():
                    self.problem(
                        (*path, "base"),
                        f"no catalogue ASIC {base_name!r}{suggest(base_name, catalogue())}",
                    )
                    continue
                merged = catalogue_mapping(base_name)
                merged["sources"] = {**merged.get("sources", {}), **values.get("sources", {})}
                merged.update({k: v for k, v in values.items() if k not in ("base", "sources")})
            else:
                missing = [k for k in REQUIRED_CUSTOM_KEYS if k not in values]
                if missing:
                    self.problem(path, f"a custom ASIC without `base` needs {', '.join(missing)}")
                    continue
                merged = dict(values)
            if (
                merged["headroom_model"] == "sonic-mellanox"
                and "pipeline_latency_kib" not in merged
            ):
                self.problem(path, "the sonic-mellanox model needs pipeline_latency_kib")
                continue
            asics[name] = asic_from_mapping(name, merged)
        return asics

    # -- devices and ports ---------------------------------------------------------------

    def resolve_devices(self, asics: dict[str, Asic]) -> dict[str, Device]:
        devices: dict[str, Device] = {}
        fabric_policy = self.data["fabric"].get("policy", {})
        roles = self.data.get("roles", {})
        for key, spec in self.data["devices"].items():
            path: PathKey = ("devices", key)
            names = self.expand(key, path, key=True)
            mgmts = self._mgmt_addresses(spec.get("mgmt"), len(names), (*path, "mgmt"))
            asic = asics.get(spec["asic"])
            if asic is None:
                self.problem(
                    (*path, "asic"), f"unknown ASIC {spec['asic']!r}{suggest(spec['asic'], asics)}"
                )
                self.broken.update(names)
                continue
            role_policy = roles.get(spec["role"], {}).get("policy", {})
            layers = [fabric_policy, role_policy, spec.get("policy", {})]
            policy = self.policy(layers)
            layer_paths: list[PathKey] = [
                ("fabric", "policy"),
                ("roles", spec["role"], "policy"),
                (*path, "policy"),
            ]
            classes_ok = self._traffic_classes_ok(
                policy, list(zip(layers, layer_paths, strict=True))
            )
            names_ok = self._safe_names(names, path)
            if not (
                classes_ok
                and names_ok
                and self.add_ports(spec.get("ports", {}), len(names), path, "ports")
            ):
                self.broken.update(names)
                continue
            # Ports hold nothing of their device: the devices of one range share them.
            ports = self.resolve_ports(
                spec.get("ports", {}), path, names, asic, layers, layer_paths
            )
            where = self.where(path, key=True)
            policy_origin = self.policy_origin(layer_paths)
            for index, name in enumerate(names):
                if name in devices:
                    first = self.first_at(devices[name].where, path)
                    self.problem(path, f"device {name!r} is defined twice ({first})", key=True)
                    continue
                devices[name] = Device(
                    name=name,
                    role=spec["role"],
                    os=spec["os"],
                    os_version=spec.get("os_version"),
                    asic=asic,
                    platform=spec.get("platform"),
                    mgmt=mgmts[index] if mgmts else None,
                    gearbox_delay_ns=spec.get("gearbox_delay_ns", 0),
                    policy=policy,
                    ports=dict(ports),
                    where=where,
                    description=spec.get("description", ""),
                    lint_ignore=dict(spec.get("lint_ignore", {})),
                    policy_origin=policy_origin,
                )
        return devices

    def _safe_names(self, names: list[str], path: PathKey) -> bool:
        """Names become file names (rendered configs, backups, mock folders)."""
        unsafe = next((name for name in names if not is_safe_name(name)), None)
        if unsafe is None:
            return True
        self.problem(
            path,
            f"{unsafe!r} is not a safe name: letters, digits, _ . - only, not starting with a dot",
            key=True,
        )
        return False

    def _traffic_classes_ok(
        self, policy: Policy, layers: list[tuple[dict[str, Any], PathKey]]
    ) -> bool:
        """RoCE data, CNP and the default class every other DSCP maps to must be three
        classes: each with a priority of its own, and data and CNP with DSCPs of their own.
        Shared, one class swallows another and no vendor can render the queues."""
        data, cnp = policy.roce.data, policy.roce.cnp
        clashes = []
        if data.priority == cnp.priority:
            clashes.append(f"RoCE data and CNP share priority {data.priority}")
        for name, traffic in (("RoCE data", data), ("CNP", cnp)):
            if traffic.priority == DEFAULT_TC:
                clashes.append(
                    f"{name} has priority {DEFAULT_TC}, the default class of all other traffic"
                )
        if data.dscp == cnp.dscp:
            clashes.append(f"RoCE data and CNP share DSCP {data.dscp}")
        if not clashes:
            return True
        # Point at the deepest layer that sets the RoCE classes: that is what to change.
        where = next((p for layer, p in reversed(layers) if "roce" in layer), layers[0][1])
        self.problem((*where, "roce"), "; ".join(clashes) + ": each needs its own")
        return False

    def _mgmt_addresses(self, text: str | None, count: int, path: PathKey) -> list[str] | None:
        if text is None:
            return None
        addresses = self.expand(text, path) if ranges.is_range(text) else [text] * count
        if count > 1 and not ranges.is_range(text):
            self.problem(path, f"{count} devices share one management address; use a range")
            return None
        if len(addresses) != count:
            self.problem(path, f"{len(addresses)} addresses for {count} devices")
            return None
        for address in addresses:
            problem = _not_a_host(address)
            if problem:
                self.problem(path, problem)
                return None
        return addresses

    def resolve_ports(
        self,
        specs: dict[str, Any],
        device_path: PathKey,
        device_names: list[str],
        asic: Asic,
        policy_layers: list[dict[str, Any]],
        layer_paths: list[PathKey],
    ) -> dict[str, Port]:
        """The ports each of the devices `device_names` (one range) has."""
        profiles = self.data.get("port_profiles", {})
        ports: dict[str, Port] = {}
        origin: dict[str, str] = {}
        for key, spec in specs.items():
            path: PathKey = (*device_path, "ports", key)
            if not self._port_settings_ok(spec, path, asic, profiles):
                broken = self.expand(key, path)
                self.broken.update(f"{device}:{name}" for device in device_names for name in broken)
                continue
            settings: dict[str, Any] = {}
            profile_name = spec.get("profile")
            if profile_name is not None:
                settings.update(profiles[profile_name])
            port_policy = merge_policy(settings.get("policy", {}), spec.get("policy", {}))
            settings.update({k: v for k, v in spec.items() if k != "policy"})
            speed = parse_speed(settings["speed"])
            policy = self.policy([*policy_layers, port_policy])
            port_layers = [*layer_paths, (*path, "policy")]
            if profile_name is not None:
                port_layers.insert(-1, ("port_profiles", profile_name, "policy"))
            port_origin = self.policy_origin(port_layers)
            lanes = settings.get("lanes", asic.default_lanes(speed))
            where = self.where(path, key=True)
            lint_ignore = dict(settings.get("lint_ignore", {}))
            for name in self.expand(key, path, key=True):
                if name in ports:
                    self.problem(
                        path, f"port {name!r} is also defined by {origin[name]!r}", key=True
                    )
                    continue
                origin[name] = key
                ports[name] = Port(
                    name=name,
                    speed_mbps=speed,
                    lanes=lanes,
                    lossless=settings.get("lossless"),
                    description=settings.get("description", ""),
                    profile=profile_name,
                    policy=policy,
                    where=where,
                    lint_ignore=lint_ignore,
                    routed=settings.get("routed"),
                    policy_origin=port_origin,
                )
        return ports

    def _port_settings_ok(
        self, spec: dict[str, Any], path: PathKey, asic: Asic, profiles: dict[str, Any]
    ) -> bool:
        profile_name = spec.get("profile")
        profile: dict[str, Any] = {}
        if profile_name is not None:
            if profile_name not in profiles:
                self.problem(
                    (*path, "profile"),
                    f"no port profile {profile_name!r}{suggest(profile_name, profiles)}",
                )
                return False
            profile = profiles[profile_name]
        speed_text = spec.get("speed", profile.get("speed"))
        if speed_text is None:
            self.problem(path, "a port needs a speed (here or in its profile)", key=True)
            return False
        speed = parse_speed(speed_text)
        if asic.speeds_mbps and speed not in asic.speeds_mbps:
            supported = ", ".join(format_speed(s) for s in asic.speeds_mbps)
            self.problem(
                path,
                f"{asic.name} does not run ports at {format_speed(speed)} (it does {supported})",
                key=True,
            )
            return False
        return True

    # -- servers -------------------------------------------------------------------------

    def resolve_servers(self, devices: dict[str, Device]) -> dict[str, Server]:
        servers: dict[str, Server] = {}
        for key, spec in self.data.get("servers", {}).items():
            path: PathKey = ("servers", key)
            names = self.expand(key, path, key=True)
            if not self._safe_names(names, path) or not self.add_ports(
                spec.get("nics", {}), len(names), path, "nics"
            ):
                self.broken.update(names)
                continue
            nics_template = list(self._nics(spec.get("nics", {}), path))
            host = dict(spec.get("host", {}))  # shared, as the NICs are, by the range
            for name in names:
                if name in devices or name in servers:
                    first = devices[name] if name in devices else servers[name]
                    kind = "device" if name in devices else "server"
                    self.problem(
                        path,
                        f"{name!r} names a {kind} already, {self.first_at(first.where, path)}",
                        key=True,
                    )
                    self.broken.add(name)
                    continue
                servers[name] = Server(
                    name=name,
                    model=spec.get("model"),
                    nics={nic.name: nic for nic in nics_template},
                    where=self.where(path, key=True),
                    description=spec.get("description", ""),
                    host=host,
                    forwards=spec.get("forwards", False),
                )
        return servers

    def _nics(self, specs: dict[str, Any], server_path: PathKey) -> Iterator[Nic]:
        seen: set[str] = set()
        for key, spec in specs.items():
            path: PathKey = (*server_path, "nics", key)
            host = {k: v for k, v in spec.items() if k in HOST_SETTINGS}
            for name in self.expand(key, path, key=True):
                if name in seen:
                    self.problem(path, f"NIC {name!r} is defined twice", key=True)
                    continue
                seen.add(name)
                where = self.where(path, key=True)
                self.nic_speed_paths[where] = (*path, "speed")
                yield Nic(
                    name=name,
                    speed_mbps=parse_speed(spec["speed"]),
                    model=spec.get("model"),
                    host=host,
                    where=where,
                )

    # -- links ---------------------------------------------------------------------------

    def resolve_links(self, devices: dict[str, Device], servers: dict[str, Server]) -> list[Link]:
        cable_types = dict(BUILTIN_CABLE_TYPES)
        for name, spec in self.data["fabric"].get("cable_types", {}).items():
            cable_types[name] = spec["length_m"]
        links: list[Link] = self.links
        used = self.link_index
        # The common case, decided inline (a 131,072-GPU fabric has 262,144 links, and a
        # method call per link was a fifth of a one-device lint): a switch port and a switch
        # port or NIC, both free, at one speed, nothing broken. Anything else goes to
        # _check_link, which says what is wrong. A node's ports: a switch's, else a server's
        # NICs (as _ports_of: a switch wins a name both have).
        ports_of: dict[str, dict[str, Port] | dict[str, Nic]] = {
            name: server.nics for name, server in servers.items()
        }
        ports_of.update((name, device.ports) for name, device in devices.items())
        clean = not self.broken
        for index, spec in enumerate(self.data.get("links", [])):
            path: PathKey = ("links", index)
            cable_m = self._cable_length(spec, path, cable_types)
            pairs = self._link_pairs(spec, path, devices)
            if cable_m is None or pairs is None:
                continue
            where = self.where(path)
            cable_type, description = spec.get("cable"), spec.get("description", "")
            a_ends, b_ends, a_path, b_path = pairs
            for a, b in zip(a_ends, b_ends, strict=True):
                a_node, a_port = a
                b_node, b_port = b
                if (
                    clean
                    and a_node != b_node
                    and a not in used
                    and b not in used
                    and (a_node in devices or b_node in devices)
                    and (a_ports := ports_of.get(a_node)) is not None
                    and (b_ports := ports_of.get(b_node)) is not None
                    and (port_a := a_ports.get(a_port)) is not None
                    and (port_b := b_ports.get(b_port)) is not None
                    and port_a.speed_mbps == port_b.speed_mbps
                ) or self._check_link(a, b, a_path, b_path, devices, servers):
                    used[a] = used[b] = len(links)
                    links.append(Link(a, b, cable_m, cable_type, description, where))
        self._say_speed_mismatches()
        return links

    def _say_speed_mismatches(self) -> None:
        """One problem per cause: links whose ends differ in the same way are said once. A
        server range's NICs at the wrong speed: at the NIC's speed (the line every server of
        the range shares); anything else, and a single link: at the link entry."""
        for (path, a_speed, b_speed), pairs in self.speed_mismatches.items():
            a, b, link_path = pairs[0]
            more = f" and {plural(len(pairs) - 1, 'more link')}" if len(pairs) > 1 else ""
            if len(pairs) == 1:  # one link: said at the link, switch port first
                path = link_path
            if path[0] == "servers":  # b is the NIC, a the switch port
                self.problem(
                    path,
                    f"{format_speed(b_speed)}, but the switch ports cabled to it run at "
                    f"{format_speed(a_speed)}: {a} - {b}{more} (links[{link_path[1]}])",
                )
            else:
                self.problem(
                    path,
                    f"{a} runs at {format_speed(a_speed)} but {b} at {format_speed(b_speed)}{more}",
                )

    def _cable_length(
        self, spec: dict[str, Any], path: PathKey, cable_types: dict[str, float]
    ) -> float | None:
        if "cable_m" in spec:
            return float(spec["cable_m"])
        cable = spec.get("cable")
        if cable is None:
            self.problem(path, "a link needs cable_m (metres) or a cable type (cable: dac)")
            return None
        if cable not in cable_types:
            self.problem(
                (*path, "cable"),
                f"unknown cable type {cable!r}{suggest(cable, cable_types)}; "
                "define it under fabric.cable_types",
            )
            return None
        return float(cable_types[cable])

    def _link_pairs(
        self, spec: dict[str, Any], path: PathKey, devices: dict[str, Device]
    ) -> Pairs | None:
        """The entry's links: its a ends and its b ends, paired in order, and the paths
        their problems are said at."""
        has_ends = "a" in spec or "b" in spec
        if "mesh" in spec and has_ends:
            self.problem(path, "a link has either a and b, or mesh, not both")
            return None
        if "mesh" in spec:
            return self._mesh_pairs(spec["mesh"], (*path, "mesh"), devices)
        if "a" not in spec or "b" not in spec:
            self.problem(path, "a link needs both ends: a and b (device:port)")
            return None
        a_path, b_path = (*path, "a"), (*path, "b")
        a_ends = self.expand_ends(spec["a"], a_path)
        b_ends = self.expand_ends(spec["b"], b_path)
        if not a_ends or not b_ends:
            return None
        if len(a_ends) != len(b_ends):
            self.problem(
                path,
                f"a expands to {len(a_ends)} ends and b to {len(b_ends)}; "
                "they are paired in order and must match",
            )
            return None
        return a_ends, b_ends, a_path, b_path

    def _mesh_pairs(
        self, mesh: dict[str, Any], path: PathKey, devices: dict[str, Device]
    ) -> Pairs | None:
        per_pair = mesh.get("links_per_pair", 1)
        sides = []
        for side in ("a", "b"):
            side_path = (*path, side)
            names = self.expand(mesh[side]["devices"], (*side_path, "devices"))
            ports = self.expand(mesh[side]["ports"], (*side_path, "ports"))
            sides.append((names, ports, side_path))
        (a_names, a_ports, a_path), (b_names, b_ports, b_path) = sides
        links = len(a_names) * len(b_names) * per_pair
        if links > MAX_PORTS // 2:
            self.cap_reached(path, f"the mesh makes {links:,} links (at most {MAX_PORTS // 2:,})")
            return None
        needed = {"a": len(b_names) * per_pair, "b": len(a_names) * per_pair}
        for side, (names, ports, side_path) in zip("ab", sides, strict=True):
            if names and len(ports) < needed[side]:
                self.problem(
                    (*side_path, "ports"),
                    f"each {side} device needs {needed[side]} ports for the mesh, "
                    f"ports gives {len(ports)}",
                )
                return None
        a_ends: list[Endpoint] = []
        b_ends: list[Endpoint] = []
        add_a, add_b = a_ends.append, b_ends.append
        make = tuple.__new__  # Endpoint(node, port) without its Python-level __new__
        b_next = dict.fromkeys(b_names, 0)
        for a_name in a_names:
            a_next = 0
            for b_name in b_names:
                for _ in range(per_pair):
                    add_a(make(Endpoint, (a_name, a_ports[a_next])))
                    add_b(make(Endpoint, (b_name, b_ports[b_next[b_name]])))
                    a_next += 1
                    b_next[b_name] += 1
        return a_ends, b_ends, a_path, b_path

    def _check_link(
        self,
        a: Endpoint,
        b: Endpoint,
        a_path: PathKey,
        b_path: PathKey,
        devices: dict[str, Device],
        servers: dict[str, Server],
    ) -> bool:
        if self.broken and {a.node, b.node, str(a), str(b)} & self.broken:
            return False
        a_speed = self._endpoint_speed(a, a_path, devices, servers)
        if a_speed is None:
            return False
        b_speed = self._endpoint_speed(b, b_path, devices, servers)
        if b_speed is None:
            return False
        if a == b:
            self.problem(a_path, f"{a} is linked to itself")
            return False
        if a.node in servers and b.node in servers:
            self.problem(a_path, f"{a} - {b}: a link needs a switch on at least one end")
            return False
        if a_speed != b_speed:
            key, pair = (a_path, a_speed, b_speed), (a, b, a_path)
            if b.node in servers or a.node in servers:  # said at the NIC, switch port first
                switch, nic = (a, b) if b.node in servers else (b, a)
                speeds = (a_speed, b_speed) if nic is b else (b_speed, a_speed)
                nic_path = self.nic_speed_paths[servers[nic.node].nics[nic.port].where]
                key, pair = (nic_path, *speeds), (switch, nic, a_path)
            self.speed_mismatches.setdefault(key, []).append(pair)
            return False
        return True

    def _endpoint_speed(
        self,
        end: Endpoint,
        path: PathKey,
        devices: dict[str, Device],
        servers: dict[str, Server],
    ) -> int | None:
        """The speed of a free port or NIC at end; None, with the problem said, otherwise."""
        node, port_name = end
        ports = _ports_of(node, devices, servers)
        port = None if ports is None else ports.get(port_name)
        if port is not None and end not in self.link_index:
            return int(port.speed_mbps)  # the 65,536 links of a 32k fabric end here
        if ports is None:
            known = [*devices, *servers]
            self.problem(path, f"no device or server {node!r}{suggest(node, known)}")
        elif port is None:
            self.problem(path, f"{node} has no port {port_name!r}{suggest(port_name, ports)}")
        else:
            self.problem(
                path,
                f"{end} is already used by the link at {self.links[self.link_index[end]].where}",
            )
        return None

    def resolve(self) -> Inventory:
        asics = self.resolve_asics()
        devices = self.resolve_devices(asics)
        servers = self.resolve_servers(devices)
        links = self.resolve_links(devices, servers)
        if self.problems:
            raise InputError(self.problems)
        fabric = self.data["fabric"]
        return Inventory(
            file=self.doc.file,
            fabric_name=fabric["name"],
            fabric_description=fabric.get("description", ""),
            devices=devices,
            servers=servers,
            links=links,
            lint_ignore=dict(fabric.get("lint_ignore", {})),
            policy=self.policy([fabric.get("policy", {})]),
            nic_operator={k: str(v) for k, v in fabric.get("nic_operator", {}).items()},
            _link_index=self.link_index,
        )


# A link entry's links: its a ends, its b ends (paired in order), where a's and b's problems
# are said (two lists, not a tuple per link: 262,144 links at 131,072 GPUs)
Pairs = tuple[list[Endpoint], list[Endpoint], PathKey, PathKey]


def _ports_of(
    node: str, devices: dict[str, Device], servers: dict[str, Server]
) -> dict[str, Port] | dict[str, Nic] | None:
    """The ports of the switch or the NICs of the server called node (None: neither)."""
    device = devices.get(node)
    if device is not None:
        return device.ports
    server = servers.get(node)
    return None if server is None else server.nics


def resolve_inventory(document: Document) -> Inventory:
    return _Resolver(document).resolve()


# A DNS host name (RFC 1123 section 2.1: labels of letters, digits and inner hyphens, up to
# 63 characters, 253 in all); a last label of digits only is a mistyped IPv4 address, no name
_HOST_NAME = re.compile(
    r"(?=.{1,253}\.?$)([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)*"
    r"(?![0-9]+\.?$)[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.?"
)


def _not_a_host(address: str) -> str | None:
    """Why `address` is no management address, or None. ssh and napalm connect to it as
    given: an IP address or a DNS name, nothing that reads as an option or a prefix (the
    schema refuses their characters; this judges each address a range expands to)."""
    try:
        ipaddress.ip_address(address)
        return None
    except ValueError:
        pass
    if _HOST_NAME.fullmatch(address):
        return None
    return f"{address!r} is not an IP address or a DNS name"
