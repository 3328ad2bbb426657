"""`lossless simulate`: one planned port under N:1 incast in time (lossless/simulate/)."""

from __future__ import annotations

import argparse
import csv
import json
import sys

from lossless.cli.inputs import load
from lossless.errors import UsageError
from lossless.inventory.schema import suggest
from lossless.planner.fabric import plan_fabric
from lossless.simulate.dcqcn import dcqcn, parse_overrides
from lossless.simulate.fluid import simulate
from lossless.simulate.output import csv_rows, record, text_lines
from lossless.simulate.scenario import ScenarioError, fan_in, scenario
from lossless.text.printable import printable

MAX_SENDERS = 4096
MAX_STEPS = 10_000_000  # 1 s at 100 ns: minutes of run time, no more


def _dcqcn_overrides(pairs: list[str]) -> dict[str, float]:
    try:
        return parse_overrides(pairs)
    except ValueError as error:
        raise UsageError(str(error)) from None


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
        csv.writer(sys.stdout, lineterminator="\n").writerows(csv_rows(sc, result))
    else:
        print("\n".join(text_lines(sc, result, cc is not None)))
    return 0
