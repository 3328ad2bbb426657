"""Every lint rule: the modules that define rules, imported here so that each registers its
own, and how rules are named on the command line and in `lint_ignore`."""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable
from functools import cache

from lossless.hosts import rules as host_rules
from lossless.lint import deadlock_rules
from lossless.lint import dynamics as dynamics_rules
from lossless.lint import rules as switch_rules
from lossless.lint.registry import RULES, Rule
from lossless.text.lists import comma_separated
from lossless.verify import rules as state_rules

# The modules that define rules, in the order lint() takes their rules (its worker processes
# take the heavy shared computations in this order: a switch's port groups, the deadlock
# analysis, the NIC ends): the switch rules; LL128 (the dynamics); LL140-LL142; LL109,
# LL130-LL139, LL210-LL211; then the rules `lossless verify` judges a running fabric's state
# by (LL301-LL312)
RULE_MODULES = (switch_rules, dynamics_rules, deadlock_rules, host_rules, state_rules)


class UnknownRule(ValueError):
    """A rule named on the command line or in `lint_ignore` that does not exist."""


@cache
def registered_rules() -> dict[str, Rule]:
    """Every rule by ID (the modules above registered them when imported), in RULE_MODULES
    order, each module's in the order it defines them."""
    place = {module.__name__: number for number, module in enumerate(RULE_MODULES)}
    return dict(sorted(RULES.items(), key=lambda item: place[item[1].check.__module__]))


def find_rule(name: str) -> Rule | None:
    """The rule with this ID (any case) or this name."""
    rules = registered_rules()
    wanted = name.strip()
    by_id = rules.get(wanted.upper())
    if by_id is not None:
        return by_id
    return next((r for r in rules.values() if r.name == wanted.lower()), None)


def resolve_rules(names: Iterable[str]) -> list[str]:
    """The rule IDs named by `names`: each a comma list of rule IDs (LL112), ID prefixes
    (LL1) or rule names (ecn-before-pfc). Anything else, an empty entry included, raises
    UnknownRule: a typo or an empty CI variable must not silently turn a rule off."""
    rules = registered_rules()
    try:
        words = comma_separated(names, "rule name")
    except ValueError as error:
        raise UnknownRule(str(error)) from None
    chosen: list[str] = []
    for word in words:
        rule_ = find_rule(word)
        matches = (
            [rule_.id]
            if rule_ is not None
            else sorted(i for i in rules if i.startswith(word.upper()))
            if re.fullmatch(r"LL[0-9]*", word.upper())
            else []
        )
        if not matches:
            close = difflib.get_close_matches(
                word, [*rules, *(r.name for r in rules.values())], n=1, cutoff=0.6
            )
            hint = f' (did you mean "{close[0]}"?)' if close else ""
            raise UnknownRule(f"no rule {word!r}{hint}; `lossless rules` lists them")
        chosen += [m for m in matches if m not in chosen]
    return chosen


def rule_spans(ids: Iterable[str]) -> str:
    """Rule IDs in a few words: each run of consecutive rules (by ID, among every rule) as
    its first and last, 'LL101-LL109, LL140'."""
    chosen = set(ids)
    runs: list[list[str]] = []
    inside = False
    for rule_id in sorted(registered_rules()):
        if rule_id in chosen:
            if inside:
                runs[-1].append(rule_id)
            else:
                runs.append([rule_id])
        inside = rule_id in chosen
    return ", ".join(run[0] if len(run) == 1 else f"{run[0]}-{run[-1]}" for run in runs)


def rule_record(rule: Rule) -> dict[str, str]:
    """A rule as `lossless rules --format json` lists it."""
    return {
        "id": rule.id,
        "name": rule.name,
        "severity": rule.severity,
        "scope": rule.scope,
        "explanation": rule.explanation,
        "source": rule.source,
    }
