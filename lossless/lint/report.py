"""Lint output formats: text (FILE:LINE:COL: ...), json, SARIF 2.1.0, GitHub workflow
annotations, JUnit XML and GitLab Code Quality (Code Climate JSON); see
docs/reference/ecosystem.md section 5.

Findings quote what they found (a config's description, a NIC model, a `lint_ignore`
reason, a host's saved state), and each format shows that text safely, once, here
(lossless.text.printable): text, github and JUnit with control and bidi characters as
visible escapes and no line a CI runner takes for a command; the JSON formats with the text
as it came (json.dumps writes it in ASCII, every control character escaped), only `##[`
written `##\\u005b`."""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path
from xml.etree import ElementTree

from lossless import __version__
from lossless.errors import Problem
from lossless.lint.catalogue import registered_rules, rule_spans
from lossless.lint.registry import Finding, Rule
from lossless.lint.runner import SHOWN_SUBJECTS, LintResult, Suppressed
from lossless.text.colour import paint
from lossless.text.grammar import first_few, plural
from lossless.text.printable import inert_json, printable

RULES = registered_rules()  # every rule, by ID

# Bad input (an InputError's problems: a broken inventory, a config that does not parse) in
# the formats CI reads, so a pull request shows it where it shows findings: not a lint rule
# (nothing selects, ignores or suppresses it), only an ID and a name like one.
INPUT_RULE = Rule(
    id="LL000",
    name="invalid-input",
    severity="error",
    scope="input",
    explanation="The input could not be read as lossless reads it (a YAML or schema error in "
    "the inventory, a reference to nothing, a config that is not its OS's): nothing was "
    "planned or linted. `lossless validate` lists the same problems.",
    source="docs/inventory.md; docs/configuration.md",
    check=lambda *_: (),
)
_KNOWN = {**RULES, INPUT_RULE.id: INPUT_RULE}


def _rule_ids(findings: list[Finding], ran: Iterable[str]) -> list[str]:
    """What SARIF and JUnit list: the rules that ran, and any a finding names (LL000 when
    the input was bad: then nothing else ran)."""
    return sorted({*ran, *(f.rule for f in findings)})


def _location(source: str) -> tuple[str, int, int]:
    file, _, rest = source.rpartition(":")
    file, _, line = file.rpartition(":")
    try:
        return file, int(line), int(rest)
    except ValueError:
        return source, 1, 1


def _where(f: Finding) -> str:
    """'leaf1 Ethernet0: ' for a finding on a port, 'leaf1: ' on a device, '' fabric-wide."""
    where = " ".join(x for x in (f.device, f.port) if x)
    return f"{where}: " if where else ""


def _summary(findings: list[Finding]) -> str:
    counts = Counter(f.severity for f in findings)
    return f"{plural(counts['error'], 'error')}, {plural(counts['warning'], 'warning')}"


def text(findings: list[Finding], colour: bool = False) -> str:
    lines = [
        printable(
            f"{f.source}: {f.severity} {f.rule} [{_KNOWN[f.rule].name}] {_where(f)}{f.message}"
        )
        for f in findings
    ]
    if colour:
        lines = [_coloured(line) for line in lines]
    summary = _summary(findings)
    lines.append(_coloured_summary(findings, summary) if colour else summary)
    return "\n".join(lines)


# A text line's severity: the first `: error LL123 [` (lines are printable, so colouring
# adds the only escape characters)
_SEVERITY = re.compile(r": (error|warning) (?=LL[0-9]+ \[)")


def _coloured(line: str) -> str:
    return _SEVERITY.sub(lambda m: f": {paint(m[1], m[1])} ", line, count=1)


def _coloured_summary(findings: list[Finding], summary: str) -> str:
    severities = {f.severity for f in findings}
    style = next((s for s in ("error", "warning") if s in severities), "clean")
    return paint(summary, style)


def records(findings: list[Finding]) -> list[dict]:
    """The findings as `lint --format json` lists them."""
    found = []
    for f in findings:
        file, line, column = _location(f.source)
        found.append(
            {
                "rule": f.rule,
                "name": _KNOWN[f.rule].name,
                "severity": f.severity,
                "message": f.message,
                "file": file,
                "line": line,
                "column": column,
                "device": f.device,
                "port": f.port,
            }
        )
    return found


def as_json(findings: list[Finding]) -> str:
    return inert_json(json.dumps(records(findings), indent=2))


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def github(findings: list[Finding]) -> str:
    """GitHub Actions workflow commands (docs/reference/ecosystem.md 5.2):
    ::error file=,line=,col=,title=::msg. The file and message are made printable first (a
    newline is shown as \\n, never %0A), so each annotation is one line and the only lines
    starting with `::`."""
    lines = []
    for f in findings:
        file, line, column = _location(f.source)
        title = _escape_property(f"{f.rule} {_KNOWN[f.rule].name}")
        lines.append(
            f"::{f.severity} file={_escape_property(printable(file))},line={line},col={column},"
            f"title={title}::{_escape_data(printable(_where(f) + f.message))}"
        )
    lines.append(_summary(findings))
    return "\n".join(lines)


def _uri(file: str) -> str:
    """Repository-relative path with forward slashes, as GitHub code scanning and GitLab
    want: relative to the repository holding the current folder (the nearest `.git` up),
    whichever folder of it lossless ran in, `..` collapsed; outside a repository relative to
    the current folder; else the absolute path."""
    here = Path.cwd()
    path = Path(os.path.normpath(here / file))
    for base in (_repository_root(here), here):
        if base is not None and path.is_relative_to(base):
            return path.relative_to(base).as_posix()
    return path.as_posix()


def _repository_root(here: Path) -> Path | None:
    for folder in (here, *here.parents):
        if (folder / ".git").exists():
            return folder
    return None


def _fingerprint(f: Finding) -> str:
    """Stable across runs and distinct per finding: what the rule found where, not when."""
    file, _, _ = _location(f.source)
    identity = f"{f.rule}|{_uri(file)}|{f.device}|{f.port}|{f.message}"
    return hashlib.sha256(identity.encode()).hexdigest()[:32]


def sarif(findings: list[Finding], ran: Iterable[str] = ()) -> str:
    used = _rule_ids(findings, ran)
    rules = [
        {
            "id": rule_id,
            "name": _KNOWN[rule_id].name,
            "shortDescription": {"text": _KNOWN[rule_id].name.replace("-", " ")},
            "fullDescription": {"text": _KNOWN[rule_id].explanation},
            "help": {"text": f"{_KNOWN[rule_id].explanation} Source: {_KNOWN[rule_id].source}"},
            "defaultConfiguration": {"level": _KNOWN[rule_id].severity},
        }
        for rule_id in used
    ]
    results = []
    for f in findings:
        file, line, column = _location(f.source)
        results.append(
            {
                "ruleId": f.rule,
                "ruleIndex": used.index(f.rule),
                "level": f.severity,
                "message": {"text": _where(f) + f.message},
                "locations": [
                    {
                        "physicalLocation": {
                            "artifactLocation": {"uri": _uri(file)},
                            "region": {"startLine": line, "startColumn": column},
                        }
                    }
                ],
                "partialFingerprints": {"losslessFinding/v1": _fingerprint(f)},
            }
        )
    document = {
        "version": "2.1.0",
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "runs": [
            {
                "tool": {"driver": {"name": "lossless", "version": __version__, "rules": rules}},
                "results": results,
            }
        ],
    }
    return inert_json(json.dumps(document, indent=2))


def junit(findings: list[Finding], devices: list[str], ran: Iterable[str] = ()) -> str:
    """One testsuite per device (and one for fabric-wide findings), one testcase per rule that
    ran (`ran`) or that a finding names;
    error findings are failures, warnings go to system-out. Every text from a finding or a
    device name is made printable, which leaves only characters XML 1.0 can hold."""
    by_suite: dict[str, dict[str, list[Finding]]] = {}
    for f in findings:
        by_suite.setdefault(f.device or "fabric", {}).setdefault(f.rule, []).append(f)
    root = ElementTree.Element("testsuites", name="lossless")
    rule_ids = _rule_ids(findings, ran)
    total = failures = 0
    for suite_name in ["fabric", *devices]:
        found = by_suite.get(suite_name, {})
        shown = printable(suite_name)
        suite = ElementTree.SubElement(root, "testsuite", name=shown)
        suite_failures = 0
        for rule_id in rule_ids:
            case = ElementTree.SubElement(
                suite, "testcase", classname=shown, name=f"{rule_id} {_KNOWN[rule_id].name}"
            )
            errors = [f for f in found.get(rule_id, []) if f.severity == "error"]
            if errors:
                failure = ElementTree.SubElement(
                    case,
                    "failure",
                    type=rule_id,
                    message=printable(_where(errors[0]) + errors[0].message),
                )
                failure.text = "\n".join(
                    printable(f"{f.source}: {_where(f)}{f.message}") for f in errors
                )
                suite_failures += 1
            warnings = [f for f in found.get(rule_id, []) if f.severity == "warning"]
            if warnings:
                out = ElementTree.SubElement(case, "system-out")
                out.text = "\n".join(
                    printable(f"warning {f.source}: {_where(f)}{f.message}") for f in warnings
                )
        suite.set("tests", str(len(rule_ids)))
        suite.set("failures", str(suite_failures))
        suite.set("errors", "0")
        total += len(rule_ids)
        failures += suite_failures
    root.set("tests", str(total))
    root.set("failures", str(failures))
    root.set("errors", "0")
    ElementTree.indent(root)
    body = ElementTree.tostring(root, encoding="unicode")
    return '<?xml version="1.0" encoding="UTF-8"?>' + os.linesep + body


# Code Climate severities GitLab shows: info, minor, major, critical, blocker.
_CODE_CLIMATE_SEVERITY = {"error": "major", "warning": "minor"}


def codeclimate(findings: list[Finding]) -> str:
    """GitLab Code Quality report (a subset of the Code Climate issue format): merge-request
    widgets show each finding at its file and line. GitLab's documented fields:
    description, check_name, fingerprint, severity, location.path, location.lines.begin."""
    issues = []
    for f in findings:
        file, line, _ = _location(f.source)
        issues.append(
            {
                "type": "issue",
                "check_name": f"{f.rule} {_KNOWN[f.rule].name}",
                "description": f"{f.rule} {_where(f)}{f.message}",
                "categories": ["Bug Risk"],
                "severity": _CODE_CLIMATE_SEVERITY[f.severity],
                "fingerprint": _fingerprint(f),
                "location": {"path": _uri(file), "lines": {"begin": line}},
            }
        )
    return inert_json(json.dumps(issues, indent=2))


FORMATS = {
    "text": text,
    "json": as_json,
    "github": github,
    "sarif": sarif,
    "codeclimate": codeclimate,
}


def _subject(f: Finding) -> str:
    """What a suppressed finding was about: leaf1:Ethernet0, leaf1, or (fabric-wide) where."""
    return ":".join(x for x in (f.device, f.port) if x) or f.source


def suppressed_line(entry: Suppressed) -> str:
    """One line for what one `lint_ignore` entry skipped, however many findings: the rule,
    where the findings pointed if at one line, how many ports or devices with a few named,
    whose lint_ignore and where, and its reason. Not yet made printable."""
    findings = entry.findings
    subjects = list(dict.fromkeys(_subject(f) for f in findings))
    sources = {f.source for f in findings}
    line = f"suppressed {entry.rule}"
    if len(sources) == 1:
        line += f" at {findings[0].source}"
    if len(subjects) > 1:
        if all(f.port for f in findings):
            noun = "ports"
        elif all(f.device and not f.port for f in findings):
            noun = "devices"
        else:
            noun = "findings"
        shown = first_few(subjects, SHOWN_SUBJECTS, thousands=True)
        line += f" on {len(subjects):,} {noun} ({shown})"
    elif findings[0].device:
        line += f" on {subjects[0]}"
    if entry.scope == "fabric":
        owner = f"the fabric's lint_ignore in {entry.at}"
    else:
        owners = {f.device if entry.scope == "device" else (f.device, f.port) for f in findings}
        what = entry.scope if len(owners) == 1 else f"{entry.scope}s"
        owner = f"the lint_ignore of the {what} at {entry.at}"
    return f"{line} by {owner}: {entry.reason}"


def report(
    result: LintResult,
    devices: list[str],
    format_name: str,
    colour: bool = False,
    of: Sequence[str] = (),
) -> str:
    """The lint result in one format (a JUnit suite per device of `devices`); the text one
    also lists what `lint_ignore` suppressed: a line per entry, with the reason and a count,
    and is coloured by severity with `colour` (lossless.text.colour; the machine formats
    never are). `of`: the rules the command runs unless some are selected out; where fewer
    ran, the text and github reports say which ran (SARIF and JUnit list them always; the
    json and codeclimate reports are lists of findings, a shape their readers expect)."""
    if format_name == "junit":
        out = junit(result.findings, devices, result.rules) + "\n"
    elif format_name == "sarif":
        out = sarif(result.findings, result.rules) + "\n"
    elif format_name == "text":
        out = text(result.findings, colour) + "\n"
    else:
        out = FORMATS[format_name](result.findings) + "\n"
    if of and set(result.rules) != set(of) and format_name in ("text", "github"):
        ran = f"{len(result.rules)} of {len(of)} rules ran: {rule_spans(result.rules)}"
        *lines, summary = out.rstrip("\n").split("\n")  # the summary stays the last line
        notice = ran if format_name == "text" else f"::notice title=lossless rules::{ran}"
        out = "\n".join([*lines, notice, summary]) + "\n"
    if format_name == "text":
        for entry in result.suppressed:
            out += printable(suppressed_line(entry)) + "\n"
    return out


def input_findings(problems: Iterable[Problem]) -> list[Finding]:
    """Bad input's problems as LL000 findings at their FILE:LINE:COL."""
    return [
        Finding(
            f"{p.file}:{p.line}:{p.column}",
            INPUT_RULE.id,
            INPUT_RULE.severity,
            f"{p.path}: {p.message}" if p.path else p.message,
        )
        for p in problems
    ]


def problems_report(problems: Iterable[Problem], format_name: str) -> str:
    """An InputError's problems in a lint format, as the findings of that format are: a
    GitHub annotation, a SARIF result, a Code Quality issue, a JUnit failure per problem."""
    return report(LintResult(input_findings(problems), []), [], format_name)


def finding_file(f: Finding) -> str:
    """The file a finding points at (its source without :LINE:COL)."""
    return _location(f.source)[0]
