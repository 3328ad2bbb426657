"""Seeded fuzzing: broken and hostile inventories and configs never crash lossless.

Mutated example inventories (inventories/*.yaml) go through validate, plan and render;
mutated rendered configs of every OS (golden/lab/*) through lint --config, lint --configs
and diff --running. Every run must exit 0, 1 or 2, print no traceback, and finish within
CASE_SECONDS (enforced by an alarm, so a hang fails the case instead of the suite).
The seed is fixed: a failure names its case id and replays the same way.
"""

from __future__ import annotations

import contextlib
import copy
import functools
import io
import json
import os
import random
import re
import shutil
import signal
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import pytest
import responses
from conftest import EXAMPLES, REPO, walk
from ruamel.yaml import YAML

from lossless.cli.main import main
from lossless.vendors.junos.statements import read as read_junos

SEED = 20_250_909
# LOSSLESS_FUZZ_SCALE=20 runs twenty times as many cases (a deeper search, by hand).
SCALE = int(os.environ.get("LOSSLESS_FUZZ_SCALE", "1"))
# Cases per example inventory. Valid mutants of the lab (every OS) are planned and rendered
# too; the pod's (2,048 GPUs, slower to check) are validated only.
INVENTORY_CASES = {"lab": 40 * SCALE, "pod-2048": 20 * SCALE}
RENDERED = {"lab"}
CONFIG_CASES = 25 * SCALE  # per rendered config
CASE_SECONDS = 20  # generous: a loaded CI machine; a real case takes well under a second
LAB = REPO / "inventories" / "lab.yaml"
GOLDEN = REPO / "golden" / "lab"
CONFIGS = {  # rendered config -> its OS
    "leaf1.json": "sonic",
    "leaf2.yaml": "cumulus",
    "leaf3.cfg": "nxos",
    "leaf4.conf": "junos",
    "spine1.cfg": "eos",
    "spine2.json": "sonic",
}

# Values a hostile or careless author writes where something else is expected.
HOSTILE_VALUES: list[Any] = [
    -1,
    0,
    1,
    7,
    65536,
    2**63,
    -(2**63),
    1e308,
    0.5,
    "nan",
    ".inf",
    "",
    " ",
    "x" * 300,
    "../../../tmp/pwned",
    "a/b",
    ".hidden",
    "[0:99999999]",
    "Ethernet[0:100000000]",
    "leaf[1:2]:Ethernet[0:99999999]",
    "400Q",
    "99999999999999999999T",
    *[  # free text that would be syntax somewhere: configs, scripts, YAML, terminals, CI logs
        "uplink\nusername evil privilege 15 secret 0 x",
        'x"; } system { login { user evil; } } x {',
        "a\rb",
        "\x1b[2J\x1b]0;pwned\x07",
        "::error::pwned",
        "eth0\n",
        "-eth0",
        "\u202eevil",
    ],
    True,
    None,
    [],
    {},
    [1, [2, [3]]],
    {"a": {"b": {}}},
]
# Text a mutation splices into a YAML or config file.
HOSTILE_TEXT = [
    "!!int abc",
    "!!timestamp x",
    "!custom x",
    "!!python/name:os.system",
    "!!binary aGVsbG8=",
    "*undefined",
    "&a [*a, *a]",
    "{",
    "]",
    "}",
    "\t",
    "\x00",
    "\ufeff",
    "\udcff",
    "<<: 5",
    "? [a]\n: b",
    "%YAML 1.1",
    "---",
    "...",
    "[" * 200,
    "{" * 200,
    '"unterminated',
    "interface Ethernet1/1",
    "  mtu 99999999999999999999",
    "class-map type qos match-any x",
    "set class-of-service interfaces",
    "nv set qos",
    '"PORT": {"Ethernet0": 5}',
    "-1",
    "abc",
    "\x1b[31m",
    "\r\n::add-mask::x",
    "description uplink\n  username evil",
    '"; } system {',
]


# -- running one command --------------------------------------------------------------------


class _TimedOut(Exception):
    pass


def _alarm(_signum, _frame):
    raise _TimedOut()


def _run(*argv: str) -> tuple[int, str]:
    """main(argv) in-process: the exit code and all it printed."""
    out, err = io.StringIO(), io.StringIO()
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(CASE_SECONDS)
    started = time.perf_counter()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(list(argv))
    except _TimedOut:
        pytest.fail(f"{' '.join(argv)}: still running after {CASE_SECONDS} s")
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    printed = out.getvalue() + err.getvalue()
    assert time.perf_counter() - started < CASE_SECONDS
    assert code in (0, 1, 2), f"{' '.join(argv)}: exit {code}\n{printed[-2000:]}"
    assert "Traceback" not in printed, printed[-2000:]
    return code, printed


# -- mutations ------------------------------------------------------------------------------


def _replace_node(rng: random.Random, data: Any) -> Any:
    """One node (not the root) becomes a hostile value, loses a key, or gains a twin."""
    paths = [path for path, _ in walk(data) if path]
    if not paths:  # an earlier mutation left nothing but the root
        return data
    path = rng.choice(paths)
    parent = data
    for part in path[:-1]:
        parent = parent[part]
    action = rng.random()
    if action < 0.6:  # a copy: a later mutation must not change the shared constant
        parent[path[-1]] = copy.deepcopy(rng.choice(HOSTILE_VALUES))
    elif action < 0.8 and isinstance(parent, dict):
        del parent[path[-1]]
    elif isinstance(parent, dict):
        parent[str(rng.choice(HOSTILE_VALUES))] = parent[path[-1]]  # renamed copy
    else:
        parent.append(copy.deepcopy(parent[path[-1]]))
    return data


def _lines(text: str) -> list[str]:
    return text.split("\n")


def _mutate_text(rng: random.Random, text: str) -> str:
    """A text-level accident: lines dropped, repeated (whole sections too), swapped, cut off,
    numbers and words replaced, hostile text spliced in."""
    lines = _lines(text)
    i, j = sorted(rng.randrange(len(lines)) for _ in range(2))
    action = rng.randrange(8)
    if action == 0:
        del lines[i : j + 1]
    elif action == 1:
        lines[j + 1 : j + 1] = lines[i : j + 1]  # a repeated block: repeated sections
    elif action == 2:
        lines[i], lines[j] = lines[j], lines[i]
    elif action == 3:
        return text[: rng.randrange(len(text))]
    elif action == 4:
        numbers = list(re.finditer(r"\d+", text))
        if numbers:
            match = rng.choice(numbers)
            value = str(rng.choice(HOSTILE_VALUES))
            return text[: match.start()] + value + text[match.end() :]
    elif action == 5:
        words = re.findall(r"[A-Za-z_-]{3,}", text)
        if words:
            return text.replace(rng.choice(words), rng.choice(words), 1)
    elif action == 6:
        position = rng.randrange(len(text))
        return text[:position] + rng.choice(HOSTILE_TEXT) + text[position:]
    else:
        lines.insert(i, lines[i][: rng.randrange(len(lines[i]) + 1)] + rng.choice(HOSTILE_TEXT))
    return "\n".join(lines)


def _mutate_data(rng: random.Random, data: Any, dump: Callable) -> str:
    data = copy.deepcopy(data)
    for _ in range(rng.randint(1, 3)):
        data = _replace_node(rng, data)
    return dump(data)


@functools.cache
def _original(path: Path) -> tuple[str, Any]:
    """A file's text and its data (None for CLI configs, mutated as text only)."""
    text = path.read_text()
    if path.suffix == ".json":
        return text, json.loads(text)
    if path.suffix == ".yaml":
        return text, YAML(typ="safe", pure=True).load(text)
    return text, None


def _mutated(path: Path, case: int) -> str:
    """Case `case` of a file: a mutation of its data (half the time, where it has data) or
    of its text. Seeded by file name and case number, so each case replays alone."""
    rng = random.Random(f"{SEED}:{path.name}:{case}")
    text, data = _original(path)
    if data is not None and rng.random() < 0.5:
        # JSON is YAML too: dumping the data as JSON is fast and reaches the same checks
        return _mutate_data(rng, data, lambda d: json.dumps(d, indent=1))
    return _mutate_text(rng, text)


@pytest.fixture
def lab_loaded_once(monkeypatch):
    """The config cases all lint and diff against the unchanged lab inventory: load it once
    (the YAML parse is most of a run's time), so the cases spend their time on the configs."""
    from lossless.cli import inputs

    load = inputs.load_inventory
    loaded = functools.cache(load)
    monkeypatch.setattr(
        inputs,
        "load_inventory",
        lambda path, rule_ids: (
            loaded(path, rule_ids) if Path(path) == LAB else load(path, rule_ids)
        ),
    )


# -- the cases ------------------------------------------------------------------------------


INVENTORY_PARAMS = [
    pytest.param(example, case, id=f"{example.stem}-{case}")
    for example in EXAMPLES
    for case in range(INVENTORY_CASES.get(example.stem, 20 * SCALE))
]


@pytest.mark.parametrize(("example", "case"), INVENTORY_PARAMS)
def test_mutated_inventory(tmp_path, example, case):
    inventory = tmp_path / example.name
    inventory.write_text(_mutated(example, case), errors="surrogateescape")
    code, _ = _run("validate", str(inventory))
    if code != 0 or example.stem not in RENDERED:
        return
    _run("plan", str(inventory), "--format", "json")
    _run("render", str(inventory), "-o", str(tmp_path / "out"))
    if case % 4 == 0:  # every step in one process, on some of the cases (lint is the slow one)
        _run("ci", str(inventory), "--plan-json", str(tmp_path / "ci" / "plan.json"))


@pytest.mark.parametrize("case", range(CONFIG_CASES))
@pytest.mark.parametrize("name", CONFIGS)
def test_mutated_config(tmp_path, lab_loaded_once, name, case):
    folder = tmp_path / "configs"
    folder.mkdir()
    config = folder / name
    config.write_text(_mutated(GOLDEN / name, case), errors="surrogateescape")
    _run("lint", "--config", str(config), "--os", CONFIGS[name])
    if case % 4 == 1:  # parsed on top of the plan, or diffed: in turn, to keep it fast
        _run("lint", str(LAB), "--configs", str(folder))
    elif case % 4 == 3:
        _run("ci", str(LAB), "--configs", str(folder), "--format", "sarif")
    else:
        _run("diff", str(LAB), "--running", str(folder), "--device", Path(name).stem)


# Strings a pull request writes into a free-text field, and what no output may then hold.
INJECTED = "username evil privilege 15 secret 0 x"
HOSTILE_STRINGS = [
    f"uplink\n{INJECTED}\ninterface Ethernet9/9",
    f'uplink"; }} }} system {{ login {{ {INJECTED}; }} }} interfaces {{ x {{ y "',
    "\x1b[2J\x1b]0;pwned\x07",
    "ok\r\n::error::pwned",
    "eth0\n",
    "\u202egnp.exe",
]
STRING_CASES = 30 * SCALE


def _string_fields(data: Any, free_text_only: bool) -> list[tuple]:
    """Paths of the data's strings; or only those of free text (what passes to configs),
    port descriptions three times (every switch config prints them)."""
    if not free_text_only:
        return [path for path, node in walk(data) if path and isinstance(node, str)]
    return [
        path
        for path, node in walk(data)
        if path and isinstance(node, str) and path[-1] in FREE_TEXT
        for _ in range(3 if path[0] == "port_profiles" else 1)
    ]


FREE_TEXT = {"description", "platform", "model", "mgmt"}


@pytest.mark.parametrize("case", range(STRING_CASES))
def test_a_hostile_string_in_any_string_field(tmp_path, case):
    """One string field of the lab (a description, platform, model, name, reason...) holds a
    hostile string: the inventory is refused (exit 2), or what is rendered from it holds no
    control character and no injected line."""
    rng = random.Random(f"{SEED}:strings:{case}")
    _, data = _original(LAB)
    data = copy.deepcopy(data)
    path = rng.choice(_string_fields(data, free_text_only=case % 2 == 0))
    parent = data
    for part in path[:-1]:
        parent = parent[part]
    # free-text cases take the strings in turn, so each reaches the configs it could break
    value = HOSTILE_STRINGS[case // 2 % len(HOSTILE_STRINGS)] if case % 2 == 0 else None
    parent[path[-1]] = value or rng.choice(HOSTILE_STRINGS)
    inventory = tmp_path / "lab.yaml"
    inventory.write_text(json.dumps(data))
    code, printed = _run("validate", str(inventory))
    assert "\x1b" not in printed
    if code != 0:
        return
    out = tmp_path / "out"
    _run("render", str(inventory), "-o", str(out))
    _run("render", str(inventory), "-o", str(out / "hosts"), "--hosts")
    for file in out.rglob("*"):
        if file.is_file():
            text = file.read_text()
            assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f\u202e]", text), (path, file.name)
            assert not any(line.strip().startswith(INJECTED) for line in text.splitlines())
            if file.suffix == ".conf":  # Junos: no statement outside what lossless writes
                tops = {s.words[0] for s in read_junos(text, file.name).statements}
                assert tops <= {"interfaces", "class-of-service", "forwarding-options"}, tops


def test_the_fuzz_is_deterministic_and_varied():
    files = [*EXAMPLES, *(GOLDEN / name for name in CONFIGS)]
    first = [_mutated(path, case) for path in files for case in range(CONFIG_CASES)]
    again = [_mutated(path, case) for path in files for case in range(CONFIG_CASES)]
    assert first == again
    assert len(set(first)) > 0.9 * len(first)
    assert len(INVENTORY_PARAMS) + len(CONFIGS) * CONFIG_CASES >= 200 * SCALE


# Recorded show outputs of the lab's switches (tests/data/verify): what `lossless verify`
# reads from a switch, as untrusted as any config.
VERIFY = REPO / "tests" / "data" / "verify" / "lab"
STATE_FILES = sorted(p.relative_to(VERIFY / "after") for p in (VERIFY / "after").glob("*/*"))
STATE_CASES = 20 * SCALE


@pytest.mark.parametrize("case", range(STATE_CASES))
def test_mutated_switch_state(tmp_path, case):
    """Three saved show outputs mutated (or a saved snapshot, for the baseline): verify
    judges the rest and says which switch it could not read; never a traceback."""
    state = tmp_path / "state"
    shutil.copytree(VERIFY / "after", state)
    rng = random.Random(f"{SEED}:state:{case}")
    for target in rng.sample(STATE_FILES, 3):
        (state / target).write_text(
            _mutated(VERIFY / "after" / target, case), errors="surrogateescape"
        )
    baseline = str(VERIFY / "before")
    if case % 3 == 0:
        snapshot = tmp_path / "before.json"
        _run("verify", str(LAB), "--state", baseline, "--snapshot", str(snapshot))
        snapshot.write_text(_mutated(snapshot, case), errors="surrogateescape")
        baseline = str(snapshot)
    _run("verify", str(LAB), "--state", str(state), "--baseline", baseline, "--format", "sarif")


# -- source-of-truth answers -------------------------------------------------------------------

NETBOX_DATA = REPO / "tests" / "data" / "netbox"
NAUTOBOT_DATA = REPO / "tests" / "data" / "nautobot"
SOURCE_CASES = 15 * SCALE


def _mutated_answers(path: Path, case: int, count: int) -> list[dict[str, Any]]:
    """The recorded answers of a NetBox or Nautobot with `count` bodies mutated (seeded)."""
    exchanges: list[dict[str, Any]] = json.loads(path.read_text())
    rng = random.Random(f"{SEED}:{path.name}:{case}")
    for index in rng.sample(range(len(exchanges)), min(count, len(exchanges))):
        body = exchanges[index]["body"]
        exchanges[index]["body"] = _replace_node(rng, copy.deepcopy(body)) if body else body
    return exchanges


@pytest.mark.parametrize("case", range(SOURCE_CASES))
def test_mutated_netbox_answers(tmp_path, monkeypatch, case):
    """A NetBox whose answers are three recorded bodies mutated (a value of the wrong type, a
    key gone, a hostile string): import writes an inventory or says what it could not read,
    exit 0, 1 or 2, never a traceback or an internal error."""

    exchanges = _mutated_answers(NETBOX_DATA / "lab.json", case, 3)
    table = {
        (e["path"], tuple(sorted((k, str(v)) for k, vs in e["query"].items()
                                 for v in (vs if isinstance(vs, list) else [vs])))): e
        for e in exchanges
    }  # fmt: skip

    def answer(request: Any) -> tuple[int, dict[str, str], str]:
        parts = urlsplit(request.url)
        found = table.get((parts.path, tuple(sorted(parse_qsl(parts.query)))))
        if found is None:
            return 404, {}, json.dumps({"detail": "Not found."})
        return found["status"], {"API-Version": "4.2"}, json.dumps(found["body"])

    monkeypatch.setenv("NETBOX_TOKEN", "0123456789abcdef0123456789abcdef01234567")
    url = "http://netbox.example.com"
    with responses.RequestsMock(assert_all_requests_are_fired=False) as mock:
        mock.add_callback(responses.GET, re.compile(re.escape(url) + "/.*"), callback=answer)
        _run("import", "netbox", "--url", url, "--mapping", str(REPO / "inventories" / "netbox"
             / "lab-mapping.yaml"), "--page-size", "5", "--retries", "0",
             "-o", str(tmp_path / "lab.yaml"))  # fmt: skip


@pytest.mark.parametrize("case", range(SOURCE_CASES))
def test_mutated_nautobot_answers(tmp_path, monkeypatch, case):
    """The same for Nautobot's GraphQL answer (its one recorded body mutated three times)."""
    [exchange] = json.loads((NAUTOBOT_DATA / "lab-2.4.json").read_text())
    rng = random.Random(f"{SEED}:nautobot:{case}")
    body = exchange["body"]
    for _ in range(3):
        body = _replace_node(rng, body)

    def answer(_request: Any) -> tuple[int, dict[str, str], str]:
        return exchange["status"], {}, json.dumps(body)

    monkeypatch.setenv("NAUTOBOT_TOKEN", "nautobot-test-token-0123456789abcdef0123")
    url = "https://nautobot.example.com"
    with responses.RequestsMock(assert_all_requests_are_fired=False) as mock:
        mock.add_callback(responses.POST, f"{url}/api/graphql/", callback=answer)
        mock.add(responses.GET, f"{url}/api/status/", json={"nautobot-version": "2.4.44"})
        _run("import", "nautobot", "--url", url, "--mapping", str(NAUTOBOT_DATA / "mapping.yaml"),
             "--retries", "0", "-o", str(tmp_path / "lab.yaml"))  # fmt: skip
