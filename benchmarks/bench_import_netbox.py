#!/usr/bin/env python3
"""Speed and memory of `lossless import netbox` as the fabric in NetBox grows.

Run by hand: python3 benchmarks/bench_import_netbox.py [--links 512,2048] [--latency-ms 0,1]

Serves a generated rail-optimised fabric (leaves with 32 GPU NICs and 32 uplinks each, 128-port
spines, 8-NIC servers, every cable 400G with a length) from a fake NetBox 4.x on 127.0.0.1 (a
random port): devices and cabled interfaces paginated as NetBox does (limit/offset/next,
device_id lists), /trace/ per interface, with a fixed server latency per request (a real NetBox
answers a trace in several ms). Runs the CLI as a subprocess and reports requests, wall time
and max RSS, and the time per link.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlencode, urlsplit

REPO = Path(__file__).resolve().parent.parent
MAPPING = REPO / "inventories" / "netbox" / "lab-mapping.yaml"
TOKEN = "0123456789abcdef0123456789abcdef01234567"


def fabric(links: int) -> dict:
    """~links cables: leaves of 32 server + 32 uplink ports, spines of 128 ports."""
    leaves = max(8, links // 64 // 8 * 8)  # rails of 8 leaves
    spines = max(1, leaves * 32 // 128)
    servers = leaves * 32 // 8
    devices, interfaces, traces = [], [], {}
    next_id = [1000]

    def new_id() -> int:
        next_id[0] += 1
        return next_id[0]

    def device(name: str, role: str, dtype: str, platform: str | None) -> dict:
        did = len(devices) + 1
        item = {
            "id": did,
            "name": name,
            "display": name,
            "url": f"http://netbox/api/dcim/devices/{did}/",
            "role": {"id": 1, "name": role, "slug": role},
            "device_type": {"id": 1, "model": dtype.upper(), "slug": dtype},
            "platform": {"id": 1, "name": platform, "slug": platform} if platform else None,
            "primary_ip4": {"address": f"10.0.{did // 250}.{did % 250}/24"},
            "site": {"slug": "dc1"},
            "status": {"value": "active"},
            "tags": [],
            "custom_fields": {},
            "comments": "",
            "description": "",
        }
        devices.append(item)
        return item

    def interface(dev: dict, name: str) -> dict:
        iid = new_id()
        item = {
            "id": iid,
            "name": name,
            "display": name,
            "url": f"http://netbox/api/dcim/interfaces/{iid}/",
            "device": {
                "id": dev["id"],
                "name": dev["name"],
                "display": dev["name"],
                "url": dev["url"],
            },
            "type": {"value": "400gbase-x-osfp"},
            "enabled": True,
            "mtu": 9100,
            "speed": 400_000_000,
            "description": "",
            "mgmt_only": False,
            "cable": None,
            "_occupied": True,
        }
        interfaces.append(item)
        return item

    def cable(a: dict, b: dict, length: float) -> None:
        cid = new_id()
        ref = {
            "id": cid,
            "label": "",
            "display": f"#{cid}",
            "url": f"http://netbox/api/dcim/cables/{cid}/",
        }
        a["cable"], b["cable"] = ref, ref
        full = dict(
            ref,
            type="smf",
            status="connected",
            length=length,
            length_unit="m",
            color="",
            description="",
        )
        near = {k: a[k] for k in ("id", "name", "display", "url", "device", "cable", "_occupied")}
        far = {k: b[k] for k in ("id", "name", "display", "url", "device", "cable", "_occupied")}
        traces[a["id"]] = [[[near], full, [far]]]
        traces[b["id"]] = [[[far], full, [near]]]
        # NetBox lists the end of each interface's cable path with the interface
        a["connected_endpoints"], b["connected_endpoints"] = [far], [near]
        a["connected_endpoints_type"] = b["connected_endpoints_type"] = "dcim.interface"

    leaf_devs = [device(f"leaf{i + 1:03d}", "leaf", "sn5600", "sonic") for i in range(leaves)]
    spine_devs = [device(f"spine{i + 1:03d}", "spine", "sn5600", "sonic") for i in range(spines)]
    server_devs = [
        device(f"gpu{i + 1:04d}", "gpu-server", "dgx-h100", None) for i in range(servers)
    ]
    spine_port = [0] * spines
    for li, leaf in enumerate(leaf_devs):
        for p in range(32):  # GPU ports: NIC (li % 8) of 32 consecutive servers
            server = server_devs[(li // 8) * 32 + p]
            cable(interface(leaf, f"Ethernet{p * 4}"), interface(server, f"eth{li % 8}"), 3)
        for u in range(32):
            s = (li * 32 + u) % spines
            port = spine_port[s]
            spine_port[s] += 1
            cable(
                interface(leaf, f"Ethernet{128 + u * 4}"),
                interface(spine_devs[s], f"Ethernet{port * 4}"),
                30 + u,
            )
    return {"devices": devices, "interfaces": interfaces, "traces": traces}


def serve(data: dict, latency_s: float) -> tuple[ThreadingHTTPServer, list[int]]:
    count = [0]
    lock = threading.Lock()
    by_device: dict[int, list[dict]] = {}
    for item in data["interfaces"]:
        by_device.setdefault(item["device"]["id"], []).append(item)

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive, as NetBox behind nginx/gunicorn

        def setup(self):
            super().setup()  # no Nagle: headers and body go out at once, as from nginx
            self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

        def log_message(self, *args):
            pass

        def _send(self, code: int, body: object) -> None:
            raw = json.dumps(body).encode()
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("API-Version", "4.2")
            self.send_header("Content-Length", str(len(raw)))
            self.end_headers()
            self.wfile.write(raw)

        def _page(self, items: list, query: dict, path: str) -> dict:
            limit = min(int(query.get("limit", ["50"])[0]) or 1000, 1000)
            offset = int(query.get("offset", ["0"])[0])
            base = f"http://127.0.0.1:{self.server.server_port}"
            more = dict(query, limit=[str(limit)], offset=[str(offset + limit)])
            nxt = (
                f"{base}{path}?{urlencode(more, doseq=True)}"
                if offset + limit < len(items)
                else None
            )
            return {
                "count": len(items),
                "next": nxt,
                "previous": None,
                "results": items[offset : offset + limit],
            }

        def do_GET(self):
            with lock:
                count[0] += 1
            if latency_s:
                time.sleep(latency_s)
            if TOKEN not in self.headers.get("Authorization", ""):
                return self._send(403, {"detail": "Invalid token"})
            parts = urlsplit(self.path)
            query = parse_qs(parts.query)
            if parts.path == "/api/dcim/devices/":
                return self._send(200, self._page(data["devices"], query, parts.path))
            if parts.path == "/api/dcim/interfaces/":
                ids = [int(x) for x in query.get("device_id", [])]
                found = [i for d in ids for i in by_device.get(d, [])]
                return self._send(200, self._page(found, query, parts.path))
            if parts.path.startswith("/api/dcim/interfaces/") and parts.path.endswith("/trace/"):
                iid = int(parts.path.split("/")[4])
                if iid in data["traces"]:
                    return self._send(200, data["traces"][iid])
            return self._send(404, {"detail": "Not found."})

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, count


def run(url: str, out: Path) -> tuple[float, float, int, str]:
    env = dict(os.environ, NETBOX_TOKEN=TOKEN)
    argv = [
        sys.executable,
        "-m",
        "lossless",
        "import",
        "netbox",
        "--url",
        url,
        "--mapping",
        str(MAPPING),
        "-o",
        str(out),
    ]
    started = time.perf_counter()
    with tempfile.TemporaryFile() as err:
        child = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=err, env=env, cwd=REPO)
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - started
        err.seek(0)
        lines = err.read().decode("utf-8", "replace").strip().splitlines()
    return (
        wall,
        usage.ru_maxrss / 1024,
        os.waitstatus_to_exitcode(status),
        lines[-1] if lines else "",
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--links", default="512,2048")
    parser.add_argument("--latency-ms", default="0,1")
    parser.add_argument("--serve", type=int, help="only serve a fabric of this many links")
    options = parser.parse_args()
    if options.serve:
        server, _ = serve(fabric(options.serve), 0)
        print(f"http://127.0.0.1:{server.server_port}", flush=True)
        threading.Event().wait()
    print(
        f"{'links':>6} {'devices':>7} {'ifaces':>6} {'lat ms':>6} {'requests':>8} {'wall s':>7} "
        f"{'RSS MB':>7} {'ms/link':>7}  result"
    )
    with tempfile.TemporaryDirectory() as folder:
        for links in [int(x) for x in options.links.split(",")]:
            data = fabric(links)
            cables = len(data["traces"]) // 2
            for latency in [float(x) for x in options.latency_ms.split(",")]:
                server, count = serve(data, latency / 1000)
                out = Path(folder) / f"nb-{links}.yaml"
                wall, rss, code, last = run(f"http://127.0.0.1:{server.server_port}", out)
                server.shutdown()
                server.server_close()
                print(
                    f"{cables:>6} {len(data['devices']):>7} {len(data['interfaces']):>6} "
                    f"{latency:>6g} {count[0]:>8} {wall:>7.2f} {rss:>7.0f} "
                    f"{1000 * wall / cables:>7.2f}  rc={code} {last[:60]}",
                    flush=True,
                )


if __name__ == "__main__":
    main()
