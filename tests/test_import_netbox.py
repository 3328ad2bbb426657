"""`lossless import netbox`: the inventory from NetBox's REST API, against recorded answers of
NetBox 4.2 (tests/data/netbox/README.md): the lab with patch-panel paths and lengths in cm, ft,
in and km renders byte-identical to golden/lab; pagination, retries, refused tokens, missing
lengths, unmapped device types, hostile text and `--check` drift."""

from __future__ import annotations

import copy
import json
import re
import time
from collections.abc import Iterator
from contextlib import contextmanager
from decimal import Decimal
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import pytest
import requests
import responses
from conftest import REPO

from lossless.cli.main import main
from lossless.errors import InputError
from lossless.importers.inventory_yaml import (
    Cable,
    Entry,
    SourceData,
    SourceDevice,
    SourceError,
    build_inventory,
    fold,
    path_length_m,
)
from lossless.importers.mapping import load_mapping, mapping_validator
from lossless.importers.netbox import http_session, read_netbox
from lossless.inventory import load_inventory

DATA = REPO / "tests" / "data" / "netbox"
MAPPING = str(REPO / "inventories" / "netbox" / "lab-mapping.yaml")
URL = "http://netbox.example.com"
TOKEN = "0123456789abcdef0123456789abcdef01234567"  # what a NetBox v1 token looks like


def recording(name: str) -> list[dict[str, Any]]:
    exchanges: list[dict[str, Any]] = json.loads((DATA / name).read_text())
    return exchanges


def _key(path: str, pairs: list[tuple[str, str]]) -> tuple[str, tuple[tuple[str, str], ...]]:
    return path, tuple(sorted(pairs))


def _pairs(query: dict[str, Any]) -> list[tuple[str, str]]:
    return [(k, str(v)) for k, vs in query.items() for v in (vs if isinstance(vs, list) else [vs])]


@contextmanager
def netbox(
    exchanges: list[dict[str, Any]], status: int | None = None, fail_first: int = 0
) -> Iterator[list[str]]:
    """A NetBox answering from the recording (by path and query); an unrecorded request gets
    NetBox's 404. `status` answers everything with it; `fail_first` answers that many
    requests with 503 first. Yields the URLs asked for."""
    table = {_key(e["path"], _pairs(e["query"])): e for e in exchanges}
    asked: list[str] = []

    def answer(request: Any) -> tuple[int, dict[str, str], str]:
        asked.append(request.url)
        assert TOKEN in request.headers.get("Authorization", "")
        if status is not None:
            return status, {}, json.dumps({"detail": "Invalid v1 token"})
        if len(asked) <= fail_first:
            return 503, {}, "Service Unavailable"
        parts = urlsplit(request.url)
        found = table.get(_key(parts.path, parse_qsl(parts.query)))
        if found is None:
            return 404, {}, json.dumps({"detail": "Not found."})
        return found["status"], {"API-Version": "4.2"}, json.dumps(found["body"])

    with responses.RequestsMock(assert_all_requests_are_fired=False) as mock:
        mock.add_callback(responses.GET, re.compile(re.escape(URL) + "/.*"), callback=answer)
        yield asked


def run_import(tmp_path: Path, monkeypatch: Any, *extra: str, page_size: int = 5) -> int:
    monkeypatch.setenv("NETBOX_TOKEN", TOKEN)
    return main(
        [
            "import",
            "netbox",
            "--url",
            URL,
            "--mapping",
            MAPPING,
            "--page-size",
            str(page_size),
            "--retries",
            "0",
            *extra,
        ]
    )


def test_the_lab_from_netbox_renders_byte_identical_to_golden(tmp_path, monkeypatch, capsys):
    target = tmp_path / "lab.yaml"
    with netbox(recording("lab.json")) as asked:
        assert run_import(tmp_path, monkeypatch, "-o", str(target)) == 0
    assert len(asked) == len(recording("lab.json"))  # every page and trace, nothing else
    assert "pp-row1: role 'patch-panel' is not in the mapping" in capsys.readouterr().err
    out = tmp_path / "out"
    assert main(["render", str(target), "-o", str(out)]) == 0
    assert main(["render", str(target), "-o", str(out / "hosts"), "--hosts"]) == 0
    golden = REPO / "golden" / "lab"
    expected = sorted(p.relative_to(golden) for p in golden.rglob("*") if p.is_file())
    written = sorted(p.relative_to(out) for p in out.rglob("*") if p.is_file())
    assert written == expected
    for name in expected:
        assert (out / name).read_bytes() == (golden / name).read_bytes(), name


def test_folded_ranges_and_comments_name_their_netbox_objects(tmp_path, monkeypatch):
    target = tmp_path / "lab.yaml"
    with netbox(recording("lab.json")):
        assert run_import(tmp_path, monkeypatch, "-o", str(target)) == 0
    text = target.read_text()
    assert (
        '"Ethernet[1:4]/1": {profile: downlink-400g}  # dcim.interfaces 1018, 1022, 1026,' in text
    )
    assert '"gpu[01:02]":  # NetBox dcim.devices 31, 32: role gpu-server, type dgx-h100' in text
    assert (
        "- {a: leaf1:Ethernet248, b: spine1:Ethernet1/1, cable_m: 30}  # dcim.cables 201 'R1-F1'"
        " + 200 'TRUNK-1' + 202 'R2-F1': 12 m + 3 m + 15 m" in text
    )
    assert "cable_m: 50}  # dcim.cables 204: 164 ft" in text


def test_lengths_sum_over_panels_and_convert_units(tmp_path, monkeypatch):
    target = tmp_path / "lab.yaml"
    with netbox(recording("lab.json")):
        assert run_import(tmp_path, monkeypatch, "-o", str(target)) == 0
    links = {(str(link.a), str(link.b)): link.cable_m for link in load_inventory(target).links}
    assert links[("leaf1:Ethernet248", "spine1:Ethernet1/1")] == 30  # 12 + 3 + 15 m via panels
    assert links[("leaf2:swp32", "spine2:Ethernet4")] == 55  # 10 + 3 + 42 m, the same trunk
    assert links[("leaf2:swp31", "spine1:Ethernet2/1")] == 50  # 164 ft = 49.9872 m, up
    assert links[("leaf4:et-0/0/0", "gpu03:eth1")] == 1  # 39 in = 0.9906 m, up
    assert links[("leaf1:Ethernet0", "gpu01:eth0")] == 2  # 200 cm
    assert links[("leaf4:et-0/0/30", "spine1:Ethernet4/1")] == 100  # 0.1 km


def _cable(length: str | None, unit: str | None, ref: str = "dcim.cables 1") -> Cable:
    return Cable(ref, "", None if length is None else Decimal(length), unit, ("a:x", "b:y"))


@pytest.mark.parametrize(
    ("cables", "metres"),
    [
        ([("150", "cm")], Decimal("1.5")),  # metric stays exact
        ([("1.25", "m"), ("0.5", "m")], Decimal("1.75")),
        ([("1", "ft")], Decimal(1)),  # 0.3048 m, up to the whole metre
        ([("3", "ft"), ("1", "m")], Decimal(2)),  # 1.9144 m
        ([("328.084", "ft")], Decimal(101)),  # 100.0000032 m: never below the real length
        ([("2", "mi")], Decimal(3219)),  # 3218.688 m
        ([("0.25", "km")], Decimal(250)),
    ],
)
def test_path_length_is_exact_in_metric_and_rounded_up_from_imperial(cables, metres):
    assert path_length_m([_cable(n, u) for n, u in cables], "NetBox") == metres


def test_a_cable_without_length_is_an_error_naming_it_and_its_ends():
    cables = [
        _cable("3", "m"),
        Cable("dcim.cables 9", "T9", None, None, ("pp1:Rear1", "pp2:Rear1")),
    ]
    with pytest.raises(SourceError) as error:
        path_length_m(cables, "NetBox")
    assert str(error.value.problems[0]) == (
        "NetBox dcim.cables 9 ('T9'): cable between pp1:Rear1 and pp2:Rear1 has no length: "
        "headroom cannot be sized (set length and length_unit)"
    )
    with pytest.raises(SourceError, match="in no known unit"):
        path_length_m([_cable("3", "furlong")], "NetBox")


def test_missing_length_and_unmapped_device_type_exit_2_naming_both(tmp_path, monkeypatch, capsys):
    target = tmp_path / "clos.yaml"
    with netbox(recording("broken.json")):
        assert run_import(tmp_path, monkeypatch, "-o", str(target), page_size=50) == 2
    err = capsys.readouterr().err
    assert (
        "NetBox dcim.cables 300 ('TRUNK-9'): cable between pp-row1:Rear1 and pp-row2:Rear1 has "
        "no length" in err
    )
    assert "NetBox dcim.devices 52: device leaf02: device type 'sn9999' is not in the" in err
    assert not target.exists()


def test_pagination_follows_netbox_pages(monkeypatch):
    with netbox(recording("lab.json")) as asked:
        data = read_netbox(URL, TOKEN, {}, http_session(retries=0), page_size=5)
    pages = [u for u in asked if "/api/dcim/devices/" in u]
    assert len(pages) == 3 and "offset=10" in pages[2]  # 12 devices, 5 a page
    assert len(data.devices) == 12 and len(data.interfaces) == 32
    assert len(data.connections) == 16


def test_503_is_retried_with_backoff_and_bounded():
    slept: list[float] = []
    with netbox(recording("lab.json"), fail_first=2):
        data = read_netbox(URL, TOKEN, {}, http_session(retries=3, sleep=slept.append), 5)
    assert slept == [1.0, 2.0] and len(data.connections) == 16
    slept.clear()
    with netbox(recording("lab.json"), fail_first=99) as asked, pytest.raises(Exception) as error:
        read_netbox(URL, TOKEN, {}, http_session(retries=2, sleep=slept.append), 5)
    assert len(asked) == 3 and slept == [1.0, 2.0]
    assert "answered HTTP 503 for /api/dcim/devices/" in str(error.value)


@pytest.mark.parametrize("status", [401, 403])
def test_a_refused_token_is_said_without_the_token(tmp_path, monkeypatch, capsys, status):
    with netbox(recording("lab.json"), status=status):
        assert run_import(tmp_path, monkeypatch) == 2
    out, err = capsys.readouterr()
    assert f"lossless: NetBox refused the token (HTTP {status})" in err
    assert TOKEN not in out + err


def test_the_token_comes_from_the_environment_only(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("NB_TOKEN", raising=False)
    assert (
        main(["import", "netbox", "--url", URL, "--mapping", MAPPING, "--token-env", "NB_TOKEN"])
        == 2
    )
    assert "set the NetBox API token in the environment variable NB_TOKEN" in (
        capsys.readouterr().err
    )


def test_unreachable_netbox_and_bad_urls_are_clear_errors(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("NETBOX_TOKEN", TOKEN)
    with responses.RequestsMock() as mock:
        mock.add(responses.GET, re.compile(".*"), body=requests.ConnectionError("refused"))
        assert run_import(tmp_path, monkeypatch) == 2
    assert "cannot reach NetBox at http://netbox.example.com: ConnectionError" in (
        capsys.readouterr().err
    )
    for url in ("ftp://netbox.example.com", "netbox.example.com", "http://u:p@netbox.example.com"):
        assert main(["import", "netbox", "--url", url, "--mapping", MAPPING]) == 2
    with netbox([]):  # a web server that is not NetBox: every API path is a 404
        assert run_import(tmp_path, monkeypatch) == 2
    assert "has no /api/dcim/devices/ (HTTP 404): is --url the NetBox address?" in (
        capsys.readouterr().err
    )


def _trace(exchanges: list[dict[str, Any]], cable_id: int) -> dict[str, Any]:
    for exchange in exchanges:
        if exchange["path"].endswith("/trace/"):
            for _, cable, _ in exchange["body"]:
                if cable and cable["id"] == cable_id:
                    return dict(cable)
    raise AssertionError(cable_id)


def _edit_cable(exchanges: list[dict[str, Any]], cable_id: int, **values: Any) -> None:
    for exchange in exchanges:
        if exchange["path"].endswith("/trace/"):
            for _, cable, _ in exchange["body"]:
                if cable and cable["id"] == cable_id:
                    cable.update(values)


def test_check_exits_0_on_the_same_facts_and_1_naming_what_drifted(tmp_path, monkeypatch, capsys):
    lab = str(REPO / "inventories" / "lab.yaml")
    with netbox(recording("lab.json")):  # the hand-written lab states what NetBox holds
        assert run_import(tmp_path, monkeypatch, "--check", "-o", lab) == 0
    assert "the same facts as NetBox" in capsys.readouterr().out
    changed = copy.deepcopy(recording("lab.json"))
    _edit_cable(changed, 203, length=40.0)
    assert _trace(changed, 203)["length"] == 40.0
    for exchange in changed:
        for item in (
            exchange["body"].get("results", []) if isinstance(exchange["body"], dict) else []
        ):
            if item.get("name") == "Ethernet0" and item["device"]["name"] == "spine2":
                item["mtu"] = 9000
    with netbox(changed):
        assert run_import(tmp_path, monkeypatch, "--check", "-o", lab) == 1
    out = capsys.readouterr().out.splitlines()
    assert "port spine2:Ethernet0: mtu 9100 in the inventory, 9000 in NetBox" in out
    assert (
        "link leaf1:Ethernet252 - spine2:Ethernet0: cable_m 35 in the inventory, 40 in NetBox"
        in out
    )
    assert out[-1] == f"{lab}: 2 differences with NetBox"


def test_hostile_netbox_text_cannot_leave_its_comment_or_scalar(tmp_path, monkeypatch, capsys):
    hostile = copy.deepcopy(recording("lab.json"))
    _edit_cable(hostile, 203, label="x\ndevices: {evil: {}}\n# ")
    target = tmp_path / "lab.yaml"
    with netbox(hostile):
        assert run_import(tmp_path, monkeypatch, "-o", str(target)) == 0
    text = target.read_text()
    assert "evil" in text and "\ndevices: {evil" not in text
    assert "evil" not in load_inventory(target).devices


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("name", "leaf[1:2]", "name 'leaf[1:2]' cannot be an inventory name"),
        ("name", "leaf 1", "name 'leaf 1' cannot be an inventory name"),
        ("name", None, "name '' cannot be an inventory name"),  # NetBox allows unnamed ones
    ],
)
def test_hostile_device_names_are_refused(tmp_path, monkeypatch, capsys, field, value, message):
    hostile = copy.deepcopy(recording("lab.json"))
    hostile[0]["body"]["results"][0][field] = value  # leaf1
    with netbox(hostile):
        assert run_import(tmp_path, monkeypatch) == 2
    assert message in capsys.readouterr().err


def test_interface_descriptions_with_control_characters_are_refused(tmp_path, monkeypatch, capsys):
    hostile = copy.deepcopy(recording("lab.json"))
    for exchange in hostile:
        for item in (
            exchange["body"].get("results", []) if isinstance(exchange["body"], dict) else []
        ):
            if item.get("id") == 1001:
                item["description"] = "GPU\nNIC"
    with netbox(hostile):
        assert run_import(tmp_path, monkeypatch) == 2
    assert "dcim.interfaces 1001: leaf1:Ethernet0: description holds control" in (
        capsys.readouterr().err
    )


def test_junk_answers_are_bad_input_never_a_traceback(tmp_path, monkeypatch, capsys):
    junk = copy.deepcopy(recording("lab.json"))
    junk[0]["body"]["results"][0]["device_type"] = "not an object"
    with netbox(junk):
        assert run_import(tmp_path, monkeypatch) == 2
    assert "answered in a shape lossless does not know" in capsys.readouterr().err


def test_the_lab_mapping_follows_its_schema_and_mistakes_are_located(tmp_path):
    mapping_validator().check_schema(mapping_validator().schema)
    lab = load_mapping(MAPPING)
    assert lab.device_types["sn5600"].asic == "spectrum-4"
    broken = tmp_path / "mapping.yaml"
    text = Path(MAPPING).read_text()
    broken.write_text(
        text.replace("  sn4700: {asic", "  sn4700: {asci").replace(
            "profile: uplink-400g}", "profile: uplink-800g}"
        )
    )
    with pytest.raises(InputError) as error:
        load_mapping(broken)
    messages = [str(p) for p in error.value.problems]
    assert any(
        re.search(r"mapping.yaml:\d+:\d+: device_types.sn4700.asci: unknown key 'asci'", m)
        for m in messages
    )
    broken.write_text(text.replace("profile: uplink-400g}", "profile: uplink-800g}"))
    with pytest.raises(InputError, match="profile 'uplink-800g' is not in port_profiles"):
        load_mapping(broken)


def _entry(name: str, settings: dict[str, Any]) -> Entry:
    return Entry(name, settings, "dcim.interfaces", (name,), "")


def test_folding_takes_only_what_expands_back():
    same = {"profile": "p"}
    names = ["Ethernet0", "Ethernet4", "Ethernet8", "Ethernet16", "Ethernet1/1", "Ethernet2/1"]
    folded = [e.name for e in fold([_entry(n, same) for n in names])]
    assert folded == ["Ethernet[0:8:4]", "Ethernet[1:2]/1", "Ethernet16"]  # natural order
    padded = [e.name for e in fold([_entry(f"gpu{n:02}", same) for n in range(1, 11)])]
    assert padded == ["gpu[01:10]"]
    mixed = fold([_entry("swp1", same), _entry("swp2", {"profile": "q"}), _entry("swp3", same)])
    assert [e.name for e in mixed] == ["swp[1:3:2]", "swp2"]  # same settings, step 2
    widths = fold([_entry("gpu1", same), _entry("gpu02", same)])  # gpu[1:02] would be gpu2
    assert [e.name for e in widths] == ["gpu1", "gpu02"]
    assert [e.ids for e in fold([_entry("a1", same), _entry("a2", same)])] == [("a1", "a2")]


def _tag(slug: str) -> dict[str, Any]:
    return {
        "id": 7,
        "url": f"{URL}/api/extras/tags/7/",
        "display_url": f"{URL}/extras/tags/7/",
        "display": slug,
        "name": slug,
        "slug": slug,
        "color": "9e9e9e",
    }


def test_tags_add_policy_and_clashing_tags_are_an_error(tmp_path, monkeypatch, capsys):
    mapping = tmp_path / "mapping.yaml"
    mapping.write_text(
        Path(MAPPING).read_text()
        + (
            "tags:\n"
            "  ecn-sonic: {policy: {ecn: {preset: sonic}}}\n"
            "  ecn-cisco: {policy: {ecn: {preset: cisco}}}\n"
        )
    )
    tagged = copy.deepcopy(recording("lab.json"))
    tagged[0]["body"]["results"][0]["tags"] = [_tag("ecn-sonic"), _tag("unmapped")]  # leaf1
    target = tmp_path / "lab.yaml"
    monkeypatch.setenv("NETBOX_TOKEN", TOKEN)
    argv = ["import", "netbox", "--url", URL, "--mapping", str(mapping), "--page-size", "5"]
    with netbox(tagged):
        assert main([*argv, "-o", str(target)]) == 0
    assert "platform sonic, tags ecn-sonic, unmapped" in target.read_text()
    inventory = load_inventory(target)
    assert inventory.devices["leaf1"].policy.ecn.preset == "sonic"
    assert inventory.devices["leaf2"].policy.ecn.preset == "nvidia"
    tagged[0]["body"]["results"][0]["tags"] = [_tag("ecn-sonic"), _tag("ecn-cisco")]
    with netbox(tagged):
        assert main([*argv, "-o", str(target)]) == 2
    assert "device leaf1: tag 'ecn-sonic' sets ecn.preset differently" in capsys.readouterr().err


def _results(exchanges: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """The objects of every list page of the recording (devices, interfaces)."""
    for exchange in exchanges:
        if isinstance(exchange["body"], dict):
            yield from exchange["body"].get("results", [])


def _devices_page(status: int, body: Any) -> dict[str, Any]:
    return {
        "path": "/api/dcim/devices/",
        "query": {"limit": "5", "site": "nosuch"},
        "status": status,
        "body": body,
    }


def test_a_filter_matching_no_devices_is_an_error_never_an_empty_inventory(
    tmp_path, monkeypatch, capsys
):
    target = tmp_path / "lab.yaml"
    empty = {"count": 0, "next": None, "previous": None, "results": []}
    with netbox([_devices_page(200, empty)]):
        assert run_import(tmp_path, monkeypatch, "--filter", "site=nosuch", "-o", str(target)) == 2
    assert "lossless: no devices in NetBox match --filter site=nosuch" in capsys.readouterr().err
    assert not target.exists()
    # NetBox 4 refuses an unknown slug with 400 and says why (a django-filter form error)
    reason = {"site": ["Select a valid choice. nosuch is not one of the available choices."]}
    with netbox([_devices_page(400, reason)]):
        assert run_import(tmp_path, monkeypatch, "--filter", "site=nosuch") == 2
    assert (
        "answered HTTP 400 for /api/dcim/devices/: site: Select a valid choice. nosuch is not "
        "one of the available choices." in capsys.readouterr().err
    )


def test_only_servers_and_panels_are_an_error_never_an_inventory_without_switches():
    data = SourceData(
        "NetBox",
        URL,
        [SourceDevice("dcim.devices 31", "gpu01", "gpu-server", "dgx-h100", None, None, None)],
        [],
        [],
    )
    with pytest.raises(SourceError, match="none of its 1 devices is a switch"):
        build_inventory(data, load_mapping(MAPPING))


def test_two_devices_of_one_name_are_an_error_naming_both(tmp_path, monkeypatch, capsys):
    same = copy.deepcopy(recording("lab.json"))  # leaf2 (12) in another site, named leaf1 too
    for item in _results(same):
        for device in (item, item.get("device")):
            if isinstance(device, dict) and device.get("id") == 12 and "name" in device:
                device["name"] = "leaf1"
    with netbox(same):
        assert run_import(tmp_path, monkeypatch) == 2
    assert (
        "NetBox dcim.devices 11 and 12: 2 devices are named 'leaf1': rename them, or narrow "
        "--filter to one site or tenant" in capsys.readouterr().err
    )


def test_problems_of_the_generated_inventory_name_the_netbox_objects(tmp_path, monkeypatch, capsys):
    fast = copy.deepcopy(recording("lab.json"))
    for item in _results(fast):
        if item.get("id") == 1002 and "speed" in item:  # gpu01:eth0, cabled to leaf1:Ethernet0
            item["speed"] = 200000000
    target = tmp_path / "lab.yaml"
    for extra in ((), ("--check",)):
        target.write_text("# hand-written\n")
        with netbox(fast):
            assert run_import(tmp_path, monkeypatch, *extra, "-o", str(target)) == 2
        err = capsys.readouterr().err
        assert re.search(
            r"NetBox dcim.interfaces 1001 and 1002 \(cable dcim.cables \d+\): leaf1:Ethernet0 "
            r"runs at 400G but gpu01:eth0 at 200G \(nothing written\)",
            err,
        ), err
        assert "lab.yaml:" not in err and "imported.yaml" not in err
        assert target.read_text() == "# hand-written\n"


def _trace_of(exchanges: list[dict[str, Any]], interface: int) -> list[Any]:
    for exchange in exchanges:
        if exchange["path"] == f"/api/dcim/interfaces/{interface}/trace/":
            body: list[Any] = exchange["body"]
            return body  # the recording's own list: an edit changes the answer
    raise AssertionError(interface)


def _reversed_trace(path: list[Any]) -> list[Any]:
    """The trace NetBox gives from the other end of the path."""
    return [[far, cable, near] for near, cable, far in reversed(path)]


@pytest.mark.parametrize(
    ("far", "message"),
    [
        (1017, "the cable path from leaf1:Ethernet248 ends at the same port"),
        (1019, "the cable path from leaf1:Ethernet248 ends at leaf1:Ethernet252, a port of the"),
    ],
)
def test_a_path_back_to_its_own_device_is_its_own_error(
    tmp_path, monkeypatch, capsys, far, message
):
    """1017's trace comes back to leaf1 (bad cabling data); the far end of the path it had
    (spine1:Ethernet1/1, 1018), and the one of the port it now ends at, trace on their own."""
    looped = copy.deepcopy(recording("lab.json"))
    original = copy.deepcopy(_trace_of(looped, 1017))
    orphans = {1018: original}
    if far == 1019:
        orphans[1020] = copy.deepcopy(_trace_of(looped, 1019))
    end = _trace_of(looped, far)[0][0][0]
    _trace_of(looped, 1017)[-1][2] = [end]
    for interface, path in orphans.items():
        trace = f"/api/dcim/interfaces/{interface}/trace/"
        looped.append({"path": trace, "query": {}, "status": 200, "body": _reversed_trace(path)})
    with netbox(looped):
        assert run_import(tmp_path, monkeypatch) == 2
    err = capsys.readouterr().err
    assert f"NetBox dcim.interfaces 1017 (dcim.cables 200, 201, 202): {message}" in err, err
    assert "duplicate" not in err and "imported.yaml" not in err


def test_check_names_each_differing_policy_value_and_nic_setting(tmp_path, monkeypatch, capsys):
    lab = str(REPO / "inventories" / "lab.yaml")
    mapping = tmp_path / "mapping.yaml"
    mapping.write_text(
        Path(MAPPING).read_text().replace("data: {dscp: 26, priority: 3}", "data: {dscp: 24}")
    )
    changed = copy.deepcopy(recording("lab.json"))
    for item in _results(changed):
        if item.get("id") == 1002 and "mtu" in item:  # gpu01:eth0
            item["mtu"] = 9216
    monkeypatch.setenv("NETBOX_TOKEN", TOKEN)
    argv = ["import", "netbox", "--url", URL, "--mapping", str(mapping), "--page-size", "5"]
    with netbox(changed):
        assert main([*argv, "--check", "-o", lab]) == 1
    out = capsys.readouterr().out.splitlines()
    assert "device spine1: policy.roce.data.dscp 26 in the inventory, 24 from the mapping" in out
    assert "NIC gpu01:eth0: host.mtu 9000 in the inventory, 9216 in NetBox" in out
    assert not any("differs" in line for line in out), out


def test_an_unknown_asic_and_an_unknown_top_level_key_are_located_in_the_mapping(tmp_path):
    text = Path(MAPPING).read_text()
    broken = tmp_path / "mapping.yaml"
    broken.write_text(text.replace("sn4700: {asic: spectrum-3", "sn4700: {asic: spectrum-9"))
    line = 1 + text.splitlines().index("  sn4700: {asic: spectrum-3, platform: SN4700}")
    with pytest.raises(InputError) as error:
        load_mapping(broken)
    assert [str(p) for p in error.value.problems] == [
        f"{broken}:{line}:18: device_types.sn4700.asic: unknown ASIC 'spectrum-9' "
        '(did you mean "spectrum-6"?)'
    ]
    broken.write_text(text + "\ntag:\n  ecn-sonic: {policy: {ecn: {preset: sonic}}}\n")
    with pytest.raises(InputError) as error:
        load_mapping(broken)
    assert [str(p) for p in error.value.problems] == [
        f"{broken}:{len(text.splitlines()) + 2}:1: tag: unknown key 'tag' (did you mean \"tags\"?)"
    ]


def test_a_folded_comment_states_only_what_every_member_has(tmp_path, monkeypatch):
    partial = copy.deepcopy(recording("lab.json"))
    for item in _results(partial):
        if item.get("id") == 1003 and "speed" in item:  # leaf1:Ethernet4: no speed nor MTU
            item["speed"] = item["mtu"] = None
    target = tmp_path / "lab.yaml"
    with netbox(partial):
        assert run_import(tmp_path, monkeypatch, "-o", str(target)) == 0
    text = target.read_text()
    assert "dcim.interfaces 1001, 1003" not in text
    assert "Ethernet0: {profile: server-400g}  # dcim.interfaces 1001: speed 400000000 kbps" in text
    assert (
        "Ethernet4: {profile: server-400g}  # dcim.interfaces 1003: no speed in NetBox, 400G "
        "from profile server-400g" in text
    )


def test_a_trace_passing_a_cable_twice_is_an_error_naming_it(tmp_path, monkeypatch, capsys):
    looped = copy.deepcopy(recording("lab.json"))
    trace = _trace_of(looped, 1017)  # 201, 200, 202 through the panels
    trace[:] = trace[:2] + copy.deepcopy(trace[:2]) + trace[2:]  # 201, 200, 201, 200, 202
    with netbox(looped):
        assert run_import(tmp_path, monkeypatch) == 2
    assert (
        "NetBox dcim.cables 201: the cable path from leaf1:Ethernet248 passes this cable twice"
        in capsys.readouterr().err
    )


@pytest.mark.parametrize("url", ["https://[::1", "http://netbox.example.com:port"])
def test_a_url_that_does_not_parse_is_a_usage_error(monkeypatch, capsys, url):
    monkeypatch.setenv("NETBOX_TOKEN", TOKEN)
    assert main(["import", "netbox", "--url", url, "--mapping", MAPPING]) == 2
    assert f"lossless: --url {url!r} is not a URL" in capsys.readouterr().err


def test_an_output_that_is_a_folder_is_refused_before_any_request(tmp_path, monkeypatch, capsys):
    with netbox(recording("lab.json")) as asked:
        assert run_import(tmp_path, monkeypatch, "-o", str(tmp_path)) == 2
        assert run_import(tmp_path, monkeypatch, "-o", str(tmp_path / "nodir" / "x.yaml")) == 2
    assert asked == []
    err = capsys.readouterr().err
    assert f"-o {tmp_path}: is a folder" in err
    assert f"the folder {tmp_path / 'nodir'} does not exist" in err


def test_the_header_names_the_mapping_relative_to_the_output(tmp_path, monkeypatch, capsys):
    """The same bytes whether --mapping was typed absolute or relative."""
    folder = tmp_path / "inventories"
    folder.mkdir()
    (folder / "netbox").mkdir()
    mapping = folder / "netbox" / "lab-mapping.yaml"
    mapping.write_text(Path(MAPPING).read_text())
    monkeypatch.setenv("NETBOX_TOKEN", TOKEN)
    monkeypatch.chdir(tmp_path)
    texts = []
    for given in (str(mapping), "inventories/netbox/lab-mapping.yaml"):
        target = folder / "lab.yaml"
        argv = ["import", "netbox", "--url", URL, "--mapping", given, "--page-size", "5"]
        with netbox(recording("lab.json")):
            assert main([*argv, "-o", str(target)]) == 0
        texts.append(target.read_text())
    assert texts[0] == texts[1]
    assert f"# Imported from NetBox {URL} with the mapping netbox/lab-mapping.yaml\n" in texts[0]
    with netbox(recording("lab.json")):
        assert main([*argv, "-o", "-"]) == 0
    assert f"# Imported from NetBox {URL} with the mapping lab-mapping.yaml\n" in (
        capsys.readouterr().out
    )


def test_traces_are_in_flight_together_and_each_link_traced_once(tmp_path, monkeypatch):
    """A real NetBox answers a trace in tens of ms: several are asked at once (and the far end
    NetBox lists, connected_endpoints, is not traced again), with the same inventory."""
    import threading

    from lossless.importers import netbox as netbox_module

    alone = tmp_path / "alone.yaml"
    monkeypatch.setattr(netbox_module, "TRACE_WORKERS", 1)
    with netbox(recording("lab.json")):
        assert run_import(tmp_path, monkeypatch, "-o", str(alone)) == 0
    monkeypatch.setattr(netbox_module, "TRACE_WORKERS", 8)
    exchanges = recording("lab.json")
    in_flight, most, lock = [0], [0], threading.Lock()
    table = {_key(e["path"], _pairs(e["query"])): e for e in exchanges}

    def slow(request: Any) -> tuple[int, dict[str, str], str]:
        parts = urlsplit(request.url)
        with lock:
            in_flight[0] += 1
            most[0] = max(most[0], in_flight[0])
        time.sleep(0.05 if parts.path.endswith("/trace/") else 0)
        with lock:
            in_flight[0] -= 1
        found = table[_key(parts.path, parse_qsl(parts.query))]
        return found["status"], {}, json.dumps(found["body"])

    together = tmp_path / "together.yaml"
    with responses.RequestsMock(assert_all_requests_are_fired=True) as mock:
        mock.add_callback(responses.GET, re.compile(re.escape(URL) + "/.*"), callback=slow)
        assert run_import(tmp_path, monkeypatch, "-o", str(together)) == 0
        assert len(mock.calls) == len(exchanges)  # every recorded request, once
    assert most[0] > 1
    assert together.read_text() == alone.read_text()


def test_a_wrong_connected_endpoint_costs_a_trace_not_a_link(tmp_path, monkeypatch):
    """connected_endpoints only saves traces. Here NetBox lists 1003 as 1001's far end and
    1004 as 1002's (the links are 1001-1002 and 1003-1004): 1001 and 1002 are traced first
    (1002 answered with 1001's path reversed), 1003 and 1004 skipped; 1003 is traced after
    all, and the links are those of the right listing."""
    right = tmp_path / "right.yaml"
    with netbox(recording("lab.json")):
        assert run_import(tmp_path, monkeypatch, "-o", str(right)) == 0
    wrong = recording("lab.json")
    for exchange in wrong:
        if exchange["path"] == "/api/dcim/interfaces/":
            for item in exchange["body"]["results"]:
                far = {1001: 1003, 1002: 1004}.get(item["id"])
                if far is not None:
                    item["connected_endpoints"] = [{"id": far}]
    [first] = [e for e in wrong if e["path"] == "/api/dcim/interfaces/1001/trace/"]
    back = [[far, cable, near] for near, cable, far in reversed(first["body"])]
    wrong.append(dict(first, path="/api/dcim/interfaces/1002/trace/", body=back))
    misled = tmp_path / "misled.yaml"
    with netbox(wrong) as asked:
        assert run_import(tmp_path, monkeypatch, "-o", str(misled)) == 0
    traces = [url.split("/")[-3] for url in asked if url.endswith("/trace/")]
    assert {"1001", "1002", "1003"} <= set(traces) and "1004" not in traces
    assert traces.index("1003") > traces.index("1002")  # after the first traces
    assert misled.read_text() == right.read_text()


def test_the_modeline_points_editors_at_a_schema_file_the_user_can_write(tmp_path, monkeypatch):
    """The imported inventory's yaml-language-server modeline named
    https://lossless.dev/schemas/inventory.schema.json, the schema's $id, which no server
    answers: it names a file beside the inventory, and the command the header gives writes
    the schema there."""
    target = tmp_path / "fabric" / "lab.yaml"
    target.parent.mkdir()
    with netbox(recording("lab.json")):
        assert run_import(tmp_path, monkeypatch, "-o", str(target)) == 0
    head = target.read_text().splitlines()[:3]
    modeline = re.fullmatch(r"# yaml-language-server: \$schema=(\S+)", head[0])
    assert modeline and "://" not in modeline.group(1), head
    command = re.search(r"`lossless (schema inventory -o \S+)`", head[1])
    assert command, head
    monkeypatch.chdir(target.parent)
    assert main(command.group(1).split()) == 0
    schema = json.loads((target.parent / modeline.group(1)).read_text())
    assert schema["title"]
