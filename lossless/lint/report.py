"""Lint output formats: text (FILE:LINE:COL: ...), json, GitHub workflow annotations."""

from __future__ import annotations

import json
from collections import Counter

from lossless.lint.registry import RULES, Finding


def _location(source: str) -> tuple[str, int, int]:
    file, _, rest = source.rpartition(":")
    file, _, line = file.rpartition(":")
    try:
        return file, int(line), int(rest)
    except ValueError:
        return source, 1, 1


def text(findings: list[Finding]) -> str:
    lines = []
    for f in findings:
        where = " ".join(x for x in (f.device, f.port) if x)
        lines.append(
            f"{f.source}: {f.severity} {f.rule} [{RULES[f.rule].name}] "
            f"{f'{where}: ' if where else ''}{f.message}"
        )
    counts = Counter(f.severity for f in findings)
    lines.append(f"{counts['error']} error(s), {counts['warning']} warning(s)")
    return "\n".join(lines)


def as_json(findings: list[Finding]) -> str:
    records = []
    for f in findings:
        file, line, column = _location(f.source)
        records.append(
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
    return json.dumps(records, indent=2)


def github(findings: list[Finding]) -> str:
    """GitHub Actions workflow commands (ecosystem.md 5.2): ::error file=,line=,col=,title=::msg"""
    lines = []
    for f in findings:
        file, line, column = _location(f.source)
        message = f.message.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
        lines.append(
            f"::{f.severity} file={file},line={line},col={column},"
            f"title={f.rule} {RULES[f.rule].name}::{message}"
        )
    return "\n".join(lines)


FORMATS = {"text": text, "json": as_json, "github": github}
