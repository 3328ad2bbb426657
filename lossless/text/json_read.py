"""JSON from outside (a switch's show output, a NetBox or Nautobot answer) read by one rule:
what json.loads cannot read is a ValueError naming where, never another exception.

Valid JSON that Python still refuses comes in two kinds, both reachable by whoever writes
the text: nesting deeper than the interpreter's recursion limit (json.loads raises
RecursionError) and an integer with more digits than int() converts (Python 3.11+ refuses
more than sys.get_int_max_str_digits(), 4,300 by default, against quadratic conversion:
json.loads raises a plain ValueError, not JSONDecodeError). No counter or identifier comes
near either limit.
"""

from __future__ import annotations

import json
import re
import sys
from typing import Any


class UnreadableJSON(ValueError):
    """Valid JSON that Python will not read; line and column are 1-based."""

    def __init__(self, reason: str, line: int = 1, column: int = 1):
        super().__init__(reason)
        self.reason, self.line, self.column = reason, line, column


def loads(text: str) -> Any:
    """json.loads(text); JSONDecodeError for text that is not JSON, UnreadableJSON for JSON
    nested too deep or holding an integer too long to read."""
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        raise
    except RecursionError:
        raise UnreadableJSON("JSON nested deeper than lossless reads") from None
    except ValueError:  # the only other one json.loads raises: int()'s digit limit
        limit = sys.get_int_max_str_digits()
        offset = _long_integer(text, limit)
        line = text.count("\n", 0, offset) + 1
        column = offset - text.rfind("\n", 0, offset)
        raise UnreadableJSON(f"an integer of more than {limit:,} digits", line, column) from None


def _long_integer(text: str, limit: int) -> int:
    """Where the first integer of more than `limit` digits outside a string starts."""
    pattern = re.compile(r'"(?:[^"\\]|\\.)*"|-?\d{' + str(limit + 1) + ",}")
    for match in pattern.finditer(text):
        if match.group()[0] != '"':
            return match.start()
    return 0
