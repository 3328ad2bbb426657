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
from collections import Counter
from pathlib import Path
from xml.etree import ElementTree

from lossless import __version__
from lossless.lint.catalogue import registered_rules
from lossless.lint.registry import Finding
from lossless.lint.runner import SHOWN_SUBJECTS, LintResult, Suppressed
from lossless.text.grammar import first_few, plural
from lossless.text.printable import inert_json, printable

RULES = registered_rules()  # every rule, by ID


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


def text(findings: list[Finding]) -> str:
    lines = [
        printable(
            f"{f.source}: {f.severity} {f.rule} [{RULES[f.rule].name}] {_where(f)}{f.message}"
        )
        for f in findings
    ]
    lines.append(_summary(findings))
    return "\n".join(lines)


def records(findings: list[Finding]) -> list[dict]:
    """The findings as `lint --format json` lists them."""
    found = []
    for f in findings:
        file, line, column = _location(f.source)
        found.append(
            {
                "rule": f.rule,
                "name": RULES[f.rule].name,
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
        title = _escape_property(f"{f.rule} {RULES[f.rule].name}")
        lines.append(
            f"::{f.severity} file={_escape_property(printable(file))},line={line},col={column},"
            f"title={title}::{_escape_data(printable(_where(f) + f.message))}"
        )
    lines.append(_summary(findings))
    return "\n".join(lines)


def _uri(file: str) -> str:
    """Repository-relative path with forward slashes, as GitHub code scanning wants."""
    path = Path(file)
    if path.is_absolute() and path.is_relative_to(Path.cwd()):
        path = path.relative_to(Path.cwd())
    return path.as_posix()


def _fingerprint(f: Finding) -> str:
    """Stable across runs and distinct per finding: what the rule found where, not when."""
    file, _, _ = _location(f.source)
    identity = f"{f.rule}|{_uri(file)}|{f.device}|{f.port}|{f.message}"
    return hashlib.sha256(identity.encode()).hexdigest()[:32]


def sarif(findings: list[Finding]) -> str:
    used = sorted(RULES)
    rules = [
        {
            "id": rule_id,
            "name": RULES[rule_id].name,
            "shortDescription": {"text": RULES[rule_id].name.replace("-", " ")},
            "fullDescription": {"text": RULES[rule_id].explanation},
            "help": {"text": f"{RULES[rule_id].explanation} Source: {RULES[rule_id].source}"},
            "defaultConfiguration": {"level": RULES[rule_id].severity},
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


def junit(findings: list[Finding], devices: list[str]) -> str:
    """One testsuite per device (and one for fabric-wide findings), one testcase per rule;
    error findings are failures, warnings go to system-out. Every text from a finding or a
    device name is made printable, which leaves only characters XML 1.0 can hold."""
    by_suite: dict[str, dict[str, list[Finding]]] = {}
    for f in findings:
        by_suite.setdefault(f.device or "fabric", {}).setdefault(f.rule, []).append(f)
    root = ElementTree.Element("testsuites", name="lossless")
    total = failures = 0
    for suite_name in ["fabric", *devices]:
        found = by_suite.get(suite_name, {})
        shown = printable(suite_name)
        suite = ElementTree.SubElement(root, "testsuite", name=shown)
        suite_failures = 0
        for rule_id in sorted(RULES):
            case = ElementTree.SubElement(
                suite, "testcase", classname=shown, name=f"{rule_id} {RULES[rule_id].name}"
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
        suite.set("tests", str(len(RULES)))
        suite.set("failures", str(suite_failures))
        suite.set("errors", "0")
        total += len(RULES)
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
                "check_name": f"{f.rule} {RULES[f.rule].name}",
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


def report(result: LintResult, devices: list[str], format_name: str) -> str:
    """The lint result in one format (a JUnit suite per device of `devices`); the text one
    also lists what `lint_ignore` suppressed: a line per entry, with the reason and a count.
    The other formats carry the findings only, as before."""
    if format_name == "junit":
        text = junit(result.findings, devices) + "\n"
    else:
        text = FORMATS[format_name](result.findings) + "\n"
    if format_name == "text":
        for entry in result.suppressed:
            text += printable(suppressed_line(entry)) + "\n"
    return text
