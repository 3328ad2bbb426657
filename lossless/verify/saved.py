"""`verify --state DIR`: saved state judged device by device, where it is read.

A switch's saved outputs (and its baseline's, from a folder) are read and judged in one go,
in worker processes on a large fabric (system/parallel.py), and only the findings come back,
with the few fields of each switch port the link rules read of their peer (judge.Judged).
So no process holds the fabric's state: holding it took 5 KB a port, 2 GB at 131,072 GPUs,
and sending it back from the workers was a tenth of the run's CPU. The link rules
(rules.READS_PEER) then run here, once both ends of each cable are read.

With `--snapshot`, each switch's state comes back as the snapshot's text of it too, and is
written as it comes (devices in their names' order, the snapshot's), so saving the state
does not hold it either.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TextIO

from lossless.lint.runner import LintResult, lint
from lossless.observed import DeviceState
from lossless.plan import FabricPlan
from lossless.system.long_lived import collector_paused
from lossless.system.parallel import ordered_map
from lossless.verify.collect import Snapshot, SnapshotWriter, device_text, read_saved
from lossless.verify.judge import (
    STATE_RULES,
    STATE_SCOPES,
    DeviceRead,
    Judged,
    baseline_problem,
    judge_alone,
    judge_links,
    refuse_baseline,
    state_rules,
)


def judge_saved(
    plan: FabricPlan,
    folder: Path,
    baseline: Path | Snapshot | None = None,
    baseline_name: str = "",
    select: Iterable[str] = (),
    ignore: Iterable[str] = (),
    snapshot: TextIO | None = None,
) -> LintResult:
    """What judge(plan, snapshot_from_folder(plan, folder), before, ...) finds, without the
    snapshot: `baseline` a folder of saved outputs (each device's read beside its state
    now) or a snapshot (`--snapshot`'s file, loaded). A baseline that cannot be one of the
    state is bad input naming `baseline_name`, as check_baseline says it. `snapshot`: a
    stream the state's snapshot is written to (write_snapshot's text), as it is read."""
    names = sorted(plan.devices) if snapshot is not None else list(plan.devices)
    rules = state_rules()

    def judged(index: int) -> tuple[Judged, str | None, str | None, str]:
        name = names[index]
        device = plan.devices[name]
        found = read_saved(device, folder)
        read = (
            DeviceRead(found)
            if isinstance(found, DeviceState)
            else DeviceRead(None, found.reason, found.at or None)
        )
        earlier = None
        if isinstance(baseline, Path):
            before = read_saved(device, baseline, baseline=True)
            earlier = before if isinstance(before, DeviceState) else None
        elif baseline is not None:
            earlier = baseline.devices.get(name)
        verdict = judge_alone(plan, name, read, earlier, baseline is not None, rules)
        problem = baseline_problem(name, read.state, earlier) if read.state else None
        text = device_text(read.state) if snapshot is not None and read.state else None
        return verdict, problem, text, read.failure

    verdicts: dict[str, Judged] = {}
    problems: list[str | None] = []
    failures: dict[str, str] = {}  # why a switch could not be read, for the snapshot
    writer = SnapshotWriter(snapshot) if snapshot is not None else None
    # the outputs' parsed trees are many objects and no cycles (system/long_lived.py)
    with collector_paused():
        for name, (verdict, problem, text, failure) in zip(
            names, ordered_map(judged, len(names), here=False), strict=True
        ):
            verdicts[name] = verdict
            problems.append(problem)
            if failure:
                failures[name] = failure
            if writer is not None and text is not None:
                writer.device(name, text)
    if writer is not None:
        writer.close(failures)
    refuse_baseline(baseline_name, problems)
    findings = [f for verdict in verdicts.values() for f in verdict.findings]
    findings += judge_links(plan, verdicts, rules)
    return lint(plan, list(select) or [STATE_RULES], ignore, extra=findings, read=STATE_SCOPES)
