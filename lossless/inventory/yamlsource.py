"""Read a YAML file into plain JSON-like data plus the line/column of every node.

Safe by construction: nodes are composed by ruamel.yaml and turned into dict/list/scalars
here, so no tag can build a Python object. Everything that can go wrong with a file is a
Problem with a location: a file that is not a regular file or is too large, bad UTF-8, YAML
syntax, duplicate keys, an empty or non-mapping document, aliases that expand without bound
("billion laughs") or refer to themselves, and tags: only the plain YAML types are allowed
(`!custom`, `!!python/...`, `!!set`, `!!binary` are refused), and a value that does not fit
its explicit tag (`!!int abc`) is a problem, not a crash.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.composer import Composer
from ruamel.yaml.error import MarkedYAMLError, YAMLError
from ruamel.yaml.events import AliasEvent
from ruamel.yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from lossless.errors import InputError, Problem
from lossless.system.files import read_text

# Nodes the document may have once every alias is expanded. A real inventory with
# anchors stays far below; a billion-laughs file passes it after a few aliases.
MAX_EXPANDED_NODES = 2_000_000
MAX_DEPTH = 100

PathKey = tuple[str | int, ...]
JSON_SCALARS = (str, int, float, bool, type(None))
_CORE = "tag:yaml.org,2002:"
SCALAR_TAGS = {_CORE + name for name in ("str", "int", "float", "bool", "null", "timestamp")}
MAPPING_TAG, SEQUENCE_TAG = _CORE + "map", _CORE + "seq"


@dataclass
class Document:
    """YAML data with where each node was written (1-based line and column)."""

    file: str
    data: Any
    marks: dict[PathKey, tuple[int, int]] = field(default_factory=dict)
    key_marks: dict[PathKey, tuple[int, int]] = field(default_factory=dict)

    def mark(self, path: PathKey, *, key: bool = False) -> tuple[int, int]:
        """Location of the node at path (its key when key=True), else the nearest parent."""
        probe = tuple(path)
        while True:
            table = self.key_marks if key and probe in self.key_marks else self.marks
            if probe in table:
                return table[probe]
            if not probe:
                return (1, 1)
            probe = probe[:-1]

    def problem(self, path: PathKey, message: str, *, key: bool = False) -> Problem:
        line, column = self.mark(path, key=key)
        return Problem(self.file, line, column, dotted(path), message)


def dotted(path: PathKey) -> str:
    text = ""
    for part in path:
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            text += ("." if text else "") + str(part)
    return text


class _AliasLimitReached(Exception):
    def __init__(self, message: str, mark: Any):
        super().__init__(message)
        self.mark = mark


def _expanded_size(node: Node, memo: dict[int, int], active: set[int]) -> int:
    """Number of nodes under node with every alias expanded (memoised; cycles raise)."""
    key = id(node)
    if key in memo:
        return memo[key]
    if key in active:
        raise RecursionError("recursive alias")
    active.add(key)
    size = 1
    if isinstance(node, SequenceNode):
        size += sum(_expanded_size(child, memo, active) for child in node.value)
    elif isinstance(node, MappingNode):
        for key_node, value_node in node.value:
            size += _expanded_size(key_node, memo, active) + _expanded_size(
                value_node, memo, active
            )
    active.discard(key)
    memo[key] = size
    return size


class _GuardedComposer(Composer):
    """Composer that bounds nesting depth and the expansion of aliases as it reads them."""

    def __init__(self, loader: Any = None) -> None:
        super().__init__(loader)
        self._depth = 0
        self._expanded = 0
        self._sizes: dict[int, int] = {}
        self._open_anchors: list[str | None] = []

    def compose_node(self, parent: Any, index: Any) -> Any:
        event = self.parser.peek_event()
        if isinstance(event, AliasEvent):
            if event.anchor in self._open_anchors:
                raise _AliasLimitReached(
                    f"alias *{event.anchor} refers to the node that contains it", event.start_mark
                )
            node = super().compose_node(parent, index)
            try:
                self._expanded += _expanded_size(node, self._sizes, set())
            except RecursionError:
                raise _AliasLimitReached(
                    f"alias *{event.anchor} refers to the node that contains it", event.start_mark
                ) from None
            if self._expanded > MAX_EXPANDED_NODES:
                raise _AliasLimitReached(
                    f"aliases expand this document to more than {MAX_EXPANDED_NODES:,} nodes "
                    f"(stopped at alias *{event.anchor}); write the data out or use profiles",
                    event.start_mark,
                )
            return node
        self._depth += 1
        if self._depth > MAX_DEPTH:
            raise _AliasLimitReached(f"nesting deeper than {MAX_DEPTH} levels", event.start_mark)
        self._expanded += 1
        self._open_anchors.append(getattr(event, "anchor", None))
        try:
            return super().compose_node(parent, index)
        finally:
            self._open_anchors.pop()
            self._depth -= 1


def _allowed_tags(node: Node) -> set[str]:
    if isinstance(node, MappingNode):
        return {MAPPING_TAG}
    if isinstance(node, SequenceNode):
        return {SEQUENCE_TAG}
    return SCALAR_TAGS


def _tag_name(node: Node) -> str:
    return str(node.tag).replace(_CORE, "!!")


def _mark(mark: Any) -> tuple[int, int]:
    return (mark.line + 1, mark.column + 1)


class _Builder:
    """Turns composed nodes into dicts, lists and scalars, recording marks."""

    def __init__(self, document: Document, yaml: YAML, *, text_scalars: bool = False):
        self.document = document
        self.constructor = yaml.constructor
        self.text_scalars = text_scalars
        self.problems: list[Problem] = []

    def build(self, node: Node, path: PathKey) -> Any:
        self.document.marks.setdefault(path, _mark(node.start_mark))
        if str(node.tag) not in _allowed_tags(node):
            self.problems.append(
                self.document.problem(
                    path, f"YAML tag {_tag_name(node)} is not allowed here (plain values only)"
                )
            )
            return None
        if isinstance(node, MappingNode):
            return self._mapping(node, path)
        if isinstance(node, SequenceNode):
            return [self.build(child, (*path, i)) for i, child in enumerate(node.value)]
        assert isinstance(node, ScalarNode)
        return node.value if self.text_scalars else self._scalar(node, path)

    def _scalar(self, node: ScalarNode, path: PathKey) -> Any:
        try:
            value = self.constructor.construct_object(node, deep=True)
        except (ValueError, KeyError, TypeError, YAMLError):
            shown = node.value if len(node.value) <= 40 else node.value[:40] + "..."
            self.problems.append(
                self.document.problem(path, f"{shown!r} is not a valid {_tag_name(node)}")
            )
            return node.value
        if isinstance(value, float) and not math.isfinite(value):
            self.problems.append(self.document.problem(path, f"{node.value!r} is not a number"))
            return node.value
        if not isinstance(value, JSON_SCALARS):
            return node.value  # timestamps: keep the text the user wrote
        return value

    def _mapping(self, node: MappingNode, path: PathKey) -> dict[str, Any]:
        result: dict[str, Any] = {}
        first_seen: dict[str, int] = {}
        merged: dict[str, Any] = {}
        for key_node, value_node in node.value:
            if not isinstance(key_node, ScalarNode):
                self.problems.append(
                    Problem(
                        self.document.file,
                        *_mark(key_node.start_mark),
                        dotted(path),
                        "a key must be a plain name, not a list or mapping",
                    )
                )
                continue
            key = key_node.value
            if key == "<<" and key_node.tag == "tag:yaml.org,2002:merge":
                merged.update(self._merge_sources(value_node, path))
                continue
            child = (*path, key)
            line, column = _mark(key_node.start_mark)
            if key in first_seen:
                self.problems.append(
                    Problem(
                        self.document.file,
                        line,
                        column,
                        dotted(child),
                        f"duplicate key {key!r} (first written on line {first_seen[key]})",
                    )
                )
                continue
            first_seen[key] = line
            self.document.key_marks[child] = (line, column)
            result[key] = self.build(value_node, child)
        for key, value in merged.items():
            result.setdefault(key, value)
        return result

    def _merge_sources(self, node: Node, path: PathKey) -> dict[str, Any]:
        sources = node.value if isinstance(node, SequenceNode) else [node]
        merged: dict[str, Any] = {}
        for source in reversed(sources):  # earlier sources win, as YAML merge keys say
            if not isinstance(source, MappingNode):
                self.problems.append(
                    self.document.problem(
                        path, "a merge key (<<) takes a mapping or a list of them"
                    )
                )
                continue
            merged.update(self._mapping(source, path))
        return merged


def load_yaml(path: str | Path, *, text_scalars: bool = False) -> Document:
    """Load one YAML file (a regular file, size-capped); raise InputError listing every
    problem found."""
    return parse_yaml_text(read_text(path, "file"), str(path), text_scalars=text_scalars)


def parse_yaml_text(
    text: str, file: str, *, top: type[Node] = MappingNode, text_scalars: bool = False
) -> Document:
    """Parse YAML text; `top` is the node kind the document must be (a mapping by default,
    SequenceNode for NVUE's list of operations). With text_scalars every scalar is kept as
    the text written (`0123` stays `0123`): for secrets, which must not become numbers."""
    yaml = YAML(typ="safe", pure=True)
    yaml.Composer = _GuardedComposer
    try:
        root = yaml.compose(text)
    except _AliasLimitReached as error:
        raise InputError([Problem(file, *_mark(error.mark), "", str(error))]) from None
    except MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        where = _mark(mark) if mark is not None else (1, 1)
        message = " ".join(part for part in (error.context, error.problem) if part)
        raise InputError([Problem(file, *where, "", f"YAML syntax: {message}")]) from None
    except (YAMLError, RecursionError) as error:
        raise InputError([Problem(file, 1, 1, "", f"YAML: {error}")]) from None
    if root is None:
        raise InputError([Problem(file, 1, 1, "", "file is empty: expected a mapping")])
    if not isinstance(root, top):
        kind = {MappingNode: "a mapping", SequenceNode: "a list"}.get(type(root), "a single value")
        wanted = "a mapping" if top is MappingNode else "a list"
        raise InputError(
            [
                Problem(
                    file, *_mark(root.start_mark), "", f"expected {wanted} at the top, not {kind}"
                )
            ]
        )
    document = Document(file=file, data=None)
    builder = _Builder(document, yaml, text_scalars=text_scalars)
    document.data = builder.build(root, ())
    if builder.problems:
        raise InputError(builder.problems)
    return document
