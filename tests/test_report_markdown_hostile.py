"""`lossless report`'s report.md is posted as a pull-request comment, and its text comes from
the pull request: the inventory's free text and its file name. The comment must not make the
forge act on that text (mention people, cross-reference issues, link a URL), show raw HTML,
add a table cell or a line, or hide text (bidirectional controls, zero-width characters);
and it must still read as written.

The forges act on the rendered text, after Markdown escapes and entities are undone: GitHub
and GitLab turn `@user`, `@org/team` and `#12` (GitLab also `!12`, `&12`) into mentions and
references, and GitHub Flavored Markdown's autolinks (extension) link `www.`, `http://`,
`https://` and e-mail addresses (GitLab any `scheme://`). These tests render report.md with
markdown-it (CommonMark and GFM tables) and look at the rendered text the same way."""

from __future__ import annotations

import json
import re
import unicodedata
from pathlib import Path

import pytest
from conftest import INVENTORIES
from markdown_it import MarkdownIt
from markdown_it.token import Token

from lossless.report.page import html_environment, markdown_escape

LAB = INVENTORIES / "lab.yaml"
ZWSP = "\u200b"  # what markdown_escape puts after @ (as &#8203;): invisible, breaks the match
MARKDOWN = MarkdownIt("commonmark").enable("table")
# What a forge acts on in a comment's rendered text.
FORGE = {
    "mention or e-mail": re.compile(r"@[A-Za-z0-9_]"),
    "URL": re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://"),
    "www autolink": re.compile(r"www\.", re.IGNORECASE),
    "reference": re.compile(r"(?:#|!|&|\bGH-)[0-9]", re.IGNORECASE),
}
# Tokens of a link, an image or raw HTML (a comment too).
ACTIVE = {"link_open", "image", "html_inline", "html_block"}
# Everything a value may hold that the forges act on or that is HTML or Markdown syntax;
# all of it printable ASCII, as the inventory's schema allows it in free text.
HOSTILE = (
    "@octocat @org/team https://evil.example/x www.evil.example user@example.com"
    " <https://evil.example/y> <img src=x> <!-- a|b #1 [c](http://evil.example)"
)
SHOWN = (
    "@octocat @org/team https[:]//evil.example/x www[.]evil.example user@example.com"
    " <https[:]//evil.example/y> <img src=x> <!-- a|b #1 [c](http[:]//evil.example)"
)
# The inventory's file name is the pull request's too: there the file system allows a
# bidirectional override and a zero-width space.
FILE_NAME = "lab @octocat www.evil.example <img src=x> <!-- a|b \u202egpj\u200b.yaml"
FILE_SHOWN = "lab @octocat www[.]evil.example <img src=x> <!-- a|b <U+202E>gpj<U+200B>.yaml"


def hidden(text: str) -> list[str]:
    """The characters of `text` that draw nothing or move the text around them."""
    return [
        f"U+{ord(c):04X}"
        for c in text
        if c != "\n" and unicodedata.category(c) in ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp")
    ]


def inline_text(token: Token) -> str:
    """An inline token's text as rendered: escapes and entities undone."""
    parts = []
    for child in token.children or []:
        if child.type in ("softbreak", "hardbreak"):
            parts.append("\n")
        elif child.type in ("text", "text_special", "code_inline"):
            parts.append(child.content)
    return "".join(parts)


def rendered(markdown: str) -> tuple[list[Token], list[str]]:
    """Every token of `markdown` (nested ones too) and the text of each inline element."""
    tokens = MARKDOWN.parse(markdown)
    flat = [t for token in tokens for t in [token, *(token.children or [])]]
    return flat, [inline_text(t) for t in tokens if t.type == "inline"]


def table_rows(markdown: str) -> list[list[str]]:
    """The cells of every table row, as rendered."""
    rows: list[list[str]] = []
    previous = ""
    for token in MARKDOWN.parse(markdown):
        if token.type == "tr_open":
            rows.append([])
        elif token.type == "inline" and previous in ("th_open", "td_open"):
            rows[-1].append(inline_text(token))
        previous = token.type
    return rows


def assert_inert(markdown: str) -> list[str]:
    """No link, image or raw HTML; no text the forge acts on; no hidden character. Returns
    the rendered texts, without the zero-width spaces the escaping puts after @."""
    tokens, texts = rendered(markdown)
    assert [t.type for t in tokens if t.type in ACTIVE] == []
    for text in texts:
        for what, pattern in FORGE.items():
            assert not pattern.search(text), (what, text)
    assert hidden(markdown) == []
    return [text.replace(ZWSP, "") for text in texts]


def hostile_inventory(folder: Path) -> Path:
    """The lab with HOSTILE in the fabric's and a switch's description, a cable type's and a
    lint_ignore reason, others in a platform and a NIC model, and with findings (SONiC's ECN
    preset: Kmin above T/f, LL112) so the file name is in the findings table; as FILE_NAME."""
    leaf1 = "    platform: SN5600\n    mgmt: 192.0.2.11\n"
    text = LAB.read_text()
    assert leaf1 in text
    text = text.replace(
        leaf1,
        f"    platform: {json.dumps('@octocat www.evil.example <b>')}\n    mgmt: 192.0.2.11\n"
        f"    description: {json.dumps(HOSTILE)}\n"
        f"    lint_ignore: {{LL112: {json.dumps(HOSTILE)}}}\n",
    )
    for old, new in {
        "Mixed-vendor RoCE v2 lab": f"uplink to spine1 {HOSTILE}",
        "400GBASE-SR8 on OM4": HOSTILE,
        "BCM57608": "@octocat <i>x</i>",
    }.items():
        assert old in text
        text = text.replace(old, json.dumps(new))
    text = text.replace("ecn: {preset: nvidia, max_bytes: 500000}", "ecn: {preset: sonic}")
    path = folder / FILE_NAME
    path.write_text(text)
    return path


@pytest.fixture
def report(run, tmp_path):
    """report.md and index.html of the hostile inventory, written by the command line."""
    inventory = hostile_inventory(tmp_path)
    result = run("report", str(inventory), "-o", str(tmp_path / "out"))
    assert result.code == 0, result.err
    out = tmp_path / "out"
    return inventory, (out / "report.md").read_text(), (out / "index.html").read_text()


def test_the_comment_mentions_links_and_hides_nothing(report):
    inventory, markdown, _ = report
    texts = assert_inert(markdown)
    # it reads as written, the URLs defanged and hidden characters shown as code points
    assert f"uplink to spine1 {SHOWN}" in texts
    shown_path = str(inventory.parent / FILE_SHOWN)
    assert any(text.startswith(f"all 6 switches of {shown_path};") for text in texts)
    # each value stays in its table cell: the file name is the findings' "first at"
    findings = [row for row in table_rows(markdown) if row[0] in ("error", "warning")]
    # but the lab's leaf4, a QFX5220 without a PFC watchdog (LL114)
    findings = [row for row in findings if not row[1].startswith("LL114 ")]
    assert findings
    for row in findings:
        # SONiC's preset: LL112 (Kmin above T/f) and LL128 (the lab's Spectrum switches pause
        # before they mark at 3:1)
        starts = {"LL112": "queue 3: ECN ", "LL128": "PFC pauses before ECN marks at the "}
        assert len(row) == 5 and row[4].startswith(starts[row[1].split()[0]])
        assert re.fullmatch(re.escape(shown_path) + r":[0-9]+:[0-9]+", row[3].replace(ZWSP, ""))


def test_the_page_shows_hidden_characters_as_code_points(report):
    """index.html: Jinja escapes the HTML, but a bidirectional override would still reorder
    the file name as displayed."""
    _, _, html = report
    assert hidden(html) == []
    assert "&lt;U+202E&gt;gpj&lt;U+200B&gt;.yaml" in html


BIDI = [*"\u061c\u200e\u200f", *map(chr, range(0x202A, 0x202F)), *map(chr, range(0x2066, 0x206A))]
HIDDEN = [
    *BIDI,
    *"\x00\x07\x08\x1b\x7f\x80\x9b",  # C0, DEL, C1 (a C1 CSI)
    *"\u200b\u200c\u200d\u2060\ufeff\u00ad\u180e",  # zero-width, soft hyphen
    "\U000e0041",  # a tag character (invisible)
    "\u3164",  # Hangul filler: a letter that draws nothing
    "\ufe00",  # a variation selector on plain text
    "\ue000",  # private use
    "\ud800",  # a lone surrogate (could not even be written as UTF-8)
]


@pytest.mark.parametrize("char", HIDDEN, ids=[f"U+{ord(c):04X}" for c in HIDDEN])
def test_hidden_characters_are_shown_as_code_points(char):
    code = f"U+{ord(char):04X}"
    escaped = markdown_escape(f"spine{char}1")
    assert escaped == f"spine&lt;{code}&gt;1"
    assert assert_inert(escaped + "\n") == [f"spine<{code}>1"]
    html = html_environment().from_string("<p>{{ x }}</p>").render(x=f"spine{char}1")
    assert html == f"<p>spine&lt;{code}&gt;1</p>"


def test_a_value_with_every_kind_of_line_break_and_control_is_one_line_of_text():
    value = "".join(chr(c) for c in range(0x00, 0x21)) + "\x7f\x85\u2028\u2029|x"
    escaped = markdown_escape(value)
    assert escaped.isascii() and escaped.isprintable()
    cells = table_rows(f"| a | b |\n|---|---|\n| {escaped} | end |\n")
    assert cells[1][1] == "end" and len(cells) == 2
    assert cells[1][0].endswith("<U+001B> <U+007F> |x")


CASES = [
    ("@octocat", "@octocat"),
    ("cc @octocat.", "cc @octocat."),
    ("(@org/team)", "(@org/team)"),
    ("user@example.com", "user@example.com"),
    ("mailto:user@example.com", "mailto:user@example.com"),
    ("uplink to spine1 https://evil.example/x", "uplink to spine1 https[:]//evil.example/x"),
    ("HTTP://EVIL.example", "HTTP[:]//EVIL.example"),
    ("<https://evil.example/y>", "<https[:]//evil.example/y>"),
    ("ftp://evil.example", "ftp[:]//evil.example"),
    ("www.evil.example/login", "www[.]evil.example/login"),
    ("see WWW.evil.example", "see WWW[.]evil.example"),
    ("[docs](https://evil.example)", "[docs](https[:]//evil.example)"),
    ("![x](https://evil.example/a.png)", "![x](https[:]//evil.example/a.png)"),
    ("fixes #12", "fixes #12"),
    ("owner/repo#12", "owner/repo#12"),
    ("GH-12", "GH-12"),
    ("!12 and &12", "!12 and &12"),
]


@pytest.mark.parametrize(("value", "shown"), CASES, ids=[v for v, _ in CASES])
def test_no_mention_link_or_reference_is_made(value, shown):
    escaped = markdown_escape(value)
    assert assert_inert(f"{escaped}\n") == [shown]
    table = f"| a | b |\n|---|---|\n| {escaped} | x |\n"
    assert assert_inert(table) == ["a", "b", shown, "x"]


BLOCKS = ["- item", "1. item", "10. item", "---", "-"]


@pytest.mark.parametrize("value", BLOCKS)
def test_a_description_at_the_start_of_a_line_stays_a_paragraph(value):
    """The fabric's description is a paragraph of its own in report.md."""
    tokens = MARKDOWN.parse(f"{markdown_escape(value)}\n")
    assert [t.type for t in tokens] == ["paragraph_open", "inline", "paragraph_close"]
    assert inline_text(tokens[1]) == value
