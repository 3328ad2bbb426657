"""Arista EOS: CLI in the layout AVD's eos_cli_config_gen renders and `show running-config`
prints (docs/reference/vendors.md section 1; docs/vendors/eos.md explains every line).

Sources, cited per line below:
* [AVD] aristanetworks/avd, python-avd/pyavd/_eos_cli_config_gen/j2templates/eos/ `qos.j2`,
  `qos-profiles.j2`, `priority-flow-control.j2`, `ethernet-interface-tx-queues.j2`,
  `ethernet-interface-uc-tx-queues.j2`, `interface-defaults.j2`; molecule fixture
  `.../eos_cli_config_gen/intended/configs/qos.cfg`; pyavd 6.4.0 schema
  (docs/reference/vendors.md 8).
* [UM] Arista EOS User Manual (um-eos): "Equal Cost Multipath Routing (ECMP) and Load
  Sharing" (hash seed per hardware family, resilient ECMP per prefix), QoS chapter
  (default DSCP-to-traffic-class map DSCP/8, tx-queues strict priority unless `no priority`).
* [TOI] Arista TOI "tx-queue 7 configurable": queue 7 carries traffic class 7, reserved for
  control-plane traffic.
* [ANNET] annetutil/annet annet/implicit.py: EOS's default `ip load-sharing trident fields`
  lines, which `show running-config` leaves out.
* [AVDWD] AVD eos_cli_config_gen (pyavd 6.x schema `priority_flow_control.watchdog.action`):
  the global `priority-flow-control pause watchdog action` takes `drop`, `errdisable` (EOS's
  default) or `notify-only`. AVD 5.x allowed `no-drop`, which EOS refuses ("% Unavailable
  command", aristanetworks/avd issue 6399; removed in AVD 6.0.0 by PR 6400, porting guide
  6.x: "not supported by the EOS CLI"). Per port, `priority-flow-control pause watchdog port
  action drop|notify-only` in a qos profile (schema `qos_profiles[].priority_flow_control.
  watchdog.action`: "override the default error-disable action to either drop traffic on the
  stuck queue or notify-only"). No EOS release is documented with other words; the first
  release with `notify-only` is not stated in the sources read [UNV].
* [SEED] um-eos "ECMP and Load Sharing": the hash seed is set per hardware family,
  `ip load-sharing <family> seed <n>` (families arad, fm6000, petraA, sand, trident; StrataXGS
  Trident/Tomahawk switches take `trident`); the seed's range on StrataXGS is not published
  [UNV] (docs/reference/vendors.md 1f, 10).
* [AMD] AMD Instinct GPU-cluster networking guide, "DCQCN configuration on an Arista 7388":
  `uc-tx-queue 3` with `random-detect ecn ... ` and `random-detect ecn count` in a qos profile.

Maps are global (`qos map`); per-port QoS lives in `qos profile`s applied with
`service-profile`: one profile per distinct set of ECN thresholds. Watchdog timers are in
seconds. On StrataXGS (Trident/Tomahawk) the egress queues of a port are unicast queues
(`uc-tx-queue`); elsewhere `tx-queue`.
"""

from __future__ import annotations

from typing import Any

from lossless.asics import Asic, catalogue
from lossless.plan import DevicePlan, EcnPlan, FabricPlan, PortPlan, QueuePlan
from lossless.text.units import seconds
from lossless.vendors.facts import expressed_facts
from lossless.vendors.free_text import one_line, port_description
from lossless.vendors.grouping import group
from lossless.vendors.vendor import NotExpressed

TEMPLATE = "eos/device.cfg.j2"
EXTENSION = "cfg"
PROFILE = "ROCE_LOSSLESS"
QUEUES = range(8)
# Largest interface (IP) MTU EOS accepts: 9214 (docs/reference/vendors.md 1g, 0) — LL118 reads it.
MAX_MTU = 9214
DEFAULT_HASH_FIELDS = ["src-ip", "dst-ip", "src-port", "dst-port", "ingress-interface"]
HASH_FIELDS = {
    "source-ip": "src-ip",
    "destination-ip": "dst-ip",
    "source-port": "src-port",
    "destination-port": "dst-port",
    "ingress-interface": "ingress-interface",
}

# Plan hash-field names -> EOS `ip load-sharing trident fields ip` keywords [ANNET]
HASH_KEYWORDS = {field: keyword for keyword, field in HASH_FIELDS.items()}


def platform_speed(device: DevicePlan) -> tuple[int, int]:
    """(speed, lanes) of a port without a `speed` line: the platform's default, the full lane
    group at the ASIC's fastest speed (running-config shows no `speed` line for it); (0, 0),
    unknown, without an ASIC."""
    asic = catalogue().get(device.asic)
    if asic is None or not asic.speeds_mbps:
        return 0, 0
    fastest = max(asic.speeds_mbps)
    return fastest, asic.default_lanes(fastest)


def description(text: str) -> str:
    """A port's description as EOS reads `description TEXT`: the rest of the line, so one
    line of printable characters (um-eos "description (interface)"; no quoting exists)."""
    return one_line(text)


def threshold(value: int) -> str:
    """ECN threshold in the largest EOS unit that holds it exactly."""
    if value % 1_000_000 == 0:
        return f"{value // 1_000_000} mbytes"
    if value % 1000 == 0:
        return f"{value // 1000} kbytes"
    return f"{value} bytes"


def asic_of(device: DevicePlan) -> Asic | None:
    return catalogue().get(device.asic)


def strata(device: DevicePlan) -> bool:
    asic = asic_of(device)
    return asic is not None and asic.family == "strata"


def speed_token(port: PortPlan) -> str:
    return f"{port.speed_mbps // 1000}g-{port.lanes}"


def states_speed(port: PortPlan, device: DevicePlan) -> bool:
    """Whether the config needs a `speed` line: not for the platform's default speed."""
    return bool(port.speed_mbps) and (port.speed_mbps, port.lanes) != platform_speed(device)


def eos_queues(device: DevicePlan) -> list[QueuePlan]:
    """All eight tx-queues: the plan's, and for a queue the plan leaves out (no traffic class
    maps to it) round robin below the lowest strict queue and strict above it. EOS queues are
    strict priority unless `no priority` [UM], and EOS serves strict queues from the highest
    down, so an unset queue 4 or 5 would sit above RoCE; queue 7 carries the switch's own
    control traffic (traffic class 7 [TOI]) and stays strict."""
    planned = {q.queue: q for q in device.queues}
    lowest_strict = min((q.queue for q in device.queues if q.scheduler == "strict"), default=8)
    return [
        planned.get(q)
        or QueuePlan(q, "strict" if q > lowest_strict else "dwrr", None, False, "default")
        for q in QUEUES
    ]


def _ecn_key(port: PortPlan) -> tuple:
    return tuple((e.queue, e.min_bytes, e.max_bytes, e.probability_percent) for e in port.ecn)


def _profile(name: str, device: DevicePlan, ecn: list[EcnPlan]) -> dict[str, Any]:
    by_queue = {e.queue: e for e in ecn}
    queues = []
    for queue in eos_queues(device):
        mark = by_queue.get(queue.queue)
        queues.append(
            {
                "id": queue.queue,
                "strict": queue.scheduler == "strict",
                "bandwidth": queue.weight,
                "ecn": None
                if mark is None
                else {
                    "min": threshold(mark.min_bytes),
                    "max": threshold(mark.max_bytes),
                    "probability": mark.probability_percent,
                },
            }
        )
    return {"name": name, "queues": queues}


def _dscp_lines(device: DevicePlan) -> list[tuple[str, int]]:
    """The whole 64-entry DSCP map, one line per traffic class: EOS's default map (DSCP/8)
    would otherwise put DSCP 24-31 in the RoCE class and 48-55 in the CNP class [UM]."""
    by_tc = group(sorted(device.maps.dscp_to_tc), lambda d: device.maps.dscp_to_tc[d])
    return [(" ".join(map(str, dscps)), tc) for tc, dscps in sorted(by_tc.items())]


def _tc_queue_lines(device: DevicePlan) -> list[tuple[str, int]]:
    by_queue = group(sorted(device.maps.tc_to_queue), lambda tc: device.maps.tc_to_queue[tc])
    return [(" ".join(map(str, tcs)), queue) for queue, tcs in sorted(by_queue.items())]


# ASIC families of the catalogue (lossless/asics/catalogue.yaml `family`) -> EOS's
# `ip load-sharing <family> seed` keyword [SEED]
SEED_KEYWORDS = {"strata": "trident"}


def seed_line(device: DevicePlan) -> str | None:
    """`ip load-sharing <family> seed <n>` words for the plan's seed, where the ASIC family's
    keyword is known [SEED]; None otherwise (NOT_EXPRESSED says why)."""
    asic = asic_of(device)
    keyword = SEED_KEYWORDS.get(asic.family or "") if asic else None
    if keyword is None or device.ecmp.seed is None:
        return None
    return f"{keyword} seed {device.ecmp.seed}"


def _hash_fields(device: DevicePlan) -> str | None:
    """`ip load-sharing trident fields ip` keywords for the plan's hash fields, or None when
    they are EOS's default set (a default line is not shown by `show running-config`, so
    rendering it would be proposed by every diff) or the platform is not StrataXGS."""
    fields = [f for f in DEFAULT_HASH_FIELDS if f in device.ecmp.hash_fields]
    if not strata(device) or not fields or set(fields) == set(DEFAULT_HASH_FIELDS):
        return None
    return " ".join(HASH_KEYWORDS[f] for f in fields)


def context(device: DevicePlan, fabric: FabricPlan) -> dict[str, Any]:
    lossless = [p for p in device.ports.values() if p.lossless]
    profiles = []
    profile_of: dict[str, str] = {}
    for index, ports in enumerate(group(lossless, _ecn_key).values()):
        name = PROFILE if index == 0 else f"{PROFILE}_{index + 1}"
        profiles.append(_profile(name, device, ports[0].ecn))
        for port in ports:
            profile_of[port.name] = name
    wd = device.watchdog
    is_strata = strata(device)
    return {
        "device": device,
        # StrataXGS: ECN marks are counted per queue (`random-detect ecn count`); the
        # hardware counter feature is for VOQ (sand) platforms (docs/reference/vendors.md 1d) [UNV].
        "ecn_hardware_counter": not is_strata,
        "queue_keyword": "uc-tx-queue" if is_strata else "tx-queue",
        "dscp_maps": _dscp_lines(device),
        "tc_queue_maps": _tc_queue_lines(device),
        "hash_fields": _hash_fields(device),
        "lossless_priorities": device.lossless_priorities,
        "watchdog": {
            "enabled": wd.enabled,
            "timeout": seconds(wd.detection_ms, 2),
            "polling": seconds(wd.poll_ms, 3),
            "recovery": seconds(wd.restoration_ms, 2),
            # the global action is always drop (EOS's default is errdisable) [AVDWD]; a plan
            # action other than drop is the profile's per-port `notify-only`
            "action": "drop",
            "port_action": None if wd.action == "drop" else "notify-only",
        },
        "seed": seed_line(device),
        "profiles": profiles,
        "ports": [
            {
                "name": p.name,
                "description": description(port_description(p)),
                "mtu": p.mtu,
                "speed": speed_token(p) if states_speed(p, device) else None,
                "profile": profile_of.get(p.name),
            }
            for p in device.ports.values()
        ],
        "mmu": _mmu(device) if device.asic.startswith("trident") else None,
    }


def _mmu(device: DevicePlan) -> dict[str, Any] | None:
    """Trident MMU queue profile: ingress headroom is the xoff the lossless PG needs (the
    largest of the device, conservative). The planner's xon is not rendered: the MMU's
    `reserved` is the PG's guaranteed minimum buffer, a different quantity (pyavd schema
    `platform.trident.mmu.queue_profiles[].ingress`, docs/reference/vendors.md 1c), so it stays
    default."""
    headrooms = [h for p in device.ports.values() for h in p.headroom]
    if not headrooms:
        return None
    return {"name": "ROCE_MMU", "headroom": max(h.xoff for h in headrooms)}


def expressed(device: DevicePlan) -> dict[str, Any]:
    """What an EOS config says about a device (compared on for round trip and drift).
    The watchdog action is compared as EOS has it: drop, or notify-only for anything else;
    a port at its platform's default speed says no speed (0); queues are all eight."""
    facts = expressed_facts(
        device,
        (
            "speed_mbps",
            "lanes",
            "mtu",
            "lossless",
            "pfc_priorities",
            "ecn",
            "watchdog",
            "wred_drop_queues",
            "trust",
        ),
        (
            "dscp_to_tc",
            "tc_to_queue",
            "lossless_priorities",
            "roce",
            "cnp",
            "watchdog_poll_ms",
            "ecmp_udp_source_port",
        ),
    )
    # The seed as the config states it: where the ASIC's family has a seed keyword [SEED], and
    # for a config read without knowing its ASIC (whatever `ip load-sharing <family> seed`
    # says); None where the family has no keyword (the seed is not rendered: NOT_EXPRESSED).
    asic = asic_of(device)
    facts["ecmp_seed"] = device.ecmp.seed if asic is None or _seed_family_known(device) else None
    facts["queues"] = [
        (q.queue, q.scheduler, q.weight, q.lossless, q.traffic) for q in eos_queues(device)
    ]
    for port in device.ports.values():
        entry = facts["ports"][port.name]
        if not states_speed(port, device):
            entry["speed_mbps"] = entry["lanes"] = 0
        if entry["watchdog"] is not None:
            enabled, detection, restoration, action = entry["watchdog"]
            entry["watchdog"] = (
                enabled,
                detection,
                restoration,
                "drop" if action == "drop" else "notify-only",
            )
    return facts


def _seed_family_known(device: DevicePlan) -> bool:
    asic = asic_of(device)
    return asic is not None and asic.family in SEED_KEYWORDS


def _seed_not_rendered(device: DevicePlan) -> str | None:
    if _seed_family_known(device):
        return None
    asic = asic_of(device)
    family = asic.family if asic else "unknown"
    return (
        "EOS takes the ECMP hash seed per hardware family (`ip load-sharing <family> seed "
        f"<n>`, um-eos 'ECMP and Load Sharing'); this ASIC's family ({family}) has no keyword "
        "lossless knows (only StrataXGS: `trident`), so the seed is not rendered"
    )


def _watchdog_action(device: DevicePlan) -> str | None:
    actions = {p.watchdog.action for p in device.ports.values() if p.watchdog}
    if "forward" not in actions:
        return None
    return (
        "EOS's watchdog actions are errdisable (its default), drop and, per port, notify-only "
        "[AVDWD]; there is no forward action: a planned `forward` is rendered `notify-only` "
        "(the stuck queue is left alone)"
    )


# Plan values this config does not render (vendors/vendor.py PLAN_VALUES).
NOT_EXPRESSED: dict[str, NotExpressed] = {
    "ecmp.seed": _seed_not_rendered,
    "pfc_watchdog.action": _watchdog_action,
    "ecmp.hash_offset": "EOS has no hash offset / rotate command (um-eos ECMP and Load Sharing)",
    "ecmp.hash_fields": (
        "rendered on StrataXGS as `ip load-sharing trident fields ip` with source/destination "
        "IP and L4 ports (ingress interface); the IP protocol and IPv6 flow label have no "
        "keyword on that line, and sand (Jericho) load-balance profiles are not rendered"
    ),
    "ecmp.resilient": (
        "EOS resilient ECMP is per prefix (`ip hardware fib ecmp resilience <prefix> capacity "
        "<n> redundancy <n>`, um-eos 'Resilient ECMP'); the plan has no prefixes"
    ),
    "headroom.bytes": (
        "EOS sizes PFC headroom itself; only the Trident MMU profile takes ingress headroom "
        "bytes (docs/reference/vendors.md 1c)"
    ),
}
