"""The documentation site (mkdocs.yml, docs/hooks/): it builds with --strict (no broken link,
no page left out), and its generated pages cover the code: every rule, every command and
option, every inventory key. README stays a page a newcomer reads in five minutes.

The build needs the docs extra (mkdocs, mkdocs-material): skipped without it, except where
LOSSLESS_REQUIRE_DOCS=1 (CI installs it and sets it)."""

from __future__ import annotations

import argparse
import json
import os
import re
import sys

import pytest
from conftest import REPO

sys.path.insert(0, str(REPO / "docs" / "hooks"))
from pages import _markdown_text, commands_page, inventory_reference, rule_pages


def test_the_readme_is_short():
    lines = (REPO / "README.md").read_text().splitlines()
    assert len(lines) <= 300
    assert max(len(line) for line in lines) <= 200


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    try:
        from mkdocs.commands.build import build
        from mkdocs.config import load_config
    except ImportError:
        if os.environ.get("LOSSLESS_REQUIRE_DOCS") == "1":
            pytest.fail("LOSSLESS_REQUIRE_DOCS=1 but mkdocs is not installed (.ci/install)")
        pytest.skip("mkdocs is not installed: pip install -e '.[docs]'")
    folder = tmp_path_factory.mktemp("site")
    os.environ.setdefault("NO_MKDOCS_2_WARNING", "1")
    config = load_config(str(REPO / "mkdocs.yml"), site_dir=str(folder), strict=True)
    build(config)  # strict: any warning (a broken link, a page out of the nav) aborts
    return folder


def test_the_site_builds_with_every_generated_page(site):
    from lossless.lint.catalogue import registered_rules

    assert (site / "index.html").exists()
    for rule in registered_rules():
        assert (site / "rules" / rule / "index.html").exists(), rule
    for page in ("commands", "inventory-reference", "getting-started", "security"):
        assert (site / page / "index.html").exists(), page
    # the files pages link to outside docs/ are served with the site
    assert (site / "repo" / "inventories" / "lab.yaml").exists()
    assert (site / "repo" / "schemas" / "inventory.schema.json").exists()


def test_the_home_page_is_the_readme_with_site_links(site):
    home = (site / "index.html").read_text()
    assert "Quick start" in home
    assert 'href="verify/"' in home  # README's docs/verify.md, as a site link
    assert "docs/verify.md" not in re.sub(r"<code>.*?</code>", "", home)


def test_the_command_reference_lists_every_command_and_option():
    from lossless.cli.parser import build_parser

    page = commands_page()
    parser = build_parser()
    (commands,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    for name, command in commands.choices.items():
        assert f"## `lossless {name}" in page, name
        for action in command._actions:
            if isinstance(action, argparse._HelpAction):
                continue
            for option in action.option_strings:
                assert f"`{option}" in page or f", {option}" in page, (name, option)


def test_every_rule_page_says_what_why_and_source():
    from lossless.lint.catalogue import registered_rules

    generated = rule_pages(REPO, examples=False)
    for rule in registered_rules().values():
        page = generated[f"rules/{rule.id}.md"]
        assert page.startswith(f"# {rule.id} {rule.name}\n")
        assert rule.severity in page and "## Source" in page
        assert _markdown_text(" ".join(rule.explanation.split()))[:60] in page
        assert f"[{rule.id}]({rule.id}.md)" in generated["rules/index.md"]


def test_the_inventory_reference_has_every_key():
    schema = json.loads((REPO / "schemas" / "inventory.schema.json").read_text())
    page = inventory_reference(schema)
    for key in schema["properties"]:
        assert f"| `{key}`" in page, key
    for name, definition in schema["$defs"].items():
        assert f"## `{name}`" in page, name
        for key in definition.get("properties", {}):
            assert f"| `{key}`" in page, (name, key)


def test_the_verify_examples_run_as_documented(run, monkeypatch, tmp_path):
    """docs/verify.md's "Try it" commands, run as written (the copy into /tmp made a copy
    into tmp_path): the clean fabric exits 0 with its baseline, and 1 without it; the storm
    laid over `after/` is reported (LL304), exit 1. README's verify example is the first."""
    import shlex
    import subprocess

    monkeypatch.chdir(REPO)
    page = (REPO / "docs" / "verify.md").read_text()
    section = page.split("## Try it on the lab's recordings", 1)[1].split("\n## ", 1)[0]
    commands = [line.strip() for line in section.splitlines() if line.startswith("    ")]
    clean, copy, storm = commands
    assert clean in (REPO / "README.md").read_text()
    assert run(*shlex.split(clean)[1:]).code == 0
    without_baseline = shlex.split(clean)[1:]
    assert run(*without_baseline[: without_baseline.index("--baseline")]).code == 1
    folder = str(tmp_path / "storm")
    subprocess.run(copy.replace("/tmp/storm", folder), shell=True, check=True, cwd=REPO)
    result = run(*shlex.split(storm.replace("/tmp/storm", folder))[1:])
    assert result.code == 1 and "LL304" in result.out, result.out
