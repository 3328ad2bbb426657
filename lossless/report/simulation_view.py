"""Each switch's worst port under incast, simulated (lossless/simulate/, docs/simulate.md): the
queue over time against the port's planned Kmin, Kmax and PFC trigger, and the run's headline
figures, as the report shows them.

The run is the fluid model with NVIDIA's DCQCN defaults, the port's real fan-in and the
plan's numbers, for `duration_s` (1 ms by default: the incast's first burst, first mark and
first pause; `lossless simulate` runs one port longer). Equal scenarios are run once
(`simulate.worst.run_distinct`): a pod's 32 alike leaves cost one run.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from lossless.plan import FabricPlan
from lossless.report import charts
from lossless.simulate.dcqcn import dcqcn
from lossless.simulate.worst import Run, run_distinct, worst_port

# The model's default step (docs/simulate.md), written as `lossless simulate` converts its
# --step (100 ns x 1e-9, which is not the float 100e-9): the same port gives the same run
STEP_S = 100.0 * 1e-9


@dataclass(frozen=True)
class SimFact:
    label: str
    text: str
    key: str  # its name in the page's JSON (data-sim attribute)
    value: Any  # the number, for tests and tools


@dataclass
class SimulationView:
    port: str
    senders: str  # "3 senders (every other lossless port), 400G each"
    facts: list[SimFact]
    chart: charts.Chart
    verdict: str
    status: str  # ok, warn (pauses before it marks), bad (drops)
    legend: list[tuple[str, int, str]]  # (kind, bytes, text) of each line across the chart
    data: dict[str, Any] = field(repr=False)


@dataclass(frozen=True)
class Simulations:
    """The report's runs: a view per simulated switch, why not for the others."""

    views: dict[str, SimulationView]
    notes: dict[str, str]
    runs: int  # distinct scenarios run
    duration_s: float


def _us(seconds: float | None) -> float | None:
    return None if seconds is None else round(seconds * 1e6, 1)


def _when(seconds: float | None, duration_s: float) -> str:
    return f"not within {duration_s * 1e3:g} ms" if seconds is None else f"{seconds * 1e6:.1f} µs"


def _gbps(bps: float) -> str:
    return f"{bps / 1e9:.1f} Gb/s"


def _speeds(run: Run) -> str:
    speeds = sorted({s.speed_bps for s in run.scenario.senders})
    return "/".join(f"{s / 1e9:g}G" for s in speeds)


def simulation_view(run: Run, duration_s: float) -> SimulationView:
    sc, r = run.scenario, run.result
    throughput = r.throughput_bps
    pauses_first = r.pause_before_mark
    facts = [
        SimFact(
            "first ECN mark",
            _when(r.first_mark_s, duration_s),
            "first_mark_us",
            _us(r.first_mark_s),
        ),
        SimFact(
            "first rate cut",
            _when(r.first_cut_s, duration_s),
            "first_rate_cut_us",
            _us(r.first_cut_s),
        ),
        SimFact(
            "first pause",
            _when(r.first_pause_s, duration_s)
            + (" (before the first mark)" if pauses_first else ""),
            "first_pause_us",
            _us(r.first_pause_s),
        ),
        SimFact(
            "paused",
            f"{r.paused_share * 100:.2f} % of sender time",
            "paused_share",
            round(r.paused_share, 6),
        ),
        SimFact(
            "dropped", f"{round(r.dropped_bytes):,} B", "dropped_bytes", round(r.dropped_bytes)
        ),
        SimFact(
            "queue",
            f"mean {round(float(r.queue.mean())):,} B, max {round(float(r.queue.max())):,} B",
            "queue_max_bytes",
            round(float(r.queue.max())),
        ),
        SimFact(
            "throughput",
            f"{_gbps(float(throughput.sum()))} in all; per sender "
            f"{float(throughput.min()) / 1e9:.2f}-{float(throughput.max()) / 1e9:.2f} Gb/s",
            "throughput_gbps",
            round(float(throughput.sum()) / 1e9, 3),
        ),
        SimFact("Jain's fairness", f"{r.fairness:.3f}", "fairness", round(r.fairness, 6)),
        SimFact(
            "converged",
            _when(r.converged_s, duration_s),
            "converged_us",
            _us(r.converged_s),
        ),
    ]
    if r.dropped_bytes > 0:
        verdict, status = f"drops {round(r.dropped_bytes):,} B: the headroom is too small", "bad"
    elif pauses_first:
        verdict, status = "PFC pauses a sender before ECN marks a frame", "warn"
    elif r.first_mark_s is None:
        verdict, status = "no congestion reached Kmin", "ok"
    else:
        verdict, status = "ECN marks before PFC pauses, no drops", "ok"
    # on the chart a word each (the legend has the bytes): three labels fit side by side
    levels = [("kmin", sc.kmin, "Kmin"), ("kmax", sc.kmax, "Kmax"), ("pfc", sc.trigger, "T (PFC)")]
    events = [
        (kind, seconds * 1e6, label)
        for kind, seconds, label in (
            ("first-mark", r.first_mark_s, "first mark"),
            ("first-pause", r.first_pause_s, "first pause"),
        )
        if seconds is not None
    ]
    chart = charts.queue_chart(r.queue.tolist(), r.duration_s * 1e6, levels, events)
    data: dict[str, Any] = {
        "port": sc.port,
        "senders": len(sc.senders),
        "duration_us": _us(r.duration_s),
        "step_ns": round(r.step_s * 1e9, 3),
        "kmin_bytes": sc.kmin,
        "kmax_bytes": sc.kmax,
        "pmax_percent": round(sc.pmax * 100, 3),
        "pfc_trigger_bytes": sc.trigger,
        "pauses_before_marking": pauses_first,
        **{f.key: f.value for f in facts},
    }
    return SimulationView(
        port=sc.port,
        senders=f"{len(sc.senders)} senders (every other lossless port with a peer), "
        f"{_speeds(run)}, into {sc.speed_bps / 1e9:g}G",
        facts=facts,
        chart=chart,
        verdict=verdict,
        status=status,
        legend=[
            (kind, size, f"{what}: {size:,} B")
            for (kind, size, _), what in zip(
                levels,
                ("Kmin, marking starts", "Kmax, every frame marked", "T, one PG's PFC trigger"),
                strict=True,
            )
        ],
        data=data,
    )


def simulations(plan: FabricPlan, names: list[str], duration_s: float) -> Simulations:
    """Each named switch's worst port, run for duration_s with NVIDIA's DCQCN defaults."""
    notes: dict[str, str] = {}
    ports = []
    for name in names:
        port = worst_port(plan, name)
        if port is None:
            notes[name] = "no lossless port that another one sends into"
        else:
            ports.append((name, port))
    runs, count = run_distinct(plan, ports, dcqcn(), duration_s, STEP_S)
    views: dict[str, SimulationView] = {}
    shared: dict[int, SimulationView] = {}
    for (name, _), run in runs.items():
        if isinstance(run, str):
            notes[name] = run
            continue
        # alike switches share the run; the view names each one's own port
        view = shared.get(id(run.result))
        if view is None or view.port != run.scenario.port:
            view = simulation_view(run, duration_s)
            shared[id(run.result)] = view
        views[name] = view
    return Simulations(views, notes, count, duration_s)
