"""Read an NVIDIA mlx5 NIC's saved state back into a NicPlan, with the file and line of each
setting (for `lossless lint --host-state`).

The folder of one NIC holds what collect-host-state.sh saves (templates/hosts/):
* mlnx_qos.txt: the `mlnx_qos -i IF` report. Every style mlnx-tools has printed is read:
  "Priority trust mode: pcp" (MLNX_OFED 4.1 and before), "Priority trust state: dscp" with
  "dscp2prio mapping:" lines "prio:N dscp:..," in any order, a "Cable len:" line and the
  "PFC configuration:" table of priority/enabled/buffer rows (OFED 4.2 on; "total_size=" or
  "max_buffer_size=" in the receive buffer line; "default priority:" in some), DCBX mode
  OS- or firmware-controlled (Mellanox/mlnx-tools python/mlnx_qos pretty_print @ 8fbfd9c
  and its history).
* sysfs.txt: PATH:VALUE lines as `grep -H .` prints them: .../class/net/IF/mtu and speed,
  .../ecn/roce_np|roce_rp/<knob> (enable/<prio>, cnp_dscp, cnp_802p_prio, DCQCN parameters),
  .../class/infiniband/DEV/tc/1/traffic_class ("Global tclass=N": the port-wide RoCE class,
  of which only the DSCP, N >> 2, is compared) and .../rdma_cm/DEV/ports/1/default_roce_tos
  (RDMA-CM's own default, read but not taken for the RoCE class: NCCL does not use RDMA-CM;
  NicPlan has no field for it). Paths are matched by their end, so a state saved under
  another sysfs root reads the same.
* ethtool-pause.txt: `ethtool -a IF` ("RX: on|off", "TX: on|off").
* mlxconfig.txt (optional: only where mlxconfig is installed; its absence is no LL211):
  `mlxconfig -d PCI -e q CNP_DSCP_Pn CNP_802P_PRIO_Pn LLDP_NB_DCBX_Pn DCBX_WILLING_Pn` for
  the NIC's port n, lines "[*] NAME DEFAULT CURRENT NEXT_BOOT" under a "Configurations:"
  header (without -e only NEXT_BOOT); the last column, the value the firmware takes at every
  boot, is read (format: the `mlxconfig -e q` outputs in Mellanox/nic-configuration-operator
  queryMLXConfig tests and NVIDIA's UFM/SHARP notes, "Configurations: Default Current Next
  Boot"). A file naming several ports is read for the lowest.

The `mlnx_qos` report also gives the receive buffers (rx_buffers, prio2buffer): the
"Receive buffer size (bytes): S0,..,S7,total_size=N|max_buffer_size=N" line and the PFC
table's "buffer" row, each priority's buffer (mlnx_qos pretty_print; the sysfs
qos/buffer_size and qos/prio2buffer files it reads are those of NVIDIA's "HowTo Tune Receive
Buffers on Mellanox Adapter Cards"), and DCBX mode (dcbx: "os" or "firmware").

What the files do not say stays None (a difference from the plan), never filled in from the
plan. The plan only says where to look: the DSCP lossless expects RoCE on, if the state does
not say which DSCP the NIC uses, and the priority whose ECN switches to read.
"""

from __future__ import annotations

import re
from pathlib import Path

from lossless.errors import InputError, Problem
from lossless.hosts.nvidia import DCQCN_KNOBS
from lossless.hosts.values import dscp_of
from lossless.plan import NicPlan
from lossless.system.files import inside, read_config

QOS_FILE, SYSFS_FILE, PAUSE_FILE = "mlnx_qos.txt", "sysfs.txt", "ethtool-pause.txt"
MLXCONFIG_FILE = "mlxconfig.txt"  # optional: firmware settings, where mlxconfig is installed

MAX_LINE = 1024  # longer lines are not state lines (bounded time on any input)
MAX_BYTES = 4 * 1024 * 1024  # a report is a few kB; a larger file is not a saved state
_TRUST = re.compile(r"^Priority trust (?:state|mode):\s*(\S+)")
_DSCP2PRIO = re.compile(r"^\s*prio:(\d)\s+dscp:([0-9,]*)\s*$")
_CABLE = re.compile(r"^Cable len:\s*(\d+)")
_PAUSE = re.compile(r"^(RX|TX):\s+(on|off)\b")
_DCBX = re.compile(r"^DCBX mode:\s*(OS|Firmware) controlled\b")
_RX_BUFFERS = re.compile(r"^Receive buffer size \(bytes\):\s*([0-9,]+)")
_MLXCONFIG = re.compile(
    r"^\*?\s+(CNP_DSCP|CNP_802P_PRIO|LLDP_NB_DCBX|DCBX_WILLING)_P(\d)\s+(\S.*)$"
)
_NVCONFIG_VALUE = re.compile(r"^(?:\w*\()?(\d+)\)?$")  # 48, True(1), _256KB(1)
_SYSFS_KEYS = [
    ("mtu", re.compile(r"/class/net/[^/]+/mtu$")),
    ("speed", re.compile(r"/class/net/[^/]+/speed$")),
    ("traffic_class", re.compile(r"/tc/\d+/traffic_class$")),
    ("default_roce_tos", re.compile(r"/default_roce_tos$")),
]
_ECN_KNOB = re.compile(r"/ecn/(roce_np/.+|roce_rp/.+)$")


class _Reader:
    """Values of one NIC's state files, each with FILE:LINE:1."""

    def __init__(self, folder: Path, root: Path):
        self.folder = folder
        self.root = root  # the --host-state folder: no file is read from outside it
        self.values: dict[str, tuple[str, str]] = {}  # key -> (value, source)

    def lines(self, name: str) -> list[tuple[str, str]]:
        path = inside(self.folder, name, "--host-state", self.root)
        if not path.is_file():
            return []
        if path.stat().st_size > MAX_BYTES:
            message = f"larger than {MAX_BYTES} bytes: not a saved NIC state"
            raise InputError([Problem(str(path), 1, 1, "", message)])
        text = read_config(str(path))
        return [
            (line, f"{path}:{number}:1")
            for number, line in enumerate(text.splitlines(), 1)
            if len(line) <= MAX_LINE
        ]

    def put(self, key: str, value: str, source: str) -> None:
        self.values.setdefault(key, (value, source))  # the first occurrence counts

    def read_qos(self) -> dict[int, tuple[int, str]]:
        """Trust, cable length and PFC into values; the DSCP -> (priority, source) map."""
        dscp2prio: dict[int, tuple[int, str]] = {}
        header: list[int] = []
        for line, source in self.lines(QOS_FILE):
            if match := _TRUST.match(line):
                self.put("trust", match[1], source)
            elif match := _DSCP2PRIO.match(line):
                for dscp in filter(None, (d.strip() for d in match[2].split(","))):
                    dscp2prio.setdefault(int(dscp), (int(match[1]), source))
            elif match := _CABLE.match(line):
                self.put("cable_len", match[1], source)
            elif match := _DCBX.match(line):
                self.put("dcbx", match[1].lower(), source)
            elif match := _RX_BUFFERS.match(line):
                sizes = [s for s in match[1].split(",") if s][:8]
                if len(sizes) == 8:
                    self.put("rx_buffers", ",".join(sizes), source)
            else:
                words = line.split()
                if words[:1] == ["priority"] and all(
                    len(w) == 1 and w in "01234567" for w in words[1:]
                ):
                    header = [int(w) for w in words[1:]]  # the PFC table's column heads
                elif words[:1] == ["enabled"] and header and set(words[1:]) <= {"0", "1"}:
                    flags = words[1:]
                    enabled = [p for p, flag in zip(header, flags, strict=False) if flag == "1"]
                    self.put("pfc", ",".join(map(str, enabled)), source)
                elif (
                    words[:1] == ["buffer"]
                    and len(words) - 1 == len(header) == 8
                    and all(len(w) == 1 and w in "01234567" for w in words[1:])
                ):
                    by_priority = dict(zip(header, words[1:], strict=True))
                    mapping = ",".join(by_priority.get(p, "") for p in range(8))
                    if len(by_priority) == 8:
                        self.put("prio2buffer", mapping, source)
        return dscp2prio

    def read_mlxconfig(self) -> None:
        """The firmware's next-boot CNP class and DCBX settings of the lowest port named."""
        found: dict[int, dict[str, tuple[str, str]]] = {}
        for line, source in self.lines(MLXCONFIG_FILE):
            if match := _MLXCONFIG.match(line):
                number = _NVCONFIG_VALUE.match(match[3].split()[-1])
                if number:
                    port = found.setdefault(int(match[2]), {})
                    port.setdefault(match[1], (number[1], source))
        if found:
            for name, (value, source) in found[min(found)].items():
                self.put(f"mlxconfig/{name}", value, source)

    def read_sysfs(self) -> None:
        for line, source in self.lines(SYSFS_FILE):
            path, separator, value = line.partition(":")
            if not separator:
                continue
            value = value.strip()
            if match := _ECN_KNOB.search(path):
                self.put(f"ecn/{match[1]}", value, source)
                continue
            for key, pattern in _SYSFS_KEYS:
                if pattern.search(path):
                    self.put(key, value, source)

    def read_pause(self) -> None:
        found = {}
        for line, source in self.lines(PAUSE_FILE):
            if match := _PAUSE.match(line):
                found[match[1]] = (match[2] == "on", source)
        if len(found) == 2:
            on = found["RX"][0] or found["TX"][0]
            where = found["RX"][1] if found["RX"][0] or not found["TX"][0] else found["TX"][1]
            self.put("link_pause", "1" if on else "0", where)


def _number(text: str | None) -> int | None:
    """The whole number a value ends with ("Global tclass=104" -> 104, "-1"); None if none."""
    value = (text or "").strip()
    digits = len(value) - len(value.rstrip("0123456789"))
    if not digits:
        return None
    start = len(value) - digits
    sign = -1 if start > 0 and value[start - 1] == "-" else 1
    return sign * int(value[start:])


def parse_state(folder: Path, planned: NicPlan, root: Path | None = None) -> NicPlan:
    """The saved state of one NIC (folder as collect-host-state.sh writes it). The planned NIC
    gives identity (server, interface, model, peer) and where to look, no values. A file that
    leads outside `root` (the folder of every host's state; default: folder) is refused."""
    reader = _Reader(folder, folder if root is None else root)
    dscp2prio = reader.read_qos()
    reader.read_sysfs()
    reader.read_pause()
    reader.read_mlxconfig()
    values = reader.values
    state = NicPlan(
        server=planned.server,
        name=planned.name,
        model=planned.model,
        peer=planned.peer,
        speed_mbps=None,
        mtu=None,
        trust=None,
        pfc_priorities=None,
        roce_dscp=None,
        roce_priority=None,
        cnp_dscp=None,
        cnp_priority=None,
        ecn_np=None,
        ecn_rp=None,
        link_pause=None,
        cable_m=None,
        dcqcn={},
        gid_index=None,
        sriov_vfs=None,
        source=f"{folder / QOS_FILE}:1:1",
    )

    def take(field: str, key: str) -> str | None:
        if key not in values:
            return None
        value, source = values[key]
        state.sources[field] = source
        return value

    state.trust = take("trust", "trust")
    pfc = take("pfc_priorities", "pfc")
    state.pfc_priorities = None if pfc is None else [int(p) for p in pfc.split(",") if p]
    state.cable_m = _number(take("cable_m", "cable_len"))
    state.mtu = _number(take("mtu", "mtu"))
    speed = _number(take("speed_mbps", "speed"))
    state.speed_mbps = speed if speed and speed > 0 else None  # -1: link down
    # The RoCE class: the port-wide traffic class (MLNX_OFED tc/1/traffic_class) only. The
    # RDMA-CM default ToS is RDMA-CM's alone (NCCL sets up its QPs without RDMA-CM and uses
    # NCCL_IB_TC), so without the port-wide class the NIC's RoCE class is unknown (None). Only
    # the DSCP bits count (value >> 2): the ECN field (ECT(0) in NVIDIA's usual 106) is not
    # the class (values.py).
    tos = _number(take("roce_dscp", "traffic_class"))
    state.roce_dscp = None if tos is None or tos < 0 else dscp_of(tos)
    lookup = state.roce_dscp if state.roce_dscp is not None else planned.roce_dscp
    if lookup in dscp2prio:
        state.roce_priority, state.sources["roce_priority"] = dscp2prio[lookup]
    state.cnp_dscp = _number(take("cnp_dscp", "ecn/roce_np/cnp_dscp"))
    state.cnp_priority = _number(take("cnp_priority", "ecn/roce_np/cnp_802p_prio"))
    priority = state.roce_priority if state.roce_priority is not None else planned.roce_priority
    for field, point in (("ecn_np", "roce_np"), ("ecn_rp", "roce_rp")):
        enabled = _number(take(field, f"ecn/{point}/enable/{priority}"))
        setattr(state, field, None if enabled is None else enabled == 1)
    link_pause = take("link_pause", "link_pause")
    state.link_pause = None if link_pause is None else link_pause == "1"
    for name, knob in DCQCN_KNOBS.items():
        value = _number(take(f"dcqcn.{name}", f"ecn/{knob}"))
        if value is not None:
            state.dcqcn[name] = value
    state.dcbx = take("dcbx", "dcbx")
    state.rx_buffers = _numbers(take("rx_buffers", "rx_buffers"))
    state.prio2buffer = _numbers(take("prio2buffer", "prio2buffer"))
    state.firmware_cnp_dscp = _number(take("firmware_cnp_dscp", "mlxconfig/CNP_DSCP"))
    state.firmware_cnp_priority = _number(take("firmware_cnp_priority", "mlxconfig/CNP_802P_PRIO"))
    flags = [
        _number(take(f"firmware_dcbx_{name.lower()}", f"mlxconfig/{name}"))
        for name in ("LLDP_NB_DCBX", "DCBX_WILLING")
    ]
    if 0 in flags:
        state.firmware_dcbx_willing = False
    elif flags == [1, 1]:
        state.firmware_dcbx_willing = True
    return state


def _numbers(text: str | None) -> list[int] | None:
    """ "1,2,3" -> [1, 2, 3]; None stays None."""
    return None if text is None else [int(v) for v in text.split(",")]
