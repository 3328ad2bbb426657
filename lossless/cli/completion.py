"""`lossless completion SHELL`: a tab-completion script for bash, zsh or tcsh.

shtab writes the script once from the argparse parser, so pressing TAB never starts Python
(argcomplete would run lossless on every TAB) and nothing in the program's own start-up
changes. Commands, options and choices complete; inventory and config arguments complete
file names, output folders complete directory names.
"""

from __future__ import annotations

import argparse
import sys

SHELLS = ["bash", "zsh", "tcsh"]
_FILES = {"inventory", "config", "credentials", "plan_json"}
_FOLDERS = {"configs", "running", "mock", "render"}


def _mark_paths(parser: argparse.ArgumentParser, shtab) -> None:
    for action in parser._actions:  # argparse keeps no public list of them
        if isinstance(action, argparse._SubParsersAction):
            for sub in set(action.choices.values()):
                _mark_paths(sub, shtab)
        elif action.dest in _FILES:
            action.complete = shtab.FILE  # type: ignore[attr-defined]
        elif action.dest in _FOLDERS or (action.dest == "output" and "render" in parser.prog):
            action.complete = shtab.DIRECTORY  # type: ignore[attr-defined]
        elif action.dest == "output":
            action.complete = shtab.FILE  # type: ignore[attr-defined]


def completion_command(args: argparse.Namespace) -> int:
    import shtab

    from lossless.cli.parser import build_parser

    parser = build_parser()
    _mark_paths(parser, shtab)
    sys.stdout.write(shtab.complete(parser, shell=args.shell))
    return 0
