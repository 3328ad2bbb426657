"""Juniper Junos (QFX5220/5230/5240): class of service in brace format.

render: the plan in its terms (templates/junos/); parse: a config back into a plan;
diff: a running config to ours, and what each change does to traffic;
statements: a config, brace or `set` format, as its active statements
"""

from __future__ import annotations

from lossless.vendors.junos import render
from lossless.vendors.vendor import Vendor

VENDOR = Vendor(
    os="junos",
    title="Junos",
    template=render.TEMPLATE,
    extension=render.EXTENSION,
    context=render.context,
    expressed=render.expressed,
    not_expressed=render.NOT_EXPRESSED,
    parser="lossless.vendors.junos.parse",
    differ="lossless.vendors.junos.diff",
    napalm_driver="junos",
    # QFX5000 switches are Broadcom Trident/Tomahawk; Express-based PTX/QFX10k are not in the
    # catalogue
    asic_vendors=("broadcom",),
    diff_kind="set-commands",
    as_rendered=render.as_rendered,
    state_reader="lossless.vendors.junos.state",
    # the saved running config replaces the running one whole (lossless push --backup)
    restore_hint=(
        "copy it to the switch as /var/tmp/{name}, then in configuration mode `load "
        "override /var/tmp/{name}` and `commit`"
    ),
)
