"""SONiC: a config_db.json fragment applied with `config apply-patch`.

render: the plan in its terms (templates/sonic/); parse: a config back into a plan;
diff: a running config to ours, and what each change does to traffic;
config_db: config_db.json read as untrusted input, with line marks;
platform: the buffer model and profile forms per ASIC vendor;
buffer_terms: buffer settings in words, and what a difference in them does;
yang: our output checked against SONiC's YANG models (libyang)
"""

from __future__ import annotations

from lossless.vendors.sonic import render
from lossless.vendors.vendor import Vendor

VENDOR = Vendor(
    os="sonic",
    title="SONiC",
    template=render.TEMPLATE,
    extension=render.EXTENSION,
    context=render.context,
    expressed=render.expressed,
    not_expressed=render.NOT_EXPRESSED,
    parser="lossless.vendors.sonic.parse",
    differ="lossless.vendors.sonic.diff",
    diff_kind="json-patch",
    state_reader="lossless.vendors.sonic.state",
    # the ECMP seed as orchagent derives it from DEVICE_METADATA type (device_type.py)
    as_rendered=render.as_rendered,
    consequences=render.CONSEQUENCES,
)
