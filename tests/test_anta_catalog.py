"""`lossless export anta`: an Arista ANTA test catalog for the EOS devices, checked with ANTA's
own catalog loader (anta is in the `test` extra, so CI has it; the CLI never imports it)."""

from __future__ import annotations

import sys

import yaml
from anta.catalog import AntaCatalog
from conftest import REPO

from lossless.inventory import load_inventory
from lossless.planner.fabric import plan_fabric
from lossless.report.anta_catalog import ANTA_MODULE, anta_catalog, lossless_traffic_classes

LAB = str(REPO / "inventories" / "lab.yaml")
SONIC_ONLY = str(REPO / "inventories" / "pod-2048.yaml")

TESTS = [
    "VerifyInterfacesStatus",
    "VerifyInterfacesSpeed",
    "VerifyInterfacesEgressQueueDrops",
    "VerifyInterfacesPFCCounters",
    "VerifyInterfacesECNCounters",
]


def _lab_eos():
    inventory = load_inventory(LAB, lambda: ())
    eos = [name for name, device in inventory.devices.items() if device.os == "eos"]
    return eos, plan_fabric(inventory, eos, hosts=False)


def test_the_lab_catalog_is_one_anta_accepts(run, tmp_path):
    out = tmp_path / "catalog.yaml"
    result = run("export", "anta", LAB, "-o", str(out))
    assert result.code == 0, result.err
    assert "ANTA catalog: 5 tests for 1 EOS device" in result.out
    catalog = AntaCatalog.parse(out)
    names = [definition.test.__name__ for definition in catalog.tests]
    assert names == TESTS
    assert {tag for d in catalog.tests for tag in d.inputs.filters.tags} == {"spine1"}


def test_the_inputs_are_the_plans(run):
    eos, plan = _lab_eos()
    assert eos == ["spine1"]
    device = plan.devices["spine1"]
    result = run("export", "anta", LAB)
    assert result.code == 0, result.err
    assert result.out.startswith("# ANTA test catalog")
    catalog = AntaCatalog.from_dict(yaml.safe_load(result.out))
    inputs = {d.test.__name__: d.inputs for d in catalog.tests}
    lossless = [port.name for port in device.ports.values() if port.lossless]
    assert lossless  # the lab's spine1 carries RoCE
    assert [i.name for i in inputs["VerifyInterfacesStatus"].interfaces] == list(device.ports)
    speeds = {i.name: (i.speed, i.lanes) for i in inputs["VerifyInterfacesSpeed"].interfaces}
    assert speeds == {p.name: (p.speed_mbps / 1000, p.lanes) for p in device.ports.values()}
    drops = inputs["VerifyInterfacesEgressQueueDrops"]
    assert drops.interfaces == lossless
    # priority 3 -> queue 3 -> TC3: the plan's maps, not a constant
    priorities = {p for port in device.ports.values() for p in port.pfc_priorities}
    queues = {device.maps.pfc_priority_to_queue[p] for p in priorities}
    assert drops.traffic_classes == [
        f"TC{tc}" for tc, q in sorted(device.maps.tc_to_queue.items()) if q in queues
    ]
    assert drops.traffic_classes == ["TC3"] and drops.queue_types == ["unicast"]
    for name in ("VerifyInterfacesPFCCounters", "VerifyInterfacesECNCounters"):
        assert inputs[name].interfaces == lossless
        assert inputs[name].counters_threshold == 0


def test_the_output_is_byte_identical_run_to_run(run):
    first, second = run("export", "anta", LAB), run("export", "anta", LAB, "-o", "-")
    assert first.code == second.code == 0
    assert first.out == second.out
    assert "&id" not in first.out  # no YAML anchors: each test's inputs written out


def test_a_non_eos_device_selected_alone_is_exit_2(run):
    result = run("export", "anta", LAB, "--device", "leaf1")
    assert result.code == 2
    assert "no EOS device selected" in result.err
    assert result.out == ""


def test_non_eos_devices_in_a_selection_are_named_and_skipped(run):
    result = run("export", "anta", LAB, "--device", "spine1,leaf1")
    assert result.code == 0
    assert "leaf1 (sonic) skipped: not EOS" in result.err
    assert yaml.safe_load(result.out)[ANTA_MODULE]


def test_an_inventory_without_eos_is_exit_2_and_writes_nothing(run, tmp_path):
    out = tmp_path / "catalog.yaml"
    result = run("export", "anta", SONIC_ONLY, "-o", str(out))
    assert result.code == 2
    assert "no EOS device in" in result.err and "ANTA tests Arista EOS" in result.err
    assert not out.exists()


def test_a_lossless_queue_reached_by_two_traffic_classes_lists_both():
    _, plan = _lab_eos()
    device = plan.devices["spine1"]
    lossless_queue = device.maps.pfc_priority_to_queue[device.roce_priority]
    device.maps.tc_to_queue = {**device.maps.tc_to_queue, 5: lossless_queue}
    assert lossless_traffic_classes(device) == sorted({device.roce_priority, 5})


def test_only_eos_devices_get_tests():
    inventory = load_inventory(LAB, lambda: ())
    plan = plan_fabric(inventory, hosts=False)
    catalog = anta_catalog(plan.devices.values())
    filters = [inputs["filters"] for test in catalog[ANTA_MODULE] for inputs in test.values()]
    assert filters == [{"tags": ["spine1"]}] * len(TESTS)


def test_the_cli_does_not_import_anta(tmp_path):
    import subprocess

    code = (
        "import sys; from lossless.cli.main import main; "
        f"rc = main(['export', 'anta', {LAB!r}, '-o', {str(tmp_path / 'c.yaml')!r}]); "
        "assert 'anta' not in sys.modules, 'anta imported'; sys.exit(rc)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_a_voq_platform_gets_the_voq_drops_test(run):
    """On Arista's VOQ platforms (Jericho: 7280R, 7500R, 7700R, 7800R) lossless traffic can
    drop in the ingress VOQs, which VerifyInterfacesEgressQueueDrops does not read: the
    catalog adds VerifyInterfacesVoqAndEgressQueueDrops, loaded by ANTA's own models."""
    from dataclasses import replace

    from lossless.report.anta_catalog import device_tests

    _, plan = _lab_eos()
    spine1 = plan.devices["spine1"]
    assert "VerifyInterfacesVoqAndEgressQueueDrops" not in str(device_tests(spine1))
    voq = replace(spine1, platform="7280CR3-32P4")
    catalog = AntaCatalog.from_dict({ANTA_MODULE: device_tests(voq)})
    inputs = {d.test.__name__: d.inputs for d in catalog.tests}
    drops = inputs["VerifyInterfacesVoqAndEgressQueueDrops"]
    assert drops.traffic_classes == ["TC3"] and drops.packet_drop_threshold == 0
    assert drops.interfaces == [p.name for p in spine1.ports.values() if p.lossless]
