"""One cause, one finding: a link or host rule's finding that follows from a device's own
config drift is folded into that drift finding (LL200), which names what it affects.

A config that changes a switch fact (a port's PFC priorities, the class RoCE's DSCP maps to)
makes the link rules (LL105, LL108) and host rules (LL131, LL132) disagree on that port:
those findings state the same difference again, from the other end. Each finding says which
fact it is about (Finding.facts); a rule finding on a device's port whose fact is the one the
device's config drifted on (on that port, else device-wide) is the drift's consequence, and
the drift finding, at the config line that differs, says it: the ports, the link peers and
the NICs it affects, each in the rule's own words. A finding whose cause is the other end's
(the peer's config, the NIC's settings) names no fact that drifted on this device and stays.
"""

from __future__ import annotations

from dataclasses import replace

from lossless.lint.registry import Finding
from lossless.text.natural import natural_sorted

DRIFT = "LL200"

# A drift fact that states another fact's value for the traffic the rules judge: the RoCE
# class ("DSCP 26 in TC 3") is the DSCP map's entry for RoCE's DSCP, where drift reports the
# map's change (lint/drift.py _only_classes).
STATED_BY = {"dscp_to_tc": ("dscp_to_tc", "roce")}


def _covering(fact: str) -> tuple[str, ...]:
    return STATED_BY.get(fact, (fact,))


Cause = tuple[str, str, str, str]  # a drift finding but for its port: where, what, device


def fold_consequences(findings: list[Finding]) -> list[Finding]:
    """The findings with each rule finding that follows from its device's drift folded into
    that drift finding (see the module's doc); order kept, the drift finding where it was.
    The drift findings of one device with the same words at the same line are one cause
    (lint.runner.one_per_cause reports them once): each of them names all it affects."""
    drifts: dict[tuple[str, str | None, str], Cause] = {}
    for finding in findings:
        if finding.rule == DRIFT and finding.device is not None:
            for fact in finding.facts:
                drifts.setdefault((finding.device, finding.port, fact), _of(finding))
    if not drifts:
        return findings
    folded: dict[Cause, list[Finding]] = {}
    kept = []
    for finding in findings:
        cause = None if finding.rule == DRIFT else _cause(finding, drifts)
        if cause is None:
            kept.append(finding)
        else:
            folded.setdefault(cause, []).append(finding)
    return [_naming(f, folded[_of(f)]) if f.rule == DRIFT and _of(f) in folded else f for f in kept]


def _of(drift: Finding) -> Cause:
    return (drift.source, drift.severity, drift.message, drift.device or "")


def _cause(finding: Finding, drifts: dict[tuple[str, str | None, str], Cause]) -> Cause | None:
    """The drift finding of the finding's own device that states its fact: on its port, else
    device-wide; None when its device did not drift on it."""
    if finding.device is None or finding.port is None:
        return None
    for fact in finding.facts:
        for where in (finding.port, None):
            for stated in _covering(fact):
                cause = drifts.get((finding.device, where, stated))
                if cause is not None:
                    return cause
    return None


def _naming(drift: Finding, consequences: list[Finding]) -> Finding:
    """The drift finding saying what follows from it: per rule and message, the ports."""
    by_message: dict[tuple[str, str], list[str]] = {}
    for finding in consequences:
        by_message.setdefault((finding.rule, finding.message), []).append(finding.port or "")
    said = "; ".join(
        f"{', '.join(natural_sorted(set(ports)))} ({rule}): {message}"
        for (rule, message), ports in sorted(by_message.items())
    )
    devices = tuple(
        dict.fromkeys(
            name
            for finding in (drift, *consequences)
            for name in (finding.devices or (finding.device,))
            if name is not None
        )
    )
    return replace(
        drift,
        message=f"{drift.message}; what follows from it: {said}",
        devices=devices if devices != (drift.device,) else drift.devices,
    )
