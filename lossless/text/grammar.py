"""Counts in messages: "1 error", "2 errors", never "1 error(s)"."""

from __future__ import annotations


def plural(count: int, noun: str, plural_form: str | None = None) -> str:
    word = noun if count == 1 else (plural_form or f"{noun}s")
    return f"{count} {word}"
