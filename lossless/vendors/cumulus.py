"""NVIDIA Cumulus Linux 5.x: NVUE startup YAML, the document `nv config apply` takes
(docs/reference/vendors.md section 4).

Why YAML and not a list of `nv set` commands: the YAML is the whole intended state of what
we own, applied in one transaction (`nv config patch`/`nv config apply`, with
`--confirm` rollback), diffs cleanly in Git, and re-applying it changes nothing; a command
list is a procedure whose result depends on what the switch had before.

`qos roce` mode lossless sets the RoCE defaults; the profiles below state the plan's values
explicitly on top (maps, ETS, ECN, PFC per cable length, watchdog). Cumulus computes xoff/xon
from the PFC profile's cable-length (NVIDIA's recommendation), so the plan's headroom bytes
are not forced into port-buffer/xoff-threshold.
"""

from __future__ import annotations

import io
import math
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.nodes import SequenceNode

from lossless.inventory.yamlsource import parse_yaml_text
from lossless.plan import DevicePlan, FabricPlan, PortPlan
from lossless.units import format_speed, whole_metres
from lossless.vendors.common import earliest_ecn, expressed_facts, group
from lossless.vendors.cumulus_parse import parse, parse_file  # noqa: F401  (this OS's parser)

TEMPLATE = "cumulus/startup.yaml.j2"
EXTENSION = "yaml"
PROFILE = "default-global"
HASH_FIELDS = {  # our field names -> NVUE `system forwarding ecmp-hash` keys
    "src-ip": "source-ip",
    "dst-ip": "destination-ip",
    "ip-protocol": "ip-protocol",
    "src-port": "source-port",
    "dst-port": "destination-port",
    "ipv6-flow-label": "ipv6-label",
    "ingress-interface": "ingress-interface",
    "inner-headers": "inner-ip-protocol",
}


def pfc_profile_name(port: PortPlan) -> str:
    return f"roce-{whole_metres(port.cable_m or 0)}m"


def nvue_set(device: DevicePlan) -> dict[str, Any]:
    lossless = [p for p in device.ports.values() if p.lossless]
    priorities: dict[str, dict] = {str(p): {} for p in device.lossless_priorities}
    qos: dict[str, Any] = {
        "roce": {"enable": "on", "mode": "lossless"},
        "mapping": {
            PROFILE: {
                "trust": "l3",
                "dscp": {
                    str(d): {"switch-priority": tc}
                    for d, tc in sorted(device.maps.dscp_to_tc.items())
                    if tc != 0
                },
            }
        },
        "egress-queue-mapping": {
            PROFILE: {
                "switch-priority": {
                    str(tc): {"traffic-class": device.maps.tc_to_queue[tc]}
                    for tc in sorted({tc for tc in device.maps.dscp_to_tc.values()})
                }
            }
        },
        "egress-scheduler": {
            PROFILE: {
                "traffic-class": {
                    str(q.queue): (
                        {"mode": "strict"}
                        if q.scheduler == "strict"
                        else {"mode": "dwrr", "bw-percent": q.weight}
                    )
                    for q in device.queues
                }
            }
        },
        "pfc": {
            name: {
                "switch-priority": {p: {} for p in priorities},
                "cable-length": whole_metres(ports[0].cable_m or 0),
                "rx": "enable",
                "tx": "enable",
            }
            for name, ports in group(lossless, pfc_profile_name).items()
        },
    }
    ecn = earliest_ecn(lossless)
    if ecn is not None:
        qos["congestion-control"] = {
            PROFILE: {
                "traffic-class": {
                    str(ecn.queue): {
                        "ecn": "enable",
                        "red": "disable",
                        "min-threshold": ecn.min_bytes,
                        "max-threshold": ecn.max_bytes,
                        "probability": ecn.probability_percent,
                    }
                }
            }
        }
    wd = device.watchdog
    if wd.enabled:
        # Cumulus detects a storm after `robustness` polls (docs/reference/vendors.md 4b).
        qos["pfc-watchdog"] = {
            "polling-interval": wd.poll_ms,
            "robustness": max(1, math.ceil(wd.detection_ms / wd.poll_ms)),
        }
    interfaces: dict[str, Any] = {}
    for port in device.ports.values():
        entry: dict[str, Any] = {
            "type": "swp",
            "link": {"mtu": port.mtu, "speed": format_speed(port.speed_mbps)},
        }
        if port.description or port.peer:
            entry["description"] = port.description or f"peer {port.peer}"
        if port.lossless:
            entry["qos"] = {"pfc": {"profile": pfc_profile_name(port)}}
            if port.watchdog and port.watchdog.enabled:
                entry["qos"]["pfc-watchdog"] = {}
        interfaces[port.name] = entry
    ecmp = device.ecmp
    forwarding = {
        "hash-seed": ecmp.seed,
        "ecmp-hash": {
            nvue: ("on" if ours in ecmp.hash_fields else "off")
            for ours, nvue in HASH_FIELDS.items()
        },
    }
    return {"interface": interfaces, "qos": qos, "system": {"forwarding": forwarding}}


def context(device: DevicePlan, fabric: FabricPlan) -> dict[str, Any]:
    yaml = YAML(typ="safe", pure=True)
    yaml.default_flow_style = False
    yaml.width = 200
    stream = io.StringIO()
    yaml.dump([{"set": nvue_set(device)}], stream)
    return {"nvue_yaml": stream.getvalue().rstrip("\n")}


def expressed(device: DevicePlan) -> dict[str, Any]:
    """What NVUE YAML says about a device (compared on for round trip and drift)."""
    return expressed_facts(
        device,
        ("speed_mbps", "mtu", "lossless", "pfc_priorities", "cable_m", "ecn", "watchdog_enabled"),
        (
            "dscp_to_tc",
            "tc_to_queue",
            "queues",
            "lossless_priorities",
            "roce",
            "cnp",
            "watchdog_poll_ms",
            "ecmp_seed",
            "ecmp_udp_source_port",
        ),
    )


# Plan values this config does not render (vendors/__init__.py PLAN_VALUES).
NOT_EXPRESSED = {
    "ecmp.hash_offset": "NVUE has no hash offset",
    "ecmp.resilient": "NVUE resilient hashing not rendered yet",
    "headroom.bytes": "Cumulus sizes PFC headroom from the port's cable-length",
}

DIFF_KIND = "nvue-commands"


def _leaves(tree: Any, path: tuple[str, ...] = ()) -> dict[tuple[str, ...], Any]:
    """Every leaf of an NVUE tree by path; an empty mapping is a leaf (`pfc-watchdog: {}`)."""
    if isinstance(tree, dict) and tree:
        leaves: dict[tuple[str, ...], Any] = {}
        for key, value in tree.items():
            leaves.update(_leaves(value, (*path, str(key))))
        return leaves
    return {path: tree}


def _owned(path: tuple[str, ...], interfaces: set[str]) -> bool:
    if path[:1] == ("qos",):
        return True
    if path[:1] == ("interface",) and len(path) > 2 and path[1] in interfaces:
        return path[2] in ("qos", "description") or path[2:4] in (
            ("link", "mtu"),
            ("link", "speed"),
        )
    return path[:3] in (
        ("system", "forwarding", "hash-seed"),
        ("system", "forwarding", "ecmp-hash"),
    )


def _set_tree(text: str) -> dict[str, Any]:
    # The guarded loader of inventories: a running config is untrusted (alias bombs, tags).
    loaded = parse_yaml_text(text, "running config", top=SequenceNode).data
    tree: dict[str, Any] = {}
    for operation in loaded:
        if isinstance(operation, dict) and isinstance(operation.get("set"), dict):
            tree = operation["set"]
    return tree


def _command(verb: str, path: tuple[str, ...], value: Any = None) -> str:
    words = [verb, *path]
    if value is not None and value != {}:
        words.append(str(value))
    return " ".join(words)


def diff(running: str, intended: str) -> list[str]:
    """`nv set` / `nv unset` commands from a running NVUE config (`nv config show -o yaml`) to
    the intended one, over what lossless owns: all of qos, the qos, description, MTU and speed
    of our interfaces, and the ECMP hash seed and fields."""
    intended_leaves = _leaves(_set_tree(intended))
    interfaces = {path[1] for path in intended_leaves if path[:1] == ("interface",)}
    wanted = {p: v for p, v in intended_leaves.items() if _owned(p, interfaces)}
    have = {p: v for p, v in _leaves(_set_tree(running)).items() if _owned(p, interfaces)}
    commands = [_command("nv unset", path) for path in sorted(have) if path not in wanted]
    commands += [
        _command("nv set", path, value)
        for path, value in wanted.items()
        if have.get(path, object()) != value
    ]
    return commands
