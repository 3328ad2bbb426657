"""`lossless import` against a real NetBox and a real Nautobot: CI runs this (.ci/run).

    .venv/bin/python tests/integration/run.py [--only netbox|nautobot] [--capture]

For each server (servers.py starts it, with PostgreSQL and Redis on 127.0.0.1): load the lab
of inventories/lab.yaml through its REST API (fabric.py), import it, and compare with the
truth the loader wrote: `--check` against inventories/lab.yaml must find the same facts. Then
one change at a time, each undone after: a hostile description (imported exactly), a planned
cable and a disabled port (no link; --check names the status), a filter leaving out the
peers (refused; --check names them), a cable without length and a breakout cable (exit 2
naming the cable). `--capture` writes the server's answers of the lab import, with the
server's version, to tests/data/{netbox,nautobot}/captured-*.json for the fast unit tests.
Prints what each step took; exit 1 when a check fails, 2 when a server cannot be set up.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from fabric import SPEED_400G, Loader, NautobotLoader, NetBoxLoader, Rest  # noqa: E402
from servers import (  # noqa: E402
    ROOT,
    Server,
    ServerError,
    cache_folder,
    nautobot,
    netbox,
    scratch_folder,
    services,
)

# the newest NetBox (4.x needs Python 3.12) and Nautobot (3.x) on PyPI; --nautobot 2.4.44 adds
# the LTS release
NETBOX, NAUTOBOT = "4.7.3", "3.2.7"
MAPPING = ROOT / "inventories" / "netbox" / "lab-mapping.yaml"
LAB = ROOT / "inventories" / "lab.yaml"
LOSSLESS = [sys.executable, "-m", "lossless"]
# a description no YAML scalar or comment of ours may be broken by, within the schema's text
HOSTILE = "x\" # not: a comment [0:1] {a: b} &anchor *alias !tag %TAG @ ` ü 中文 \\ 'q'"


class Failed(Exception):
    pass


def _import(server: Server, work: Path, *extra: str) -> tuple[int, str, str]:
    env = {**os.environ, "LOSSLESS_TEST_TOKEN": server.token}
    done = subprocess.run(
        [
            *LOSSLESS,
            "import",
            server.kind.lower(),
            "--url",
            server.url,
            "--token-env",
            "LOSSLESS_TEST_TOKEN",
            "--mapping",
            str(MAPPING),
            *extra,
        ],
        capture_output=True,
        text=True,
        env=env,
        cwd=work,
        timeout=600,
    )
    return done.returncode, done.stdout, done.stderr


def expect(what: str, got: tuple[int, str, str], code: int, *texts: str) -> None:
    status, out, err = got
    missing = [t for t in texts if t not in out + err]
    if status != code or missing:
        raise Failed(
            f"{what}: exit {status} (want {code}); missing {missing}\n--- stdout\n{out[-3000:]}"
            f"\n--- stderr\n{err[-3000:]}"
        )
    say(f"  ok  {what}")


def scenarios(server: Server, loader: Loader, work: Path) -> None:
    rest, ours = loader.rest, work / "lab.yaml"
    expect("the lab imports", _import(server, work, "-o", str(ours)), 0, "16 links")
    expect(
        "--check: inventories/lab.yaml states the same facts",
        _import(server, work, "--check", "-o", str(LAB)),
        0,
        "the same facts",
    )
    from lossless.inventory import load_inventory

    port = loader.interfaces["leaf1:Ethernet0"]
    with _changed(rest, "dcim/interfaces", port, description=HOSTILE, restore={"description": ""}):
        hostile = work / "hostile.yaml"
        expect("a hostile description imports", _import(server, work, "-o", str(hostile)), 0)
        written = load_inventory(hostile).devices["leaf1"].ports["Ethernet0"].description
        if written != HOSTILE:
            raise Failed(f"the hostile description came back as {written!r}")
        say("  ok  ... and reads back exactly")
    cable = loader.cables["leaf1:Ethernet4"]
    planned = "planned" if server.kind == "NetBox" else loader.status("Planned")  # type: ignore[attr-defined]
    live = "connected" if server.kind == "NetBox" else loader.status("Connected")  # type: ignore[attr-defined]
    with _changed(rest, "dcim/cables", cable, status=planned, restore={"status": live}):
        expect(
            "a planned cable is no link; --check says why",
            _import(server, work, "--check", "-o", str(ours)),
            1,
            f"link gpu02:eth0 - leaf1:Ethernet4: in the inventory, not in {server.kind} "
            f"(cable dcim.cables {cable} is planned)",
        )
    port = loader.interfaces["leaf2:swp1"]
    with _changed(rest, "dcim/interfaces", port, enabled=False, restore={"enabled": True}):
        expect(
            "a disabled port is no link; --check says why",
            _import(server, work, "--check", "-o", str(ours)),
            1,
            f"(dcim.interfaces {port} (leaf2:swp1) is disabled)",
        )
    expect(
        "--filter role=leaf removing the leaves' links is refused",
        _import(server, work, "--filter", "role=leaf", "-o", str(ours)),
        2,
        "ports, NICs and links whose other end it leaves out",
        "--allow-removal",
    )
    expect(
        "... and --check lists them",
        _import(server, work, "--filter", "role=leaf", "--check", "-o", str(ours)),
        1,
        "link leaf1:Ethernet248 - spine1:Ethernet1/1: in the inventory, not in",
    )
    a = loader.interface("leaf1:Ethernet8", SPEED_400G, 9100)
    b = loader.interface("gpu01:eth2", SPEED_400G, 9000)
    cable = loader.cable([("interface", a)], [("interface", b)], label="NO-LENGTH")
    expect(
        "a cable without length is an error naming it",
        _import(server, work, "-o", str(work / "no.yaml")),
        2,
        f"dcim.cables {cable} ('NO-LENGTH')",
        "has no length",
    )
    rest.delete("dcim/cables", cable)
    _breakouts(server, loader, work)


def _breakouts(server: Server, loader: Loader, work: Path) -> None:
    """An 800G leaf port split to two 400G NICs, each way the server can say it (NetBox: one
    A and two B terminations, without and with the cable profile `breakout-1c2p-2c1p`;
    Nautobot 3.x: a cable type of two B connectors; Nautobot 2.x cannot): each an error
    naming the cable."""
    leaf = loader.interface("leaf1:Ethernet16", 800_000_000, 9100)
    nics = [loader.interface(f"{gpu}:eth2", SPEED_400G, 9000) for gpu in ("gpu03", "gpu04")]
    for variant, cable in loader.breakouts(leaf, nics, server.version):
        expect(
            f"a breakout cable ({variant}) is an error naming it",
            _import(server, work, "-o", str(work / "no.yaml")),
            2,
            f"dcim.cables {cable} ('BREAKOUT-1')",
            "a breakout cable",
        )
        loader.rest.delete("dcim/cables", cable)


@contextlib.contextmanager
def _changed(
    rest: Rest, path: str, id_: Any, restore: dict[str, Any], **change: Any
) -> Iterator[None]:
    rest.patch(path, id_, **change)
    try:
        yield
    finally:
        rest.patch(path, id_, **restore)


# -- capture --------------------------------------------------------------------------------


def capture(server: Server, target: Path) -> None:
    """The server's answers to the lab import, as the fast unit tests replay them."""
    from lossless.importers.nautobot import read_nautobot
    from lossless.importers.netbox import http_session, read_netbox

    exchanges: list[dict[str, Any]] = []

    def record(response: Any, *args: Any, **kwargs: Any) -> None:
        parts = urlsplit(response.url)
        query: dict[str, Any] = {}
        for key, value in parse_qsl(parts.query):
            query[key] = (
                [*query[key], value]
                if key in query and isinstance(query[key], list)
                else ([query[key], value] if key in query else value)
            )
        request_body = response.request.body
        body = response.json()
        if parts.path.endswith("/api/status/"):  # the version; not the list of installed apps
            body = {k: v for k, v in body.items() if k.endswith("-version")}
        exchanges.append(
            {
                "method": response.request.method,
                "path": parts.path,
                "query": query,
                "request": json.loads(request_body) if request_body else None,
                "status": response.status_code,
                "body": body,
            }
        )

    session = http_session()
    session.hooks["response"].append(record)
    read: Callable[..., Any] = read_netbox if server.kind == "NetBox" else read_nautobot
    read(server.url, server.token, {}, session, page_size=1000)
    text = json.dumps(
        {
            "captured_from": f"{server.kind} {server.version}",
            "by": "tests/integration/run.py --capture (the lab of inventories/lab.yaml)",
            "url": server.url,
            "exchanges": exchanges,
        },
        indent=1,
        sort_keys=True,
        ensure_ascii=False,
    )
    target.write_text(text.replace(server.url, "http://127.0.0.1:8000") + "\n")
    say(f"  ok  captured {len(exchanges)} answers to {target}")


# -- main -----------------------------------------------------------------------------------

_tag = threading.local()  # the server a line is about: the servers run side by side


def say(text: str) -> None:
    print(f"[{getattr(_tag, 'name', '')}] {text}", flush=True)


def run(
    kind: str, version: str, work: Path, scratch: Path, svc: Any, capture_to: Path | None
) -> None:
    _tag.name = f"{kind} {version}"
    start = time.monotonic()
    serve = netbox if kind == "netbox" else nautobot
    with serve(work, scratch, svc, f"{kind}=={version}") as server:
        ready = time.monotonic()
        say(f"up in {ready - start:.0f} s")
        rest = Rest(server.url, server.header)
        loader: Loader = NetBoxLoader(rest) if kind == "netbox" else NautobotLoader(rest)
        loader.load_lab()
        loaded = time.monotonic()
        say(f"  ok  the lab loaded through the REST API in {loaded - ready:.0f} s")
        if capture_to is not None:
            capture(server, capture_to / f"captured-{server.version}.json")
        folder = scratch / f"{kind}-{version}-work"
        folder.mkdir()
        scenarios(server, loader, folder)
        say(f"checks in {time.monotonic() - loaded:.0f} s")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", choices=["netbox", "nautobot"])
    parser.add_argument("--capture", action="store_true")
    parser.add_argument(
        "--nautobot", action="append", metavar="VERSION", help=f"(repeatable; {NAUTOBOT})"
    )
    parser.add_argument(
        "--work", type=Path, default=cache_folder(), help="servers' venvs and database dumps"
    )
    args = parser.parse_args(argv)
    args.work.mkdir(exist_ok=True)
    start = time.monotonic()
    runs = [("netbox", NETBOX)] + [("nautobot", v) for v in args.nautobot or [NAUTOBOT]]
    runs = [(kind, version) for kind, version in runs if args.only in (None, kind)]
    errors: list[BaseException | None] = []
    # side by side: each server's migration and requests are mostly one Python process busy
    with scratch_folder() as scratch:
        try:
            with services(scratch) as svc, ThreadPoolExecutor(len(runs)) as pool:
                futures = [
                    pool.submit(
                        run, kind, version, args.work, scratch, svc,
                        ROOT / "tests" / "data" / kind if args.capture else None,
                    )
                    for kind, version in runs
                ]  # fmt: skip
                errors += [f.exception() for f in futures if f.exception() is not None]
        except ServerError as error:
            errors.append(error)
    for error in errors:  # a check that failed, or a request the loader's server refused
        what = "" if isinstance(error, ServerError | Failed) else f"{type(error).__name__}: "
        print(f"integration: FAILED {what}{error}", file=sys.stderr)
    if errors:
        return 2 if all(isinstance(e, ServerError) for e in errors) else 1
    print(f"integration: all checks passed in {time.monotonic() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
