"""What an OS package (lossless/vendors/<os>/) offers the rest of lossless: its VENDOR.

An OS package turns a DevicePlan into that OS's config (render.py: the values its template
under templates/<os>/ prints; the templates compute nothing), reads a config back into a
DevicePlan (parse.py), and diffs a running config against the rendered one over what lossless
owns, saying what applying each change does to traffic (diff.py: diff and IMPACT). Nothing
outside the package knows the OS's syntax.

A plan value an OS's config cannot say is never dropped silently: the package lists it in
`not_expressed` (key of PLAN_VALUES -> why, with the source; or a function of the device plan
giving why, or None when this device's value can be said), and `plan` and `render` show it.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from importlib import import_module
from typing import Any

from lossless.plan import DevicePlan, FabricPlan
from lossless.vendors.impact import ImpactRule

# Why a plan value is not in an OS's config: a text, or a function of the device plan giving
# the text (None: this device's value can be said).
NotExpressed = str | Callable[[DevicePlan], str | None]


def _as_is(device: DevicePlan) -> DevicePlan:
    return device


def _nothing_to_say(device: DevicePlan) -> str | None:
    return None


@dataclass(frozen=True)
class Vendor:
    os: str  # the inventory's name for the OS
    title: str  # what people call it, in messages
    template: str  # under templates/
    extension: str  # of the rendered file
    context: Callable[[DevicePlan, FabricPlan], dict[str, Any]]  # what the template prints
    # The facts of a device plan its config can state: what a parsed config is compared on,
    # for the round trip and for drift (vendors.facts)
    expressed: Callable[[DevicePlan], dict[str, Any]]
    not_expressed: Mapping[str, NotExpressed]  # PLAN_VALUES key -> why its config cannot say it
    # The parser and the differ are modules imported when first used: a run that renders or
    # lints a plan imports none of them (70 ms for the five OSes, tests/test_imports.py)
    parser: str  # a module with parse(text, file, name, hint) -> DevicePlan
    differ: str  # a module with diff(running, intended) -> changes, and IMPACT
    diff_kind: str  # what its changes are: json-patch, nvue-commands, remediation, set-commands
    max_mtu: int | None = None  # the largest interface (IP) MTU it accepts, if it has one
    apply_hint: str = ""  # how to apply a diff on the switch, where that needs saying
    # How to put a saved running config back by hand ({name}: the file's name), where push
    # can save one (a napalm driver)
    restore_hint: str = ""
    # The napalm driver that reaches it (docs/reference/vendors.md 7): `diff --live` and
    # `push`; None where napalm has none (SONiC, Cumulus)
    napalm_driver: str | None = None
    # The plan in the OS's own terms where rendering changes what it says (Junos moves the
    # RoCE class to its queue 4): what a parsed config is compared with
    as_rendered: Callable[[DevicePlan], DevicePlan] = _as_is
    # The catalogue vendors whose chips the OS runs on (empty: any): what a config of this OS
    # whose hardware is unknown may be for
    asic_vendors: tuple[str, ...] = ()
    # A module reading the OS's operational state (`lossless verify`): COMMANDS (file stem ->
    # show command, JSON output where the OS gives it) and read(outputs, device) ->
    # observed.DeviceState; imported when first used
    state_reader: str = ""
    # What rendering a device chose that its operator must hear (on stderr), or None: the
    # Cumulus release whose NVUE words were used when the inventory names none
    render_note: Callable[[DevicePlan], str | None] = _nothing_to_say
    # What the switch does when a fact differs from the plan, where the drift finding must
    # say it (fact -> function of (config's value, plan's value) giving the words, or None)
    consequences: Mapping[str, Callable[[Any, Any], str | None]] = field(default_factory=dict)

    def parse(self, text: str, file: str, name: str, hint: DevicePlan | None = None) -> DevicePlan:
        """A config's text as a device plan (on top of the hint: facts a config cannot hold).
        Untrusted text goes through vendors.untrusted, which turns a failure into bad input."""
        parsed: DevicePlan = import_module(self.parser).parse(text, file, name, hint)
        return parsed

    def diff(self, running: str, intended: str, running_file: str) -> list[Any]:
        """The changes taking the running config's text to the intended, over what lossless
        owns. A differ that reads the running config with line marks takes its file name."""
        diff = import_module(self.differ).diff
        if "running_file" in inspect.signature(diff).parameters:
            return list(diff(running, intended, running_file=running_file))
        return list(diff(running, intended))

    def held_back(self, running: str, intended: str, running_file: str) -> list[str]:
        """What the diff leaves out because the switch's own apply tool refuses it (SONiC
        `config apply-patch`'s field validators), each with where and how to apply it
        otherwise; [] for an OS whose differ holds nothing back."""
        held = getattr(import_module(self.differ), "held_back", None)
        return list(held(running, intended, running_file)) if held is not None else []

    @property
    def impact(self) -> tuple[ImpactRule, ...]:
        """What applying each kind of change does to traffic, first match wins."""
        rules: tuple[ImpactRule, ...] = import_module(self.differ).IMPACT
        return rules

    def not_expressed_in(self, device: DevicePlan) -> list[tuple[str, str]]:
        """(what, why) for every value the device's plan asks for that this OS cannot say."""
        found = []
        for key, why in self.not_expressed.items():
            what, asked = PLAN_VALUES[key]
            if not asked(device):
                continue
            reason = why(device) if callable(why) else why
            if reason:
                found.append((what, reason))
        return found


# Plan values some OS configs cannot hold: key -> (what a reader calls it, is it asked for).
PLAN_VALUES: dict[str, tuple[str, Callable[[DevicePlan], bool]]] = {
    "ecmp.seed": ("ECMP hash seed", lambda d: d.ecmp.seed is not None),
    "ecmp.hash_offset": ("ECMP hash offset / rotate", lambda d: d.ecmp.hash_offset is not None),
    "ecmp.hash_fields": ("ECMP hash fields", lambda d: bool(d.ecmp.hash_fields)),
    "ecmp.resilient": ("ECMP resilient hashing", lambda d: d.ecmp.resilient),
    "pfc_watchdog": (
        "PFC watchdog",
        lambda d: any(p.lossless and p.watchdog and p.watchdog.enabled for p in d.ports.values()),
    ),
    "pfc_watchdog.timers": (
        "PFC watchdog timers",
        lambda d: any(p.watchdog and p.watchdog.enabled for p in d.ports.values()),
    ),
    "pfc_watchdog.port_timers": (
        "PFC watchdog timers that differ between ports",
        lambda d: len(_watchdog_timers(d)) > 1,
    ),
    "pfc_watchdog.action": (
        "PFC watchdog action other than drop",
        lambda d: any(t[3] != "drop" for t in _watchdog_timers(d)),
    ),
    "headroom.bytes": (
        "PFC headroom bytes (the switch sizes headroom itself)",
        lambda d: any(p.headroom for p in d.ports.values()),
    ),
    "headroom.cable_rows": (
        "cable lengths the switch's static headroom table has no row for",
        lambda d: any(p.lossless for p in d.ports.values()),
    ),
}


def _watchdog_timers(device: DevicePlan) -> set[tuple[int, int, int, str]]:
    """The distinct (detection, restoration, poll, action) of the device's watching ports."""
    return {
        (w.detection_ms, w.restoration_ms, w.poll_ms, w.action)
        for w in (p.watchdog for p in device.ports.values())
        if w is not None and w.enabled
    }
