"""The optional extras (pyproject's [project.optional-dependencies]): a command that needs one
that is not installed says which and how to add it, exit 2, never an internal error."""

from __future__ import annotations

import importlib

from lossless.errors import UsageError


def require_extra(extra: str, what: str, modules: tuple[str, ...]) -> None:
    """Import `modules`; if one is missing, a usage error naming it and the pip command that
    adds `extra` to this lossless, from wherever it was installed."""
    try:
        for module in modules:
            importlib.import_module(module)
    except ImportError as error:
        from lossless.system.origin import direct_url, install_extra_command

        missing = f" ({error.name} is not installed)" if error.name else ""
        raise UsageError(
            f"{what}{missing}: " + install_extra_command(extra, direct_url())
        ) from None
