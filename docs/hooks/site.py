"""MkDocs hooks (mkdocs.yml `hooks:`): the pages generated from the code, so the site cannot
drift from it, and the repository files the pages link to.

Generated at build time, never committed:
* `index.md`: README.md, its links made site links;
* `commands.md`: every command and option, from the argument parser (lossless/cli/parser.py);
* `rules/index.md` and `rules/<ID>.md`: every lint rule, from the registry
  (lossless/lint/catalogue.py), with its failing examples (docs/rules/examples.yaml, each
  checked by tests/test_rule_examples.py);
* `inventory-reference.md`: every key of the inventory, from its JSON Schema.

A page's link to a file of the repository outside docs/ (`../inventories/lab.yaml`) becomes a
link to a copy of that file on the site (`repo/inventories/lab.yaml`), so the site has no
broken link and the schemas and examples can be downloaded from it.
"""

from __future__ import annotations

import posixpath
import re
import sys
from pathlib import Path
from typing import Any

from mkdocs.structure.files import File, Files

REPO = Path(__file__).resolve().parents[2]
DOCS = REPO / "docs"
sys.path.insert(0, str(Path(__file__).parent))  # pages.py beside this file
from pages import pages  # noqa: E402  (mkdocs restores sys.path once the hook is loaded)

# [text](target#anchor "title")
LINK = re.compile(r"(\[[^\]]*\]\()([^)\s#]+)(#[^)\s]*)?(\s+\"[^\"]*\")?\)")


def on_files(files: Files, config: Any) -> Files:
    for path, content in pages(REPO).items():
        files.append(File.generated(config, path, content=content))
    for target in sorted(_repository_targets()):
        files.append(File.generated(config, f"repo/{target}", abs_src_path=str(REPO / target)))
    return files


def on_page_markdown(markdown: str, page: Any, config: Any, files: Files) -> str:
    """Links that leave docs/ point at the site's copy of the repository file."""
    source = "README.md" if page.file.src_uri == "index.md" else f"docs/{page.file.src_uri}"
    return LINK.sub(lambda match: _site_link(match, source, page.file.src_uri), markdown)


def _site_link(match: re.Match[str], source: str, page_uri: str) -> str:
    target = match.group(2)
    if "://" in target or target.startswith(("mailto:", "/")):
        return match.group(0)
    in_repo = posixpath.normpath(posixpath.join(posixpath.dirname(source), target))
    anchor, title = match.group(3) or "", match.group(4) or ""
    if in_repo.startswith("docs/"):
        site_target = in_repo.removeprefix("docs/")
    elif in_repo == "README.md":
        site_target = "index.md"
    elif _copied(in_repo):
        site_target = f"repo/{in_repo}"
    else:  # a folder or a Markdown file of the repository: its name, as text
        return match.group(1)[1:-2] or f"`{in_repo}`"
    relative = posixpath.relpath(site_target, posixpath.dirname(page_uri) or ".")
    return f"{match.group(1)}{relative}{anchor}{title})"


def _repository_targets() -> set[str]:
    """The files outside docs/ that README and the pages link to."""
    found: set[str] = set()
    sources = [REPO / "README.md", *DOCS.rglob("*.md")]
    for path in sources:
        folder = posixpath.dirname(path.relative_to(REPO).as_posix())
        for match in LINK.finditer(path.read_text(encoding="utf-8")):
            target = match.group(2)
            if "://" in target or target.startswith(("mailto:", "/")):
                continue
            in_repo = posixpath.normpath(posixpath.join(folder, target))
            if not in_repo.startswith(("docs/", "..")) and _copied(in_repo):
                found.add(in_repo)
    return found


def _copied(in_repo: str) -> bool:
    """A repository file the site serves a copy of: any file but Markdown (pages of their
    own, with links of their own)."""
    return not in_repo.endswith(".md") and (REPO / in_repo).is_file()
