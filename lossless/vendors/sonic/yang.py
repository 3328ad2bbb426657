"""Validate SONiC config_db.json data against SONiC's YANG models with libyang.

config_db.json keeps every value as a string and keys as "Ethernet0|3"; libyang 2.x reads
strict RFC 7951 JSON. This module converts (docs/reference/sonic.md section 5): each table becomes
`<module>:<module>/<module>:<TABLE>/<TABLE>_LIST` entries whose key leaves come from splitting
the key on "|", map tables nest a second list, a table whose entry is a container
(DEVICE_METADATA|localhost) becomes that container, and each value is retyped by its leaf's YANG
base type (through leafrefs and unions): int8..uint32 numbers, booleans true/false,
int64/uint64 and the rest strings. libyang (Python bindings 2.7.1 on the C library 2.1) is
optional: only this module imports it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

NUMBER_TYPES = {"int8", "int16", "int32", "uint8", "uint16", "uint32"}


class SonicYangError(Exception):
    pass


class SonicYang:
    def __init__(self, yang_dir: str | Path):
        import libyang  # optional dependency, see module docstring

        self._libyang = libyang
        self.context = libyang.Context(str(yang_dir))
        for path in sorted(Path(yang_dir).glob("*.yang")):
            self.context.load_module(path.stem)
        self.tables: dict[str, tuple[str, Any]] = {}
        for module in self.context:
            for top in module.children():
                for table in getattr(top, "children", list)():
                    self.tables[table.name()] = (module.name(), table)

    # -- conversion ---------------------------------------------------------------------

    def _json_value(self, leaf: Any, text: str) -> Any:
        return _retype(leaf.type(), text)

    def _list_for(self, table: Any, key_parts: int) -> Any:
        from libyang.schema import SList

        lists = [c for c in table.children() if isinstance(c, SList)]
        for candidate in lists:
            if len(list(candidate.keys())) == key_parts:
                return candidate
        raise SonicYangError(f"{table.name()}: no list with {key_parts} key(s)")

    def _entry(self, schema_list: Any, key: str, fields: dict[str, str]) -> dict[str, Any]:
        from libyang.schema import SList

        entry: dict[str, Any] = {}
        for key_leaf, part in zip(schema_list.keys(), key.split("|"), strict=True):
            entry[key_leaf.name()] = self._json_value(key_leaf, part)
        nested = [c for c in schema_list.children() if isinstance(c, SList)]
        if nested:  # map tables and CABLE_LENGTH: {"3": "3"} -> [{dscp: "3", tc: 3}]
            inner = nested[0]
            [inner_key] = list(inner.keys())
            [value_leaf] = [c for c in inner.children() if c.name() != inner_key.name()]
            entry[inner.name()] = [
                {
                    inner_key.name(): self._json_value(inner_key, k),
                    value_leaf.name(): self._json_value(value_leaf, v),
                }
                for k, v in fields.items()
            ]
            return entry
        entry.update(self._fields(schema_list, fields))
        return entry

    def _fields(self, node: Any, fields: dict[str, Any]) -> dict[str, Any]:
        """Leaves of a list entry or container; a leaf-list's value is a JSON list."""
        leaves = {c.name(): c for c in node.children()}
        result: dict[str, Any] = {}
        for name, value in fields.items():
            if name not in leaves:
                raise SonicYangError(f"{node.name()}: no field {name!r}")
            if isinstance(value, list):
                result[name] = [self._json_value(leaves[name], v) for v in value]
            else:
                result[name] = self._json_value(leaves[name], value)
        return result

    def to_rfc7951(self, config_db: dict[str, dict[str, Any]]) -> dict[str, Any]:
        document: dict[str, Any] = {}
        for table_name, entries in config_db.items():
            if table_name not in self.tables:
                raise SonicYangError(f"no YANG model for table {table_name}")
            module, table = self.tables[table_name]
            top = document.setdefault(f"{module}:{module}", {})
            lists: dict[str, Any] = top.setdefault(f"{module}:{table_name}", {})
            containers = {c.name(): c for c in table.children() if c.keyword() == "container"}
            for key, fields in entries.items():
                if key in containers:  # DEVICE_METADATA|localhost, SWITCH_HASH|GLOBAL
                    lists[key] = self._fields(containers[key], fields)
                    continue
                schema_list = self._list_for(table, len(key.split("|")))
                lists.setdefault(schema_list.name(), []).append(
                    self._entry(schema_list, key, fields)
                )
        return document

    def validate(self, config_db: dict[str, dict[str, Any]]) -> None:
        """Raise SonicYangError with libyang's message when the data is not valid."""
        text = json.dumps(self.to_rfc7951(config_db))
        try:
            tree = self.context.parse_data_mem(text, "json", strict=True, no_state=True)
        except self._libyang.LibyangError as error:
            raise SonicYangError(str(error)) from None
        if tree is not None:
            tree.free()


def _retype(leaf_type: Any, text: str) -> Any:
    base = leaf_type.basename()
    if base == "leafref":
        return _retype(leaf_type.leafref_type(), text)
    if base == "union":
        for member in leaf_type.union_types():
            value = _retype(member, text)
            if not isinstance(value, str) or member.basename() not in NUMBER_TYPES:
                return value
        return text
    if base in NUMBER_TYPES:
        try:
            return int(text)
        except ValueError:
            return text
    if base == "boolean":
        return {"true": True, "false": False}.get(text, text)
    return text
