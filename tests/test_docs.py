"""The inventory examples in README and docs/inventory.md are real: they validate."""

from __future__ import annotations

import re

import pytest
from conftest import DOCS_PAGES, REPO, docs_page

DOCS = DOCS_PAGES


def _inventory_blocks():
    for doc in DOCS:
        for block in re.findall(r"```yaml\n(.*?)```", doc.read_text(), flags=re.S):
            first = block.lstrip().split("\n", 1)[0]
            whole = first.startswith("fabric:") and "\ndevices:" in block  # not an excerpt
            if whole or "inventory.schema.json" in first:
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


def _quick_start_commands() -> list[str]:
    text = (REPO / "README.md").read_text()
    section = text[text.index("## Quick start") : text.index("## Install")]
    return [line.strip() for line in section.splitlines() if line.startswith("    ")]


def test_ci_runs_the_readme_quick_start_word_for_word():
    commands = _quick_start_commands()
    assert commands == [
        "bash .ci/install && .venv/bin/lossless render inventories/lab.yaml -o out/lab",
        ".venv/bin/python -m pytest -q",
    ]
    ci = (REPO / ".ci" / "run").read_text().splitlines()
    for command in commands:
        assert command in ci


def _documented_lossless_commands():
    import shlex

    text = "\n".join(page.read_text() for page in DOCS_PAGES)
    fenced = re.findall(r"^```[a-z]*\n(.*?)^```", text, re.S | re.M)
    indented = re.findall(r"\n\n((?:    \S.*\n)+)", re.sub(r"```.*?```", "", text, flags=re.S))
    for block in fenced + indented:
        for line in block.splitlines():
            line = line.strip().removeprefix("- ").removeprefix("run: ").removeprefix("$ ")
            if not line.startswith(("lossless ", ".venv/bin/lossless ")):
                continue
            if " [" in line:  # a synopsis (`lossless verify INVENTORY [--baseline PATH]`)
                continue
            words = []
            for word in shlex.split(line, comments=True):
                if word in {">", "||", "&&", "|", ";"}:
                    break
                words.append(word)
            yield pytest.param(words[1:], id=" ".join(words[:3]))


@pytest.mark.parametrize("argv", list(_documented_lossless_commands()))
def test_documented_commands_parse(argv):
    """Every `lossless ...` line in README and the docs names real commands, options and
    choices."""
    from lossless.cli.parser import build_parser

    try:
        build_parser().parse_args(argv)
    except SystemExit as exit_:
        pytest.fail(f"lossless {' '.join(argv)}: exit {exit_.code}")


def test_every_documented_command_count_is_real():
    """The extractor finds the README's command lines (the CI examples, completion, report),
    so test_documented_commands_parse is not empty."""
    found = {" ".join(param.values[0][:1]) for param in _documented_lossless_commands()}
    assert {"ci", "render", "completion", "validate", "report"} <= found


def _layout_entries() -> tuple[set[str], set[str], str]:
    """README's layout block: the names listed under lossless/, the top-level names, and the
    block's text."""
    text = docs_page("architecture.md").split("## Layout", 1)[1]
    block = text.split("```", 2)[1]
    package, top = set(), set()
    for line in block.splitlines():
        if re.match(r"^  \S", line):
            package.add(line.split()[0])
        elif re.match(r"^\S", line):
            top.add(line.split()[0])
    return package, top, block


def test_the_readme_layout_matches_the_tree():
    """Every folder and module of lossless/ is in README's layout, and nothing else is; every
    top-level folder listed exists; each switch OS folder is named."""
    package, top, block = _layout_entries()
    tree = {
        f"{path.name}/" if path.is_dir() else path.name
        for path in (REPO / "lossless").iterdir()
        if not path.name.startswith(("_", ".")) and (path.is_dir() or path.suffix == ".py")
    }
    assert package == tree
    assert all((REPO / name).exists() for name in top)
    os_folders = {
        p.name for p in (REPO / "lossless" / "vendors").iterdir() if (p / "render.py").exists()
    }
    assert {name for name in os_folders if f"{name}/" not in block} == set()
    shared = {
        p.name for p in (REPO / "lossless" / "vendors").glob("*.py") if p.name != "__init__.py"
    }
    assert {name for name in shared if name not in block} == set()
