"""The documentation pages made from the code (docs/hooks/site.py adds them to the site;
tests/test_docs_site.py checks them): README as the home page, the command reference from the
argument parser, a page per lint rule from the registry with its checked failing examples,
and the inventory reference from the JSON Schema. Each function returns Markdown."""

from __future__ import annotations

import argparse
import functools
import json
import os
import re
from pathlib import Path
from typing import Any

SCOPES = {
    "fabric": "the whole fabric",
    "device": "each switch",
    "port": "each switch port",
    "config": "each config read back (`lint --configs`, `lint --config`)",
    "state": "each port's running state (`lossless verify`)",
    "state-device": "each switch's running state (`lossless verify`)",
}


def pages(repo: Path) -> dict[str, str]:
    """Every generated page by its path on the site."""
    generated = {
        "index.md": (repo / "README.md").read_text(encoding="utf-8"),
        "commands.md": commands_page(),
        "inventory-reference.md": inventory_reference(
            json.loads((repo / "schemas" / "inventory.schema.json").read_text())
        ),
    }
    generated.update(rule_pages(repo))
    return generated


# -- commands ------------------------------------------------------------------------------


def commands_page() -> str:
    from lossless.cli.parser import build_parser

    lines = [
        "# Command reference",
        "",
        "Generated from the argument parser (`lossless COMMAND --help` prints the same). Exit "
        "codes: 0 all is well, 1 findings (what each command counts is in its help), 2 bad "
        "input or usage, 3 an internal error.",
        "",
    ]
    for name, command in _subcommands(build_parser()):
        lines += _command_section(name, command)
    return "\n".join(lines) + "\n"


def _subcommands(
    parser: argparse.ArgumentParser, prefix: str = "lossless"
) -> list[tuple[str, argparse.ArgumentParser]]:
    found: list[tuple[str, argparse.ArgumentParser]] = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                nested = _subcommands(sub, f"{prefix} {name}")
                found += nested or [(f"{prefix} {name}", sub)]
    return found


def _command_section(name: str, command: argparse.ArgumentParser) -> list[str]:
    previous = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = "100"  # argparse wraps the usage to the terminal's width
    try:
        usage = command.format_usage().removeprefix("usage: ").strip()
    finally:
        if previous is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = previous
    lines = [f"## `{name}`", ""]
    if command.description:
        lines += [command.description, ""]
    lines += ["```", usage, "```", "", "| argument | meaning |", "|---|---|"]
    for action in command._actions:
        if isinstance(action, argparse._HelpAction):
            continue
        words = ", ".join(action.option_strings) or action.metavar or action.dest
        if action.option_strings and action.nargs != 0:
            metavar = action.metavar or action.dest.upper()
            words += f" {metavar if isinstance(metavar, str) else ' '.join(metavar)}"
        meaning = (action.help or "").replace("%(default)s", str(action.default))
        if action.choices and not isinstance(action, argparse._SubParsersAction):
            meaning += f" (one of: {', '.join(str(c) for c in action.choices)})"
        lines.append(f"| `{words}` | {_cell(meaning)} |")
    return [*lines, ""]


def _cell(text: str) -> str:
    return _markdown_text(text).replace("|", "\\|").replace("\n", " ")


def _markdown_text(text: str) -> str:
    """Plain text as Markdown shows it: `alpha*B/(1+n*alpha)` stays as written, not italic."""
    parts = re.split(r"(`[^`]*`)", text)  # code spans stay as they are
    return "".join(
        part if index % 2 else re.sub(r"([\\*_<>\[\]])", r"\\\1", part)
        for index, part in enumerate(parts)
    )


# -- rules ---------------------------------------------------------------------------------


def rule_pages(repo: Path, *, examples: bool = True) -> dict[str, str]:
    """rules/index.md and a page per rule; examples=False leaves out the failing examples
    (each is a lint run)."""
    from lossless.lint.catalogue import registered_rules

    rules = registered_rules()
    changes = load_rule_examples(repo) if examples else {}
    index = [
        "# Lint rules",
        "",
        "Every rule lossless checks, generated from the rule registry (`lossless rules` lists "
        "them, `lossless rules ID` explains one). Select or skip rules with `--select` and "
        "`--ignore` (IDs, ID prefixes or names) or in the settings ([configuration]"
        "(../configuration.md)); skip one where intended, with the reason, with `lint_ignore` "
        "in the inventory.",
        "",
        "| ID | name | severity | checks |",
        "|---|---|---|---|",
    ]
    generated: dict[str, str] = {}
    for rule in rules.values():
        index.append(
            f"| [{rule.id}]({rule.id}.md) | {rule.name} | {rule.severity} | "
            f"{SCOPES.get(rule.scope, rule.scope)} |"
        )
        generated[f"rules/{rule.id}.md"] = _rule_page(rule, changes.get(rule.id, []), repo)
    generated["rules/index.md"] = "\n".join(index) + "\n"
    return generated


def _rule_page(rule: Any, examples: list[dict[str, Any]], repo: Path) -> str:
    lines = [
        f"# {rule.id} {rule.name}",
        "",
        f"**Severity:** {rule.severity} · **checks:** {SCOPES.get(rule.scope, rule.scope)}",
        "",
        "## What it checks, and why",
        "",
        _markdown_text(" ".join(rule.explanation.split())),
        "",
        "## Source",
        "",
        _source_links(rule.source),
        "",
    ]
    if examples:
        lines += ["## Failing examples", ""]
        lines.append(
            "Each is a change to a config lossless renders for the lab "
            "(`inventories/lab.yaml`), and what `lossless lint inventories/lab.yaml --configs "
            "DIR` then reports, or a change to the lab's inventory and what `lossless lint` "
            "reports of it (tests/test_rule_examples.py runs each)."
        )
        lines.append("")
        for example in examples:
            lines += _example_section(example, repo, rule.id)
    return "\n".join(lines) + "\n"


def _source_links(source: str) -> str:
    """The rule's source, its documents made links on the site."""
    words = []
    for word in source.split():
        bare = word.rstrip(",;")
        if bare.startswith("docs/") and bare.endswith(".md"):
            word = word.replace(bare, f"[{bare}](../{bare.removeprefix('docs/')})")
        words.append(word)
    return " ".join(words)


def load_rule_examples(repo: Path) -> dict[str, list[dict[str, Any]]]:
    """docs/rules/examples.yaml: per rule ID, changes to the lab's rendered configs (or, with
    `file: lab.yaml`, to the lab's inventory: a rule over the plan alone) that the rule
    reports."""
    from ruamel.yaml import YAML

    path = repo / "docs" / "rules" / "examples.yaml"
    if not path.exists():
        return {}
    data = YAML(typ="safe").load(path.read_text(encoding="utf-8")) or {}
    return {str(rule): list(entries) for rule, entries in data.items()}


INVENTORY_EXAMPLE = "lab.yaml"  # an example's file: the lab's inventory, not a config


def _example_path(example: dict[str, Any], repo: Path) -> tuple[Path, str]:
    if example["file"] == INVENTORY_EXAMPLE:
        return repo / "inventories" / INVENTORY_EXAMPLE, f"inventories/{INVENTORY_EXAMPLE}"
    return repo / "golden" / "lab" / example["file"], f"golden/lab/{example['file']}"


def apply_example(example: dict[str, Any], repo: Path) -> tuple[str, str]:
    """The golden config (or the lab's inventory) an example changes, and its text with the
    first occurrence of the example's `from` made `to`."""
    path, _ = _example_path(example, repo)
    original = path.read_text(encoding="utf-8")
    old, new = example["change"]["from"], example["change"]["to"]
    if old not in original:
        raise ValueError(f"{_example_path(example, repo)[1]}: {old!r} is not in it")
    return original, original.replace(old, new, 1)


def example_findings(example: dict[str, Any], repo: Path) -> list[dict[str, Any]]:
    """What `lossless lint inventories/lab.yaml --configs DIR` reports for the lab's rendered
    configs with the example's change, as `--format json` lists it (file names relative).
    Each change is linted once per process."""
    change = (example["file"], example["change"]["from"], example["change"]["to"])
    return [dict(finding) for finding in _lint_changed(change, repo)]


@functools.cache
def _lint_changed(change: tuple[str, str, str], repo: Path) -> tuple[dict[str, Any], ...]:
    example = {"file": change[0], "change": {"from": change[1], "to": change[2]}}
    import contextlib
    import io
    import shutil
    import tempfile

    from lossless.cli.main import main

    with tempfile.TemporaryDirectory() as folder:
        out = io.StringIO()
        if example["file"] == INVENTORY_EXAMPLE:  # the plan alone, as `lossless lint` has it
            inventory = Path(folder) / INVENTORY_EXAMPLE
            inventory.write_text(apply_example(example, repo)[1])
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
                main(["lint", str(inventory), "--format", "json"])
        else:
            configs = Path(folder)
            for path in (repo / "golden" / "lab").iterdir():
                if path.is_file() and path.name != "README.md":
                    shutil.copy(path, configs / path.name)
            (configs / example["file"]).write_text(apply_example(example, repo)[1])
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
                main(["lint", str(repo / "inventories" / "lab.yaml"), "--configs", folder,
                      "--format", "json"])  # fmt: skip
        found = json.loads(out.getvalue() or "[]")
        for finding in found:
            finding["file"] = Path(finding["file"]).name
    return tuple(found)


def reports(finding: dict[str, Any], rule_id: str) -> bool:
    """The finding is the rule's, or the config drift (LL200) that the rule's finding follows
    from and is folded into, naming it (lossless/lint/consequences.py)."""
    return finding["rule"] == rule_id or (
        finding["rule"] == "LL200" and f"({rule_id}): " in finding["message"]
    )


def _example_section(example: dict[str, Any], repo: Path, rule_id: str) -> list[str]:
    old, new = example["change"]["from"], example["change"]["to"]
    diff = [f"-{line}" for line in old.splitlines()] + [f"+{line}" for line in new.splitlines()]
    reported = [
        f"{f['file']}:{f['line']}:{f['column']}: {f['severity']} {f['rule']} [{f['name']}] "
        f"{f.get('device') or ''} {f.get('port') or ''}: {f['message']}".replace("  ", " ")
        for f in example_findings(example, repo)
        if reports(f, rule_id)
    ]
    return [
        f"### {example['os']}: {example['title']}",
        "",
        f"In `{_example_path(example, repo)[1]}`:",
        "",
        "```diff",
        *diff,
        "```",
        "",
        f"`lossless lint` reports ({rule_id} only, or the config drift it follows from, "
        "which names it):",
        "",
        "```",
        *reported,
        "```",
        "",
    ]


# -- inventory -----------------------------------------------------------------------------


def inventory_reference(schema: dict[str, Any]) -> str:
    """Every key of the inventory: top level first, then each definition the schema names."""
    lines = [
        "# Inventory reference",
        "",
        "Generated from the inventory's JSON Schema (`lossless schema inventory` prints it; "
        "editors validate and complete with it). [The inventory](inventory.md) explains the "
        "format with examples.",
        "",
        "## Top level",
        "",
        *_properties_table(schema),
    ]
    for name, definition in schema.get("$defs", {}).items():
        lines += [f"## `{name}`", ""]
        if definition.get("description"):
            lines += [" ".join(definition["description"].split()), ""]
        if "properties" in definition:
            lines += _properties_table(definition)
        else:
            lines += [f"Value: {_type_words(definition)}", ""]
    return "\n".join(lines) + "\n"


def _properties_table(definition: dict[str, Any]) -> list[str]:
    required = set(definition.get("required", []))
    lines = ["| key | value | meaning |", "|---|---|---|"]
    for key, spec in definition.get("properties", {}).items():
        mark = " (required)" if key in required else ""
        meaning = " ".join(str(spec.get("description", "")).split())
        if "default" in spec:
            meaning += f" Default: `{json.dumps(spec['default'])}`."
        lines.append(f"| `{key}`{mark} | {_cell(_type_words(spec))} | {_cell(meaning)} |")
    return [*lines, ""]


def _type_words(spec: dict[str, Any]) -> str:
    if "$ref" in spec:
        name = spec["$ref"].rsplit("/", 1)[-1]
        return f"[{name}](#{name.lower().replace('_', '_')})"
    if "enum" in spec:
        return "one of " + ", ".join(f"`{json.dumps(v)}`" for v in spec["enum"])
    if "const" in spec:
        return f"`{json.dumps(spec['const'])}`"
    for combinator in ("oneOf", "anyOf"):
        if combinator in spec:
            return " or ".join(_type_words(option) for option in spec[combinator])
    kind = spec.get("type", "any")
    if kind == "array":
        return f"list of {_type_words(spec.get('items', {}))}"
    if kind == "object" and "additionalProperties" in spec and "properties" not in spec:
        values = spec["additionalProperties"]
        return "map of " + (_type_words(values) if isinstance(values, dict) else "any")
    words = kind if isinstance(kind, str) else " or ".join(kind)
    bounds = [
        f"{word} {spec[key]}"
        for key, word in (("minimum", "≥"), ("maximum", "≤"), ("pattern", "matching"))
        if key in spec
    ]
    if "pattern" in spec:
        bounds[-1] = f"matching `{spec['pattern']}`"
    return words + (f" ({', '.join(bounds)})" if bounds else "")
