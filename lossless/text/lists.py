"""Command-line values that hold lists: "LL101,LL115" or "leaf[1:2],spine1", repeatable."""

from __future__ import annotations

from collections.abc import Iterable


def comma_separated(texts: Iterable[str], what: str = "name") -> list[str]:
    """The items of every comma list, stripped, in order. An empty item (a doubled comma, a
    trailing one, an empty CI variable) is a ValueError, never "nothing"."""
    items = []
    for text in texts:
        for item in text.split(","):
            word = item.strip()
            if not word:
                raise ValueError(f"empty {what} in {text!r}")
            items.append(word)
    return items
