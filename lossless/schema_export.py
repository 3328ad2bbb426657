"""`lossless schema`: print or export the JSON Schemas lossless ships.

Editors validate and complete an inventory from the schema a YAML file names on its first
line (`# yaml-language-server: $schema=<path or URL>`). A fabric repository keeps its own
copy, exported with `lossless schema inventory -o schemas/lossless-inventory.schema.json`,
and names that path. Each schema's `$id` stays the same across releases: tools that cache
by `$id` keep working.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from lossless.system.resources import resource_path
from lossless.system.writing import write_atomically

SCHEMAS = {"inventory": "inventory.schema.json", "plan": "plan.schema.json"}


def schema_text(name: str) -> str:
    return resource_path("schemas", SCHEMAS[name]).read_text()


def schema_command(args: argparse.Namespace) -> int:
    text = schema_text(args.name)
    if args.output in (None, "-"):
        sys.stdout.write(text)
        return 0
    target = Path(args.output)
    write_atomically(target.parent, {target.name: text})
    print(f"wrote {target} ({args.name} schema)")
    return 0
