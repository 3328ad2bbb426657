"""Text from outside (an inventory from a pull request, a config, a device's answer, a host's
saved state) made safe to print: on a terminal, in a CI log and in an XML report.

`printable(text)` is the one function every output applies to what it did not write itself,
once, where the text leaves the program (findings and plans keep the text as it came):

* control characters (C0 with tab, newline and carriage return; DEL; C1 with U+0085), the
  format characters that reorder or hide text (bidi embeddings, overrides and isolates, zero
  widths, the byte-order mark, the Arabic letter mark, the tag characters; every Unicode
  "Cf" character), the line and paragraph separators, surrogates (a lone one cannot even be
  encoded) and the noncharacters XML 1.0 refuses become visible escapes as Python writes
  them (`\\x1b`, `\\n`, `\\u202e`): nothing reaches a terminal that it acts on, the text
  stays on one line, and what is left is XML 1.0;
* text that would start a line with `::` (after spaces: GitHub Actions trims them) has its
  first colon escaped (`\\x3a:error::...`), and `##[` / `##vso[` anywhere (GitHub Actions'
  and Azure Pipelines' older command form) becomes `\\x23#[`: no line of lossless's output
  is taken for a workflow command;
* in text escaped so, every backslash is doubled, so the escapes read back unambiguously
  (as a Python string literal's body reads back).

Text that needs none of this, printable letters in any script with backslashes included
(a Windows path, a Junos `description "a\\"b"`), comes back unchanged, byte for byte.

`printable_lines(text)` does it to each line of a multi-line text (a device's diff), and
`inert_json(text)` keeps JSON text (whose strings json.dumps already writes in ASCII with
every control character escaped) from holding `##[`, with a JSON escape that reads back as
the same string. Imports nothing of lossless.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable

# Unicode's Cc, Cf, Zl and Zp characters (U+2060-U+206F and the Egyptian hieroglyph format
# controls as whole blocks, so the Unicode 15 additions are in too), surrogates, and the
# noncharacters of the Basic Multilingual Plane (U+FFFE and U+FFFF are not XML 1.0).
_SPECIAL = re.compile(
    r"[\x00-\x1f\x7f-\x9f\xad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e"
    r"\u200b-\u200f\u2028-\u202e\u2060-\u206f\ud800-\udfff\ufdd0-\ufdef\ufeff\ufff9-\ufffb"
    r"\ufffe\uffff\U000110bd\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3"
    r"\U0001d173-\U0001d17a\U000e0001\U000e0020-\U000e007f]"
)
_NAMED = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}
# A workflow command: `::name ...::data` at the start of a line after whitespace (actions/
# runner ActionCommand.TryParseV2 trims the line's start), `##[name]data` anywhere in one
# (TryParse), and Azure Pipelines' `##vso[...]`.
_LINE_COMMAND = re.compile(r"\s*::")
_OLD_COMMAND = re.compile(r"#(?=#(?:vso)?\[)", re.IGNORECASE)
_JSON_OLD_COMMAND = re.compile(r"(?<=##)\[|(?<=##vso)\[", re.IGNORECASE)


def _escape_char(char: str) -> str:
    named = _NAMED.get(char)
    if named:
        return named
    code = ord(char)
    if code <= 0xFF:
        return f"\\x{code:02x}"
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


# Besides _SPECIAL, what draws nothing or nothing known: private-use and unassigned code
# points, and letters and marks that are blank (Hangul fillers, the combining grapheme
# joiner, Khmer inherent vowels, variation selectors but the text/emoji ones U+FE0E/U+FE0F).
_UNSEEN_CATEGORIES = frozenset({"Co", "Cn"})
_BLANK = frozenset(
    "\u034f\u115f\u1160\u17b4\u17b5\u180b\u180c\u180d\u180f\u3164\uffa0"
    + "".join(map(chr, range(0xFE00, 0xFE0E)))
    + "".join(map(chr, range(0xE0100, 0xE01F0)))  # variation selectors 17-256
)
_NOT_ASCII = re.compile(r"[^\x20-\x7e]")  # printable ASCII is never hidden


def hidden(char: str) -> bool:
    """A character a reader cannot see as it is: what printable() escapes, and what a
    config or a report shows in its own way (show_hidden)."""
    return (
        _SPECIAL.match(char) is not None
        or unicodedata.category(char) in _UNSEEN_CATEGORIES
        or char in _BLANK
    )


def show_hidden(text: str, shown: Callable[[str], str]) -> str:
    """text with every hidden character replaced by shown(char): a config's one line ("?"),
    a report's <U+202E>, a terminal's \\u202e (printable)."""
    return _NOT_ASCII.sub(lambda m: shown(m[0]) if hidden(m[0]) else m[0], text)


def printable(text: str) -> str:
    """text safe to print on one line of a terminal, a CI log or an XML file (see above);
    unchanged when it holds nothing to escape."""
    # Fast: str.isprintable() is false for every character of _SPECIAL and every private-use
    # or unassigned one (and for the spaces other than " ", which the runner's trim takes
    # too), so this is all most text costs.
    blank = not _BLANK.isdisjoint(text)
    if (
        text.isprintable()
        and not blank
        and "##" not in text
        and not text.lstrip(" ").startswith("::")
    ):
        return text
    if (
        not any(map(hidden, _NOT_ASCII.findall(text)))
        and _LINE_COMMAND.match(text) is None
        and _OLD_COMMAND.search(text) is None
    ):
        return text
    shown = show_hidden(text.replace("\\", "\\\\"), _escape_char)
    shown = _OLD_COMMAND.sub(r"\\x23", shown)
    start = _LINE_COMMAND.match(shown)
    if start:
        colon = start.end() - 2
        shown = shown[:colon] + "\\x3a" + shown[colon + 1 :]
    return shown


def printable_lines(text: str) -> str:
    """Multi-line text with each line made printable; its line ends (\\n or \\r\\n) are kept
    as \\n, anything else that would move the cursor is escaped."""
    return "\n".join(printable(line.removesuffix("\r")) for line in text.split("\n"))


def inert_json(text: str) -> str:
    """JSON text as json.dumps writes it (ASCII, control characters escaped) with every `[`
    that follows `##` or `##vso` written `\\u005b`: the same JSON value, and no line a CI
    runner takes for a command. `##[` occurs in JSON text only inside strings."""
    if "##" not in text:
        return text
    return _JSON_OLD_COMMAND.sub(r"\\u005b", text)
