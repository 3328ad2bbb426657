"""NVIDIA Cumulus Linux 5.x: an NVUE YAML fragment merged with `nv config patch`.

render: the plan in its terms (templates/cumulus/); parse: a config back into a plan;
diff: a running config to ours, and what each change does to traffic;
read: NVUE YAML or `nv set` command lists into one tree;
defaults: what the switch does where its config says nothing
"""

from __future__ import annotations

from lossless.vendors.cumulus import render
from lossless.vendors.vendor import Vendor

VENDOR = Vendor(
    os="cumulus",
    title="Cumulus NVUE",
    template=render.TEMPLATE,
    extension=render.EXTENSION,
    context=render.context,
    expressed=render.expressed,
    as_rendered=render.as_rendered,
    not_expressed=render.NOT_EXPRESSED,
    parser="lossless.vendors.cumulus.parse",
    differ="lossless.vendors.cumulus.diff",
    # Cumulus Linux 5 runs on NVIDIA Spectrum switches only (NVIDIA hardware compatibility list)
    asic_vendors=("nvidia",),
    diff_kind="nvue-commands",
    apply_hint=render.APPLY_HINT,
    state_reader="lossless.vendors.cumulus.state",
    render_note=render.release_note,
)
