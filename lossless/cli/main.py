"""lossless's command line: parse the arguments, run the command, turn what happened into
an exit code: 0 clean, 1 findings (lint errors, drift, changes where asked), 2 bad input or
usage (a message naming FILE:LINE:COL, never a traceback), 3 internal error (a bug: one line).

The commands live in one module per group (inventory, plan, render, lint, report, export,
deploy, completion); each holds no domain logic: it checks its arguments, calls the library and
prints. A command's module is imported when it runs, so `--help` and `--version` start fast.
"""

from __future__ import annotations

import argparse
import difflib
import sys
from collections.abc import Callable, Sequence
from importlib import import_module

from lossless.cli.parser import build_parser
from lossless.errors import InputError, UsageError
from lossless.text.grammar import plural

# command -> module of lossless.cli and the function that runs it
COMMANDS = {
    "validate": ("inventory", "validate_command"),
    "schema": ("inventory", "schema_command"),
    "plan": ("plan", "plan_command"),
    "explain": ("plan", "explain_command"),
    "headroom": ("plan", "headroom_command"),
    "render": ("render", "render_command"),
    "lint": ("lint", "lint_command"),
    "ci": ("lint", "ci_command"),
    "rules": ("lint", "rules_command"),
    "report": ("report", "report_command"),
    "export": ("export", "export_command"),
    "import": ("importer", "import_command"),
    "diff": ("deploy", "diff_command"),
    "push": ("deploy", "push_command"),
    "verify": ("verify", "verify_command"),
    "simulate": ("simulate", "simulate_command"),
    "completion": ("completion", "completion_command"),
}


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    mistyped = _unknown_command(parser, sys.argv[1:] if argv is None else list(argv))
    if mistyped is not None:
        _error_line(f"lossless: {mistyped}")
        return 2
    try:
        args, unknown = parser.parse_known_args(argv)
        if unknown:  # the command's own usage, and the option it may have meant
            _command_parser(parser, args.command).error(_unrecognised(parser, args, unknown))
    except SystemExit as exit_:  # argparse: --help (0) or a usage error (2)
        return int(exit_.code or 0)
    module, function = COMMANDS[args.command]
    try:
        command: Callable[..., int] = getattr(import_module(f"lossless.cli.{module}"), function)
        return command(args)
    except InputError as error:
        for problem in error.problems:
            _error_line(str(problem))
        print(plural(len(error.problems), "problem"), file=sys.stderr)
        return 2
    except UsageError as error:
        _error_line(f"lossless: {error}")
        return 2
    except BrokenPipeError as error:  # `| head`: the reader left; a decided outcome stands
        _quiet_stdout()
        return int(getattr(error, "exit_code", 0))
    except Exception as error:  # a bug: one line, never a traceback, never 1 (findings)
        detail = str(error).splitlines()[0][:300] if str(error).strip() else ""
        _error_line(f"lossless: internal error: {type(error).__name__}: {detail} (please report)")
        return 3


def _quiet_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's final flush into the closed pipe
    raises nothing (Python's documented SIGPIPE note)."""
    import contextlib
    import os

    with contextlib.suppress(OSError, ValueError):  # stdout is no real file (tests capture it)
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def _unknown_command(parser: argparse.ArgumentParser, argv: list[str]) -> str | None:
    """The message "no command 'lnit' (did you mean 'lint'?)" when the first word that is not
    an option (the top level takes -h and -V, neither with a value) names no command;
    argparse's own message lists every command instead."""
    word = next((a for a in argv if not a.startswith("-")), None)
    commands = [
        name
        for action in parser._actions
        if isinstance(action, argparse._SubParsersAction)
        for name in action.choices
    ]
    if word is None or word in commands:
        return None
    close = difflib.get_close_matches(word, commands, n=1, cutoff=0.6)
    hint = f"did you mean {close[0]!r}?" if close else "`lossless --help` lists them"
    return f"no command {word!r} ({hint})"


def _command_parser(parser: argparse.ArgumentParser, command: str) -> argparse.ArgumentParser:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            found: argparse.ArgumentParser = action.choices[command]
            return found
    return parser


def _unrecognised(
    parser: argparse.ArgumentParser, args: argparse.Namespace, words: list[str]
) -> str:
    """argparse's message for arguments the command does not take, with the option the first
    mistyped one may have meant: "unrecognized arguments: --chek (did you mean '--check'?)"."""
    message = f"unrecognized arguments: {' '.join(words)}"
    typed = next((w.split("=", 1)[0] for w in words if w.startswith("--")), None)
    if typed is None:
        return message
    options = [o for a in _command_parser(parser, args.command)._actions for o in a.option_strings]
    close = difflib.get_close_matches(typed, options, n=1, cutoff=0.6)
    return f"{message} (did you mean {close[0]!r}?)" if close else message


def _error_line(text: str) -> None:
    """Errors can quote what a device sent or an input held: scrubbed of any password
    loaded, then made printable (one line, no control characters, no workflow command)."""
    from lossless.deploy.credentials import scrub
    from lossless.text.printable import printable

    print(printable(scrub(text)), file=sys.stderr)


if __name__ == "__main__":
    raise SystemExit(main())
