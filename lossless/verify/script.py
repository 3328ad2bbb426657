"""The collection script (`lossless export state-script`): a bash script that saves, over
SSH, the show outputs each planned switch's reader needs in DIR/<switch>/<stem>.out, for
`lossless verify --state DIR` (templates/verify/collect-switch-state.sh.j2)."""

from __future__ import annotations

from lossless.plan import FabricPlan
from lossless.vendors.registry import vendor_for
from lossless.vendors.rendering import environment
from lossless.verify.collect import commands, file_stem

TEMPLATE = "verify/collect-switch-state.sh.j2"


def collection_script(plan: FabricPlan) -> str:
    """The script for the plan's switches (those whose OS lossless reads the state of)."""
    devices = [
        {
            "name": device.name,
            "title": vendor_for(device.os).title,
            "address": device.mgmt or device.name,
            "commands": [(file_stem(stem), command) for stem, command in stems.items()],
        }
        for device in plan.devices.values()
        if (stems := commands(device))
    ]
    return environment().get_template(TEMPLATE).render(fabric=plan.name, devices=devices)
