"""What `lossless import` makes of what a source holds beyond devices, ports and lengths:
cable status and disabled ports (not a link, said on stderr and by --check), breakout cables
(an error naming the cable, never a server dropped silently) and a filter that leaves out the
peers of the switches it keeps (refused unless --allow-removal). Against the recorded NetBox
lab (tests/data/netbox), edited the way NetBox would answer."""

from __future__ import annotations

import copy
import shutil
from typing import Any

from conftest import REPO
from test_import_netbox import _results, _trace_of, netbox, recording, run_import

LAB = REPO / "inventories" / "lab.yaml"


def _traces(exchanges: list[dict[str, Any]]) -> list[list[Any]]:
    return [e["body"] for e in exchanges if e["path"].endswith("/trace/")]


def _set_cable(exchanges: list[dict[str, Any]], cable_id: int, **values: Any) -> None:
    for path in _traces(exchanges):
        for _, cable, _ in path:
            if cable and cable["id"] == cable_id:
                cable.update(values)


def _set_interface(exchanges: list[dict[str, Any]], interface_id: int, **values: Any) -> None:
    for item in _results(exchanges):
        if item.get("id") == interface_id and "mgmt_only" in item:
            item.update(values)


def test_a_planned_cable_is_no_link_and_check_names_its_status(tmp_path, monkeypatch, capsys):
    planned = copy.deepcopy(recording("lab.json"))
    _set_cable(planned, 101, status="planned")  # leaf1:Ethernet0 - gpu01:eth0
    target = tmp_path / "lab.yaml"
    with netbox(planned):
        assert run_import(tmp_path, monkeypatch, "-o", str(target)) == 0
    assert (
        "leaf1:Ethernet0 - gpu01:eth0: cable dcim.cables 101 is planned: no link"
        in capsys.readouterr().err
    )
    text = target.read_text()
    assert "gpu01:eth0" not in text and "a: leaf1:Ethernet0," not in text
    with netbox(planned):
        assert run_import(tmp_path, monkeypatch, "--check", "-o", str(LAB)) == 1
    out = capsys.readouterr().out.splitlines()
    assert (
        "link gpu01:eth0 - leaf1:Ethernet0: in the inventory, not in NetBox "
        "(cable dcim.cables 101 is planned)" in out
    )
    assert (
        "port leaf1:Ethernet0: in the inventory, not in NetBox (cable dcim.cables 101 is planned)"
        in out
    )


def test_a_decommissioning_cable_is_no_link_either(tmp_path, monkeypatch, capsys):
    leaving = copy.deepcopy(recording("lab.json"))
    _set_cable(leaving, 101, status={"value": "decommissioning", "label": "Decommissioning"})
    with netbox(leaving):
        assert run_import(tmp_path, monkeypatch, "--check", "-o", str(LAB)) == 1
    assert "(cable dcim.cables 101 is decommissioning)" in capsys.readouterr().out


def test_a_disabled_port_is_no_link_and_check_says_so(tmp_path, monkeypatch, capsys):
    disabled = copy.deepcopy(recording("lab.json"))
    _set_interface(disabled, 1001, enabled=False)  # leaf1:Ethernet0
    with netbox(disabled):
        assert run_import(tmp_path, monkeypatch, "--check", "-o", str(LAB)) == 1
    captured = capsys.readouterr()
    assert "leaf1:Ethernet0 - gpu01:eth0: dcim.interfaces 1001 (leaf1:Ethernet0) is disabled" in (
        captured.err
    )
    assert (
        "NIC gpu01:eth0: in the inventory, not in NetBox "
        "(dcim.interfaces 1001 (leaf1:Ethernet0) is disabled)" in captured.out.splitlines()
    )


def test_a_breakout_cable_is_an_error_naming_it_and_every_end(tmp_path, monkeypatch, capsys):
    """One leaf port to two NICs (NetBox cable without a profile: one A, two B terminations):
    exit 2 naming the cable and both servers, never both servers dropped silently."""
    split = copy.deepcopy(recording("lab.json"))
    first = _trace_of(split, 1001)  # leaf1:Ethernet0 - gpu01:eth0, cable 101
    second = _trace_of(split, 1003)  # leaf1:Ethernet1/... - gpu02:eth0
    first[0][2].append(copy.deepcopy(second[0][2][0]))
    target = tmp_path / "lab.yaml"
    with netbox(split):
        assert run_import(tmp_path, monkeypatch, "-o", str(target)) == 2
    err = capsys.readouterr().err
    assert "NetBox dcim.cables 101: joins leaf1:Ethernet0 to gpu01:eth0, gpu02:eth0" in err
    assert "a breakout cable; the inventory joins one port to one port" in err
    assert not target.exists()


def _without_spines(exchanges: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The lab with the spines left out of the import, as a filter on role would (here: their
    role not in the mapping, the recording's requests staying the same)."""
    left = copy.deepcopy(exchanges)
    for item in _results(left):
        role = item.get("role")
        if isinstance(role, dict) and role.get("slug") == "spine":
            role["slug"] = "spine-elsewhere"
    return left


def test_a_filter_leaving_out_peers_is_refused_unless_asked(tmp_path, monkeypatch, capsys):
    target = tmp_path / "lab.yaml"
    shutil.copy(LAB, target)
    before = target.read_bytes()
    with netbox(_without_spines(recording("lab.json"))):
        assert run_import(tmp_path, monkeypatch, "-o", str(target)) == 2
    err = capsys.readouterr().err
    assert "the import would remove 16 ports, NICs and links whose other end it leaves out" in err
    assert "port leaf1:Ethernet248, port leaf1:Ethernet252," in err and "--allow-removal" in err
    assert target.read_bytes() == before  # nothing written
    with netbox(_without_spines(recording("lab.json"))):
        assert run_import(tmp_path, monkeypatch, "--check", "-o", str(target)) == 1
    assert (
        "link leaf1:Ethernet248 - spine1:Ethernet1/1: in the inventory, not in NetBox (its "
        "cable path leads to a device not imported" in capsys.readouterr().out
    )
    with netbox(_without_spines(recording("lab.json"))):
        assert run_import(tmp_path, monkeypatch, "-o", str(target), "--allow-removal") == 0
    assert "spine1" not in target.read_text().split("devices:")[1]


def test_a_link_gone_from_netbox_is_no_filter_removal(tmp_path, monkeypatch, capsys):
    """A link NetBox no longer has (its cable planned again) is drift the sync must carry:
    only removals whose peer the import leaves out are refused."""
    target = tmp_path / "lab.yaml"
    shutil.copy(LAB, target)
    planned = copy.deepcopy(recording("lab.json"))
    _set_cable(planned, 101, status="planned")
    with netbox(planned):
        assert run_import(tmp_path, monkeypatch, "-o", str(target)) == 0
    assert "gpu01:eth0" not in target.read_text()
