"""The one door configs we did not write come in by: pull-request configs, running configs,
backups. Everything that parses or diffs such a config goes through these functions.

A parser that meets a shape it does not expect fails the way Python code fails (a KeyError
on a missing table, a ValueError on `mtu abc`, hier_config's DuplicateChildError on a
repeated section, RecursionError on JSON nested a thousand deep). Here that becomes bad
input, `FILE:1:1: not a valid EOS config: <reason>` (exit 2), never a traceback. Parsers
that know better raise InputError with the real line themselves; that passes through.
"""

from __future__ import annotations

import dataclasses
import math
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from typing import Any

from jsonpatch import JsonPatchException
from jsonpointer import JsonPointerException

from lossless.errors import InputError, Problem
from lossless.plan import DevicePlan
from lossless.system.files import read_config
from lossless.vendors.registry import vendor_for

# How parsers fail on data of a shape they do not expect (json.JSONDecodeError and
# UnicodeDecodeError are ValueErrors).
PARSER_ERRORS: tuple[type[BaseException], ...] = (
    ValueError,
    KeyError,
    TypeError,
    AttributeError,
    IndexError,
    RecursionError,
    JsonPatchException,
    JsonPointerException,
)
MAX_REASON = 200
# Larger than any buffer in bytes, rate in Mb/s or time in ms a config holds (1 TiB).
MAX_CONFIG_NUMBER = 2**40


def _reason(error: BaseException) -> str:
    detail = str(error).splitlines()[0] if str(error).strip() else ""
    kind = type(error).__name__
    reason = detail if type(error) is ValueError and detail else f"{kind}: {detail}".rstrip(": ")
    return reason if len(reason) <= MAX_REASON else reason[:MAX_REASON] + "..."


def _parser_errors() -> tuple[type[BaseException], ...]:
    """PARSER_ERRORS and, once hier_config is loaded, its DuplicateChildError: only a diff
    loads hier_config (its import was a sixth of a one-device lint), and only it raises it."""
    hier_config = sys.modules.get("hier_config.exceptions")
    return PARSER_ERRORS + ((hier_config.DuplicateChildError,) if hier_config else ())


@contextmanager
def unreadable_is_bad_input(file: str, os_name: str) -> Iterator[None]:
    """Inside this, a parser's failure on the config `file` is bad input naming it."""
    try:
        yield
    except _parser_errors() as error:
        message = f"not a valid {vendor_for(os_name).title} config: {_reason(error)}"
        # json's errors know where they are; every other one is placed at the file's start
        where = (getattr(error, "lineno", 1), getattr(error, "colno", 1))
        raise InputError([Problem(file, *where, "", message)]) from None


def _out_of_range(value: Any, path: str) -> str | None:
    """The path of the first number in a parsed plan no switch could hold, or None."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return None
    if isinstance(value, int | float):
        finite = not isinstance(value, float) or math.isfinite(value)
        return None if finite and abs(value) <= MAX_CONFIG_NUMBER else path
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = ((f.name, getattr(value, f.name)) for f in dataclasses.fields(value))
    elif isinstance(value, dict):
        fields = ((str(key), item) for key, item in value.items())
    elif isinstance(value, list | tuple):
        fields = ((str(index), item) for index, item in enumerate(value))
    else:
        return None
    for name, item in fields:
        found = _out_of_range(item, f"{path}.{name}" if path else name)
        if found:
            return found
    return None


def parse_config(
    os_name: str, text: str, file: str, name: str, hint: DevicePlan | None = None
) -> DevicePlan:
    """Config text -> device plan (on top of the hint: facts a config cannot hold). Every
    number in it is one a switch can hold: the rules compute with them."""
    with unreadable_is_bad_input(file, os_name):
        device = vendor_for(os_name).parse(text, file, name, hint)
        absurd = _out_of_range(device, "")
        if absurd:
            raise ValueError(f"{absurd} is out of range")
    return device


def parse_config_file(
    os_name: str, path: str, name: str, hint: DevicePlan | None = None
) -> DevicePlan:
    return parse_config(os_name, read_config(path), path, name, hint)


def diff_config(os_name: str, running_path: str, intended: str) -> list[Any]:
    """The changes from the running config in running_path to the intended text. A vendor's
    diff sees only texts: any problem it reports is in the running one, so it names that file."""
    return diff_text(os_name, read_config(running_path), intended, running_path)


def held_back_config(os_name: str, running_path: str, intended: str) -> list[str]:
    """What the diff from the running config in running_path leaves out because the switch's
    apply tool refuses it (Vendor.held_back), each naming where and how to apply it."""
    try:
        with unreadable_is_bad_input(running_path, os_name):
            return vendor_for(os_name).held_back(read_config(running_path), intended, running_path)
    except InputError as error:
        raise InputError([replace(p, file=running_path) for p in error.problems]) from None


def diff_text(os_name: str, running: str, intended: str, file: str) -> list[Any]:
    """The changes from a running config's text (named `file` in errors) to the intended."""
    try:
        with unreadable_is_bad_input(file, os_name):
            return vendor_for(os_name).diff(running, intended, file)
    except InputError as error:
        raise InputError([replace(p, file=file) for p in error.problems]) from None
