"""lossless's command line: parse the arguments, run the command, turn what happened into
an exit code: 0 clean, 1 findings (lint errors, drift, changes where asked), 2 bad input or
usage (a message naming FILE:LINE:COL, never a traceback), 3 internal error (a bug: one line).

The commands live in one module per group (inventory, plan, render, lint, report, export,
deploy, completion); each holds no domain logic: it checks its arguments, calls the library and
prints. A command's module is imported when it runs, so `--help` and `--version` start fast.
"""

from __future__ import annotations

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
    "diff": ("deploy", "diff_command"),
    "push": ("deploy", "push_command"),
    "completion": ("completion", "completion_command"),
}


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
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
    except BrokenPipeError:
        return 0
    except Exception as error:  # a bug: one line, never a traceback, never 1 (findings)
        detail = str(error).splitlines()[0][:300] if str(error).strip() else ""
        _error_line(f"lossless: internal error: {type(error).__name__}: {detail} (please report)")
        return 3


def _error_line(text: str) -> None:
    """Errors can quote what a device sent or an input held: scrubbed of any password
    loaded, then made printable (one line, no control characters, no workflow command)."""
    from lossless.deploy.credentials import scrub
    from lossless.text.printable import printable

    print(printable(scrub(text)), file=sys.stderr)


if __name__ == "__main__":
    raise SystemExit(main())
