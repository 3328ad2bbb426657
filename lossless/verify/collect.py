"""A snapshot of the fabric's operational state: each planned switch's show-command outputs
(saved in DIR/<device>/ by the collection script, or asked live through napalm by
deploy/live.py) read by its OS's reader (vendors/<os>/state.py) into an observed.DeviceState;
snapshots saved to and loaded from JSON (`verify --snapshot` / `--baseline`).

Outputs come from switches: untrusted. A reader that meets a shape it does not expect fails
the way Python code fails; that becomes the device's failure (LL310, "not verified"), never a
traceback, and the other devices are still judged; an output that is not JSON is named with
its line. An output read without error can still lack what the rules need (a key renamed, a
port left out): each kind of state that stayed unknown on a planned port is an `unread` entry
naming the output it should have come from (_say_unknown over the reader's NEEDS).
"""

from __future__ import annotations

import io
import json
import math
import os
import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from importlib import import_module
from pathlib import Path
from typing import Any, TextIO

from lossless.errors import InputError, Problem
from lossless.observed import (
    DeviceState,
    Output,
    PortState,
    QueueCounters,
    WatchdogCounters,
    unknown_kinds,
)
from lossless.plan import DevicePlan, FabricPlan
from lossless.system.files import inside, read_bounded, read_start, read_text
from lossless.system.long_lived import building_long_lived
from lossless.system.parallel import ordered_map
from lossless.text.grammar import first_few
from lossless.text.json_read import UnreadableJSON, loads
from lossless.text.printable import printable
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
# The files the collection script leaves per command (templates/verify/): the output it
# saved whole (.out; the recordings in tests/data/verify are .json), and on a failure the
# command's stderr (.err). A run cut short leaves a hidden temporary file (older scripts
# <stem>.out.part): never read.
OUTPUT_SUFFIXES = (".out", ".json")
ERROR_SUFFIX = ".err"
ERROR_LINE = 160  # characters of a failed command's stderr quoted in the warning
ERROR_START = 4096  # bytes of it read to find that line
# A collected-at this far ahead of now is a wrong clock or a wrong file, not a read
FUTURE_SLACK = 86_400.0


@dataclass
class Snapshot:
    """The state of the devices read, and why each device that was not read was not."""

    devices: dict[str, DeviceState] = field(default_factory=dict)
    failures: dict[str, str] = field(default_factory=dict)
    # FILE:LINE:COL of what made a device fail, where one output did (not saved)
    failed_at: dict[str, str] = field(default_factory=dict)


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


def lossless_queues(device: DevicePlan) -> dict[int, int]:
    """Lossless priority -> the egress queue the device's OS carries it in (its numbering:
    Junos moves RoCE to queue 4, Vendor.as_rendered)."""
    rendered = vendor_for(device.os).as_rendered(device)
    return {
        p: rendered.maps.pfc_priority_to_queue[p]
        for p in rendered.lossless_priorities
        if p in rendered.maps.pfc_priority_to_queue
    }


@dataclass(frozen=True)
class Failure:
    """Why a device could not be read, and the FILE:LINE:COL of the output that made it fail
    ("" when no one output did)."""

    reason: str
    at: str = ""


def read_device(
    device: DevicePlan,
    outputs: Mapping[str, Output],
    source: str,
    collected_at: float | None,
    errors: Mapping[str, str] | None = None,
    stems: Mapping[str, str] | None = None,
    judged: bool = True,
) -> DeviceState | Failure:
    """The device's state from its outputs (errors: stem -> the first line a failed command
    printed, quoted where its output is missing; stems: its commands, where the caller has
    them), or why it could not be read. judged False: a baseline's, whose `unread` is never
    said, so is not made."""
    found = reader(device.os)
    title = vendor_for(device.os).title
    if found is None:
        return Failure(f"lossless reads no {title} state yet")
    for output in outputs.values():
        where = _not_json(output)
        if where is not None:
            return Failure(f"its show output is not what {title} prints: {where[1]}", where[0])
    try:
        state: DeviceState = found.read(outputs, device)
    except READ_ERRORS as error:
        reason = str(error).splitlines()[0][:200] if str(error).strip() else ""
        named = [o.source for o in outputs.values() if o.source in reason]
        return Failure(
            f"its show output is not what {title} prints: "
            + f"{type(error).__name__}: {reason}".rstrip(": "),
            f"{named[0]}:1:1" if named else "",
        )
    state.source, state.collected_at = source, collected_at
    state.at = f"{next(iter(outputs.values())).source}:1:1" if outputs else ""
    if judged:
        stems = commands(device) if stems is None else stems
        _say_unknown(state, device, getattr(found, "NEEDS", {}), outputs, stems)
        _quote_errors(state, errors or {}, stems)
    return state


def _not_json(output: Output) -> tuple[str, str] | None:
    """(FILE:LINE:COL, why) of an output that is not JSON (every reader reads JSON)."""
    try:
        _ = output.parsed  # parsed once here, kept for the reader
    except json.JSONDecodeError as error:
        return f"{output.source}:{error.lineno}:{error.colno}", (
            f"{output.source}:{error.lineno}:{error.colno}: not JSON: {error.msg}"
        )
    except UnreadableJSON as error:  # nested too deep, an integer of thousands of digits
        where = f"{output.source}:{error.line}:{error.column}"
        return where, f"{where}: {error.reason}"
    return None


def _say_unknown(
    state: DeviceState,
    device: DevicePlan,
    needs: Mapping[str, str],
    outputs: Mapping[str, Output],
    stems: Mapping[str, str],
) -> None:
    """An `unread` entry for each kind of state the rules need (observed.KINDS) that the
    reader left unknown on a planned port, naming the output it should have come from.
    needs: kind -> stem ("{port}" in it for per-port commands). A kind the OS's reader does
    not list is one it cannot show (and says so itself); a kind whose output is missing is
    already one entry: one cause, one entry."""
    queues = lossless_queues(device)
    unknown: dict[tuple[str, str], list[str]] = {}
    for name, port in device.ports.items():
        seen = state.ports.get(name)
        if seen is None:
            continue  # LL310 says which planned ports have no state at all
        kinds = unknown_kinds(
            seen,
            port.lossless,
            port.pfc_priorities,
            [queues[p] for p in port.pfc_priorities if p in queues],
            bool(port.watchdog and port.watchdog.enabled),
        )
        for kind in kinds:
            stem = needs[kind].format(port=name) if kind in needs else None
            if stem is not None and stem in outputs:
                unknown.setdefault((kind, stem), []).append(name)
    for (kind, stem), ports in unknown.items():
        output, command = outputs[stem], stems.get(stem, stem)
        shown = "" if output.source == f"{state.device}: {command}" else f" ({output.source})"
        state.unread.append(
            (f"{kind} of {first_few(ports, 6)}", f"not in the output of `{command}`{shown}")
        )


def _quote_errors(state: DeviceState, errors: Mapping[str, str], stems: Mapping[str, str]) -> None:
    """Each `unread` entry about a command that failed gets the command's first error line."""
    for stem, line in errors.items():
        command = stems.get(stem)
        if not command or not line:
            continue
        state.unread = [
            (what, f"{why}; it failed: {line}" if command in why else why)
            for what, why in state.unread
        ]


# -- saved outputs -------------------------------------------------------------------------


def snapshot_from_folder(plan: FabricPlan, folder: Path, baseline: bool = False) -> Snapshot:
    """The planned devices' state from FOLDER/<device>/<stem>.out (what the collection script
    saves; .json, the recordings' name, too). A stem without one is not collected (its .err,
    where the script left one, quoted); a device without a folder, or whose outputs cannot be
    read, is a failure. Devices are read in worker processes where the fabric is large
    (system/parallel.py), and only there: each device's outputs are read, parsed and dropped
    in a worker, and only its state comes back, so this process neither parses nor frees a
    parsed tree. baseline: the state is a baseline, of which only the counters are judged
    (deltas): where each value stands in its file is not looked up (Output.located), nor
    what it leaves unread said."""
    snapshot = Snapshot()
    names = list(plan.devices)

    def read_one(index: int) -> DeviceState | Failure:
        return read_saved(plan.devices[names[index]], folder, baseline)

    # the outputs' JSON trees and the states are many objects and no cycles: the collector
    # rescanning them as they are built cost more than the reading (system/long_lived.py)
    with building_long_lived():
        for name, read in zip(names, ordered_map(read_one, len(names), here=False), strict=True):
            _record(snapshot, name, read)
    return snapshot


def read_saved(device: DevicePlan, folder: Path, baseline: bool = False) -> DeviceState | Failure:
    where = inside(folder, device.name, "state folder")
    if not where.is_dir():
        return Failure(f"no folder {where} in the saved state")
    stems = commands(device)
    listed = _listed(where, {file_stem(stem) for stem in stems})
    outputs, errors = {}, {}
    for stem in stems:
        name = file_stem(stem)
        path = _saved(where, name, listed)
        if path is not None:
            outputs[stem] = Output(read_text(path, "saved show output"), path, not baseline)
        elif (listed is None or f"{name}{ERROR_SUFFIX}" in listed) and (
            where / f"{name}{ERROR_SUFFIX}"
        ).is_file():
            errors[stem] = _first_line(where, f"{name}{ERROR_SUFFIX}")
    return read_device(
        device, outputs, str(where), _collected_at(where), errors, stems, judged=not baseline
    )


def _record(snapshot: Snapshot, name: str, read: DeviceState | Failure) -> None:
    if isinstance(read, Failure):
        snapshot.failures[name] = read.reason
        if read.at:
            snapshot.failed_at[name] = read.at
    else:
        snapshot.devices[name] = read


def _listed(where: Path, stems: set[str]) -> dict[str, os.DirEntry[str]] | None:
    """The entries of a device's folder that are files of its command stems (an output or a
    failed command's stderr), by name, listed once (a Cumulus leaf's folder holds 256
    outputs: one listing, not two stats of each); None when the folder cannot be listed (it
    may be searched but not read): each file is then looked up by its name."""
    names = {f"{stem}{suffix}" for stem in stems for suffix in (*OUTPUT_SUFFIXES, ERROR_SUFFIX)}
    try:
        with os.scandir(where) as entries:
            return {entry.name: entry for entry in entries if entry.name in names}
    except OSError:
        return None


def _saved(where: Path, stem: str, listed: dict[str, os.DirEntry[str]] | None) -> str | None:
    """The path of the output the script saved whole for a stem (OUTPUT_SUFFIXES), None when
    none. An entry of the folder that is a regular file and not a symlink is inside it; a
    symlink is followed only to a file inside the folder (files.inside)."""
    for suffix in OUTPUT_SUFFIXES:
        name = f"{stem}{suffix}"
        entry = listed.get(name) if listed is not None else None
        if entry is not None and not entry.is_symlink():
            if entry.is_file(follow_symlinks=False):
                return f"{where}{os.sep}{name}"
        elif (listed is None or entry is not None) and (where / name).is_file():
            return str(inside(where, name, "state file"))
    return None


def _first_line(where: Path, name: str) -> str:
    """The first non-blank line a failed command printed (bounded, printable): read from its
    first ERROR_START bytes, however much more it printed."""
    data = read_start(inside(where, name, "state file"), "error output", ERROR_START)
    lines = [line.strip() for line in data.decode("utf-8", "replace").splitlines()]
    first = next((line for line in lines if line), "")
    return printable(first[:ERROR_LINE] + ("..." if len(first) > ERROR_LINE else ""))


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
    if value > time.time() + FUTURE_SLACK:
        raise InputError([Problem(str(path), 1, 1, "", _FUTURE)])
    return value


_FUTURE = "more than a day in the future: a wrong clock, or not this collection's time"


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
        _record(snapshot, name, read_device(device, texts, "live", collected_at(name)))
    return snapshot


# -- snapshot files ------------------------------------------------------------------------


def snapshot_json(snapshot: Snapshot) -> str:
    """The snapshot as `verify --snapshot` saves it (write_snapshot's text)."""
    text = io.StringIO()
    write_snapshot(text, snapshot)
    return text.getvalue()


def write_snapshot(stream: TextIO, snapshot: Snapshot) -> None:
    """Write the snapshot's JSON (json.dumps of it whole, indent 2, keys sorted: the same
    text) one device at a time: at 32,768 GPUs the whole snapshot's dicts and text were
    2.6 GB."""
    writer = SnapshotWriter(stream)
    for name, state in sorted(snapshot.devices.items()):
        writer.device(name, device_text(state))
    writer.close(snapshot.failures)


def device_text(state: DeviceState) -> str:
    """A device's state as the snapshot nests it: a JSON string holds no raw newline, so
    indenting the text line by line nests it as json.dumps does."""
    return json.dumps(state.to_dict(), indent=2, sort_keys=True).replace("\n", "\n    ")


class SnapshotWriter:
    """A snapshot's JSON written as its devices come (in their names' order, device_text
    each), then its failures: what write_snapshot writes of the whole snapshot."""

    def __init__(self, stream: TextIO):
        self.stream = stream
        self.written = 0
        stream.write('{\n  "devices": {')

    def device(self, name: str, text: str) -> None:
        self.stream.write(f"{',' if self.written else ''}\n    {json.dumps(name)}: {text}")
        self.written += 1

    def close(self, failures: Mapping[str, str]) -> None:
        stream = self.stream
        stream.write("\n  }," if self.written else "},")
        text = json.dumps(dict(sorted(failures.items())), indent=2, sort_keys=True)
        stream.write(f'\n  "failures": {text.replace(chr(10), chr(10) + "  ")},')
        stream.write(f'\n  "format": {json.dumps(SNAPSHOT_FORMAT)},')
        stream.write(f'\n  "version": {json.dumps(SNAPSHOT_VERSION)}\n}}\n')


def load_snapshot(path: Path) -> Snapshot:
    """A snapshot saved by `verify --snapshot`: bad input (exit 2) naming the file and the
    JSON path of the first value of the wrong shape."""
    file = str(path)
    try:
        data = loads(read_text(path, "snapshot"))
    except json.JSONDecodeError as error:
        problem = Problem(file, error.lineno, error.colno, "", f"not JSON: {error.msg}")
        raise InputError([problem]) from None
    except UnreadableJSON as error:  # nested too deep, an integer of thousands of digits
        raise InputError([Problem(file, error.line, error.column, "", error.reason)]) from None
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
        or collected < 0
    ):
        raise _Shape(f"{path}.collected_at", "seconds since the epoch expected")
    if collected is not None and collected > time.time() + FUTURE_SLACK:
        raise _Shape(f"{path}.collected_at", _FUTURE)
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
        at=_text(data.get("at", ""), f"{path}.at"),
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
        link_changes=_count(data.get("link_changes"), f"{path}.link_changes"),
        pfc_enabled=None if enabled is None else tuple(enabled),
        pfc_rx=_counters(data.get("pfc_rx", {}), f"{path}.pfc_rx"),
        pfc_tx=_counters(data.get("pfc_tx", {}), f"{path}.pfc_tx"),
        pause_rx_frames=_count(data.get("pause_rx_frames"), f"{path}.pause_rx_frames"),
        pause_tx_frames=_count(data.get("pause_tx_frames"), f"{path}.pause_tx_frames"),
        queues=queues,
        ingress_drops=_counters(data.get("ingress_drops", {}), f"{path}.ingress_drops"),
        watchdog=watchdog,
        sources={
            str(k): _text(v, f"{path}.sources.{k}")
            for k, v in _mapping(data.get("sources", {}), f"{path}.sources").items()
        },
    )
