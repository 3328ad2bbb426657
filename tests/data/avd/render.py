"""Render tests/data/avd/<name>.cfg from inputs.yaml with AVD's eos_cli_config_gen templates.

Run with pyavd 6.4.0 (PyPI, Apache-2.0) in a throwaway venv, never as a lossless dependency:
    python3 -m venv /tmp/avd && /tmp/avd/bin/pip install pyavd==6.4.0 pyyaml
    /tmp/avd/bin/python tests/data/avd/render.py
Every input is validated against AVD's schema first (pyavd.validate_structured_config).
"""

from __future__ import annotations

import copy
from pathlib import Path

import pyavd
import yaml

HERE = Path(__file__).parent
VERSION = "6.4.0"


def changed(base: dict, changes: dict) -> dict:
    """base with each `a/b/0/c: value` set (None: the key removed)."""
    config = copy.deepcopy(base)
    for path, value in changes.items():
        *parents, last = path.split("/")
        node = config
        for part in parents:
            node = node[int(part)] if part.isdigit() else node[part]
        key = int(last) if last.isdigit() else last
        if value is None:
            del node[key]
        else:
            node[key] = value
    return config


def render(name: str, config: dict) -> None:
    result = pyavd.validate_structured_config(config)
    if result.validated_data is None:  # invalid per AVD's schema
        raise SystemExit(f"{name}: {result.validation_result}")
    (HERE / f"{name}.cfg").write_text(pyavd.get_device_config(result.validated_data))


def main() -> None:
    assert pyavd.__version__ == VERSION, pyavd.__version__
    inputs = yaml.safe_load((HERE / "inputs.yaml").read_text())
    render("clean", inputs["base"])
    for name, changes in inputs["variants"].items():
        render(name, changed(inputs["base"], changes))


if __name__ == "__main__":
    main()
