"""Test shim of swsscommon.swsscommon: STATE_DB as a dict the test fills.

field_operation_validators reads STATE_DB `PORT_TABLE|<port>` supported_speeds and
supported_fecs through DBConnector + Table.hget; STATE_DB[(table, key)][field] answers it
("" when absent, as an unset redis field reads)."""

from __future__ import annotations

STATE_DB: dict[tuple[str, str], dict[str, str]] = {}


class DBConnector:
    def __init__(self, *_args, **_kwargs):
        pass


class Table:
    def __init__(self, _db, table):
        self.table = table

    def hget(self, key, field):
        value = STATE_DB.get((self.table, key), {}).get(field)
        return (value is not None, value or "")
