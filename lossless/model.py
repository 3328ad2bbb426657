"""The validated inventory: what the user wrote, with ranges expanded and defaults resolved."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from lossless.asics import Asic
from lossless.text.grammar import plural


class Location(NamedTuple):
    """Where in a file something was written (a named tuple: cheap to hash and compare)."""

    file: str
    line: int
    column: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


@dataclass(frozen=True)
class TrafficClass:
    dscp: int
    priority: int


@dataclass(frozen=True)
class RocePolicy:
    data: TrafficClass
    cnp: TrafficClass


@dataclass(frozen=True)
class EcnPolicy:
    preset: str | None
    min_bytes: int | None
    max_bytes: int | None
    probability_percent: int | None
    fan_out: int  # congested egress queues one ingress PG may feed (PFC fires at T/f)
    # The inventory chose no Kmax (no ecn preset or max_bytes anywhere): the default preset's
    # Kmax is lowered to the queue's PFC trigger, so the default marks fully before PFC fires
    fit_to_trigger: bool = False


@dataclass(frozen=True)
class WatchdogPolicy:
    enabled: bool
    detection_ms: int
    restoration_ms: int
    poll_ms: int
    action: str


@dataclass(frozen=True)
class EcmpPolicy:
    hash_fields: tuple[str, ...]
    seed: int | None
    resilient: bool
    # SONiC: lossless owns DEVICE_METADATA type, set per tier (orchagent's hash seed comes
    # from it); off, the switch's own type stays
    device_type: bool = False


@dataclass(frozen=True)
class HeadroomPolicy:
    lossless_mtu: int
    small_packet_percent: int
    shared_headroom_pool: bool | None  # None: as the ASIC's SONiC SKUs ship it
    over_subscribe_ratio: int | None
    dynamic_th: int | None  # None: the ASIC's lossless PG dynamic_th
    override: bool = False  # state the planned headroom bytes where the switch sizes it itself


@dataclass(frozen=True)
class SchedulerPolicy:
    roce_weight: int
    default_weight: int


@dataclass(frozen=True)
class HostPolicy:
    """Host-side RoCE settings the NICs linked to a switch inherit (schema: host_policy)."""

    trust: str
    mtu: int
    ecn_np: bool
    ecn_rp: bool
    dcqcn: tuple[tuple[str, int], ...]  # sorted (name, value) pairs
    gid_index: int | None
    sriov_vfs: int

    @staticmethod
    def from_mapping(values: dict[str, Any]) -> HostPolicy:
        return HostPolicy(
            trust=values["trust"],
            mtu=values["mtu"],
            ecn_np=values["ecn"]["np"],
            ecn_rp=values["ecn"]["rp"],
            dcqcn=tuple(sorted(values["dcqcn"].items())),
            gid_index=values["gid_index"],
            sriov_vfs=values["sriov_vfs"],
        )

    def mapping(self) -> dict[str, Any]:
        """The inventory's shape of these settings, for merging server and NIC overrides."""
        return {
            "trust": self.trust,
            "mtu": self.mtu,
            "ecn": {"np": self.ecn_np, "rp": self.ecn_rp},
            "dcqcn": dict(self.dcqcn),
            "gid_index": self.gid_index,
            "sriov_vfs": self.sriov_vfs,
        }


@dataclass(frozen=True)
class Policy:
    roce: RocePolicy
    mtu: int
    ecn: EcnPolicy
    pfc_watchdog: WatchdogPolicy
    ecmp: EcmpPolicy
    headroom: HeadroomPolicy
    scheduler: SchedulerPolicy
    host: HostPolicy

    @staticmethod
    def from_mapping(values: dict[str, Any]) -> Policy:
        roce = values["roce"]
        ecmp = dict(values["ecmp"])
        ecmp["hash_fields"] = tuple(ecmp["hash_fields"])
        return Policy(
            roce=RocePolicy(TrafficClass(**roce["data"]), TrafficClass(**roce["cnp"])),
            mtu=values["mtu"],
            ecn=EcnPolicy(**values["ecn"]),
            pfc_watchdog=WatchdogPolicy(**values["pfc_watchdog"]),
            ecmp=EcmpPolicy(**ecmp),
            headroom=HeadroomPolicy(**values["headroom"]),
            scheduler=SchedulerPolicy(**values["scheduler"]),
            host=HostPolicy.from_mapping(values["host"]),
        )


@dataclass
class Port:
    name: str
    speed_mbps: int
    lanes: int
    lossless: bool | None  # None: lossless when the port is linked
    description: str
    profile: str | None
    policy: Policy
    where: Location
    lint_ignore: dict[str, str] = field(default_factory=dict)
    # a Layer 3 port (NX-OS `no switchport`), or not; None: as its link says (render.routed)
    routed: bool | None = None
    # policy key ("mtu", "ecn", "pfc_watchdog.poll_ms", ...) -> where the inventory set it
    # (the most specific layer that did); keys left at the built-in default are absent
    policy_origin: dict[str, Location] = field(default_factory=dict)


@dataclass
class Device:
    name: str
    role: str
    os: str
    asic: Asic
    platform: str | None
    mgmt: str | None
    gearbox_delay_ns: float
    policy: Policy
    ports: dict[str, Port]
    where: Location
    description: str = ""
    lint_ignore: dict[str, str] = field(default_factory=dict)
    policy_origin: dict[str, Location] = field(default_factory=dict)  # as Port's
    os_version: str | None = None  # the OS release rendered for (None: the newest)


@dataclass
class Nic:
    name: str
    speed_mbps: int
    model: str | None
    host: dict[str, Any]  # host settings written on the NIC (schema host_settings keys)
    where: Location


@dataclass
class Server:
    name: str
    model: str | None
    nics: dict[str, Nic]
    where: Location
    description: str = ""
    host: dict[str, Any] = field(default_factory=dict)  # host settings for all its NICs
    forwards: bool = False  # routes between its NICs: a hop of the fabric


class Endpoint(NamedTuple):
    """One end of a link: a switch port or a server NIC. A named tuple: fabrics have hundreds
    of thousands of them, hashed and compared in tuple speed."""

    node: str
    port: str

    def __str__(self) -> str:
        return f"{self.node}:{self.port}"


@dataclass
class Link:
    a: Endpoint
    b: Endpoint
    cable_m: float
    cable_type: str | None
    description: str
    where: Location

    def other_end(self, endpoint: tuple[str, str]) -> Endpoint:
        """The end that is not `endpoint` (an Endpoint, or the plain tuple it equals)."""
        return self.b if endpoint == self.a else self.a


@dataclass
class Inventory:
    file: str
    fabric_name: str
    fabric_description: str
    devices: dict[str, Device]
    servers: dict[str, Server]
    links: list[Link]
    lint_ignore: dict[str, str] = field(default_factory=dict)
    policy: Policy | None = None  # the fabric's policy (what a NIC without a link inherits)
    # fabric.nic_operator: the NVIDIA nic-configuration-operator release ("version") and
    # namespace the servers' resources are rendered for (empty: the defaults)
    nic_operator: dict[str, str] = field(default_factory=dict)
    # both ends of every link -> its index; keys are Endpoints, found by plain tuples too
    _link_index: dict[tuple[str, str], int] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        if not self._link_index:  # the resolver gives the one it made while checking links
            for index, link in enumerate(self.links):
                self._link_index[link.a] = self._link_index[link.b] = index

    def cabled_to(self, node: str, port: str) -> tuple[Link, Endpoint] | tuple[None, None]:
        """The link at node:port and its other end. Looked up with a plain tuple, which
        equals the Endpoint (a named tuple) and is faster to make: the planner asks for
        every port of the fabric."""
        index = self._link_index.get((node, port))
        if index is None:
            return None, None
        link = self.links[index]
        return link, link.other_end((node, port))

    def link_indices_of(self, names: Iterable[str]) -> list[int]:
        """The indices in `links` of the links with an end on one of these devices, in
        inventory order; found through their ports, so a one-device run does not scan the
        65,536 links of a 32k fabric."""
        found = {
            self._link_index[end]
            for name in names
            for port in self.devices[name].ports
            if (end := Endpoint(name, port)) in self._link_index
        }
        return sorted(found)

    def links_of(self, names: Iterable[str]) -> list[Link]:
        """The links with an end on one of these devices, in inventory order."""
        return [self.links[index] for index in self.link_indices_of(names)]

    def counts(self) -> dict[str, int]:
        """How many of each thing the inventory describes, by singular noun."""
        return {
            "device": len(self.devices),
            "port": sum(len(d.ports) for d in self.devices.values()),
            "server": len(self.servers),
            "NIC": sum(len(s.nics) for s in self.servers.values()),
            "link": len(self.links),
        }

    def with_link_peers(self, names: list[str]) -> list[str]:
        """These devices and the switches at the other end of their links, in inventory order:
        what checking a change to these devices needs (both ends of a link are compared)."""
        wanted = set(names)
        for link in self.links_of(names):
            wanted.update((link.a.node, link.b.node))
        return [name for name in self.devices if name in wanted]

    def summary(self) -> str:
        counted = ", ".join(plural(count, noun) for noun, count in self.counts().items())
        return f"fabric {self.fabric_name}: {counted}"
