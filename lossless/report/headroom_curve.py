"""What the report's headroom section needs beyond the plan's points: the model curve each
point sits on, and why a planned xoff is above the vendor's published table.

The curve is the port group's own headroom model (lossless/planner, the inputs recorded in
the plan's derivation) evaluated at every cable length, before the vendor-table floor: the
points are where the group's cables put it, the floor marks are the published rows. The
reasons a model exceeds a table are docs/headroom.md's ("How the numbers are built"): the
small frames' cell waste (SONiC's small-packet share, ceil(cell/64) cells' worth each) and,
above 100G, the 100G interface delay held for want of IEEE 802.3bs/df delay tables [UNV].
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable

from lossless.asics import Asic, catalogue
from lossless.plan import DevicePlan, FabricPlan, HeadroomPlan
from lossless.planner.headroom import MODELS
from lossless.planner.headroom_common import HeadroomInputs
from lossless.text.units import format_speed

# a model this close to the table is "at" it, not above (the tables are rounded to cells)
ABOVE = 1.05
WHY = "docs/headroom.md, 'How the numbers are built'"


def model_curves(plan: FabricPlan, device: DevicePlan) -> list[tuple[str, Callable[[float], int]]]:
    """(label, model xoff at a cable length) for each group of the device's lossless ports
    that differ only in cable length; none where the model is not the planner's (the switch
    sizes headroom itself, or a custom ASIC the report cannot rebuild)."""
    asic = catalogue().get(device.asic)
    if asic is None or asic.headroom_model not in MODELS:
        return []
    groups: dict[tuple, HeadroomInputs] = {}
    for port in device.ports.values():
        for headroom in port.headroom:
            inputs = _inputs(plan, headroom)
            if inputs is not None:  # one curve per group: every input but the cable
                key = dataclasses.astuple(dataclasses.replace(inputs, cable_m=0))
                groups.setdefault(key, inputs)
    return [(_label(asic, inputs), _model(asic, inputs)) for inputs in groups.values()]


def _inputs(plan: FabricPlan, headroom: HeadroomPlan) -> HeadroomInputs | None:
    record = plan.derivations.get(headroom.derivation, {}).get("inputs")
    if not isinstance(record, dict):
        return None
    try:
        return HeadroomInputs(**record)
    except TypeError:  # a derivation of another shape (headroom read from a config)
        return None


def _model(asic: Asic, inputs: HeadroomInputs) -> Callable[[float], int]:
    model = MODELS[asic.headroom_model]

    def xoff(length: float) -> int:
        # whole metres, rounded up, as the planner takes a cable (SONiC CABLE_LENGTH)
        return model(dataclasses.replace(inputs, cable_m=math.ceil(length)), asic).xoff

    return xoff


def _label(asic: Asic, inputs: HeadroomInputs) -> str:
    return (
        f"{asic.headroom_model} model xoff at {format_speed(inputs.speed_mbps)}, "
        f"{inputs.lanes} lanes, MTU {inputs.port_mtu}, by cable length"
    )


def headroom_note(headroom: HeadroomPlan, speed_mbps: int) -> str:
    """How the planned xoff stands to the vendor table at this point, and why; '' with no
    table."""
    table, model = headroom.vendor_floor_xoff, headroom.model_xoff
    if table is None or model is None or table <= 0:
        return ""
    if model < table:
        return f"raised to the vendor table ({table:,} B; the model gives {model:,} B)"
    ratio = model / table
    if ratio < ABOVE:
        return "at the vendor table"
    if headroom.model != "ieee-8021qbb":
        return f"model {ratio:.1f}x the vendor table ({WHY})"
    causes = ["counts the small frames' share of the in-flight bytes at ceil(cell/64) cells each"]
    if speed_mbps > 100_000:
        causes.append("holds the 100G interface delay above 100G [UNV]")
    return f"model {ratio:.1f}x the vendor table: it {' and '.join(causes)} ({WHY})"
