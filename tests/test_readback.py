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
import re
import time
from collections import Counter
from pathlib import Path

import pytest
from conftest import INVENTORIES
from readback import OPEN, Case, Target, judge, listed, no_effect_list, no_op_edit, sample

from lossless.lint.configs import fabric_from_configs
from lossless.lint.registry import Finding
from lossless.lint.runner import lint

SEED = 36
FULL = os.environ.get("LOSSLESS_READBACK") == "full"
# LOSSLESS_READBACK_ONLY=pod-2048:spine01 (target or target:device): one part of a full run,
# so that parts run side by side
ONLY = os.environ.get("LOSSLESS_READBACK_ONLY", "")
# Cases drawn per device in CI: enough to cover every kind of line over a few runs of the
# suite's seed, few enough for ~30 s on a shared 2-core runner (a pod case lints 48 switches).
PER_DEVICE = {"lab": 70, "broadcom-sonic": 70, "pod-2048": 45}

# The lab's SONiC leaf on a Broadcom ASIC (Dell Z9332F-ON, Tomahawk 3): SONiC renders the
# headroom itself there (BUFFER_PROFILE xon/xoff/size), where on Spectrum the switch sizes it.
BROADCOM = (
    "asic: spectrum-4\n    platform: SN5600\n    mgmt: 192.0.2.11",
    "asic: tomahawk-3\n    platform: Z9332F-ON\n    mgmt: 192.0.2.11",
)


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
        # one target per switch: each is planned with its link peers only (`lint --device`)
        Target("pod-2048", INVENTORIES / "pod-2048.yaml", ["leaf01"]),
        Target("pod-2048", INVENTORIES / "pod-2048.yaml", ["spine01"]),
    ]


def _drawn(target: Target) -> list[Case]:
    cases = []
    for device in target.devices:
        if ONLY and ONLY not in (target.name, f"{target.name}:{device}"):
            continue
        of_device = [c for c in target.cases() if c.device == device]
        cases += sample(of_device, None if FULL else PER_DEVICE[target.name], SEED)
    return cases


def test_every_rendered_value_and_line_is_read_back(targets):
    no_effect, still_open = no_effect_list(), no_effect_list(OPEN)
    counts: Counter[tuple[str, str, str]] = Counter()
    missed: list[str] = []
    fixed: list[str] = []
    untrue: list[str] = []  # findings the changed file contradicts
    started = time.monotonic()
    for target in targets:
        for case in _drawn(target):
            outcome = judge(target, case)
            untrue += outcome.false
            key = (target.name, case.os, case.kind)
            counts[(*key, "changed")] += 1
            gap = listed(case, still_open)
            if outcome.reported:
                counts[(*key, "reported")] += 1
                if gap is not None and outcome.refusal is None:  # (a refusal: another cause,
                    # such as a changed key that repeats another)
                    fixed.append(f"{case.id} (open.yaml: {gap.pattern.pattern})")
            elif listed(case, no_effect):
                counts[(*key, "no effect")] += 1
            elif gap is not None:
                counts[(*key, "open")] += 1
            else:
                missed.append(case.id)
    if FULL:
        print(f"\nread-back harness, every case: {time.monotonic() - started:.0f} s")
        for key in sorted({k[:3] for k in counts}):
            changed, reported, none, gaps = (
                counts[(*key, c)] for c in ("changed", "reported", "no effect", "open")
            )
            print(
                f"{':'.join(key)}: {changed} changed, {reported} reported, "
                f"{none} listed as no effect, {gaps} open"
            )
    assert not missed, f"{len(missed)} changes lint does not report:\n" + "\n".join(missed)
    assert not untrue, "findings the file contradicts:\n" + "\n".join(untrue)
    assert not fixed, "reported now, remove from open.yaml:\n" + "\n".join(fixed)


def test_the_lists_are_short_and_each_entry_matches_a_change(targets):
    """Every entry of no_effect.yaml and open.yaml names changes the harness makes (none is
    stale), and the lists stay short."""
    entries = [*no_effect_list(), *no_effect_list(OPEN)]
    assert len(no_effect_list()) <= 30 and len(no_effect_list(OPEN)) <= 10
    used = set()
    for target in targets:
        for case in target.cases():
            for entry in entries:
                if entry.os == case.os and entry.pattern.search(case.marked):
                    used.add(entry.pattern.pattern)
    assert {e.pattern.pattern for e in entries} - used == set()


def test_a_changed_value_is_caught_by_the_harness_itself(targets):
    """The harness can fail: an MTU changed on the EOS spine is reported, a description
    changed is not a case at all."""
    [lab] = [t for t in targets if t.name == "lab"]
    cases = [c for c in lab.cases() if c.device == "spine1"]
    mtu = next(c for c in cases if c.marked == "interface Ethernet1/1 > mtu <<9100->18200>>")
    assert judge(lab, mtu).reported
    assert not any("description" in c.marked for c in cases if c.kind == "value")
    assert Path(lab.inventory).exists()


def _what(findings: list[Finding]) -> Counter[tuple]:
    """Findings as lint says them, wherever they point and however they are grouped: a plan
    finding points at the inventory and groups ports that share settings, the same finding
    made from a config points at the config's lines and groups the ports of one line; each
    port counts once."""
    counted: Counter[tuple] = Counter()
    for finding in findings:
        merged = MERGED.search(finding.message)
        message = finding.message[: merged.start()] if merged else finding.message
        ports = int(merged.group(1)) if merged else 1
        key = (finding.rule, finding.severity, message, finding.device, finding.devices)
        counted[key] += ports
    return counted


MERGED = re.compile(r" \((\d+) ports(?: on \d+ devices)?: [^()]*\)$")


def test_a_render_and_the_render_with_a_no_op_edit_lint_alike(targets, tmp_path):
    """`lint INVENTORY --configs DIR` judges a config byte for byte as rendered from the plan
    (it is not parsed) and any other config from what it says. A comment added to one config
    must not change what lint finds, on any OS (issue 36: an edited QFX5220 config gained
    three LL114 warnings that the plan did not give)."""
    [lab] = [t for t in targets if t.name == "lab"]
    folder = tmp_path / "configs"
    folder.mkdir()
    for device in lab.devices:
        (folder / lab.config_name(device)).write_text(lab.rendered[device])

    def linted() -> tuple[Counter[tuple], int]:
        """What lint says, and in how many findings (the count `lint` prints)."""
        read, extra = fabric_from_configs(lab.plan, folder)
        findings = lint(read, (), (), extra, read=("config",)).findings
        return _what(findings), len(findings)

    untouched = linted()
    assert any(key[0] == "LL114" and key[3] == "leaf4" for key in untouched[0])  # QFX5220
    for device in lab.devices:
        path = folder / lab.config_name(device)
        os_name = lab.plan.devices[device].os
        path.write_text(no_op_edit(os_name, lab.rendered[device]))
        assert linted() == untouched, (device, os_name)
        path.write_text(lab.rendered[device])
