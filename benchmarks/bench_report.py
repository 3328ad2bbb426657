#!/usr/bin/env python3
"""Speed and size of `lossless report` as fabrics grow.

Run by hand: python3 benchmarks/bench_report.py

Generates rail-optimised fabrics of 2,048 to 8,192 GPUs with inventories/generate_clos.py,
plans and lints each once, then times building the view model and rendering the page and
the Markdown summary, best of 3 runs each, and prints the sizes of index.html and report.md,
so growth beyond linear shows up in the time per device and the bytes per device.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "inventories"))
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from bench_plan import best_of  # noqa: E402
from generate_clos import generate  # noqa: E402

from lossless.inventory import load_inventory  # noqa: E402
from lossless.lint.runner import lint  # noqa: E402
from lossless.planner.fabric import plan_fabric  # noqa: E402
from lossless.report.page import render_html, render_markdown  # noqa: E402
from lossless.report.simulation_view import simulations  # noqa: E402
from lossless.report.view import build_report  # noqa: E402


def main() -> None:
    print(
        f"{'gpus':>6} {'devices':>7} {'lint s':>7} {'view s':>7} {'html s':>7} {'md s':>6} "
        f"{'sim s':>6} {'runs':>4} {'html kB':>8} {'md kB':>6} {'ms/device':>9}"
    )
    with tempfile.TemporaryDirectory() as folder:
        for gpus in (2048, 4096, 8192):
            path = Path(folder) / f"clos-{gpus}.yaml"
            path.write_text(generate(gpus, 128, "400G"))
            inventory = load_inventory(path)
            plan = plan_fabric(inventory)
            lint_s, result = best_of(3, lambda p=plan: lint(p))
            view_s, view = best_of(3, lambda i=inventory, p=plan, r=result: build_report(i, p, r))
            html_s, html = best_of(3, lambda v=view: render_html(v))
            md_s, markdown = best_of(3, lambda v=view: render_markdown(v))
            names = list(plan.devices)
            sim_s, sims = best_of(3, lambda p=plan, n=names: simulations(p, n, 1e-3))
            devices = len(plan.devices)
            total = lint_s + view_s + html_s + md_s + sim_s
            print(
                f"{gpus:>6} {devices:>7} {lint_s:>7.3f} {view_s:>7.3f} {html_s:>7.3f} "
                f"{md_s:>6.3f} {sim_s:>6.3f} {sims.runs:>4} {len(html.encode()) / 1000:>8.0f} "
                f"{len(markdown.encode()) / 1000:>6.1f} {1000 * total / devices:>9.2f}"
            )


if __name__ == "__main__":
    main()
