"""What `lossless simulate` shows of a run: the JSON record, the text summary with its queue
chart (Kmin, Kmax and the PFC trigger marked) and the CSV rows."""

from __future__ import annotations

from lossless.simulate.fluid import Result
from lossless.simulate.scenario import Scenario
from lossless.text.printable import printable

SAMPLES = 200  # queue samples in the text and JSON outputs (csv: one per microsecond)


def _us(seconds: float | None) -> float | None:
    return None if seconds is None else round(seconds * 1e6, 3)


def _samples(result: Result, count: int) -> list[tuple[float, float]]:
    """(time in us, the most the queue held since the previous sample), count of them."""
    q = result.queue
    every = max(1, len(q) // count)
    return [
        (round(i * result.step_s * 1e6, 3), float(q[i : i + every].max()))
        for i in range(0, len(q), every)
    ]


def record(sc: Scenario, result: Result, cc: bool) -> dict:
    throughput = result.throughput_bps
    return {
        "device": sc.device,
        "port": sc.port,
        "speed_gbps": sc.speed_bps / 1e9,
        "senders": len(sc.senders),
        "fan_in": sc.fan_in,
        "congestion_control": "dcqcn" if cc else None,
        "duration_us": _us(result.duration_s),
        "step_ns": round(result.step_s * 1e9, 3),
        "kmin_bytes": sc.kmin,
        "kmax_bytes": sc.kmax,
        "pmax_percent": round(sc.pmax * 100, 3),
        "pfc_trigger_bytes": sc.trigger,
        "first_mark_us": _us(result.first_mark_s),
        "first_rate_cut_us": _us(result.first_cut_s),
        "first_pause_us": _us(result.first_pause_s),
        "pauses_before_marking": result.pause_before_mark,
        "paused_share": round(result.paused_share, 6),
        "dropped_bytes": round(result.dropped_bytes),
        "queue_mean_bytes": round(float(result.queue.mean())),
        "queue_max_bytes": round(float(result.queue.max())),
        "converged_us": _us(result.converged_s),
        "fairness": round(result.fairness, 6),
        "throughput_gbps": [
            {"port": s.port, "peer": s.peer, "gbps": round(float(x) / 1e9, 3)}
            for s, x in zip(sc.senders, throughput, strict=True)
        ],
        "queue": [{"us": t, "bytes": round(b)} for t, b in _samples(result, SAMPLES)],
        "sources": sc.sources,
    }


def _when(seconds: float | None) -> str:
    return "never" if seconds is None else f"{seconds * 1e6:.1f} us"


def _bar(value: float, scale: float, marks: dict[int, str], width: int = 50) -> str:
    cells = [" "] * (width + 1)
    for column, char in marks.items():
        if column <= width:
            cells[column] = char
    filled = min(width, round(value / scale * width)) if scale else 0
    for i in range(filled):
        cells[i] = "#" if cells[i] == " " else cells[i]
    return "".join(cells).rstrip()


def text_lines(sc: Scenario, result: Result, cc: bool) -> list[str]:
    throughput = result.throughput_bps / 1e9
    lines = [
        f"{printable(sc.device)} {printable(sc.port)}: {sc.speed_bps / 1e9:g}G, "
        f"{len(sc.senders)} senders "
        f"(fan-in {sc.fan_in}), {result.duration_s * 1e3:g} ms in steps of "
        f"{result.step_s * 1e9:g} ns, congestion control {'DCQCN' if cc else 'off'}",
        f"  ECN Kmin {sc.kmin} B, Kmax {sc.kmax} B, Pmax {sc.pmax * 100:g} %; "
        f"PFC fires at {sc.trigger} B in a PG",
        f"  first ECN mark  {_when(result.first_mark_s)}",
        f"  first rate cut  {_when(result.first_cut_s)}",
        f"  first pause     {_when(result.first_pause_s)}"
        + ("   (pauses before it marks)" if result.pause_before_mark else ""),
        f"  paused          {result.paused_share * 100:.2f} % of sender time",
        f"  dropped         {result.dropped_bytes:.0f} B",
        f"  queue           mean {result.queue.mean():.0f} B, max {result.queue.max():.0f} B",
        f"  throughput      {throughput.sum():.1f} Gb/s in all, per sender "
        f"{throughput.min():.2f}-{throughput.max():.2f} Gb/s, Jain's fairness "
        f"{result.fairness:.3f}",
        f"  converged       {_when(result.converged_s)}",
        "",
        "queue depth (#), K = Kmin, M = Kmax, T = the PFC trigger of one PG",
    ]
    samples = _samples(result, 25)
    scale = max(max(b for _, b in samples), sc.kmax, sc.trigger) * 1.05
    width = 50
    marks = {
        round(sc.kmin / scale * width): "K",
        round(sc.kmax / scale * width): "M",
        round(sc.trigger / scale * width): "T",
    }
    for t, b in samples:
        lines.append(f"  {t:10.1f} us {b:12.0f} B |{_bar(b, scale, marks, width)}")
    return lines


def csv_rows(sc: Scenario, result: Result) -> list[list[object]]:
    """The header, then one row a microsecond: the most the queue held, with the marks."""
    rows: list[list[object]] = [
        ["us", "queue_bytes", "kmin_bytes", "kmax_bytes", "pfc_trigger_bytes"]
    ]
    count = max(1, round(result.duration_s * 1e6))
    rows += [[t, round(b), sc.kmin, sc.kmax, sc.trigger] for t, b in _samples(result, count)]
    return rows
