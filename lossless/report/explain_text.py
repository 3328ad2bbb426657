"""`lossless explain`: a derivation as inputs, constants with sources, and steps."""

from __future__ import annotations

from typing import Any

from lossless.planner.derivation import num


def _value(value: Any) -> str:
    return (
        num(value) if isinstance(value, int | float) and not isinstance(value, bool) else str(value)
    )


def derivation_lines(title: str, derivation: dict[str, Any]) -> list[str]:
    lines = [title, f"  model:  {derivation['model']}", f"  source: {derivation['source']}"]
    if derivation["inputs"]:
        lines.append("  inputs:")
        lines += [f"    {name} = {_value(value)}" for name, value in derivation["inputs"].items()]
    if derivation["constants"]:
        lines.append("  constants:")
        lines += [
            f"    {name} = {_value(c['value'])}    [{c['source']}]"
            for name, c in derivation["constants"].items()
        ]
    lines.append("  steps:")
    for step in derivation["steps"]:
        unit = f" {step['unit']}" if step["unit"] else ""
        lines.append(f"    {step['name']} = {step['formula']}")
        lines.append(f"      = {step['substituted']} = {_value(step['value'])}{unit}")
    lines += [f"  note: {note}" for note in derivation["notes"]]
    return lines
