"""The layout's one-way rule (docs/architecture.md), checked from the code's own imports:
every import statement of every module (at the top and inside functions) and the imports
made by name (the vendor table, each OS's parser and differ, the CLI's command table). No
module imports one of a layer above it, and no imports run in a circle. Every module imports
in a fresh interpreter."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from collections.abc import Iterator
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

from conftest import REPO

PACKAGE = REPO / "lossless"

# Bottom (0) to top. A module is in the layer of the longest name here that it starts with.
LAYERS = {
    # text and number formatting; files, worker processes, memory, shipped data; errors
    "lossless": 0,
    "lossless.errors": 0,
    "lossless.text": 0,
    "lossless.system": 0,
    # what the user wrote, validated; the plan's shape; the ASIC catalogue
    "lossless.inventory": 1,
    "lossless.model": 1,
    "lossless.plan": 1,
    "lossless.observed": 1,
    "lossless.asics": 1,
    # the numbers
    "lossless.planner": 2,
    "lossless.hosts.plan": 2,  # the host end's plan: the planner plans NICs with switches
    # the edge: switch OSes and NIC vendors
    "lossless.vendors": 3,
    "lossless.hosts": 3,
    # judging, reporting and deploying plans
    "lossless.lint": 4,
    "lossless.hosts.rules": 4,  # the host rules and host-state lint are lint
    "lossless.hosts.state": 4,
    "lossless.report": 4,
    "lossless.verify": 4,
    "lossless.deploy": 4,
    "lossless.importers": 4,  # NetBox/Nautobot -> inventory YAML, loaded through inventory/
    "lossless.simulate": 4,  # one port under incast in time, from a plan
    # the command line
    "lossless.cli": 5,
    "lossless.__main__": 5,
}


def _modules() -> dict[str, Path]:
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        name = ".".join(path.relative_to(REPO).with_suffix("").parts)
        found[name.removesuffix(".__init__")] = path
    return found


MODULES = _modules()


def layer(module: str) -> int:
    parts = module.split(".")
    for end in range(len(parts), 0, -1):
        prefix = ".".join(parts[:end])
        if prefix in LAYERS:
            return LAYERS[prefix]
    raise KeyError(f"{module} is in no layer: add its folder to LAYERS")


def _imported(module: str, node: ast.Import | ast.ImportFrom) -> Iterator[str]:
    """The lossless modules an import statement of `module` imports."""
    if isinstance(node, ast.Import):
        names = [alias.name for alias in node.names]
    else:
        base = node.module or ""
        if node.level:
            parts = module.split(".")
            package = MODULES[module].name == "__init__.py"
            parts = parts[: len(parts) - node.level + package]
            base = ".".join([*parts, base] if base else parts)
        names = [base, *(f"{base}.{alias.name}" for alias in node.names)]
    for name in names:
        while name and name not in MODULES:
            name = name.rpartition(".")[0]
        # a module's own package is imported before it anyway: not an edge
        if name and name != module and not module.startswith(name + "."):
            yield name


def _by_name() -> dict[str, set[str]]:
    """Imports made by name, read from the tables that hold the names."""
    from lossless.cli.main import COMMANDS
    from lossless.vendors.registry import PACKAGES, vendor_for

    edges: dict[str, set[str]] = {"lossless.vendors.registry": set(PACKAGES.values())}
    for os_name, package in PACKAGES.items():
        vendor = vendor_for(os_name)
        edges[package] = {vendor.parser, vendor.differ}
    edges["lossless.cli.main"] = {f"lossless.cli.{module}" for module, _ in COMMANDS.values()}
    return edges


def import_graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {name: set() for name in MODULES}
    for name, path in MODULES.items():
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import | ast.ImportFrom):
                graph[name].update(_imported(name, node))
    for name, imported in _by_name().items():
        assert imported <= MODULES.keys(), f"{name} names a module that is not there"
        graph[name] |= imported
    return graph


def circle(graph: dict[str, set[str]]) -> list[str]:
    """A circle of imports in the graph (the stdlib's topological sort finds one), or []."""
    try:
        TopologicalSorter(graph).prepare()
    except CycleError as error:
        found: list[str] = error.args[1]
        return found
    return []


GRAPH = import_graph()


def test_every_module_has_a_layer():
    for name in MODULES:
        layer(name)


def upward(graph: dict[str, set[str]]) -> list[str]:
    return [
        f"{name} (layer {layer(name)}) imports {imported} (layer {layer(imported)})"
        for name, imports in sorted(graph.items())
        for imported in sorted(imports)
        if layer(imported) > layer(name)
    ]


def test_no_module_imports_a_layer_above_it():
    assert upward(GRAPH) == []


def test_no_import_circles():
    assert circle(GRAPH) == []


def test_the_checks_see_a_circle_and_an_upward_import():
    """The checks themselves: a circle and an upward import added to the real graph."""
    graph = {name: set(imports) for name, imports in GRAPH.items()}
    graph["lossless.plan"].add("lossless.planner.fabric")  # planner.fabric imports plan
    assert {"lossless.plan", "lossless.planner.fabric"} <= set(circle(graph))
    assert upward(graph) == ["lossless.plan (layer 1) imports lossless.planner.fabric (layer 2)"]
    graph = {name: set(imports) for name, imports in GRAPH.items()}
    graph["lossless.hosts.plan"].add("lossless.hosts.render")  # a slice's own layers hold too
    assert upward(graph) == [
        "lossless.hosts.plan (layer 2) imports lossless.hosts.render (layer 3)"
    ]


def test_folders_import_nothing_on_their_own():
    """Importing one module of a folder never drags in its siblings: a folder's __init__
    imports nothing, an OS package's only its renderer and the Vendor it fills in (and names
    its parser and differ)."""
    from lossless.vendors.registry import PACKAGES, vendor_for

    for name, path in MODULES.items():
        if path.name == "__init__.py" and name not in (*PACKAGES.values(), *CODE_IN_INIT):
            assert GRAPH[name] == set(), name
    for os_name, package in PACKAGES.items():
        vendor = vendor_for(os_name)
        expected = {f"{package}.render", "lossless.vendors.vendor", vendor.parser, vendor.differ}
        assert GRAPH[package] == expected


# Packages whose __init__ is their code: loading an inventory, the ASIC catalogue.
CODE_IN_INIT = ("lossless.inventory", "lossless.asics")


def test_every_module_imports_in_a_fresh_interpreter():
    code = (
        "import importlib, json, sys\n"
        f"names = {sorted(n for n in MODULES if n != 'lossless.__main__')!r}\n"
        "failed = {}\n"
        "for name in names:\n"
        "    try:\n"
        "        importlib.import_module(name)\n"
        "    except Exception as error:\n"
        "        failed[name] = repr(error)\n"
        "print(json.dumps(failed))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, check=True
    )
    assert json.loads(done.stdout.strip().splitlines()[-1]) == {}
