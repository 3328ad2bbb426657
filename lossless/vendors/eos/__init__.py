"""Arista EOS: CLI as AVD renders it and `show running-config` prints it.

render: the plan in its terms (templates/eos/); parse: a config back into a plan;
diff: a running config to ours, and what each change does to traffic.
"""

from __future__ import annotations

from lossless.vendors.eos import render
from lossless.vendors.vendor import Vendor

VENDOR = Vendor(
    os="eos",
    title="EOS",
    template=render.TEMPLATE,
    extension=render.EXTENSION,
    context=render.context,
    expressed=render.expressed,
    not_expressed=render.NOT_EXPRESSED,
    parser="lossless.vendors.eos.parse",
    differ="lossless.vendors.eos.diff",
    napalm_driver="eos",
    # the catalogue's EOS switches are Broadcom StrataXGS (7050X, 7060X, 7260X, 7388X); the
    # Jericho-based 7280R/7800R are not in the catalogue
    asic_vendors=("broadcom",),
    diff_kind="remediation",
    max_mtu=render.MAX_MTU,
    state_reader="lossless.vendors.eos.state",
    # the saved running config replaces the running one whole (lossless push --backup)
    restore_hint=(
        "copy it to the switch as flash:{name}, then `configure replace flash:{name}` and "
        "`write memory`"
    ),
)
