"""Where this lossless was installed from, so a message can say how to add an extra from the
same place: lossless is installed from a clone or a git URL, not from a package index.

pip records a direct install in the distribution's `direct_url.json` (PEP 610, "Recording
the Direct URL Origin of installed distributions", https://peps.python.org/pep-0610/ and the
PyPA specification https://packaging.python.org/en/latest/specifications/direct-url/): `url`
with `dir_info` (a local folder, `editable` for `pip install -e`), `vcs_info` (`git+` URL,
`commit_id`) or `archive_info` (a wheel or sdist file or URL). No such file means an index.
"""

from __future__ import annotations

import json
import shlex
import sys
from importlib import metadata
from typing import Any
from urllib.parse import unquote, urlsplit

DISTRIBUTION = "lossless"


def direct_url(distribution: str = DISTRIBUTION) -> dict[str, Any] | None:
    """The installed distribution's direct_url.json, or None (an index, or unreadable)."""
    try:
        text = metadata.distribution(distribution).read_text("direct_url.json")
        record = json.loads(text) if text else None
    except (metadata.PackageNotFoundError, ValueError, OSError):
        return None
    return record if isinstance(record, dict) and isinstance(record.get("url"), str) else None


def install_extra_command(extra: str, record: dict[str, Any] | None) -> str:
    """The pip command that adds `extra` to the lossless installed from `record` (its
    direct_url.json; None: from an index)."""
    pip = f"{shlex.quote(sys.executable)} -m pip install"
    if record is None:
        return (
            f"{pip} 'lossless[{extra}]' (from the index lossless came from), or in a clone "
            f"of lossless: {pip} -e '.[{extra}]'"
        )
    url = _without_credentials(str(record["url"]))
    parts = urlsplit(url)
    vcs = record.get("vcs_info")
    if isinstance(vcs, dict):
        commit = vcs.get("commit_id")
        at = f"@{commit}" if isinstance(commit, str) and commit.isalnum() else ""
        kind = vcs.get("vcs") if vcs.get("vcs") in ("git", "hg", "svn", "bzr") else "git"
        requirement = f"lossless[{extra}] @ {kind}+{url}{at}"
        return f"{pip} {shlex.quote(requirement)}"
    dir_info = record.get("dir_info")
    if parts.scheme == "file" and isinstance(dir_info, dict):
        folder = shlex.quote(f"{unquote(parts.path)}[{extra}]")
        return f"{pip} {'-e ' if dir_info.get('editable') else ''}{folder}"
    return f"{pip} {shlex.quote(f'lossless[{extra}] @ {url}')}"


def _without_credentials(url: str) -> str:
    """PEP 610 keeps no credentials in the URL, but a hand-made record might: never print
    a user:token@ part."""
    parts = urlsplit(url)
    if "@" not in parts.netloc:
        return url
    return parts._replace(netloc=parts.netloc.rsplit("@", 1)[1]).geturl()
