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
    diff_kind="remediation",
    max_mtu=render.MAX_MTU,
)
