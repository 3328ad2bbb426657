"""Every cited source is in the repository: citations in code name docs/reference notes and
sections that exist, and the notes explain the evidence tags the code uses."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import REPO

DOCS = REPO / "docs" / "reference"
CITATION = re.compile(
    r"docs/reference/(?P<note>\w+)\.md (?:section )?(?P<section>\d+)(?:\.(?P<sub>\d+))?"
    r"(?P<letter>[a-i](?![a-z]))?(?: (?:rules?|item|step) (?P<item>\d+))?"
)
TAGS = ["SRC", "RUN", "2ND", "UNV", "DERIVED"]
CITING = [
    *sorted((REPO / "lossless").rglob("*.py")),
    *sorted((REPO / "lossless").rglob("*.yaml")),
    *sorted((REPO / "tests").glob("*.py")),
    *sorted((REPO / "inventories").glob("*")),
    REPO / "README.md",
    # README's sections that moved to the documentation site
    *(
        REPO / "docs" / f"{page}.md"
        for page in (
            "getting-started",
            "lint",
            "numbers",
            "rendering",
            "hosts",
            "report",
            "diff-and-push",
            "ci",
            "performance",
            "security",
        )
    ),
]


def _sections(text: str) -> dict[str, str]:
    """Section number -> its text, for '## N.' and '### N.M' / '### x.' headings."""
    found: dict[str, str] = {}
    current = None
    parts = re.split(r"^(#{2,3} .*)$", text, flags=re.M)
    for part in parts:
        heading = re.match(r"^(#{2,3}) (\d+\.\d+|\d+|[a-i])\.? ", part)
        if heading:
            level, number = heading.groups()
            if level == "##":
                current = number
                key = number
            else:
                key = f"{current}{number}" if number.isalpha() else number
            found[key] = ""
            last = key
        elif found:
            found[last] += part
            if current is not None and last != current:
                found[current] = found.get(current, "") + part
    return found


def _citations():
    for path in CITING:
        if path.is_file() and path.suffix in {".py", ".yaml", ".md"}:
            for match in CITATION.finditer(path.read_text()):
                yield pytest.param(match, id=f"{path.name}:{match.group(0)}")


@pytest.mark.parametrize("match", list(_citations()))
def test_citation_points_at_an_existing_section(match):
    note = DOCS / f"{match['note']}.md"
    assert note.is_file(), f"{note} is missing"
    sections = _sections(note.read_text())
    section = match["section"]
    assert section in sections, f"no section {section} in {note.name}"
    if match["sub"]:
        sub = f"{section}.{match['sub']}"
        in_list = re.search(rf"^{match['sub']}\. ", sections[section], flags=re.M)
        assert sub in sections or in_list, f"no {sub} in {note.name}"
    if match["letter"]:
        assert f"{section}{match['letter']}" in sections, f"no {section}{match['letter']}"
    if match["item"]:
        body = sections.get(f"{section}.{match['sub']}" if match["sub"] else section, "")
        assert re.search(rf"^\s*{match['item']}\. ", body, flags=re.M), match.group(0)


def test_code_cites_the_repository_notes_not_an_outside_folder():
    checks = {Path(__file__).name, "test_data_provenance.py"}  # these name the old folder
    for path in CITING:
        if path.is_file() and path.suffix in {".py", ".yaml", ".md"} and path.name not in checks:
            text = path.read_text()
            assert "shared/reference" not in text, path
            bare = re.findall(r"(?<![\w/.-])(?:physics|sonic|vendors|ecosystem)\.md", text)
            assert not bare, f"{path}: {bare} (cite docs/reference/<note>.md)"


def test_the_notes_explain_every_evidence_tag_the_code_uses():
    readme = (DOCS / "README.md").read_text()
    for tag in TAGS:
        assert f"**[{tag}]**" in readme, tag
    used = set()
    for path in CITING:
        if path.is_file() and path.suffix in {".py", ".yaml"}:
            used |= set(re.findall(r"\[(SRC|RUN|2ND|UNV|DERIVED)\]", path.read_text()))
    assert used, "no evidence tag found in the code"


@pytest.mark.parametrize("note", ["physics", "sonic", "vendors", "ecosystem"])
def test_each_note_names_its_upstream_sources(note):
    text = (DOCS / f"{note}.md").read_text()
    assert "https://" in text or "github.com" in text or re.search(r"\b[0-9a-f]{7,40}\b", text)
