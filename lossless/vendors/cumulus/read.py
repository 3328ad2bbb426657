"""Read NVUE configuration, in either form a switch, a backup or a runbook has it, into one tree.

* YAML, as `nv config show -o yaml` prints it and `nv config patch` takes it: a list of
  operations (`- header:`, `- set:`, `- unset:`) applied in order; a full startup.yaml with
  unrelated sections (router, system, vrf) reads the same way.
* `nv set` / `nv unset` command lists, one command per line, as `nv config show -o commands`,
  `nv config diff -o commands`, runbooks and pull requests have them: shell words and quotes,
  `#` comments, shell prompts (`cumulus@leaf01:mgmt:~$ nv set ...`), lists and ranges of ids
  (`swp1-4,swp6`, `swp2s0-1`, `traffic-class 0,3`, `dscp 24-31`), applied in order; other
  `nv` verbs (`show`, `action`) are skipped. Only what is applied counts: when the list runs
  `nv config apply`, commands after the last one are pending, not in effect.

Both become the tree of values NVUE would hold after the operations (nested mappings; the
members of a collection are keys, an id-only member an empty mapping, as in the YAML), with
the line and column that last set or unset each path, so findings point at the YAML key or
the command that stated a value. A file that is neither is not an NVUE config (exit 2).
YAML goes through the inventory's guarded loader (no tags, bounded aliases and nesting).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from ruamel.yaml.nodes import Node

from lossless.errors import InputError, Problem
from lossless.inventory.yamlsource import parse_yaml_text

Path = tuple[str, ...]

NOT_NVUE = (
    "this is not an NVUE config: expected `nv set`/`nv unset` commands or the YAML of "
    "`nv config show -o yaml` (a list of `- set:` operations)"
)
# Ids a command can list or range (`swp1-4,swp6`, `dscp 24-31`) expand to at most this many
# paths, so a hostile range cannot make the reader do unbounded work.
MAX_EXPANSION = 4096
MAX_CONTINUATION_LINES = 1000
# Words whose next word is a member id of a collection (lists and ranges allowed there).
COLLECTIONS = {"interface", "dscp", "pcp", "traffic-class", "switch-priority"}
# Objects NVUE lets you set bare, with no value (`nv set qos roce`,
# `nv set interface swp1 qos pfc-watchdog`): their word ends a command without being a value.
BARE_OBJECTS = {"roce", "pfc-watchdog"}
_PROMPT = re.compile(r"[\w.-]+@[\w.:~/-]*[$#]\s*")
_NUMBERS = re.compile(r"\d+(?:-\d+)?(?:,\d+(?:-\d+)?)*")
_NAME = re.compile(
    r"(?P<stem>[A-Za-z][A-Za-z_]*)?(?P<first>\d+)(?:s(?P<sub>\d+))?"
    r"(?:-(?P<stem2>[A-Za-z][A-Za-z_]*)?(?P<last>\d+)(?:s(?P<lastsub>\d+))?)?"
)


@dataclass
class NvueConfig:
    """The NVUE values a file states, and where it stated each path (line, column)."""

    file: str
    tree: dict[str, Any] = field(default_factory=dict)
    marks: dict[Path, tuple[int, int]] = field(default_factory=dict)
    commands: bool = False  # read from `nv set` commands (else YAML)
    # The switch model a startup.yaml's `- header:` names (`model: SN5600`), and where
    header_model: tuple[str, str] | None = None

    def where(self, path: Sequence[str]) -> str:
        """FILE:LINE:COL of the statement of path, else of its nearest stated parent."""
        probe = tuple(path)
        while probe and probe not in self.marks:
            probe = probe[:-1]
        line, column = self.marks.get(probe, (1, 1))
        return f"{self.file}:{line}:{column}"

    def error(self, path: Sequence[str], message: str) -> InputError:
        probe = tuple(path)
        while probe and probe not in self.marks:
            probe = probe[:-1]
        line, column = self.marks.get(probe, (1, 1))
        return InputError([Problem(self.file, line, column, ".".join(path), message)])

    # -- typed access: a value of the wrong shape is bad input at its line -------------------

    def node(self, path: Sequence[str]) -> Any:
        node: Any = self.tree
        for depth, key in enumerate(path):
            if node is None:
                return None
            if not isinstance(node, dict):
                raise self.error(path[:depth], f"expected a mapping, not {_kind(node)}")
            node = node.get(key)
        return node

    def mapping(self, path: Sequence[str]) -> dict[str, Any]:
        node = self.node(path)
        if node is None:
            return {}
        if not isinstance(node, dict):
            raise self.error(path, f"expected a mapping, not {_kind(node)}")
        return node

    def text(self, path: Sequence[str]) -> str | None:
        node = self.node(path)
        if node is None:
            return None
        if isinstance(node, dict | list):
            raise self.error(path, f"expected a value, not {_kind(node)}")
        if isinstance(node, bool):  # YAML 1.1 style true/false in a hand-written file
            return "on" if node else "off"
        return str(node)

    def integer(self, path: Sequence[str], low: int, high: int) -> int | None:
        text = self.text(path)
        if text is None:
            return None
        if not text.isdigit() or not low <= int(text) <= high:
            raise self.error(path, f"{text!r} is not a number from {low} to {high}")
        return int(text)

    def choice(self, path: Sequence[str], options: Sequence[str]) -> str | None:
        text = self.text(path)
        if text is not None and text not in options:
            raise self.error(path, f"{text!r} is not one of {', '.join(options)}")
        return text

    def ids(self, path: Sequence[str], low: int, high: int) -> list[int] | None:
        """A collection of numbers: its keys (YAML, `nv set`), or a list value (`3,5`)."""
        node = self.node(path)
        if node is None:
            return None
        words = list(node) if isinstance(node, dict) else None
        if words is None:
            if isinstance(node, list | bool):
                raise self.error(path, f"expected a mapping of numbers, not {_kind(node)}")
            words = _numbers(str(node)) if _NUMBERS.fullmatch(str(node)) else [str(node)]
        for word in words:
            if not str(word).isdigit() or not low <= int(word) <= high:
                raise self.error((*path, str(word)), f"{word!r} is not a number {low}-{high}")
        return sorted({int(word) for word in words})

    def entries(self, path: Sequence[str], low: int, high: int) -> dict[int, Path]:
        """Members of a collection keyed by number (`dscp`, `traffic-class`): number -> path."""
        members: dict[int, Path] = {}
        for key in self.mapping(path):
            if not str(key).isdigit() or not low <= int(key) <= high:
                raise self.error((*path, key), f"{key!r} is not a number {low}-{high}")
            members[int(key)] = (*path, key)
        return members


def _kind(node: Any) -> str:
    if isinstance(node, dict):
        return "a mapping"
    if isinstance(node, list):
        return "a list"
    return "an empty value" if node is None else f"the value {node!r}"


def read_nvue(text: str, file: str) -> NvueConfig:
    """The NVUE values of a YAML document or a command list; anything else is bad input."""
    text = text.removeprefix("\ufeff")  # a byte-order mark from a Windows editor
    first = _first_statement(text)
    if first is None:
        raise InputError([Problem(file, 1, 1, "", f"{NOT_NVUE}; the file is empty")])
    number, line = first
    if line.startswith("-") or line.startswith("---"):
        return _from_yaml(text, file)
    prompt = _PROMPT.match(line)
    command = line[prompt.end() :] if prompt else line
    if command.split(None, 1)[:1] == ["nv"]:
        return _from_commands(text, file)
    raise InputError([Problem(file, number, 1, "", f"{NOT_NVUE}; {_guess(line)}")])


def _first_statement(text: str) -> tuple[int, str] | None:
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if stripped and not stripped.startswith("#"):
            return number, stripped
    return None


def _guess(line: str) -> str:
    """What the file looks like instead, for the message."""
    if line.startswith(("{", "[")):
        return "this looks like JSON (a SONiC config_db.json?)"
    if line.startswith("set ") or line.endswith("{"):
        return "this looks like a Junos configuration"
    if line.startswith("!") or re.match(r"(hostname|interface|version|feature) ", line):
        return "this looks like a CLI configuration (EOS or NX-OS?)"
    return f"the first statement is {line[:60]!r}"


# -- YAML ------------------------------------------------------------------------------------


def _from_yaml(text: str, file: str) -> NvueConfig:
    document = parse_yaml_text(text, file, top=Node)
    if not isinstance(document.data, list):
        raise InputError([document.problem((), NOT_NVUE)])
    config = NvueConfig(file)
    for index, operation in enumerate(document.data):
        if not (isinstance(operation, dict) and len(operation) == 1):
            raise InputError([document.problem((index,), NOT_NVUE)])
        ((verb, body),) = operation.items()
        if verb not in ("header", "set", "unset"):
            message = f"{NOT_NVUE}; unknown operation {verb!r}"
            raise InputError([document.problem((index, verb), message, key=True)])
        if verb == "header":
            model = body.get("model") if isinstance(body, dict) else None
            if isinstance(model, str) and config.header_model is None:
                line, column = document.key_marks.get((index, "header", "model"), (1, 1))
                config.header_model = (model, f"{file}:{line}:{column}")
            continue
        if body is None:
            continue
        if not isinstance(body, dict):
            raise InputError([document.problem((index, verb), f"`{verb}` takes a mapping")])
        if verb == "set":
            _merge(config.tree, body)
        else:
            _remove(config.tree, body)
    for path, mark in document.key_marks.items():  # document order = operation order
        if len(path) > 2 and path[1] in ("set", "unset"):
            config.marks[tuple(str(key) for key in path[2:])] = mark
    return config


def _merge(into: dict[str, Any], values: dict[str, Any]) -> None:
    """`set`: values win; an empty mapping creates an object and keeps what it holds."""
    for key, value in values.items():
        current = into.get(key)
        if isinstance(value, dict) and isinstance(current, dict):
            _merge(current, value)
        else:
            into[key] = value


def _remove(tree: dict[str, Any], values: dict[str, Any]) -> None:
    """`unset`: a key with an empty value removes that node; a mapping goes deeper."""
    for key, value in values.items():
        if key not in tree:
            continue
        if isinstance(value, dict) and value and isinstance(tree[key], dict):
            _remove(tree[key], value)
        else:
            del tree[key]


# -- nv set / nv unset command lists -----------------------------------------------------------


def _from_commands(text: str, file: str) -> NvueConfig:
    """Commands up to the last `nv config apply` when the list has one: what comes after it
    is pending on the switch, not applied (a runbook that forgot the final apply)."""
    config = NvueConfig(file, commands=True)
    commands = list(_commands(text, file))
    applies = [i for i, (_, _, words) in enumerate(commands) if words[1:3] == ["config", "apply"]]
    for number, column, words in commands[: applies[-1]] if applies else commands:
        where = (number, column)
        if words[1] not in ("set", "unset"):
            continue  # nv config apply, nv show, nv action: nothing to read
        if len(words) < 3:
            raise InputError([Problem(file, number, column, "", f"`nv {words[1]}` of nothing")])
        paths, value = _expand(words[2:], file, where, unset=words[1] == "unset")
        for path in paths:
            if words[1] == "set":
                _set(config, path, value, where)
            else:
                _unset(config.tree, path)
                config.marks[path] = where
    return config


def _commands(text: str, file: str) -> Iterator[tuple[int, int, list[str]]]:
    """(line, column, shell words) of each command; a quoted value may span lines and a line
    ending in a backslash continues on the next."""
    lines = text.splitlines()
    index = 0
    while index < len(lines):
        number, logical = index + 1, lines[index]
        index += 1
        while True:
            words, complete = _shell_words(logical)
            if complete or index >= len(lines) or index - number > MAX_CONTINUATION_LINES:
                break
            logical = (
                f"{logical[:-1]}{lines[index]}"
                if logical.endswith("\\")
                else (f"{logical}\n{lines[index]}")
            )
            index += 1
        if not complete:
            raise InputError([Problem(file, number, 1, "", "a quote is never closed")])
        if not words:
            continue
        stripped = logical.lstrip()
        prompt = _PROMPT.match(stripped)
        if prompt and words[0] != "nv":
            words = _shell_words(stripped[prompt.end() :])[0]
        column = len(logical) - len(stripped) + (prompt.end() if prompt else 0) + 1
        if not words or words[0] != "nv":
            raise InputError(
                [Problem(file, number, column, "", f"not an `nv` command: {stripped[:60]!r}")]
            )
        if len(words) < 2:
            raise InputError([Problem(file, number, column, "", "`nv` without a command")])
        yield number, column, words


def _shell_words(line: str) -> tuple[list[str], bool]:
    """Words of one shell line as bash splits them (quotes, backslashes, `#` at the start of
    a word begins a comment); complete is False while a quote or a trailing backslash is open."""
    words: list[str] = []
    word: list[str] | None = None
    quote = ""
    position = 0
    while position < len(line):
        char = line[position]
        position += 1
        if quote:
            if char == quote:
                quote = ""
            elif char == "\\" and quote == '"' and position < len(line):
                word_char = line[position]
                position += 1
                assert word is not None
                word.append(word_char if word_char in '"\\$`' else "\\" + word_char)
            else:
                assert word is not None
                word.append(char)
            continue
        if char.isspace():
            if word is not None:
                words.append("".join(word))
                word = None
            continue
        if char == "#" and word is None:
            break
        if word is None:
            word = []
        if char in "'\"":
            quote = char
        elif char == "\\":
            if position >= len(line):
                return words, False
            word.append(line[position])
            position += 1
        else:
            word.append(char)
    if quote:
        return words, False
    if word is not None:
        words.append("".join(word))
    return words, True


def _expand(
    words: list[str], file: str, where: tuple[int, int], unset: bool = False
) -> tuple[list[Path], str | None]:
    """The paths a command names (lists and ranges of ids expanded) and the value it sets
    (`nv unset` names only a path: its last word is what it removes)."""
    *head, last = words
    value = None
    if not unset and _is_value(head, last):
        value, words = last, head
    paths: list[Path] = [()]
    for position, word in enumerate(words):
        options = [word]
        if position and words[position - 1] in COLLECTIONS:
            options = _names(word) if words[position - 1] == "interface" else _numbers(word)
        paths = [(*path, option) for path in paths for option in options]
        if len(paths) > MAX_EXPANSION:
            raise InputError(
                [Problem(file, *where, "", f"the command names more than {MAX_EXPANSION} objects")]
            )
    return paths, value


def _is_value(head: list[str], last: str) -> bool:
    """Whether a command's last word is the value of the path before it, not an object or a
    member id of a collection (interface names, PFC switch priorities, addresses)."""
    if not head or last in BARE_OBJECTS or head == ["interface"]:
        return False
    if head[-1] == "switch-priority" and head[:2] in (["qos", "pfc"], ["qos", "traffic-pool"]):
        return False
    return not (head[-1] == "address" and len(head) > 1 and head[-2] in ("ip", "ipv4", "ipv6"))


def _set(config: NvueConfig, path: Path, value: str | None, where: tuple[int, int]) -> None:
    node = config.tree
    for depth, key in enumerate(path[:-1]):
        config.marks.setdefault(path[: depth + 1], where)
        child = node.get(key)
        if not isinstance(child, dict):
            child = node[key] = {}
        node = child
    if value is not None:
        node[path[-1]] = value
    elif not isinstance(node.get(path[-1]), dict):
        node[path[-1]] = {}
    config.marks[path] = where


def _unset(tree: dict[str, Any], path: Path) -> None:
    node: Any = tree
    for key in path[:-1]:
        node = node.get(key) if isinstance(node, dict) else None
    if isinstance(node, dict):
        node.pop(path[-1], None)


def _range(first: int, last: int, word: str) -> range:
    if last < first or last - first >= MAX_EXPANSION:
        raise ValueError(word)
    return range(first, last + 1)


def _numbers(word: str) -> list[str]:
    """`0,3` -> 0, 3; `24-27` -> 24..27; anything else as written (checked where it is read)."""
    if not _NUMBERS.fullmatch(word):
        return [word]
    numbers: list[str] = []
    for part in word.split(","):
        first, _, last = part.partition("-")
        try:
            numbers += [str(n) for n in _range(int(first), int(last or first), word)]
        except ValueError:
            return [word]
    return numbers


def _names(word: str) -> list[str]:
    """Interface lists and ranges as NVUE reads them: `swp1-4,swp6`, `swp2-5,10-25` (the
    stem carries over), `swp6s0-1` (subports), `swp1s0-swp1s3`; other names as written."""
    if "," not in word and "-" not in word:
        return [word]
    names: list[str] = []
    stem = ""
    for part in word.split(","):
        match = _NAME.fullmatch(part)
        if not match or not (match["stem"] or stem):
            names.append(part)
            continue
        stem = match["stem"] or stem
        first, sub, last = int(match["first"]), match["sub"], match["last"]
        try:
            if last is None:
                names.append(f"{stem}{first}" + (f"s{sub}" if sub is not None else ""))
            elif sub is not None:  # swp6s0-1, swp6s0-swp6s3: subports of one port
                end = match["lastsub"] if match["lastsub"] is not None else last
                names += [f"{stem}{first}s{n}" for n in _range(int(sub), int(end), part)]
            else:
                names += [f"{stem}{n}" for n in _range(first, int(last), part)]
        except ValueError:
            names.append(part)
    return names
