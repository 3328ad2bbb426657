"""`lossless validate` (check an inventory, print a summary) and `lossless schema` (print or
export the JSON Schemas: editors validate and complete an inventory from the schema a YAML
file names on its first line, `# yaml-language-server: $schema=<path or URL>`; a fabric
repository keeps its own copy, `lossless schema inventory -o schemas/...`)."""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict

from lossless.cli.inputs import inventory_path, load
from lossless.cli.outputs import write_text
from lossless.errors import InputError
from lossless.system.resources import schema_text
from lossless.text.printable import printable


def validate_command(args: argparse.Namespace) -> int:
    path = inventory_path(args, "validate")
    if args.format == "text":
        inventory = load(args, "validate")
        print("OK")
        print(inventory.summary())
        return 0
    try:
        inventory = load(args, "validate")
    except InputError as error:
        problems = [asdict(problem) for problem in error.problems]
        print(json.dumps({"inventory": path, "valid": False, "problems": problems}, indent=2))
        return 2
    record = {
        "inventory": path,
        "valid": True,
        "fabric": inventory.fabric_name,
        **{f"{noun.lower()}s": count for noun, count in inventory.counts().items()},
    }
    print(json.dumps(record, indent=2))
    return 0


def schema_command(args: argparse.Namespace) -> int:
    text = schema_text(args.name)
    target = write_text(args.output, text)
    if target is not None:
        print(printable(f"wrote {target} ({args.name} schema)"))
    return 0
