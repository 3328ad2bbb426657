"""What a running switch reports: its operational QoS state and counters, in one shape for
every OS (`lossless verify`).

Each OS's reader (vendors/<os>/state.py) turns the outputs of that OS's show commands (JSON
where the OS gives it) into a DeviceState; verify/ judges DeviceStates against the plan, and
two snapshots of the same devices against each other (counter deltas). A reader states only
what the outputs show: a value the outputs do not give is None (unknown), never the plan's,
and `unread` names each thing it could not read and why.

Counters are as the switch keeps them: monotonic since boot or the last clear. None is "the
OS does not report this counter" (or the output lacked it), 0 is a zero counter, and so is
2^64 - 1, the value SAI and several NOS CLIs show for a counter the ASIC does not support
(UNSUPPORTED): readers read it as None.

After a reader ran, `unknown_kinds` lists, per planned port, each kind of state the rules
need (KINDS) that stayed unknown: verify/collect.py says each in `unread`, naming the output
it should have come from (the reader's NEEDS), so that an output of another shape (a renamed
key, a port left out, `{}`) is a warning rather than silence.
"""

from __future__ import annotations

import json
import re
from bisect import bisect_right
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from lossless.text.json_read import loads

# 2^64 - 1: what a counter the ASIC does not support reads as (SAI's and several CLIs'
# "unsupported"); no real counter reaches it
UNSUPPORTED = 2**64 - 1

# The kinds of a port's state the rules need, as `unread` names them; a reader's NEEDS maps
# each kind it reads to the stem of the output it comes from
OPER = "oper state"
PFC = "PFC operational priorities"
PAUSE = "PFC pause counters"
QUEUE = "lossless queue counters"
INGRESS = "ingress drop counters"
WATCHDOG = "PFC watchdog state"
LINK = "link flap counter"
KINDS = (OPER, LINK, PFC, PAUSE, QUEUE, INGRESS, WATCHDOG)


@dataclass(frozen=True)
class Output:
    """One show command's output as a reader gets it: the text and where it came from (the
    saved file's path, or `DEVICE: COMMAND` when read live). located False: where a value
    stands is not looked up (`at` says line 1): a baseline's locations are never shown, and
    looking them up was ~6 % of reading it."""

    text: str
    source: str
    located: bool = field(default=True, compare=False)

    def at(self, needle: str) -> str:
        """SOURCE:LINE:COL of needle (line 1 if it is not there): where a finding about what
        the needle names points. Readers ask for the ports and counters of an output in the
        order they read them, mostly the output's own: the needle is looked for from where
        the last one was found (so that of a port named in two rows, the row being read is
        named), then from the start, and its line counted on from there; a pass over a large
        output (a SONiC COUNTERS dump is ~1 MB, asked for every queue) costs one scan of it.
        An output asked out of order more than WRAPS_BEFORE_INDEX times gets an index of its
        JSON strings and its lines instead (a quoted needle is then its first occurrence)."""
        if not self.located:
            return self._start
        text, memo = self.text, self.__dict__.get("_memo")
        if memo is None:  # set on the instance's dict: the dataclass is frozen
            memo = self.__dict__["_memo"] = [0, 1, 0]
        cursor, line, wraps = memo
        if wraps > WRAPS_BEFORE_INDEX and needle[:1] == needle[-1:] == '"':
            offset = self._strings.get(needle, -1)
            if offset < 0:
                offset = text.find(needle)
            if offset < 0:
                return f"{self.source}:1:1"
            line = bisect_right(self._line_starts, offset)
            return f"{self.source}:{line}:{offset - self._line_starts[line - 1] + 1}"
        offset = text.find(needle, cursor)
        if offset >= 0:
            line += text.count("\n", cursor, offset)
        else:
            offset = text.find(needle, 0, cursor + len(needle))
            if offset < 0:
                return f"{self.source}:1:1"
            memo[2] += 1
            line = text.count("\n", 0, offset) + 1
        memo[0], memo[1] = offset, line
        return f"{self.source}:{line}:{offset - text.rfind(_LF, 0, offset)}"

    @cached_property
    def parsed(self) -> Any:
        """The output read as JSON (every reader reads JSON), once: collect.py checks it is
        JSON before the reader reads it (what Python cannot read of valid JSON is
        text.json_read.UnreadableJSON, a ValueError). Lines a CLI prints around the JSON
        (Junos ends every answer with its banner `{master:0}`, a saved session has the
        prompt and command) are skipped: whole lines of BANNER only, before or after the
        JSON, blanked in place so that an error's line and column stay the file's."""
        try:
            return loads(self.text)
        except json.JSONDecodeError:
            blanked = _banners_blanked(self.text)
            if blanked is None:
                raise
            return loads(blanked)

    @cached_property
    def _start(self) -> str:
        """SOURCE:1:1, one string however many values of the output point at it."""
        return f"{self.source}:1:1"

    @cached_property
    def _strings(self) -> dict[str, int]:
        """Each JSON string of the text (quotes included) -> where it first stands."""
        first: dict[str, int] = {}
        for match in _JSON_STRING.finditer(self.text):
            first.setdefault(match.group(), match.start())
        return first

    @cached_property
    def _line_starts(self) -> list[int]:
        return [0, *(match.end() for match in _NEWLINE.finditer(self.text))]


def _banners_blanked(text: str) -> str | None:
    """The text with the BANNER lines before and after its JSON as spaces, None when there
    are none."""
    lines = text.split("\n")
    first, last = 0, len(lines)
    while first < last and _BANNER.match(lines[first]):
        first += 1
    while last > first and _BANNER.match(lines[last - 1]):
        last -= 1
    blanked = [" " * len(line) for line in lines[:first]] + lines[first:last]
    blanked += [" " * len(line) for line in lines[last:]]
    kept = "\n".join(blanked)
    return kept if kept != text else None


# A line a CLI prints around a show command's JSON: blank; a Junos banner ({master:0},
# {backup:1}, {primary:node0}, with the [edit] of configuration mode); a prompt, alone or
# with the command typed after it (user@host> show ..., host# show ...)
_BANNER = re.compile(
    r"^\s*$"
    r"|^\{\w+(?::[\w-]+)?\}(?:\[edit[^\]]*\])?\s*$"
    r"|^[A-Za-z][\w.-]*(?:@[\w.-]+)?(?:\([^)]*\))?[>#%$](?:\s.*)?$"
)
# An output asked out of its order more often than this gets its strings and lines indexed
# (SONiC's COUNTERS dump is keyed by object id, asked port by port)
WRAPS_BEFORE_INDEX = 16
_JSON_STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"')
_NEWLINE = re.compile("\n")
_LF = "\n"


@dataclass
class QueueCounters:
    """One egress queue of a port, in the OS's own queue numbering (the plan's queue as the
    OS renders it: Vendor.as_rendered)."""

    tx_packets: int | None = None
    dropped_packets: int | None = None  # tail drops and WRED drops of the queue
    ecn_marked_packets: int | None = None


@dataclass
class WatchdogCounters:
    """The PFC watchdog on one priority (or queue) of a port."""

    enabled: bool | None = None  # operationally watching this priority
    storms_detected: int | None = None
    storms_restored: int | None = None
    stormed: bool | None = None  # in a storm now (the queue is being drained or dropped)


@dataclass
class PortState:
    name: str  # the plan's port name (readers translate the OS's aliases)
    source: str  # FILE:LINE:COL (or DEVICE:COMMAND live) where the port's state was read
    oper_up: bool | None = None
    # The OS's counter of the link's state changes, where it keeps one (SONiC flap_count, EOS
    # linkStatusChanges and NVUE carrier-transitions count downs and ups, Junos
    # carrier-transitions downs): as the OS counts, judged only as growth since a baseline
    link_changes: int | None = None
    # The priorities PFC is operationally enabled on (after negotiation where there is DCBX);
    # () is "PFC off", None is "not shown"
    pfc_enabled: tuple[int, ...] | None = None
    pfc_rx: dict[int, int] = field(default_factory=dict)  # priority -> pause frames received
    pfc_tx: dict[int, int] = field(default_factory=dict)  # priority -> pause frames sent
    # Pause frames of every priority together, where the OS counts them per port only (EOS,
    # NX-OS); None where it does not (or counts per priority: pfc_rx/pfc_tx)
    pause_rx_frames: int | None = None
    pause_tx_frames: int | None = None
    queues: dict[int, QueueCounters] = field(default_factory=dict)  # queue -> counters
    # priority (or priority group) -> packets dropped at ingress for lack of buffer/headroom
    ingress_drops: dict[int, int] = field(default_factory=dict)
    watchdog: dict[int, WatchdogCounters] = field(default_factory=dict)  # priority -> state
    # Where each kind of state was read: a PortState field's name ("pfc_enabled", "queues",
    # ...) or "queues.<n>" -> FILE:LINE:COL, set by the reader where it read the value
    sources: dict[str, str] = field(default_factory=dict)

    def at(self, *fields: str) -> str:
        """Where the first of the fields that has a source was read, else the port's source:
        where a finding about those fields points."""
        return next((self.sources[f] for f in fields if f in self.sources), self.source)


def unknown_kinds(
    port: PortState,
    lossless: bool,
    priorities: Collection[int],
    queues: Collection[int],
    watched: bool,
) -> list[str]:
    """The KINDS of the port's state the rules need that the reader left unknown. lossless:
    the plan makes the port lossless on `priorities`, carried in egress `queues` (the OS's
    numbering); watched: the plan has the PFC watchdog on the port."""
    unknown = [OPER] if port.oper_up is None else []
    if port.link_changes is None:  # a kind only where the reader NEEDS it (collect.py)
        unknown.append(LINK)
    if not lossless:
        return unknown
    if port.pfc_enabled is None:
        unknown.append(PFC)
    if not any(p in port.pfc_rx for p in priorities) and port.pause_rx_frames is None:
        unknown.append(PAUSE)
    if any(q not in port.queues or port.queues[q].dropped_packets is None for q in queues):
        unknown.append(QUEUE)
    if not port.ingress_drops:
        unknown.append(INGRESS)
    if watched and any(
        p not in port.watchdog or port.watchdog[p].enabled is None for p in priorities
    ):
        unknown.append(WATCHDOG)
    return unknown


COUNTER_DIGITS = 20  # a 64-bit counter has at most 20 decimal digits


def counter(value: Any) -> int | None:
    """A counter as a show output gives it (a JSON number, or decimal digits as text), None
    when it is not one or is UNSUPPORTED."""
    if type(value) is int:  # most counters: a JSON number (a bool is not one)
        return value if 0 <= value < UNSUPPORTED else None
    if isinstance(value, str):
        text = value.strip()
        if not (text.isascii() and text.isdigit()) or len(text) > COUNTER_DIGITS:
            return None
        value = int(text)
    if not isinstance(value, int) or isinstance(value, bool):
        return None
    return value if 0 <= value < UNSUPPORTED else None


@dataclass
class DeviceState:
    device: str
    os: str
    source: str  # the folder or "live" it was read from
    collected_at: float | None = None  # seconds since the epoch, when known (rates)
    ports: dict[str, PortState] = field(default_factory=dict)
    watchdog_enabled: bool | None = None  # the device-wide watchdog switch, where there is one
    # What could not be read: (what, why), e.g. ("ECN marked counters", "queue.json missing")
    unread: list[tuple[str, str]] = field(default_factory=list)
    # FILE:LINE:COL a finding about the whole device points at (its first output, line 1)
    at: str = ""

    def to_dict(self) -> dict[str, Any]:
        """A snapshot as `verify --snapshot` saves it (ints and strings only)."""
        return {
            "device": self.device,
            "os": self.os,
            "source": self.source,
            "collected_at": self.collected_at,
            "watchdog_enabled": self.watchdog_enabled,
            "unread": [list(u) for u in self.unread],
            "at": self.at,
            "ports": {
                name: {
                    "source": p.source,
                    "oper_up": p.oper_up,
                    "link_changes": p.link_changes,
                    "pfc_enabled": None if p.pfc_enabled is None else list(p.pfc_enabled),
                    "pfc_rx": _keys_as_text(p.pfc_rx),
                    "pfc_tx": _keys_as_text(p.pfc_tx),
                    "pause_rx_frames": p.pause_rx_frames,
                    "pause_tx_frames": p.pause_tx_frames,
                    "queues": {str(q): vars(c) for q, c in sorted(p.queues.items())},
                    "ingress_drops": _keys_as_text(p.ingress_drops),
                    "watchdog": {str(q): vars(w) for q, w in sorted(p.watchdog.items())},
                    "sources": dict(sorted(p.sources.items())),
                }
                for name, p in self.ports.items()
            },
        }


def _keys_as_text(counters: dict[int, int]) -> dict[str, int]:
    return {str(key): value for key, value in sorted(counters.items())}


PortNames = dict[str, str]  # a port's name as the OS writes it, normalised -> the plan's name
Reader = Callable[[Output, PortNames, DeviceState], None]


def read_outputs(
    state: DeviceState,
    outputs: Mapping[str, Output],
    readers: Mapping[str, Reader],
    names: PortNames,
    commands: Mapping[str, str],
    what: Mapping[str, str],
) -> None:
    """Each reader over its command's output, in the readers' order; an output not there is
    one `unread` entry naming what it would have shown and the command."""
    for stem, reader in readers.items():
        output = outputs.get(stem)
        if output is None:
            state.unread.append((what[stem], f"no output of `{commands[stem]}`"))
            continue
        reader(output, names, state)


def output_folder(outputs: Mapping[str, Output]) -> str:
    """The folder saved outputs were read from, or "live"."""
    folders = {o.source.rsplit("/", 1)[0] for o in outputs.values() if "/" in o.source}
    return folders.pop() if len(folders) == 1 else "live"


def json_object(output: Output) -> dict[str, Any]:
    """An output that must be one JSON object (a `| json` answer); anything else is an
    error naming the output."""
    data = output.parsed
    if not isinstance(data, dict):
        raise TypeError(f"{output.source}: expected a JSON object, got {type(data).__name__}")
    return data


def object_or_empty(value: Any) -> dict[str, Any]:
    """A JSON object, or {} where the output has something else (a value left unknown)."""
    return value if isinstance(value, dict) else {}
