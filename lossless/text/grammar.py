"""Counts in messages: "1 error", "2 errors", never "1 error(s)"; "a, b and 4 more"."""

from __future__ import annotations

from collections.abc import Sequence


def plural(count: int, noun: str, plural_form: str | None = None) -> str:
    word = noun if count == 1 else (plural_form or f"{noun}s")
    return f"{count} {word}"


def first_few(items: Sequence[str], shown: int, thousands: bool = False) -> str:
    """ "a, b, c and 4 more": the first `shown` items, and how many others (with a thousands
    separator where the count is printed beside other large counts)."""
    more = len(items) - shown
    rest = (f" and {more:,} more" if thousands else f" and {more} more") if more > 0 else ""
    return ", ".join(items[:shown]) + rest
