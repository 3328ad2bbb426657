"""NVIDIA Cumulus Linux 5.x: an NVUE configuration fragment (the YAML `nv config show -o yaml`
prints), merged into the switch's configuration with `nv config patch` (docs/vendors/cumulus.md).

Why YAML and not a list of `nv set` commands: the YAML states the whole intended value of
what lossless owns, merges in one transaction (`nv config patch FILE`, `nv config apply
--confirm` with automatic rollback), diffs cleanly in Git, and re-applying it changes
nothing. It is a fragment: `nv config replace` or copying it over /etc/nvue.d/startup.yaml
would remove everything else the switch has (addresses, BGP, users). The `diff --running`
output is `nv set`/`nv unset` commands that paste into a shell.

Why each line is what it is (sources: CumulusNetworks/docs, cumulus-linux-514, pages named as
in defaults.py; NVUE command reference `nv list-commands` for the value ranges):
* The words of the release it is rendered for (inventory `os_version`, default the newest):
  Cumulus Linux 5.15 renamed NVUE's on/off switches (`Words` below, with its sources).
* `qos roce mode lossless` (ROCE) with `qos roce enable on` (5.14 and earlier) or `qos roce
  state enabled` (5.15): RoCE pools, trust, LLDP app TLV and PFC/ECN defaults; the profiles
  below state the plan's values on top (ROCE "Change RoCE Configuration").
* `qos mapping default-global`: `trust l3` and all 64 DSCPs (QOS "Trust DSCP"): the default
  map is DSCP // 8, which would put 24-31 in the no-drop class and 49-55 with CNP.
* `qos egress-queue-mapping default-global`: all 8 switch priorities (QOS "Egress Queues";
  NVUE supports only default-global); under `qos roce` the unlisted ones would go to TC 0.
* `qos egress-scheduler default-global`: all 8 traffic classes, so none keeps the default
  12/13 % share (QOS "Egress Scheduler"); a class the plan does not use gets DWRR 0 % (no
  share; bw-percent takes 0-100, NVIDIA's own lossy-multi-tc profile has a DWRR-0% class),
  which keeps the DWRR sum at the plan's (at most 100 %).
* `qos congestion-control default-global` on the lossless traffic class: ECN on, RED off,
  thresholds in bytes (QOS "Congestion Control"); one switch-wide profile, so the earliest-
  marking of the ports' plans (vendors.grouping.earliest_ecn).
* `qos pfc roce-<N>m` per cable length, bound per port: switch priorities, rx/tx, cable
  length; Cumulus computes xoff/xon/port-buffer from it (QOS "PFC": NVIDIA recommends not
  setting them), so the plan's headroom bytes are not forced.
* `qos pfc-watchdog` polling-interval and robustness (detection = interval x robustness) and
  `interface <swp> qos pfc-watchdog state enable` on each lossless port (QOS "PFC
  Watchdog"; NVUE reference `nv set interface <interface-id> qos pfc-watchdog state`).
* `interface <swp> link mtu/speed`, `description`, `type swp` (PORT).
* `system forwarding hash-seed` (0-4294967295): the plan's per-switch seed, derived from the
  switch name so it never changes between renders; changing it restarts switchd (every port
  resets) (ECMP "Unique Hash Seed"). `system forwarding ecmp-hash`: every field on or off
  (`enabled`/`disabled` from 5.15) (ECMP "ECMP Hashing"), so the defaults (IPv6 flow label
  on) do not leak in.
"""

from __future__ import annotations

import io
import json
import math
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from ruamel.yaml import YAML

from lossless.errors import InputError, Problem
from lossless.plan import DevicePlan, FabricPlan, PortPlan, replaced
from lossless.text.units import format_speed, whole_metres
from lossless.vendors.facts import expressed_facts
from lossless.vendors.free_text import one_line, port_description
from lossless.vendors.grouping import earliest_ecn, group
from lossless.vendors.vendor import NotExpressed

TEMPLATE = "cumulus/startup.yaml.j2"
EXTENSION = "yaml"
PROFILE = "default-global"
# our ECMP field names -> the NVUE `system forwarding ecmp-hash` keys that say them (ECMP
# "ECMP Hashing" table); the renderer states them all, the parser reads them back.
HASH_FIELDS = {
    "ip-protocol": ("ip-protocol",),
    "src-ip": ("source-ip",),
    "dst-ip": ("destination-ip",),
    "src-port": ("source-port",),
    "dst-port": ("destination-port",),
    "ipv6-flow-label": ("ipv6-label",),
    "ingress-interface": ("ingress-interface",),
    "inner-headers": (
        "inner-ip-protocol",
        "inner-source-ip",
        "inner-destination-ip",
        "inner-source-port",
        "inner-destination-port",
        "inner-ipv6-label",
    ),
}
HASH_SEED_NOTE = "  # restarts switchd: every port resets"


# -- the release the fragment is written for ------------------------------------------------
# What changed between the releases lossless writes NVUE for, over every key the template
# emits: Cumulus Linux 5.15 "New and Changed NVUE Commands", tab "On/Off"
# (docs.nvidia.com/networking-ethernet-software/cumulus-linux-515/Whats-New/
# New-and-Changed-NVUE-Commands/; CumulusNetworks/docs content/cumulus-linux-515/Whats-New/
# New-and-Changed-NVUE-Commands.md):
#   `nv set qos roce enable on|off`        -> `nv set qos roce state enabled|disabled`
#   `nv set system forwarding ecmp-hash <field> on|off` -> `... <field> enabled|disabled`, all
#   14 fields (NVUE reference "System Forwarding": "In Cumulus Linux 5.14 and earlier, you
#   specify on or off"; the 5.15 ECMP page's table still shows on/off, the table wins)
#   (`router adaptive-routing enable on|off` -> `state enabled|disabled` too: not rendered)
# Not in that table, so the same words from 5.9 to 5.15: `qos roce mode`, `qos pfc <profile>
# rx|tx enable|disable`, `cable-length`, `switch-priority`, `qos congestion-control ...
# ecn|red enable|disable`, `min-threshold`, `max-threshold`, `probability`, `qos pfc-watchdog
# polling-interval|robustness`, `interface <swp> qos pfc-watchdog state enable|disable` (NVUE
# reference "QoS" still says `enable`/`disable`), `qos mapping`, `egress-queue-mapping`,
# `egress-scheduler ... mode|bw-percent`, `link mtu|speed`, `description`, `type`, `system
# forwarding hash-seed`. Resilient hashing still has no NVUE command in 5.15 (5.15 ECMP page).
# Oldest: 5.9, from which `nv config apply` also saves the config (APPLY_HINT relies on it);
# the PFC watchdog commands exist since 5.6 (Cumulus Linux 5.6 "What's New").
# 5.16 and 5.17 keep the 5.15 words for every key above: their "New and Removed NVUE Commands"
# pages (CumulusNetworks/docs content/cumulus-linux-516/Whats-New/New-and-Removed-NVUE-
# Commands.md @ 0da900a, content/cumulus-linux-517/... @ 09ee50c) add commands and remove
# only `system telemetry stats-group <id> acl-stats class acl-set export stat` (5.16; none in
# 5.17); 5.16's "New and Changed" page lists only 5.15's syntax changes. Newer than 5.17: not
# checked, so refused until its pages are read.


@dataclass(frozen=True)
class Words:
    """The NVUE words of a group of releases, for what changed between them."""

    roce_switch: str  # the key under `qos roce` that turns the preset on or off
    on: str
    off: str


ON_OFF = Words("enable", "on", "off")  # Cumulus Linux 5.0-5.14
ENABLED_DISABLED = Words("state", "enabled", "disabled")  # Cumulus Linux 5.15-5.17
OLDEST = (5, 9)
NEWEST = (5, 17)
# Without os_version: the first release of the newest words, which 5.15 to NEWEST all take
DEFAULT = (5, 15)
RELEASES = tuple(f"5.{minor}" for minor in range(OLDEST[1], NEWEST[1] + 1))
_RELEASE = re.compile(r"(\d{1,3})\.(\d{1,3})(?:\.\d+)?", re.ASCII)  # schema: os_version


def release(version: str) -> tuple[int, int] | None:
    """(major, minor) of a release lossless writes NVUE for ("5.15", "5.14.1"), else None."""
    match = _RELEASE.fullmatch(version)
    if match is None:
        return None
    number = (int(match[1]), int(match[2]))
    return number if OLDEST <= number <= NEWEST else None


def release_words(number: tuple[int, int]) -> Words:
    return ENABLED_DISABLED if number >= (5, 15) else ON_OFF


def unsupported(version: str) -> str:
    return (
        f"Cumulus Linux {version}: lossless writes NVUE for Cumulus Linux {RELEASES[0]} to "
        f"{RELEASES[-1]} only (5.15 renamed NVUE's on/off words; older and newer releases "
        "are not checked)"
    )


def release_origin(device: DevicePlan) -> str:
    """Where the release a fragment is written for comes from, for its header and stderr."""
    if device.os_version is not None:
        return "the inventory's os_version"
    return (
        f"no os_version given: the words of 5.15 to {RELEASES[-1]}, the newest lossless "
        f"knows; {RELEASES[0]} to 5.14 reject them, give their os_version"
    )


def release_note(device: DevicePlan) -> str | None:
    """What rendering says on stderr: the release whose words were used, where none was
    given (issue 39: a 5.14 switch rejects 5.15's words at `nv config patch`)."""
    if device.os_version is not None:
        return None
    return (
        f"{device.name}: NVUE written in the words of Cumulus Linux "
        f"{DEFAULT[0]}.{DEFAULT[1]} ({release_origin(device)})"
    )


def device_release(device: DevicePlan) -> tuple[int, int]:
    """The release a device's fragment is written for: its os_version, else DEFAULT (the
    newest words, named by their first release). The inventory schema refuses another
    release at its line; a plan made some other way is refused here, at the device."""
    if device.os_version is None:
        return DEFAULT
    number = release(device.os_version)
    if number is None:
        file, _, place = device.source.rpartition(":")
        file, _, line = file.rpartition(":")
        at = (int(line), int(place)) if line.isdigit() and place.isdigit() else (1, 1)
        path = f"devices.{device.name}.os_version"
        message = unsupported(repr(device.os_version))
        raise InputError([Problem(file or device.source, *at, path, message)])
    return number


def in_words(tree: dict[str, Any], words: Words) -> dict[str, Any]:
    """An NVUE tree (as read.py reads one) with the switches 5.15 renamed in these words and
    everything else as it is: a running config and ours are compared in one release's words.
    A value that is not an on/off word stays as it is (the parser judges it)."""
    tree = dict(tree)
    qos = tree.get("qos")
    if isinstance(qos, dict) and isinstance(qos.get("roce"), dict):
        roce = {k: v for k, v in qos["roce"].items() if k not in ("enable", "state")}
        switch = [v for k, v in qos["roce"].items() if k in ("enable", "state")]
        if switch:  # the last one stated wins, as in NVUE's own merge
            roce[words.roce_switch] = _word(switch[-1], words)
        tree["qos"] = {**qos, "roce": dict(sorted(roce.items()))}
    system = tree.get("system")
    forwarding = system.get("forwarding") if isinstance(system, dict) else None
    if (
        isinstance(system, dict)
        and isinstance(forwarding, dict)
        and isinstance(forwarding.get("ecmp-hash"), dict)
    ):
        fields = {k: _word(v, words) for k, v in forwarding["ecmp-hash"].items()}
        tree["system"] = {**system, "forwarding": {**forwarding, "ecmp-hash": fields}}
    return tree


def _word(value: Any, words: Words) -> Any:
    if value is True or value in ("on", "enabled"):
        return words.on
    if value is False or value in ("off", "disabled"):
        return words.off
    return value


APPLY_HINT = (
    "apply on the switch: paste these lines, check `nv config diff`, then "
    "`nv config apply --confirm` (rolls back unless confirmed); or copy the rendered fragment "
    "and merge it with `nv config patch /absolute/path/FILE.yaml` then `nv config apply "
    "--confirm`; never `nv config replace` (it would remove everything else)"
)


def pfc_profile_name(port: PortPlan) -> str:
    return f"roce-{whole_metres(port.cable_m or 0)}m"


# Strings YAML keeps plain: a letter first, then words of letters, digits and `_./-`, with
# single `:` inside words and single spaces between them (so no `: ` and no ` #`); the
# words YAML would read as booleans or null are quoted instead.
_PLAIN = re.compile(r"[A-Za-z_][\w./-]*(?::[\w./-]+)*(?: [\w./-]+(?::[\w./-]+)*)*", re.ASCII)
_NOT_PLAIN = {"true", "True", "TRUE", "false", "False", "FALSE", "null", "Null", "NULL"}


def yaml_text(value: str) -> str:
    """A string as ruamel.yaml writes it (plain when it can be, else quoted), so the
    template prints exactly what ruamel.yaml would dump for the same data."""
    if _PLAIN.fullmatch(value) and value not in _NOT_PLAIN:
        return value
    return _emitted(value)


@lru_cache(maxsize=4096)
def _emitted(value: str) -> str:
    stream = io.StringIO()
    dumper = YAML(typ="safe", pure=True)
    dumper.default_flow_style = False
    dumper.width = 1 << 20  # one line whatever its length
    dumper.dump({"k": value}, stream)
    text = stream.getvalue()[3:].rstrip("\n")
    if "\n" in text:  # a value with line breaks: one line, escaped, still valid YAML
        return json.dumps(value)
    return text


def context(device: DevicePlan, fabric: FabricPlan) -> dict[str, Any]:
    lossless = [p for p in device.ports.values() if p.lossless]
    planned = {q.queue: q for q in device.queues}
    ecn = earliest_ecn(lossless)
    watchdog = device.watchdog
    number = device_release(device)
    words = release_words(number)
    return {
        "device": device.name,
        "release": f"{number[0]}.{number[1]}",
        "release_origin": release_origin(device),
        # `qos roce`: the preset's switch in the release's words, and its mode (sorted keys)
        "roce": sorted([(words.roce_switch, words.on), ("mode", "lossless")]),
        "interfaces": [
            {
                "name": yaml_text(port.name),
                "description": yaml_text(one_line(port_description(port)))
                if port.description or port.peer
                else None,
                "mtu": port.mtu,
                "speed": yaml_text(format_speed(port.speed_mbps)),
                "pfc_profile": yaml_text(pfc_profile_name(port)) if port.lossless else None,
                "watchdog": bool(port.lossless and port.watchdog and port.watchdog.enabled),
            }
            for port in device.ports.values()
        ],
        "dscp_map": sorted(device.maps.dscp_to_tc.items()),
        "sp_to_tc": [(sp, device.maps.tc_to_queue[sp]) for sp in range(8)],
        "scheduler": [
            ("strict", None)
            if tc in planned and planned[tc].scheduler == "strict"
            else ("dwrr", planned[tc].weight if tc in planned else 0)
            for tc in range(8)
        ],
        "ecn": ecn,
        "pfc_profiles": [
            {
                "name": yaml_text(name),
                "cable_m": whole_metres(ports[0].cable_m or 0),
                "priorities": device.lossless_priorities,
            }
            for name, ports in group(lossless, pfc_profile_name).items()
        ],
        "watchdog": {
            "poll_ms": watchdog.poll_ms,
            # Cumulus declares a storm after `robustness` polls (QOS "PFC Watchdog").
            "robustness": max(1, math.ceil(watchdog.detection_ms / watchdog.poll_ms)),
        }
        if watchdog.enabled
        else None,
        "hash_seed": device.ecmp.seed,
        "ecmp_hash": [
            (key, words.on if ours in device.ecmp.hash_fields else words.off)
            for ours, keys in HASH_FIELDS.items()
            for key in keys
        ],
    }


def expressed(device: DevicePlan) -> dict[str, Any]:
    """What the NVUE fragment says about a device (compared for round trip and drift)."""
    return expressed_facts(
        device,
        (
            "speed_mbps",
            "mtu",
            "lossless",
            "pfc_priorities",
            "cable_m",
            "ecn",
            "watchdog_enabled",
            "wred_drop_queues",
        ),
        (
            "dscp_to_tc",
            "tc_to_queue",
            "queues",
            "lossless_priorities",
            "roce",
            "cnp",
            "watchdog_poll_ms",
            "watchdog_timers",
            "ecmp_seed",
            "ecmp_udp_source_port",
            "ecmp_hash_fields",
        ),
    )


def as_rendered(device: DevicePlan) -> DevicePlan:
    """The device's plan in NVUE's terms, which a parsed config is compared with: the watchdog
    detects a storm after `robustness` whole polling intervals, and restoration is no setting
    (QOS "PFC Watchdog"), so detection is rounded up to a whole number of polls and
    restoration is 0, as the parser reads them."""
    watchdog = device.watchdog
    if not watchdog.enabled or not watchdog.poll_ms:
        return device
    polls = max(1, math.ceil(watchdog.detection_ms / watchdog.poll_ms))
    rendered = replaced(watchdog, detection_ms=polls * watchdog.poll_ms, restoration_ms=0)
    return replaced(device, watchdog=rendered)


# Plan values this config does not render (vendors/vendor.py PLAN_VALUES).
NOT_EXPRESSED: dict[str, NotExpressed] = {
    "ecmp.hash_offset": (
        "NVUE has no hash offset: `system forwarding` has only hash-seed and ecmp-hash fields "
        "(Cumulus Linux 5.14, Equal Cost Multipath Load Sharing)"
    ),
    "ecmp.resilient": (
        'NVUE has no resilient-hashing setting: "Cumulus Linux does not provide NVUE commands '
        'for this setting"; it is resilient_hash_enable in /etc/cumulus/datapath/traffic.conf '
        "with a switchd restart (Cumulus Linux 5.14 and 5.15, Equal Cost Multipath Load "
        "Sharing, Resilient Hashing)"
    ),
    "pfc_watchdog.timers": (
        "NVUE sets the polling interval and robustness (detection = interval x robustness, "
        "rounded up to whole intervals); restoration is not configurable: PFC is restored "
        "after the first polling interval without pause frames (Cumulus Linux 5.14, Quality "
        "of Service, PFC Watchdog)"
    ),
    "headroom.bytes": (
        "Cumulus sizes PFC headroom from the PFC profile's cable-length; NVIDIA recommends not "
        "setting xoff/xon/port-buffer (Cumulus Linux 5.14, Quality of Service, PFC)"
    ),
}
