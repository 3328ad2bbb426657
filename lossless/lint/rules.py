"""The lint rules. Sources refer to docs/reference (docs/reference/physics.md section 4 numbers its
PFC-safety rules; docs/reference/vendors.md section 6 lists cross-vendor checks)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from functools import lru_cache
from typing import Any

from lossless.asics import catalogue
from lossless.lint.groups import device_groups, in_port_order
from lossless.lint.registry import computed_once, rule
from lossless.plan import DevicePlan, EcnPlan, FabricPlan, PortPlan, located
from lossless.planner.headroom import compute_headroom
from lossless.planner.headroom_common import HeadroomInputs, HeadroomResult
from lossless.planner.pfc_trigger import loosest_trigger
from lossless.text.grammar import first_few, plural
from lossless.text.ranges import runs
from lossless.text.units import format_speed, whole_metres
from lossless.vendors.registry import OS_NAMES, asic_vendors, max_mtu, vendor_for

ROCE_MIN_MTU = 9000
# The IP MTU a 4096-byte RoCE v2 payload (the largest RDMA path MTU, the NICs' default) needs:
# IPv6 40 + UDP 8 + BTH 12 + RETH 16 + ImmDt 4 + payload 4096 + ICRC 4 (InfiniBand
# Architecture Spec. vol. 1 ch. 9 header sizes; RoCE v2 = IBTA Annex A17, UDP port 4791).
ROCE_4096_IP_MTU = 40 + 8 + 12 + 16 + 4 + 4096 + 4


SwitchEnds = tuple[Any, PortPlan, DevicePlan, PortPlan, DevicePlan]


def _switch_ends(fabric: FabricPlan) -> list[SwitchEnds]:
    """Links whose two ends are planned switch ports, as (link, port a, device a, port b,
    device b): found once per lint run for the four link rules (half a 128k fabric's
    262,144 links)."""
    return computed_once("switch ends", fabric, lambda: list(_ends_on_switches(fabric)))


def _ends_on_switches(fabric: FabricPlan) -> Iterator[SwitchEnds]:
    devices = fabric.devices
    for link, node_a, name_a, node_b, name_b in fabric.link_ends():
        device_a, device_b = devices.get(node_a), devices.get(node_b)
        if device_a is None or device_b is None:
            continue
        port_a, port_b = device_a.ports.get(name_a), device_b.ports.get(name_b)
        if port_a is not None and port_b is not None:
            yield link, port_a, device_a, port_b, device_b


@lru_cache(maxsize=4096)
def _needed_headroom(asic_name: str, *values: Any) -> HeadroomResult:
    """The headroom a catalogue ASIC's model gives for HeadroomInputs(*values): a fabric has
    a few distinct inputs over thousands of ports, so each is computed once."""
    return compute_headroom(HeadroomInputs(*values), catalogue()[asic_name])


@rule(
    "LL101",
    "headroom-covers-cable",
    "error",
    "port",
    "docs/reference/physics.md 4 rule 1; docs/reference/sonic.md 1.4",
    facts=("headroom",),
    by_cable=True,
    shares="cable groups",
)
def headroom_covers_cable(port: PortPlan, device: DevicePlan, fabric: FabricPlan):
    """Every lossless priority group needs at least the headroom its link needs: the xoff the
    ASIC's headroom model gives for the port's speed, cable length, port MTU and lanes, and
    never less than the vendor's published table for that ASIC, speed and cable. Less headroom
    drops packets that were in flight when PFC paused the sender. Below the vendor's table is
    an error; at or above it but below the model (which is more conservative) a warning. A
    speed the model has no value for (SONiC's pause-quanta table stops at 800G) is a warning:
    the plan holds it to the next lower speed, SONiC's own dynamic headroom does not."""
    if not port.lossless or not device.headroom_known:
        return
    if not port.headroom:
        yield f"{port.name} is lossless but has no PFC headroom"
        return
    asic = catalogue().get(device.asic)
    cables = [c for c in (port.cable_m, fabric.link_cable_m(device.name, port.name)) if c]
    if not cables:
        return
    cable_m = max(cables)  # the configured length or the real one, whichever is longer
    if asic is None:
        yield from _headroom_below_any_asic(port, device, cable_m)
        return
    settings = device.headroom_settings
    needed = _needed_headroom(
        asic.name,
        port.speed_mbps,
        whole_metres(cable_m),
        port.mtu,
        port.lanes,
        settings.gearbox_delay_ns,
        settings.lossless_mtu,
        settings.small_packet_percent,
        settings.shared_headroom_pool,
    )
    floor = " with the vendor table as floor" if needed.vendor_floor_xoff is not None else ""
    for headroom in port.headroom:
        if headroom.by_switch:  # sized by the switch from the cable length (LL120 checks it)
            continue
        if headroom.xoff >= needed.xoff:
            continue
        message = (
            f"PG {headroom.priority_group} xoff {headroom.xoff} B is below the {needed.xoff} B "
            f"a {format_speed(port.speed_mbps)} link of {cable_m:g} m needs "
            f"({asic.headroom_model} model{floor})"
        )
        vendor = needed.vendor_floor_xoff
        if vendor is not None and headroom.xoff >= vendor:
            # The vendor's own table is the line that must hold; between it and our more
            # conservative model is a judgement, not a defect.
            yield "warning", f"{message}; it meets the vendor's published {vendor} B"
        else:
            yield message
    if needed.fallback:
        yield (
            "warning",
            f"{format_speed(port.speed_mbps)} headroom uses a fallback: {needed.fallback}",
        )


def _switches_of(device: DevicePlan) -> str:
    """ "supported EOS switch": the switches a config of this OS can be for."""
    title = vendor_for(device.os).title if device.os in OS_NAMES else ""
    return f"supported {title} switch".replace("  ", " ")


def _headroom_below_any_asic(port: PortPlan, device: DevicePlan, cable_m: float):
    """A config whose hardware is unknown: xoff below what every ASIC that runs the port's
    speed needs for its cable (each ASIC's published table where there is one, else its
    model) is short on whatever switch the config is for. A warning: the ASIC is assumed."""
    settings = device.headroom_settings
    vendors = asic_vendors(device.os)
    needs = []
    for asic in catalogue().values():
        if asic.vendor == "sonic" or (vendors and asic.vendor not in vendors):
            continue  # sonic-vs is a software switch
        if port.speed_mbps not in asic.speeds_mbps:
            continue
        needed = _needed_headroom(
            asic.name,
            port.speed_mbps,
            whole_metres(cable_m),
            port.mtu,
            port.lanes or asic.default_lanes(port.speed_mbps),
            settings.gearbox_delay_ns,
            settings.lossless_mtu,
            settings.small_packet_percent,
            settings.shared_headroom_pool,
        )
        floor = needed.vendor_floor_xoff if needed.vendor_floor_xoff is not None else needed.xoff
        needs.append((floor, asic.name))
    if not needs:
        return
    least, which = min(needs)
    for headroom in port.headroom:
        if not headroom.by_switch and headroom.xoff < least:
            yield (
                "warning",
                f"PG {headroom.priority_group} xoff {headroom.xoff} B is below the {least} B "
                f"any {_switches_of(device)} needs for a {format_speed(port.speed_mbps)} link of "
                f"{cable_m:g} m (the least: {which}). The hardware is not known; --asic or "
                "--platform judges it exactly",
            )


@rule(
    "LL120",
    "cable-length-covers-link",
    "error",
    "port",
    "docs/reference/physics.md 4 rule 2",
    facts=("cable_m",),
    by_cable=True,
    shares="cable groups",
)
def cable_length_covers_link(port: PortPlan, device: DevicePlan, fabric: FabricPlan):
    """The cable length a switch is configured with (SONiC CABLE_LENGTH, Cumulus and Junos
    cable-length) is at least the real cable: the switch sizes headroom from it."""
    real = fabric.link_cable_m(device.name, port.name)
    if (
        port.lossless
        and port.cable_m is not None
        and real is not None
        and (whole_metres(port.cable_m) < whole_metres(real))
    ):
        yield f"configured cable length {port.cable_m:g} m is shorter than the {real:g} m link"


@rule("LL200", "config-drift", "error", "config", "design.md: the plan is the intent")
def config_drift(*_):
    """A setting in the device's config differs from what the inventory plans for it."""
    return ()


@rule("LL201", "config-missing", "warning", "config", "design.md")
def config_missing(*_):
    """An inventory device has no config in the folder, or its OS has no parser yet: it is
    checked from the inventory alone."""
    return ()


@rule(
    "LL102",
    "reserved-size-consistent",
    "error",
    "port",
    "docs/reference/physics.md 4 rule 3",
    facts=("headroom",),
    settings_only=True,
)
def reserved_size_consistent(port: PortPlan, device: DevicePlan, fabric: FabricPlan):
    """The reserved size of a lossless PG holds xon plus xoff; with a shared headroom pool it
    holds xon and the pool holds xoff."""
    shared = device.headroom_settings.shared_headroom_pool
    for h in port.headroom:
        if h.by_switch:
            continue
        if shared and h.size < h.xon:
            yield f"PG {h.priority_group} size {h.size} B is below xon {h.xon} B"
        if not shared and h.size < h.xon + h.xoff:
            yield f"PG {h.priority_group} size {h.size} B is below xon + xoff = {h.xon + h.xoff} B"


@rule(
    "LL103",
    "buffer-budget",
    "error",
    "device",
    "docs/reference/physics.md 4 rule 4; docs/reference/sonic.md 1.4",
    facts=("budget",),
)
def buffer_budget(device: DevicePlan, fabric: FabricPlan):
    """The headroom a switch reserves on every port it really has (the platform's port count x
    lossless PGs, plus the lossy PG), and its shared headroom pool, must fit the ASIC's buffer;
    the busiest port must stay within the per-port headroom limit and the shared headroom
    pool's per-port cap where those are published. An overrun on a size that is not confirmed
    is a warning; an unknown buffer size is reported."""
    b = device.budget
    severity = "warning" if b.buffer_evidence == "UNV" else "error"
    if b.fits is None and b.lossless_pgs:
        yield "warning", f"{device.asic} has no known buffer size: headroom budget not checked"
    elif b.fits is False:
        yield (
            severity,
            (
                f"lossless headroom {b.total_headroom_bytes} B of {b.ports} ports "
                f"({b.lossless_pgs} PGs) exceeds the {b.buffer_bytes} B buffer "
                f"of {device.asic} ({b.utilisation_percent}%)"
            ),
        )
    if b.per_port_fits is False:
        limits = []
        if b.max_headroom_per_port_bytes is not None:
            limits.append(
                f"headroom {b.largest_port_headroom_bytes} B against the per-port maximum "
                f"{b.max_headroom_per_port_bytes} B"
            )
        if b.shp_per_port_cap_bytes is not None:
            limits.append(
                f"xoff {b.largest_port_xoff_bytes} B against the shared headroom pool's "
                f"per-port cap {b.shp_per_port_cap_bytes} B"
            )
        yield "error", f"the busiest port exceeds a per-port limit: {'; '.join(limits)}"


@rule(
    "LL104",
    "lossless-priority-count",
    "error",
    "device",
    "docs/reference/physics.md 4 rule 5",
    facts=("lossless_priorities",),
)
def lossless_priority_count(device: DevicePlan, fabric: FabricPlan):
    """No more lossless priorities than the ASIC supports, and no more than two unless
    justified: every lossless class multiplies the headroom the switch must reserve."""
    count = len(device.lossless_priorities)
    if count > device.max_lossless_priorities:
        limit = device.max_lossless_priorities
        yield f"{count} lossless priorities, {device.asic} supports {limit}"
    elif count > 2:
        yield "warning", f"{count} lossless priorities: each one multiplies the reserved headroom"


@rule(
    "LL105",
    "link-pfc-match",
    "error",
    "fabric",
    "docs/reference/physics.md 4 rule 6",
    shares="switch ends",
)
def link_pfc_match(fabric: FabricPlan):
    """Both ends of a link enable PFC for the same priorities; otherwise one end pauses a class
    the other end never stops sending, or ignores pauses it receives."""
    for ends in _switch_ends(fabric):
        link, a, _, b, _ = ends
        if (
            a.pfc_priorities != b.pfc_priorities  # equal lists: equal sorted
            and sorted(a.pfc_priorities) != sorted(b.pfc_priorities)
        ):
            yield from _link_findings(
                ends,
                "LL105",
                f"PFC priorities {a.pfc_priorities} on {link.a} but {b.pfc_priorities} on {link.b}",
                "pfc_priorities",
            )


@rule(
    "LL106",
    "link-mtu-match",
    "error",
    "fabric",
    "docs/reference/physics.md 4 rule 13",
    shares="switch ends",
)
def link_mtu_match(fabric: FabricPlan):
    """Both ends of a link use the same MTU: a mismatch truncates or drops large RoCE frames."""
    for ends in _switch_ends(fabric):
        link, a, _, b, _ = ends
        if a.mtu != b.mtu:
            yield from _link_findings(
                ends, "LL106", f"MTU {a.mtu} on {link.a} but {b.mtu} on {link.b}", "mtu"
            )


@rule(
    "LL107",
    "link-speed-match",
    "error",
    "fabric",
    "docs/reference/vendors.md 6",
    shares="switch ends",
)
def link_speed_match(fabric: FabricPlan):
    """Both ends of a link run at the same speed (and so need the same headroom)."""
    for ends in _switch_ends(fabric):
        link, a, _, b, _ = ends
        if a.speed_mbps and b.speed_mbps and a.speed_mbps != b.speed_mbps:  # 0: not stated
            yield from _link_findings(
                ends,
                "LL107",
                f"{format_speed(a.speed_mbps)} on {link.a} but "
                f"{format_speed(b.speed_mbps)} on {link.b}",
                "speed_mbps",
            )


@rule(
    "LL108",
    "link-dscp-map-match",
    "error",
    "fabric",
    "docs/reference/physics.md 4 rule 12",
    shares="switch ends",
)
def link_dscp_map_match(fabric: FabricPlan):
    """The RoCE DSCP maps to the same traffic class on both ends of a link: a pause names a
    priority, so the class one end pauses must be the class the other end queues RoCE in.
    The CNP's class number is each switch's own (it is never paused: LL113 and LL121 hold
    each end to a strict, lossy class), so only its DSCP crosses the link."""
    for ends in _switch_ends(fabric):
        _, _, device_a, _, device_b = ends
        dscp_a, dscp_b = device_a.roce_dscp, device_b.roce_dscp
        for dscp in (dscp_a,) if dscp_a == dscp_b else sorted((dscp_a, dscp_b)):
            tc_a, tc_b = device_a.maps.dscp_to_tc.get(dscp), device_b.maps.dscp_to_tc.get(dscp)
            if tc_a != tc_b:
                yield from _link_findings(
                    ends,
                    "LL108",
                    f"DSCP {dscp} maps to TC {tc_a} on "
                    f"{device_a.name} but TC {tc_b} on {device_b.name}",
                    "dscp_to_tc",
                )


@rule(
    "LL110",
    "ecn-on-lossless-queue",
    "error",
    "port",
    "docs/reference/physics.md 4 rule 10",
    facts=("ecn", "pfc_priorities"),
    settings_only=True,
)
def ecn_on_lossless_queue(port: PortPlan, device: DevicePlan, fabric: FabricPlan):
    """Every lossless queue marks ECN, so DCQCN slows senders before PFC has to pause them."""
    if not port.lossless:
        return
    marked = {e.queue for e in port.ecn}
    for priority in port.pfc_priorities:
        queue = device.maps.pfc_priority_to_queue.get(priority, priority)
        if queue not in marked:
            yield f"lossless queue {queue} has no ECN marking"


@rule(
    "LL122",
    "no-wred-drop-on-lossless",
    "error",
    "port",
    "docs/reference/physics.md 4 rule 10",
    facts=("wred_drop_queues",),
    settings_only=True,
)
def no_wred_drop_on_lossless(port: PortPlan, device: DevicePlan, fabric: FabricPlan):
    """No WRED drop on a lossless queue ("Do not enable WRED on lossless traffic flows",
    Juniper): the class is meant never to drop; only ECN marking belongs there."""
    lossless_queues = {device.maps.pfc_priority_to_queue.get(p, p) for p in port.pfc_priorities}
    for queue in sorted(lossless_queues & set(port.wred_drop_queues)):
        yield f"lossless queue {queue} has WRED drop enabled"


@rule(
    "LL111",
    "ecn-thresholds-valid",
    "error",
    "port",
    "docs/reference/physics.md 4 rule 10",
    facts=("ecn",),
    settings_only=True,
)
def ecn_thresholds_valid(port: PortPlan, device: DevicePlan, fabric: FabricPlan):
    """ECN thresholds satisfy 0 < Kmin < Kmax and 0 < Pmax <= 100, and mark on the
    instantaneous queue (WRED weight 0, where the OS has a weight): an averaged queue marks
    late, after it has grown past the thresholds DCQCN was tuned for."""
    for e in port.ecn:
        if e.weight:
            yield (
                f"queue {e.queue}: ECN averages the queue (weight {e.weight}), so it marks "
                "late; DCQCN needs the instantaneous queue, weight 0"
            )
        if not 0 < e.min_bytes < e.max_bytes:
            yield (
                f"queue {e.queue}: ECN min {e.min_bytes} B must be above 0 and below "
                f"max {e.max_bytes} B"
            )
        if not 0 < e.probability_percent <= 100:
            yield f"queue {e.queue}: ECN probability {e.probability_percent}% is outside 1..100"


@rule(
    "LL112",
    "ecn-before-pfc",
    "error",
    "port",
    "docs/reference/physics.md 3.4",
    facts=("ecn",),
    settings_only=True,
)
def ecn_before_pfc(port: PortPlan, device: DevicePlan, fabric: FabricPlan):
    """ECN must mark before PFC fires, with every priority group of the switch congested: the
    platform's real port count x lossless PGs (n) share the pool B, each PG sends PFC at
    T = alpha*B/(1+n*alpha), and an ingress PG feeding f congested queues does so while each
    queue holds only T/f. Kmin must be below T/f (error); Kmax should be too (warning)."""
    trigger = device.pfc_trigger
    n = f" at n = {trigger.sharing_pgs} PGs" if trigger else ""
    for e in port.ecn:
        limit = e.queue_trigger_bytes or e.pfc_trigger_bytes
        if limit is None:
            yield from _ecn_above_any_trigger(e, port, device)
            continue
        min_ok = e.min_below_trigger if e.min_below_trigger is not None else e.min_bytes < limit
        max_ok = e.max_below_trigger if e.max_below_trigger is not None else e.max_bytes <= limit
        if not min_ok:
            holds = "" if e.largest_pgs_min is None else f" (holds up to {e.largest_pgs_min} PGs)"
            yield (
                f"queue {e.queue}: ECN min {e.min_bytes} B is at or above the {limit} B a queue "
                f"holds when PFC fires{n}: PFC pauses before ECN marks{holds}"
            )
        elif not max_ok:
            holds = "" if e.largest_pgs_max is None else f" (holds up to {e.largest_pgs_max} PGs)"
            yield (
                "warning",
                (
                    f"queue {e.queue}: ECN max {e.max_bytes} B is above the {limit} B a queue "
                    f"holds when PFC fires{n}{holds}"
                ),
            )


def _ecn_above_any_trigger(ecn: EcnPlan, port: PortPlan, device: DevicePlan):
    """A config whose hardware is unknown (linted alone, no model in its header, no --asic):
    a Kmin at or above the highest queue trigger of every ASIC that runs the port's speed is
    above it on whatever switch the config is for. A warning: what it rests on is assumed."""
    if device.asic in catalogue():
        return
    pgs = len(device.lossless_priorities) or 1
    loosest = loosest_trigger(port.speed_mbps, pgs, asic_vendors(device.os))
    if loosest is None:
        return
    limit, where = loosest
    if ecn.min_bytes >= limit:
        what = f"ECN min {ecn.min_bytes} B is at or above"
        effect = "PFC pauses before ECN marks"
    elif ecn.max_bytes > limit:
        what = f"ECN max {ecn.max_bytes} B is above"
        effect = "PFC pauses before ECN marks fully"
    else:
        return
    yield (
        "warning",
        f"queue {ecn.queue}: {what} the {limit} B a queue holds when PFC fires on any "
        f"{_switches_of(device)} (the most: {where}, every PG congested): {effect}. The hardware "
        "is not known; --asic or --platform judges it exactly",
    )


@rule(
    "LL113",
    "cnp-strict-and-lossy",
    "error",
    "device",
    "docs/reference/physics.md 4 rules 11 and 21",
    facts=("queues", "tc_to_queue", "cnp"),
)
def cnp_strict_and_lossy(device: DevicePlan, fabric: FabricPlan):
    """CNPs travel in their own class, strict priority, never PFC-paused: a paused CNP cannot
    slow the sender whose traffic caused the pause. Where strict queues have levels (NX-OS
    `priority level N`, 1 the highest), no strict queue is at a higher level than CNP's."""
    if device.cnp_dscp == device.roce_dscp or device.cnp_priority == device.roce_priority:
        yield "CNP shares its DSCP or priority with RoCE data"
    queue = device.maps.tc_to_queue.get(device.cnp_priority, device.cnp_priority)
    strict = {
        q.queue: device.strict_levels.get(q.queue, 1)
        for q in device.queues
        if q.scheduler == "strict"
    }
    where = device.sources.get(f"queues.{queue}")  # the queue's own block, where stated
    if queue not in strict:
        message = f"CNP queue {queue} ({traffic_dscp(device, 'cnp')}) is not strict priority"
        yield message if where is None else _at((where, device.name, None), "LL113", message)
        return
    # NX-OS's strict-priority levels (`priority level N`, 1 the highest): a strict queue waits
    # while one of a lower level has a frame
    above = sorted(q for q, level in strict.items() if level < strict[queue])
    if above:
        message = (
            f"CNP queue {queue} ({traffic_dscp(device, 'cnp')}) is at strict-priority level "
            f"{strict[queue]}, below queue {runs(above)} at level "
            f"{runs(sorted({strict[q] for q in above}))}: CNPs wait while those queues send"
        )
        yield message if where is None else _at((where, device.name, None), "LL113", message)


@rule(
    "LL121",
    "cnp-never-paused",
    "error",
    "port",
    "docs/reference/physics.md 4 rule 21",
    facts=("pfc_priorities",),
    settings_only=True,
)
def cnp_never_paused(port: PortPlan, device: DevicePlan, fabric: FabricPlan):
    """PFC is never enabled on the CNP priority, and the CNP DSCP never lands in a no-drop
    class: a paused CNP cannot slow the sender whose traffic caused the congestion."""
    if device.cnp_priority in port.pfc_priorities:
        yield (
            f"{traffic_dscp(device, 'cnp')} is in traffic class {device.cnp_priority}, "
            "which is PFC-enabled (no-drop)"
        )


def traffic_dscp(device: DevicePlan, traffic: str) -> str:
    """ "RoCE DSCP 26" or "CNP DSCP 48", saying so when lint assumed it (a config alone)."""
    fact = f"{traffic}_dscp"
    label = f"{'RoCE' if traffic == 'roce' else 'CNP'} DSCP {getattr(device, fact)}"
    assumed = device.assumed.get(fact)
    return f"{label} ({assumed})" if assumed else label


# Port trust modes in which the DSCP does not classify (each OS's parser's word)
UNTRUSTED = {
    "cos": "they trust CoS (802.1p), not DSCP",
    "none": "they classify nothing (no DSCP trust or classification policy)",
}


def _alone(device: DevicePlan, fabric: FabricPlan) -> bool:
    """A config linted alone (`lint --config`): a fabric of that one switch."""
    return device.from_config and len(fabric.devices) == 1 and not fabric.links


def _roce_class_break(port: PortPlan, device: DevicePlan) -> tuple[str, str] | None:
    """Where the RoCE DSCP's class stops being lossless on a PFC port, the first break along
    DSCP -> TC -> PFC priority -> PG with headroom -> the queue PFC pauses, and the fact that
    states it; None when whole. What follows the queue (ECN on it, no WRED drop) is LL110's
    and LL122's."""
    maps = device.maps
    tc = maps.dscp_to_tc.get(device.roce_dscp, device.roce_priority)
    if tc not in port.pfc_priorities:
        enabled = sorted(port.pfc_priorities)
        silent = [p for p in enabled if p not in maps.dscp_to_tc.values()]
        unused = ""
        if silent:
            unused = (
                ", which no DSCP maps to"
                if silent == enabled
                else f" (no DSCP maps to {_priority_words(silent)})"
            )
        message = (
            f"maps to TC {tc}, which is not lossless: PFC is on {_priority_words(enabled)}{unused}"
        )
        return message, "roce"
    if port.headroom and device.headroom_known and "tc_to_pg" in device.sources:
        pg = maps.tc_to_pg.get(tc, tc)
        if pg not in {h.priority_group for h in port.headroom}:
            return f"maps to TC {tc} and PG {pg}, which has no lossless headroom", "tc_to_pg"
    queue = maps.tc_to_queue.get(tc, tc)
    if tc not in maps.pfc_priority_to_queue:  # a config that names which queue each pause
        # stops and leaves this priority out (Junos: an explicit flow-control output)
        stopping = sorted(p for p, q in maps.pfc_priority_to_queue.items() if q == queue)
        honoured = f"a pause of {_priority_words(stopping)}" if stopping else "no pause"
        message = (
            f"maps to TC {tc}, which is lossless, but a received pause of priority {tc} stops "
            f"no queue: the switch sends pause on priority {tc}, and its queue {queue} "
            f"honours {honoured}"
        )
        return message, "pfc_priority_to_queue"
    paused = maps.pfc_priority_to_queue[tc]
    if queue != paused:
        message = (
            f"maps to TC {tc}, queued in {queue}, but a PFC pause of priority {tc} stops "
            f"queue {paused}"
        )
        # where the config says which queue a pause stops, else where it queues the class
        stated = "pfc_priority_to_queue" in device.sources
        return message, "pfc_priority_to_queue" if stated else "tc_to_queue"
    return None


def _priority_words(priorities: list[int]) -> str:
    listed = ",".join(str(p) for p in priorities)
    return f"priority {listed}" if len(priorities) == 1 else f"priorities {listed}"


def _ports_text(names: list[str]) -> str:
    return f"{plural(len(names), 'port')}: {first_few(names, 3)}"


@rule(
    "LL124",
    "roce-class-lossless",
    "error",
    "device",
    "docs/reference/physics.md 4 rules 6, 10 and 12",
    facts=("roce", "dscp_to_tc"),
)
def roce_class_lossless(device: DevicePlan, fabric: FabricPlan):
    """The RoCE DSCP's class is lossless end to end on every PFC port: the DSCP maps to a
    traffic class with PFC enabled, that class's priority group has headroom (where the OS
    states PGs), and it is queued in the queue a pause of that priority stops (which LL110
    and LL122 hold to ECN marking and no WRED drop). A config that runs PFC on another class
    drops RoCE under congestion while the lossless class carries nothing. A config linted
    alone is judged for the hosts' documented defaults (RoCE 26, CNP 48) unless --roce-dscp
    and --cnp-dscp say otherwise."""
    # what is read of a port is its settings: judged once per group of ports alike
    breaks: dict[tuple[str, str], list[list[PortPlan]]] = {}
    untrusted: dict[str, list[list[PortPlan]]] = {}  # trust -> PFC ports that ignore the DSCP
    alone = _alone(device, fabric)
    for group in device_groups(fabric, device):
        port = group[0]
        if port.lossless and port.pfc_priorities:
            if alone and port.trust in UNTRUSTED:  # (in a fabric: LL200 drift of the trust)
                untrusted.setdefault(port.trust, []).append(group)
                continue
            found = _roce_class_break(port, device)
            if found is not None:
                breaks.setdefault(found, []).append(group)
    for trust, groups in untrusted.items():
        ignoring = in_port_order(device, groups)
        message = (
            f"{traffic_dscp(device, 'roce')} does not classify on these ports: "
            f"{UNTRUSTED[trust]}, so RoCE's untagged packets take the port's default class "
            f"({_ports_text([p.name for p in ignoring])})"
        )
        where = ignoring[0].sources.get("trust", ignoring[0].source)
        yield _at((where, device.name, None), "LL124", message)
    if (
        alone
        and device.ports
        and not any(p.lossless and p.pfc_priorities for p in device.ports.values())
    ):
        # a config alone with no PFC anywhere: RoCE's class is lossy on every port (in a
        # fabric, the config's PFC differing from the plan is LL200 drift at its line)
        first = next(iter(device.ports.values()))
        tc = device.maps.dscp_to_tc.get(device.roce_dscp, device.roce_priority)
        where = first.sources.get("pfc_priorities") or located(device, "roce", "dscp_to_tc")
        roce = traffic_dscp(device, "roce")
        message = f"{roce} maps to TC {tc}, which is not lossless: no port runs PFC"
        yield _at((where, device.name, None), "LL124", message)
    for (cause, fact), groups in breaks.items():
        where = device.sources.get(fact) or located(device, "roce", "dscp_to_tc")
        ports = [p.name for p in in_port_order(device, groups)]
        message = f"{traffic_dscp(device, 'roce')} {cause} ({_ports_text(ports)})"
        yield _at((where, device.name, None), "LL124", message)


@rule(
    "LL125",
    "lossless-class-without-dscp",
    "warning",
    "device",
    "docs/reference/physics.md 4 rule 5",
    facts=("lossless_priorities", "dscp_to_tc"),
)
def lossless_class_without_dscp(device: DevicePlan, fabric: FabricPlan):
    """Every PFC-enabled priority of a port that classifies by DSCP carries some DSCP: a
    no-drop class nothing maps to reserves headroom on every port for no traffic (and where
    RoCE's own class is not lossless, LL124 says so with it)."""
    carried = set(device.maps.dscp_to_tc.values())
    silent: dict[int, list[list[PortPlan]]] = {}
    for group in device_groups(fabric, device):  # what is read of a port is its settings
        port = group[0]
        if not (port.lossless and port.trust == "dscp"):
            continue
        if _roce_class_break(port, device) is not None:
            continue  # LL124's finding names the silent class
        for priority in sorted(set(port.pfc_priorities) - carried):
            silent.setdefault(priority, []).append(group)
    for priority, groups in sorted(silent.items()):
        ports = [p.name for p in in_port_order(device, groups)]
        yield (
            f"PFC priority {priority} is no-drop but no DSCP maps to it: its headroom is "
            f"reserved for no traffic ({_ports_text(ports)})"
        )


@rule(
    "LL127",
    "lossless-class-roce-only",
    "warning",
    "device",
    "docs/reference/physics.md 4 rules 12 and 21",
    facts=("dscp_to_tc",),
)
def lossless_class_roce_only(device: DevicePlan, fabric: FabricPlan):
    """A config linted alone maps only RoCE's DSCP to its lossless class: another DSCP there
    is paused with RoCE and not paced by DCQCN (a DSCP a config leaves out of its map takes
    the OS's default class: DSCP/8 on EOS and Cumulus, so 24-31 share RoCE's class 3). With
    an inventory, a map that differs from the plan's is LL200 drift instead."""
    if not _alone(device, fabric):
        return
    lossless = {p for port in device.ports.values() if port.lossless for p in port.pfc_priorities}
    roce_tc = device.maps.dscp_to_tc.get(device.roce_dscp)
    if roce_tc not in lossless:
        return  # LL124's finding
    shared = sorted(
        dscp
        for dscp, tc in device.maps.dscp_to_tc.items()
        if tc == roce_tc and dscp not in (device.roce_dscp, device.cnp_dscp)
    )
    if shared:
        yield (
            f"DSCP {runs(shared)} map to TC {roce_tc} with {traffic_dscp(device, 'roce')}, "
            "a lossless class: their traffic is paused with RoCE's and not paced by DCQCN"
        )


@lru_cache(maxsize=256)
def _buffer_limit(asic_name: str) -> tuple[int, str]:
    """The most bytes an ECN threshold of a switch with this ASIC can hold, and how to say it."""
    asic = catalogue().get(asic_name)
    if asic is not None and asic.buffer_bytes:
        return asic.buffer_bytes, f"the {asic.buffer_bytes} B buffer of {asic_name}"
    limit = max(a.buffer_bytes or 0 for a in catalogue().values())
    return limit, f"the {limit} B buffer of the largest ASIC known"


@rule(
    "LL123",
    "ecn-within-buffer",
    "error",
    "port",
    "docs/reference/physics.md 3.4; asics/catalogue.yaml buffer sizes",
    facts=("ecn",),
    settings_only=True,
)
def ecn_within_buffer(port: PortPlan, device: DevicePlan, fabric: FabricPlan):
    """ECN thresholds fit in the buffer: a threshold above the switch's whole buffer (or, when
    the ASIC is not known, above the largest buffer of any ASIC we know) never marks, so DCQCN
    never slows senders and PFC does all the work. Usually a unit mistake (KB for B, cells)."""
    limit, what = _buffer_limit(device.asic)
    for e in port.ecn:
        if e.min_bytes > limit or e.max_bytes > limit:
            yield f"queue {e.queue}: ECN min {e.min_bytes} B / max {e.max_bytes} B exceed {what}"


@rule(
    "LL114",
    "watchdog-on-pfc-ports",
    "error",
    "port",
    "docs/reference/physics.md 4 rule 8",
    facts=("watchdog", "pfc_priorities"),
    settings_only=True,
)
def watchdog_on_pfc_ports(port: PortPlan, device: DevicePlan, fabric: FabricPlan):
    """Every PFC-enabled port runs the PFC watchdog, which breaks pause storms and deadlocks.
    Where the switch's platform has no PFC watchdog (its OS says why: Junos outside
    QFX5230/QFX5240), a warning: no config can add it, and the fabric should know. That is
    so whatever the plan or a config says of the watchdog, so a plan (which keeps the
    inventory's watchdog) and the config rendered from it are judged alike."""
    if not port.lossless:
        return
    # a config whose hardware is unknown is held to the watchdog: most platforms have one
    known = device.platform or device.asic in catalogue()
    missing = _no_watchdog(device) if known else None
    if missing:
        yield "warning", f"PFC is on but the switch runs no PFC watchdog: {missing}"
    elif not (port.watchdog and port.watchdog.enabled):
        yield "PFC is on but the PFC watchdog is off"


def _no_watchdog(device: DevicePlan) -> str | None:
    """Why the device's platform has no PFC watchdog, as its OS says (not_expressed
    `pfc_watchdog`), or None."""
    if device.os not in OS_NAMES:
        return None
    why = vendor_for(device.os).not_expressed.get("pfc_watchdog")
    return why(device) if callable(why) else why


@rule(
    "LL115",
    "watchdog-timers",
    "error",
    "port",
    "docs/reference/physics.md 4 rules 8 and 9",
    facts=("watchdog",),
    settings_only=True,
)
def watchdog_timers(port: PortPlan, device: DevicePlan, fabric: FabricPlan):
    """Watchdog timers are sane: poll interval at most the detection and restoration times
    (SONiC refuses otherwise), restoration at least detection, action drop (a warning). A
    timer of 0 is one the config does not set (Cumulus restores after a quiet poll): not
    judged. Nor are the timers of a switch whose platform has no watchdog (LL114 says so): a
    plan keeps the inventory's timers there, a config read back has none."""
    wd = port.watchdog
    if not (port.lossless and wd and wd.enabled):
        return
    if (device.platform or device.asic in catalogue()) and _no_watchdog(device):
        return
    timers = [t for t in (wd.detection_ms, wd.restoration_ms) if t]
    if timers and wd.poll_ms > min(timers):
        yield (
            f"poll {wd.poll_ms} ms is longer than detection {wd.detection_ms} ms or "
            f"restoration {wd.restoration_ms} ms"
        )
    if wd.restoration_ms and wd.restoration_ms < wd.detection_ms:
        yield (
            "warning",
            f"restoration {wd.restoration_ms} ms is shorter than detection {wd.detection_ms} ms",
        )
    if wd.action != "drop":
        yield "warning", f"watchdog action {wd.action}: a storm keeps spreading unless it drops"


@rule(
    "LL116",
    "ecmp-udp-source-port",
    "error",
    "device",
    "docs/reference/physics.md 4 rule 17, 5",
    facts=("ecmp_udp_source_port",),
)
def ecmp_udp_source_port(device: DevicePlan, fabric: FabricPlan):
    """ECMP hashes the UDP source port: RoCE v2's destination port is always 4791, so the source
    port is the only per-flow entropy."""
    if device.ecmp.hashes_udp_source_port is False:
        yield "ECMP hash fields leave out the L4 source port: RoCE flows of a host pair polarise"


@rule("LL117", "ecmp-seed-per-tier", "warning", "fabric", "docs/reference/physics.md 4 rule 18")
def ecmp_seed_per_tier(fabric: FabricPlan):
    """Tiers use different ECMP seeds, so a flow's choice at one tier does not repeat at the
    next (hash polarisation). A planned device's seed is the one its OS gets from the config
    (`as_rendered`: SONiC's comes from DEVICE_METADATA type, issue 39); a config's is what
    it states, or its OS's default where it is a whole config."""
    seeds: dict[int | None, set[str]] = {}
    devices = [
        d if d.from_config else vendor_for(d.os).as_rendered(d) for d in fabric.devices.values()
    ]
    stated = [d for d in devices if d.ecmp.seed is not None]
    for device in stated:
        seeds.setdefault(device.ecmp.seed, set()).add(device.role)
    for device in stated:
        roles = seeds[device.ecmp.seed]
        if len(roles) > 1:
            # a config's finding at what gives its seed (SONiC: the DEVICE_METADATA type)
            where = device.sources.get("ecmp_seed") if device.from_config else None
            yield _at(
                (where or device.source, device.name, None),
                "LL117",
                f"ECMP seed {device.ecmp.seed} is shared by tiers {', '.join(sorted(roles))}",
                "warning",
            )


@rule(
    "LL118",
    "roce-mtu",
    "warning",
    "port",
    "docs/reference/physics.md 4 rule 13; docs/reference/vendors.md 0 and 6",
    facts=("mtu",),
    settings_only=True,
)
def roce_mtu(port: PortPlan, device: DevicePlan, fabric: FabricPlan):
    """RoCE ports run a jumbo MTU (at least 9000) within what the OS accepts (the largest MTU
    an OS takes is a fact its vendor module declares, e.g. EOS 9214). An MTU that cannot
    carry a 4096-byte RoCE payload is an error: RDMA falls back to a smaller path MTU or
    drops, and the NICs' default RoCE MTU is 4096."""
    if not port.lossless:
        return
    if port.mtu < ROCE_4096_IP_MTU:
        yield (
            "error",
            f"MTU {port.mtu} cannot carry a 4096-byte RoCE payload "
            f"(needs {ROCE_4096_IP_MTU} with IPv6 and RDMA headers)",
        )
    elif port.mtu < ROCE_MIN_MTU:
        yield f"MTU {port.mtu} is below {ROCE_MIN_MTU} on a RoCE port"
    limit = max_mtu(device.os)
    if limit is not None and port.mtu > limit:
        yield "error", f"MTU {port.mtu} is above the largest MTU {device.os} accepts ({limit})"


@rule(
    "LL119",
    "scheduler-weights",
    "warning",
    "device",
    "docs/reference/vendors.md 6",
    facts=("queues",),
)
def scheduler_weights(device: DevicePlan, fabric: FabricPlan):
    """DWRR weights of a port add up to at most 100 %."""
    total = sum(q.weight or 0 for q in device.queues if q.scheduler == "dwrr")
    if total > 100:
        yield f"DWRR weights add up to {total}%"


@rule(
    "LL126",
    "nxos-priority-queue-order",
    "warning",
    "device",
    "docs/reference/vendors.md 2e",
    facts=("queues",),
)
def nxos_priority_queue_order(device: DevicePlan, fabric: FabricPlan):
    """On NX-OS (Nexus 9000) the strict-priority queues must be the highest-numbered ones,
    contiguous: c-out-8q-q7, then q6, and so on (Cisco Nexus 9000 QoS Configuration Guide,
    "Configuring Queuing and Scheduling"; Cisco's RoCE script puts CNP in qos-group 7 with
    `priority level 1`). A strict queue below a round-robin one is outside that guideline:
    lossless renders CNP in qos-group 7, which it cannot when 7 is a lossless class."""
    if device.os != "nxos":
        return
    rendered = device if device.from_config else vendor_for(device.os).as_rendered(device)
    strict = sorted(q.queue for q in rendered.queues if q.scheduler == "strict")
    highest = list(range(NXOS_QUEUES - len(strict), NXOS_QUEUES))
    if strict and strict != highest:
        names = ", ".join(f"c-out-8q-q{q}" for q in strict)
        why = (
            "; qos-group 7 is lossless here, so CNP cannot move there: give RoCE another class"
            if 7 in device.lossless_priorities and not device.from_config
            else ""
        )
        yield (
            f"strict priority on {names}, not the highest-numbered queues "
            f"({', '.join(f'q{q}' for q in highest)}){why}"
        )


# NX-OS's egress queues in 8-queue mode (c-out-8q-q0 ... q7)
NXOS_QUEUES = 8


def _at(
    where: tuple[str, str | None, str | None], rule_id: str, message: str, severity: str = "error"
):
    from lossless.lint.registry import Finding

    source, device, port = where
    return Finding(source, rule_id, severity, message, device, port)


def _fact_source(port: PortPlan, device: DevicePlan, fact: str) -> str:
    """Where a port's fact (or, for a device-wide fact like a DSCP map, its device's) was
    stated; the port's own line when neither says."""
    return port.sources.get(fact) or device.sources.get(fact) or port.source


def _link_findings(ends: tuple, rule_id: str, message: str, fact: str):
    """One finding at each end of a link, each where that end states `fact` (inventory or
    config line); where one end is read from a config and the other is the plan's, the
    config is what differs: one finding, at its line, counted against both switches."""
    from lossless.lint.registry import Finding

    _, port_a, device_a, port_b, device_b = ends
    ends_ = ((port_a, device_a), (port_b, device_b))
    read = [(port, device) for port, device in ends_ if device.from_config]
    if len(read) == 1:
        [(port, device)] = read
        both = (device_a.name, device_b.name)
        where = _fact_source(port, device, fact)
        return [Finding(where, rule_id, "error", message, device.name, port.name, both, (fact,))]
    return [
        replace(
            _at((_fact_source(port, device, fact), device.name, port.name), rule_id, message),
            facts=(fact,),
        )
        for port, device in ends_
    ]
