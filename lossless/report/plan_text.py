"""`lossless plan --format text`: a table of ports per device, then budget, ECMP and maps."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from lossless.plan import DevicePlan, FabricPlan
from lossless.units import format_bytes, format_speed
from lossless.vendors import not_expressed


def _flag(value: bool | None, good: str = "yes", bad: str = "NO") -> str:
    return "?" if value is None else (good if value else bad)


def _port_table(device: DevicePlan) -> Table:
    table = Table(
        title=f"{device.name}  ({device.role}, {device.os}, {device.asic})",
        title_justify="left",
        show_edge=False,
        pad_edge=False,
    )
    for heading, justify in (
        ("port", "left"),
        ("peer", "left"),
        ("speed", "right"),
        ("lanes", "right"),
        ("cable m", "right"),
        ("mtu", "right"),
        ("pfc", "left"),
        ("xon", "right"),
        ("xoff", "right"),
        ("size", "right"),
        ("ecn min", "right"),
        ("ecn max", "right"),
        ("prob %", "right"),
        ("ecn<pfc", "left"),
    ):
        table.add_column(heading, justify=justify)  # type: ignore[arg-type]
    for port in device.ports.values():
        headroom = port.headroom[0] if port.headroom else None
        ecn = port.ecn[0] if port.ecn else None
        table.add_row(
            port.name,
            port.peer or "-",
            format_speed(port.speed_mbps),
            str(port.lanes),
            f"{port.cable_m:g}" if port.cable_m is not None else "-",
            str(port.mtu),
            ",".join(map(str, port.pfc_priorities)) or "-",
            format_bytes(headroom.xon) if headroom else "-",
            format_bytes(headroom.xoff) if headroom else "-",
            format_bytes(headroom.size) if headroom else "-",
            format_bytes(ecn.min_bytes) if ecn else "-",
            format_bytes(ecn.max_bytes) if ecn else "-",
            str(ecn.probability_percent) if ecn else "-",
            _flag(ecn.max_below_trigger) if ecn else "-",
        )
    return table


def _budget_line(device: DevicePlan) -> str:
    b = device.budget
    pool = (
        f" + shared headroom pool {format_bytes(b.shared_headroom_pool_bytes)} B "
        f"(1:{b.over_subscribe_ratio})"
        if b.shared_headroom_pool_bytes
        else ""
    )
    if b.buffer_bytes is None:
        of = "of an unknown buffer size"
    else:
        of = (
            f"= {format_bytes(b.total_headroom_bytes)} B of {format_bytes(b.buffer_bytes)} B "
            f"({b.utilisation_percent}%, buffer size {b.buffer_evidence}) "
            f"{'fits' if b.fits else 'DOES NOT FIT'}"
        )
    unlisted = f", {b.unlisted_ports} not listed" if b.unlisted_ports else ""
    return (
        f"budget: {b.lossless_pgs} lossless PGs on {b.ports} ports{unlisted}, "
        f"reserved {format_bytes(b.reserved_headroom_bytes)} B"
        f"{pool} {of}"
    )


def _shared_pool_note(device: DevicePlan) -> str | None:
    """Why size < xoff in the table: with a shared headroom pool a PG reserves only xon."""
    if not device.headroom_settings.shared_headroom_pool:
        return None
    ratio = device.budget.over_subscribe_ratio
    pool = format_bytes(device.budget.shared_headroom_pool_bytes)
    return (
        "shared headroom pool on: each lossless PG reserves only xon (size = xon); the xoff "
        f"bytes come from one pool of {pool} B that all lossless PGs share "
        f"(sum of their xoff / over-subscribe ratio {ratio}), so size < xoff is expected"
    )


def _trigger_line(device: DevicePlan) -> str | None:
    t = device.pfc_trigger
    if t is None or t.trigger_bytes is None:
        return None
    return (
        f"pfc trigger: n = {t.sharing_pgs} PGs, B = {format_bytes(t.shared_buffer_bytes or 0)} B, "
        f"alpha {t.alpha:g}, T = {format_bytes(t.trigger_bytes)} B, f = {t.fan_out}; "
        f"ECN marks first up to n = {t.largest_n_ecn_before_pfc}, "
        f"fully up to n = {t.largest_n_full_marking_before_pfc}"
    )


def render_plan_text(plan: FabricPlan, out: Console) -> None:
    out.print(f"fabric {plan.name}: {len(plan.devices)} devices (from {plan.inventory})")
    for device in plan.devices.values():
        out.print()
        out.print(_port_table(device))
        out.print(_budget_line(device))
        pool_note = _shared_pool_note(device)
        if pool_note:
            out.print(pool_note)
        trigger = _trigger_line(device)
        if trigger:
            out.print(trigger)
        for note in sorted(
            {h.fallback for p in device.ports.values() for h in p.headroom if h.fallback}
        ):
            out.print(f"headroom fallback: {note}")
        ecmp = device.ecmp
        out.print(
            f"ecmp: seed {ecmp.seed} ({ecmp.seed_source}), offset {ecmp.hash_offset}, "
            f"fields {', '.join(ecmp.hash_fields)}, resilient {'on' if ecmp.resilient else 'off'}"
        )
        queues = ", ".join(
            f"q{q.queue} {q.traffic} {q.scheduler}{'' if q.weight is None else f' {q.weight}%'}"
            f"{' lossless' if q.lossless else ''}"
            for q in device.queues
        )
        out.print(
            f"qos: dscp {device.roce_dscp} -> tc {device.roce_priority} (pfc), "
            f"dscp {device.cnp_dscp} -> tc {device.cnp_priority} (cnp); {queues}"
        )
        wd = device.watchdog
        out.print(
            f"pfc watchdog: {'on' if wd.enabled else 'off'}, detection {wd.detection_ms} ms, "
            f"restoration {wd.restoration_ms} ms, poll {wd.poll_ms} ms, action {wd.action}"
        )
        for what, why in not_expressed(device):
            out.print(f"not expressed in {device.os} config: {what} ({why})")
