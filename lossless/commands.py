"""The CLI commands' bodies: load, plan, and hand the result to a report."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from dataclasses import asdict, replace
from functools import partial
from operator import methodcaller
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from lossless.asics import catalogue
from lossless.errors import InputError, UsageError
from lossless.inventory import load_inventory
from lossless.inventory.schema import suggest
from lossless.model import Inventory
from lossless.plan import FabricPlan
from lossless.planner.fabric import plan_fabric
from lossless.planner.headroom import compute_headroom
from lossless.planner.headroom_common import HeadroomInputs
from lossless.report.explain_text import derivation_lines
from lossless.selection import select_devices
from lossless.text.grammar import plural
from lossless.text.units import format_speed, parse_length_m, parse_speed, whole_metres

if TYPE_CHECKING:
    from lossless.lint.registry import Finding, LintResult


def _devices(inventory: Inventory, args: argparse.Namespace) -> list[str] | None:
    """The devices --device and --os name (None: every device, so the plan is whole)."""
    os_names = getattr(args, "os", None) or []
    if not args.device and not os_names:
        return None
    return select_devices(inventory.devices, args.device, args.inventory, os_names)


def _inventory_or_found(args: argparse.Namespace, command: str) -> None:
    """No INVENTORY given: use the one in the current folder (pre-commit hooks with no args)."""
    if args.inventory is None:
        from lossless.discover import the_inventory

        args.inventory = the_inventory(command)
        print(f"lossless {command}: inventory {args.inventory}", file=sys.stderr)


def validate_command(args: argparse.Namespace) -> int:
    _inventory_or_found(args, "validate")
    if args.format == "text":
        inventory = load_inventory(args.inventory)
        print("OK")
        print(inventory.summary())
        return 0
    try:
        inventory = load_inventory(args.inventory)
    except InputError as error:
        problems = [asdict(problem) for problem in error.problems]
        _print_json({"inventory": args.inventory, "valid": False, "problems": problems})
        return 2
    _print_json(
        {
            "inventory": args.inventory,
            "valid": True,
            "fabric": inventory.fabric_name,
            **{f"{noun.lower()}s": count for noun, count in inventory.counts().items()},
        }
    )
    return 0


def plan_command(args: argparse.Namespace) -> int:
    # Modules a command may not need are imported where needed: start-up time counts for a
    # one-device lint in a pull request.
    inventory = load_inventory(args.inventory)
    # the text shows the switches only; the JSON's NICs are planned where they are encoded
    plan = plan_fabric(
        inventory, _devices(inventory, args), hosts="later" if args.format == "json" else False
    )
    if args.format == "json":
        from lossless.plan_json import write_plan_json

        write_plan_json(plan, sys.stdout)
    elif sys.stdout.isatty():
        from lossless.report.console import console
        from lossless.report.plan_text import print_plan_rich

        print_plan_rich(plan, console())
    else:
        from lossless.report.plan_text import write_plan_text

        write_plan_text(plan, sys.stdout)
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
    if args.format == "json":
        _print_json(_explain_json(plan, args.device, args.port))
        return 0
    lines = [
        f"{args.device} {args.port}: {format_speed(port.speed_mbps)}, {port.lanes} lanes, "
        f"MTU {port.mtu}, peer {port.peer or 'none'}, cable "
        f"{'-' if port.cable_m is None else f'{port.cable_m:g} m'} (defined at {port.source})",
    ]
    if not port.lossless:
        lines.append("not lossless: no PFC, no headroom, no ECN on this port")
    for headroom in port.headroom:
        floor = (
            ""
            if headroom.vendor_floor_xoff is None
            else f" (model {headroom.model_xoff}, vendor table {headroom.vendor_floor_xoff})"
        )
        lines.append("")
        lines += derivation_lines(
            f"PFC headroom, priority group {headroom.priority_group}: xon {headroom.xon}, "
            f"xoff {headroom.xoff}{floor}, size {headroom.size} bytes",
            plan.derivations[headroom.derivation],
        )
    trigger = device_plan.pfc_trigger
    if port.ecn and trigger is not None:
        lines.append("")
        lines += derivation_lines(
            f"PFC trigger of {args.device}: n = {trigger.sharing_pgs} PGs, T = "
            f"{'unknown' if trigger.trigger_bytes is None else trigger.trigger_bytes} bytes",
            plan.derivations[trigger.derivation],
        )
    for ecn in port.ecn:
        limit = ecn.queue_trigger_bytes or ecn.pfc_trigger_bytes
        lines.append("")
        lines += derivation_lines(
            f"ECN on queue {ecn.queue}: min {ecn.min_bytes}, max {ecn.max_bytes} bytes, "
            f"probability {ecn.probability_percent}%, PFC fires at "
            f"{'unknown' if limit is None else limit} bytes in the queue",
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


def _explain_json(plan: FabricPlan, device: str, port: str) -> dict:
    """The port's plan and every derivation it refers to (headroom, ECN, the budget)."""
    device_data = plan.to_dict()["devices"][device]
    port_data = device_data["ports"][port]
    used = [
        *(h["derivation"] for h in port_data["headroom"]),
        *(e["derivation"] for e in port_data["ecn"]),
        device_data["budget"]["derivation"],
    ]
    return {
        "device": device,
        "port": port_data,
        "budget": device_data["budget"],
        "derivations": {key: plan.derivations[key] for key in used},
    }


def render_command(args: argparse.Namespace) -> int:
    from lossless.vendors.rendering import device_files, file_name, render_fabric

    if args.hosts or args.server:
        from lossless.host_commands import render_hosts_command

        return render_hosts_command(args)
    to_stdout = args.stdout or args.output == "-"
    if not to_stdout and args.output is None:
        raise UsageError("give -o DIR (the folder for the configs), or --stdout for one device")
    if to_stdout and (args.check or args.diff):
        raise UsageError("--stdout prints one config; --check and --diff compare a folder (-o DIR)")
    if args.diff and not args.check:
        raise UsageError("--diff goes with --check")
    inventory = load_inventory(args.inventory)
    only = _devices(inventory, args)
    selected = only or list(inventory.devices)
    if to_stdout and len(selected) != 1:
        raise UsageError(
            f"--stdout prints one device's config; {plural(len(selected), 'device')} match: "
            "name one with --device"
        )
    plan = plan_fabric(inventory, only, hosts=False)  # switch configs: no NIC plans
    if to_stdout:
        [text] = render_fabric(plan).values()
        sys.stdout.write(text)
        return 0
    folder = Path(args.output)
    if args.check:
        every_file = [file_name(device) for device in inventory.devices.values()]
        names, text_of = device_files(plan)
        return _render_check(folder, names, text_of, every_file, args.diff)
    _write_configs(folder, plan, inventory, sys.stdout)
    return 0


def _write_configs(folder: Path, plan: FabricPlan, inventory: Inventory, out: TextIO) -> None:
    """Every planned device's config written into folder, and what the run did said to
    `out`: how many files changed, files no device renders, what an OS cannot express."""
    from lossless.report.not_expressed import not_expressed_lines
    from lossless.system.writing import write_rendered
    from lossless.vendors.config_folder import orphan_files
    from lossless.vendors.rendering import device_files, file_name

    names, text_of = device_files(plan)
    report = write_rendered(folder, names, text_of)
    print(f"{len(report.written)} written, {len(report.unchanged)} unchanged in {folder}", file=out)
    every_file = [file_name(device) for device in inventory.devices.values()]
    for name in orphan_files(folder, every_file):
        note = f"note: {folder / name} is no device's config in {inventory.file} (left in place)"
        print(note, file=out)
    for line in not_expressed_lines(plan.devices.values()):
        print(line, file=out)


def _render_check(
    folder: Path,
    names: list[str],
    text_of: Callable[[int], str],
    every_file: list[str],
    diff: bool,
) -> int:
    """Exit 1 listing each file that is missing, changed or orphaned; with diff, the change."""
    from lossless.vendors.config_folder import check_folder, unified_diff

    check = check_folder(folder, names, text_of, every_file)
    index = {name: number for number, name in enumerate(names)}
    for label, listed in (
        ("missing", check.missing),
        ("changed", check.changed),
        ("orphan", check.orphans),
    ):
        for name in listed:
            note = " (no device of the inventory renders it)" if label == "orphan" else ""
            print(f"{label}: {folder / name}{note}")
            if diff:
                rendered = text_of(index[name]) if name in index else None
                sys.stdout.write(unified_diff(folder, name, rendered))
    print(
        f"{len(check.missing)} missing, {len(check.changed)} changed, "
        f"{plural(len(check.orphans), 'orphan')}; {plural(len(names), 'file')} checked in {folder}"
    )
    return 0 if check.clean else 1


def _rule_ids(names: list[str], option: str) -> list[str]:
    from lossless.lint.registry import UnknownRule, resolve_rules

    try:
        return resolve_rules(names)
    except UnknownRule as error:
        raise UsageError(f"{option}: {error}") from None


def lint_command(args: argparse.Namespace) -> int:
    from lossless.lint.registry import lint

    select, ignore = _rule_ids(args.select, "--select"), _rule_ids(args.ignore, "--ignore")
    extra: list = []
    if args.config:
        if args.inventory or not args.os:
            raise UsageError("--config FILE takes --os OS and no inventory")
        from lossless.lint.configs import fabric_from_config  # the parsers: only for configs

        try:
            plan = fabric_from_config(Path(args.config), args.os, args.roce_dscp, args.cnp_dscp)
        except ValueError as error:
            raise UsageError(str(error)) from None
    else:
        _inventory_or_found(args, "lint")
        inventory = load_inventory(args.inventory)
        chosen = (
            select_devices(inventory.devices, args.device, args.inventory, [])
            if args.device
            else []
        )
        # NICs planned where the host rules run (a worker process on a large fabric)
        plan = plan_fabric(inventory, inventory.with_link_peers(chosen) or None, hosts="later")
        if args.configs:
            folder = Path(args.configs)
            if not folder.is_dir():
                raise UsageError(f"--configs: {folder} is not a folder")
            from lossless.lint.configs import fabric_from_configs
            from lossless.report.progress import ProgressReporter

            with ProgressReporter(len(plan.devices), "lint configs") as progress:
                plan, extra = fabric_from_configs(plan, folder, progress)
        if args.host_state:
            from lossless.host_commands import read_host_state

            plan, host_findings = read_host_state(plan, args.host_state)
            extra += host_findings
    if args.host_state and not args.inventory:
        raise UsageError("--host-state DIR needs the INVENTORY the hosts belong to")
    return _print_lint(lint(plan, select, ignore, extra), plan, args.format)


def _print_lint(result: LintResult, plan: FabricPlan, format_name: str) -> int:
    """The findings in the format asked for; exit 1 when one is an error."""
    sys.stdout.write(_lint_report(result, plan, format_name))
    return 1 if result.failed else 0


def _lint_report(result: LintResult, plan: FabricPlan, format_name: str) -> str:
    """The findings as a report in this format; the text one lists the suppressed too."""
    from lossless.lint.report import FORMATS, junit

    if format_name == "junit":
        text = junit(result.findings, list(plan.devices)) + "\n"
    else:
        text = FORMATS[format_name](result.findings) + "\n"
    if format_name == "text":
        for finding, reason in result.suppressed:
            text += f"suppressed {finding.rule} at {finding.source}: {reason}\n"
    return text


def ci_command(args: argparse.Namespace) -> int:
    """What a pull request's pipeline runs, in one process: validate the inventory, plan it,
    lint the plan and, with --configs, the configs against it, and write the plan JSON and
    the configs. Run as five commands, each loads, checks and plans the inventory again
    (over a second each at 32,768 GPUs); here that happens once, and the configs are linted
    in the same run as the plan, so a finding both make is reported once. Everything is read
    and checked before anything is written. stdout holds the lint report alone (a SARIF or
    JUnit file), --report FORMAT:FILE writes more; what was written is said on stderr."""
    from lossless.lint.registry import lint
    from lossless.system.writing import write_streamed

    select, ignore = _rule_ids(args.select, "--select"), _rule_ids(args.ignore, "--ignore")
    files = [("--plan-json", args.plan_json), *(("--report", file) for _, file in args.report)]
    for option, file in files:
        if file == "-":
            raise UsageError(f"{option} -: stdout holds the lint report; name a file")
    configs = Path(args.configs) if args.configs else None
    rendered = Path(args.render) if args.render else None
    if configs is not None and not configs.is_dir():
        raise UsageError(f"--configs: {configs} is not a folder")
    if configs is not None and rendered is not None and rendered.resolve() == configs.resolve():
        raise UsageError(
            "--render and --configs name one folder: the configs would be linted after the "
            "render replaced them"
        )
    _inventory_or_found(args, "ci")
    inventory = load_inventory(args.inventory)
    plan = plan_fabric(inventory, hosts="later")  # whole: the deadlock rules need every link
    read, extra = _read_configs(plan, configs) if configs is not None else (plan, [])
    if args.plan_json:
        from lossless.plan_json import write_plan_json

        target = Path(args.plan_json)
        write_streamed(target, partial(write_plan_json, plan), "--plan-json")
        print(f"plan of {plural(len(plan.devices), 'device')} written to {target}", file=sys.stderr)
    if rendered is not None:
        _write_configs(rendered, plan, inventory, sys.stderr)
    # a config equal to its render is the plan's device: judged once, with the plan
    also = None if all(read.devices[n] is d for n, d in plan.devices.items()) else read
    result = lint(plan, select, ignore, extra, also=also)
    for format_name, file in args.report:
        text = _lint_report(result, plan, format_name)
        write_streamed(Path(file), methodcaller("write", text), "--report")
        print(f"{format_name} report written to {file}", file=sys.stderr)
    return _print_lint(result, plan, args.format)


def _read_configs(plan: FabricPlan, folder: Path) -> tuple[FabricPlan, list[Finding]]:
    """The plan with the configs in folder read back (lint.configs.fabric_from_configs), and
    the findings of reading them; how many differ from the render is said on stderr."""
    from lossless.lint.configs import fabric_from_configs
    from lossless.report.progress import ProgressReporter

    with ProgressReporter(len(plan.devices), "lint configs") as progress:
        read, extra = fabric_from_configs(plan, folder, progress)
    differing = sum(read.devices[name] is not device for name, device in plan.devices.items())
    configs = plural(len(plan.devices), "config")
    print(f"{folder}: {differing} of {configs} differ from the render", file=sys.stderr)
    return read, extra


def report_command(args: argparse.Namespace) -> int:
    from lossless.lint.registry import lint
    from lossless.report.page import report_files
    from lossless.system.writing import write_atomically

    inventory = load_inventory(args.inventory)
    shown = select_devices(inventory.devices, args.device, args.inventory) if args.device else None
    plan = plan_fabric(inventory)  # whole: the deadlock rules need every link
    files = report_files(inventory, plan, lint(plan), shown)
    folder = Path(args.output)
    written = write_atomically(folder, files)
    print(f"{len(written.written)} written, {len(written.unchanged)} unchanged in {folder}")
    return 0


def rules_command(args: argparse.Namespace) -> int:
    from lossless.lint.registry import find_rule, registered_rules

    rules = sorted(registered_rules().values(), key=lambda r: r.id)
    if args.rule is not None:
        chosen = find_rule(args.rule)
        if chosen is None:
            known = [*(r.id for r in rules), *(r.name for r in rules)]
            raise UsageError(f"no rule {args.rule!r}{suggest(args.rule, known)}")
        rules = [chosen]
    if args.format == "json":
        records = [
            {
                "id": r.id,
                "name": r.name,
                "severity": r.severity,
                "scope": r.scope,
                "explanation": r.explanation,
                "source": r.source,
            }
            for r in rules
        ]
        _print_json(records[0] if args.rule is not None else records)
    elif args.rule is None:
        for listed in rules:
            print(f"{listed.id}  {listed.severity:<7}  {listed.name}")
    else:
        [chosen] = rules
        print(
            f"{chosen.id} {chosen.name} ({chosen.severity}, checks each {chosen.scope})\n\n"
            f"{chosen.explanation}\n\nsource: {chosen.source}"
        )
    return 0


def _print_json(value: object) -> None:
    json.dump(value, sys.stdout, indent=2)
    sys.stdout.write("\n")


def _require_deploy_extra() -> None:
    """The live steps need the optional napalm/nornir extra: say so, not a traceback."""
    try:
        import napalm  # noqa: F401
        import nornir_napalm.plugins.connections  # noqa: F401

        import lossless.deploy.live  # noqa: F401
    except ImportError as error:
        missing = f" ({error.name} is not installed)" if error.name else ""
        raise UsageError(
            f"live diff and push need napalm and nornir{missing}: pip install 'lossless[deploy]'"
        ) from None


def _deployer(args: argparse.Namespace, plan):
    from lossless.deploy.credentials import CredentialStore
    from lossless.deploy.live import Deployer

    if args.workers < 1:
        raise UsageError("--workers must be at least 1")
    return Deployer(plan, CredentialStore(args.credentials), args.mock, args.workers)


def diff_command(args: argparse.Namespace) -> int:
    from lossless.deploy.impact import disruptive
    from lossless.deploy.offline import diff_order, offline_diff, render_json, render_text

    inventory = load_inventory(args.inventory)
    devices = _devices(inventory, args)
    if args.live:
        _require_deploy_extra()
        from lossless.deploy.live import live_order
        from lossless.deploy.report import ProgressReporter, render_results

        plan = plan_fabric(inventory, devices)
        planned = list(plan.devices.values())
        with ProgressReporter(len(planned), "live diff") as progress:
            results = _deployer(args, plan).diff(planned, progress)
        print(render_results(results, args.format, live_order(plan, results)), end="")
        failed = any(r.failed for r in results)
        changed = any(r.status == "would-change" for r in results)
        impacts = [i for r in results for i in r.impacts]
    else:
        if not args.running:
            raise UsageError("give --running DIR (backups of the running configs) or --live")
        folder = Path(args.running)
        if not folder.is_dir():
            raise UsageError(f"--running: {folder} is not a folder")
        plan = plan_fabric(inventory, devices)
        diffs = offline_diff(plan, folder)
        order = diff_order(plan, diffs)
        print(render_json(diffs, order) if args.format == "json" else render_text(diffs, order))
        failed, changed = False, any(d.changes for d in diffs)
        impacts = [i for d in diffs for i in d.impacts]
    gate = args.fail_on == "disruptive" and bool(disruptive(impacts))
    return 1 if failed or (args.exit_code and changed) or gate else 0


def push_command(args: argparse.Namespace) -> int:
    _require_deploy_extra()
    from lossless.deploy.report import ProgressReporter, render_results
    from lossless.lint.registry import blocking_errors
    from lossless.lint.report import text

    inventory = load_inventory(args.inventory)
    if not args.device and not args.all:
        raise UsageError("name the devices to push with --device (repeat), or --all")
    chosen = set(inventory.devices if args.all else _devices(inventory, args) or ())
    if args.canary < 0 or args.batch_size < 1 or args.revert_in < 0:
        raise UsageError("--canary >= 0, --batch-size >= 1 and --revert-in >= 0")
    plan = plan_fabric(inventory)
    selected = [d for name, d in plan.devices.items() if name in chosen]
    errors = blocking_errors(plan, (d.name for d in selected))
    if errors:
        print(text(errors))
        print("push refused: fix the lint errors first")
        return 1
    # each device is read (its running config), then pushed
    with ProgressReporter(2 * len(selected), "push") as progress:
        results, push = _deployer(args, plan).push(
            selected,
            args.commit,
            args.canary,
            args.batch_size,
            args.revert_in,
            progress,
            split_links=args.split_links,
        )
    print(render_results(results, args.format, push.order, push), end="")
    unsupported = [r.device for r in results if r.status == "no-driver"]
    if args.commit and unsupported and not args.skip_unsupported:
        print(
            f"lossless: not pushed (no napalm driver): {', '.join(unsupported)}; "
            "--skip-unsupported accepts that",
            file=sys.stderr,
        )
        return 1
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
    for speed in speeds:
        if asic.speeds_mbps and speed not in asic.speeds_mbps:
            supported = ", ".join(format_speed(s) for s in asic.speeds_mbps)
            raise UsageError(
                f"--speed: {asic.name} does not run ports at {format_speed(speed)} "
                f"(it does {supported})"
            )
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
    from lossless.report.headroom_table import render_headroom

    render_headroom(asic, rows, args.format, sys.stdout)
    return 0
