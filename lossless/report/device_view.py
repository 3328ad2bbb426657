"""One switch's part of the report: its budget bar and numbers, PFC trigger, headroom against
cable length, ECN against the trigger, bandwidth and status, from its plan.

Each number shown from the plan is a Figure that names where it sits (`field`, below the
device or port, as in `lossless plan --format json`), so a test can read the page back and
compare it with the plan.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from lossless.plan import DevicePlan, EcnPlan, FabricPlan, HeadroomPlan, PfcTriggerPlan, PortPlan
from lossless.planner.ecn import pfc_trigger_bytes
from lossless.planner.oversubscription import Bandwidth, DeviceBandwidth
from lossless.report import charts
from lossless.report.headroom_curve import headroom_note, model_curves
from lossless.report.names import name_ranges, names_text
from lossless.report.simulation_view import SimulationView
from lossless.text.grammar import plural
from lossless.text.units import format_speed

MISSING = "–"


@dataclass(frozen=True)
class Figure:
    """One value of the plan as the page shows it."""

    text: str
    value: str  # the plan's value as JSON (the data-value attribute)
    field: str  # where it is below its device or port: "budget.total_headroom_bytes"


def _text(value: Any, unit: str = "") -> str:
    if value is None:
        return MISSING
    if isinstance(value, bool):
        return "yes" if value else "NO"
    if isinstance(value, int):
        return f"{value:,}{unit}"
    if isinstance(value, float):
        return f"{value:g}{unit}"
    return str(value)


def figure(owner: Any, path: str, unit: str = "", text: str | None = None) -> Figure:
    """The value at `path` (dotted, list indices as numbers) below a plan object."""
    value = owner
    for step in path.split("."):
        value = value[int(step)] if isinstance(value, list) else getattr(value, step)
    return Figure(_text(value, unit) if text is None else text, json.dumps(value), path)


@dataclass(frozen=True)
class Fact:
    label: str
    figure: Figure
    note: str = ""


@dataclass(frozen=True)
class LegendItem:
    kind: str
    label: str
    figure: Figure
    share: str  # of the buffer, "12.6 %"


@dataclass
class BudgetView:
    bar: charts.Bar | None
    legend: list[LegendItem]
    facts: list[Fact]
    verdict: str
    status: str  # ok, warn, bad


@dataclass(frozen=True)
class HeadroomRow:
    ports: list[str]
    ports_text: str
    peers_text: str
    cells: list[Figure]  # speed, cable, then the PG's numbers (see HEADROOM_COLUMNS)
    floor_source: str
    note: str


HEADROOM_COLUMNS = ("speed", "cable m", "PG", "xon", "xoff", "size", "model xoff", "vendor xoff")


@dataclass(frozen=True)
class EcnRow:
    ports: list[str]
    ports_text: str
    cells: list[Figure]  # see ECN_COLUMNS
    status: str


ECN_COLUMNS = (
    "queue",
    "Kmin",
    "Kmax",
    "prob %",
    "T/f",
    "Kmin < T/f",
    "Kmax ≤ T/f",
    "Kmin holds to n",
    "Kmax holds to n",
)


@dataclass(frozen=True)
class BandwidthView:
    down: str
    up: str
    lateral: str
    ratio: str


@dataclass
class DeviceView:
    name: str
    anchor: str
    role: str
    os: str
    asic: str
    platform: str
    description: str
    source: str
    status: str
    overview: list[Fact]  # the numbers of its line in the switches table
    budget: BudgetView
    trigger_facts: list[Fact]
    headroom_rows: list[HeadroomRow]
    headroom_chart: charts.Chart | None
    has_floor: bool  # a vendor table's xoff is in the chart
    ecn_rows: list[EcnRow]
    ecn_chart: charts.Chart | None
    ecn_verdict: str
    ecn_status: str
    bandwidth: BandwidthView
    findings: int
    data: dict[str, Any] = field(repr=False)
    # its worst port under incast (report/simulation_view.py), or why it is not simulated
    simulation: SimulationView | None = None
    simulation_note: str = ""


OVERVIEW_FIELDS = (
    "budget.utilisation_percent",
    "pfc_trigger.sharing_pgs",
    "pfc_trigger.queue_trigger_bytes",
    "pfc_trigger.largest_n_ecn_before_pfc",
    "pfc_trigger.largest_n_full_marking_before_pfc",
)


def _share(part: int | None, whole: int | None) -> str:
    if part is None or not whole:
        return ""
    return f"{100 * part / whole:.1f} % of the buffer"


def _budget(device: DevicePlan) -> BudgetView:
    b = device.budget
    parts = [
        (
            "reserved",
            "reserved headroom",
            "budget.reserved_headroom_bytes",
            b.reserved_headroom_bytes,
        ),
        (
            "pool",
            "shared headroom pool",
            "budget.shared_headroom_pool_bytes",
            b.shared_headroom_pool_bytes,
        ),
        (
            "shared",
            "shared buffer left",
            "budget.shared_buffer_bytes",
            max(0, b.shared_buffer_bytes or 0),
        ),
    ]
    legend = [
        LegendItem(kind, label, figure(device, path, " B"), _share(size, b.buffer_bytes))
        for kind, label, path, size in parts
        if kind != "pool" or b.shared_headroom_pool_bytes
    ]
    bar = None
    if b.buffer_bytes is not None:
        bar = charts.stacked_bar(
            [(kind, size, f"{label}: {size:,} B") for kind, label, _, size in parts],
            b.buffer_bytes,
        )
    facts = [
        Fact("buffer", figure(device, "budget.buffer_bytes", " B"), b.buffer_evidence),
        Fact("ports the switch runs", figure(device, "budget.ports"), b.ports_source),
        Fact(
            "of them not in the inventory",
            figure(device, "budget.unlisted_ports"),
            "counted at the largest planned headroom",
        ),
        Fact("lossless PGs", figure(device, "budget.lossless_pgs")),
        Fact(
            "reserved headroom",
            figure(device, "budget.reserved_headroom_bytes", " B"),
            "every lossless PG's size, and the lossy PG of every port",
        ),
        Fact("of it lossy PGs", figure(device, "budget.lossy_pg_bytes", " B")),
        Fact(
            "shared headroom pool",
            figure(device, "budget.shared_headroom_pool_bytes", " B"),
            f"sum of xoff / over-subscribe ratio {b.over_subscribe_ratio}"
            if b.shared_headroom_pool_bytes
            else "no shared headroom pool",
        ),
        Fact("total headroom", figure(device, "budget.total_headroom_bytes", " B")),
        Fact("shared buffer left", figure(device, "budget.shared_buffer_bytes", " B")),
        Fact(
            "utilisation",
            figure(device, "budget.utilisation_percent", " %"),
            "total headroom / buffer",
        ),
        Fact("largest port's headroom", figure(device, "budget.largest_port_headroom_bytes", " B")),
        Fact(
            "ASIC's limit per port",
            figure(device, "budget.max_headroom_per_port_bytes", " B"),
            "" if b.max_headroom_per_port_bytes is not None else "not published",
        ),
    ]
    if b.shp_per_port_cap_bytes is not None:
        facts += [
            Fact(
                "largest port's xoff",
                figure(device, "budget.largest_port_xoff_bytes", " B"),
                "drawn from the shared headroom pool",
            ),
            Fact("pool's cap per port", figure(device, "budget.shp_per_port_cap_bytes", " B")),
        ]
    if b.fits is None:
        verdict, status = "not checked: the ASIC's buffer size is not published", "warn"
    elif not b.fits:
        verdict, status = "the headroom does NOT fit the buffer", "bad"
    elif b.per_port_fits is False:
        verdict, status = "fits the buffer, but a port exceeds a per-port headroom limit", "bad"
    else:
        verdict, status = "fits", "ok"
    return BudgetView(bar, legend, facts, verdict, status)


def _trigger_facts(device: DevicePlan) -> list[Fact]:
    t = device.pfc_trigger
    if t is None:
        return []
    return [
        Fact(
            "n: PGs sharing the pool",
            figure(device, "pfc_trigger.sharing_pgs"),
            f"{plural(t.ports, 'port')} × {t.lossless_pgs_per_port} lossless PGs",
        ),
        Fact(
            "B: shared buffer a PG sees",
            figure(device, "pfc_trigger.shared_buffer_bytes", " B"),
            f"split between {plural(t.buffer_partitions, 'partition')}"
            if t.buffer_partitions > 1
            else "",
        ),
        Fact("alpha", figure(device, "pfc_trigger.alpha"), f"2^{t.dynamic_th} (dynamic_th)"),
        Fact(
            "T: PG level at which PFC fires",
            figure(device, "pfc_trigger.trigger_bytes", " B"),
            "alpha·B / (1 + n·alpha)",
        ),
        Fact("f: congested queues per PG", figure(device, "pfc_trigger.fan_out")),
        Fact(
            "T/f: queue level at which PFC fires",
            figure(device, "pfc_trigger.queue_trigger_bytes", " B"),
        ),
        Fact(
            "ECN marks before PFC up to n",
            figure(device, "pfc_trigger.largest_n_ecn_before_pfc"),
            "every Kmin < T/f",
        ),
        Fact(
            "ECN marks fully before PFC up to n",
            figure(device, "pfc_trigger.largest_n_full_marking_before_pfc"),
            "every Kmax ≤ T/f",
        ),
    ]


def _groups(ports: Iterable[PortPlan], key: Callable[[PortPlan], Any]) -> list[list[PortPlan]]:
    """Ports with the same key, in order of first appearance."""
    groups: dict[Any, list[PortPlan]] = {}
    for port in ports:
        groups.setdefault(key(port), []).append(port)
    return list(groups.values())


def _headroom_key(port: PortPlan) -> tuple:
    return (
        port.speed_mbps,
        port.cable_m,
        port.lossless,
        port.peer_kind,
        tuple(tuple(vars(h).values()) for h in port.headroom),  # all scalars
    )


def _peers(ports: list[PortPlan]) -> str:
    peers = [p.peer for p in ports if p.peer]
    if not peers:
        return MISSING
    written = name_ranges(peers)
    return ", ".join(written) if len(written) <= 3 else f"{len(peers)} peers ({written[0]}, …)"


def _headroom_rows(device: DevicePlan) -> list[HeadroomRow]:
    rows = []
    for group in _groups(device.ports.values(), _headroom_key):
        port = group[0]
        names = [p.name for p in group]
        common = [
            figure(port, "speed_mbps", text=format_speed(port.speed_mbps)),
            figure(port, "cable_m"),
        ]
        if not port.headroom:
            blank = [Figure(MISSING, "null", "")] * (len(HEADROOM_COLUMNS) - 2)
            rows.append(
                HeadroomRow(
                    names,
                    names_text(names),
                    _peers(group),
                    common + blank,
                    "",
                    "lossy: no PFC, no headroom" if not port.lossless else "",
                )
            )
        for index, headroom in enumerate(port.headroom):
            at = f"headroom.{index}."
            cells = common + [
                figure(port, at + name)
                for name in (
                    "priority_group",
                    "xon",
                    "xoff",
                    "size",
                    "model_xoff",
                    "vendor_floor_xoff",
                )
            ]
            rows.append(
                HeadroomRow(
                    names,
                    names_text(names),
                    _peers(group),
                    cells,
                    headroom.vendor_floor_source or "",
                    _headroom_note(headroom, port.speed_mbps),
                )
            )
    return rows


def _headroom_note(headroom: HeadroomPlan, speed_mbps: int) -> str:
    notes = [note] if (note := headroom_note(headroom, speed_mbps)) else []
    if headroom.size < headroom.xoff:
        notes.append("size = xon: xoff comes from the shared headroom pool")
    if headroom.fallback:
        notes.append(f"fallback: {headroom.fallback}")
    return "; ".join(notes)


def _headroom_chart(plan: FabricPlan, device: DevicePlan) -> charts.Chart | None:
    seen: dict[tuple[float, int, str], list[str]] = {}
    for port in device.ports.values():
        if port.cable_m is None:
            continue
        for h in port.headroom:
            seen.setdefault((port.cable_m, h.xoff, "xoff"), []).append(port.name)
            if h.vendor_floor_xoff is not None:
                seen.setdefault((port.cable_m, h.vendor_floor_xoff, "floor"), []).append(port.name)
    if not seen:
        return None
    what = {"xoff": "planned xoff", "floor": "vendor table xoff"}
    return charts.headroom_chart(
        [
            (cable, xoff, kind, f"{what[kind]} {xoff:,} B at {cable:g} m: {names_text(ports)}")
            for (cable, xoff, kind), ports in seen.items()
        ],
        model_curves(plan, device),
    )


def _ecn_key(port: PortPlan) -> tuple:
    return tuple(tuple(vars(e).values()) for e in port.ecn)  # all scalars


def _ecn_rows(device: DevicePlan) -> list[EcnRow]:
    rows = []
    lossless = [p for p in device.ports.values() if p.ecn]
    for group in _groups(lossless, _ecn_key):
        port = group[0]
        names = [p.name for p in group]
        for index, ecn in enumerate(port.ecn):
            at = f"ecn.{index}."
            cells = [
                figure(port, at + "queue"),
                figure(port, at + "min_bytes"),
                figure(port, at + "max_bytes"),
                figure(port, at + "probability_percent"),
                figure(port, at + "queue_trigger_bytes"),
                figure(port, at + "min_below_trigger"),
                figure(port, at + "max_below_trigger"),
                figure(port, at + "largest_pgs_min"),
                figure(port, at + "largest_pgs_max"),
            ]
            rows.append(EcnRow(names, names_text(names), cells, _ecn_status(ecn)))
    return rows


def _ecn_status(ecn: EcnPlan) -> str:
    if ecn.min_below_trigger is False:
        return "bad"
    if ecn.max_below_trigger is False:
        return "warn"
    return "ok" if ecn.min_below_trigger else "warn"


def _fan_out(plan: FabricPlan, ecn: EcnPlan, trigger: PfcTriggerPlan) -> int:
    """f of one queue's check (a port's ECN policy may set its own), from its derivation."""
    inputs = plan.derivations.get(ecn.derivation, {}).get("inputs", {})
    return int(inputs.get("fan_out", trigger.fan_out))


def _ecn_chart(plan: FabricPlan, device: DevicePlan) -> charts.Chart | None:
    t = device.pfc_trigger
    ecns = [e for p in device.ports.values() for e in p.ecn]
    if t is None or t.shared_buffer_bytes is None or not ecns:
        return None
    shared, alpha = t.shared_buffer_bytes, t.alpha
    fan_outs = sorted({_fan_out(plan, e, t) for e in ecns})
    curves = [
        (
            f"T(n)/{f}" if len(fan_outs) > 1 else "T(n)/f",
            lambda n, f=f: pfc_trigger_bytes(shared, alpha, n) / f,
        )
        for f in fan_outs
    ]
    thresholds = sorted(
        {
            charts.Threshold(kind, size, largest, f"{label} {charts.si_bytes(size)}")
            for e in ecns
            for kind, label, size, largest in (
                ("kmin", "Kmin", e.min_bytes, e.largest_pgs_min),
                ("kmax", "Kmax", e.max_bytes, e.largest_pgs_max),
            )
        },
        key=lambda th: (th.bytes, th.kind),
    )
    return charts.ecn_chart(curves, thresholds, t.sharing_pgs)


def _ecn_verdict(device: DevicePlan) -> tuple[str, str]:
    t = device.pfc_trigger
    if t is None or t.trigger_bytes is None:
        return "the PFC trigger is unknown (no published buffer or pool size)", "warn"
    kmin, kmax = t.largest_n_ecn_before_pfc, t.largest_n_full_marking_before_pfc
    if kmin is None or kmax is None:
        return "no lossless port with ECN", "ok"
    n = t.sharing_pgs
    if n > kmin:
        return (
            f"with all {n} PGs congested, PFC fires before ECN marks at all "
            f"(ECN breaks at n = {kmin + 1})",
            "bad",
        )
    if n > kmax:
        return (
            f"with all {n} PGs congested, PFC fires before ECN marks fully "
            f"(full marking breaks at n = {kmax + 1})",
            "warn",
        )
    return (
        f"ECN marks fully before PFC with all {n} PGs congested; it breaks at "
        f"n = {kmax + 1} (full marking) and n = {kmin + 1} (any marking)",
        "ok",
    )


def bandwidth_text(bandwidth: Bandwidth) -> str:
    if not bandwidth.ports:
        return MISSING
    return f"{plural(bandwidth.ports, 'port')}, {format_speed(bandwidth.mbps)}"


def ratio_text(ratio: float | None) -> str:
    return MISSING if ratio is None else f"{ratio:g}:1"


def _bandwidth(b: DeviceBandwidth) -> BandwidthView:
    return BandwidthView(
        bandwidth_text(b.down),
        bandwidth_text(b.up),
        bandwidth_text(b.lateral),
        ratio_text(b.oversubscription),
    )


def worst(*statuses: str) -> str:
    order = ("ok", "warn", "bad")
    return max(statuses, key=order.index)


def device_view(
    plan: FabricPlan,
    device: DevicePlan,
    description: str,
    anchor: str,
    bandwidth: DeviceBandwidth,
    findings: int,
    errors: bool,
) -> DeviceView:
    """`findings`: how many lint findings affect the device (its own and the fabric-wide ones
    that name it); `errors`: one of them is an error, so its status is never ok."""
    budget = _budget(device)
    ecn_verdict, ecn_status = _ecn_verdict(device)
    headroom_rows = _headroom_rows(device)
    ecn_rows = _ecn_rows(device)
    status = worst(budget.status, ecn_status, "bad" if errors else "ok")
    data = {
        "role": device.role,
        "budget": dataclasses.asdict(device.budget),
        "pfc_trigger": (
            None if device.pfc_trigger is None else dataclasses.asdict(device.pfc_trigger)
        ),
        "headroom": [
            {
                "ports": r.ports,
                "headroom": [dataclasses.asdict(h) for h in device.ports[r.ports[0]].headroom],
            }
            for r in _unique_groups(headroom_rows)
        ],
        "ecn": [
            {"ports": r.ports, "ecn": [dataclasses.asdict(e) for e in device.ports[r.ports[0]].ecn]}
            for r in _unique_groups(ecn_rows)
        ],
        "bandwidth": {
            "down": dataclasses.asdict(bandwidth.down),
            "up": dataclasses.asdict(bandwidth.up),
            "lateral": dataclasses.asdict(bandwidth.lateral),
            "oversubscription": bandwidth.oversubscription,
        },
        "status": status,
    }
    trigger_facts = _trigger_facts(device)
    by_field = {f.figure.field: f for f in budget.facts + trigger_facts}
    overview = [
        by_field.get(name) or Fact(name, Figure(MISSING, "null", "")) for name in OVERVIEW_FIELDS
    ]
    return DeviceView(
        name=device.name,
        anchor=anchor,
        role=device.role,
        os=device.os,
        asic=device.asic,
        platform=device.platform or MISSING,
        description=description,
        source=device.source,
        status=status,
        overview=overview,
        budget=budget,
        trigger_facts=trigger_facts,
        headroom_rows=headroom_rows,
        headroom_chart=_headroom_chart(plan, device),
        has_floor=any(
            h.vendor_floor_xoff is not None for p in device.ports.values() for h in p.headroom
        ),
        ecn_rows=ecn_rows,
        ecn_chart=_ecn_chart(plan, device),
        ecn_verdict=ecn_verdict,
        ecn_status=ecn_status,
        bandwidth=_bandwidth(bandwidth),
        findings=findings,
        data=data,
    )


def _unique_groups(rows: list[Any]) -> list[Any]:
    """One row per port group (a group with several PGs or queues has a row for each)."""
    seen: dict[str, Any] = {}
    for row in rows:
        seen.setdefault(row.ports[0], row)
    return list(seen.values())
