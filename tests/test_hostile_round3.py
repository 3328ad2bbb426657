"""Issue 35, written as the attacker would: a switch answer holding a 5,000-digit integer
(verify and push --gate), a failed command's stderr of megabytes (verify), and NetBox or
Nautobot answers that try to take the token elsewhere, loop, drip, swell, nest or quote the
token back (import)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import INVENTORIES
from test_push_gate import _data, _devices, _lab, _push
from verify_recordings import VERIFY_DATA

LAB = str(INVENTORIES / "lab.yaml")
BEFORE, AFTER = VERIFY_DATA / "lab" / "before", VERIFY_DATA / "lab" / "after"
HUGE = "9" * 5000  # json.loads raises ValueError for it (int max str digits, 4,300)


def _with_huge_integer(path: Path) -> None:
    """The output with a 5,000-digit integer as its first member (still valid JSON)."""
    text = path.read_text()
    start = text.index("{") + 1
    path.write_text(f'{text[:start]}"x": {HUGE}, {text[start:]}')


def _verify(run, state: Path):
    return run(
        "verify", LAB, "--state", str(state), "--baseline", str(BEFORE), "--format", "json"
    )  # fmt: skip


def _copy(tmp_path: Path) -> Path:
    state = tmp_path / "state"
    shutil.copytree(AFTER, state)
    return state


# -- item 4: an integer of 5,000 digits in one switch's answer ----------------------------


def _others(result, device: str) -> list[tuple[str, str, str]]:
    findings = json.loads(result.out)
    return sorted((f["rule"], f["device"], f["message"]) for f in findings if f["device"] != device)


def test_a_huge_integer_makes_that_switch_unreadable_and_the_others_judged(run, tmp_path):
    state = _copy(tmp_path)
    clean = _verify(run, state)
    counters = state / "leaf1" / "counters.json"
    _with_huge_integer(counters)
    result = _verify(run, state)
    assert result.code == 1, result.err  # not 3 (internal error)
    findings = json.loads(result.out)
    [unread] = [f for f in findings if f["severity"] == "error"]
    assert unread["rule"] == "LL310" and unread["device"] == "leaf1"
    assert f"{counters}:1:7: an integer of more than 4,300 digits" in unread["message"]
    assert HUGE[:50] not in result.out + result.err
    assert _others(result, "leaf1") == _others(clean, "leaf1")  # the other five judged


def test_a_huge_integer_after_a_push_fails_the_gate_and_rolls_back(run, tmp_path):
    root = _lab(tmp_path)
    for reading in (1, 2, 3):
        for output in (root / "leaf3" / f"state-{reading}").iterdir():
            _with_huge_integer(output)
    result = _push(run, root, "--rollback-on-gate-failure")
    assert result.code == 1, result.err
    order = _data(result)["order"]
    [gate] = [g for g in order["gates"] if "leaf3" in g["devices"]]
    assert gate["passed"] is False
    assert any(
        e["rule"] == "LL310" and e["device"] == "leaf3" and "4,300 digits" in e["message"]
        for e in gate["errors"]
    )
    assert _devices(result)["leaf3"]["status"] == "rolled-back"


# -- item 5: a failed command's stderr larger than the part quoted ------------------------


def test_a_long_error_output_is_quoted_for_its_switch_and_the_others_judged(run, tmp_path):
    state = _copy(tmp_path)
    (state / "spine2" / "counters.json").unlink()
    (state / "spine2" / "counters.err").write_bytes(
        b"\nError: Could not connect to Redis\n" + b"x" * (8 * 2**20)
    )
    result = _verify(run, state)
    assert result.code == 0, result.err  # was exit 2: "error output is larger than 0 MiB"
    assert _others(result, "spine2") == _others(_verify(run, _copy(tmp_path / "clean")), "spine2")
    [counters] = [
        f["message"]
        for f in json.loads(result.out)
        if f["device"] == "spine2" and "COUNTERS_DB" in f["message"]
    ]
    assert "not collected; it failed: Error: Could not connect to Redis" in counters
    assert "xxx" not in counters


def test_a_long_first_line_is_cut_where_the_quote_ends(run, tmp_path):
    state = _copy(tmp_path)
    (state / "spine2" / "counters.json").unlink()
    (state / "spine2" / "counters.err").write_text("E" * 10_000)
    result = _verify(run, state)
    assert result.code == 0, result.err
    assert f"it failed: {'E' * 160}..." in result.out


@pytest.mark.parametrize(("limit", "said"), [(64, "64 bytes"), (4096, "4 KiB"), (2**26, "64 MiB")])
def test_a_size_limit_is_said_in_the_unit_it_was_chosen_in(tmp_path, limit, said):
    from lossless.errors import InputError
    from lossless.system.files import read_bounded

    path = tmp_path / "big"
    path.write_bytes(b"x" * (limit + 1))
    with pytest.raises(InputError) as error:
        read_bounded(path, "timestamp", limit)
    assert f"timestamp is larger than {said}" in str(error.value.problems[0].message)


def test_json_python_will_not_read_is_a_value_error_at_its_place():
    from lossless.text.json_read import UnreadableJSON, loads

    with pytest.raises(UnreadableJSON) as error:  # the digits in a string are not the number
        loads('{"a": "' + HUGE + '",\n "b": -' + HUGE + "}")
    assert (error.value.line, error.value.column) == (2, 7)
    with pytest.raises(UnreadableJSON, match="nested deeper than lossless reads"):
        loads("[" * 100_000 + "]" * 100_000)
    with pytest.raises(json.JSONDecodeError):
        loads("{")
