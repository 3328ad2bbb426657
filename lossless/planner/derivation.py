"""How a number was computed: model, inputs, constants with sources, steps, rounding.

`lossless explain` prints these; the plan JSON carries them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Step:
    name: str
    formula: str  # the formula in symbols
    substituted: str  # the same formula with the values put in
    value: float
    unit: str


@dataclass
class Derivation:
    model: str
    source: str
    inputs: dict[str, Any] = field(default_factory=dict)
    constants: dict[str, tuple[Any, str]] = field(default_factory=dict)  # name -> (value, source)
    steps: list[Step] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def step(
        self, name: str, formula: str, substituted: str, value: float, unit: str = "B"
    ) -> float:
        self.steps.append(Step(name, formula, substituted, value, unit))
        return value

    def constant(self, name: str, value: Any, source: str) -> Any:
        self.constants[name] = (value, source)
        return value

    def to_dict(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "source": self.source,
            "inputs": self.inputs,
            "constants": {k: {"value": v, "source": s} for k, (v, s) in self.constants.items()},
            "steps": [
                {
                    "name": s.name,
                    "formula": s.formula,
                    "substituted": s.substituted,
                    "value": s.value,
                    "unit": s.unit,
                }
                for s in self.steps
            ],
            "notes": self.notes,
        }


def num(value: float) -> str:
    """A value as it reads in a formula: integers without .0, others to 6 significant digits."""
    if float(value).is_integer():
        return f"{int(value)}"
    return f"{value:.6g}"
