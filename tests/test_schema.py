"""The inventory schema as editors see it: every property explained, a stable $id, and
`lossless schema` to export it into a fabric repository."""

from __future__ import annotations

import json

import pytest
from conftest import REPO

SCHEMAS = REPO / "schemas"
STABLE_IDS = {
    "inventory": "https://lossless.dev/schemas/inventory.schema.json",
    "plan": "https://lossless.dev/schemas/plan.schema.json",
}


def _properties(node, path=""):
    if isinstance(node, dict):
        for name, value in (node.get("properties") or {}).items():
            yield f"{path}.{name}", value
        for key, value in node.items():
            yield from _properties(value, f"{path}/{key}")
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _properties(value, f"{path}[{index}]")


def test_every_inventory_property_has_a_description_for_editor_hover_help():
    schema = json.loads((SCHEMAS / "inventory.schema.json").read_text())
    properties = list(_properties(schema))
    assert len(properties) > 100
    undescribed = [path for path, value in properties if not value.get("description")]
    assert undescribed == []


@pytest.mark.parametrize("name", ["inventory", "plan"])
def test_schemas_are_valid_2020_12_schemas(name):
    """Checked here once, not on every run (lossless.inventory.schema)."""
    from jsonschema import Draft202012Validator

    Draft202012Validator.check_schema(json.loads((SCHEMAS / f"{name}.schema.json").read_text()))


@pytest.mark.parametrize("name", ["inventory", "plan"])
def test_schema_ids_are_stable(name):
    schema = json.loads((SCHEMAS / f"{name}.schema.json").read_text())
    assert schema["$id"] == STABLE_IDS[name]


@pytest.mark.parametrize("name", ["inventory", "plan"])
def test_schema_command_prints_and_exports(run, tmp_path, name):
    shipped = (SCHEMAS / f"{name}.schema.json").read_text()
    printed = run("schema", name)
    assert printed.code == 0 and printed.out == shipped
    target = tmp_path / "schemas" / f"lossless-{name}.schema.json"
    written = run("schema", name, "-o", str(target))
    assert written.code == 0 and target.read_text() == shipped


def test_unknown_schema_is_a_usage_error(run):
    assert run("schema", "inventroy").code == 2
