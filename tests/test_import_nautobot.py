"""`lossless import nautobot`: the inventory from Nautobot's GraphQL API, against recorded
answers of Nautobot 2.4 (interface speed) and 2.3 (none: speeds from the port profiles),
tests/data/nautobot/README.md. Both render the lab byte-identical to golden/lab."""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import responses
from conftest import REPO

from lossless.cli.main import main
from lossless.importers.nautobot import LISTS, fabric_query
from lossless.inventory import load_inventory

DATA = REPO / "tests" / "data" / "nautobot"
MAPPING = str(DATA / "mapping.yaml")
URL = "https://nautobot.example.com"
TOKEN = "nautobot-test-token-0123456789abcdef0123"


def answers(name: str) -> list[dict[str, Any]]:
    recorded: list[dict[str, Any]] = json.loads((DATA / name).read_text())
    return recorded


@contextmanager
def nautobot(
    recorded: list[dict[str, Any]], status: int | None = None, version: str = "2.4.44"
) -> Iterator[list[Any]]:
    """A Nautobot `version` (its /api/status/) answering POST /api/graphql/ with the recorded
    answers in order; yields the request bodies."""
    bodies: list[Any] = []

    def answer(request: Any) -> tuple[int, dict[str, str], str]:
        assert request.headers["Authorization"] == f"Token {TOKEN}"
        bodies.append(json.loads(request.body))
        if status is not None:
            return status, {}, json.dumps({"detail": "Invalid token"})
        found = recorded[min(len(bodies), len(recorded)) - 1]
        return found["status"], {}, json.dumps(found["body"])

    with responses.RequestsMock(assert_all_requests_are_fired=False) as mock:
        mock.add_callback(responses.POST, f"{URL}/api/graphql/", callback=answer)
        mock.add(responses.GET, f"{URL}/api/status/", json={"nautobot-version": version})
        yield bodies


def run_import(monkeypatch: Any, *extra: str) -> int:
    monkeypatch.setenv("NAUTOBOT_TOKEN", TOKEN)
    return main(
        ["import", "nautobot", "--url", URL, "--mapping", MAPPING, "--retries", "0", *extra]
    )


def _render_equals_golden(target: Path, out: Path) -> None:
    assert main(["render", str(target), "-o", str(out)]) == 0
    assert main(["render", str(target), "-o", str(out / "hosts"), "--hosts"]) == 0
    golden = REPO / "golden" / "lab"
    expected = sorted(p.relative_to(golden) for p in golden.rglob("*") if p.is_file())
    assert sorted(p.relative_to(out) for p in out.rglob("*") if p.is_file()) == expected
    for name in expected:
        assert (out / name).read_bytes() == (golden / name).read_bytes(), name


def test_the_lab_from_nautobot_renders_byte_identical_to_golden(tmp_path, monkeypatch):
    target = tmp_path / "lab.yaml"
    with nautobot(answers("lab-2.4.json")) as bodies:
        assert run_import(monkeypatch, "-o", str(target)) == 0
    assert len(bodies) == 1 and "speed" in bodies[0]["query"]
    _render_equals_golden(target, tmp_path / "out")
    links = {(str(link.a), str(link.b)): link.cable_m for link in load_inventory(target).links}
    assert links[("leaf1:Ethernet248", "spine1:Ethernet1/1")] == 30  # through both panels
    assert links[("leaf2:swp32", "spine2:Ethernet4")] == 55  # front port 2, the same trunk
    assert links[("leaf2:swp31", "spine1:Ethernet2/1")] == 50  # 164 ft, up


def test_a_nautobot_without_interface_speed_takes_the_profiles(tmp_path, monkeypatch, capsys):
    target = tmp_path / "lab.yaml"
    with nautobot(answers("lab-2.3.json")) as bodies:
        assert run_import(monkeypatch, "-o", str(target)) == 0
    assert "speed" in bodies[0]["query"] and "speed" not in bodies[1]["query"]
    assert "has no interface speed (before 2.4.22)" in capsys.readouterr().err
    text = target.read_text()
    assert "no speed in Nautobot, 400G from profile server-400g" in text
    assert "no speed in Nautobot, 400G of its switch port" in text
    _render_equals_golden(target, tmp_path / "out")


def test_filters_become_graphql_variables(monkeypatch):
    with nautobot(answers("lab-2.4.json")) as bodies:
        run_import(
            monkeypatch,
            "--filter",
            "site=lab",
            "--filter",
            "role=Leaf",
            "--filter",
            "role=Spine",
            "--filter",
            "tag=roce",
        )
    assert bodies[0]["variables"] == {
        "location": ["lab"],
        "role": ["Leaf", "Spine"],
        "tags": ["roce"],
        "limit": 1000,
        "offset": 0,
    }
    query, _ = fabric_query({"role": ["Leaf"]})
    assert query.startswith("query LosslessFabric($role: [String]) {\n  devices(role: $role) {")
    assert fabric_query({})[0].startswith("query LosslessFabric {\n  devices {")
    query, variables = fabric_query({"role": ["Leaf"]}, lists=("devices", "cables"), page=(5, 10))
    assert query.startswith(
        "query LosslessFabric($role: [String], $limit: Int, $offset: Int) {\n"
        "  devices(limit: $limit, offset: $offset, role: $role) {"
    )
    assert "  cables(limit: $limit, offset: $offset) {" in query and "front_ports" not in query
    assert variables == {"role": ["Leaf"], "limit": 5, "offset": 10}


LISTED = re.compile(r"^  (devices|cables|front_ports|rear_ports)\b", re.MULTILINE)


@contextmanager
def paging_nautobot(data: dict[str, list[Any]], honour_limit: bool = True) -> Iterator[list[Any]]:
    """A Nautobot that answers each list of the query with its page (limit, offset) of
    `data`, as Nautobot's GraphQL pagination does; yields the request bodies."""
    bodies: list[Any] = []

    def answer(request: Any) -> tuple[int, dict[str, str], str]:
        body = json.loads(request.body)
        bodies.append(body)
        limit, offset = body["variables"]["limit"], body["variables"]["offset"]
        end = offset + limit if honour_limit else None
        page = {name: data[name][offset:end] for name in LISTED.findall(body["query"])}
        return 200, {}, json.dumps({"data": page})

    with responses.RequestsMock(assert_all_requests_are_fired=False) as mock:
        mock.add_callback(responses.POST, f"{URL}/api/graphql/", callback=answer)
        mock.add(responses.GET, f"{URL}/api/status/", json={"nautobot-version": "2.4.44"})
        yield bodies


def test_every_page_of_every_list_is_read(tmp_path, monkeypatch):
    """Page size 2: each list is read until a page is short, the later queries ask only for
    the lists still open, and the inventory is the one a single page gives."""
    whole = tmp_path / "whole.yaml"
    with nautobot(answers("lab-2.4.json")):
        assert run_import(monkeypatch, "-o", str(whole)) == 0
    data = answers("lab-2.4.json")[0]["body"]["data"]
    paged = tmp_path / "paged.yaml"
    with paging_nautobot(data) as bodies:
        assert run_import(monkeypatch, "-o", str(paged), "--page-size", "2") == 0
    assert paged.read_text() == whole.read_text()
    longest = max(len(items) for items in data.values())
    assert len(bodies) == longest // 2 + 1
    assert [b["variables"]["offset"] for b in bodies] == [2 * n for n in range(len(bodies))]
    for body in bodies:
        asked = LISTED.findall(body["query"])
        offset = body["variables"]["offset"]
        assert asked == [name for name in LISTS if len(data[name]) >= offset], asked


def test_a_nautobot_that_ignores_the_page_size_is_refused(monkeypatch, capsys):
    data = answers("lab-2.4.json")[0]["body"]["data"]
    with paging_nautobot(data, honour_limit=False):
        assert run_import(monkeypatch, "--page-size", "2") == 2
    assert "it ignores GraphQL pagination" in capsys.readouterr().err


@pytest.mark.parametrize("status", [401, 403])
def test_a_refused_token_is_said_without_the_token(monkeypatch, capsys, status):
    with nautobot([], status=status):
        assert run_import(monkeypatch) == 2
    out, err = capsys.readouterr()
    assert f"lossless: Nautobot refused the token (HTTP {status})" in err
    assert TOKEN not in out + err


def test_graphql_errors_and_junk_are_bad_input(monkeypatch, capsys):
    error = {"status": 200, "body": {"errors": [{"message": 'Unknown argument "x"'}]}}
    with nautobot([error]):
        assert run_import(monkeypatch) == 2
    assert 'Nautobot refused the query: Unknown argument "x"' in capsys.readouterr().err
    with nautobot([{"status": 502, "body": "<html>Bad gateway</html>"}]):
        assert run_import(monkeypatch) == 2
    assert "without GraphQL JSON" in capsys.readouterr().err
    junk = copy.deepcopy(answers("lab-2.4.json"))
    junk[0]["body"]["data"]["devices"][0]["interfaces"] = [{"name": "x"}]
    with nautobot(junk):
        assert run_import(monkeypatch) == 2
    assert "answered in a shape lossless does not know" in capsys.readouterr().err


def test_a_cable_without_length_names_the_cable_and_its_ends(monkeypatch, capsys):
    broken = copy.deepcopy(answers("lab-2.4.json"))
    trunk = next(c for c in broken[0]["body"]["data"]["cables"] if c["label"] == "TRUNK-1")
    trunk["length"] = None
    with nautobot(broken):
        assert run_import(monkeypatch) == 2
    err = capsys.readouterr().err
    ends = r"pp-row(1|2):Rear1 and pp-row(2|1):Rear1"  # in the order the path was followed
    assert re.search(
        rf"Nautobot dcim.cables {trunk['id']} \('TRUNK-1'\): cable between {ends} "
        "has no length",
        err,
    )


def test_an_unmapped_device_type_is_an_error_naming_device_and_type(monkeypatch, capsys):
    other = copy.deepcopy(answers("lab-2.4.json"))
    other[0]["body"]["data"]["devices"][1]["device_type"]["model"] = "SN9999"
    with nautobot(other):
        assert run_import(monkeypatch) == 2
    assert re.search(
        r"device leaf2: device type 'SN9999' is not in the mapping's device_types",
        capsys.readouterr().err,
    )


def test_a_filter_matching_no_devices_is_an_error(tmp_path, monkeypatch, capsys):
    empty = copy.deepcopy(answers("lab-2.4.json"))
    empty[0]["body"]["data"]["devices"] = []
    target = tmp_path / "lab.yaml"
    with nautobot(empty):
        assert run_import(monkeypatch, "--filter", "site=nosuch", "-o", str(target)) == 2
    assert "lossless: no devices in Nautobot match --filter site=nosuch" in (
        capsys.readouterr().err
    )
    assert not target.exists()


def test_a_loop_in_the_cabling_is_an_error_naming_the_cable(monkeypatch, capsys):
    """TRUNK-1 recorded as ending at pp-row1's own Front2 (position 2 of the rear port it
    leaves from): a path through it comes back to it."""
    looped = copy.deepcopy(answers("lab-2.4.json"))
    data = looped[0]["body"]["data"]
    front2 = next(
        p for p in data["front_ports"] if p["device"]["name"] == "pp-row1" and p["name"] == "Front2"
    )
    trunk = next(c for c in data["cables"] if c["label"] == "TRUNK-1")
    trunk["termination_b_type"] = "dcim.frontport"
    trunk["termination_b_id"] = front2["id"]
    with nautobot(looped):
        assert run_import(monkeypatch) == 2
    assert re.search(
        rf"Nautobot dcim.cables {trunk['id']}: the cable path from \S+ passes this cable twice: "
        "a loop in the cabling data",
        capsys.readouterr().err,
    )


def test_a_path_longer_than_the_hop_limit_is_an_error(monkeypatch, capsys):
    monkeypatch.setattr("lossless.importers.nautobot.MAX_HOPS", 2)  # the lab's paths take 3
    with nautobot(answers("lab-2.4.json")):
        assert run_import(monkeypatch) == 2
    assert re.search(
        r"Nautobot dcim.cables \S+: the cable path from \S+ passes more than 2 cables",
        capsys.readouterr().err,
    )


def _as_3x(recorded: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The 2.4 answers as Nautobot 3.x serves a cable's ends: no termination_a_id, a list of
    `terminations` (cable_end, connector, the interface, front or rear port)."""
    fields = {"dcim.interface": "interface", "dcim.frontport": "front_port"}
    fields["dcim.rearport"] = "rear_port"
    changed = copy.deepcopy(recorded)
    for answer in changed:
        for cable in answer["body"].get("data", {}).get("cables", []):
            rows = []
            for side in ("a", "b"):
                kind = cable.pop(f"termination_{side}_type")
                end = {"id": cable.pop(f"termination_{side}_id")}
                row = {"cable_end": side.upper(), "connector": 1}
                rows.append(row | {name: None for name in fields.values()} | {fields[kind]: end})
            cable["terminations"] = rows
    return changed


@pytest.mark.parametrize("version", ["2.4.44", "3.2.7"])
def test_the_cables_are_asked_for_as_the_servers_version_serves_them(
    tmp_path, monkeypatch, version
):
    """Nautobot 2.4 and 3.2 refuse a sub-selection of termination_a_type (a String); 3.x has
    no termination_a_id: the query follows the version /api/status/ gives."""
    recorded = answers("lab-2.4.json")
    target = tmp_path / "lab.yaml"
    with nautobot(recorded if version < "3" else _as_3x(recorded), version=version) as bodies:
        assert run_import(monkeypatch, "-o", str(target)) == 0
    query = bodies[0]["query"]
    assert "termination_a_type {" not in query and "app_label" not in query
    if version < "3":
        assert "termination_a_type termination_a_id" in query and "terminations" not in query
    else:
        assert "terminations { cable_end connector interface { id }" in query
        assert "termination_a_id" not in query
    _render_equals_golden(target, tmp_path / "out")


def test_a_3x_breakout_cable_is_an_error_naming_it_and_every_end(monkeypatch, capsys):
    split = _as_3x(answers("lab-2.4.json"))
    data = split[0]["body"]["data"]
    cable = data["cables"][0]
    other = next(c for c in data["cables"][1:] if c["terminations"][1]["interface"])
    cable["terminations"].append(dict(other["terminations"][1], connector=2))
    with nautobot(split, version="3.2.7"):
        assert run_import(monkeypatch) == 2
    err = capsys.readouterr().err
    assert f"Nautobot dcim.cables {cable['id']}: joins " in err
    assert "a breakout cable; the inventory joins one port to one port" in err


def test_a_planned_cable_and_a_disabled_port_are_no_link(monkeypatch, capsys):
    changed = copy.deepcopy(answers("lab-2.4.json"))
    data = changed[0]["body"]["data"]
    data["cables"][0]["status"] = {"name": "Planned"}
    leaf4 = next(d for d in data["devices"] if d["name"] == "leaf4")
    port = next(i for i in leaf4["interfaces"] if i["name"] == "et-0/0/30")
    port["enabled"] = False
    lab = str(REPO / "inventories" / "lab.yaml")
    with nautobot(changed):
        assert run_import(monkeypatch, "--check", "-o", lab) == 1
    out = capsys.readouterr().out
    assert f"(cable dcim.cables {data['cables'][0]['id']} is planned)" in out
    assert (
        "link leaf4:et-0/0/30 - spine1:Ethernet4/1: in the inventory, not in Nautobot "
        f"(dcim.interfaces {port['id']} (leaf4:et-0/0/30) is disabled)" in out
    )


@pytest.mark.parametrize(
    "body", [{"django-version": "5.2"}, {"nautobot-version": "x.y"}, ["not", "a", "status"]]
)
def test_a_server_without_a_nautobot_version_is_a_clear_error(monkeypatch, capsys, body):
    monkeypatch.setenv("NAUTOBOT_TOKEN", TOKEN)
    with responses.RequestsMock(assert_all_requests_are_fired=False) as mock:
        mock.add(responses.GET, f"{URL}/api/status/", json=body)
        assert run_import(monkeypatch) == 2
    assert "without its nautobot-version: is --url the Nautobot address?" in (
        capsys.readouterr().err
    )


def test_a_cable_whose_status_is_not_readable_is_an_error(monkeypatch, capsys):
    """Nautobot answers `status: null` where the token may not view statuses (measured on
    3.2.7): read as connected, a planned cable would become a link."""
    hidden = copy.deepcopy(answers("lab-2.4.json"))
    for cable in hidden[0]["body"]["data"]["cables"]:
        cable["status"] = None
    with nautobot(hidden):
        assert run_import(monkeypatch) == 2
    assert "its status is not readable" in capsys.readouterr().err
