"""An Arista ANTA test catalog from the plan: for each EOS device, the ANTA tests that check
what the plan intends on its ports, with the plan's values as inputs (docs/anta.md).

ANTA (anta.arista.com) is not imported: the catalog is plain data in the shape ANTA's
catalog loader reads (test module -> list of {TestName: inputs}); the tests check it with
ANTA's own models. Every test is filtered to its device by a tag of the device's name, a tag
ANTA gives every device of its inventory.

The tests, all in `anta.tests.interfaces` (ANTA 1.10):
  VerifyInterfacesStatus            ports with a peer are up/up
  VerifyInterfacesSpeed             each port's speed (and lanes) as planned
  VerifyInterfacesEgressQueueDrops  no unicast drop in the lossless traffic classes
  VerifyInterfacesVoqAndEgressQueueDrops  the same in the ingress VOQs too, on Arista's VOQ
                                    platforms (7280R, 7500R, 7700R, 7800R: eos/state.py)
  VerifyInterfacesPFCCounters       PFC frames sent/received at most a threshold (0)
  VerifyInterfacesECNCounters       ECN-marked packets at most a threshold (0)
ANTA's inputs have no PFC priority, ECN threshold or watchdog field, and its MTU tests check
every routed (or bridged) interface, not a list of ports: those stay for `lossless diff`.
"""

from __future__ import annotations

from collections.abc import Iterable

from lossless.plan import DevicePlan, PortPlan
from lossless.vendors.eos.state import voq_platform

ANTA_MODULE = "anta.tests.interfaces"
ANTA_OS = "eos"

# ANTA's InterfaceState.speed: Gbit/s from 1 to 1000; lanes from 1 to 8
_SPEED_GBPS = (1, 1000)
_LANES = (1, 8)

Test = dict[str, dict[str, object]]


def anta_devices(devices: Iterable[DevicePlan]) -> list[DevicePlan]:
    """The devices ANTA can test (EOS), by name."""
    return sorted((device for device in devices if device.os == ANTA_OS), key=lambda d: d.name)


def anta_catalog(devices: Iterable[DevicePlan]) -> dict[str, list[Test]]:
    """The catalog of the EOS devices among `devices`: {ANTA_MODULE: [tests]}, device by
    device (by name), each device's tests in a fixed order. Empty when no test applies."""
    tests: list[Test] = []
    for device in anta_devices(devices):
        tests += device_tests(device)
    return {ANTA_MODULE: tests} if tests else {}


def device_tests(device: DevicePlan) -> list[Test]:
    """One device's tests, each with `filters: {tags: [device name]}`."""
    ports = list(device.ports.values())
    lossless = [port for port in ports if port.lossless and port.pfc_priorities]
    found: list[tuple[str, dict[str, object]]] = []
    linked = [port for port in ports if port.peer]
    if linked:
        states = [{"name": port.name, "status": "up"} for port in linked]
        found.append(("VerifyInterfacesStatus", {"interfaces": states}))
    speeds = [state for port in ports if (state := _speed(port)) is not None]
    if speeds:
        found.append(("VerifyInterfacesSpeed", {"interfaces": speeds}))
    if lossless:
        names = [port.name for port in lossless]
        found.append(
            (
                "VerifyInterfacesEgressQueueDrops",
                {
                    "interfaces": list(names),
                    "traffic_classes": [f"TC{tc}" for tc in lossless_traffic_classes(device)],
                    "queue_types": ["unicast"],
                    "packet_drop_threshold": 0,
                },
            )
        )
        if voq_platform(device):  # Jericho: drops in the ingress VOQs too
            found.append(
                (
                    "VerifyInterfacesVoqAndEgressQueueDrops",
                    {
                        "interfaces": list(names),
                        "traffic_classes": [f"TC{tc}" for tc in lossless_traffic_classes(device)],
                        "packet_drop_threshold": 0,
                    },
                )
            )
        for name in ("VerifyInterfacesPFCCounters", "VerifyInterfacesECNCounters"):
            found.append((name, {"interfaces": list(names), "counters_threshold": 0}))
    return [{name: {**inputs, "filters": {"tags": [device.name]}}} for name, inputs in found]


def lossless_traffic_classes(device: DevicePlan) -> list[int]:
    """The traffic classes whose queue is a lossless one: the queues the lossless ports'
    PFC priorities map to (maps.pfc_priority_to_queue), back through maps.tc_to_queue."""
    maps = device.maps
    priorities = {p for port in device.ports.values() if port.lossless for p in port.pfc_priorities}
    queues = {maps.pfc_priority_to_queue[p] for p in priorities if p in maps.pfc_priority_to_queue}
    return sorted(tc for tc, queue in maps.tc_to_queue.items() if queue in queues)


def _speed(port: PortPlan) -> dict[str, object] | None:
    """The port's VerifyInterfacesSpeed entry, or None where ANTA's input cannot hold it."""
    gbps = port.speed_mbps / 1000
    if not _SPEED_GBPS[0] <= gbps <= _SPEED_GBPS[1]:
        return None
    state: dict[str, object] = {
        "name": port.name,
        "speed": int(gbps) if gbps.is_integer() else gbps,
    }
    if _LANES[0] <= port.lanes <= _LANES[1]:
        state["lanes"] = port.lanes
    return state


def catalog_text(catalog: dict[str, list[Test]], source: str) -> str:
    """The catalog as YAML, under a comment saying where it comes from and how ANTA picks
    each device's tests."""
    import yaml

    from lossless.text.printable import printable

    header = (
        f"# ANTA test catalog written by `lossless export anta` from {printable(source)}.\n"
        "# Each test runs on one device: filters.tags holds the device's name, a tag ANTA\n"
        "# gives every device of its inventory, so the ANTA inventory must name the\n"
        "# devices as this inventory does (or tag each with that name).\n"
        "# PFC and ECN counters: threshold 0 counts from the last clear; clear them before\n"
        "# a test window, or raise counters_threshold for a fabric under load.\n"
    )
    if not catalog:
        return header + "{}\n"
    body = yaml.safe_dump(catalog, sort_keys=False, default_flow_style=False, width=100)
    return header + body


def catalog_size(catalog: dict[str, list[Test]]) -> int:
    """How many test entries the catalog holds."""
    return sum(len(tests) for tests in catalog.values())
