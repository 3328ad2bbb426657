"""lint(): the selected rules over a plan (in worker processes on a large fabric), the
inventory's `lint_ignore` applied, and one finding per cause."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from lossless.lint.catalogue import registered_rules, resolve_rules
from lossless.lint.consequences import fold_consequences
from lossless.lint.groups import cable_groups, port_groups
from lossless.lint.registry import Finding, Rule, computing_once, finding_of, forget
from lossless.plan import DevicePlan, FabricPlan, PortPlan, located
from lossless.system.long_lived import collector_paused
from lossless.system.parallel import ordered_map
from lossless.text.grammar import first_few
from lossless.text.natural import natural_sorted

# Rules over what is read beside the plan (a config, a switch's state): their findings are
# made where that is read and reach lint() as `extra`.
READ_SCOPES = ("config", "state", "state-device")


def run_rule(rule_: Rule, fabric: FabricPlan) -> Iterator[Finding]:
    if rule_.scope in READ_SCOPES:  # raised where those are read
        return
    if rule_.scope == "fabric":
        for item in rule_.check(fabric):
            yield finding_of(rule_, item, fabric.inventory, None, None)
        return
    groups = _groups(rule_, fabric)
    for device in fabric.devices.values():
        if rule_.scope == "device":
            for item in rule_.check(device, fabric):
                yield finding_of(rule_, item, located(device, *rule_.facts), device.name, None)
        elif rule_.settings_only:
            for group in groups[device.name]:
                for item in rule_.check(group[0], device, fabric):
                    if isinstance(item, Finding):
                        raise TypeError(f"{rule_.id} is settings_only: it yields messages")
                    for port in group:
                        source = located(port, *rule_.facts)
                        yield finding_of(rule_, item, source, device.name, port.name)
        elif rule_.by_cable:
            # judged on each port only in a group where its first port shows a finding
            for group in groups[device.name]:
                if any(True for _ in rule_.check(group[0], device, fabric)):
                    yield from _port_by_port(rule_, group, device, fabric)
        else:
            yield from _port_by_port(rule_, device.ports.values(), device, fabric)


def _groups(rule_: Rule, fabric: FabricPlan) -> dict[str, list[list[PortPlan]]]:
    """The groups of each device's ports a settings_only or by_cable rule runs once for."""
    if rule_.settings_only:
        return port_groups(fabric)
    if rule_.by_cable:
        return cable_groups(fabric)
    return {}


def _port_by_port(
    rule_: Rule, ports: Iterable[PortPlan], device: DevicePlan, fabric: FabricPlan
) -> Iterator[Finding]:
    for port in ports:
        for item in rule_.check(port, device, fabric):
            source = located(port, *rule_.facts)
            yield finding_of(rule_, item, source, device.name, port.name)


def affected(finding: Finding) -> tuple[str, ...]:
    """The devices a finding counts against: its device, or those it names (Finding.devices:
    the devices of a cause merged by one_per_cause, the switches on a deadlock cycle)."""
    if finding.devices:
        return finding.devices
    return () if finding.device is None else (finding.device,)


@dataclass(frozen=True)
class Suppressed:
    """The findings one `lint_ignore` entry skipped: its rule and reason, whose `lint_ignore`
    it is (scope "fabric", "device" or "port") and where that is written (`at`: the inventory
    file for the fabric's, else the FILE:LINE:COL of the device or port entry, a range's for
    all its devices or ports, that holds it or names the profile that does; the plan keeps
    no line of the `lint_ignore` key itself)."""

    rule: str
    reason: str
    scope: str
    at: str
    findings: tuple[Finding, ...]


@dataclass
class LintResult:
    findings: list[Finding]
    # What `lint_ignore` skipped: one entry per rule, reason and lint_ignore, however many
    # findings it covers (a fabric-wide one over a 32k-GPU fabric: thousands of ports)
    suppressed: list[Suppressed]
    # The rules that judged this input (SARIF's and JUnit's list: a rule that did not run is
    # no passing test): those over the plan, and over configs or switch state where read.
    rules: tuple[str, ...] = ()

    @property
    def failed(self) -> bool:
        return any(f.severity == "error" for f in self.findings)


def ignored_by(fabric: FabricPlan, finding: Finding) -> tuple[str, str, str] | None:
    """(reason, scope, where it is written) of the `lint_ignore` that skips this finding:
    the fabric's, its device's or its port's, the first that names its rule; None if none."""
    device = fabric.devices.get(finding.device or "")
    scopes = [("fabric", fabric.inventory, fabric.lint_ignore)]
    if device is not None:
        scopes.append(("device", device.source, device.lint_ignore))
        port = device.ports.get(finding.port or "")
        if port is not None:
            scopes.append(("port", port.source, port.lint_ignore))
    for scope, at, ignores in scopes:
        if finding.rule in ignores:
            return ignores[finding.rule], scope, at
    return None


def suppression(fabric: FabricPlan, finding: Finding) -> str | None:
    """The reason an inline `lint_ignore` gives for skipping this finding, if any."""
    ignored = ignored_by(fabric, finding)
    return None if ignored is None else ignored[0]


def lint(
    fabric: FabricPlan,
    select: Iterable[str] = (),
    ignore: Iterable[str] = (),
    extra: Iterable[Finding] = (),
    *,
    also: FabricPlan | None = None,
    read: Iterable[str] = (),
) -> LintResult:
    """Run the selected rules (see resolve_rules for how they are named); `extra` are
    findings made while reading configs (drift). `also`: a second plan of the same
    inventory (its configs read back, lint.configs.fabric_from_configs) judged in the same
    run; a finding both make (the same rule and words on the same subject, wherever each
    points) is reported once, where the first plan points, and the inventory's
    `lint_ignore` (in `fabric`) applies to both. What `lint_ignore` skips is grouped per
    entry (LintResult.suppressed). A second plan whose devices are all the first's (every config
    as rendered) is not judged again. `read`: the READ_SCOPES whose input was read (configs:
    "config"; switch state: "state", "state-device"), so that their rules count as run."""
    selected, ignored = resolve_rules(select), resolve_rules(ignore)
    chosen = [r for r in registered_rules().values() if _selected(r.id, selected, ignored)]
    found = _findings(fabric, chosen)
    if also is not None and any(also.devices.get(n) is not d for n, d in fabric.devices.items()):
        # What the second plan finds on the same subject in the same words, the first found:
        # the configs repeat what the inventory says, so it is reported where that says it.
        causes = {_cause(f) for f in found}
        found |= {f for f in _findings(also, chosen) if _cause(f) not in causes}
    found |= {f for f in extra if _selected(f.rule, selected, ignored)}
    kept = []
    skipped: dict[tuple[str, str, str, str], list[Finding]] = {}
    for finding in sorted(found, key=_order):
        by = ignored_by(fabric, finding)
        if by is None:
            kept.append(finding)
        else:
            reason, scope, at = by
            skipped.setdefault((finding.rule, reason, scope, at), []).append(finding)
    suppressed = [Suppressed(*key, tuple(group)) for key, group in skipped.items()]
    ran = tuple(i for i in runnable(read) if _selected(i, selected, ignored))
    return LintResult(one_per_cause(fold_consequences(kept)), suppressed, ran)


def runnable(read: Iterable[str] = ()) -> list[str]:
    """The rules lint() runs when none is selected or ignored: those over the plan, and
    those of the READ_SCOPES in `read` (see lint)."""
    return [
        r.id for r in registered_rules().values() if r.scope not in READ_SCOPES or r.scope in read
    ]


def _cause(finding: Finding) -> tuple:
    """A finding but for where it points: its order without the source."""
    return _order(finding)[1:]


def _findings(fabric: FabricPlan, chosen: list[Rule]) -> set[Finding]:
    """What the chosen rules find in the plan, each finding once."""
    tasks = _tasks(chosen)
    with computing_once(), collector_paused():  # a deadlock check's million transient objects
        if any(r.settings_only or r.by_cable for r in chosen):  # made once, before workers fork
            port_groups(fabric)
        batches = ordered_map(
            lambda index: _run_task(tasks[index], fabric),
            len(tasks),
            chunk=1,
            worthwhile=sum(len(d.ports) for d in fabric.devices.values()) >= PORTS_FOR_WORKERS,
        )
        return {f for batch in batches for f in batch}


def _run_task(rules: list[Rule], fabric: FabricPlan) -> list[Finding]:
    """A task's rules (see _tasks); the value they share is let go once they ran (a
    128k fabric's link ends, cable groups and NIC ends are tens of MB each)."""
    found = [f for r in rules for f in run_rule(r, fabric)]
    for name in {r.shares for r in rules if r.shares}:
        forget(name)
    return found


# From this many ports the rules run in worker processes (lossless.parallel), a few rules
# each; below it starting them costs more than it saves.
PORTS_FOR_WORKERS = 20_000


# The computed values whose rules start first, in this order: the deadlock analysis is the
# heaviest task (about a second at 128k GPUs, a million transient objects), best started in
# a fresh worker; the NIC ends' next. Each starts a worker of its own; the rest fill in.
STARTED_FIRST = ("deadlock", "nic_ends")


def _tasks(rules: list[Rule]) -> list[list[Rule]]:
    """The rules in groups for the workers: the rules that share a computed value together
    (it is computed once per process), those first (they are the heaviest: STARTED_FIRST
    first of all), then each other rule on its own."""
    shared: dict[str, list[Rule]] = {}
    alone: list[list[Rule]] = []
    for rule_ in rules:
        if rule_.shares:
            shared.setdefault(rule_.shares, []).append(rule_)
        else:
            alone.append([rule_])
    first = [shared.pop(name) for name in STARTED_FIRST if name in shared]
    return [*first, *shared.values(), *alone]


def _order(finding: Finding) -> tuple:
    """Finding's own order (its fields in turn), as a plain tuple: fast to sort by."""
    return (
        finding.source,
        finding.rule,
        finding.severity,
        finding.message,
        finding.device,
        finding.port,
        finding.devices,
    )


SHOWN_SUBJECTS = 3


def one_per_cause(findings: list[Finding]) -> list[Finding]:
    """Findings of one rule with the same message at the same line have one cause (a fabric
    MTU, a switch-wide ECN policy, a shared profile): report it once, at that line, saying
    where else it applies, instead of once per port."""
    groups: dict[tuple[str, str, str, str], list[Finding]] = {}
    for finding in findings:
        key = (finding.source, finding.rule, finding.severity, finding.message)
        groups.setdefault(key, []).append(finding)
    merged = []
    for group in groups.values():
        first = group[0]
        if len(group) == 1:
            merged.append(first)
            continue
        devices = {f.device for f in group}
        named = tuple(dict.fromkeys(name for f in group for name in affected(f)))
        subjects = [
            (f.port or "") if len(devices) == 1 else ":".join(x for x in (f.device, f.port) if x)
            for f in group
        ]
        where = first_few(natural_sorted(subjects), SHOWN_SUBJECTS)
        merged.append(
            Finding(
                first.source,
                first.rule,
                first.severity,
                f"{first.message} ({len(group)} ports on {len(devices)} devices: {where})"
                if len(devices) > 1
                else f"{first.message} ({len(group)} ports: {where})",
                first.device if len(devices) == 1 else None,
                None,
                () if set(named) == {first.device} else named,
            )
        )
    return merged


def _selected(rule_id: str, select: list[str], ignore: list[str]) -> bool:
    return (not select or rule_id in select) and rule_id not in ignore


def blocking_errors(fabric: FabricPlan, devices: Iterable[str]) -> list[Finding]:
    """Error findings that concern these devices (or the whole fabric): what stops a push."""
    names = set(devices)
    return [
        f
        for f in lint(fabric).findings
        if f.severity == "error" and (f.device is None or f.device in names)
    ]
