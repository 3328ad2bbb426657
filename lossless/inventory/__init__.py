"""Load an inventory: YAML with marks -> JSON Schema -> references and defaults."""

from __future__ import annotations

from pathlib import Path

from lossless.errors import InputError
from lossless.inventory.resolve import resolve_inventory
from lossless.inventory.schema import schema_problems
from lossless.inventory.suppressions import RuleIds, unknown_rule_problems
from lossless.inventory.yamlsource import Document, load_yaml
from lossless.model import Inventory
from lossless.system.long_lived import building_long_lived


def load_inventory(path: str | Path, rule_ids: RuleIds | None = None) -> Inventory:
    """Validate and resolve one inventory file; raise InputError with every problem.
    rule_ids: the lint rules that exist, so a `lint_ignore` naming another one is a problem
    (the command line always passes them); without it, rule IDs are not checked."""
    return inventory_from_document(load_yaml(path), rule_ids)


def inventory_from_document(document: Document, rule_ids: RuleIds | None = None) -> Inventory:
    """load_inventory of a document already read (lossless.importers checks the text it
    wrote reads back as written, then loads the same document)."""
    problems = schema_problems(document)
    if rule_ids is not None:
        problems += unknown_rule_problems(document, rule_ids)
    if problems:
        raise InputError(problems)
    with building_long_lived():
        return resolve_inventory(document)


__all__ = ["inventory_from_document", "load_inventory"]
