"""Terminal output of live diffs and pushes: progress while running, a summary table after.

A device's diff and messages are its own text: shown printable (lossless.text.printable), each
line of the diff on its own line, and never read as rich markup or emoji codes."""

from __future__ import annotations

import json
from collections import Counter
from typing import TYPE_CHECKING

from rich.table import Table
from rich.text import Text

from lossless.deploy.credentials import scrub
from lossless.deploy.impact import impact_counts, impact_lines, impact_summary
from lossless.report.console import console
from lossless.text.printable import inert_json, printable, printable_lines

if TYPE_CHECKING:  # live.py needs the deploy extra; this module must import without it
    from rich.console import Console

    from lossless.deploy.live import LiveResult, PushPlan
    from lossless.deploy.order import ChangeOrder

from lossless.report.progress import ProgressReporter  # noqa: F401  (re-exported)


def render_results(
    results: list[LiveResult], fmt: str, order: ChangeOrder, push: PushPlan | None = None
) -> str:
    """The results as text or JSON, with each change's impact and the change order (and for
    a push its batches), every known password scrubbed (a last line of defence: texts from
    devices are scrubbed where they come in) before the text is made printable."""
    return scrub(_render(results, fmt, order, push))


def _render(results: list[LiveResult], fmt: str, order: ChangeOrder, push: PushPlan | None) -> str:
    impacts = {r.device: r.impacts for r in results}
    if fmt == "json":
        return inert_json(
            json.dumps(
                {
                    "devices": [r.to_dict(order.phase_of(r.device)) for r in results],
                    "order": (push or order).to_dict(),
                    "summary": {
                        **dict(sorted(Counter(r.status for r in results).items())),
                        **impact_counts(impacts),
                        **_stop_summary(push),
                    },
                },
                indent=2,
            )
        )
    out = console()
    with out.capture() as captured:
        for r in results:
            if r.diff.strip() or r.impacts:
                phase = order.phase_of(r.device)
                _print(out, f"--- {r.device}" + (f" (phase {phase})" if phase else ""))
            if r.diff.strip():
                out.print(Text(printable_lines(scrub(r.diff.rstrip()))))
            if r.impacts:
                _print(out, "  impact:", *impact_lines(r.impacts))
        for line in push.lines() if push else order.lines():
            _print(out, line)
        table = Table(title="summary", title_justify="left", show_edge=False, pad_edge=False)
        for heading in ("device", "result", "detail"):
            table.add_column(heading)
        for r in results:
            table.add_row(
                *(Text(printable(scrub(cell))) for cell in (r.device, r.status, r.message))
            )
        out.print(table)
        counts = Counter(r.status for r in results)
        stopped = push.stop_line() if push else ""
        _print(
            out,
            ", ".join(f"{count} {status}" for status, count in sorted(counts.items()))
            + f"; {impact_summary(impacts)}"
            + (f"; {stopped}" if stopped else ""),
        )
    return captured.get()


def _stop_summary(push: PushPlan | None) -> dict[str, object]:
    """A push's summary of whether a gate failed and the wave (batch) the rollout stopped
    at (None: it did not stop)."""
    if push is None:
        return {}
    return {"gate_failed": push.gate_failed, "stopped": push.stopped}


def _print(out: Console, *lines: str) -> None:
    """Lines of text, each printable, as they are (no markup, no emoji codes)."""
    out.print(Text("\n".join(printable(scrub(line)) for line in lines)))
