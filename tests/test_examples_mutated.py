"""The example inventories are valid, and breaking any node of them is caught at its line.

For every mapping we insert an unknown key, and for every number we write a word instead;
validation must exit 2 and point at the line of the changed node.
"""

from __future__ import annotations

import copy
import io
from typing import Any

import pytest
from conftest import EXAMPLES, walk
from ruamel.yaml import YAML

from lossless.inventory.yamlsource import load_yaml, parse_yaml_text

UNKNOWN = "zz_unknown_key"


def _at(data: Any, path: tuple) -> Any:
    for part in path:
        data = data[part]
    return data


def _dump(data: Any) -> str:
    yaml = YAML(typ="safe", pure=True)
    yaml.default_flow_style = False
    stream = io.StringIO()
    yaml.dump(data, stream)
    return stream.getvalue()


def _mutations(example):
    data = load_yaml(example).data
    for path, node in walk(data):
        if isinstance(node, dict):
            yield "key", path, data
        elif isinstance(node, (int, float)) and not isinstance(node, bool):
            yield "number", path, data


CASES = [
    pytest.param(example, kind, path, data, id=f"{example.stem}:{kind}:{'/'.join(map(str, path))}")
    for example in EXAMPLES
    for kind, path, data in _mutations(example)
]


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.stem)
def test_example_is_valid(run, example):
    result = run("validate", str(example))
    assert result.code == 0, result.err
    assert result.out.startswith("OK\n")


def test_there_are_enough_mutations():
    kinds = {kind for _, kind, _, _ in (c.values for c in CASES)}
    assert kinds == {"key", "number"}
    assert len(CASES) > 100


@pytest.mark.parametrize(("example", "kind", "path", "data"), CASES)
def test_mutation_is_caught_at_its_line(run, tmp_path, example, kind, path, data):
    mutated = copy.deepcopy(data)
    if kind == "key":
        _at(mutated, path)[UNKNOWN] = 1
        target = (*path, UNKNOWN)
    else:
        _at(mutated, path[:-1])[path[-1]] = "seven"
        target = path
    text = _dump(mutated)
    file = tmp_path / example.name
    file.write_text(text)
    document = parse_yaml_text(text, str(file))
    line = (document.key_marks if kind == "key" else document.marks)[target][0]
    result = run("validate", str(file))
    assert result.code == 2, f"accepted: {target}"
    assert "Traceback" not in result.err
    assert any(err.startswith(f"{file}:{line}:") for err in result.err.splitlines()), result.err
