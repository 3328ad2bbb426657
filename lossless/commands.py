"""The CLI commands' bodies: load, plan, and hand the result to a report."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import replace
from pathlib import Path

from lossless.asics import catalogue
from lossless.errors import UsageError
from lossless.inventory import load_inventory
from lossless.inventory.schema import suggest
from lossless.model import Inventory
from lossless.planner.fabric import plan_fabric
from lossless.planner.headroom import compute_headroom
from lossless.planner.headroom_common import HeadroomInputs
from lossless.render import drift, render_fabric, write_atomically
from lossless.report.console import console
from lossless.report.explain_text import derivation_lines
from lossless.report.headroom_table import render_headroom
from lossless.report.not_expressed import not_expressed_lines
from lossless.report.plan_text import render_plan_text
from lossless.units import format_speed, parse_length_m, parse_speed, whole_metres


def _require_devices(inventory: Inventory, names: list[str], source: str) -> None:
    for name in names:
        if name not in inventory.devices:
            raise UsageError(f"no device {name!r} in {source}{suggest(name, inventory.devices)}")


def plan_command(args: argparse.Namespace) -> int:
    inventory = load_inventory(args.inventory)
    _require_devices(inventory, args.device, args.inventory)
    plan = plan_fabric(inventory, args.device or None)
    if args.format == "json":
        json.dump(plan.to_dict(), sys.stdout, indent=2, sort_keys=False)
        sys.stdout.write("\n")
    else:
        render_plan_text(plan, console())
    return 0


def explain_command(args: argparse.Namespace) -> int:
    inventory = load_inventory(args.inventory)
    device = inventory.devices.get(args.device)
    if device is None:
        raise UsageError(f"no device {args.device!r}{suggest(args.device, inventory.devices)}")
    if args.port not in device.ports:
        raise UsageError(
            f"{args.device} has no port {args.port!r}{suggest(args.port, device.ports)}"
        )
    plan = plan_fabric(inventory, [args.device])
    device_plan = plan.devices[args.device]
    port = device_plan.ports[args.port]
    lines = [
        f"{args.device} {args.port}: {format_speed(port.speed_mbps)}, {port.lanes} lanes, "
        f"MTU {port.mtu}, peer {port.peer or 'none'}, cable "
        f"{'-' if port.cable_m is None else f'{port.cable_m:g} m'} (defined at {port.source})",
    ]
    if not port.lossless:
        lines.append("not lossless: no PFC, no headroom, no ECN on this port")
    for headroom in port.headroom:
        lines.append("")
        lines += derivation_lines(
            f"PFC headroom, priority group {headroom.priority_group}: xon {headroom.xon}, "
            f"xoff {headroom.xoff}, size {headroom.size} bytes",
            plan.derivations[headroom.derivation],
        )
    for ecn in port.ecn:
        lines.append("")
        lines += derivation_lines(
            f"ECN on queue {ecn.queue}: min {ecn.min_bytes}, max {ecn.max_bytes} bytes, "
            f"probability {ecn.probability_percent}%, PFC trigger "
            f"{'unknown' if ecn.pfc_trigger_bytes is None else ecn.pfc_trigger_bytes} bytes",
            plan.derivations[ecn.derivation],
        )
    budget = device_plan.budget
    lines.append("")
    lines += derivation_lines(
        f"buffer budget of {args.device}", plan.derivations[budget.derivation]
    )
    if port.watchdog:
        wd = port.watchdog
        lines += [
            "",
            f"PFC watchdog: {'on' if wd.enabled else 'off'}, detection {wd.detection_ms} ms, "
            f"restoration {wd.restoration_ms} ms, poll {wd.poll_ms} ms, action {wd.action}",
        ]
    print("\n".join(lines))
    return 0


def render_command(args: argparse.Namespace) -> int:
    inventory = load_inventory(args.inventory)
    _require_devices(inventory, args.device, args.inventory)
    selected = [
        name
        for name, device in inventory.devices.items()
        if (not args.device or name in args.device) and (args.os is None or device.os == args.os)
    ]
    if not selected:
        raise UsageError("no device matches --device/--os")
    plan = plan_fabric(inventory, selected)
    files = render_fabric(plan)
    folder = Path(args.output)
    if args.check:
        drifted = drift(folder, files)
        for name in drifted:
            print(f"drift: {folder / name}")
        print(f"{len(drifted)} of {len(files)} file(s) differ from the inventory")
        return 1 if drifted else 0
    report = write_atomically(folder, files)
    print(f"{len(report.written)} written, {len(report.unchanged)} unchanged in {folder}")
    print("\n".join(not_expressed_lines(plan.devices.values())))
    return 0


def lint_command(args: argparse.Namespace) -> int:
    from lossless.lint.configs import fabric_from_config, fabric_from_configs
    from lossless.lint.registry import lint
    from lossless.lint.report import FORMATS, junit
    from lossless.report.progress import ProgressReporter

    extra: list = []
    if args.config:
        if args.inventory or not args.os:
            raise UsageError("--config FILE takes --os OS and no inventory")
        try:
            plan = fabric_from_config(Path(args.config), args.os, args.roce_dscp, args.cnp_dscp)
        except ValueError as error:
            raise UsageError(str(error)) from None
    elif not args.inventory:
        raise UsageError("give an INVENTORY, or --config FILE --os OS")
    else:
        inventory = load_inventory(args.inventory)
        _require_devices(inventory, args.device, args.inventory)
        plan = plan_fabric(inventory, inventory.with_link_peers(args.device) or None)
        if args.configs:
            folder = Path(args.configs)
            if not folder.is_dir():
                raise UsageError(f"--configs: {folder} is not a folder")
            with ProgressReporter(len(plan.devices), "lint configs") as progress:
                plan, extra = fabric_from_configs(plan, folder, progress)
    result = lint(plan, args.select, args.ignore, extra)
    if args.format == "junit":
        print(junit(result.findings, list(plan.devices)))
    else:
        print(FORMATS[args.format](result.findings))
    if result.suppressed and args.format == "text":
        for finding, reason in result.suppressed:
            print(f"suppressed {finding.rule} at {finding.source}: {reason}")
    return 1 if result.failed else 0


def rules_command(args: argparse.Namespace) -> int:
    from lossless.lint import rules  # noqa: F401  (registers the rules)
    from lossless.lint.registry import RULES

    if args.rule is None:
        for listed in sorted(RULES.values(), key=lambda r: r.id):
            print(f"{listed.id}  {listed.severity:<7}  {listed.name}")
        return 0
    chosen = RULES.get(args.rule.upper())
    if chosen is None:
        raise UsageError(f"no rule {args.rule!r}{suggest(args.rule.upper(), RULES)}")
    print(
        f"{chosen.id} {chosen.name} ({chosen.severity}, checks each {chosen.scope})\n\n"
        f"{chosen.explanation}\n\nsource: {chosen.source}"
    )
    return 0


def _deployer(args: argparse.Namespace, plan):
    from lossless.deploy.credentials import CredentialStore

    try:
        from lossless.deploy.live import Deployer
    except ImportError:
        raise UsageError(
            "the live steps need napalm and nornir: pip install 'lossless[deploy]'"
        ) from None

    if args.workers < 1:
        raise UsageError("--workers must be at least 1")
    return Deployer(plan, CredentialStore(args.credentials), args.mock, args.workers)


def diff_command(args: argparse.Namespace) -> int:
    from lossless.deploy.offline import offline_diff, render_json, render_text

    inventory = load_inventory(args.inventory)
    _require_devices(inventory, args.device, args.inventory)
    if args.live:
        from lossless.deploy.report import ProgressReporter, render_results

        plan = plan_fabric(inventory, args.device or None)
        devices = list(plan.devices.values())
        with ProgressReporter(len(devices), "live diff") as progress:
            results = _deployer(args, plan).diff(devices, progress)
        print(render_results(results, args.format), end="")
        failed = any(r.failed for r in results)
        changed = any(r.status == "would-change" for r in results)
        return 1 if failed or (args.exit_code and changed) else 0
    if not args.running:
        raise UsageError("give --running DIR (backups of the running configs) or --live")
    folder = Path(args.running)
    if not folder.is_dir():
        raise UsageError(f"--running: {folder} is not a folder")
    diffs = offline_diff(plan_fabric(inventory, args.device or None), folder)
    print(render_json(diffs) if args.format == "json" else render_text(diffs))
    return 1 if args.exit_code and any(d.changes for d in diffs) else 0


def push_command(args: argparse.Namespace) -> int:
    from lossless.deploy.report import ProgressReporter, render_results
    from lossless.lint.registry import blocking_errors
    from lossless.lint.report import text

    inventory = load_inventory(args.inventory)
    if not args.device and not args.all:
        raise UsageError("name the devices to push with --device (repeat), or --all")
    _require_devices(inventory, args.device, args.inventory)
    if args.canary < 0 or args.batch_size < 1 or args.revert_in < 0:
        raise UsageError("--canary >= 0, --batch-size >= 1 and --revert-in >= 0")
    plan = plan_fabric(inventory)
    selected = [d for name, d in plan.devices.items() if args.all or name in args.device]
    errors = blocking_errors(plan, (d.name for d in selected))
    if errors:
        print(text(errors))
        print("push refused: fix the lint errors first")
        return 1
    with ProgressReporter(len(selected), "push") as progress:
        results = _deployer(args, plan).push(
            selected, args.commit, args.canary, args.batch_size, args.revert_in, progress
        )
    print(render_results(results, args.format), end="")
    return 1 if any(r.failed or r.status == "skipped" for r in results) else 0


def _split(text: str, parse, what: str) -> list:
    values = []
    for item in text.split(","):
        try:
            values.append(parse(item))
        except ValueError as error:
            raise UsageError(f"--{what}: {error}") from None
    return values


def headroom_command(args: argparse.Namespace) -> int:
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
    rows = []
    for speed in speeds:
        for cable in cables:
            inputs = HeadroomInputs(
                speed_mbps=speed,
                cable_m=whole_metres(cable),
                port_mtu=args.mtu,
                lanes=args.lanes or asic.default_lanes(speed),
                gearbox_delay_ns=args.gearbox_delay_ns,
                lossless_mtu=args.lossless_mtu,
                small_packet_percent=args.small_packet_percent,
                shared_headroom_pool=args.shared_headroom_pool
                or args.over_subscribe_ratio is not None,
            )
            rows.append((inputs, compute_headroom(inputs, asic)))
    render_headroom(asic, rows, args.format, sys.stdout)
    return 0
