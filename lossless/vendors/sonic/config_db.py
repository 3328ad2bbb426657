"""A config_db.json read as untrusted input: the JSON data, the line and column of every key
down to the fields of an entry, and typed access that reports a wrong shape or value as bad
input at that line (exit 2), never as a traceback.

CONFIG_DB is Redis hashes, so config_db.json has a fixed shape: tables of entries of fields,
a field a string (or a list of strings for a YANG leaf-list such as SWITCH_HASH ecmp_hash).
Anything nested deeper is not CONFIG_DB and is refused before it is parsed, which also keeps
a hostile file from exhausting the JSON parser's recursion.
"""

from __future__ import annotations

import json
import re
from typing import Any

from lossless.errors import InputError, Problem

MAX_DEPTH = 4  # {tables {entries {fields [leaf-list values]}}}
# a string (group 1) and, for a key, its colon (group 2); or a bracket (group 3)
_TOKENS = re.compile(r'"([^"\\]*(?:\\.[^"\\]*)*)"(\s*:)?|([{}\[\]])')
_TABLE_NAME = re.compile(r"[A-Z][A-Z0-9_]*")
_KIND = {dict: "an object", list: "a list", bool: "true/false", int: "a number", float: "a number"}


def reference(value: Any) -> str:
    """A referenced name, also in the pre-2021 form "[BUFFER_PROFILE|name]"."""
    text = str(value)
    if text.startswith("[") and text.endswith("]"):
        return text[1:-1].partition("|")[2]
    return text


def _kind(value: Any) -> str:
    return "null" if value is None else _KIND.get(type(value), type(value).__name__)


def _looks_like(text: str) -> str:
    head = text.lstrip()[:2000]
    if re.match(r"^(-\s|[\w-]+:(\s|$))", head):
        return " (it looks like YAML: Cumulus NVUE?)"
    if re.search(r"^\s*(system|class-of-service|interfaces|chassis)\s*\{", head, re.M):
        return " (it looks like a Junos configuration)"
    if re.search(r"^\s*(interface|hostname|version|feature|policy-map|qos)\s", head, re.M):
        return " (it looks like a CLI configuration: EOS or NX-OS)"
    return ""


class ConfigDb:
    """The tables of a config_db.json with where each key was written."""

    def __init__(self, file: str, data: dict[str, Any], marks: dict[tuple[str, ...], tuple]):
        self.file, self.data, self.marks = file, data, marks
        self._checked: dict[str, dict[str, dict[str, Any]]] = {}

    # -- locations -----------------------------------------------------------------------

    def line_col(self, path: tuple[str, ...]) -> tuple[int, int]:
        """Where the key at `path` (or its nearest recorded parent) was written."""
        for end in range(len(path), 0, -1):
            mark = self.marks.get(path[:end])
            if mark:
                return mark
        return 1, 1

    def at(self, *path: str) -> str:
        line, column = self.line_col(path)
        return f"{self.file}:{line}:{column}"

    def error(self, path: tuple[str, ...], message: str) -> InputError:
        line, column = self.line_col(path)
        return InputError([Problem(self.file, line, column, ".".join(path), message)])

    # -- typed access ----------------------------------------------------------------------

    def table(self, name: str) -> dict[str, dict[str, Any]]:
        """Entries of a table, each an object whose fields are strings (numbers are read as
        their text) or lists of strings; {} when the table is absent."""
        if name in self._checked:
            return self._checked[name]
        raw = self.data.get(name, {})
        if not isinstance(raw, dict):
            raise self.error((name,), f"expected an object of {name} entries, not {_kind(raw)}")
        checked: dict[str, dict[str, Any]] = {}
        for key, entry in raw.items():
            if not isinstance(entry, dict):
                raise self.error((name, key), f"expected an object of fields, not {_kind(entry)}")
            fields: dict[str, Any] = {}
            for field, value in entry.items():
                fields[field] = self._scalar_or_list((name, key, field), value)
            checked[key] = fields
        self._checked[name] = checked
        return checked

    def _scalar_or_list(self, path: tuple[str, ...], value: Any) -> Any:
        if isinstance(value, str):
            return value
        if isinstance(value, int) and not isinstance(value, bool):
            return str(value)
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            return list(value)
        raise self.error(path, f"expected a string, not {_kind(value)}")

    def text(self, path: tuple[str, ...], value: Any) -> str:
        if not isinstance(value, str):
            raise self.error(path, f"expected a string, not {_kind(value)}")
        return value

    def integer(self, path: tuple[str, ...], value: Any) -> int:
        text = self.text(path, value).strip()
        if not re.fullmatch(r"-?\d{1,12}", text):
            raise self.error(path, f"expected a whole number, not {value!r}")
        return int(text)

    def integers(self, path: tuple[str, ...], value: Any) -> list[int]:
        """A comma list of numbers ("3,4"), as pfc_enable and lanes are written."""
        return [self.integer(path, part) for part in self.text(path, value).split(",") if part]


def _line_column(text: str, offset: int) -> tuple[int, int]:
    """1-based line and column of a character offset."""
    return text.count("\n", 0, offset) + 1, offset - text.rfind("\n", 0, offset)


def load_config_db(text: str, file: str) -> ConfigDb:
    """Parse a config_db.json, or raise InputError naming FILE:LINE:COL."""
    start = len(text) - len(text.lstrip())
    if text[start : start + 1] != "{":
        line, column = _line_column(text, start)
        raise InputError(
            [
                Problem(
                    file,
                    line,
                    column,
                    "",
                    "this is not a SONiC config_db: a config_db.json is a JSON object of "
                    f"CONFIG_DB tables{_looks_like(text)}",
                )
            ]
        )
    marks = _key_marks(text, file)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise InputError(
            [Problem(file, error.lineno, error.colno, "", f"JSON: {error.msg}")]
        ) from None
    except (ValueError, RecursionError) as error:  # e.g. a number of more than 4300 digits
        raise InputError([Problem(file, 1, 1, "", f"JSON: {error}")]) from None
    if data and not any(_TABLE_NAME.fullmatch(key) for key in data):
        raise InputError(
            [
                Problem(
                    file,
                    1,
                    1,
                    "",
                    "this is not a SONiC config_db: it has no CONFIG_DB table (upper-case "
                    "names such as PORT or DEVICE_METADATA)",
                )
            ]
        )
    return ConfigDb(file, data, marks)


def _key_marks(text: str, file: str) -> dict[tuple[str, ...], tuple[int, int]]:
    """1-based (line, column) of each key of the first three levels (tables, entries,
    fields); refuses a key repeated in its object (json.loads would keep the last) and
    nesting deeper than CONFIG_DB's. One regex pass; lines are counted only up to keys."""
    marks: dict[tuple[str, ...], tuple[int, int]] = {}
    path: list[str] = []
    depth, line, line_start, scanned = 0, 1, 0, 0
    for match in _TOKENS.finditer(text):
        bracket = match.group(3)
        if bracket is None:
            if match.group(2) is None or not 1 <= depth <= 3:
                continue  # a value string, or a key too deep to matter
            position = match.start()
            newlines = text.count("\n", scanned, position)
            if newlines:
                line += newlines
                line_start = text.rfind("\n", scanned, position) + 1
            scanned = position
            key = match.group(1)
            if "\\" in key:
                try:
                    key = json.loads(f'"{key}"')
                except ValueError:
                    continue  # not valid JSON: json.loads reports it with its place
            del path[depth - 1 :]
            path.append(key)
            if tuple(path) in marks:  # json.loads would keep the last and drop this one's twin
                first = marks[tuple(path)][0]
                raise InputError(
                    [
                        Problem(
                            file,
                            line,
                            position - line_start + 1,
                            ".".join(path),
                            f"repeats the key of line {first}: SONiC loads one and drops "
                            "the other without a word",
                        )
                    ]
                )
            marks[tuple(path)] = (line, position - line_start + 1)
        elif bracket in "{[":
            depth += 1
            if depth > MAX_DEPTH:
                raise InputError(
                    [
                        Problem(
                            file,
                            *_line_column(text, match.start()),
                            ".".join(path),
                            "nested deeper than CONFIG_DB's tables, entries and fields: "
                            "this is not a SONiC config_db",
                        )
                    ]
                )
        else:
            depth -= 1
            del path[depth:]
    return marks
