"""Find the data shipped with lossless: templates/ and schemas/.

In a wheel they sit inside the package (lossless/_data/...); in a source checkout or an
editable install they are the top-level folders of the repository.
"""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent.parent  # lossless/


def resource_path(kind: str, *parts: str) -> Path:
    for base in (_PACKAGE / "_data" / kind, _PACKAGE.parent / kind):
        if base.is_dir():
            return base.joinpath(*parts)
    raise FileNotFoundError(f"lossless data folder {kind!r} is missing from the installation")


# The JSON Schemas lossless ships, by the name `lossless schema` takes. Each schema's `$id`
# stays the same across releases: tools that cache by `$id` keep working.
SCHEMAS = {"inventory": "inventory.schema.json", "plan": "plan.schema.json"}


def schema_text(name: str) -> str:
    return resource_path("schemas", SCHEMAS[name]).read_text()
