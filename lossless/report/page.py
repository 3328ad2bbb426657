"""`lossless report`: the view model rendered as one self-contained HTML page (index.html:
inline CSS and SVG, no script, no fetch) and a Markdown summary for a pull-request comment
(report.md), through templates/report/.

The inventory is untrusted input: the HTML environment autoescapes every value, and the
page's Content-Security-Policy allows nothing but its own inline style (by hash), so even an
escaping mistake could neither run a script nor load anything. Markdown has no autoescape:
every value is escaped on output (finalize) so a name or description cannot add a table
cell, a link or raw HTML to the comment.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from functools import cache

from jinja2 import Environment, FileSystemLoader, StrictUndefined
from markupsafe import Markup

from lossless.model import Inventory
from lossless.plan import FabricPlan
from lossless.report.device_view import ECN_COLUMNS, HEADROOM_COLUMNS
from lossless.report.view import STATUS_TEXT, ReportView, build_report
from lossless.system.resources import resource_path

HTML_FILE = "index.html"
MARKDOWN_FILE = "report.md"
_COMMON = {
    "undefined": StrictUndefined,
    "keep_trailing_newline": True,
    "trim_blocks": True,
    "lstrip_blocks": True,
}


@cache
def html_environment() -> Environment:
    return Environment(
        loader=FileSystemLoader(str(resource_path("templates", "report"))),
        autoescape=True,
        **_COMMON,  # type: ignore[arg-type]
    )


# Characters that mean something in GitHub-flavoured Markdown (tables, emphasis, links,
# code, raw HTML, entities), escaped with a backslash; < > & become entities.
_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+!|~])")


def markdown_escape(value: object) -> str:
    text = " ".join(str(value).split())  # no line break can end a table row
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return _MARKDOWN_SPECIAL.sub(r"\\\1", text)


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
    inventory: Inventory, plan: FabricPlan, lint, shown: list[str] | None = None
) -> dict[str, str]:
    view = build_report(inventory, plan, lint, shown)
    return {HTML_FILE: render_html(view), MARKDOWN_FILE: render_markdown(view)}
