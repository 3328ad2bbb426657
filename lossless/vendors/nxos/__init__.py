"""Cisco NX-OS (Nexus 9000): CLI as `show running-config` prints it.

render: the plan in its terms (templates/nxos/); parse: a config back into a plan;
diff: a running config to ours, and what each change does to traffic.
"""

from __future__ import annotations

from lossless.vendors.nxos import render
from lossless.vendors.vendor import Vendor

VENDOR = Vendor(
    os="nxos",
    title="NX-OS",
    template=render.TEMPLATE,
    extension=render.EXTENSION,
    context=render.context,
    expressed=render.expressed,
    not_expressed=render.NOT_EXPRESSED,
    parser="lossless.vendors.nxos.parse",
    differ="lossless.vendors.nxos.diff",
    napalm_driver="nxos",
    # Nexus 9000 Cloud Scale: Cisco's own ASICs
    asic_vendors=("cisco",),
    diff_kind="remediation",
    max_mtu=render.MAX_MTU,
    # CNP in qos-group 7, the highest-numbered queue (render.as_rendered)
    as_rendered=render.as_rendered,
    state_reader="lossless.vendors.nxos.state",
    # the saved running config replaces the running one whole (lossless push --backup)
    restore_hint=(
        "copy it to the switch as bootflash:{name}, then `rollback running-config file "
        "bootflash:{name}` and `copy running-config startup-config`"
    ),
)
