"""The read-back harness (issue 36): every value lossless renders, changed, and every line it
renders, deleted, must be reported by `lint INVENTORY --configs DIR`.

A target is an inventory and the devices whose rendered configs are changed. For each device
the harness renders the config, then for every number in every line (comments and
descriptions aside) writes the config with that number changed, and for every line writes it
without that line, and runs the library call behind `lint INVENTORY --configs DIR`
(lint.configs.fabric_from_configs, then lint.runner.lint) in-process. A change is reported
when lint finds something new that names the device (a finding of its own, or one whose
message or devices name it) or refuses the file (InputError naming it). A change listed in
tests/data/readback/no_effect.yaml (a value the switch does not act on, with the reason) is
counted apart. The folder holds only the changed device's config: the others are linted from
the plan, so each case parses one config.
"""

from __future__ import annotations

import json
import random
import re
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from ruamel.yaml import YAML

from lossless.errors import InputError
from lossless.inventory import load_inventory
from lossless.lint.configs import fabric_from_configs
from lossless.lint.drift import KEYED, LABELS, NOT_SET
from lossless.lint.registry import Finding
from lossless.lint.runner import _cause, lint
from lossless.plan import FabricPlan
from lossless.planner.fabric import plan_fabric
from lossless.vendors.registry import vendor_for
from lossless.vendors.rendering import render_device
from lossless.vendors.untrusted import parse_config

REPO = Path(__file__).resolve().parent.parent
LISTS = REPO / "tests" / "data" / "readback"
NO_EFFECT = LISTS / "no_effect.yaml"  # changes the switch does not act on
OPEN = LISTS / "open.yaml"  # changes it acts on that lint does not report yet

# Lines that are not settings: comments and free text (a description names no value the
# switch acts on).
NOT_SETTINGS = re.compile(
    r"""^\s*(?:!|\#|/\*|description\b|"description"\s*:|description\s*:|
    "alias"\s*:|alias\s*:)""",
    re.X,
)
DIGITS = re.compile(r"\d+")


@dataclass(frozen=True)
class Case:
    """One changed config: which device, what was done (`kind` "value" or "delete"), the
    line (1-based, of the rendered config) and that line marked where it changed."""

    target: str
    device: str
    os: str
    kind: str
    line: int
    marked: str
    make: Callable[[], str] = field(compare=False, repr=False)  # the whole changed config

    @property
    def text(self) -> str:
        return self.make()

    @property
    def id(self) -> str:
        return f"{self.target}:{self.device}:{self.line}:{self.kind}:{self.marked.strip()}"


def changed_values(token: str) -> list[str]:
    """What a rendered number becomes: a priority, queue or bit string (0-7) another one; a
    code-point's bits counted on; a larger value (a threshold, size, MTU, DSCP, percent)
    up and down."""
    if len(token) > 1 and token.startswith("0") and set(token) <= {"0", "1"}:
        width = len(token)
        return [format((int(token, 2) + 1) % (1 << width), f"0{width}b")]
    value = int(token)
    if value <= 7:  # and a queue or priority past the last (uc-tx-queue 8)
        return [str((value + 1) % 8), *(["8"] if value == 7 else [])]
    return [str(value * 2), str(value // 2)]


def _parents(lines: list[str]) -> list[str]:
    """Each line's section: the statement above it with less indentation ("" at the top), so
    that a listed change names where it is (`class type network-qos c-8q-nq-default > mtu`)."""
    parents, stack = [], []  # stack: (indent, text)
    for line in lines:
        indent = len(line) - len(line.lstrip())
        while stack and stack[-1][0] >= indent:
            stack.pop()
        parents.append(stack[-1][1] if stack else "")
        if line.strip():
            stack.append((indent, line.strip()))
    return parents


def _in(parent: str, line: str) -> str:
    return f"{parent} > {line.strip()}" if parent else line.strip()


def value_cases(target: str, device: str, os_name: str, text: str) -> Iterator[Case]:
    lines = text.splitlines(keepends=True)
    parents = _parents(lines)
    for index, line in enumerate(lines):
        if NOT_SETTINGS.match(line):
            continue
        for match in DIGITS.finditer(line):
            for new in changed_values(match.group()):
                start, end = match.span()
                changed = line[:start] + new + line[end:]
                marked = _in(
                    parents[index], f"{line[:start]}<<{match.group()}->{new}>>{line[end:]}"
                )
                yield Case(
                    target,
                    device,
                    os_name,
                    "value",
                    index + 1,
                    marked,
                    _joined(lines, index, changed),
                )


def _joined(lines: list[str], index: int, new: str) -> Callable[[], str]:
    return lambda: "".join([*lines[:index], new, *lines[index + 1 :]])


def _without(text: str, path: tuple) -> Callable[[], str]:
    def make() -> str:
        data = json.loads(text)
        node = data
        for key in path[:-1]:
            node = node[key]
        del node[path[-1]]
        return json.dumps(data, indent=4)

    return make


def _json_leaves(data: object, path: tuple = ()) -> Iterator[tuple[tuple, object]]:
    if isinstance(data, dict) and data:
        for key, value in data.items():
            yield from _json_leaves(value, (*path, key))
    else:
        yield path, data


def delete_cases(target: str, device: str, os_name: str, text: str) -> Iterator[Case]:
    """Each rendered line deleted in turn; in a JSON config (SONiC's config_db), where a line
    alone cannot go without breaking the file, each leaf (a field, or an empty entry)."""
    if os_name == "sonic":
        for path, value in _json_leaves(json.loads(text)):
            if path[-1] in ("description", "alias"):
                continue
            marked = "delete " + "|".join(str(p) for p in path) + f" = {value}"
            yield Case(target, device, os_name, "delete", 0, marked, _without(text, path))
        return
    lines = text.splitlines(keepends=True)
    parents = _parents(lines)
    for index, line in enumerate(lines):
        if NOT_SETTINGS.match(line) or not line.strip() or line.strip() in {"!", "}"}:
            continue
        marked = f"delete {_in(parents[index], line)}"
        yield Case(target, device, os_name, "delete", index + 1, marked, _joined(lines, index, ""))


@dataclass(frozen=True)
class NoEffect:
    os: str
    pattern: re.Pattern[str]
    reason: str


def no_effect_list(path: Path = NO_EFFECT) -> list[NoEffect]:
    entries = YAML(typ="safe").load(path.read_text()) or []
    return [NoEffect(e["os"], re.compile(e["change"]), e["reason"]) for e in entries]


def listed(case: Case, entries: list[NoEffect]) -> NoEffect | None:
    for entry in entries:
        if entry.os in (case.os, "any") and entry.pattern.search(case.marked):
            return entry
    return None


# A line each OS reads as a comment, appended (the lines above keep their numbers); SONiC's
# config_db is JSON, which has none: a blank line after it.
NO_OP = {"eos": "! no-op\n", "nxos": "! no-op\n", "junos": "/* no-op */\n", "cumulus": "# no-op\n"}


def no_op_edit(os_name: str, text: str) -> str:
    """The config with a change the switch does not see: it is no longer byte for byte the
    render, so lint parses it instead of judging the plan in its place."""
    return text + NO_OP.get(os_name, "\n")


@dataclass
class Target:
    """An inventory planned once, its devices' rendered configs, and lint's findings when
    each config is as rendered but for a comment (the baseline a change is compared with:
    parsed, as every changed config is, not judged from the plan as a byte-identical
    render is)."""

    name: str
    inventory: Path
    devices: list[str]
    plan: FabricPlan = field(init=False)
    rendered: dict[str, str] = field(init=False)
    baseline: dict[str, frozenset[Finding]] = field(init=False)
    # device -> (port or None, fact) -> the line of the rendered config that states it
    stated: dict[str, dict[tuple[str | None, str], int]] = field(init=False)

    def __post_init__(self) -> None:
        # the devices and their link peers, as `lint --device` plans them
        inventory = load_inventory(self.inventory)
        self.plan = plan_fabric(inventory, inventory.with_link_peers(self.devices), hosts="later")
        self.plan.planned_nics()  # once: each lint's copy of the plan would plan them again
        self.rendered = {d: render_device(self.plan.devices[d], self.plan) for d in self.devices}
        self.baseline, self.stated = {}, {}
        for device in self.devices:
            self.stated[device] = _stated_lines(self.plan, device, self.rendered[device])
            outcome = self.lint(
                device, no_op_edit(self.plan.devices[device].os, self.rendered[device])
            )
            assert isinstance(outcome, list), outcome
            self.baseline[device] = frozenset(outcome)

    def config_name(self, device: str) -> str:
        return f"{device}.{vendor_for(self.plan.devices[device].os).extension}"

    def lint(self, device: str, text: str) -> list[Finding] | InputError:
        """lint INVENTORY --configs DIR with DIR holding `device`'s config `text`."""
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / self.config_name(device)
            path.write_text(text)
            try:
                read, extra = fabric_from_configs(self.plan, Path(folder))
            except InputError as error:
                return InputError(
                    [p for p in error.problems if Path(p.file).name == path.name] or []
                )
            result = lint(read, (), (), extra, read=("config",))
            return [_relative(f, str(path)) for f in result.findings]

    def cases(self) -> Iterator[Case]:
        for device in self.devices:
            os_name = self.plan.devices[device].os
            text = self.rendered[device]
            yield from value_cases(self.name, device, os_name, text)
            yield from delete_cases(self.name, device, os_name, text)


def _line(source: str) -> int:
    return int(source.rsplit(":", 2)[-2])


def _stated_lines(plan: FabricPlan, name: str, text: str) -> dict[tuple[str | None, str], int]:
    """Where the rendered config states each fact, as its OS's parser records it."""
    planned = plan.devices[name]
    parsed = parse_config(planned.os, text, "CONFIG", name, hint=planned)
    lines: dict[tuple[str | None, str], int] = {}
    for fact, where in parsed.sources.items():
        if where.startswith("CONFIG:"):
            lines[(None, fact)] = _line(where)
    for port in parsed.ports.values():
        for fact, where in port.sources.items():
            if where.startswith("CONFIG:"):
                lines[(port.name, fact)] = _line(where)
    return lines


def _fact_of(message: str) -> str | None:
    """The fact an LL200 message says is not set in the config, if it says so."""
    for fact, (label, _) in LABELS.items():
        if message.startswith(f"{label} is {NOT_SET} in the config"):
            return fact
    # of the keyed facts, ECN: its line states the one queue it marks (a map's line states the
    # map, not each entry a finding says is not set)
    label = KEYED["ecn"][0]
    if message.startswith(f"{label}: ") and f": {NOT_SET} in the config" in message:
        return "ecn"
    return None


def false_claims(target: Target, case: Case, findings: list[Finding]) -> list[str]:
    """LL200 findings that say a setting is not in the config, pointing at a line of it that
    is unchanged and states that very setting: the file contradicts them."""
    if case.os == "sonic" and case.kind == "delete":
        return []  # the changed config_db is written anew: its lines are not the render's
    stated = target.stated[case.device]
    wrong = []
    for finding in findings:
        fact = _fact_of(finding.message) if finding.rule == "LL200" else None
        if fact is None or not finding.source.startswith("CONFIG:"):
            continue
        line = _line(finding.source)
        if case.kind == "delete" and line >= case.line:
            line += 1  # the line as the render numbers it
        if line == case.line:
            continue  # the changed line itself, or where the deleted one was
        if stated.get((finding.port, fact)) == line or stated.get((None, fact)) == line:
            wrong.append(f"{case.id}: {finding.source}: {finding.message}")
    return wrong


def _relative(finding: Finding, path: str) -> Finding:
    """A finding with the config's temporary folder left out of its source (CONFIG:LINE:COL),
    so that runs compare."""
    if finding.source.startswith(path):
        return Finding(
            "CONFIG" + finding.source[len(path) :],
            finding.rule,
            finding.severity,
            finding.message.replace(path, "CONFIG"),
            finding.device,
            finding.port,
            finding.devices,
        )
    return finding


def names(finding: Finding, device: str) -> bool:
    return device in (finding.device, *finding.devices) or device in finding.message


@dataclass
class Outcome:
    case: Case
    reported: bool
    new: list[Finding]
    refusal: InputError | None
    false: list[str]  # findings the file contradicts (false_claims)


# A finding but for where it points (lint's own measure of one cause)
_said = _cause


def judge(target: Target, case: Case) -> Outcome:
    outcome = target.lint(case.device, case.text)
    if isinstance(outcome, InputError):
        return Outcome(case, bool(outcome.problems), [], outcome, [])
    # what lint says, wherever it points: a deleted line moves the findings below it
    base = {_said(f) for f in target.baseline[case.device]}
    new = [f for f in outcome if _said(f) not in base]
    reported = any(names(f, case.device) for f in new)
    return Outcome(case, reported, new, None, false_claims(target, case, new))


def sample(cases: list[Case], count: int | None, seed: int) -> list[Case]:
    """`count` cases drawn with a fixed seed (all when count is None or larger)."""
    if count is None or count >= len(cases):
        return cases
    return random.Random(seed).sample(cases, count)
