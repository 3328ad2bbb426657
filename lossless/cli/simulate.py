"""`lossless simulate`: one planned port under N:1 incast in time (lossless/simulate/)."""

from __future__ import annotations

import argparse
import csv
import json
import math
import sys

from lossless.cli.inputs import load
from lossless.errors import UsageError
from lossless.inventory.schema import suggest
from lossless.planner.fabric import plan_fabric
from lossless.simulate.dcqcn import DEFAULTS, RANGES, dcqcn
from lossless.simulate.fluid import Result, simulate
from lossless.simulate.scenario import Scenario, ScenarioError, fan_in, scenario
from lossless.text.printable import printable

MAX_SENDERS = 4096
MAX_STEPS = 10_000_000  # 1 s at 100 ns: minutes of run time, no more
SAMPLES = 200  # queue samples in the text and JSON outputs (csv: one per microsecond)


def _dcqcn_overrides(pairs: list[str]) -> dict[str, float]:
    overrides = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or name not in DEFAULTS:
            raise UsageError(
                f"--dcqcn {printable(pair)!r}: NAME=VALUE with NAME one of {', '.join(DEFAULTS)}"
            )
        try:
            number = float(value)
        except ValueError:
            number = float("nan")
        low, high = RANGES[name]
        if not low <= number <= (float("inf") if high is None else high) or math.isinf(number):
            upper = f" and {high:g}" if high is not None else ""
            raise UsageError(
                f"--dcqcn {name}: {printable(value)!r} is not a number "
                + (f"between {low:g}{upper}" if high is not None else f">= {low:g}")
            )
        overrides[name] = number
    return overrides


def _check(args: argparse.Namespace) -> None:
    if args.incast is not None and not 1 <= args.incast <= MAX_SENDERS:
        raise UsageError(f"--incast must be between 1 and {MAX_SENDERS}")
    if not 0 < args.step <= 1000:
        raise UsageError("--step must be more than 0 and at most 1000 ns")
    if not args.duration > 0 or args.duration * 1e6 / args.step > MAX_STEPS:
        raise UsageError(
            f"--duration must be more than 0 and at most {MAX_STEPS:,} steps of --step"
        )


def simulate_command(args: argparse.Namespace) -> int:
    _check(args)
    overrides = _dcqcn_overrides(args.dcqcn)
    inventory = load(args, "simulate")
    device = inventory.devices.get(args.device)
    if device is None:
        raise UsageError(
            f"no device {printable(args.device)!r}{suggest(args.device, inventory.devices)}"
        )
    if args.port is not None and args.port not in device.ports:
        raise UsageError(
            f"{args.device} has no port {printable(args.port)!r}{suggest(args.port, device.ports)}"
        )
    plan = plan_fabric(inventory, [args.device])
    planned = plan.devices[args.device]
    port = args.port or next(
        (name for name, p in planned.ports.items() if p.lossless and fan_in(planned, name)), None
    )
    if port is None:
        raise UsageError(f"{args.device} has no lossless port that others send into")
    try:
        sc = scenario(plan, args.device, port, args.incast)
    except ScenarioError as error:
        raise UsageError(str(error)) from None
    cc = None if args.no_cc else dcqcn(overrides)
    result = simulate(sc, cc, args.duration / 1000, step_s=args.step * 1e-9)
    if args.format == "json":
        print(json.dumps(record(sc, result, cc is not None), indent=2))
    elif args.format == "csv":
        write_csv(sc, result)
    else:
        print("\n".join(text_lines(sc, result, cc is not None)))
    return 0


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


def write_csv(sc: Scenario, result: Result) -> None:
    writer = csv.writer(sys.stdout, lineterminator="\n")
    writer.writerow(["us", "queue_bytes", "kmin_bytes", "kmax_bytes", "pfc_trigger_bytes"])
    count = max(1, round(result.duration_s * 1e6))  # one row a microsecond
    for t, b in _samples(result, count):
        writer.writerow([t, round(b), sc.kmin, sc.kmax, sc.trigger])
