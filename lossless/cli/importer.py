"""`lossless import netbox|nautobot`: the inventory from a source of truth (docs/netbox.md).

Reads the fabric from NetBox (REST, pynetbox) or Nautobot (GraphQL), joins it with the mapping
file (what they cannot say: policy, ASIC, our roles) and writes our inventory YAML, loaded
through the inventory loader first so nothing invalid is written. `--check` writes nothing:
it compares the facts the import would write with the inventory file's and exits 1 listing
each device, port, NIC and link that differs (drift in CI). The API token is read from the
environment variable --token-env names, never from the command line, and never printed.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from lossless.cli.extras import require_extra
from lossless.cli.outputs import write_text
from lossless.errors import UsageError
from lossless.inventory import load_inventory
from lossless.model import Inventory
from lossless.text.grammar import first_few, plural
from lossless.text.printable import printable

if TYPE_CHECKING:
    from lossless.importers.inventory_yaml import Imported

SOURCES = {"netbox": "NetBox", "nautobot": "Nautobot"}


def import_command(args: argparse.Namespace) -> int:
    require_extra(
        "netbox",
        f"import {args.source} needs pynetbox and requests",
        ("requests", "pynetbox", "lossless.importers.netbox"),
    )
    from lossless.importers.inventory_yaml import (
        build_inventory,
        inventory_text,
        load_imported,
        mapping_shown,
    )
    from lossless.importers.mapping import load_mapping
    from lossless.importers.netbox import parse_filters
    from lossless.importers.session import http_session

    source = SOURCES[args.source]
    if args.retries < 0 or args.retries > 10 or args.timeout <= 0 or args.page_size < 1:
        raise UsageError("--retries takes 0 to 10, --timeout and --page-size more than 0")
    if args.check and args.output in (None, "-"):
        raise UsageError("--check compares with an inventory file: give it with -o FILE")
    _check_output(args.output, args.check)
    mapping = load_mapping(args.mapping)
    filters = parse_filters(args.filter)
    token_env = args.token_env or f"{args.source.upper()}_TOKEN"
    token = os.environ.get(token_env, "").strip()
    if not token:
        raise UsageError(
            f"set the {source} API token in the environment variable {token_env} "
            "(--token-env names it; a token is never taken from the command line)"
        )
    session = http_session(timeout=args.timeout, retries=args.retries)
    if args.source == "netbox":
        from lossless.importers.netbox import read_netbox

        data = read_netbox(args.url, token, filters, session, page_size=args.page_size)
    else:
        from lossless.importers.nautobot import read_nautobot

        data = read_nautobot(args.url, token, filters, session, page_size=args.page_size)
    if not data.devices:  # never an empty inventory: a scheduled sync would delete the fabric
        asked = " ".join(f"--filter {item}" for item in args.filter)
        raise UsageError(
            f"no devices in {source} match {asked}" if asked else f"{source} holds no devices"
        )
    built = build_inventory(data, mapping, mapping_shown(args.mapping, args.output))
    text = inventory_text(built)
    imported = load_imported(built, text)
    for note in data.notes:
        print(printable(f"lossless import: {note}"), file=sys.stderr)
    if args.check:
        return _check(imported, args.output, source, built.absent)
    _refuse_removal(built, imported, args.output, args.allow_removal)
    target = write_text(args.output, text)
    if target is not None:
        print(printable(f"wrote {target} ({imported.summary()}, from {source})"))
    return 0


def _check_output(output: str | None, check: bool) -> None:
    """-o must name a file (in a folder that exists), checked before any request."""
    if output in (None, "-"):
        return
    target = Path(output)
    if target.is_dir():
        raise UsageError(f"-o {output}: is a folder; give the inventory file to write")
    if not check and not target.parent.is_dir():
        raise UsageError(f"-o {output}: the folder {target.parent} does not exist")


def _refuse_removal(
    built: Imported, imported: Inventory, output: str | None, allowed: bool
) -> None:
    """An import that would remove ports or links of the inventory only because their peers
    are left out (--filter role=leaf) is refused unless --allow-removal: a scheduled sync
    would otherwise open a pull request deleting every link of the fabric."""
    from lossless.importers.inventory_yaml import removed_outside

    if allowed or output in (None, "-") or not Path(output).is_file():
        return
    removed = removed_outside(built, imported, load_inventory(output))
    if removed:
        count = plural(len(removed), "port, NIC or link", "ports, NICs and links")
        raise UsageError(
            f"{output}: the import would remove {count} whose other end it leaves out "
            f"(--filter, the mapping's device_roles): {first_few(removed, 5)}. Nothing "
            "written; import their peers too, or give --allow-removal"
        )


def _check(imported: Inventory, output: str, source: str, absent: dict[str, str]) -> int:
    """Exit 1 listing what differs between the facts imported and the inventory file's."""
    from lossless.importers.inventory_yaml import drift

    if not Path(output).is_file():
        raise UsageError(f"--check: {output} is not a file")
    lines = drift(imported, load_inventory(output), source, absent)
    for line in lines:
        print(printable(line))
    if lines:
        print(printable(f"{output}: {plural(len(lines), 'difference')} with {source}"))
        return 1
    print(printable(f"{output}: the same facts as {source}"))
    return 0
