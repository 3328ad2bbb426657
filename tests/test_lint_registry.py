"""The rule registry: a settings_only port rule reads nothing of a port but its settings, so
running it once per group of ports with equal settings finds what running it on every port
finds."""

from __future__ import annotations

import dataclasses

import pytest
from conftest import INVENTORIES, REPO

from lossless.errors import InputError, UsageError
from lossless.inventory import load_inventory
from lossless.lint.catalogue import registered_rules
from lossless.lint.configs import fabric_from_config, fabric_from_configs
from lossless.lint.groups import cable_groups, port_groups
from lossless.lint.registry import PORT_SETTINGS, Finding, computed_once, computing_once, rule
from lossless.lint.runner import _run_task, _tasks, run_rule
from lossless.plan import replaced
from lossless.planner.fabric import plan_fabric

RULES = registered_rules()

CONFIGS = REPO / "tests" / "configs"
POD = INVENTORIES / "pod-2048.yaml"
SETTINGS_ONLY = sorted(r.id for r in RULES.values() if r.settings_only)


class _SettingsOnly:
    """A port plan that lets a rule read its settings and nothing else."""

    def __init__(self, port):
        object.__setattr__(self, "_port", port)

    def __getattr__(self, name):
        if name not in PORT_SETTINGS:
            raise AssertionError(f"reads port.{name}, which is not one of PORT_SETTINGS")
        return getattr(self._port, name)


def _broken(plan):
    """Every third port of each device with settings that break the settings_only rules, in
    turn, so findings fall on some ports of a group and not on others."""
    faults = [
        lambda p: {"ecn": [replaced(e, min_bytes=e.max_bytes) for e in p.ecn]},
        lambda p: {"watchdog": replaced(p.watchdog, enabled=False) if p.watchdog else None},
        lambda p: {"watchdog": replaced(p.watchdog, poll_ms=5000) if p.watchdog else None},
        lambda p: {"mtu": 1500},
        lambda p: {"pfc_priorities": [*p.pfc_priorities, 6]},
        lambda p: {"wred_drop_queues": list(p.pfc_priorities)},
        lambda p: {"headroom": [replaced(h, size=1) for h in p.headroom]},
        lambda p: {"ecn": [replaced(e, max_bytes=10**12) for e in p.ecn]},
        lambda p: {"ecn": []},
        lambda p: {"ecn": [replaced(e, min_below_trigger=False) for e in p.ecn]},
        lambda p: {"ecn": [replaced(e, max_below_trigger=False) for e in p.ecn]},
    ]
    for device in plan.devices.values():
        for number, (name, port) in enumerate(device.ports.items()):
            if number % 3 == 0:
                fault = faults[(number // 3) % len(faults)]
                device.ports[name] = replaced(port, **fault(port))
    return plan


def _plans():
    for example in ("lab", "pod-2048"):
        planned = plan_fabric(load_inventory(INVENTORIES / f"{example}.yaml"))
        yield f"{example} planned", planned
        yield (
            f"{example} broken",
            _broken(plan_fabric(load_inventory(INVENTORIES / f"{example}.yaml"))),
        )
    lab = plan_fabric(load_inventory(INVENTORIES / "lab.yaml"))
    parsed, _ = fabric_from_configs(lab, REPO / "golden" / "lab")
    yield "lab parsed", parsed
    for folder in sorted(p for p in CONFIGS.iterdir() if p.is_dir()):
        for config in sorted(folder.iterdir()):
            if config.suffix in (".md", ".yaml") and folder.name != "cumulus":
                continue
            try:
                yield config.name, fabric_from_config(config, folder.name, None, None)
            except (InputError, UsageError, ValueError):
                continue  # a config the parser refuses is another test's subject


PLANS = list(_plans())


def test_there_are_settings_only_rules_and_plans_to_try_them_on():
    assert len(SETTINGS_ONLY) >= 8
    assert len(PLANS) > 20


@pytest.mark.parametrize("rule_id", SETTINGS_ONLY)
def test_a_settings_only_rule_reads_nothing_but_the_port_settings(rule_id):
    check = RULES[rule_id].check
    for _, plan in PLANS:
        for device in plan.devices.values():
            for port in device.ports.values():
                for item in check(_SettingsOnly(port), device, plan):
                    assert not isinstance(item, Finding)


@pytest.mark.parametrize("rule_id", SETTINGS_ONLY)
def test_grouped_ports_get_the_findings_each_port_gets_alone(rule_id):
    grouped = RULES[rule_id]
    alone = dataclasses.replace(grouped, settings_only=False)
    found_any = False
    for label, plan in PLANS:
        expected = sorted(run_rule(alone, plan))
        assert sorted(run_rule(grouped, plan)) == expected, label
        found_any = found_any or bool(expected)
    assert found_any, f"{rule_id} found nothing on any plan: the comparison proves little"


def test_each_port_of_a_group_gets_its_own_finding_and_source():
    plan = plan_fabric(load_inventory(INVENTORIES / "lab.yaml"))
    device = plan.devices["leaf1"]
    lossless = [p for p in device.ports.values() if p.lossless]
    for port in lossless:
        port.watchdog = replaced(port.watchdog, enabled=False)
        port.sources = {**port.sources, "watchdog": f"ports.yaml:{len(port.name)}:1"}
    found = [f for f in run_rule(RULES["LL114"], plan) if f.device == "leaf1"]
    assert [(f.port, f.source) for f in found] == [
        (p.name, f"ports.yaml:{len(p.name)}:1") for p in lossless
    ]


def test_settings_only_is_for_port_rules():
    with pytest.raises(ValueError, match="settings_only is for port rules"):
        rule("LL999", "x", "error", "device", "x", settings_only=True)


def test_a_settings_only_rule_that_yields_a_finding_is_a_bug():
    plan = plan_fabric(load_inventory(INVENTORIES / "lab.yaml"))
    bad = dataclasses.replace(
        RULES["LL114"],
        check=lambda port, device, fabric: [Finding("x", "LL114", "error", "m", "d", "p")],
    )
    with pytest.raises(TypeError, match="settings_only"):
        list(run_rule(bad, plan))


BY_CABLE = sorted(r.id for r in RULES.values() if r.by_cable)


def _cables_broken(plan):
    """Ports whose cable or headroom break the by_cable rules, some in each group: every
    third port configured for a 1 m cable, every fifth with 1 B of xoff, every seventh
    lossless with no headroom at all (a finding that names its port)."""
    for device in plan.devices.values():
        for number, (name, port) in enumerate(device.ports.items()):
            if number % 3 == 0:
                port = replaced(port, cable_m=1)
            if number % 5 == 0:
                port = replaced(port, headroom=[replaced(h, xoff=1) for h in port.headroom])
            if number % 7 == 0 and port.lossless:
                port = replaced(port, headroom=[])
            device.ports[name] = port
    return plan


CABLE_PLANS = [
    *PLANS,
    *(
        (f"{example} cables broken", _cables_broken(plan_fabric(load_inventory(path))))
        for example, path in (("lab", INVENTORIES / "lab.yaml"), ("pod-2048", POD))
    ),
]


def test_the_rules_grouped_by_cable():
    assert BY_CABLE == ["LL101", "LL120"]


@pytest.mark.parametrize("rule_id", BY_CABLE)
def test_ports_grouped_by_cable_get_the_findings_each_port_gets_alone(rule_id):
    grouped = RULES[rule_id]
    alone = dataclasses.replace(grouped, by_cable=False)
    named = False
    for label, plan in CABLE_PLANS:
        expected = sorted(run_rule(alone, plan))
        assert sorted(run_rule(grouped, plan)) == expected, label
        named = named or any(f.port and f.message.startswith(f.port) for f in expected)
    assert named or rule_id != "LL101", "no finding names its port: the test proves little"


@pytest.mark.parametrize("rule_id", BY_CABLE)
def test_a_by_cable_rule_runs_once_per_group_of_settings_and_cables(rule_id):
    plan = plan_fabric(load_inventory(POD))
    calls = []

    def counted(port, device, fabric):
        calls.append(port)
        return RULES[rule_id].check(port, device, fabric)

    grouped = dataclasses.replace(RULES[rule_id], check=counted)
    with computing_once():
        assert list(run_rule(grouped, plan)) == []
        groups = cable_groups(plan)
    ports = sum(len(d.ports) for d in plan.devices.values())
    assert len(calls) == sum(len(g) for g in groups.values()) < ports / 10


def test_by_cable_is_for_port_rules_and_not_with_settings_only():
    with pytest.raises(ValueError, match="by_cable is for port rules"):
        rule("LL999", "x", "error", "device", "x", by_cable=True)
    with pytest.raises(ValueError, match="not both"):
        rule("LL999", "x", "error", "port", "x", settings_only=True, by_cable=True)


def test_what_a_task_shares_is_let_go_once_its_rules_ran():
    plan = plan_fabric(load_inventory(INVENTORIES / "lab.yaml"))
    link_rules = [r for r in RULES.values() if r.shares == "switch ends"]
    assert len(link_rules) == 4
    kept = []
    with computing_once():
        port_groups(plan)
        _run_task(link_rules, plan)
        computed_once("switch ends", plan, lambda: kept.append("again") or [])
        computed_once("port groups", plan, lambda: kept.append("port groups again"))
    assert kept == ["again"]  # the link ends are gone; the port groups, shared, stay


def test_the_heaviest_tasks_start_first_then_the_other_shared_ones():
    tasks = [{r.shares for r in task} for task in _tasks(list(RULES.values()))]
    assert tasks[:2] == [{"deadlock"}, {"nic_ends"}]
    assert {"cable groups"} in tasks[2:4] and {"switch ends"} in tasks[2:4]
