"""`lossless report`: the view model rendered as one self-contained HTML page (index.html:
inline CSS and SVG, no script, no fetch) and a Markdown summary for a pull-request comment
(report.md), through templates/report/.

The inventory is untrusted input (it comes from pull requests), and so is text read from
switches: the HTML environment autoescapes every value, and the page's
Content-Security-Policy allows nothing but its own inline style (by hash), so even an
escaping mistake could neither run a script nor load anything. Markdown has no autoescape:
every value is escaped on output (finalize) so a name or description cannot add a table
cell, a line, a link, an image, raw HTML or an HTML comment to the comment, nor make the
forge act on it: GitHub and GitLab turn `@user` and `@org/team` into mentions (notifying
them) and `#123` into cross-references, and GitHub Flavored Markdown's autolinks extension
links bare `www.`, `http://`, `https://` and e-mail addresses (GitLab any `scheme://`), all
in the rendered text, after entities and backslash escapes are undone. In both files a
character that is invisible or moves the text around it (bidirectional controls such as
U+202E, zero-width characters, control characters) is shown as its code point, <U+202E>,
so a value reads as it displays.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import shlex
from functools import cache

from jinja2 import Environment, FileSystemLoader, StrictUndefined
from markupsafe import Markup

from lossless.model import Inventory
from lossless.plan import FabricPlan
from lossless.report.device_view import ECN_COLUMNS, HEADROOM_COLUMNS
from lossless.report.view import STATUS_TEXT, ReportView, build_report
from lossless.system.resources import resource_path
from lossless.text.printable import show_hidden

HTML_FILE = "index.html"
MARKDOWN_FILE = "report.md"
_COMMON = {
    "undefined": StrictUndefined,
    "keep_trailing_newline": True,
    "trim_blocks": True,
    "lstrip_blocks": True,
}


def code_point(char: str) -> str:
    """How a hidden character is shown: U+202E between angle brackets."""
    return f"<U+{ord(char):04X}>"


def html_finalize(value: object) -> object:
    """The HTML page's finalize: hidden characters made visible (autoescape then escapes the
    result); Markup (the page's own CSS, JSON and macros) and numbers are left alone."""
    if isinstance(value, str) and not isinstance(value, Markup):
        return show_hidden(value, code_point)
    return value


@cache
def html_environment() -> Environment:
    env = Environment(
        loader=FileSystemLoader(str(resource_path("templates", "report"))),
        autoescape=True,
        finalize=html_finalize,
        **_COMMON,  # type: ignore[arg-type]
    )
    # a command the page shows to copy: each word quoted for the shell, then HTML-escaped
    env.filters["shell_quote"] = shlex.quote
    return env


# Characters that mean something in GitHub-flavoured Markdown (tables, emphasis, links,
# code, raw HTML, entities), escaped with a backslash; < > & become entities.
_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+!|~])")
# At the start of a line (the fabric's description) a value could open a list or draw a
# rule: a leading - and the . of a leading "1. " are escaped too (+ and ")" already are).
_BLOCK_START = re.compile(r"^(-|[0-9]{1,9}(?=\.(?:\s|$)))")
# What the forge would link: a URL's scheme (GitLab links any `scheme://`, GFM http, https
# and ftp), a `www.` autolink; shown defanged, `https[:]//`, `www[.]`, which no one links.
_SCHEME = re.compile(r"://")
_WWW = re.compile(r"(www)\.", re.IGNORECASE)
# A zero-width space (as an entity: the Markdown stays ASCII) after @ and before the number
# of an issue or merge request reference (#12, GH-12, GitLab's !12 and &12): the text looks
# the same but no mention or cross-reference is made, as no username, e-mail domain or
# reference number starts with a zero-width space (bots posting third-party text do this).
_ZWSP = "&#8203;"
_REFERENCE = re.compile(r"(#|!|&amp;|\bGH-)(?=[0-9])", re.IGNORECASE)


def markdown_escape(value: object) -> str:
    text = " ".join(str(value).split())  # no line break can end a table row
    text = _WWW.sub(r"\1[.]", _SCHEME.sub("[:]//", text))
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    text = _MARKDOWN_SPECIAL.sub(r"\\\1", text)
    text = _BLOCK_START.sub(lambda m: "\\-" if m[0] == "-" else m[0] + "\\", text)
    text = _REFERENCE.sub(r"\1" + _ZWSP, text)  # before any & of ours is written
    text = text.replace("@", "@" + _ZWSP)
    return show_hidden(
        text, lambda char: code_point(char).replace("<", "&lt;").replace(">", "&gt;")
    )


@cache
def markdown_environment() -> Environment:
    return Environment(
        loader=FileSystemLoader(str(resource_path("templates", "report"))),
        autoescape=False,
        finalize=markdown_escape,
        **_COMMON,  # type: ignore[arg-type]
    )


def _style() -> tuple[Markup, str]:
    """The page's CSS and its CSP hash (the only style the page may apply)."""
    css = resource_path("templates", "report", "report.css").read_text(encoding="utf-8")
    digest = base64.b64encode(hashlib.sha256(css.encode("utf-8")).digest()).decode()
    return Markup(css), f"'sha256-{digest}'"


def _data_json(view: ReportView) -> Markup:
    """The report's numbers as JSON inside <script type="application/json">: sorted, and
    with <, > and & escaped so no text can close the element."""
    text = json.dumps(view.data, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return Markup(text)


def render_html(view: ReportView) -> str:
    css, style_hash = _style()
    return (
        html_environment()
        .get_template("index.html.j2")
        .render(
            r=view,
            css=css,
            style_hash=style_hash,
            data_json=_data_json(view),
            status_text=STATUS_TEXT,
            headroom_columns=HEADROOM_COLUMNS,
            ecn_columns=ECN_COLUMNS,
        )
    )


def render_markdown(view: ReportView) -> str:
    return (
        markdown_environment().get_template("report.md.j2").render(r=view, status_text=STATUS_TEXT)
    )


def report_files(
    inventory: Inventory,
    plan: FabricPlan,
    lint,
    shown: list[str] | None = None,
    simulate_s: float | None = None,
) -> dict[str, str]:
    view = build_report(inventory, plan, lint, shown, simulate_s)
    return {HTML_FILE: render_html(view), MARKDOWN_FILE: render_markdown(view)}
