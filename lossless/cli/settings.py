"""`lint` and `ci` settings from a file, as ruff and yamllint keep theirs
(docs/configuration.md): `.lossless.toml` (keys at the top level) or `pyproject.toml` with a
`[tool.lossless]` table, found from the current folder upwards. In one folder
`.lossless.toml` wins over `pyproject.toml` (ruff: "`.ruff.toml` > `ruff.toml` >
`pyproject.toml`", https://docs.astral.sh/ruff/configuration/#config-file-discovery); a
pyproject.toml without `[tool.lossless]` is passed over. The search stops at the folder that
holds `.git` (the repository's root, as black finds its project root,
https://black.readthedocs.io/en/stable/usage_and_configuration/the_basics.html), so a file
outside the repository never applies to it; `--settings FILE` names one, `--isolated` reads
none.

Keys (TOML 1.0 read by the standard library's tomllib, checked strictly: an unknown key or a
wrong type is a usage error naming the file and the key, exit 2): select, ignore
(lists of rule IDs, ID prefixes or names, as --select/--ignore take them), per-path-ignores
(a table of glob -> such a list), format, fail-on ("error"|"warning"), color
("auto"|"always"|"never"). The command line wins: --select replaces the file's select,
--ignore adds to the file's ignore (ruff's `--extend-ignore`: a file that turns a rule off
keeps it off), --format, --fail-on and --color replace the file's.
"""

from __future__ import annotations

import argparse
import difflib
import fnmatch
import re
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePath
from typing import Any

from lossless.cli.parser import LINT_FORMATS
from lossless.errors import InputError, UsageError
from lossless.system.files import read_bounded
from lossless.text.colour import CHOICES as COLOUR_CHOICES

FILE_NAMES = (".lossless.toml", "pyproject.toml")
FAIL_ON = ("error", "warning")
MAX_SETTINGS_BYTES = 1 << 20  # a settings file is a few lines; a 1 MiB one is not one
MAX_FOLDERS_UP = 256  # bounded however deep (or looped) the folder tree is


@dataclass(frozen=True)
class Settings:
    """What one settings file says (None or empty: it does not say)."""

    file: Path | None = None
    select: tuple[str, ...] | None = None
    ignore: tuple[str, ...] = ()
    per_path_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()
    format: str | None = None
    fail_on: str | None = None
    color: str | None = None
    # where each key (a table's first key for a dotted one) is written: (line, column)
    lines: Mapping[str, tuple[int, int]] = field(default_factory=dict)

    def where(self, key: str) -> str:
        """How a message names one of its keys: 'pyproject.toml:3:1: [tool.lossless] select'
        (the line of its key, or of the table a dotted key 'per-path-ignores.x' is in)."""
        table = "[tool.lossless] " if self.file and self.file.name == "pyproject.toml" else ""
        shown = key if len(key) <= 80 else f"{key[:77]}..."  # a key is the file's to choose
        at = self.lines.get(key.split(".", 1)[0])
        place = f"{self.file}:{at[0]}:{at[1]}:" if at else f"{self.file}"
        return f"{place} {table}{shown}"


def discover(start: Path) -> Path | None:
    """The settings file that applies in `start`: the nearest of FILE_NAMES upwards that is
    one (see the module), stopping at a repository's root or the filesystem's."""
    folder = start.resolve()
    for _ in range(MAX_FOLDERS_UP):
        found = _in_folder(folder)
        if found is not None:
            return found
        if (folder / ".git").exists() or folder.parent == folder:
            return None
        folder = folder.parent
    return None


def _in_folder(folder: Path) -> Path | None:
    own = folder / ".lossless.toml"
    if own.is_file():
        return own
    pyproject = folder / "pyproject.toml"
    if pyproject.is_file() and _lossless_table(_parsed(pyproject)[0]) is not None:
        return pyproject
    return None


def _lossless_table(document: dict[str, Any]) -> Any:
    """pyproject.toml's [tool.lossless] (None where there is none: a `tool` that is not a
    table holds none either)."""
    tool = document.get("tool")
    return tool.get("lossless") if isinstance(tool, dict) else None


def _parsed(path: Path) -> tuple[dict[str, Any], str]:
    """A TOML file's document and its text; a usage error for one that cannot be read or is
    not TOML."""
    try:
        raw = read_bounded(path, "settings", MAX_SETTINGS_BYTES)
    except InputError as error:
        raise UsageError(str(error)) from None
    try:
        text = raw.decode("utf-8")
        return tomllib.loads(text), text
    except UnicodeDecodeError:
        raise UsageError(f"{path}: not UTF-8 (TOML is UTF-8)") from None
    except tomllib.TOMLDecodeError as error:  # its message names the line and column
        raise UsageError(f"{path}: not TOML: {error}") from None
    except RecursionError:  # tomllib recurses once per nested array or table
        raise UsageError(f"{path}: not TOML lossless reads: nested too deep") from None


def read_settings(path: Path) -> Settings:
    """The settings `path` holds (`.lossless.toml`, or `pyproject.toml`'s [tool.lossless])."""
    document, text = _parsed(path)
    in_pyproject = path.name == "pyproject.toml"
    if in_pyproject:
        table = _lossless_table(document)
        if table is None:
            raise UsageError(f"{path}: no [tool.lossless] table")
    else:
        table = document
    settings = Settings(file=path, lines=_key_lines(text, in_pyproject))
    if not isinstance(table, dict):
        raise UsageError(f"{settings.where('')}: expected a table")
    if not in_pyproject and "tool" in table:
        raise UsageError(
            f"{settings.where('tool')}: the keys of .lossless.toml go at its top level "
            "([tool.lossless] is the table they have in pyproject.toml)"
        )
    return _checked(table, settings)


_HEADER = re.compile(r"\[\s*([^\[\]]+?)\s*\]\s*(#.*)?$")
_KEY = re.compile(r'\s*"?([A-Za-z0-9_-]+)"?\s*=')


def _key_lines(text: str, in_pyproject: bool) -> dict[str, tuple[int, int]]:
    """(line, column) of each key of the settings table as written (tomllib keeps no
    positions): `key = ...` in the table, or a sub-table's header `[per-path-ignores]`
    (`[tool.lossless.per-path-ignores]`). The first place counts."""
    ours = "tool.lossless" if in_pyproject else ""
    table = None if in_pyproject else ""  # the table the lines are in, within ours
    found: dict[str, tuple[int, int]] = {}
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        header = _HEADER.match(stripped)
        if header and not stripped.startswith("[["):
            table = _within(header.group(1).replace('"', "").replace(" ", ""), ours)
            if table:  # a sub-table of ours
                found.setdefault(table.split(".", 1)[0], (number, line.index("[") + 1))
            continue
        key = _KEY.match(line)
        if table == "" and key:
            found.setdefault(key.group(1), (number, key.start(1) + 1))
    return found


def _within(name: str, ours: str) -> str | None:
    """A table's name relative to ours ("" for ours itself), None for a table not in ours."""
    if not ours or name.startswith(ours + "."):
        return name[len(ours) + 1 :] if ours else name
    return "" if name == ours else None


def _checked(table: Mapping[str, Any], settings: Settings) -> Settings:
    values: dict[str, Any] = {}
    for key, value in table.items():
        check = _KEYS.get(key)
        if check is None:
            close = difflib.get_close_matches(key, list(_KEYS), n=1, cutoff=0.6)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise UsageError(f"{settings.where(key)}: unknown key{hint}")
        values[key.replace("-", "_")] = check(value, settings.where(key))
    return Settings(file=settings.file, lines=settings.lines, **values)


def _rule_list(value: Any, where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise UsageError(f"{where}: expected a list of rule IDs or names")
    return tuple(value)


def _per_path(value: Any, where: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    if not isinstance(value, dict):
        raise UsageError(f"{where}: expected a table of glob = [rules]")
    return tuple((glob, _rule_list(rules, f"{where}.{glob}")) for glob, rules in value.items())


def _one_of(choices: tuple[str, ...]) -> Callable[[Any, str], str]:
    def check(value: Any, where: str) -> str:
        if not isinstance(value, str) or value not in choices:
            raise UsageError(f"{where}: expected one of {', '.join(choices)}, got {value!r}")
        return value

    return check


def _select_list(value: Any, where: str) -> tuple[str, ...]:
    """A select that names no rule is a mistake (leave the key out to run every rule)."""
    names = _rule_list(value, where)
    if not names:
        raise UsageError(f"{where}: an empty list selects no rule; leave it out for every rule")
    return names


_KEYS: dict[str, Callable[[Any, str], Any]] = {
    "select": _select_list,
    "ignore": _rule_list,
    "per-path-ignores": _per_path,
    "format": _one_of(tuple(LINT_FORMATS)),
    "fail-on": _one_of(FAIL_ON),
    "color": _one_of(COLOUR_CHOICES),
}


def settings_for(args: argparse.Namespace, here: Path | None = None) -> Settings:
    """The settings a `lint` or `ci` run uses: --settings FILE, none with --isolated, else
    the file discovered from `here` (the current folder)."""
    if args.isolated:
        if args.settings:
            raise UsageError("--isolated reads no settings file: drop --settings")
        return Settings()
    if args.settings:
        path = Path(args.settings)
        if not path.is_file():
            raise UsageError(f"--settings {path}: not a file")
        return read_settings(path)
    found = discover(here if here is not None else Path.cwd())
    return Settings() if found is None else read_settings(found)


@dataclass(frozen=True)
class Options:
    """lint's and ci's report options: the command line over the settings file."""

    select: tuple[tuple[str, list[str]], ...]  # (who named them, the names)
    ignore: tuple[tuple[str, list[str]], ...]
    format: str
    fail_on: str
    color: str


def merged(args: argparse.Namespace, settings: Settings) -> Options:
    """The command line wins (see the module); who named the rules goes with them, so that
    a rule name that is wrong is reported where it is written."""
    select = (
        [("--select", list(args.select))]
        if args.select
        else [(settings.where("select"), list(settings.select))]
        if settings.select is not None
        else []
    )
    ignore = [("--ignore", list(args.ignore))] if args.ignore else []
    if settings.ignore:
        ignore.insert(0, (settings.where("ignore"), list(settings.ignore)))
    return Options(
        select=tuple(select),
        ignore=tuple(ignore),
        format=args.format or settings.format or "text",
        fail_on=args.fail_on or settings.fail_on or "error",
        color=args.color or settings.color or "auto",
    )


def path_matches(glob: str, file: str, base: Path) -> bool:
    """Whether a per-path-ignores glob names `file` (a finding's file): matched against its
    path relative to `base` (the settings file's folder) when it is inside it, the path as
    given, and, for a glob without '/', its name (ruff matches a per-file-ignores pattern
    against the path and the file's name). fnmatch's `*` crosses '/', so `configs/*` covers
    subfolders too."""
    given = PurePath(file)
    candidates = {given.as_posix()}
    relative = _relative(file, base)
    if relative is not None:
        candidates.add(relative)
    if "/" not in glob:
        candidates.add(given.name)
    pattern = glob.removeprefix("./")
    return any(fnmatch.fnmatchcase(candidate, pattern) for candidate in candidates)


# Paths no glob written for some files matches all of: a glob matching each matches any file
_ANY_FILE = ("a", "lab.yaml", ".hidden", "x/y/leaf1.cfg", "/abs/olute/spine 1.conf")


def everywhere(glob: str) -> bool:
    """Whether a per-path-ignores glob matches any file (`*`, `**`, `?*`): its rules are off
    for the whole run, as `ignore` turns them off."""
    pattern = glob.removeprefix("./")
    return all(fnmatch.fnmatchcase(path, pattern) for path in _ANY_FILE)


def _relative(file: str, base: Path) -> str | None:
    """`file` relative to `base` as a posix path, or None when it is not inside it."""
    try:
        resolved, root = Path(file).resolve(), base.resolve()
    except (OSError, ValueError):  # a finding's file need not exist (nor be a path)
        return None
    return resolved.relative_to(root).as_posix() if resolved.is_relative_to(root) else None
