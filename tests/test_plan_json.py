"""The streamed plan JSON: the expanded form is byte for byte what json.dump(plan.to_dict(),
indent=2) writes (after the schema version and form), and the compact form expands to it."""

from __future__ import annotations

import io
import json
import os
from dataclasses import replace

import pytest
from conftest import EXAMPLES, INVENTORIES

from lossless.inventory import load_inventory
from lossless.planner.fabric import plan_fabric
from lossless.report.plan_compact import expand
from lossless.report.plan_json import encode, write_plan_json


def _reference(plan) -> str:
    document = {"schema_version": 2, "form": "expanded", **plan.to_dict()}
    return json.dumps(document, indent=2) + "\n"


def _streamed(plan, expanded: bool = True) -> str:
    out = io.StringIO()
    write_plan_json(plan, out, expanded=expanded)
    return out.getvalue()


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.stem)
def test_streamed_json_is_the_reference_text(example):
    plan = plan_fabric(load_inventory(example))
    assert _streamed(plan) == _reference(plan)


@pytest.mark.parametrize(
    "value",
    [
        "leaf é ü",  # json escapes non-ASCII (ensure_ascii), orjson would not
        "del \x7f",
        "emoji \U0001f600 and \u2028",
        'control \x00\x1f \t\n\r\b\f " \\',
        1e16,  # json: 1e+16, orjson: 1e16
        2.5e-7,
        123.25,
        2**70,  # beyond orjson's 64-bit integers
        -(2**63),
        True,
        None,
        {3: [1, 2.0], "x": {}},
        [],
    ],
)
def test_values_orjson_writes_differently_fall_back_to_json(value):
    assert encode(value) == json.dumps(value, indent=2)
    nested = {"a": [value, {"b": value}]}
    assert encode(nested, 2) == json.dumps(nested, indent=2).replace("\n", "\n    ")


def test_a_device_with_unusual_text_streams_as_the_reference():
    plan = plan_fabric(load_inventory(EXAMPLES[0]))
    name, device = next(iter(plan.devices.items()))
    plan.devices[name] = replace(device, mgmt="café 1e+16", source="x\x7f")
    plan.devices["empty"] = replace(device, name="empty", ports={})
    assert _streamed(plan) == _reference(plan)
    plan.devices.clear()
    assert _streamed(plan) == _reference(plan)


def test_only_devices_and_ports_keep_fields_out_of_the_json():
    """plan_json encodes everything inside a device natively (every public field): true while
    DevicePlan and PortPlan are the only parts of a device with NOT_IN_JSON fields."""
    import dataclasses

    from lossless import plan as plan_module
    from lossless.plan import json_fields

    keeping_out = {
        cls.__name__
        for cls in vars(plan_module).values()
        if isinstance(cls, type)
        and dataclasses.is_dataclass(cls)
        and json_fields(cls)
        != tuple(f.name for f in dataclasses.fields(cls) if not f.name.startswith("_"))
    }
    # FabricPlan is the top level: write_plan_json takes its JSON fields one by one
    assert keeping_out == {"DevicePlan", "PortPlan", "FabricPlan"}


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork here")
def test_json_made_by_worker_processes_is_the_reference_text(monkeypatch, tmp_path):
    """On a large fabric the pieces are encoded by workers and sent back through files."""
    from lossless.system import parallel

    monkeypatch.setenv("LOSSLESS_JOBS", "2")
    monkeypatch.setattr(parallel, "MIN_ITEMS", 1)
    plan = plan_fabric(load_inventory(INVENTORIES / "pod-2048.yaml"))
    with open(tmp_path / "plan.json", "w") as file:  # a real file: the bytes path
        write_plan_json(plan, file, expanded=True)
    assert (tmp_path / "plan.json").read_text() == _reference(plan)
    assert _streamed(plan) == _reference(plan)
    with open(tmp_path / "compact.json", "w") as file:
        write_plan_json(plan, file)
    compact = (tmp_path / "compact.json").read_text()
    monkeypatch.setenv("LOSSLESS_JOBS", "1")
    assert compact == _streamed(plan, expanded=False)
    assert expand(json.loads(compact)) == json.loads(_reference(plan))


def _expands_to_the_reference(plan) -> dict:
    compact = json.loads(_streamed(plan, expanded=False))
    assert compact["schema_version"] == 2 and compact["form"] == "compact"
    assert json.dumps(expand(compact), indent=2) + "\n" == _reference(plan)
    return compact


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.stem)
def test_compact_json_expands_to_the_reference(example):
    plan = plan_fabric(load_inventory(example))
    _expands_to_the_reference(plan)


def test_ports_alike_share_one_setting():
    plan = plan_fabric(load_inventory(INVENTORIES / "pod-2048.yaml"))
    compact = _expands_to_the_reference(plan)
    ports = sum(len(device.ports) for device in plan.devices.values())
    assert len(compact["port_settings"]) <= 2 * len(plan.devices) < ports / 10
    assert len(compact["device_settings"]) == 2  # leaves and spines
    assert len(compact["nic_settings"]) == 1
    assert len(_streamed(plan, expanded=False)) < len(_streamed(plan)) / 4


def test_compact_json_of_unusual_values_expands_to_the_reference():
    """Sources not FILE:LINE:COL, a port unlike its setting's first port in its source, text
    json and orjson write differently, 2 and 2.0 (equal, printed differently), no devices."""
    plan = plan_fabric(load_inventory(EXAMPLES[0]))
    name, device = next(iter(plan.devices.items()))
    first, second, third, *_ = device.ports
    device.ports[first] = replace(device.ports[first], source="x\x7f:01:2")
    device.ports[second] = replace(device.ports[second], source="café.yaml:3:4", cable_m=2)
    device.ports[third] = replace(device.ports[third], source="", description="é 1e+16")
    plan.devices[name] = replace(device, mgmt="café 1e+16", source="x\x7f")
    plan.devices["empty"] = replace(device, name="empty", ports={})
    plan.links[0] = replace(plan.links[0], cable_m=2**70)
    compact = _expands_to_the_reference(plan)
    assert "café.yaml" in compact["files"]
    plan.devices.clear()
    plan.links.clear()
    plan.nics.clear()
    _expands_to_the_reference(plan)


def test_nics_alike_but_in_the_types_of_their_values_have_settings_of_their_own():
    """A NIC's setting is looked up by the identity of the objects it holds: 9000 and 9000.0,
    5 and 5.0 (equal, printed differently) are never taken for each other, in a field, in
    its PFC list or in its DCQCN values."""
    plan = plan_fabric(load_inventory(INVENTORIES / "pod-2048.yaml"))
    nics = plan.planned_nics()
    first, second, third, fourth, *_ = nics
    nics[first] = replace(nics[first], mtu=float(nics[first].mtu))
    nics[second] = replace(nics[second], pfc_priorities=[float(nics[second].roce_priority)])
    nics[third] = replace(nics[third], dcqcn={"ai_rate_mbps": 5})
    nics[fourth] = replace(nics[fourth], dcqcn={"ai_rate_mbps": 5.0})
    compact = _expands_to_the_reference(plan)
    assert len(compact["nic_settings"]) == 5  # the NICs alike, and these four


def test_nics_alike_are_encoded_a_few_times_not_once_per_nic(monkeypatch):
    """The 131,072 NICs of a 128k fabric share a few settings: the text of one is made a few
    times, not per NIC (that was a sixth of the compact plan JSON's CPU). Here the 2,048 NICs
    share one; the eight NICs of `eth[0:7]` each read their speed into an object of their own,
    so its text is made up to eight times."""
    from lossless.report import plan_compact

    plan = plan_fabric(load_inventory(INVENTORIES / "pod-2048.yaml"))
    encoded = []

    def counted(value):
        encoded.append(value)
        return compact(value)

    compact = plan_compact.compact
    monkeypatch.setattr(plan_compact, "compact", counted)
    _expands_to_the_reference(plan)
    nic_texts = [value for value in encoded if isinstance(value, dict) and "sriov_vfs" in value]
    assert len(plan.nics) == 2048 and 1 <= len(nic_texts) <= 8


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork here")
def test_the_compact_form_is_written_by_this_process_alone(monkeypatch):
    """Its devices are a few lines each: forking workers for them (copying a 128k plan's
    page tables, then its pages as reference counts change) cost more CPU than it saved."""
    from lossless.system import parallel

    monkeypatch.setenv("LOSSLESS_JOBS", "2")
    monkeypatch.setattr(parallel, "MIN_ITEMS", 1)
    plan = plan_fabric(load_inventory(INVENTORIES / "pod-2048.yaml"))

    def no_fork():
        raise AssertionError("forked")

    monkeypatch.setattr(os, "fork", no_fork)
    _expands_to_the_reference(plan)
