"""Where a parsed config starts: an empty device that knows only what a config cannot say,
and what every parser fills in alike (a queue's traffic, the RoCE and CNP classes).

Parsers read what is there and nothing else. A setting the config does not state takes the
OS's default (each parser sets those) or stays unknown; it is never filled in from the plan,
so a missing line is a difference that drift (LL200) and the rules see.

From the inventory's plan of the device (`identity`), when there is one, a parsed device
takes only facts no switch config holds:
* device: role, ASIC, platform, management address, `lint_ignore`, the ASIC's lossless
  priority limit, the buffer budget (computed from the ASIC), and the headroom model's
  traffic assumptions (lossless MTU, small-packet share, gearbox delay), which describe the
  traffic and the hardware, not a setting (parsers of OSes that state them overwrite them),
  and the RoCE and CNP DSCPs, which are what the hosts send;
* port: peer and peer kind (the cable), `lint_ignore`.

Without an inventory the unknown facts are chosen so that no rule fires on them: no ASIC
(headroom is not recomputed, the budget is not checked), ECMP unknown, no peers.
"""

from __future__ import annotations

import copy
import re

from lossless.asics import catalogue
from lossless.asics.models import ModelMatch, chip_of_model, identify_model
from lossless.plan import (
    BudgetPlan,
    DevicePlan,
    EcmpPlan,
    HeadroomSettings,
    PortPlan,
    QosMaps,
    QueuePlan,
    WatchdogPlan,
)

UNKNOWN = "unknown"


def unknown_ecmp() -> EcmpPlan:
    """ECMP a config does not state: no seed, no fields, nothing for the rules to judge."""
    return EcmpPlan([], None, "not in the config", False, None)


def skeleton_device(
    name: str, os_name: str, file: str, identity: DevicePlan | None = None
) -> DevicePlan:
    """An empty device of this OS; with `identity` (the inventory's plan of the device), the
    facts listed in the module docstring are taken from it, nothing else."""
    identity_map = {p: p for p in range(8)}
    device = DevicePlan(
        name=name,
        role="leaf",
        os=os_name,
        asic=UNKNOWN,
        platform=None,
        mgmt=None,
        # The traffic's DSCPs are what hosts send: the inventory's, else the documented defaults
        # (RoCE 26, CNP 48: NVIDIA NIC and Cumulus `qos roce` defaults). Their classes are
        # what the config maps them to (classify_traffic).
        roce_dscp=26,
        roce_priority=3,
        cnp_dscp=48,
        cnp_priority=6,
        lossless_priorities=[],
        max_lossless_priorities=8,
        maps=QosMaps(
            dict.fromkeys(range(64), 0),
            dict(identity_map),
            dict.fromkeys(range(8), 0),
            dict(identity_map),
        ),
        queues=[],
        ecmp=unknown_ecmp(),
        watchdog=WatchdogPlan(False, 0, 0, 0, "drop"),
        headroom_settings=HeadroomSettings(1024, 50, False, None, 0),
        budget=BudgetPlan(None, "none", 0, 0, 0, None, 0, None, None, None, 0, None, ""),
        ports={},
        source=f"{file}:1:1",
        from_config=True,
    )
    if identity is not None:
        device.role = identity.role
        device.asic = identity.asic
        device.platform = identity.platform
        device.mgmt = identity.mgmt
        device.lint_ignore = dict(identity.lint_ignore)
        device.max_lossless_priorities = identity.max_lossless_priorities
        device.budget = copy.deepcopy(identity.budget)
        device.headroom_settings = copy.deepcopy(identity.headroom_settings)
        device.roce_dscp = identity.roce_dscp
        device.cnp_dscp = identity.cnp_dscp
    return device


# A model name as configs print it (DCS-7060DX5-32, SN5600, Mellanox-SN5600-V256): anything
# else in a header is not repeated into messages.
_MODEL = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")


def model_name(value: object) -> str | None:
    """A model name as configs print it, None for anything else (not repeated anywhere)."""
    return value if isinstance(value, str) and _MODEL.fullmatch(value) else None


def learn_platform(device: DevicePlan, model: str, where: str) -> bool:
    """The hardware a config's own header names (`model` at `where`: EOS's `! device:` line,
    an NVUE header's model, SONiC's hwsku), for a config linted alone: its ASIC and, when the
    catalogue has the model, its platform (the real port count). False, and the device as it
    was, for a model the catalogue cannot place."""
    if not model_name(model):
        return False
    match = identify_model(model)
    if match is None:
        chip = chip_of_model(model)
        if chip is not None:  # named, but not a chip the catalogue has: said, not guessed at
            unknown_hardware(device, model, where, chip)
        else:  # named, but no family the catalogue knows: said so (it does name its hardware)
            device.assumed["hardware"] = (
                f"the config names {model} at {where}, a model the catalogue cannot place"
            )
        return False
    learn_hardware(device, match, model, where)
    return True


def unknown_hardware(device: DevicePlan, model: str, where: str, chip: str) -> None:
    """The model at `where` is `chip`, which the catalogue does not have (lint says so)."""
    device.assumed["hardware"] = f"{model} at {where} is {chip}, which the catalogue does not have"


def learn_hardware(device: DevicePlan, match: ModelMatch, model: str, where: str) -> None:
    """The device is the catalogue hardware `match` that `model` at `where` names."""
    device.asic = match.asic
    device.platform = match.platform
    device.max_lossless_priorities = catalogue()[match.asic].max_lossless_priorities
    device.sources["platform"] = where
    device.assumed["asic"] = f"{match.asic}: the model {model} at {where} ({match.source})"


def skeleton_port(
    name: str, source: str, identity: PortPlan | None = None, mtu: int = 0
) -> PortPlan:
    """An empty port at `source` with the OS's default MTU; peer facts from `identity`."""
    port = PortPlan(
        name=name,
        description="",
        speed_mbps=0,
        lanes=0,
        mtu=mtu,
        peer=None,
        peer_kind=None,
        cable_m=None,
        lossless=False,
        pfc_priorities=[],
        headroom=[],
        ecn=[],
        watchdog=None,
        source=source,
    )
    if identity is not None:
        port.peer = identity.peer
        port.peer_kind = identity.peer_kind
        port.lint_ignore = dict(identity.lint_ignore)
    return port


def new_port(identity: DevicePlan | None, name: str, source: str, mtu: int = 0) -> PortPlan:
    """A parsed port: empty, with the peer facts the inventory's plan has for it."""
    return skeleton_port(name, source, identity.ports.get(name) if identity else None, mtu)


def queue_plan(
    queue: int,
    strict: bool,
    weight: int | None,
    lossless_queues: set[int],
    shared: str = "dwrr",
) -> QueuePlan:
    """A parsed queue: lossless ones carry RoCE, a strict one carries CNP, the rest default.
    A queue that is not strict shares by `shared`: "dwrr" (bytes), or "wrr" (packets) where
    the OS states or defaults to it (SONiC: SAI's default scheduling type)."""
    lossless = queue in lossless_queues
    traffic = "roce" if lossless else ("cnp" if strict else "default")
    return QueuePlan(
        queue, "strict" if strict else shared, None if strict else weight, lossless, traffic
    )


def classify_traffic(device: DevicePlan) -> None:
    """The classes a parsed config gives RoCE and CNP traffic: whatever it maps the DSCPs the
    hosts send to (the inventory's, else the documented defaults the skeleton starts with), so
    a config that puts DSCP 26 in a lossy class says so. The config's own lossless and
    strict-priority classes are never taken as "RoCE" and "CNP": that would hide exactly the
    defect of RoCE in a lossy class (LL124)."""
    maps = device.maps
    device.roce_priority = maps.dscp_to_tc.get(device.roce_dscp, 0)
    device.cnp_priority = maps.dscp_to_tc.get(device.cnp_dscp, 0)
