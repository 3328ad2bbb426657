"""Geometry of the report's SVG charts, in SVG user units: the templates place what is
computed here and compute nothing themselves.

Every chart has a fixed viewBox and scales to the width of the page (80 columns or a wide
screen alike); positions are rounded to 0.1 unit so the same plan gives the same bytes.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from lossless.text.grammar import plural
from lossless.text.units import format_speed

# The plot area of the small charts (headroom against cable, ECN against the PFC trigger).
WIDTH, HEIGHT = 480, 250
LEFT, RIGHT, TOP, BOTTOM = 62, 466, 14, 206


def _r(value: float) -> float:
    return round(value, 1)


def si_bytes(value: float) -> str:
    """Bytes in decimal units for axis labels: 150000 -> '150 kB', 2e6 -> '2 MB'."""
    for unit, size in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if value >= size:
            return f"{value / size:g} {unit}"
    return f"{value:g} B"


@dataclass(frozen=True)
class Tick:
    at: float  # x for an x-axis tick, y for a y-axis tick
    label: str


@dataclass(frozen=True)
class Segment:
    kind: str  # CSS class: reserved, pool, shared, over
    x: float
    width: float
    title: str


@dataclass(frozen=True)
class Bar:
    """A stacked bar across a 1000-unit-wide viewBox (stretched to the page width)."""

    segments: list[Segment]
    buffer_at: float | None  # where the buffer ends, when the headroom overflows it


BAR_WIDTH = 1000


def stacked_bar(parts: Sequence[tuple[str, int, str]], capacity: int) -> Bar:
    """parts: (kind, bytes, title) laid end to end; capacity: the buffer. Headroom beyond the
    buffer shows past a marker at the buffer's end."""
    total = sum(size for _, size, _ in parts)
    scale = BAR_WIDTH / max(total, capacity, 1)
    segments, x = [], 0.0
    for kind, size, title in parts:
        if size > 0:
            segments.append(Segment(kind, _r(x), _r(size * scale), title))
            x += size * scale
    return Bar(segments, _r(capacity * scale) if total > capacity else None)


@dataclass(frozen=True)
class Point:
    x: float
    y: float
    kind: str  # CSS class of the marker
    title: str


@dataclass(frozen=True)
class Line:
    x1: float
    y1: float
    x2: float
    y2: float
    kind: str
    label: str = ""
    label_x: float = 0.0
    label_y: float = 0.0


@dataclass(frozen=True)
class Chart:
    x_ticks: list[Tick]
    y_ticks: list[Tick]
    x_label: str
    y_label: str
    points: list[Point] = field(default_factory=list)
    lines: list[Line] = field(default_factory=list)
    curves: list[tuple[str, str]] = field(default_factory=list)  # (label, SVG points)
    width: int = WIDTH
    height: int = HEIGHT
    left: int = LEFT
    right: int = RIGHT
    top: int = TOP
    bottom: int = BOTTOM

    # Where the frame, tick labels and axis titles go (the template only places them).
    @property
    def plot_width(self) -> int:
        return self.right - self.left

    @property
    def plot_height(self) -> int:
        return self.bottom - self.top

    @property
    def y_tick_x(self) -> int:
        return self.left - 4

    @property
    def x_tick_y(self) -> int:
        return self.bottom + 14

    @property
    def x_title_y(self) -> int:
        return self.bottom + 32

    @property
    def y_title_y(self) -> int:
        return self.top + 4


def nice_ceiling(value: float) -> tuple[float, float]:
    """An axis end at or above value and a tick step: 1, 2 or 5 x 10^k, 3 to 6 ticks."""
    if value <= 0:
        return 1.0, 1.0
    power = 10 ** math.floor(math.log10(value))
    for multiple in (1, 2, 5, 10):
        step = multiple * power / 5
        if value / step <= 5:
            return step * math.ceil(value / step), step
    return 10 * power, 2 * power  # not reached: 10 x power / 2 always fits


def _linear(low: float, high: float, out_low: float, out_high: float) -> Callable[[float], float]:
    span = (high - low) or 1
    return lambda v: _r(out_low + (v - low) * (out_high - out_low) / span)


def _log(low: float, high: float, out_low: float, out_high: float) -> Callable[[float], float]:
    a, b = math.log10(low), math.log10(high)
    return lambda v: _r(out_low + (math.log10(max(v, low)) - a) * (out_high - out_low) / (b - a))


Model = Callable[[float], int]  # a port group's model xoff at a cable length (m)
CURVE_SAMPLES = 24  # points per model curve: xoff grows in whole cells, near-linear in length


def headroom_chart(
    points: Sequence[tuple[float, int, str, str]],
    models: Sequence[tuple[str, Model]] = (),
) -> Chart:
    """xoff (and the vendor table's floor) against cable length, over the model curve each
    point comes from: a port group's xoff as its model gives it at every length from 0 to
    the chart's end, before any vendor-table floor.
    points: (cable m, bytes, kind, title); models: (label, xoff at a length)."""
    # 5 % of room past the largest value, so no marker sits on the frame
    x_end, x_step = nice_ceiling(1.05 * max((p[0] for p in points), default=1) or 1)
    lengths = [x_end * i / CURVE_SAMPLES for i in range(CURVE_SAMPLES + 1)]
    curves = [(label, [(length, model(length)) for length in lengths]) for label, model in models]
    highest = max([p[1] for p in points] + [b for _, c in curves for _, b in c], default=1)
    y_end, y_step = nice_ceiling(1.05 * highest or 1)
    x = _linear(0, x_end, LEFT, RIGHT)
    y = _linear(0, y_end, BOTTOM, TOP)
    return Chart(
        x_ticks=[Tick(x(v), f"{v:g}") for v in _steps(x_end, x_step)],
        y_ticks=[Tick(y(v), si_bytes(v)) for v in _steps(y_end, y_step)],
        x_label="cable length (m)",
        y_label="xoff",
        points=[Point(x(c), y(b), kind, title) for c, b, kind, title in points],
        curves=[
            (label, " ".join(f"{_r(x(c))},{_r(y(b))}" for c, b in samples))
            for label, samples in curves
        ],
    )


def _steps(end: float, step: float) -> list[float]:
    return [round(i * step, 9) for i in range(round(end / step) + 1)]


@dataclass(frozen=True)
class Threshold:
    """An ECN threshold line and where it meets the PFC trigger curve."""

    kind: str  # "kmin" or "kmax"
    bytes: int
    largest_n: int | None  # the most PGs with the threshold still below T/f
    label: str


def ecn_chart(
    curves: Sequence[tuple[str, Callable[[int], float]]],
    thresholds: Sequence[Threshold],
    device_n: int,
) -> Chart:
    """Log-log: the queue level at which PFC fires, T(n)/f, against n congested PGs (one
    curve per fan-out f), the ECN thresholds as horizontal lines with the n where each meets
    the curve, and the device's own n."""
    reach = max([device_n, *(t.largest_n or 0 for t in thresholds)]) * 2
    decades = max(2, math.ceil(math.log10(max(reach, 1))))
    n_end = 10**decades
    levels = [trigger(n) for _, trigger in curves for n in (1, n_end)]
    lowest = min([*levels, *(t.bytes for t in thresholds)])
    highest = max([*levels, *(t.bytes for t in thresholds)])
    low_power = math.floor(math.log10(max(lowest, 1)))
    high_power = max(math.ceil(math.log10(max(highest, 1))), low_power + 1)
    x = _log(1, n_end, LEFT, RIGHT)
    y = _log(10**low_power, 10**high_power, BOTTOM, TOP)
    samples = sorted({round(10 ** (i / 16)) for i in range(16 * decades + 1)})
    lines = [
        Line(
            x(device_n),
            TOP,
            x(device_n),
            BOTTOM,
            "device-n",
            f"n = {device_n}",
            _r(x(device_n) + 4),
            TOP + 10,
        ),
    ]
    points = []
    for t in thresholds:
        lines.append(
            Line(LEFT, y(t.bytes), RIGHT, y(t.bytes), t.kind, t.label, LEFT + 4, _r(y(t.bytes) - 4))
        )
        if t.largest_n:
            points.append(
                Point(
                    x(t.largest_n),
                    y(t.bytes),
                    t.kind,
                    f"{t.label}: below the PFC trigger up to n = {t.largest_n}",
                )
            )
    return Chart(
        x_ticks=[Tick(x(10**k), f"{10**k:g}") for k in range(decades + 1)],
        y_ticks=[Tick(y(10**k), si_bytes(10**k)) for k in range(low_power, high_power + 1)],
        x_label="n: congested lossless PGs",
        y_label="queue level",
        points=points,
        lines=lines,
        curves=[
            (label, " ".join(f"{x(n)},{y(trigger(n))}" for n in samples))
            for label, trigger in curves
        ],
    )


# The topology diagram: one row per tier, highest first.
DIAGRAM_WIDTH = 720
ROW_GAP = 74
BOX_HEIGHT = 30
MIN_BOX_WIDTH = 44
CHAR_WIDTH = 7  # of the 12px monospace-ish label font, for truncating names


@dataclass(frozen=True)
class Box:
    x: float
    y: float
    width: float
    label: str
    title: str
    kind: str  # the role, as a CSS class
    text_x: float  # the label's centre
    text_y: float


@dataclass(frozen=True)
class Connection:
    """The links between two boxes, as an SVG polyline."""

    points: str
    kind: str  # CSS class: w1 .. w4, thicker for more bandwidth
    label: str
    label_x: float
    label_y: float


@dataclass(frozen=True)
class Diagram:
    width: int
    height: int
    boxes: list[Box]
    connections: list[Connection]


def _fit(text: str, width: float) -> str:
    room = max(3, int((width - 8) // CHAR_WIDTH))
    return text if len(text) <= room else text[: room - 1] + "…"


def _box(x: float, y: float, width: float, title: str, role: str) -> Box:
    return Box(
        _r(x), y, _r(width), _fit(title, width), title, role, _r(x + width / 2), y + BOX_HEIGHT / 2
    )


def topology_diagram(
    rows: Sequence[tuple[str, list[str], str]],
    bundles: Sequence[tuple[str, str, int, int]],
) -> Diagram:
    """rows: (role, node names, summary of them as one label) from the top tier down;
    bundles: (lower node, upper node, links, Mb/s). A row whose names do not fit side by side
    becomes one box for the whole tier."""
    boxes: list[Box] = []
    box_of: dict[str, int] = {}
    usable = DIAGRAM_WIDTH - 16
    for index, (role, names, summary) in enumerate(rows):
        y = 8 + index * ROW_GAP
        longest = max((len(n) for n in names), default=1)
        width = min(140.0, usable / max(len(names), 1) - 8)
        if width < max(MIN_BOX_WIDTH, min(longest, 10) * CHAR_WIDTH + 8):
            box_of.update({name: len(boxes) for name in names})
            boxes.append(_box(8 + usable * 0.2, y, usable * 0.6, summary, role))
            continue
        start = 8 + (usable - len(names) * (width + 8)) / 2 + 4
        for position, name in enumerate(names):
            box_of[name] = len(boxes)
            boxes.append(_box(start + position * (width + 8), y, width, name, role))
    pairs: dict[tuple[int, int], list[int]] = {}
    for lower, upper, links, mbps in bundles:
        if lower in box_of and upper in box_of:
            totals = pairs.setdefault((box_of[lower], box_of[upper]), [0, 0])
            totals[0] += links
            totals[1] += mbps
    heaviest = max((t[1] for t in pairs.values()), default=1) or 1
    links_drawn = []
    labelled = len(pairs) <= 6
    for (low, high), (links, mbps) in pairs.items():
        if low == high:
            continue  # links inside one box (a tier drawn as one): the links table has them
        weight = f"w{1 + round(3 * mbps / heaviest)}"
        label = f"{plural(links, 'link')}, {format_speed(mbps)}" if labelled else ""
        links_drawn.append(_connection(boxes[low], boxes[high], weight, label))
    links_drawn.sort(key=lambda c: c.kind.endswith("lateral"))  # on top: they stand out
    height = 8 + len(rows) * ROW_GAP - (ROW_GAP - BOX_HEIGHT) + 8
    return Diagram(DIAGRAM_WIDTH, max(height, BOX_HEIGHT + 16), boxes, links_drawn)


def _connection(a: Box, b: Box, kind: str, label: str) -> Connection:
    """From the top of the lower box to the bottom of the upper one; two boxes of one row
    (a link inside a tier: a deadlock risk) by a V under the row, dashed in an accent
    colour, which stays visible past the boxes between them."""
    x1, x2 = _r(a.x + a.width / 2), _r(b.x + b.width / 2)
    if a.y == b.y:
        bottom = a.y + BOX_HEIGHT
        dip = _r(bottom + (ROW_GAP - BOX_HEIGHT) / 2)
        middle = _r((x1 + x2) / 2)
        return Connection(
            f"{x1},{bottom} {middle},{dip} {x2},{bottom}",
            f"{kind} lateral",
            label or "same tier",
            _r(middle + 6),
            dip,
        )
    y1, y2 = a.y, _r(b.y + BOX_HEIGHT)
    # the label a third of the way up from the lower box, where fanned-out lines are apart
    return Connection(
        f"{x1},{y1} {x2},{y2}", kind, label, _r(x1 + (x2 - x1) / 3 + 6), _r(y1 + (y2 - y1) / 3)
    )


QUEUE_POINTS = 240  # samples of a simulated queue: each the most it held in its interval


def queue_chart(
    queue: Sequence[float],
    duration_us: float,
    levels: Sequence[tuple[str, int, str]],
    events: Sequence[tuple[str, float, str]],
) -> Chart:
    """A simulated egress queue over time: queue (bytes per model step, over duration_us)
    drawn as QUEUE_POINTS samples, each the most the queue held in its interval (so no peak
    is lost); levels: horizontal lines (kind, bytes, label), Kmin, Kmax and the PFC
    trigger; events: vertical lines (kind, microseconds, label), the first mark and pause."""
    steps = len(queue)
    every = max(1, math.ceil(steps / QUEUE_POINTS))
    samples = [
        (i * duration_us / max(steps, 1), max(queue[i : i + every])) for i in range(0, steps, every)
    ]
    x_end, x_step = nice_ceiling(duration_us)
    highest = max([b for _, b in samples] + [size for _, size, _ in levels] + [1])
    y_end, y_step = nice_ceiling(1.05 * highest)
    x = _linear(0, x_end, LEFT, RIGHT)
    y = _linear(0, y_end, BOTTOM, TOP)
    points = [(x(t), y(b)) for t, b in samples]
    # the labels of close levels (Kmax just under T) side by side, not on top of each other
    shift = (RIGHT - LEFT) / max(1, len(levels))
    lines = [
        Line(
            LEFT,
            y(size),
            RIGHT,
            y(size),
            kind,
            label,
            _r(LEFT + 4 + index * shift),
            _r(y(size) - 4),
        )
        for index, (kind, size, label) in enumerate(levels)
    ]
    lines += [
        Line(x(at), TOP, x(at), BOTTOM, kind, label, _r(x(at) + 4), TOP + 10 + 12 * index)
        for index, (kind, at, label) in enumerate(events)
    ]
    return Chart(
        x_ticks=[Tick(x(v), f"{v:g}") for v in _steps(x_end, x_step)],
        y_ticks=[Tick(y(v), si_bytes(v)) for v in _steps(y_end, y_step)],
        x_label="time (µs)",
        y_label="egress queue",
        lines=lines,
        curves=[("queue", " ".join(f"{px},{py}" for px, py in _flat_runs_ends(points)))],
    )


def _flat_runs_ends(points: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """The polyline without the inner points of a flat run (the same height before and
    after): the same line in fewer bytes (a drained queue is flat for most of a run)."""
    return [
        p
        for i, p in enumerate(points)
        if i in (0, len(points) - 1) or not points[i - 1][1] == p[1] == points[i + 1][1]
    ]
