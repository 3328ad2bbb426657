"""`lossless plan` (every device's numbers), `lossless explain` (how one port's numbers are
made) and `lossless headroom` (a what-if headroom table, no inventory needed)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from dataclasses import replace
from typing import TypeVar

from lossless.asics import catalogue
from lossless.cli.inputs import load
from lossless.cli.selection import chosen_devices
from lossless.errors import UsageError
from lossless.inventory.schema import suggest
from lossless.planner.fabric import plan_fabric
from lossless.text.units import format_speed, parse_length_m, parse_speed

Value = TypeVar("Value")


def plan_command(args: argparse.Namespace) -> int:
    # Modules a command may not need are imported where needed: start-up time counts for a
    # one-device lint in a pull request.
    if args.expanded and args.format != "json":
        raise UsageError("--expanded is a form of the plan JSON: add --format json")
    inventory = load(args, "plan")
    # the text shows the switches only; the JSON's NICs are planned where they are encoded
    plan = plan_fabric(
        inventory,
        chosen_devices(inventory, args),
        hosts="later" if args.format == "json" else False,
    )
    if args.format == "json":
        from lossless.report.plan_json import write_plan_json

        write_plan_json(plan, sys.stdout, expanded=args.expanded)
    elif sys.stdout.isatty():
        from lossless.report.console import console
        from lossless.report.plan_text import print_plan_rich

        print_plan_rich(plan, console())
    else:
        from lossless.report.plan_text import write_plan_text

        write_plan_text(plan, sys.stdout)
    return 0


def explain_command(args: argparse.Namespace) -> int:
    from lossless.report.explain_text import explain_lines, explain_record

    inventory = load(args, "explain")
    device = inventory.devices.get(args.device)
    if device is None:
        raise UsageError(f"no device {args.device!r}{suggest(args.device, inventory.devices)}")
    if args.port not in device.ports:
        raise UsageError(
            f"{args.device} has no port {args.port!r}{suggest(args.port, device.ports)}"
        )
    plan = plan_fabric(inventory, [args.device])
    if args.format == "json":
        print(json.dumps(explain_record(plan, args.device, args.port), indent=2))
    else:
        print("\n".join(explain_lines(plan, args.device, args.port)))
    return 0


def headroom_command(args: argparse.Namespace) -> int:
    from lossless.planner.headroom import headroom_grid
    from lossless.report.headroom_table import render_headroom

    asics = catalogue()
    if args.asic not in asics:
        raise UsageError(
            f"unknown ASIC {args.asic!r}{suggest(args.asic, asics)}; known: {', '.join(asics)}"
        )
    overrides = {
        "cell_size": args.cell_size,
        "pipeline_latency_kib": args.pipeline_latency_kib,
        "mac_phy_delay_kib": args.mac_phy_delay_kib,
        "peer_response_time_kib": args.peer_response_kib,
    }
    for name, value in overrides.items():
        if value is not None and value <= 0:
            raise UsageError(f"--{name.replace('_', '-')} must be more than 0")
    asic = replace(asics[args.asic], **{k: v for k, v in overrides.items() if v is not None})
    for name, value, low, high in (
        ("mtu", args.mtu, 68, 9216),
        ("lossless-mtu", args.lossless_mtu, 64, 9216),
        ("small-packet-percent", args.small_packet_percent, 0, 100),
    ):
        if not low <= value <= high:
            raise UsageError(f"--{name} must be between {low} and {high}")
    if args.lanes is not None and not 1 <= args.lanes <= 8:
        raise UsageError("--lanes must be between 1 and 8")
    if args.gearbox_delay_ns < 0:
        raise UsageError("--gearbox-delay-ns must not be negative")
    if args.over_subscribe_ratio is not None and args.over_subscribe_ratio < 1:
        raise UsageError("--over-subscribe-ratio must be at least 1")
    speeds = _split(args.speed, parse_speed, "speed")
    cables = _split(args.cable, parse_length_m, "cable")
    for speed in speeds:
        if asic.speeds_mbps and speed not in asic.speeds_mbps:
            supported = ", ".join(format_speed(s) for s in asic.speeds_mbps)
            raise UsageError(
                f"--speed: {asic.name} does not run ports at {format_speed(speed)} "
                f"(it does {supported})"
            )
    rows = headroom_grid(
        asic,
        speeds,
        cables,
        port_mtu=args.mtu,
        lanes=args.lanes,
        gearbox_delay_ns=args.gearbox_delay_ns,
        lossless_mtu=args.lossless_mtu,
        small_packet_percent=args.small_packet_percent,
        shared_headroom_pool=args.shared_headroom_pool or args.over_subscribe_ratio is not None,
    )
    render_headroom(asic, rows, args.format, sys.stdout)
    return 0


def _split(text: str, parse: Callable[[str], Value], what: str) -> list[Value]:
    values = []
    for item in text.split(","):
        try:
            values.append(parse(item))
        except ValueError as error:
            raise UsageError(f"--{what}: {error}") from None
    return values
