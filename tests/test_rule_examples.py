"""The rule pages' failing examples (docs/rules/examples.yaml) are true: each change to the
lab's rendered configs is reported under its rule by `lossless lint INVENTORY --configs DIR`,
on the file it changed, and the golden configs as rendered give no finding at all."""

from __future__ import annotations

import sys

import pytest
from conftest import REPO

sys.path.insert(0, str(REPO / "docs" / "hooks"))
from pages import example_findings, load_rule_examples, reports

EXAMPLES = [
    pytest.param(rule, example, id=f"{rule}-{example['os']}")
    for rule, entries in load_rule_examples(REPO).items()
    for example in entries
]


def test_there_are_examples_for_several_oses():
    assert len(EXAMPLES) >= 10
    assert {param.values[1]["os"] for param in EXAMPLES} >= {
        "SONiC", "EOS", "NX-OS", "Junos", "Cumulus"
    }  # fmt: skip


@pytest.mark.parametrize(("rule", "example"), EXAMPLES)
def test_the_example_fails_its_rule(rule, example):
    from lossless.lint.catalogue import registered_rules

    assert rule in registered_rules()
    found = example_findings(example, REPO)
    # a link or host rule's finding that the changed config's own drift causes is folded
    # into that LL200 finding, which names the rule (lossless/lint/consequences.py)
    assert any(reports(f, rule) and f["file"] == example["file"] for f in found), found


def test_the_unchanged_lab_gives_no_finding():
    unchanged = {"os": "-", "file": "leaf1.json", "change": {"from": "{", "to": "{"}}
    # but the lab's one warning: leaf4, a QFX5220, has no PFC watchdog (LL114)
    assert [(f["rule"], f["device"]) for f in example_findings(unchanged, REPO)] == [
        ("LL114", "leaf4")
    ]
