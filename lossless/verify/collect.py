"""A snapshot of the fabric's operational state: each planned switch's show-command outputs
(saved in DIR/<device>/ by the collection script, or asked live through napalm by
deploy/live.py) read by its OS's reader (vendors/<os>/state.py) into an observed.DeviceState;
snapshots saved to and loaded from JSON (`verify --snapshot` / `--baseline`).

Outputs come from switches: untrusted. A reader that meets a shape it does not expect fails
the way Python code fails; that becomes the device's failure (LL310, "not verified"), never a
traceback, and the other devices are still judged.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from importlib import import_module
from pathlib import Path
from typing import Any

from lossless.errors import InputError, Problem
from lossless.observed import DeviceState, Output, PortState, QueueCounters, WatchdogCounters
from lossless.plan import DevicePlan, FabricPlan
from lossless.system.files import inside, read_bounded, read_text
from lossless.vendors.registry import vendor_for
from lossless.vendors.untrusted import PARSER_ERRORS

# DIR/<device>/COLLECTED_AT: when the collection script read the device (`date +%s`)
COLLECTED_AT = "collected-at"
SNAPSHOT_FORMAT = "lossless-state-snapshot"
SNAPSHOT_VERSION = 1
# How a reader fails on output of a shape it does not expect (vendors/untrusted.py)
READ_ERRORS: tuple[type[BaseException], ...] = (*PARSER_ERRORS, InputError)
# A count no switch reaches (2^64 - 1 is the widest SAI counter): larger is junk
MAX_COUNTER = 2**64


@dataclass
class Snapshot:
    """The state of the devices read, and why each device that was not read was not."""

    devices: dict[str, DeviceState] = field(default_factory=dict)
    failures: dict[str, str] = field(default_factory=dict)


def reader(os_name: str) -> Any | None:
    """The OS's state reader module, or None where lossless has none yet."""
    module = vendor_for(os_name).state_reader
    return import_module(module) if module else None


def commands(device: DevicePlan) -> dict[str, str]:
    """Stem -> show command of what the device's reader reads ({} without a reader)."""
    found = reader(device.os)
    return dict(found.commands(device)) if found is not None else {}


def file_stem(stem: str) -> str:
    """A command stem as a file name (a per-port stem can hold a port's '/')."""
    return re.sub(r"[^A-Za-z0-9_.-]", "_", stem)


def read_device(
    device: DevicePlan, outputs: Mapping[str, Output], source: str, collected_at: float | None
) -> DeviceState | str:
    """The device's state from its outputs, or why it could not be read."""
    found = reader(device.os)
    if found is None:
        return f"lossless reads no {vendor_for(device.os).title} state yet"
    try:
        state: DeviceState = found.read(outputs, device)
    except READ_ERRORS as error:
        reason = str(error).splitlines()[0][:200] if str(error).strip() else ""
        return f"its show output is not what {vendor_for(device.os).title} prints: " + (
            f"{type(error).__name__}: {reason}".rstrip(": ")
        )
    state.source, state.collected_at = source, collected_at
    return state


# -- saved outputs -------------------------------------------------------------------------


def snapshot_from_folder(plan: FabricPlan, folder: Path) -> Snapshot:
    """The planned devices' state from FOLDER/<device>/<stem>.<ext> (what the collection
    script saves). A device without a folder, or whose outputs cannot be read, is a failure."""
    snapshot = Snapshot()
    for name, device in plan.devices.items():
        where = inside(folder, name, "state folder")
        if not where.is_dir():
            snapshot.failures[name] = f"no folder {where} in the saved state"
            continue
        stems = commands(device)
        outputs = {}
        for stem in stems:
            saved = sorted(where.glob(f"{file_stem(stem)}.*"))
            if saved:
                path = inside(where, saved[0].name, "state file")
                outputs[stem] = Output(read_text(path, "saved show output"), str(path))
        read = read_device(device, outputs, str(where), _collected_at(where))
        if isinstance(read, str):
            snapshot.failures[name] = read
        else:
            snapshot.devices[name] = read
    return snapshot


def _collected_at(where: Path) -> float | None:
    """When the script read the device (seconds since the epoch), None when not saved."""
    path = where / COLLECTED_AT
    if not path.exists():
        return None
    text = read_bounded(inside(where, COLLECTED_AT, "state file"), "timestamp", 64)
    try:
        value = float(text.decode("ascii").strip())
    except (UnicodeDecodeError, ValueError):
        raise InputError([Problem(str(path), 1, 1, "", "not seconds since the epoch")]) from None
    if not math.isfinite(value) or value < 0:
        raise InputError([Problem(str(path), 1, 1, "", "not seconds since the epoch")])
    return value


def snapshot_from_outputs(
    plan: FabricPlan,
    outputs: Mapping[str, Mapping[str, str] | str],
    collected_at: Callable[[str], float | None],
) -> Snapshot:
    """The state of devices asked live: name -> {stem: output text} (or why it failed)."""
    snapshot = Snapshot()
    for name, answer in outputs.items():
        if isinstance(answer, str):
            snapshot.failures[name] = answer
            continue
        device = plan.devices[name]
        stems = commands(device)
        texts = {
            stem: Output(text, f"{name}: {stems[stem]}")
            for stem, text in answer.items()
            if stem in stems
        }
        read = read_device(device, texts, "live", collected_at(name))
        if isinstance(read, str):
            snapshot.failures[name] = read
        else:
            snapshot.devices[name] = read
    return snapshot


# -- snapshot files ------------------------------------------------------------------------


def snapshot_json(snapshot: Snapshot) -> str:
    data = {
        "format": SNAPSHOT_FORMAT,
        "version": SNAPSHOT_VERSION,
        "devices": {name: state.to_dict() for name, state in sorted(snapshot.devices.items())},
        "failures": dict(sorted(snapshot.failures.items())),
    }
    return json.dumps(data, indent=2, sort_keys=True) + "\n"


def load_snapshot(path: Path) -> Snapshot:
    """A snapshot saved by `verify --snapshot`: bad input (exit 2) naming the file and the
    JSON path of the first value of the wrong shape."""
    file = str(path)
    try:
        data = json.loads(read_text(path, "snapshot"))
    except ValueError as error:
        raise InputError([Problem(file, 1, 1, "", f"not JSON: {error}")]) from None
    except RecursionError:
        raise InputError([Problem(file, 1, 1, "", "nested too deep")]) from None
    try:
        if not isinstance(data, dict) or data.get("format") != SNAPSHOT_FORMAT:
            raise _Shape("", f"not a lossless state snapshot (no format {SNAPSHOT_FORMAT!r})")
        if data.get("version") != SNAPSHOT_VERSION:
            raise _Shape("version", f"version {SNAPSHOT_VERSION} expected")
        devices = _mapping(data.get("devices", {}), "devices")
        failures = _mapping(data.get("failures", {}), "failures")
        return Snapshot(
            {str(n): _device(str(n), d, f"devices.{n}") for n, d in devices.items()},
            {str(n): _text(w, f"failures.{n}") for n, w in failures.items()},
        )
    except _Shape as shape:
        raise InputError([Problem(file, 1, 1, shape.path, shape.message)]) from None


class _Shape(Exception):
    def __init__(self, path: str, message: str):
        super().__init__(message)
        self.path, self.message = path, message


def _mapping(value: Any, path: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise _Shape(path, "an object expected")
    return value


def _text(value: Any, path: str) -> str:
    if not isinstance(value, str) or len(value) > 10_000:
        raise _Shape(path, "a string expected")
    return value


def _count(value: Any, path: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < MAX_COUNTER:
        raise _Shape(path, "a counter (a whole number >= 0) expected")
    return value


def _flag(value: Any, path: str) -> bool | None:
    if value is not None and not isinstance(value, bool):
        raise _Shape(path, "true, false or null expected")
    return value


def _number_key(key: str, path: str) -> int:
    if not key.isdigit() or len(key) > 3:
        raise _Shape(path, f"key {key[:20]!r}: a priority or queue number expected")
    return int(key)


def _counters(value: Any, path: str) -> dict[int, int]:
    found = {}
    for key, count in _mapping(value, path).items():
        counted = _count(count, f"{path}.{key}")
        if counted is not None:
            found[_number_key(key, path)] = counted
    return found


def _device(name: str, value: Any, path: str) -> DeviceState:
    data = _mapping(value, path)
    collected = data.get("collected_at")
    if collected is not None and (
        isinstance(collected, bool)
        or not isinstance(collected, (int, float))
        or not math.isfinite(collected)
    ):
        raise _Shape(f"{path}.collected_at", "seconds since the epoch expected")
    unread = data.get("unread", [])
    if not isinstance(unread, list) or not all(
        isinstance(u, list) and len(u) == 2 and all(isinstance(x, str) for x in u) for u in unread
    ):
        raise _Shape(f"{path}.unread", "a list of [what, why] expected")
    return DeviceState(
        device=name,
        os=_text(data.get("os"), f"{path}.os"),
        source=_text(data.get("source"), f"{path}.source"),
        collected_at=None if collected is None else float(collected),
        watchdog_enabled=_flag(data.get("watchdog_enabled"), f"{path}.watchdog_enabled"),
        unread=[(u[0], u[1]) for u in unread],
        ports={
            str(p): _port(str(p), v, f"{path}.ports.{p}")
            for p, v in _mapping(data.get("ports", {}), f"{path}.ports").items()
        },
    )


def _port(name: str, value: Any, path: str) -> PortState:
    data = _mapping(value, path)
    enabled = data.get("pfc_enabled")
    if enabled is not None and (
        not isinstance(enabled, list)
        or not all(isinstance(p, int) and not isinstance(p, bool) and 0 <= p <= 7 for p in enabled)
    ):
        raise _Shape(f"{path}.pfc_enabled", "a list of priorities 0-7 expected")
    queues = {
        _number_key(q, f"{path}.queues"): QueueCounters(
            **{
                k: _count(c, f"{path}.queues.{q}.{k}")
                for k, c in _mapping(v, f"{path}.queues.{q}").items()
                if k in ("tx_packets", "dropped_packets", "ecn_marked_packets")
            }
        )
        for q, v in _mapping(data.get("queues", {}), f"{path}.queues").items()
    }
    watchdog = {}
    for key, v in _mapping(data.get("watchdog", {}), f"{path}.watchdog").items():
        where = f"{path}.watchdog.{key}"
        entry = _mapping(v, where)
        watchdog[_number_key(key, f"{path}.watchdog")] = WatchdogCounters(
            enabled=_flag(entry.get("enabled"), f"{where}.enabled"),
            storms_detected=_count(entry.get("storms_detected"), f"{where}.storms_detected"),
            storms_restored=_count(entry.get("storms_restored"), f"{where}.storms_restored"),
            stormed=_flag(entry.get("stormed"), f"{where}.stormed"),
        )
    return PortState(
        name=name,
        source=_text(data.get("source"), f"{path}.source"),
        oper_up=_flag(data.get("oper_up"), f"{path}.oper_up"),
        link_flaps=_count(data.get("link_flaps"), f"{path}.link_flaps"),
        pfc_enabled=None if enabled is None else tuple(enabled),
        pfc_rx=_counters(data.get("pfc_rx", {}), f"{path}.pfc_rx"),
        pfc_tx=_counters(data.get("pfc_tx", {}), f"{path}.pfc_tx"),
        pause_rx_frames=_count(data.get("pause_rx_frames"), f"{path}.pause_rx_frames"),
        pause_tx_frames=_count(data.get("pause_tx_frames"), f"{path}.pause_tx_frames"),
        queues=queues,
        ingress_drops=_counters(data.get("ingress_drops", {}), f"{path}.ingress_drops"),
        watchdog=watchdog,
    )
