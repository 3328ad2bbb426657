"""Every command's arguments: the whole command-line interface in one parser (the help, the
completion scripts and the dispatch in main.py all read it)."""

from __future__ import annotations

import argparse
import math
from typing import Any, NoReturn

from lossless import __version__
from lossless.vendors.registry import OS_NAMES

LINT_FORMATS = ["text", "json", "sarif", "github", "junit", "codeclimate"]


def _report_file(value: str) -> tuple[str, str]:
    """--report FORMAT:FILE as (format, file)."""
    format_name, colon, file = value.partition(":")
    if not colon or not file or format_name not in LINT_FORMATS:
        raise argparse.ArgumentTypeError(
            f"{value!r}: give FORMAT:FILE with FORMAT one of {', '.join(LINT_FORMATS)}"
        )
    return format_name, file


def _add_lint_report_arguments(command: argparse.ArgumentParser) -> None:
    """Which rules run and the report's format: lint's and ci's."""
    command.add_argument(
        "--select",
        action="append",
        default=[],
        metavar="RULES",
        help="only these rules: IDs, ID prefixes or names, comma-separated (repeatable)",
    )
    command.add_argument(
        "--ignore",
        action="append",
        default=[],
        metavar="RULES",
        help="skip these rules: IDs, ID prefixes or names, comma-separated (repeatable)",
    )
    command.add_argument(
        "--format",
        choices=LINT_FORMATS,
        help="codeclimate: GitLab Code Quality report (default text, or the settings file's)",
    )
    _add_exit_and_output_arguments(command)


def _add_exit_and_output_arguments(command: argparse.ArgumentParser) -> None:
    """lint's and ci's exit policy, output and settings file (docs/configuration.md)."""
    command.add_argument(
        "--exit-zero", action="store_true", help="findings never exit 1 (bad input still 2)"
    )
    command.add_argument(
        "--fail-on",
        choices=["error", "warning"],
        help="exit 1 on an error finding (default), or on any finding",
    )
    command.add_argument(
        "--output-file", metavar="FILE", help="write the report to FILE (atomically), not stdout"
    )
    command.add_argument(
        "--color",
        choices=["auto", "always", "never"],
        help="colour the text report by severity (default auto: on a terminal, unless NO_COLOR)",
    )
    loudness = command.add_mutually_exclusive_group()
    loudness.add_argument(
        "-q", "--quiet", action="store_true", help="the report alone: no notes on stderr"
    )
    loudness.add_argument(
        "-v", "--verbose", action="store_true", help="more notes on stderr (settings, rules)"
    )
    command.add_argument(
        "--settings",
        metavar="FILE",
        help="settings file to use (default: .lossless.toml or pyproject.toml [tool.lossless], "
        "found from here upwards)",
    )
    command.add_argument(
        "--isolated", action="store_true", help="read no settings file: the flags alone"
    )


class _Parser(argparse.ArgumentParser):
    """argparse quotes the arguments a user mistyped: printable, as every message of ours.
    No abbreviated options (`--exit` is not `--exit-zero`): a later option sharing a prefix
    would change what a CI line written with one does."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        from lossless.text.printable import printable

        super().error(printable(message))


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="lossless",
        description="Lossless RoCE v2 QoS: validate an inventory, plan PFC headroom, ECN and "
        "ECMP, render and lint switch configs, diff and push them.",
    )
    parser.add_argument("-V", "--version", action="version", version=f"lossless {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    validate = commands.add_parser("validate", help="check an inventory and print a summary")
    validate.add_argument(
        "inventory",
        nargs="?",
        help="inventory YAML file (default: the one YAML file here with fabric: and devices:)",
    )
    validate.add_argument("--format", choices=["text", "json"], default="text")

    plan = commands.add_parser("plan", help="compute headroom, ECN, ECMP and maps per device")
    plan.add_argument("inventory")
    add_selection_arguments(plan)
    plan.add_argument("--format", choices=["text", "json"], default="text")
    plan.add_argument(
        "--expanded",
        action="store_true",
        help="with --format json: every port's and NIC's settings in full, not shared "
        "(docs/plan-json.md)",
    )

    explain = commands.add_parser("explain", help="show how one port's numbers are derived")
    explain.add_argument("inventory")
    explain.add_argument("device")
    explain.add_argument("port")
    explain.add_argument("--format", choices=["text", "json"], default="text")

    render = commands.add_parser("render", help="write one vendor config per device")
    render.add_argument("inventory")
    render.add_argument(
        "-o", "--output", metavar="DIR", help="folder for the rendered files ('-': stdout)"
    )
    render.add_argument(
        "--stdout", action="store_true", help="print the config of the one selected device"
    )
    add_selection_arguments(render)
    render.add_argument(
        "--check",
        action="store_true",
        help="write nothing; exit 1 listing files missing, changed or orphaned in DIR",
    )
    render.add_argument(
        "--diff", action="store_true", help="with --check: print each change as a unified diff"
    )
    render.add_argument(
        "--hosts",
        action="store_true",
        help="write the servers' NIC settings instead: <server>.sh, <server>.nicconfig.yaml "
        "(NVIDIA operator), <server>.nccl.env, collect-host-state.sh",
    )
    render.add_argument(
        "--server", action="append", default=[], help="with --hosts: only this server (repeat)"
    )
    render.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="list every plan value a config cannot state, and why (default: a one-line count)",
    )

    lint = commands.add_parser(
        "lint", help="check an inventory's plan, or vendor configs, against the rules"
    )
    lint.add_argument(
        "inventory",
        nargs="?",
        help="inventory YAML file (default: the one YAML file here with fabric: and devices:)",
    )
    lint.add_argument("--configs", help="folder of configs (<device>.<ext>) to lint against it")
    lint.add_argument("--config", help="one config file to lint alone (with --os)")
    lint.add_argument("--os", choices=OPERATING_SYSTEMS, help="the OS of --config FILE")
    lint.add_argument(
        "--host-state",
        metavar="DIR",
        help="folder of saved NIC state (DIR/<server>/<nic>/, from collect-host-state.sh)",
    )
    lint.add_argument(
        "--device",
        action="append",
        default=[],
        metavar="NAMES",
        help="only these devices and their link peers: names, comma lists or ranges "
        "(repeatable); with --configs, only their configs are read",
    )
    lint.add_argument(
        "--roce-dscp",
        type=int,
        choices=range(64),
        metavar="DSCP",
        help="with --config: the DSCP hosts send RoCE with (default 26, the NICs' default)",
    )
    lint.add_argument(
        "--cnp-dscp",
        type=int,
        choices=range(64),
        metavar="DSCP",
        help="with --config: the DSCP of CNPs (default 48, the NICs' default)",
    )
    lint.add_argument(
        "--asic",
        metavar="ASIC",
        help="with --config: the switch's catalogue ASIC (`lossless asics`), when the config's "
        "header does not name its model",
    )
    lint.add_argument(
        "--platform",
        metavar="MODEL",
        help="with --config: the switch model (SN5600, DCS-7060DX5-32, QFX5220-32CD, ...)",
    )
    _add_lint_report_arguments(lint)

    ci = commands.add_parser(
        "ci",
        help="validate, plan, render and lint (the plan and --configs) in one process: a "
        "pull request's pipeline, the inventory loaded and planned once",
    )
    ci.add_argument(
        "inventory",
        nargs="?",
        help="inventory YAML file (default: the one YAML file here with fabric: and devices:)",
    )
    ci.add_argument("--plan-json", metavar="FILE", help="write the plan JSON (plan --format json)")
    ci.add_argument("--render", metavar="DIR", help="write the configs there (render -o DIR)")
    ci.add_argument(
        "--configs",
        metavar="DIR",
        help="folder of configs (<device>.<ext>) to lint against the inventory (lint --configs)",
    )
    _add_lint_report_arguments(ci)
    ci.add_argument(
        "--report",
        action="append",
        default=[],
        type=_report_file,
        metavar="FORMAT:FILE",
        help="also write the lint report in this format to FILE (repeatable), e.g. "
        "sarif:lossless.sarif junit:lossless-junit.xml",
    )

    diff = commands.add_parser(
        "diff", help="what would change on each switch: against backups, or live (napalm)"
    )
    diff.add_argument("inventory")
    diff.add_argument("--running", help="folder of running-config backups, one per device")
    add_selection_arguments(diff)
    diff.add_argument("--format", choices=["text", "json"], default="text")
    diff.add_argument("--exit-code", action="store_true", help="exit 1 when anything would change")
    diff.add_argument(
        "--fail-on",
        choices=["disruptive"],
        help="exit 1 when a change is disruptive (docs/change-impact.md): a CI gate",
    )
    diff.add_argument(
        "--live",
        action="store_true",
        help="ask the switches through napalm (compare_config; nothing is committed)",
    )
    add_device_access_arguments(diff)

    push = commands.add_parser("push", help="load the rendered configs onto switches (napalm)")
    push.add_argument("inventory")
    push.add_argument(
        "--device",
        action="append",
        default=[],
        metavar="NAMES",
        help="devices to push: names, comma lists or ranges like leaf[01:04] (repeatable)",
    )
    push.add_argument("--all", action="store_true", help="every device of the inventory")
    push.add_argument("--commit", action="store_true", help="commit (default: dry run)")
    push.add_argument(
        "--canary",
        type=int,
        default=1,
        help="devices pushed alone first (1); a PFC-coupled group comes whole",
    )
    push.add_argument(
        "--batch-size",
        type=int,
        default=10,
        help="devices per batch after them, in the change order (docs/change-impact.md)",
    )
    push.add_argument(
        "--revert-in",
        type=int,
        default=300,
        help="commit-confirm timer in seconds where the driver has one (0: off)",
    )
    push.add_argument(
        "--skip-unsupported",
        action="store_true",
        help="with --commit, devices napalm has no driver for (SONiC, Cumulus) are listed "
        "and skipped without failing the run (default: exit 1)",
    )
    push.add_argument(
        "--split-links",
        action="store_true",
        help="with --commit, push a PFC-coupled change although the other end of its link is "
        "not in this push (it already has the new PFC settings); default: refuse",
    )
    push.add_argument(
        "--wave",
        action="append",
        default=[],
        metavar="SIZES",
        help="push in waves of these sizes, device counts or percentages, e.g. 1,10%%,50%% "
        "(the last repeats; replaces --canary and --batch-size)",
    )
    push.add_argument(
        "--gate",
        action="store_true",
        help="with --commit, verify the devices changed so far after each wave against their "
        "state before the push; an error stops the rollout (docs/verify.md)",
    )
    push.add_argument(
        "--settle",
        type=finite_float,
        default=60.0,
        metavar="SECONDS",
        help="with --gate, wait this long after a wave before verifying it (60)",
    )
    push.add_argument(
        "--rollback-on-gate-failure",
        action="store_true",
        help="with --gate, roll back every device changed so far when a gate or a device "
        "fails: its running config saved before the push replaces the running one "
        "(default: stop and say how)",
    )
    push.add_argument(
        "--backup",
        metavar="DIR",
        help="with --commit, save every device's running config here before any change "
        "(default: a new lossless-backup-<UTC time> folder in "
        "$XDG_STATE_HOME/lossless/push-backups, ~/.local/state without it)",
    )
    push.add_argument("--format", choices=["text", "json"], default="text")
    add_device_access_arguments(push)

    verify = commands.add_parser(
        "verify",
        help="judge the running fabric's PFC, ECN, watchdog and drop counters against the plan",
    )
    verify.add_argument("inventory")
    verify.add_argument(
        "--live", action="store_true", help="ask the switches through napalm (show commands)"
    )
    verify.add_argument(
        "--state",
        metavar="DIR",
        help="saved show outputs, DIR/<device>/ (`lossless export state-script` collects them)",
    )
    verify.add_argument(
        "--baseline",
        metavar="PATH",
        help="judge counter deltas since this earlier state: a --snapshot file or a --state "
        "folder (default: counters since they were last cleared)",
    )
    verify.add_argument(
        "--snapshot", metavar="FILE", help="also save the state read, as a later --baseline"
    )
    verify.add_argument(
        "--device",
        action="append",
        default=[],
        metavar="NAMES",
        help="only these devices: names, comma lists or ranges like leaf[01:04] (repeatable)",
    )
    _add_lint_report_arguments(verify)
    add_device_access_arguments(verify)

    report = commands.add_parser(
        "report",
        help="write an HTML page (DIR/index.html) and a Markdown summary (DIR/report.md) of "
        "the plan's numbers and the lint findings",
    )
    report.add_argument("inventory")
    report.add_argument("-o", "--output", metavar="DIR", required=True, help="folder to write to")
    report.add_argument(
        "--device",
        action="append",
        default=[],
        metavar="NAMES",
        help="only these devices (and fabric-wide findings): names, comma lists or ranges "
        "like leaf[01:04] (repeatable)",
    )
    report.add_argument(
        "--simulate-ms",
        type=finite_float,
        default=1.0,
        metavar="MS",
        help="simulated time of each switch's worst port under incast (1; each distinct "
        "scenario runs once, about 0.25 s of CPU a millisecond)",
    )
    report.add_argument(
        "--no-simulate",
        action="store_true",
        help="no simulation: leave out each switch's worst port under incast",
    )

    rules = commands.add_parser("rules", help="list the lint rules, or explain one")
    rules.add_argument("rule", nargs="?", help="a rule ID or name, e.g. LL112 or ecn-before-pfc")
    rules.add_argument("--format", choices=["text", "json"], default="text")

    headroom = commands.add_parser(
        "headroom", help="what-if PFC headroom calculator (no inventory needed)"
    )
    add_headroom_arguments(headroom)

    simulate = commands.add_parser(
        "simulate",
        help="one port under N:1 incast in time: PFC, ECN and DCQCN with the plan's numbers",
    )
    simulate.add_argument("inventory")
    simulate.add_argument("--device", required=True, help="the switch")
    simulate.add_argument(
        "--port", help="its egress port (default: the first lossless port others send into)"
    )
    simulate.add_argument(
        "--incast", type=int, metavar="N", help="senders (default: the port's real fan-in)"
    )
    simulate.add_argument(
        "--duration", type=finite_float, default=10.0, metavar="MS", help="simulated ms (10)"
    )
    simulate.add_argument(
        "--step", type=finite_float, default=100.0, metavar="NS", help="model step in ns (100)"
    )
    simulate.add_argument(
        "--dcqcn",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a DCQCN constant instead of NVIDIA's default (docs/simulate.md lists them)",
    )
    simulate.add_argument("--no-cc", action="store_true", help="congestion control off: PFC alone")
    simulate.add_argument("--format", choices=["text", "json", "csv"], default="text")

    schema = commands.add_parser(
        "schema", help="print or export a JSON Schema (for editors and other tools)"
    )
    schema.add_argument("name", choices=["inventory", "plan"])
    schema.add_argument("-o", "--output", metavar="FILE", help="write it to FILE (default stdout)")

    export = commands.add_parser(
        "export",
        help="write the plan as another tool's input: anta, an Arista ANTA test catalog "
        "(YAML) for the EOS devices; state-script, a bash script saving the switches' "
        "show outputs for `lossless verify --state`",
    )
    export.add_argument("target", choices=["anta", "state-script"])
    export.add_argument("inventory")
    export.add_argument(
        "-o", "--output", metavar="FILE", help="write it to FILE (default or '-': stdout)"
    )
    export.add_argument(
        "--device",
        action="append",
        default=[],
        metavar="NAMES",
        help="only these devices (anta: their EOS ones): names, comma lists or ranges like "
        "leaf[01:04] (repeatable)",
    )

    importer = commands.add_parser(
        "import",
        help="write the inventory from NetBox (REST) or Nautobot (GraphQL) and a mapping "
        "file; --check: exit 1 when they differ from the inventory (docs/netbox.md)",
    )
    importer.add_argument("source", choices=["netbox", "nautobot"])
    importer.add_argument("--url", required=True, help="the NetBox or Nautobot address")
    importer.add_argument(
        "--token-env",
        metavar="VAR",
        help="environment variable holding the API token (default NETBOX_TOKEN or "
        "NAUTOBOT_TOKEN); the token is never taken from the command line",
    )
    importer.add_argument(
        "--mapping",
        required=True,
        metavar="FILE",
        help="what the source cannot say: policy, device type -> ASIC, role -> our role "
        "(schemas/netbox-mapping.schema.json)",
    )
    importer.add_argument(
        "--filter",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="only devices with this site, role, tag, location or tenant (repeatable)",
    )
    importer.add_argument(
        "-o", "--output", metavar="FILE", help="inventory YAML to write (default or '-': stdout)"
    )
    importer.add_argument(
        "--check",
        action="store_true",
        help="write nothing; exit 1 listing what differs from the inventory -o FILE",
    )
    importer.add_argument(
        "--allow-removal",
        action="store_true",
        help="write even when the ports and links of -o FILE whose peers the filter leaves "
        "out would be removed (refused otherwise)",
    )
    importer.add_argument(
        "--timeout", type=finite_float, default=30.0, help="seconds per request (30)"
    )
    importer.add_argument(
        "--retries", type=int, default=3, help="retries on 429, 5xx and connection errors (3)"
    )
    importer.add_argument(
        "--page-size",
        type=int,
        default=1000,
        help="objects per page and list (1000, NetBox's and Nautobot's default MAX_PAGE_SIZE)",
    )

    completion = commands.add_parser(
        "completion",
        help="print a shell completion script",
        description="Print a tab-completion script. To install it:\n\n"
        "bash:\n  mkdir -p ~/.local/share/bash-completion/completions\n"
        "  lossless completion bash > ~/.local/share/bash-completion/completions/lossless\n"
        "zsh (and fpath=(~/.zfunc $fpath) before compinit in ~/.zshrc):\n"
        "  mkdir -p ~/.zfunc\n  lossless completion zsh > ~/.zfunc/_lossless\n"
        "fish:\n  mkdir -p ~/.config/fish/completions\n"
        "  lossless completion fish > ~/.config/fish/completions/lossless.fish",
        formatter_class=argparse.RawDescriptionHelpFormatter,  # keep the lines to copy
    )
    completion.add_argument("shell", choices=["bash", "zsh", "fish", "tcsh"])
    return parser


def finite_float(text: str) -> float:
    """argparse type of every decimal option: nan and inf are not numbers a model can use."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"{text!r} is not a finite number")
    return value


OPERATING_SYSTEMS = list(OS_NAMES)


def add_selection_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--device",
        action="append",
        default=[],
        metavar="NAMES",
        help="only these devices: names, comma lists or ranges like leaf[01:04] (repeatable)",
    )
    parser.add_argument(
        "--os",
        action="append",
        default=[],
        choices=OPERATING_SYSTEMS,
        help="only devices of this OS (repeat for several)",
    )


def add_headroom_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--asic", default="spectrum-4", help="catalogue ASIC (default spectrum-4)")
    parser.add_argument("--speed", default="100G,400G", help="comma list: 25G,100G,400G,800G")
    parser.add_argument("--cable", default="5m,40m,300m", help="comma list: 5m,40m,2km")
    parser.add_argument("--mtu", type=int, default=9100, help="port MTU (default 9100)")
    parser.add_argument("--lanes", type=int, help="lanes per port (default: from the ASIC SerDes)")
    parser.add_argument("--gearbox-delay-ns", type=finite_float, default=0.0)
    parser.add_argument("--lossless-mtu", type=int, default=1024)
    parser.add_argument("--small-packet-percent", type=int, default=50)
    parser.add_argument(
        "--over-subscribe-ratio", type=int, help="turns the shared headroom pool on"
    )
    parser.add_argument("--shared-headroom-pool", action="store_true")
    parser.add_argument("--cell-size", type=int, help="override the ASIC cell size (bytes)")
    parser.add_argument("--pipeline-latency-kib", type=finite_float)
    parser.add_argument("--mac-phy-delay-kib", type=finite_float)
    parser.add_argument("--peer-response-kib", type=finite_float)
    parser.add_argument(
        "--format", choices=["table", "json", "csv", "pg-profile-lookup"], default="table"
    )


def add_device_access_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--credentials",
        help="YAML file with device credentials (chmod 600), "
        "else LOSSLESS_USERNAME / LOSSLESS_PASSWORD",
    )
    parser.add_argument("--workers", type=int, default=20, help="devices worked on at once")
    parser.add_argument(
        "--mock",
        metavar="DIR",
        help="use napalm's mock driver with recorded responses in DIR/<device>/ (show "
        "commands: DIR/<device>/state-<N>/ for the Nth state read, from 0) (tests and "
        "rehearsals)",
    )
