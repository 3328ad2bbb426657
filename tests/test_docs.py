"""The inventory examples in README and docs/inventory.md are real: they validate."""

from __future__ import annotations

import re

import pytest
from conftest import REPO

DOCS = [REPO / "README.md", REPO / "docs" / "inventory.md"]


def _inventory_blocks():
    for doc in DOCS:
        for block in re.findall(r"```yaml\n(.*?)```", doc.read_text(), flags=re.S):
            if block.lstrip().startswith(("# yaml-language-server", "fabric:")):
                yield pytest.param(block, id=doc.name)


@pytest.mark.parametrize("block", list(_inventory_blocks()))
def test_documented_inventory_validates(run, write, block):
    result = run("validate", str(write(block)))
    assert result.code == 0, result.err


def test_there_is_a_documented_inventory():
    assert list(_inventory_blocks())


def test_generated_fabric_validates(run, tmp_path):
    import sys

    sys.path.insert(0, str(REPO / "inventories"))
    from generate_clos import generate

    path = tmp_path / "clos.yaml"
    path.write_text(generate(4096, 128, "400G"))
    result = run("validate", str(path))
    assert result.code == 0, result.err
    assert "96 devices, 12288 ports, 512 servers, 4096 NICs, 8192 links" in result.out
