"""Every value lossless renders is read back (issue 36): the read-back harness (tests/readback.py)
over the lab (every OS), pod-2048 (leaf01, spine01) and the lab with a Broadcom SONiC leaf.

Each number of each rendered line is changed, and each line deleted, and
`lint INVENTORY --configs DIR` must report it (a finding naming the device, or a refusal naming
the file), unless tests/data/readback/no_effect.yaml lists the change as one the switch does
not act on. CI draws a sample with a fixed seed; LOSSLESS_READBACK=full runs every case and
prints the counts per OS (python -m pytest -q -s tests/test_readback.py).
"""

from __future__ import annotations

import os
import time
from collections import Counter
from pathlib import Path

import pytest
from conftest import INVENTORIES
from readback import Case, Target, judge, listed, no_effect_list, sample

SEED = 36
FULL = os.environ.get("LOSSLESS_READBACK") == "full"
# Cases drawn per device in CI: enough to cover every kind of line over a few runs of the
# suite's seed, few enough for ~30 s on a shared 2-core runner (a pod case lints 48 switches).
PER_DEVICE = {"lab": 70, "broadcom-sonic": 70, "pod-2048": 45}

# The lab's SONiC leaf on a Broadcom ASIC (Dell Z9332F-ON, Tomahawk 3): SONiC renders the
# headroom itself there (BUFFER_PROFILE xon/xoff/size), where on Spectrum the switch sizes it.
BROADCOM = ("asic: spectrum-4\n    platform: SN5600\n    mgmt: 192.0.2.11", "asic: tomahawk-3\n    platform: Z9332F-ON\n    mgmt: 192.0.2.11")


@pytest.fixture(scope="module")
def targets(tmp_path_factory) -> list[Target]:
    lab = INVENTORIES / "lab.yaml"
    text = lab.read_text()
    assert BROADCOM[0] in text
    broadcom = tmp_path_factory.mktemp("broadcom") / "lab-broadcom.yaml"
    broadcom.write_text(text.replace(*BROADCOM))
    return [
        Target("lab", lab, ["leaf1", "leaf2", "leaf3", "leaf4", "spine1", "spine2"]),
        Target("broadcom-sonic", broadcom, ["leaf1"]),
        Target("pod-2048", INVENTORIES / "pod-2048.yaml", ["leaf01", "spine01"]),
    ]


def _drawn(target: Target) -> list[Case]:
    cases = []
    for device in target.devices:
        of_device = [c for c in target.cases() if c.device == device]
        cases += sample(of_device, None if FULL else PER_DEVICE[target.name], SEED)
    return cases


def test_every_rendered_value_and_line_is_read_back(targets):
    entries = no_effect_list()
    counts: Counter[tuple[str, str, str]] = Counter()
    missed: list[str] = []
    started = time.monotonic()
    for target in targets:
        for case in _drawn(target):
            outcome = judge(target, case)
            key = (target.name, case.os, case.kind)
            counts[(*key, "changed")] += 1
            if outcome.reported:
                counts[(*key, "reported")] += 1
            elif listed(case, entries):
                counts[(*key, "no effect")] += 1
            else:
                missed.append(case.id)
    if FULL:
        print(f"\nread-back harness, every case: {time.monotonic() - started:.0f} s")
        for key in sorted({k[:3] for k in counts}):
            changed, reported, none = (counts[(*key, c)] for c in ("changed", "reported", "no effect"))
            print(f"{':'.join(key)}: {changed} changed, {reported} reported, {none} no effect")
    assert not missed, f"{len(missed)} changes lint does not report:\n" + "\n".join(missed)


def test_the_no_effect_list_is_used_and_short(targets):
    """Every entry of the list excuses a change the harness makes (none is stale), and no
    entry excuses a change lint reports (the list is no blanket)."""
    entries = no_effect_list()
    assert len(entries) <= 40
    used = set()
    for target in targets:
        for case in target.cases():
            entry = listed(case, entries)
            if entry is not None:
                used.add(entry.pattern.pattern)
    assert {e.pattern.pattern for e in entries} <= used


def test_a_changed_value_is_caught_by_the_harness_itself(targets):
    """The harness can fail: an MTU changed on the EOS spine is reported, a description
    changed is not a case at all."""
    [lab] = [t for t in targets if t.name == "lab"]
    cases = [c for c in lab.cases() if c.device == "spine1"]
    mtu = next(c for c in cases if c.marked.strip() == "mtu <<9100->18200>>")
    assert judge(lab, mtu).reported
    assert not any("description" in c.marked for c in cases if c.kind == "value")
    assert Path(lab.inventory).exists()
