"""Host vendors at the edge: which module writes a NIC model's settings, and which models are
not supported (with the reason, printed per model).

A host vendor module exposes NAME, TEMPLATE (templates/hosts/, with the jinja2 macros `lib()`,
`check(nic)` and `apply(nic)`), COMMANDS (tools the script needs), `problems(nic)` (settings
its tools cannot express) and `context(nic)` (the values the template prints). NVIDIA also
writes the nic-configuration-operator resource and reads host state back.
"""

from __future__ import annotations

import re
from types import ModuleType

from lossless.hosts import broadcom, nvidia

# NIC model (as the inventory writes it) -> the module that renders it.
HOST_VENDORS: list[tuple[re.Pattern[str], ModuleType]] = [
    (re.compile(r"^\s*(connectx|cx-?\d|bluefield)", re.I), nvidia),
    (
        re.compile(r"^\s*(bcm57[0-9]{3}|thor|netxtreme|[pn][0-9]{3,4}[a-z]?g\b)", re.I),
        broadcom,
    ),
]

# Models we know and do not render, with why (shown per model by `lossless render --hosts`).
NOT_SUPPORTED: list[tuple[re.Pattern[str], str]] = [
    (
        re.compile(r"pensando|pollara|ainic|salina", re.I),
        "AMD Pensando NICs are configured with AMD's own tools, whose QoS and DCQCN commands "
        "are not publicly documented; set them by AMD's guide and lint the switches",
    ),
    (
        re.compile(r"^\s*(intel|e8[0-9]0)", re.I),
        "Intel E810/E830 (irdma) RoCE QoS is set through DCB (lldptool/dcb) and irdma module "
        "parameters; lossless does not render it yet",
    ),
]

# A Linux interface name (IFNAMSIZ 16 with the NUL) that no tool takes for an option; \Z, not
# $, so that a final newline is not the end
INTERFACE_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,14}\Z")


def host_vendor(model: str | None) -> ModuleType | str:
    """The module that renders this NIC model, or why the model is not supported."""
    if not model:
        return "the inventory gives no NIC model (e.g. model: ConnectX-7)"
    for pattern, module in HOST_VENDORS:
        if pattern.search(model):
            return module
    for pattern, reason in NOT_SUPPORTED:
        if pattern.search(model):
            return reason
    return (
        f"unknown NIC model {model!r}: lossless renders NVIDIA ConnectX/BlueField "
        "(mlnx_qos, sysfs) and Broadcom NetXtreme-E (bnxt_setupcc.sh)"
    )
