"""The cyclic garbage collector around large work (lossless.system.long_lived): paused while
the lint rules run over a plan (the deadlock check of a 128k fabric builds a million
transient objects, which full collections scanned about five times over), on again after;
the NIC plans frozen with the plan they belong to, as the plan's own objects are."""

from __future__ import annotations

import gc

from conftest import INVENTORIES

from lossless.inventory import load_inventory
from lossless.lint import runner
from lossless.planner.fabric import plan_fabric


def test_the_rules_run_with_the_collector_paused(monkeypatch):
    plan = plan_fabric(load_inventory(INVENTORIES / "lab.yaml"))
    seen: list[bool] = []
    run_rule = runner.run_rule

    def watched(rule, fabric):
        seen.append(gc.isenabled())
        return run_rule(rule, fabric)

    monkeypatch.setattr(runner, "run_rule", watched)  # the lab is small: no worker process
    assert gc.isenabled()
    runner.lint(plan, ["LL140"])
    assert seen == [False]
    assert gc.isenabled()  # on again after


def test_nic_plans_are_frozen_with_the_plan():
    plan = plan_fabric(load_inventory(INVENTORIES / "lab.yaml"), hosts="later")
    nics = plan.planned_nics()
    assert nics
    young = {id(o) for o in gc.get_objects()}  # the generations a collection scans
    assert not any(id(nic) in young or id(nic.dcqcn) in young for nic in nics.values())
    assert gc.isenabled()
