"""A Junos configuration, brace or `set` format, as the active statements it holds, each with
the line and column that states it.

Junos prints a configuration two ways (Junos CLI User Guide, "Display the configuration in
set format"): the hierarchy of `name { ... }` blocks and `leaf value;` statements that `show
configuration` prints, and the flat `set ...` commands of `show configuration | display set`.
Both become the same flat statements here (`class-of-service schedulers S1 priority
strict-high`), so the parser reads one shape. What is not active is left out:

* `inactive:` statements and blocks (brace format) and `deactivate` commands (set format);
* `delete` commands remove what they name (set format), `activate` undoes `deactivate`;
* `groups` (configuration groups are templates: only what `apply-groups` pulls in applies,
  and that is what `show configuration | display inheritance` prints);
* comments (`#`, `/* */` annotations) and the `replace:` / `protect:` tags a load file may carry.

A section that appears twice (a running config can repeat `interfaces et-0/0/0 { }`) simply
contributes its statements twice; the reader merges them. hier_config is not used for this:
its Junos tree keeps no line numbers, keeps only the first of two repeated blocks and drops
`inactive:` blocks whole (tried with hier_config 3.7.1).

Text that is neither shape is not a Junos config, and says so (exit 2 with the line).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from lossless.errors import InputError, Problem

_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|/\*|\*/|[{};\[\]]|#.*|[^\s{};\[\]"#]+(?:#[^\s{};]*)*')
SET_COMMANDS = ("set", "deactivate", "activate", "delete")
_TAGS = ("replace:", "protect:", "unprotect:")
MAX_DEPTH = 64  # deeper nesting than any Junos hierarchy: hostile or broken input


@dataclass(frozen=True)
class Statement:
    words: tuple[str, ...]
    line: int
    column: int

    @property
    def text(self) -> str:
        return " ".join(self.words)

    def where(self, file: str) -> str:
        return f"{file}:{self.line}:{self.column}"


@dataclass
class Config:
    """The active statements of a Junos config, in file order, and the line at which each
    block (path prefix) first appears."""

    statements: list[Statement]
    blocks: dict[tuple[str, ...], tuple[int, int]]

    def block_line(self, *path: str) -> tuple[int, int] | None:
        return self.blocks.get(tuple(path))


_CLI = re.compile(r"^(interface|hostname|feature|policy-map|class-map|qos|!)(\s|$)", re.M)


def _not_junos(file: str, line: int, column: int, text: str, config: str) -> InputError:
    stripped = text.strip()
    if stripped.startswith(("{", "[")):
        guess = " (it looks like JSON, e.g. a SONiC config_db.json)"
    elif stripped.startswith(("nv set", "nv unset")) or re.match(r"-?\s*\w[\w-]*:(\s|$)", stripped):
        guess = " (it looks like NVIDIA NVUE)"
    elif _CLI.search(config):
        guess = " (it looks like an EOS or NX-OS running-config)"
    else:
        guess = ""
    return InputError(
        [
            Problem(
                file,
                line,
                column,
                "",
                f"this is not a Junos config{guess}: `{stripped[:60]}` is neither a `set` "
                "command nor a statement ending in `;`, `{` or `}`",
            )
        ]
    )


def _tokens(text: str, file: str) -> Iterable[tuple[str, int, int, str]]:
    """(token, line, column, the whole line) for every token outside comments."""
    in_comment = False
    for number, line in enumerate(text.splitlines(), start=1):
        for match in _TOKEN.finditer(line):
            token = match.group()
            if in_comment:
                in_comment = token != "*/"
                continue
            if token == "/*":
                in_comment = True
            elif not token.startswith("#"):
                yield token, number, match.start() + 1, line
    if in_comment:
        raise InputError([Problem(file, 1, 1, "", "an annotation `/*` is never closed")])


def read(text: str, file: str) -> Config:
    """The active statements of a Junos config, brace or set format (or both)."""
    statements: list[Statement] = []
    blocks: dict[tuple[str, ...], tuple[int, int]] = {}
    removed: list[tuple[str, tuple[str, ...], int]] = []  # (command, prefix, order)
    stack: list[tuple[tuple[str, ...], bool]] = []  # (block path, inactive)
    words: list[str] = []
    start = (0, 0)
    line_of_words = ""
    set_line: int | None = None  # line of a `set` command being read
    for token, line, column, whole in _tokens(text, file):
        if set_line is not None and line != set_line:
            _set_command(words, start, statements, removed, file)
            words, set_line = [], None
        if not words:
            start, line_of_words = (line, column), whole
            if not stack and token in SET_COMMANDS:
                set_line = line
        if set_line is not None:
            if token in "{};":
                raise _not_junos(file, line, column, whole, text)
            words.append(token)
            continue
        if token == "{":
            if not words:
                raise _not_junos(file, line, column, whole, text)
            path, inactive = _path(stack, words)
            if len(stack) >= MAX_DEPTH:
                raise InputError([Problem(file, line, column, "", "blocks nested too deep")])
            stack.append((path, inactive))
            if not inactive:
                blocks.setdefault(path, start)
            words = []
        elif token == ";":
            if words:
                path, inactive = _path(stack, words)
                if not inactive:
                    statements.append(Statement(path, *start))
                words = []
        elif token == "}":
            if words:
                raise _not_junos(file, *start, line_of_words, text)
            if not stack:
                raise InputError([Problem(file, line, column, "", "`}` closes no block")])
            stack.pop()
        else:
            tags_only = all(w in _TAGS or w in ("inactive:", "delete:") for w in words)
            if words and line != start[0] and "[" not in words and not tags_only:
                # a statement runs on only inside a [ list ]; anything else is not Junos
                raise _not_junos(file, *start, line_of_words, text)
            words.append(token)
    if set_line is not None:
        _set_command(words, start, statements, removed, file)
    elif words:
        raise _not_junos(file, *start, line_of_words, text)
    if stack:
        line, column = blocks.get(stack[0][0], (1, 1))
        raise InputError([Problem(file, line, column, "", "a block `{` is never closed")])
    if not statements and not removed:
        raise InputError([Problem(file, 1, 1, "", "this is not a Junos config: no statements")])
    active = _apply(statements, removed)
    for statement in active:  # set format has no blocks: a block is where its first line is
        for k in range(1, min(len(statement.words), 4) + 1):
            blocks.setdefault(statement.words[:k], (statement.line, statement.column))
    return Config(active, blocks)


def _path(stack: list[tuple[tuple[str, ...], bool]], words: list[str]) -> tuple[tuple, bool]:
    parent, inactive = stack[-1] if stack else ((), False)
    tags = 0
    while tags < len(words) and (words[tags] in _TAGS or words[tags] in ("inactive:", "delete:")):
        inactive = inactive or words[tags] in ("inactive:", "delete:")
        tags += 1
    path = parent + tuple(words[tags:])
    if path and path[0] == "groups":
        inactive = True  # templates: only `apply-groups` makes them config
    return path, inactive


def _set_command(
    words: list[str],
    start: tuple[int, int],
    statements: list[Statement],
    removed: list[tuple[str, tuple[str, ...], int]],
    file: str,
) -> None:
    command, path = words[0], tuple(words[1:])
    if not path:
        line, column = start
        raise InputError([Problem(file, line, column, "", f"`{command}` names no statement")])
    if path[0] == "groups":
        return
    if command == "set":
        statements.append(Statement(path, *start))
    else:
        removed.append((command, path, len(statements)))


def _apply(statements: list[Statement], removed: list) -> list[Statement]:
    """Statements left active after `delete`, `deactivate` and `activate` commands: a `delete`
    removes what came before it; a `deactivate` holds until an `activate` of the same path."""
    if not removed:
        return statements
    deleted: dict[tuple[str, ...], int] = {}  # prefix -> statements before its last delete
    inactive: set[tuple[str, ...]] = set()
    for command, prefix, order in removed:
        if command == "delete":
            deleted[prefix] = order
        elif command == "deactivate":
            inactive.add(prefix)
        else:
            inactive.discard(prefix)

    def active(index: int, words: tuple[str, ...]) -> bool:
        for k in range(1, len(words) + 1):
            prefix = words[:k]
            if prefix in inactive or index < deleted.get(prefix, -1):
                return False
        return True

    return [s for i, s in enumerate(statements) if active(i, s.words)]


def values(words: tuple[str, ...], start: int) -> list[str]:
    """The value or `[ list ]` of values at words[start:]."""
    if start >= len(words):
        return []
    if words[start] == "[":
        return [w for w in words[start + 1 :] if w != "]"]
    return [words[start]]
