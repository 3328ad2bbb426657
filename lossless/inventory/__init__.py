"""Load an inventory: YAML with marks -> JSON Schema -> references and defaults."""

from __future__ import annotations

from pathlib import Path

from lossless.errors import InputError
from lossless.inventory.resolve import resolve_inventory
from lossless.inventory.schema import schema_problems
from lossless.inventory.suppressions import unknown_rule_problems
from lossless.inventory.yamlsource import load_yaml
from lossless.model import Inventory
from lossless.system.long_lived import building_long_lived


def load_inventory(path: str | Path) -> Inventory:
    """Validate and resolve one inventory file; raise InputError with every problem."""
    document = load_yaml(path)
    problems = schema_problems(document) + unknown_rule_problems(document)
    if problems:
        raise InputError(problems)
    with building_long_lived():
        return resolve_inventory(document)


__all__ = ["load_inventory"]
