"""Terminal output of live diffs and pushes: progress while running, a summary table after."""

from __future__ import annotations

import json
from collections import Counter

from rich.table import Table

from lossless.deploy.live import LiveResult
from lossless.report.console import console
from lossless.report.progress import ProgressReporter  # noqa: F401  (re-exported)


def render_results(results: list[LiveResult], fmt: str) -> str:
    if fmt == "json":
        return json.dumps(
            {
                "devices": [r.__dict__ for r in results],
                "summary": dict(sorted(Counter(r.status for r in results).items())),
            },
            indent=2,
        )
    out = console()
    with out.capture() as captured:
        for r in results:
            if r.diff.strip():
                out.print(f"--- {r.device}")
                out.print(r.diff.rstrip(), markup=False)
        table = Table(title="summary", title_justify="left", show_edge=False, pad_edge=False)
        for heading in ("device", "result", "detail"):
            table.add_column(heading)
        for r in results:
            table.add_row(
                r.device,
                r.status,
                r.message,
            )
        out.print(table)
        counts = Counter(r.status for r in results)
        out.print(", ".join(f"{count} {status}" for status, count in sorted(counts.items())))
    return captured.get()
