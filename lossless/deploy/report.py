"""Terminal output of live diffs and pushes: progress while running, a summary table after."""

from __future__ import annotations

import json
from collections import Counter
from typing import TYPE_CHECKING

from rich.table import Table

from lossless.deploy.credentials import scrub
from lossless.deploy.impact import impact_counts, impact_lines, impact_summary
from lossless.report.console import console

if TYPE_CHECKING:  # live.py needs the deploy extra; this module must import without it
    from lossless.deploy.live import LiveResult, PushPlan
    from lossless.deploy.order import ChangeOrder

from lossless.report.progress import ProgressReporter  # noqa: F401  (re-exported)


def render_results(
    results: list[LiveResult], fmt: str, order: ChangeOrder, push: PushPlan | None = None
) -> str:
    """The results as text or JSON, with each change's impact and the change order (and for
    a push its batches), every known password scrubbed (a last line of defence: texts from
    devices are scrubbed where they come in)."""
    return scrub(_render(results, fmt, order, push))


def _render(results: list[LiveResult], fmt: str, order: ChangeOrder, push: PushPlan | None) -> str:
    impacts = {r.device: r.impacts for r in results}
    if fmt == "json":
        return json.dumps(
            {
                "devices": [r.to_dict(order.phase_of(r.device)) for r in results],
                "order": (push or order).to_dict(),
                "summary": {
                    **dict(sorted(Counter(r.status for r in results).items())),
                    **impact_counts(impacts),
                },
            },
            indent=2,
        )
    out = console()
    with out.capture() as captured:
        for r in results:
            if r.diff.strip() or r.impacts:
                phase = order.phase_of(r.device)
                out.print(f"--- {r.device}" + (f" (phase {phase})" if phase else ""), markup=False)
            if r.diff.strip():
                out.print(r.diff.rstrip(), markup=False)
            if r.impacts:
                out.print("\n".join(["  impact:", *impact_lines(r.impacts)]), markup=False)
        for line in push.lines() if push else order.lines():
            out.print(line, markup=False)
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
        out.print(
            ", ".join(f"{count} {status}" for status, count in sorted(counts.items()))
            + f"; {impact_summary(impacts)}",
            markup=False,
        )
    return captured.get()
