"""`lossless lint` (the plan, configs against it, one config alone, hosts' saved state),
`lossless ci` (a pull request's whole pipeline in one process) and `lossless rules`."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager, redirect_stderr
from dataclasses import replace
from functools import partial
from operator import methodcaller
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from lossless.cli.inputs import folder, load
from lossless.cli.render import write_configs
from lossless.cli.selection import select_devices
from lossless.cli.settings import (
    Options,
    Settings,
    everywhere,
    merged,
    path_matches,
    settings_for,
)
from lossless.errors import InputError, UsageError
from lossless.inventory.schema import suggest
from lossless.plan import FabricPlan
from lossless.planner.fabric import plan_fabric
from lossless.text.grammar import plural
from lossless.text.printable import printable

if TYPE_CHECKING:
    from lossless.asics.models import ModelMatch
    from lossless.lint.registry import Finding
    from lossless.lint.runner import LintResult
    from lossless.vendors.rendering import RenderedFile


def lint_command(args: argparse.Namespace) -> int:
    from lossless.lint.runner import lint, runnable

    run = ReportRun(args)
    # configs and the hosts' saved state are read beside the plan: their rules run
    read = ("config",) if args.config or args.configs or args.host_state else ()
    run.check_rules("lint", runnable(read))
    with run.notes(), run.bad_input_reported([]):
        plan, extra = _lint_inputs(args)
        return run.finish(lint(plan, run.select, run.ignore, extra, read=read), plan)


def _lint_inputs(args: argparse.Namespace) -> tuple[FabricPlan, list[Finding]]:
    """What `lint` judges: one config alone, or the inventory's plan (with --configs, the
    configs read back against it; with --host-state, the NICs' saved state), and the
    findings made reading them."""
    extra: list[Finding] = []
    if args.config:
        if args.inventory or not args.os:
            raise UsageError("--config FILE takes --os OS and no inventory")
        from lossless.lint.configs import fabric_from_config  # the parsers: only for configs

        hardware = _hardware(args.asic, args.platform)
        plan = fabric_from_config(
            Path(args.config), args.os, args.roce_dscp, args.cnp_dscp, hardware
        )
        _print_assumed(plan)
    elif args.asic or args.platform:
        raise UsageError("--asic and --platform are for --config FILE: an inventory names both")
    else:
        inventory = load(args, "lint")
        chosen = (
            select_devices(inventory.devices, args.device, args.inventory, [])
            if args.device
            else []
        )
        # NICs planned where the host rules run (a worker process on a large fabric)
        plan = plan_fabric(inventory, inventory.with_link_peers(chosen) or None, hosts="later")
        if args.configs:
            plan, extra = _read_configs(plan, folder(args.configs, "--configs"))
        if args.host_state:
            from lossless.hosts.state import fabric_from_host_state

            plan, host_findings = fabric_from_host_state(
                plan, folder(args.host_state, "--host-state")
            )
            extra += host_findings
    if args.host_state and not args.inventory:
        raise UsageError("--host-state DIR needs the INVENTORY the hosts belong to")
    return plan, extra


def _hardware(asic: str | None, platform: str | None) -> ModelMatch | None:
    """The switch --asic and --platform name (a catalogue ASIC, a model the catalogue can
    place), checked against each other."""
    from lossless.asics import catalogue
    from lossless.asics.models import ModelMatch, chip_of_model, identify_model

    if asic is not None and asic not in catalogue():
        raise UsageError(f"--asic: no ASIC {asic!r} in the catalogue{suggest(asic, catalogue())}")
    if platform is None:
        return None if asic is None else ModelMatch(asic, None, "--asic")
    match = identify_model(platform)
    if match is None:
        from lossless.asics import platforms

        chip = chip_of_model(platform)
        known = [p.name for p in platforms().values()]
        raise UsageError(
            f"--platform: the catalogue cannot place the model {platform!r}"
            + (f" ({chip}, not in the catalogue)" if chip else suggest(platform, known))
            + "; name its ASIC with --asic"
        )
    if asic is not None and asic != match.asic:
        raise UsageError(f"--platform {platform} is {match.asic}, not --asic {asic}")
    return match


def _print_assumed(plan: FabricPlan) -> None:
    """What a config linted alone was judged for that it does not say, on stderr (stdout may
    be a SARIF or JSON report): the hosts' DSCPs, the hardware and where it came from."""
    from lossless.asics import catalogue

    for device in plan.devices.values():
        roce, cnp = device.assumed.get("roce_dscp"), device.assumed.get("cnp_dscp")
        if roce or cnp:
            which = " and ".join(
                f"{label} DSCP {value}"
                for label, value, said in (
                    ("RoCE", device.roce_dscp, roce),
                    ("CNP", device.cnp_dscp, cnp),
                )
                if said
            )
            flags = " and ".join(
                flag for flag, said in (("--roce-dscp", roce), ("--cnp-dscp", cnp)) if said
            )
            print(
                f"note: judged for {which}, the hosts' defaults ({flags} set what they send)",
                file=sys.stderr,
            )
        if "asic" in device.assumed:
            print(printable(f"note: ASIC {device.assumed['asic']}"), file=sys.stderr)
        elif device.asic not in catalogue():
            # the chip it names that the catalogue does not have, or that it names none
            said = device.assumed.get("hardware", "the config does not name its hardware")
            print(
                printable(
                    f"note: {said}: ECN and headroom are judged against every supported ASIC "
                    "(--asic or --platform judges them exactly)"
                ),
                file=sys.stderr,
            )


def ci_command(args: argparse.Namespace) -> int:
    """What a pull request's pipeline runs, in one process: validate the inventory, plan it,
    lint the plan and, with --configs, the configs against it, and write the plan JSON and
    the configs. Run as five commands, each loads, checks and plans the inventory again
    (over a second each at 32,768 GPUs); here that happens once, and the configs are linted
    in the same run as the plan, so a finding both make is reported once. Everything is read
    and checked before anything is written. stdout holds the lint report alone (a SARIF or
    JUnit file), --report FORMAT:FILE writes more; what was written is said on stderr. A
    broken inventory is reported in the format asked for too, and in every --report file."""
    run = ReportRun(args)
    files = [("--plan-json", args.plan_json), *(("--report", file) for _, file in args.report)]
    for option, file in files:
        if file == "-":
            raise UsageError(f"{option} -: stdout holds the lint report; name a file")
    configs = folder(args.configs, "--configs") if args.configs else None
    rendered = Path(args.render) if args.render else None
    if configs is not None and rendered is not None and rendered.resolve() == configs.resolve():
        raise UsageError(
            "--render and --configs name one folder: the configs would be linted after the "
            "render replaced them"
        )
    from lossless.lint.runner import runnable

    run.check_rules("ci", runnable(("config",) if configs is not None else ()))
    with run.notes(), run.bad_input_reported(args.report):
        return _ci(args, run, configs, rendered)


def _ci(
    args: argparse.Namespace, run: ReportRun, configs: Path | None, rendered: Path | None
) -> int:
    from lossless.lint.report import report
    from lossless.lint.runner import lint
    from lossless.system.parallel import MIN_ITEMS, in_background
    from lossless.system.writing import check_streamable, write_streamed

    inventory = load(args, "ci")
    plan = plan_fabric(inventory, hosts="later")  # whole: the deadlock rules need every link
    identical: dict[str, RenderedFile] = {}  # configs found to be the render, read again
    read, extra = (
        _read_configs(plan, configs, sys.stderr, identical) if configs is not None else (plan, [])
    )
    # the plan JSON is written by a process of its own on a large fabric, while the render
    # and the lint rules use every CPU here: one CPU would otherwise write it alone
    if args.plan_json:  # a file it cannot write is said before anything is written
        check_streamable(Path(args.plan_json), "--plan-json")
    large = bool(args.plan_json) and len(plan.devices) >= MIN_ITEMS
    with in_background(partial(_write_plan_json, plan, args.plan_json), large) as plan_json:
        if rendered is not None:
            write_configs(rendered, plan, inventory, sys.stderr, rendered=identical)
        scopes = ("config",) if configs is not None else ()
        result = run.per_path_filtered(
            lint(plan, run.select, run.ignore, extra, also=read, read=scopes)
        )
        plan_json.result()
    if args.plan_json:
        devices = plural(len(plan.devices), "device")
        print(f"plan of {devices} written to {args.plan_json}", file=sys.stderr)
    for format_name, file in args.report:
        text = report(result, list(plan.devices), format_name, of=run.eligible)
        write_streamed(Path(file), methodcaller("write", text), "--report")
        print(f"{format_name} report written to {file}", file=sys.stderr)
    return run.finish(result, plan, filtered=True)


def _write_plan_json(plan: FabricPlan, file: str | None) -> None:
    """ci's --plan-json FILE, if asked for."""
    if file:
        from lossless.report.plan_json import write_plan_json
        from lossless.system.writing import write_streamed

        write_streamed(Path(file), partial(write_plan_json, plan), "--plan-json")


def rules_command(args: argparse.Namespace) -> int:
    from lossless.lint.catalogue import find_rule, registered_rules, rule_record

    rules = sorted(registered_rules().values(), key=lambda r: r.id)
    if args.rule is not None:
        chosen = find_rule(args.rule)
        if chosen is None:
            known = [*(r.id for r in rules), *(r.name for r in rules)]
            raise UsageError(f"no rule {args.rule!r}{suggest(args.rule, known)}")
        rules = [chosen]
    if args.format == "json":
        records = [rule_record(r) for r in rules]
        print(json.dumps(records[0] if args.rule is not None else records, indent=2))
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


def _rule_ids(names: list[str], option: str) -> list[str]:
    from lossless.lint.catalogue import UnknownRule, resolve_rules

    try:
        return resolve_rules(names)
    except UnknownRule as error:
        raise UsageError(f"{option}: {error}") from None


def _read_configs(
    plan: FabricPlan,
    folder: Path,
    say: TextIO | None = None,
    identical: dict[str, RenderedFile] | None = None,
) -> tuple[FabricPlan, list[Finding]]:
    """The plan with the configs in folder read back (lint.configs.fabric_from_configs), and
    the findings of reading them; with `say` (a stream), how many differ from the render;
    `identical` gets the files that are the render."""
    from lossless.lint.configs import fabric_from_configs
    from lossless.report.progress import ProgressReporter

    with ProgressReporter(len(plan.devices), "lint configs") as progress:
        read, extra = fabric_from_configs(plan, folder, progress, identical)
    if say is not None:
        differing = sum(read.devices[n] is not d for n, d in plan.devices.items())
        configs = plural(len(plan.devices), "config")
        print(f"{folder}: {differing} of {configs} differ from the render", file=say)
    return read, extra


class ReportRun:
    """The report options of one run of `lint`, `ci` or another command that reports
    findings as lint does (its parser has _add_lint_report_arguments' options): the settings
    file (lossless.cli.settings) under the flags, the rules resolved (a wrong name is a usage
    error before anything is read), where the report goes, the exit code it makes."""

    def __init__(self, args: argparse.Namespace):
        self.args = args
        self.settings: Settings = settings_for(args)
        self.options: Options = merged(args, self.settings)
        self._check_output_file()
        self.select = _named_rules(self.options.select)
        self.ignore = _named_rules(self.options.ignore)
        where = self.settings.where("per-path-ignores")
        self.per_path = [
            (glob, set(_rule_ids(list(rules), f"{where}.{glob}")))
            for glob, rules in self.settings.per_path_ignores
        ]
        # rules a per-path glob matching any file drops: off for the run, as if ignored
        self.everywhere = set().union(*(rules for glob, rules in self.per_path if everywhere(glob)))
        self.command = ""  # the command and its rules: check_rules
        self.eligible: list[str] = []
        self._turned_off: list[str] = []  # what the settings file turns off, said on stderr

    def check_rules(
        self, command: str, eligible: list[str], select: list[str] | None = None
    ) -> None:
        """A usage error when the selection (--select, --ignore, the settings file's select,
        ignore and a per-path-ignores glob matching any file) leaves none of the command's
        rules (`eligible`) running: its report would pass with nothing judged. `select`: the
        selection the command applies (default the run's). What the settings file turns off
        of them is kept to be said on stderr (notes)."""
        from lossless.lint.catalogue import rule_spans

        self.command, self.eligible = command, eligible
        chosen = self.select if select is None else select
        ignored = set(self.ignore) | self.everywhere
        if all((chosen and i not in chosen) or i in ignored for i in eligible):
            why = "; ".join(self._why_none(chosen, eligible))
            raise UsageError(
                f"{command}: no rule left to run: {why}; {command} judges with "
                f"{rule_spans(eligible)} (`lossless rules` lists them)"
            )
        settings = self.settings
        typed = any(who == "--select" for who, _ in self.options.select)
        if settings.select is not None and chosen and not typed:
            self._say_off(settings.where("select"), "turns off", set(eligible) - set(chosen))
        if settings.ignore:
            ignore = set(_rule_ids(list(settings.ignore), settings.where("ignore")))
            self._say_off(settings.where("ignore"), "turns off", ignore)
        where = settings.where("per-path-ignores")
        for glob, rules in self.per_path:
            scope = "everywhere" if everywhere(glob) else "in the files it matches"
            self._say_off(f"{where}.{glob}", f"drops, {scope}, the findings of", rules)

    def _why_none(self, chosen: list[str], eligible: list[str]) -> list[str]:
        """Who turned the command's rules off: a select naming none of them, each ignore,
        each per-path glob matching any file."""
        from lossless.lint.catalogue import rule_spans

        why = []
        if chosen and not set(chosen) & set(eligible):
            who = self.options.select[0][0] if self.options.select else "the selection"
            why.append(f"{who} names none of them ({rule_spans(chosen)})")
        why += [f"{who} ignores {', '.join(names)}" for who, names in self.options.ignore]
        where = self.settings.where("per-path-ignores")
        why += [
            f"{where}.{glob} drops {rule_spans(rules)} everywhere"
            for glob, rules in self.per_path
            if everywhere(glob)
        ]
        return why

    def _say_off(self, where: str, verb: str, rules: set[str]) -> None:
        """One line for stderr: what a key of the settings file turns off of the command's
        rules (nothing when it turns none of them off)."""
        from lossless.lint.catalogue import rule_spans

        off = [i for i in self.eligible if i in rules]
        if off:
            of = f"{len(off)} of {self.command}'s {plural(len(self.eligible), 'rule')}"
            self._turned_off.append(f"{where} {verb} {of}: {rule_spans(off)}")

    def _check_output_file(self) -> None:
        """--output-file checked before anything is read: a name, not a folder, not an input
        of this run (the report would replace the inventory it judges); `/dev/stdout`, a CI
        idiom, is stdout."""
        target = self.args.output_file
        if target is None or target == "-":
            return
        if target == "/dev/stdout":
            self.args.output_file = "-"
            return
        if not target.strip():
            raise UsageError("--output-file needs a file name ('-' for stdout)")
        path = Path(target)
        if path.is_dir():
            raise UsageError(f"--output-file {target}: a folder, not a file")
        inputs = [getattr(self.args, name, None) for name in ("inventory", "config")]
        for given in filter(None, inputs):
            if path.resolve() == Path(given).resolve():
                raise UsageError(f"--output-file {target}: the input this run reads")

    def note(self, text: str) -> None:
        """A note for -v only, on stderr."""
        if self.args.verbose:
            print(printable(f"lossless: {text}"), file=sys.stderr)

    @contextmanager
    def notes(self) -> Iterator[None]:
        """stderr's notes (what was written, progress, assumptions) dropped with -q; errors
        are printed after the command returns, by main, and stay."""
        self.note(f"settings: {self.settings.file or 'none'}")
        self.note(f"format {self.options.format}, fail on {self.options.fail_on}")
        if not self.args.quiet:
            # not a -v note: a settings file from a pull request must not turn rules off
            # unseen (-q drops it: the report lists the rules that ran)
            for line in self._turned_off:
                print(printable(f"lossless: {line} (--isolated runs them)"), file=sys.stderr)
            yield
            return
        with open(os.devnull, "w") as sink, redirect_stderr(sink):
            yield

    @contextmanager
    def bad_input_reported(self, reports: list[tuple[str, str]]) -> Iterator[None]:
        """A broken inventory or config (InputError, exit 2) in the report's format as well
        as on stderr: GitHub annotations, a SARIF result, ... (LL000), on stdout or in
        --output-file, and in each --report file. The text format on stdout is left to the
        stderr lines main prints."""
        try:
            yield
        except InputError as error:
            from lossless.lint.report import problems_report

            if self.options.format != "text" or self.args.output_file not in (None, "-"):
                self.emit(problems_report(error.problems, self.options.format))
            for format_name, file in reports:
                _write(file, problems_report(error.problems, format_name), "--report")
            raise

    def per_path_filtered(self, result: LintResult) -> LintResult:
        """The findings but those per-path-ignores drops (the rules named for a glob, in the
        files it matches, relative to the settings file's folder)."""
        if not self.per_path or self.settings.file is None:
            return result
        from lossless.lint.report import finding_file

        base = self.settings.file.parent
        dropped: dict[str, set[str]] = {}  # file -> the rules ignored there
        for file in {finding_file(f) for f in result.findings}:
            dropped[file] = set().union(
                *(rules for glob, rules in self.per_path if path_matches(glob, file, base))
            )
        kept = [f for f in result.findings if f.rule not in dropped[finding_file(f)]]
        if len(kept) != len(result.findings):
            count = len(result.findings) - len(kept)
            self.note(f"per-path-ignores dropped {plural(count, 'finding')}")
        ran = tuple(i for i in result.rules if i not in self.everywhere)
        return replace(result, findings=kept, rules=ran)

    def emit(self, text: str) -> None:
        """The report to stdout, or atomically to --output-file."""
        if self.args.output_file in (None, "-"):
            sys.stdout.write(text)
        else:
            _write(self.args.output_file, text, "--output-file")

    def finish(self, result: LintResult, plan: FabricPlan, filtered: bool = False) -> int:
        """The report in its format, and the exit code: 1 on an error finding (any finding
        with fail-on warning), never with --exit-zero."""
        from lossless.lint.report import report
        from lossless.text.colour import wants_colour

        if not filtered:
            result = self.per_path_filtered(result)
        to_stdout = self.args.output_file in (None, "-")
        colour = self.options.format == "text" and wants_colour(
            self.options.color, sys.stdout if to_stdout else None, os.environ
        )
        self.emit(report(result, list(plan.devices), self.options.format, colour, self.eligible))
        if self.args.output_file is not None and not to_stdout:
            print(f"report written to {self.args.output_file}", file=sys.stderr)
        if self.args.exit_zero:
            return 0
        if self.options.fail_on == "warning":
            return 1 if result.findings else 0
        return 1 if result.failed else 0


def _named_rules(named: tuple[tuple[str, list[str]], ...]) -> list[str]:
    """The rule IDs of (who named them, names) pairs, a wrong name reported where written."""
    ids: list[str] = []
    for who, names in named:
        ids += [i for i in _rule_ids(names, who) if i not in ids]
    return ids


def _write(file: str, text: str, option: str) -> None:
    from lossless.system.writing import write_streamed

    write_streamed(Path(file), methodcaller("write", text), option)
