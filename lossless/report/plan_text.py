"""`lossless plan --format text`: a table of ports per device, then budget, ECMP and maps.

On a terminal the tables are rich tables that fit the terminal's width: columns are left
out, least useful first, until the table fits (a line says which; `--format json` has them
all). To a pipe or a file the text is plain, every column, padded to its widest cell: the
same text on any machine, and written fast enough for a fabric of 100,000 ports.

Names and notes can come from a config read back or a pull request's inventory: every text
shown is made printable first (lossless.text.printable), cells before their widths are
measured, and rich reads none of it as markup or emoji codes.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, TextIO

from lossless.plan import DevicePlan, FabricPlan, PortPlan
from lossless.report.not_expressed import spelt_out
from lossless.text.grammar import plural
from lossless.text.printable import printable
from lossless.text.units import format_bytes, format_speed
from lossless.vendors.registry import not_expressed

if TYPE_CHECKING:
    from rich.console import Console

# (heading, right-justified) of each column of the port table
COLUMNS = (
    ("port", False),
    ("peer", False),
    ("speed", True),
    ("lanes", True),
    ("cable m", True),
    ("mtu", True),
    ("pfc", False),
    ("xon", True),
    ("xoff", True),
    ("size", True),
    ("ecn min", True),
    ("ecn max", True),
    ("prob %", True),
    ("ecn<pfc", False),
)
# Left out first when a terminal is too narrow for every column (port and peer always stay).
NARROW_DROPS = ("lanes", "prob %", "mtu", "pfc", "speed", "ecn min", "size", "xon")
GAP = "  "  # between the columns of the plain table


def _flag(value: bool | None, good: str = "yes", bad: str = "NO") -> str:
    return "?" if value is None else (good if value else bad)


def _row(port: PortPlan, memo: dict[tuple, tuple[str, ...]] | None = None) -> tuple[str, ...]:
    """A port's cells. memo: the cells after the peer, by the values they show (the ports of
    a fabric have a few dozen distinct ones), formatted once each."""
    if memo is None:
        return (printable(port.name), printable(port.peer or "-"), *_values(port))
    headroom = port.headroom[0] if port.headroom else None
    ecn = port.ecn[0] if port.ecn else None
    key = (
        port.speed_mbps,
        port.lanes,
        port.cable_m,
        port.mtu,
        tuple(port.pfc_priorities),
        headroom and (headroom.xon, headroom.xoff, headroom.size),
        ecn and (ecn.min_bytes, ecn.max_bytes, ecn.probability_percent, ecn.max_below_trigger),
    )
    values = memo.get(key)
    if values is None:
        values = memo[key] = _values(port)
    return (printable(port.name), printable(port.peer or "-"), *values)


def _values(port: PortPlan) -> tuple[str, ...]:
    headroom = port.headroom[0] if port.headroom else None
    ecn = port.ecn[0] if port.ecn else None
    return (
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


def _title(device: DevicePlan) -> str:
    return printable(f"{device.name}  ({device.role}, {device.os}, {device.asic})")


def _heading(plan: FabricPlan) -> str:
    devices = plural(len(plan.devices), "device")
    return printable(f"fabric {plan.name}: {devices} (from {plan.inventory})")


def _plain_table(rows: list[tuple[str, ...]]) -> Iterator[str]:
    """The heading and the rows, each column padded to its widest cell."""
    headings = tuple(heading for heading, _ in COLUMNS)
    widths = [max(map(len, column)) for column in zip(headings, *rows, strict=True)]
    formats = GAP.join(
        f"{{:{'>' if right else '<'}{width}}}"
        for (_, right), width in zip(COLUMNS, widths, strict=True)
    )
    for cells in (headings, *rows):
        yield formats.format(*cells).rstrip()


def write_plan_text(plan: FabricPlan, out: TextIO) -> None:
    """The plan as plain text (a pipe or a file)."""
    out.write(_heading(plan) + "\n")
    memo: dict[tuple, tuple[str, ...]] = {}
    for device in plan.devices.values():
        lines = [
            "",
            _title(device),
            *_plain_table([_row(port, memo) for port in device.ports.values()]),
            *device_lines(device),
        ]
        out.write("\n".join(lines) + "\n")


def print_plan_rich(plan: FabricPlan, out: Console) -> None:
    """The plan as rich tables that fit the terminal's width."""
    from rich.text import Text

    out.print(Text(_heading(plan)))
    for device in plan.devices.values():
        rows = [_row(port) for port in device.ports.values()]
        shown, left_out = _fitting_columns(rows, out.width)
        out.print()
        out.print(_rich_table(device, rows, shown))
        if left_out:
            out.print(
                f"(left out at {out.width} columns: {', '.join(left_out)}; "
                "a wider terminal or --format json shows them)"
            )
        for line in device_lines(device):
            out.print(Text(line))


def _fitting_columns(rows: list[tuple[str, ...]], width: int) -> tuple[list[int], list[str]]:
    """Indexes of the columns that fit `width` characters, and the headings left out."""
    natural = [
        max(len(heading), *(len(row[index]) for row in rows)) if rows else len(heading)
        for index, (heading, _) in enumerate(COLUMNS)
    ]
    shown = list(range(len(COLUMNS)))
    left_out: list[str] = []
    for heading in NARROW_DROPS:
        # rich draws a column as its text, a space either side and a rule between columns
        if sum(natural[i] for i in shown) + 3 * len(shown) - 1 <= width:
            break
        shown.remove(next(i for i in shown if COLUMNS[i][0] == heading))
        left_out.append(heading)
    return shown, left_out


def _rich_table(device: DevicePlan, rows: list[tuple[str, ...]], shown: list[int]):
    from rich.table import Table
    from rich.text import Text

    title = Text(_title(device), style="table.title")  # text, not markup
    table = Table(title=title, title_justify="left", show_edge=False, pad_edge=False)
    for index in shown:
        heading, right = COLUMNS[index]
        table.add_column(heading, justify="right" if right else "left")
    for row in rows:
        table.add_row(*(Text(row[index]) for index in shown))
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
        f"budget: {b.lossless_pgs} lossless PGs on {plural(b.ports, 'port')}{unlisted}, "
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


def device_lines(device: DevicePlan) -> list[str]:
    """What follows a device's port table: budget, PFC trigger, ECMP, QoS, watchdog, and what
    the device's OS cannot express; each line printable."""
    lines = [_budget_line(device)]
    pool_note = _shared_pool_note(device)
    if pool_note:
        lines.append(pool_note)
    trigger = _trigger_line(device)
    if trigger:
        lines.append(trigger)
    for note in sorted(
        {h.fallback for p in device.ports.values() for h in p.headroom if h.fallback}
    ):
        lines.append(f"headroom fallback: {note}")
    ecmp = device.ecmp
    lines.append(
        f"ecmp: seed {ecmp.seed} ({ecmp.seed_source}), offset {ecmp.hash_offset}, "
        f"fields {', '.join(ecmp.hash_fields)}, resilient {'on' if ecmp.resilient else 'off'}"
    )
    queues = ", ".join(
        f"q{q.queue} {q.traffic} {q.scheduler}{'' if q.weight is None else f' {q.weight}%'}"
        f"{' lossless' if q.lossless else ''}"
        for q in device.queues
    )
    lines.append(
        f"qos: dscp {device.roce_dscp} -> tc {device.roce_priority} (pfc), "
        f"dscp {device.cnp_dscp} -> tc {device.cnp_priority} (cnp); {queues}"
    )
    wd = device.watchdog
    lines.append(
        f"pfc watchdog: {'on' if wd.enabled else 'off'}, detection {wd.detection_ms} ms, "
        f"restoration {wd.restoration_ms} ms, poll {wd.poll_ms} ms, action {wd.action}"
    )
    for what, why in not_expressed(device):
        lines.append(f"not expressed in {device.os} config: {what} ({spelt_out(why)})")
    return [printable(line) for line in lines]
