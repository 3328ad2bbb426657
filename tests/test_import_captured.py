"""`lossless import` replaying answers captured from real servers (tests/data/netbox and
tests/data/nautobot, `captured-VERSION.json`, written by `tests/integration/run.py
--capture`): the lab of inventories/lab.yaml loaded into NetBox 4.7 and Nautobot 2.4 and
3.x. Each must give the lab's facts (`--check` against inventories/lab.yaml finds none
differing) and render byte-identical to golden/lab; the question asked must be the one the
server answered (the query recorded with its answer)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import pytest
import responses
from conftest import REPO

from lossless.cli.main import main

DATA = REPO / "tests" / "data"
CAPTURED = sorted(DATA.glob("*/captured-*.json"))
MAPPING = str(REPO / "inventories" / "netbox" / "lab-mapping.yaml")
URL = "http://127.0.0.1:8000"  # the capture's server address, as written there
TOKEN = "captured-test-token-0123456789abcdef0123"


def _pairs(query: dict[str, Any]) -> list[tuple[str, str]]:
    return sorted(
        (k, str(v)) for k, vs in query.items() for v in (vs if isinstance(vs, list) else [vs])
    )


@contextmanager
def replaying(capture: dict[str, Any]) -> Iterator[list[str]]:
    """The server of the capture: each request answered by the exchange of its method, path
    and query (and, for GraphQL, the same query text); anything else is a 404."""
    table = {(e["method"], e["path"], tuple(_pairs(e["query"]))): e for e in capture["exchanges"]}
    asked: list[str] = []

    def answer(request: Any) -> tuple[int, dict[str, str], str]:
        parts = urlsplit(request.url)
        asked.append(parts.path)
        key = (request.method, parts.path, tuple(sorted(parse_qsl(parts.query))))
        found = table.get(key)
        if found is None or (found["request"] and json.loads(request.body) != found["request"]):
            return 404, {}, json.dumps({"detail": "Not found."})
        return found["status"], {}, json.dumps(found["body"])

    with responses.RequestsMock(assert_all_requests_are_fired=False) as mock:
        for method in ("GET", "POST"):
            mock.add_callback(method, responses.matchers.re.compile(f"{URL}/.*"), callback=answer)
        yield asked


def _import(source: str, monkeypatch: Any, *extra: str) -> int:
    monkeypatch.setenv("LOSSLESS_CAPTURED_TOKEN", TOKEN)
    argv = ["import", source, "--url", URL, "--token-env", "LOSSLESS_CAPTURED_TOKEN"]
    return main([*argv, "--mapping", MAPPING, "--retries", "0", *extra])


@pytest.mark.parametrize("path", CAPTURED, ids=lambda p: f"{p.parent.name}-{p.stem}")
def test_a_captured_server_gives_the_lab(path: Path, tmp_path, monkeypatch, capsys):
    capture = json.loads(path.read_text())
    source = path.parent.name
    kind, version = capture["captured_from"].split()
    assert kind.lower() == source and path.stem == f"captured-{version}"
    lab = str(REPO / "inventories" / "lab.yaml")
    with replaying(capture) as asked:
        assert _import(source, monkeypatch, "--check", "-o", lab) == 0, capsys.readouterr()
    assert len(asked) == len(capture["exchanges"])  # every answer asked for, nothing else
    assert f"the same facts as {kind}" in capsys.readouterr().out
    target, out = tmp_path / "lab.yaml", tmp_path / "out"
    with replaying(capture):
        assert _import(source, monkeypatch, "-o", str(target)) == 0
    assert main(["render", str(target), "-o", str(out)]) == 0
    golden = REPO / "golden" / "lab"
    expected = sorted(p.relative_to(golden) for p in golden.glob("*") if p.is_file())
    assert sorted(p.relative_to(out) for p in out.glob("*") if p.is_file()) == expected
    for name in expected:
        assert (out / name).read_bytes() == (golden / name).read_bytes(), name


def test_every_server_the_integration_runs_is_captured():
    names = {f"{p.parent.name}/{p.stem}" for p in CAPTURED}
    assert {"netbox/captured-4.7.3", "nautobot/captured-3.2.7", "nautobot/captured-2.4.44"} <= names
