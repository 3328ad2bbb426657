"""The documentation's output examples (README and docs/) are what the commands print today:
each example block is the real output, line for line, where `...` stands for lines left out."""

from __future__ import annotations

import re
import shlex

import pytest
from conftest import DOCS_PAGES, REPO


def _examples() -> list[tuple[str, str]]:
    """(command, block) for every "`lossless ...`" line followed by a fenced block."""
    text = "\n".join(page.read_text() for page in DOCS_PAGES)
    found = re.findall(
        r"^`(lossless [^`]+)`[^\n]*(?:\n[^\n]+)*\n\n```\n(.*?)^```", text, re.S | re.M
    )
    return [(command, block) for command, block in found if command.split()[1] in _SHOWN]


_SHOWN = {"plan", "explain", "headroom"}


def _matches(expected: list[str], actual: list[str]) -> bool:
    """expected is actual with runs of lines replaced by `...` (a line of its own)."""
    position = 0
    gap = False
    for line in expected:
        if line.strip() == "...":
            gap = True
            continue
        try:
            found = actual.index(line, position)
        except ValueError:
            return False
        if not gap and found != position:
            return False
        position, gap = found + 1, False
    return gap or position == len(actual)


def test_the_examples_are_found():
    commands = [command.split()[1] for command, _ in _examples()]
    assert sorted(set(commands)) == sorted(_SHOWN)


@pytest.mark.parametrize(
    ("command", "block"), _examples(), ids=[c.split()[1] for c, _ in _examples()]
)
def test_readme_example_is_the_real_output(run, monkeypatch, command, block):
    monkeypatch.chdir(REPO)  # the examples name inventories/lab.yaml
    result = run(*shlex.split(command)[1:])
    assert result.code == 0, result.err
    expected = block.splitlines()
    if command.split()[1] == "explain":  # an excerpt: the README shows one section
        expected = ["...", *expected, "..."]
    assert _matches(expected, result.out.splitlines()), (
        f"the documented example of `{command}` is stale; the real output:\n{result.out}"
    )


def test_the_matcher_fails_on_a_changed_line():
    actual = ["a", "b", "c"]
    assert _matches(["a", "b", "c"], actual)
    assert _matches(["a", "..."], actual)
    assert _matches(["...", "b", "..."], actual)
    assert not _matches(["a", "c"], actual)  # a line left out without `...`
    assert not _matches(["a", "B", "..."], actual)
    assert not _matches(["a", "b"], actual)  # the end cut without `...`
