"""The one door configs we did not write come in by: pull-request configs, running configs,
backups. Everything that parses or diffs such a config goes through these functions.

A parser that meets a shape it does not expect fails the way Python code fails (a KeyError
on a missing table, a ValueError on `mtu abc`, hier_config's DuplicateChildError on a
repeated section, RecursionError on JSON nested a thousand deep). Here that becomes bad
input, `FILE:1:1: not a valid EOS config: <reason>` (exit 2), never a traceback. Parsers
that know better raise InputError with the real line themselves; that passes through.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from typing import Any

from hier_config.exceptions import DuplicateChildError
from jsonpatch import JsonPatchException
from jsonpointer import JsonPointerException

from lossless.errors import InputError, Problem
from lossless.plan import DevicePlan
from lossless.vendors import vendor_for
from lossless.vendors.common import read_config

OS_NAMES = {
    "sonic": "SONiC",
    "cumulus": "Cumulus NVUE",
    "eos": "EOS",
    "nxos": "NX-OS",
    "junos": "Junos",
}
# How parsers fail on data of a shape they do not expect (json.JSONDecodeError and
# UnicodeDecodeError are ValueErrors).
PARSER_ERRORS: tuple[type[BaseException], ...] = (
    ValueError,
    KeyError,
    TypeError,
    AttributeError,
    IndexError,
    RecursionError,
    DuplicateChildError,
    JsonPatchException,
    JsonPointerException,
)
MAX_REASON = 200


def _reason(error: BaseException) -> str:
    detail = str(error).splitlines()[0] if str(error).strip() else ""
    reason = f"{type(error).__name__}: {detail}" if detail else type(error).__name__
    return reason if len(reason) <= MAX_REASON else reason[:MAX_REASON] + "..."


@contextmanager
def unreadable_is_bad_input(file: str, os_name: str) -> Iterator[None]:
    """Inside this, a parser's failure on the config `file` is bad input naming it."""
    try:
        yield
    except PARSER_ERRORS as error:
        message = f"not a valid {OS_NAMES[os_name]} config: {_reason(error)}"
        # json's errors know where they are; every other one is placed at the file's start
        where = (getattr(error, "lineno", 1), getattr(error, "colno", 1))
        raise InputError([Problem(file, *where, "", message)]) from None


def parse_config(
    os_name: str, text: str, file: str, name: str, hint: DevicePlan | None = None
) -> DevicePlan:
    """Config text -> device plan (on top of the hint: facts a config cannot hold)."""
    with unreadable_is_bad_input(file, os_name):
        return vendor_for(os_name).parse(text, file, name, hint)


def parse_config_file(
    os_name: str, path: str, name: str, hint: DevicePlan | None = None
) -> DevicePlan:
    return parse_config(os_name, read_config(path), path, name, hint)


def diff_config(os_name: str, running_path: str, intended: str) -> list[Any]:
    """The changes from the running config in running_path to the intended text. A vendor's
    diff sees only texts: any problem it reports is in the running one, so it names that file."""
    running = read_config(running_path)
    try:
        with unreadable_is_bad_input(running_path, os_name):
            return vendor_for(os_name).diff(running, intended)
    except InputError as error:
        raise InputError([replace(p, file=running_path) for p in error.problems]) from None
