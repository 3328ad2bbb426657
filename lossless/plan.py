"""The FabricPlan: vendor-neutral lossless intent per device and port.

The planner builds it from an inventory; vendor parsers (later) build it from configs;
lint rules read only this. Every computed number names the derivation it came from
(FabricPlan.derivations), which `lossless explain` prints.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from typing import Any, TypeVar

NOT_IN_JSON = {"json": False}  # field metadata: kept out of the plan JSON
PlanObject = TypeVar("PlanObject")


def replaced(plan: PlanObject, **changes: Any) -> PlanObject:
    """dataclasses.replace of a plan object, several times faster (every field of a plan
    class is an argument of its __init__, so no field needs the checks replace makes):
    renderers and the planner copy one for every port of a fabric."""
    return type(plan)(**{**vars(plan), **changes})


def located(subject: Any, *facts: str) -> str:
    """FILE:LINE:COL where the first of these facts of a port or device plan was stated, else
    where the port or device itself was."""
    for fact in facts:
        where = subject.sources.get(fact)
        if where:
            return where
    return subject.source


# HeadroomPlan.model of headroom read from a config, and of a PG whose headroom the switch
# sizes itself from speed and cable length (SONiC dynamic buffer model, profile "NULL"): its
# bytes are not in the config (0 here), so rules do not judge them.
HEADROOM_FROM_CONFIG = "config"
HEADROOM_BY_SWITCH = "switch"


# A port plan's headroom, ECN and watchdog are frozen values: the planner gives every port
# whose part equals another's the same object (a 32k-GPU fabric has 98,304 ports and a few
# dozen distinct parts; building one each was a quarter of planning). Change a port's part by
# replacing it: port.ecn[0] = replaced(port.ecn[0], min_bytes=...).
@dataclass(frozen=True)
class HeadroomPlan:
    priority_group: int
    xon: int
    xoff: int
    size: int
    model: str  # the planner's headroom model, HEADROOM_FROM_CONFIG or HEADROOM_BY_SWITCH
    derivation: str
    model_xoff: int | None = None  # the model's own xoff, before the vendor-table floor
    vendor_floor_xoff: int | None = None  # the published table's xoff here (None: no table)
    vendor_floor_source: str | None = None  # which published row(s), upstream path and commit
    fallback: str | None = None  # the model lacked a value for this input and used another

    @property
    def by_switch(self) -> bool:
        return self.model == HEADROOM_BY_SWITCH


@dataclass(frozen=True)
class EcnPlan:
    queue: int
    min_bytes: int
    max_bytes: int
    probability_percent: int
    preset: str | None
    pfc_trigger_bytes: int | None  # PG occupancy at which PFC fires, T (None: unknown)
    min_below_trigger: bool | None  # ECN starts marking before PFC can fire (Kmin < T/f)
    max_below_trigger: bool | None  # ECN marks fully before PFC can fire (Kmax <= T/f)
    derivation: str
    queue_trigger_bytes: int | None = None  # T/f: an egress queue's level when PFC fires
    largest_pgs_min: int | None = None  # the most congested PGs with Kmin still below T/f
    largest_pgs_max: int | None = None  # the most congested PGs with Kmax still at most T/f
    # WRED's averaging weight where the OS has one (EOS, NX-OS): the queue is averaged over
    # about 2^weight packets; 0 marks on the instantaneous queue, what DCQCN's thresholds
    # assume (a larger weight marks late, after the queue has grown).
    weight: int = 0


@dataclass(frozen=True)
class WatchdogPlan:
    enabled: bool
    detection_ms: int
    restoration_ms: int
    poll_ms: int
    action: str


@dataclass
class PortPlan:
    name: str
    description: str
    speed_mbps: int
    lanes: int
    # IP MTU in bytes: the largest IP packet the port carries, without the Ethernet header.
    # It is what EOS, NX-OS, SONiC and NVUE call the interface MTU; a Junos interface MTU
    # counts the 14-byte header, so the Junos vendor renders mtu + 14 and parses back - 14.
    # Both ends of a link compare equal in these terms whatever their OS (LL106).
    mtu: int
    peer: str | None
    peer_kind: str | None  # "switch" or "server"
    cable_m: float | None
    lossless: bool
    pfc_priorities: list[int]
    headroom: list[HeadroomPlan]
    ecn: list[EcnPlan]
    watchdog: WatchdogPlan | None
    source: str
    lint_ignore: dict[str, str] = field(default_factory=dict)  # rule ID -> reason
    wred_drop_queues: list[int] = field(default_factory=list)  # queues a config WRED-drops on
    # What the port classifies ingress traffic by: "dscp" (every plan), or what a config
    # states or leaves to the OS default ("cos", "none")
    trust: str = field(default="dscp", metadata=NOT_IN_JSON)
    # A Layer 3 port: the inventory's `routed`, or a config's `no switchport` (NX-OS); None:
    # not said (NX-OS routes a link to a switch at an MTU a switchport cannot take)
    routed: bool | None = field(default=None, metadata=NOT_IN_JSON)
    # A config's bound on the frames outside the lossless classes where it is below `mtu`
    # (NX-OS: a switchport's best effort is bounded by the default network-qos class MTU);
    # None: `mtu` bounds them too (every plan)
    lossy_mtu: int | None = field(default=None, metadata=NOT_IN_JSON)
    # Where each fact was stated (fact name as in vendors.facts.PORT_FACTS -> FILE:LINE:COL):
    # the config line a parser read it from, or the inventory line that set it. Findings
    # about a fact point there; `source` is the fallback.
    sources: dict[str, str] = field(default_factory=dict, metadata=NOT_IN_JSON)
    # Facts only one OS's config form states, by fact name, as its parser read them (SONiC:
    # the queues on a lossless egress buffer profile, the fields of a lossless PG's buffer
    # profile). Empty in a plan from an inventory: the OS's `expressed` derives them from what
    # its renderer writes, and compares the two.
    stated: dict[str, Any] = field(default_factory=dict, metadata=NOT_IN_JSON)


def shared_parts(port: PortPlan) -> tuple:
    """The identity of a port's headroom, ECN and watchdog objects: equal for two ports the
    planner gave the same parts (it shares equal ones), so ports alike are found without
    comparing values; equal values in separate objects (a parsed config's ports) only look
    different. The plan keeps the objects alive, so their ids stay theirs."""
    return tuple(map(id, port.headroom)), tuple(map(id, port.ecn)), id(port.watchdog)


@dataclass
class QueuePlan:
    queue: int
    scheduler: str  # "strict" or "dwrr"
    weight: int | None
    lossless: bool
    traffic: str  # "roce", "cnp", "default"


@dataclass
class QosMaps:
    dscp_to_tc: dict[int, int]
    tc_to_queue: dict[int, int]
    tc_to_pg: dict[int, int]
    pfc_priority_to_queue: dict[int, int]


@dataclass
class EcmpPlan:
    hash_fields: list[str]
    seed: int | None  # None: a parsed config that does not state it
    seed_source: str
    resilient: bool
    hashes_udp_source_port: bool | None  # None: not stated
    # Per-switch hash offset / rotate (which hash bits pick the member), None: not stated
    hash_offset: int | None = None


@dataclass
class BudgetPlan:
    buffer_bytes: int | None
    buffer_evidence: str
    lossless_pgs: int  # every real port x lossless PGs, not only the listed ports
    reserved_headroom_bytes: int  # sum of per-PG `size` (+ the lossy PG of every port)
    shared_headroom_pool_bytes: int  # 0 without a shared headroom pool
    over_subscribe_ratio: int | None
    total_headroom_bytes: int
    shared_buffer_bytes: int | None  # what is left for the shared pools
    utilisation_percent: float | None
    fits: bool | None
    largest_port_headroom_bytes: int  # reserved by the busiest port (its PGs + lossy PG)
    max_headroom_per_port_bytes: int | None
    derivation: str
    ports: int = 0  # the platform's real port count (what the budget and the PFC trigger use)
    ports_source: str = ""
    unlisted_ports: int = 0  # real ports the inventory does not list, at the largest headroom
    lossy_pg_bytes: int = 0  # the lossy PG of every real port
    largest_port_xoff_bytes: int = 0  # xoff one port's PGs draw from a shared headroom pool
    shp_per_port_cap_bytes: int | None = None  # the pool's per-port cap (None: not published)
    per_port_fits: bool | None = None  # both per-port limits hold (None: neither is known)


@dataclass
class PfcTriggerPlan:
    """When PFC fires on a device, against which its ECN thresholds are checked."""

    ports: int  # the platform's real port count
    lossless_pgs_per_port: int
    sharing_pgs: int  # n = ports x lossless PGs: every PG that can congest the shared pool
    shared_buffer_bytes: int | None  # B: the shared part of the ingress lossless pool
    buffer_partitions: int  # B is split between these (ITMs); a PG sees one share
    dynamic_th: int
    alpha: float
    fan_out: int  # f: congested egress queues one ingress PG feeds
    trigger_bytes: int | None  # T(n) = alpha*B/(1+n*alpha), per partition
    queue_trigger_bytes: int | None  # T/f
    largest_n_ecn_before_pfc: int | None  # the most PGs with every Kmin still below T/f
    largest_n_full_marking_before_pfc: int | None  # the same for every Kmax
    derivation: str


@dataclass
class HeadroomSettings:
    lossless_mtu: int
    small_packet_percent: int
    shared_headroom_pool: bool  # the policy's choice, else as the ASIC's SONiC SKUs ship
    over_subscribe_ratio: int | None
    dynamic_th: int  # the policy's choice, else the ASIC's lossless PG dynamic_th
    gearbox_delay_ns: float = 0.0
    # The inventory asks for the planned headroom bytes in configs of switches that size
    # headroom themselves (inventory `headroom.override`); a parser sets it when the config
    # states headroom bytes.
    override: bool = False


@dataclass
class DevicePlan:
    name: str
    role: str
    os: str
    asic: str
    platform: str | None
    mgmt: str | None
    roce_dscp: int
    roce_priority: int
    cnp_dscp: int
    cnp_priority: int
    lossless_priorities: list[int]
    max_lossless_priorities: int
    maps: QosMaps
    queues: list[QueuePlan]
    ecmp: EcmpPlan
    watchdog: WatchdogPlan
    headroom_settings: HeadroomSettings
    budget: BudgetPlan
    ports: dict[str, PortPlan]
    source: str
    lint_ignore: dict[str, str] = field(default_factory=dict)
    # False when the plan comes from a config that does not hold headroom (the switch sizes it)
    headroom_known: bool = True
    pfc_trigger: PfcTriggerPlan | None = None  # None when a config alone is linted
    # Where each device fact was stated (names as in vendors.facts.DEVICE_FACTS), see PortPlan
    sources: dict[str, str] = field(default_factory=dict, metadata=NOT_IN_JSON)
    # Shared-buffer partitions, percent of the shared buffer ("ingress lossless", "egress
    # lossy", ...), for OSes whose config states them (Junos shared-buffer); empty otherwise.
    buffer_partitions: dict[str, int] = field(default_factory=dict, metadata=NOT_IN_JSON)
    # What a config linted alone does not say and lint assumed, by fact ("roce_dscp",
    # "cnp_dscp", "asic") -> how it was chosen; rules name it where their verdict rests on it.
    assumed: dict[str, str] = field(default_factory=dict, metadata=NOT_IN_JSON)
    # The OS release the config is rendered for (inventory `os_version`); None: the newest the
    # vendor renders for (a config read back says nothing of it).
    os_version: str | None = field(default=None, metadata=NOT_IN_JSON)
    # lossless owns the OS's tier setting its ECMP seed comes from (SONiC DEVICE_METADATA
    # type: policy.ecmp.device_type), or a config states it
    tier_type: bool = field(default=False, metadata=NOT_IN_JSON)
    # True for a config read back: its queues and classes are the OS's own, where a plan from
    # an inventory is vendor-neutral and takes Vendor.as_rendered to be in the OS's terms.
    from_config: bool = field(default=False, metadata=NOT_IN_JSON)
    # Strict-priority level of a strict queue, 1 the highest, where a config states another:
    # NX-OS (`priority level N`) serves a strict queue only while no strict queue of a lower
    # level has a frame. Empty: every strict queue at the one level (every plan, other OSes).
    strict_levels: dict[int, int] = field(default_factory=dict, metadata=NOT_IN_JSON)
    # Device facts only one OS's config form states, as its parser read them (PortPlan.stated)
    stated: dict[str, Any] = field(default_factory=dict, metadata=NOT_IN_JSON)


@dataclass
class LinkPlan:
    a: str
    b: str
    cable_m: float
    source: str


@dataclass
class NicPlan:
    """The host end of a link: a server NIC's RoCE settings, inherited from the switch port at
    the other end of its cable unless the inventory overrides them.

    Parsed host state fills the same fields; None there means the state does not say."""

    server: str
    name: str  # the interface name
    model: str | None
    peer: str | None  # "switch:port" at the other end of the cable
    speed_mbps: int | None
    mtu: int | None  # IP MTU of the interface
    trust: str | None  # "dscp" or "pcp": what the NIC classifies received packets by
    pfc_priorities: list[int] | None
    roce_dscp: int | None  # DSCP of RoCE data (traffic class byte = DSCP << 2)
    roce_priority: int | None  # priority RoCE data is sent and received on
    cnp_dscp: int | None
    cnp_priority: int | None  # priority CNPs are sent on
    ecn_np: bool | None  # DCQCN notification point on the RoCE priority
    ecn_rp: bool | None  # DCQCN reaction point on the RoCE priority
    link_pause: bool | None  # 802.3x pause (never together with PFC)
    cable_m: int | None  # cable length the NIC sizes its receive buffer thresholds for
    dcqcn: dict[str, int]  # DCQCN parameters by neutral name; unset: firmware default
    gid_index: int | None
    sriov_vfs: int | None
    source: str
    sources: dict[str, str] = field(default_factory=dict)  # per field, where it was read
    # What only a host's saved state shows (None in a plan: the inventory does not set them):
    # the NIC's receive buffer sizes in bytes by buffer 0..7 and the buffer of each priority
    # 0..7 (`mlnx_qos` "Receive buffer size" line and PFC table "buffer" row), who runs DCBX
    # ("os" or "firmware", its "DCBX mode" line) and the firmware's non-volatile CNP class
    # (mlxconfig CNP_DSCP_Pn and CNP_802P_PRIO_Pn, the value of the next boot);
    rx_buffers: list[int] | None = None
    prio2buffer: list[int] | None = None
    dcbx: str | None = None
    firmware_cnp_dscp: int | None = None
    firmware_cnp_priority: int | None = None
    # the firmware's DCBX agent on and willing to take the switch's settings (mlxconfig
    # LLDP_NB_DCBX_Pn and DCBX_WILLING_Pn both true; False if either is false)
    firmware_dcbx_willing: bool | None = None
    # the RDMA device of the interface (mlx5_0 of eth0), for NCCL_IB_HCA: the inventory's NIC
    # key rdma_device; None: not known
    rdma_device: str | None = None

    def where(self, field_name: str) -> str:
        """FILE:LINE:COL of one setting (parsed state), else of the NIC."""
        return self.sources.get(field_name, self.source)


@dataclass
class FabricPlan:
    name: str
    inventory: str
    devices: dict[str, DevicePlan]
    links: list[LinkPlan]
    nics: dict[str, NicPlan] = field(default_factory=dict)  # "server:nic"
    # servers that route between their NICs (hops of the fabric) -> where they are defined
    forwarding_servers: dict[str, str] = field(default_factory=dict)
    # False for a plan of some devices only (`--device`): fabric-wide properties such as PFC
    # deadlock freedom cannot be judged from a part of the topology
    complete: bool = field(default=True, metadata=NOT_IN_JSON)
    lint_ignore: dict[str, str] = field(default_factory=dict)
    # the inventory's fabric.nic_operator (release, namespace) for the servers' resources
    nic_operator: dict[str, str] = field(default_factory=dict, metadata=NOT_IN_JSON)
    _cables: dict[str, dict[str, float]] = field(default_factory=dict, repr=False, compare=False)
    _ends: list[tuple[LinkPlan, str, str, str, str]] = field(
        default_factory=list, repr=False, compare=False
    )
    # What plans the NICs when plan_fabric left them for their first reader (planned_nics)
    _nics_later: Callable[[], dict[str, NicPlan]] | None = field(
        default=None, repr=False, compare=False
    )

    def planned_nics(self) -> dict[str, NicPlan]:
        """The NIC plans (`nics`; read them through here). plan_fabric(hosts="later") leaves
        them to their first reader, which on a large fabric is a worker process (lint's host
        rules, the plan JSON's NICs): the 32,768 NICs of a 32k fabric are then planned beside
        other work instead of before it."""
        if self._nics_later is not None:
            self.nics = self._nics_later()
            self._nics_later = None
        return self.nics

    def link_cable_m(self, device: str, port: str) -> float | None:
        """Length of the cable at device:port as the inventory has it, if it is linked."""
        return self.link_cables(device).get(port)

    def link_cables(self, device: str) -> dict[str, float]:
        """port -> length of its cable as the inventory has it, for a device's linked ports.
        Worked out once per plan from link_ends (a "device:port" text made per port to look
        a length up cost more than the rules that read it)."""
        if not self._cables and self.links:
            for link, node_a, port_a, node_b, port_b in self.link_ends():
                self._cables.setdefault(node_a, {})[port_a] = link.cable_m
                self._cables.setdefault(node_b, {})[port_b] = link.cable_m
        return self._cables.get(device, {})

    def link_ends(self) -> list[tuple[LinkPlan, str, str, str, str]]:
        """Each link with its ends split: (link, node a, port a, node b, port b). Worked out
        once, as link_cable_m's lengths are (a plan's links do not change)."""
        if not self._ends and self.links:
            for link in self.links:
                node_a, _, port_a = link.a.partition(":")
                node_b, _, port_b = link.b.partition(":")
                self._ends.append((link, node_a, port_a, node_b, port_b))
        return self._ends

    derivations: dict[str, dict[str, Any]] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        self.planned_nics()
        return plain(self)


@cache
def json_fields(cls: type) -> tuple[str, ...] | None:
    """The fields of a dataclass that the plan JSON holds, in order (None: not a dataclass)."""
    if not dataclasses.is_dataclass(cls):
        return None
    return tuple(
        f.name
        for f in dataclasses.fields(cls)
        if not f.name.startswith("_") and f.metadata.get("json", True)
    )


def plain(value: Any) -> Any:
    """JSON-ready data: dataclasses as mappings, mapping keys as strings (JSON has no
    integer keys). Faster than dataclasses.asdict, which deep-copies every leaf."""
    fields = None if isinstance(value, type) else json_fields(value.__class__)
    if fields is not None:
        return {name: plain(getattr(value, name)) for name in fields}
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    return value
