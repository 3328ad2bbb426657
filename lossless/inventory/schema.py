"""Validate inventory data against schemas/inventory.schema.json, located by line and column."""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Iterator
from functools import cache
from typing import Any

from jsonschema import Draft202012Validator, validators
from jsonschema.exceptions import ValidationError

from lossless.errors import Problem
from lossless.inventory.yamlsource import Document
from lossless.system.resources import resource_path

_TYPE_WORDS = {
    "integer": "a whole number",
    "number": "a number",
    "string": "text",
    "boolean": "true or false",
    "object": "a mapping",
    "array": "a list",
}


@cache
def _ecma_regex(pattern: str) -> re.Pattern[str]:
    """A schema pattern as JSON Schema means it (ECMA-262): `$` matches at the end of the
    text only. Python's `$` also matches before a final newline, so `^[a-z0-9]+$` would take
    "eth0\\n" (which then breaks the scripts, env and YAML files a name is written into):
    every `$` outside a character class becomes `\\Z`."""
    out, in_class, escaped = [], False, False
    for char in pattern:
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == "[":
            in_class = True
        elif char == "]":
            in_class = False
        elif char == "$" and not in_class:
            char = r"\Z"
        out.append(char)
    return re.compile("".join(out))


def _pattern(
    validator: Any, pattern: str, instance: Any, schema: dict[str, Any]
) -> Iterator[ValidationError]:
    """The `pattern` keyword with ECMA-262's `$` (see _ecma_regex)."""
    if validator.is_type(instance, "string") and not _ecma_regex(pattern).search(instance):
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


InventoryValidator = validators.extend(Draft202012Validator, {"pattern": _pattern})


@cache
def inventory_validator() -> Any:
    """The validator of the packaged schema (tests/test_schema.py checks the schema itself
    against the 2020-12 meta-schema once; every run doing so cost 0.1 s of start-up)."""
    schema = json.loads(resource_path("schemas", "inventory.schema.json").read_text())
    return InventoryValidator(schema)


def suggest(word: str, choices: Any) -> str:
    """' (did you mean "x"?)' for the closest choice, or ''."""
    close = difflib.get_close_matches(str(word), [str(c) for c in choices], n=1, cutoff=0.6)
    return f' (did you mean "{close[0]}"?)' if close else ""


def _describe(value: Any) -> str:
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    return repr(value)


def _problems_for(error: ValidationError, document: Document) -> list[Problem]:
    path = tuple(error.absolute_path)
    validator = error.validator
    if "propertyNames" in error.absolute_schema_path:
        key_path = (*path, error.instance)
        hint = error.schema.get("description", "") if error.validator == "pattern" else ""
        message = f"{error.instance!r} is not a valid name here. {hint}".strip()
        return [document.problem(key_path, message, key=True)]
    if validator == "additionalProperties" and isinstance(error.instance, dict):
        known = set(error.schema.get("properties", {}))
        return [
            document.problem(
                (*path, key),
                f"unknown key {key!r}{suggest(key, known)}",
                key=True,
            )
            for key in error.instance
            if key not in known
        ]
    if validator == "required":
        return [
            document.problem(path, error.message.replace("is a required property", "is required"))
        ]
    if validator == "type":
        expected = error.validator_value
        names = expected if isinstance(expected, list) else [expected]
        wanted = " or ".join(_TYPE_WORDS.get(str(name), str(name)) for name in names)
        message = f"expected {wanted}, got {_describe(error.instance)}"
        if names == ["string"] and type(error.instance) in (int, float):
            pattern, as_text = error.schema.get("pattern"), str(error.instance)
            # an int reads back as written (a float may not: 5.10 is 5.1)
            if pattern and type(error.instance) is int and not re.search(pattern, as_text):
                # quoting alone would not do (speed: 400 lacks its unit): say both at once
                hint = error.schema.get("description", "")
                message += f", and {as_text!r} in quotes would not be valid either. {hint}"
                return [document.problem(path, message.strip())]
            # a release or model number: YAML reads 5.10 unquoted as the number 5.1
            message += ' (write it in quotes, e.g. "5.10": unquoted, YAML reads a number)'
        return [document.problem(path, message)]
    if validator == "enum":
        choices = error.validator_value
        listed = ", ".join(str(c) for c in choices)
        return [
            document.problem(
                path,
                f"{error.instance!r} is not one of: {listed}{suggest(error.instance, choices)}",
            )
        ]
    if validator == "pattern":
        hint = error.schema.get("description", "")
        return [document.problem(path, f"{error.instance!r} is not valid here. {hint}".strip())]
    return [document.problem(path, error.message)]


def schema_problems(document: Document) -> list[Problem]:
    problems: list[Problem] = []
    for error in inventory_validator().iter_errors(document.data):
        problems.extend(_problems_for(error, document))
    return problems
