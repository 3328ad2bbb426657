#!/usr/bin/env python3
"""Synthesize a clean saved state (what the collection script leaves: DIR/<device>/<stem>.out
and collected-at) for every device of an inventory, from the lab recordings in
tests/data/verify/lab/<before|after>: each planned port gets a copy of a lab port of the same
OS and the same kind (server-facing or switch-facing), renamed; the per-port sections grow
to the device's port count. Formatting (indent) follows each OS's recordings.

Usage (from the repository root, or anywhere):
    python3 benchmarks/verify_state.py INVENTORY OUTDIR [--from after|before]
"""

from __future__ import annotations

import copy
import json
import re
import shutil
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from lossless.inventory import load_inventory  # noqa: E402
from lossless.planner.fabric import plan_fabric  # noqa: E402
from lossless.verify.collect import COLLECTED_AT, commands, file_stem  # noqa: E402

LAB = REPO / "tests" / "data" / "verify" / "lab"
# os -> (lab device, template port for a server-facing port, for a switch-facing port)
TEMPLATES = {
    "sonic": ("leaf1", "Ethernet0", "Ethernet248"),
    "cumulus": ("leaf2", "swp1", "swp31"),
    "eos": ("spine1", "Ethernet1/1", "Ethernet2/1"),
    "nxos": ("leaf3", "Ethernet1/1", "Ethernet1/31"),
    "junos": ("leaf4", "et-0/0/0", "et-0/0/30"),
}
INDENT = {"sonic": 2, "cumulus": 2, "eos": 4, "nxos": None, "junos": 4}
_PORTLIKE = re.compile(
    r"^(Ethernet[0-9/]+|swp[0-9]+|et-[0-9/]+|Management[0-9]+|mgmt[0-9]+|em[0-9]+)"
)


def _rename(obj, old: str, new: str):
    if isinstance(obj, str):
        if obj == old:
            return new
        for sep in (" ", ".", ":"):
            if obj.startswith(old + sep):
                return new + obj[len(old) :]
        return obj
    if isinstance(obj, dict):
        return {_rename(k, old, new): _rename(v, old, new) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_rename(v, old, new) for v in obj]
    return obj


def _row_port(row) -> str | None:
    """The port a list row is about (its first port-like identifying value)."""
    if not isinstance(row, dict):
        return None
    for value in row.values():
        if isinstance(value, list) and value and isinstance(value[0], dict) and "data" in value[0]:
            value = value[0]["data"]
        if isinstance(value, str):
            match = _PORTLIKE.match(value)
            if match and (len(value) == match.end() or value[match.end()] in " .:"):
                return match.group(1)
    return None


def _expand(obj, mapping: dict[str, str], drop: set[str]):
    """mapping: planned port -> template port. Dicts keyed by ports and lists of port rows
    get one copy of the template's entry per planned port (ports in drop removed)."""
    if isinstance(obj, dict):
        templates = set(mapping.values())
        if templates & set(obj):
            out = {k: v for k, v in obj.items() if k not in drop}
            for port, tmpl in mapping.items():
                out[port] = _rename(copy.deepcopy(obj[tmpl]), tmpl, port)
            return out
        return {k: _expand(v, mapping, drop) for k, v in obj.items()}
    if isinstance(obj, list):
        ports = [_row_port(r) for r in obj]
        if any(p in set(mapping.values()) for p in ports):
            out = [r for r, p in zip(obj, ports, strict=True) if p not in drop]
            by_port: dict[str, list] = {}
            for r, p in zip(obj, ports, strict=True):
                if p is not None:
                    by_port.setdefault(p, []).append(r)
            for port, tmpl in mapping.items():
                out.extend(_rename(copy.deepcopy(r), tmpl, port) for r in by_port[tmpl])
            return out
        return [_expand(v, mapping, drop) for v in obj]
    return obj


def _sonic(src: Path, mapping: dict[str, str], drop: set[str]) -> dict[str, dict]:
    table = json.loads((src / "port_table.json").read_text())
    qos = json.loads((src / "port_qos_map.json").read_text())
    counters = json.loads((src / "counters.json").read_text())
    new_table = {k: v for k, v in table.items() if k.removeprefix("PORT_TABLE:") not in drop}
    new_qos = {k: v for k, v in qos.items() if k.removeprefix("PORT_QOS_MAP|") not in drop}
    maps = {m: counters[m]["value"] for m in counters if m.endswith("_NAME_MAP")}
    old_maps = copy.deepcopy(maps)
    for m in maps:
        maps[m] = {k: v for k, v in maps[m].items() if k.split(":")[0] not in drop}
    new_counters = {k: v for k, v in counters.items() if k.endswith("_NAME_MAP")}
    used = set(maps["COUNTERS_PORT_NAME_MAP"].values())
    for m in maps.values():
        used |= set(m.values())
    next_oid = [0x7F00000000000]

    def oid() -> str:
        next_oid[0] += 1
        return f"oid:0x{next_oid[0]:x}"

    for index, (port, tmpl) in enumerate(mapping.items()):
        entry = copy.deepcopy(table[f"PORT_TABLE:{tmpl}"])
        entry["value"]["alias"] = f"etp{index + 1}x"
        new_table[f"PORT_TABLE:{port}"] = entry
        new_qos[f"PORT_QOS_MAP|{port}"] = copy.deepcopy(qos[f"PORT_QOS_MAP|{tmpl}"])
        for m, old in old_maps.items():
            for key, old_oid in old.items():
                name, _, index_ = (
                    key.rpartition(":") if m != "COUNTERS_PORT_NAME_MAP" else (key, "", "")
                )
                if name != tmpl:
                    continue
                new = oid()
                maps[m][f"{port}:{index_}" if index_ else port] = new
                new_counters[f"COUNTERS:{new}"] = copy.deepcopy(counters[f"COUNTERS:{old_oid}"])
    # keep the counters of the ports left (outside the plan)
    for m, values in maps.items():
        for value in values.values():
            if f"COUNTERS:{value}" in counters:
                new_counters.setdefault(f"COUNTERS:{value}", counters[f"COUNTERS:{value}"])
        new_counters[m] = {"type": "hash", "value": values}
    return {"port_table": new_table, "port_qos_map": new_qos, "counters": new_counters}


def generate(inventory: Path, out: Path, which: str = "after") -> dict[str, int]:
    plan = plan_fabric(load_inventory(inventory))
    lab_plan = plan_fabric(load_inventory(REPO / "inventories" / "lab.yaml"))
    src_root = LAB / which
    out.mkdir(parents=True, exist_ok=True)
    cache: dict[tuple, dict[str, str]] = {}
    stats = {"devices": 0, "files": 0, "bytes": 0}
    for name, device in plan.devices.items():
        if device.os not in TEMPLATES:
            continue
        lab_device, server, switch = TEMPLATES[device.os]
        src = src_root / lab_device
        mapping = {
            p: (server if port.peer_kind == "server" else switch)
            for p, port in device.ports.items()
        }
        drop = set(lab_plan.devices[lab_device].ports) | set(mapping)
        key = (device.os, tuple(mapping.items()))
        if key not in cache:
            if device.os == "sonic":
                trees = _sonic(src, mapping, drop)
            elif device.os == "cumulus":
                trees = {}
                for port, tmpl in mapping.items():
                    for what in ("link", "roce", "qos-counters", "pfc-watchdog"):
                        data = json.loads((src / f"{what}-{tmpl}.json").read_text())
                        trees[f"{what}-{port}"] = _rename(data, tmpl, port)
            else:
                trees = {
                    stem: _expand(json.loads((src / f"{stem}.json").read_text()), mapping, drop)
                    for stem in commands(device)
                }
            indent = INDENT[device.os]
            cache[key] = {
                stem: json.dumps(tree, indent=indent, sort_keys=device.os == "sonic")
                for stem, tree in trees.items()
            }
        folder = out / name
        folder.mkdir(exist_ok=True)
        for stem, text in cache[key].items():
            (folder / f"{file_stem(stem)}.out").write_text(text)
            stats["files"] += 1
            stats["bytes"] += len(text)
        shutil.copy(src / COLLECTED_AT, folder / COLLECTED_AT)
        stats["devices"] += 1
    return stats


if __name__ == "__main__":
    args = sys.argv[1:]
    which = "after"
    if "--from" in args:
        i = args.index("--from")
        which = args[i + 1]
        del args[i : i + 2]
    print(generate(Path(args[0]), Path(args[1]), which))
