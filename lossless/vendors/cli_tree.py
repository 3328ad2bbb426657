"""Indented CLI configs (`show running-config` of EOS and the like) as a tree that keeps the
line number of every statement.

hier_config builds the trees the diff works on, but it keeps no line numbers and refuses a
section written twice (DuplicateChildError), which real running configs do (an `interface X`
repeated further down, a profile edited in two places). Parsers read this tree instead, so a
finding can point at the statement that set a value; a repeated section is merged into the
first one, as the switch itself does: a later `mtu 9000` replaces an earlier `mtu 9100` of
the same interface (same command, another value: the text but its last word; below the top
level, where one command holds one value). `merged_text`
gives hier_config the same merged config.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from lossless.errors import InputError, Problem


@dataclass
class Node:
    text: str
    line: int  # 1-based line of the first statement with this text
    children: dict[str, Node] = field(default_factory=dict)
    # command (text but its last word) -> text of the child statement that set it last
    commands: dict[str, str] = field(default_factory=dict, repr=False)

    def __iter__(self) -> Iterator[Node]:
        return iter(self.children.values())

    def child(self, text: str) -> Node | None:
        return self.children.get(text)


def parse_tree(text: str, comment: str = "!", repeatable: tuple[str, ...] = ()) -> Node:
    """The statements of an indented config, nested by indentation. Blank lines, comment lines
    (starting with `comment`) and a top-level `end` are skipped; a statement repeated under
    the same parent is one node, whose children are the union of both (in order). Statements
    starting with one of `repeatable` add up instead of replacing an earlier value of the same
    command (NX-OS `match dscp 24` and `match dscp 26` in one class-map both match)."""
    root = Node("", 0)
    stack: list[tuple[int, Node]] = [(-1, root)]
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.expandtabs(8).rstrip()
        statement = line.lstrip(" ")
        if not statement or statement.startswith(comment):
            continue
        indent = len(line) - len(statement)
        while stack[-1][0] >= indent:
            stack.pop()
        parent = stack[-1][1]
        if parent is root and statement == "end":
            continue
        node = parent.children.get(statement)
        if node is None:
            # a negation (`no switchport`, `no shutdown`) states no value: its own command
            negated = statement.startswith("no ")
            command = statement.rsplit(" ", 1)[0] if " " in statement and not negated else statement
            earlier = parent.children.get(parent.commands.get(command, ""))
            # not at the top level: `feature bgp` does not replace `feature lldp`, nor a bare
            # `interface Ethernet1/5` (NX-OS prints every port) the bare one before it
            if (
                earlier is not None
                and parent is not root
                and not earlier.children
                and not command.startswith(repeatable)
            ):
                del parent.children[earlier.text]  # a later value of the same command wins
            parent.commands[command] = statement
            node = parent.children[statement] = Node(statement, number)
        stack.append((indent, node))
    return root


def merged_text(root: Node, indent: str = "   ") -> str:
    """The tree as config text again: repeated sections merged, comments dropped."""
    lines: list[str] = []

    def emit(node: Node, depth: int) -> None:
        for child in node:
            lines.append(indent * depth + child.text)
            emit(child, depth + 1)

    emit(root, 0)
    return "\n".join(lines) + "\n"


# Top-level statements of formats no indented CLI config has (the format they belong to).
OTHER_FORMATS = (
    (re.compile(r"nv (set|unset) .*"), "NVUE commands"),
    (re.compile(r"(set|delete|deactivate) \S.*"), "Junos or NVUE `set` commands"),
    (re.compile(r".*[{};]$"), "Junos (curly-brace)"),
    (re.compile(r"(- )?[\w.'\"-]+:( .*)?$"), "YAML (NVUE?)"),
)


def _banner_end(statement: str) -> str | None:
    """What ends a banner's free text: EOS `banner login` runs to a line `EOF`, NX-OS
    `banner motd #...#` to the line holding its delimiter again (None: it ends on its line)."""
    words = statement.split(maxsplit=2)
    if len(words) < 3:
        return "EOF"
    delimiter, rest = words[2][0], words[2][1:]
    return None if delimiter in rest else delimiter


def check_config_of(
    text: str,
    tree: Node,
    file: str,
    os_name: str,
    foreign: Iterable[tuple[re.Pattern[str], str]],
    words: re.Pattern[str],
    article: str = "an",
) -> None:
    """Bad input (exit 2) naming the line when the file is not a config of `os_name`: empty,
    JSON, a top-level statement only another OS or format writes (`foreign` pairs of
    pattern and OS, then OTHER_FORMATS), or no statement this OS's configs are made of (`words`
    matches the start of one). Banner text is free text and is skipped."""

    def refuse(line: int, why: str) -> InputError:
        message = f"this is not {article} {os_name} config: {why}"
        return InputError([Problem(file, line, 1, "", message)])

    first = text.lstrip()[:1]
    if not first:
        raise refuse(1, "the file is empty")
    if first in "{[":
        raise refuse(text[: text.index(first)].count("\n") + 1, "it is JSON (a SONiC config_db?)")
    patterns = [*foreign, *OTHER_FORMATS]
    ending = None
    for node in tree:
        if ending is not None:
            if node.text == ending if ending == "EOF" else ending in node.text:
                ending = None
            continue
        if node.text.startswith("banner "):
            ending = _banner_end(node.text)
            continue
        for pattern, other in patterns:
            if pattern.fullmatch(node.text):
                raise refuse(node.line, f"`{node.text[:40]}` is {other} syntax")
    if not any(words.match(node.text) for node in tree):
        first_node = next(iter(tree), None)
        raise refuse(first_node.line if first_node else 1, f"no {os_name} statement in it")


def not_read(file: str, line: int, os_name: str, statement: str, why: str) -> InputError:
    """Bad input at a statement of a section lossless reads that it cannot read (a form or a
    value the OS does not have): judged without it, the config would be judged for a
    switch it does not describe, so it is reported, never dropped."""
    shown = statement if len(statement) <= 80 else statement[:80] + "..."
    return InputError([Problem(file, line, 1, "", f"{os_name} statement {shown!r} {why}")])
