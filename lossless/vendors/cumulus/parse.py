"""Read a Cumulus Linux 5.x NVUE configuration back into a DevicePlan: the YAML of
`nv config show -o yaml` (a fragment or a full startup.yaml) or an `nv set`/`nv unset`
command list (read.py turns either into one tree), with the line of every fact.

What a port gets is what the switch would do: the values the config states, on top of the
`qos roce` preset when it is on, on top of Cumulus's own defaults (defaults.py, each
cited). Profiles follow NVUE's rules: a port bound to a profile (`interface swp1 qos pfc
profile P`) takes that profile, every other port the `default-global` one; NVUE maps switch
priorities to traffic classes only through `egress-queue-mapping default-global`.

The plan's terms: DSCP -> switch priority is `maps.dscp_to_tc` (the switch priority is the
PFC priority), switch priority -> NVUE traffic class is `maps.tc_to_queue` (an NVUE traffic
class is an egress queue; ECN and ETS are set per traffic class, that is per queue). A device
has one DSCP map and one scheduler in the plan: those of the profile its lossless ports use
(the first one's, in the config's order), else `default-global`. Headroom bytes are not in
the config: Cumulus computes them from each PFC profile's cable length.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from lossless.plan import (
    HEADROOM_BY_SWITCH,
    HEADROOM_FROM_CONFIG,
    DevicePlan,
    EcnPlan,
    HeadroomPlan,
    PortPlan,
    WatchdogPlan,
)
from lossless.system.files import read_config
from lossless.text.units import parse_speed
from lossless.vendors.cumulus import defaults
from lossless.vendors.cumulus.read import NvueConfig, Path, read_nvue
from lossless.vendors.cumulus.render import HASH_FIELDS, PROFILE
from lossless.vendors.skeleton import (
    UNKNOWN,
    classify_traffic,
    learn_platform,
    new_port,
    queue_plan,
    skeleton_device,
)

_SWP = re.compile(r"swp\d+(?:s\d+)?")
ON = ("on", "off", "enabled", "disabled")


def parse(text: str, file: str, name: str, hint: DevicePlan | None = None) -> DevicePlan:
    return parse_config(read_nvue(text, file), name, hint)


def parse_config(config: NvueConfig, name: str, hint: DevicePlan | None = None) -> DevicePlan:
    """The device an NVUE config describes; a value of the wrong shape is bad input."""
    return _Reader(config, name, hint).read()


def parse_file(path: str, name: str, hint: DevicePlan | None = None) -> DevicePlan:
    return parse(read_config(path), path, name, hint)


@dataclass(frozen=True)
class _Pfc:
    """A PFC profile as a port bound to it gets it."""

    priorities: tuple[int, ...]
    cable_m: int
    lossless: bool
    where: str  # the line of its priorities (or of rx/tx disable), else the preset's
    cable_where: str
    # xoff-threshold, xon-threshold (below xoff) and port-buffer in bytes where the profile
    # states xoff (NVIDIA recommends leaving them to the switch), and where; None: derived
    # by the switch from the cable length
    headroom: tuple[int, int, int] | None = None
    headroom_where: str = ""


class _Reader:
    """One config read into one device; each method reads one kind of setting."""

    def __init__(self, config: NvueConfig, name: str, hint: DevicePlan | None):
        self.config = config
        self.hint = hint
        self.device = skeleton_device(name, "cumulus", config.file, hint)
        if self.device.asic == UNKNOWN and config.header_model is not None:
            learn_platform(self.device, *config.header_model)
        self.roce, self.roce_source = self._roce()
        # profiles are read once, however many ports use them
        self.pfc_profiles: dict[str, _Pfc] = {}
        self.ecn_profiles: dict[str, tuple[dict[int, defaults.Ecn], dict[int, str]]] = {}

    def stated(self, path: Path, fallback: str) -> str:
        """Where path is stated, else the fallback (the preset's or the object's line)."""
        return self.config.where(path) if self.config.node(path) is not None else fallback

    def base_source(self, path: Path) -> str:
        """The line a value falls back to: the profile's own, else the `qos roce` line."""
        if self.config.node(path) is not None:
            return self.config.where(path)
        return self.roce_source or self.config.where(path)

    def read(self) -> DevicePlan:
        device, config = self.device, self.config
        self._check_profiles()
        ports = [self._port(name) for name in self._switch_ports()]
        lossless = [port for port in ports if port.lossless]
        device.ports = {port.name: port for port in ports}
        device.lossless_priorities = sorted({p for port in lossless for p in port.pfc_priorities})
        device.sources["lossless_priorities"] = (
            lossless[0].sources["pfc_priorities"] if lossless else device.source
        )
        mapping = self._bound(lossless, "mapping")
        device.maps.dscp_to_tc, device.sources["dscp_to_tc"], by_dscp = self._dscp_map(mapping)
        device.maps.tc_to_queue, device.sources["tc_to_queue"] = self._queue_map()
        lossless_pgs = device.lossless_priorities
        device.maps.tc_to_pg = {sp: sp if sp in lossless_pgs else 0 for sp in range(8)}
        device.maps.pfc_priority_to_queue = dict(device.maps.tc_to_queue)
        lossless_queues = {device.maps.tc_to_queue[p] for p in device.lossless_priorities}
        for port in ports:  # ECN and WRED judge the port's lossless queues
            self._congestion(port, {device.maps.tc_to_queue[p] for p in port.pfc_priorities})
        scheduler = self._bound(lossless, "egress-scheduler")
        device.queues, device.sources["queues"] = self._queues(scheduler, lossless_queues)
        device.watchdog, device.sources["watchdog_poll_ms"] = self._watchdog(ports)
        # detection is polling-interval x robustness: the robustness states it (else `qos`)
        device.sources["watchdog_timers"] = config.where(("qos", "pfc-watchdog", "robustness"))
        self._ecmp()
        classify_traffic(device)
        for fact, dscp in (("roce", device.roce_dscp), ("cnp", device.cnp_dscp)):
            # a trust that does not use DSCP classifies every frame: its line is the class's,
            # not the DSCP entry, whose switch-priority the switch then ignores
            entry = ("qos", "mapping", mapping, "dscp", str(dscp))
            device.sources[fact] = (
                self.stated(entry, device.sources["dscp_to_tc"])
                if by_dscp
                else device.sources["dscp_to_tc"]
            )
        # Cumulus sizes headroom from each profile's cable length unless the profile states
        # xoff-threshold: those PGs are judged (LL101, LL102), the others are the switch's
        device.headroom_known = any(not h.by_switch for port in ports for h in port.headroom)
        device.source = f"{config.file}:1:1"
        return device

    # -- the preset and the ports ----------------------------------------------------------

    def _roce(self) -> tuple[defaults.RocePreset | None, str]:
        path = ("qos", "roce")
        if self.config.node(path) is None:
            return None, ""
        switch = self.config.choice((*path, "enable"), ON) or self.config.choice(
            (*path, "state"), ON
        )
        if switch in ("off", "disabled"):
            return None, ""
        mode = self.config.choice((*path, "mode"), tuple(defaults.ROCE_PRESETS))
        return defaults.ROCE_PRESETS[mode or defaults.ROCE_MODE], self.config.where(path)

    def _switch_ports(self) -> list[str]:
        """The front-panel ports the config names (type swp, or swpN / swpNsM by name); a
        port broken out into subports (`link breakout 2x`) is not a port itself."""
        names = []
        for name in self.config.mapping(("interface",)):
            self.config.mapping(("interface", name))  # a port must be a mapping
            kind = self.config.text(("interface", name, "type"))
            breakout = self.config.text(("interface", name, "link", "breakout"))
            if breakout not in (None, "1x") or kind not in ("swp", None):
                continue
            if kind == "swp" or _SWP.fullmatch(name):
                names.append(name)
        return names

    def _bound(self, ports: list[PortPlan], kind: str) -> str:
        """The profile of this kind the first of these ports uses (default-global if none)."""
        if not ports:
            return PROFILE
        return self.config.text(("interface", ports[0].name, "qos", kind, "profile")) or PROFILE

    def _port(self, name: str) -> PortPlan:
        config, here = self.config, ("interface", name)
        source = config.where(here)
        mtu = config.integer((*here, "link", "mtu"), 1, 65535)
        port = new_port(self.hint, name, source, mtu=mtu or defaults.MTU)
        port.description = config.text((*here, "description")) or ""
        port.sources["mtu"] = config.where((*here, "link", "mtu"))
        speed = config.text((*here, "link", "speed"))
        if speed is not None:
            try:
                port.speed_mbps = parse_speed(speed)
            except ValueError:  # `auto` or a token we do not know: unknown, not judged
                port.speed_mbps = 0
            port.sources["speed_mbps"] = config.where((*here, "link", "speed"))
        self._pfc(port, config.text((*here, "qos", "pfc", "profile")) or PROFILE)
        watchdog = (*here, "qos", "pfc-watchdog")
        state = config.choice((*watchdog, "state"), ("enable", "disable", "enabled", "disabled"))
        enabled = config.node(watchdog) is not None and state not in ("disable", "disabled")
        port.sources["watchdog_enabled"] = port.sources["watchdog"] = config.where(watchdog)
        port.watchdog = WatchdogPlan(enabled, 0, 0, 0, "drop") if port.lossless else None
        return port

    def _pfc(self, port: PortPlan, profile: str) -> None:
        pfc = self._pfc_profile(profile)
        port.lossless = pfc.lossless
        port.pfc_priorities = list(pfc.priorities) if pfc.lossless else []
        port.cable_m = float(pfc.cable_m) if pfc.lossless else None
        port.sources["pfc_priorities"] = port.sources["lossless"] = pfc.where
        port.sources["cable_m"] = pfc.cable_where
        if not pfc.lossless:
            return
        if pfc.headroom is None:  # sized by the switch from the cable length: not judged
            port.headroom = [
                HeadroomPlan(p, 0, 0, 0, model=HEADROOM_BY_SWITCH, derivation=pfc.where)
                for p in port.pfc_priorities
            ]
            return
        xoff, xon, size = pfc.headroom
        port.headroom = [
            HeadroomPlan(p, xon, xoff, size, model=HEADROOM_FROM_CONFIG, derivation=pfc.where)
            for p in port.pfc_priorities
        ]
        port.sources["headroom"] = pfc.headroom_where

    def _pfc_profile(self, profile: str) -> _Pfc:
        if profile not in self.pfc_profiles:
            self.pfc_profiles[profile] = self._read_pfc_profile(profile)
        return self.pfc_profiles[profile]

    def _read_pfc_profile(self, profile: str) -> _Pfc:
        path = ("qos", "pfc", profile)
        config, roce = self.config, self.roce
        config.mapping(path)
        preset = roce if profile == PROFILE else None  # the preset is default-global's
        priorities = config.ids((*path, "switch-priority"), 0, 7)
        if priorities is None:
            priorities = list(preset.pfc_priorities) if preset else []
        cable = config.integer((*path, "cable-length"), 1, 100_000)
        if cable is None:
            cable = preset.cable_m if preset else defaults.PFC_CABLE_M
        # PFC protects the buffer only when the port both sends and honours pause frames.
        directions = [config.choice((*path, way), ("enable", "disable")) for way in ("rx", "tx")]
        where = self.base_source((*path, "switch-priority"))
        if "disable" in directions:
            where = config.where((*path, "rx" if directions[0] == "disable" else "tx"))
        xoff = config.integer((*path, "xoff-threshold"), 1, 2**32)
        headroom = None
        if xoff is not None:
            xon = config.integer((*path, "xon-threshold"), 0, 2**32) or 0
            size = config.integer((*path, "port-buffer"), 1, 2**32) or xon + xoff
            headroom = (xoff, xon, size)
        return _Pfc(
            tuple(priorities),
            cable,
            bool(priorities) and "disable" not in directions,
            where,
            self.base_source((*path, "cable-length")),
            headroom,
            config.where((*path, "xoff-threshold")),
        )

    # -- device-wide maps and scheduling -----------------------------------------------------

    def _dscp_map(self, profile: str) -> tuple[dict[int, int], str, bool]:
        """DSCP -> switch priority, where it is stated, and whether the trust uses DSCP."""
        path = ("qos", "mapping", profile)
        config, roce = self.config, self.roce
        config.mapping(path)
        dscp_to_sp = dict(roce.dscp_to_sp if roce else defaults.DSCP_TO_SP)
        for dscp, entry in config.entries((*path, "dscp"), 0, 63).items():
            mapped = config.integer((*entry, "switch-priority"), 0, 7)
            if mapped is not None:
                dscp_to_sp[dscp] = mapped
        default_sp = config.integer((*path, "port-default-sp"), 0, 7)
        trust = config.choice((*path, "trust"), tuple(defaults.TRUST_USES_DSCP))
        trust = trust or (roce.trust if roce else defaults.TRUST)
        if not defaults.TRUST_USES_DSCP[trust]:  # untagged IP: the port's default priority
            sp = defaults.PORT_DEFAULT_SP if default_sp is None else default_sp
            return dict.fromkeys(range(64), sp), self.base_source((*path, "trust")), False
        return dscp_to_sp, self.base_source((*path, "dscp")), True

    def _queue_map(self) -> tuple[dict[int, int], str]:
        path = ("qos", "egress-queue-mapping", PROFILE, "switch-priority")
        sp_to_tc = dict(self.roce.sp_to_tc if self.roce else defaults.SP_TO_TC)
        for sp, entry in self.config.entries(path, 0, 7).items():
            tc = self.config.integer((*entry, "traffic-class"), 0, 7)
            if tc is not None:
                sp_to_tc[sp] = tc
        return sp_to_tc, self.base_source(path)

    def _queues(self, profile: str, lossless_queues: set[int]) -> tuple[list[Any], str]:
        """ETS per traffic class; a class with no share (DWRR 0 or unset) carries nothing."""
        queues = [
            queue_plan(tc, mode == "strict", weight, lossless_queues)
            for tc, (mode, weight) in sorted(self._scheduler(profile).items())
            if mode == "strict" or weight
        ]
        return queues, self.base_source(("qos", "egress-scheduler", profile, "traffic-class"))

    def _scheduler(self, profile: str) -> dict[int, tuple[str, int | None]]:
        path = ("qos", "egress-scheduler", profile, "traffic-class")
        config, roce = self.config, self.roce
        classes = dict(roce.scheduler if roce else defaults.SCHEDULER)
        for tc, entry in config.entries(path, 0, 7).items():
            base_mode, base_weight = classes.get(tc, ("dwrr", None))
            mode = config.choice((*entry, "mode"), ("dwrr", "strict")) or base_mode
            weight = config.integer((*entry, "bw-percent"), 0, 100)
            classes[tc] = (mode, base_weight if weight is None else weight)
        return classes

    def _congestion(self, port: PortPlan, lossless_queues: set[int]) -> None:
        """ECN on the port's lossless queues, and the queues where RED drops, from the port's
        congestion-control profile (a traffic class is a queue)."""
        profile = (
            self.config.text(("interface", port.name, "qos", "congestion-control", "profile"))
            or PROFILE
        )
        path = ("qos", "congestion-control", profile, "traffic-class")
        classes, where = self._ecn_profile(profile)
        port.ecn = [
            EcnPlan(tc, e.min_bytes, e.max_bytes, e.probability, None, None, None, None, where[tc])
            for tc, e in sorted(classes.items())
            if e.ecn and tc in lossless_queues
        ]
        port.wred_drop_queues = [tc for tc, e in sorted(classes.items()) if e.red]
        lossless_where = [where[tc] for tc in sorted(lossless_queues) if tc in where]
        port.sources["ecn"] = lossless_where[0] if lossless_where else self.base_source(path)
        drops = [self.stated((*path, str(tc), "red"), where[tc]) for tc in port.wred_drop_queues]
        port.sources["wred_drop_queues"] = drops[0] if drops else self.base_source(path)

    def _ecn_profile(self, profile: str) -> tuple[dict[int, defaults.Ecn], dict[int, str]]:
        """A congestion-control profile's classes (the preset's or the OS's under
        default-global, none under another profile), with the line of each."""
        if profile not in self.ecn_profiles:
            self.ecn_profiles[profile] = self._read_ecn_profile(profile)
        return self.ecn_profiles[profile]

    def _read_ecn_profile(self, profile: str) -> tuple[dict[int, defaults.Ecn], dict[int, str]]:
        config, roce = self.config, self.roce
        path = ("qos", "congestion-control", profile, "traffic-class")
        classes: dict[int, defaults.Ecn] = {}
        if profile == PROFILE:
            classes = dict(roce.ecn if roce else defaults.ECN)
        for tc, entry in config.entries(path, 0, 7).items():
            base = classes.get(tc, defaults.ECN_FIELDS)
            ecn = config.choice((*entry, "ecn"), ("enable", "disable"))
            red = config.choice((*entry, "red"), ("enable", "disable"))
            low = config.integer((*entry, "min-threshold"), 0, 2**40)
            high = config.integer((*entry, "max-threshold"), 0, 2**40)
            probability = config.integer((*entry, "probability"), 0, 100)
            classes[tc] = defaults.Ecn(
                base.ecn if ecn is None else ecn == "enable",
                base.red if red is None else red == "enable",
                base.min_bytes if low is None else low,
                base.max_bytes if high is None else high,
                base.probability if probability is None else probability,
            )
        return classes, {tc: self.base_source((*path, str(tc))) for tc in classes}

    def _check_profiles(self) -> None:
        """Every profile the config defines is read, used by a port or not, so a value of the
        wrong shape anywhere in qos is bad input at its line."""
        readers: dict[str, Callable[[str], object]] = {
            "pfc": self._pfc_profile,
            "mapping": self._dscp_map,
            "egress-scheduler": self._scheduler,
            "congestion-control": self._ecn_profile,
        }
        for kind, reader in readers.items():
            for profile in self.config.mapping(("qos", kind)):
                reader(profile)
        self.config.mapping(("qos", "egress-queue-mapping"))

    def _watchdog(self, ports: list[PortPlan]) -> tuple[WatchdogPlan, str]:
        """Switch-wide timers (detection = polling interval x robustness) on each port that
        enables it. Restoration is not a setting (PFC comes back after a polling interval
        without pause frames): 0, not judged (NOT_EXPRESSED in cumulus/render.py)."""
        path = ("qos", "pfc-watchdog")
        config = self.config
        poll = config.integer((*path, "polling-interval"), 1, 1_000_000)
        poll = poll or defaults.WATCHDOG_POLL_MS
        robustness = config.integer((*path, "robustness"), 1, 1000)
        robustness = robustness or defaults.WATCHDOG_ROBUSTNESS
        enabled = False
        for port in ports:
            if port.watchdog is not None:
                enabled_here = port.watchdog.enabled
                port.watchdog = WatchdogPlan(enabled_here, poll * robustness, 0, poll, "drop")
                enabled = enabled or port.watchdog.enabled
        watchdog = WatchdogPlan(enabled, poll * robustness, 0, poll, "drop")
        return watchdog, config.where((*path, "polling-interval"))

    def _ecmp(self) -> None:
        path = ("system", "forwarding")
        config, ecmp, sources = self.config, self.device.ecmp, self.device.sources
        config.mapping(path)
        ecmp.seed = config.integer((*path, "hash-seed"), 0, 4_294_967_295)
        sources["ecmp_seed"] = config.where((*path, "hash-seed"))
        on = dict(defaults.ECMP_HASH)
        for field_name in config.mapping((*path, "ecmp-hash")):
            if field_name not in on:  # NVUE refuses it; read without it, a field would be lost
                raise config.error(
                    (*path, "ecmp-hash", field_name),
                    f"no ecmp-hash field {field_name!r} in NVUE (ECMP 'ECMP Hashing' table)",
                )
            state = config.choice((*path, "ecmp-hash", field_name), ON)
            on[field_name] = state in ("on", "enabled")
        # a field of ours hashes if any NVUE field that says it does (inner-* read as one)
        fields = {ours for ours, keys in HASH_FIELDS.items() if any(on[key] for key in keys)}
        ecmp.hash_fields = sorted(fields)
        ecmp.hashes_udp_source_port = "src-port" in fields
        ecmp.seed_source = "hash-seed in the config" if ecmp.seed is not None else "random"
        hashes = (*path, "ecmp-hash")
        sources["ecmp_hash_fields"] = config.where(hashes)
        sources["ecmp_udp_source_port"] = config.where((*hashes, "source-port"))
