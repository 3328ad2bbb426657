"""`lint_ignore` names rules that exist: a typo must not silently keep a check off.

Which rules exist is lint's to say: the caller passes them (the command line passes lint's
catalogue), so loading an inventory imports no rule."""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterator
from typing import Any

from lossless.errors import Problem
from lossless.inventory.schema import suggest
from lossless.inventory.yamlsource import Document, PathKey

_RULE_ID = re.compile(r"LL[0-9]{3}")  # other shapes are the schema's to report


def _lint_ignores(node: Any, path: PathKey) -> Iterator[tuple[PathKey, dict[str, Any]]]:
    """Every `lint_ignore` mapping in the document (fabric, devices, profiles, ports)."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "lint_ignore" and isinstance(value, dict):
                yield (*path, key), value
            else:
                yield from _lint_ignores(value, (*path, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _lint_ignores(value, (*path, index))


RuleIds = Callable[[], Collection[str]]


def unknown_rule_problems(document: Document, rule_ids: RuleIds) -> list[Problem]:
    """A problem at every `lint_ignore` key of the rule-ID shape that names no rule of
    rule_ids() (called only when the document has a lint_ignore: the rules, and the vendors
    they import, are not loaded for nothing)."""
    ignored = list(_lint_ignores(document.data, ()))
    if not ignored:
        return []
    rules = rule_ids()
    return [
        document.problem(
            (*path, rule_id),
            f"{rule_id} is not a lint rule{suggest(rule_id, rules)}; `lossless rules` lists them",
            key=True,
        )
        for path, ignores in ignored
        for rule_id in ignores
        if isinstance(rule_id, str) and _RULE_ID.fullmatch(rule_id) and rule_id not in rules
    ]
