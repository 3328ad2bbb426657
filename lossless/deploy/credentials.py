"""Device credentials: from the environment or a credentials file kept outside the inventory.

Never printed, logged or written: the password is excluded from repr, every password loaded is
known to `scrub()`, which removes it (as written, and in its repr, JSON and URL-encoded forms,
wherever it stands as a word of its own; a password shorter than 4 characters is no secret)
from any text before that text is shown, and a credentials file that is not valid YAML is
reported by position only, never with the line that holds the password.
"""

from __future__ import annotations

import functools
import json
import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote, quote_plus

from lossless.errors import InputError, Problem, UsageError
from lossless.inventory.yamlsource import parse_yaml_text
from lossless.system.files import read_bounded

USERNAME_VARIABLE = "LOSSLESS_USERNAME"
PASSWORD_VARIABLE = "LOSSLESS_PASSWORD"


# Shorter passwords are not scrubbed: one or two letters are no secret, and replacing them
# wherever they occur garbles every message (`***hase 1`).
MIN_SECRET_LENGTH = 4

# Every password this process has loaded, in each form it can take in a message.
_SECRET_FORMS: set[str] = set()


@dataclass(frozen=True)
class Credentials:
    username: str
    password: str = field(repr=False)

    def __post_init__(self) -> None:
        secret = self.password
        if len(secret) >= MIN_SECRET_LENGTH:
            _SECRET_FORMS.update(
                {
                    secret,
                    repr(secret)[1:-1],  # in a Python message: 'pa\\ss'
                    json.dumps(secret)[1:-1],  # in a JSON body: "pa\"ss"
                    quote(secret, safe=""),  # in a URL: user:pa%40ss@host
                    quote_plus(secret),
                }
            )


def scrub(text: str) -> str:
    """text with every form of every loaded password replaced by ***, where it stands as a
    word of its own: a password `hase` inside `phase 1` is not the password."""
    for secret in sorted(_SECRET_FORMS, key=len, reverse=True):
        if secret in text:
            text = _standing_alone(secret).sub("***", text)
    return text


@functools.lru_cache(maxsize=64)
def _standing_alone(secret: str) -> re.Pattern[str]:
    """secret, not preceded (followed) by a word character where it starts (ends) with one."""
    before = r"(?<!\w)" if re.match(r"\w", secret[0]) else ""
    after = r"(?!\w)" if re.match(r"\w", secret[-1]) else ""
    return re.compile(before + re.escape(secret) + after)


class CredentialStore:
    def __init__(self, path: str | None = None):
        self._default: Credentials | None = None
        self._devices: dict[str, Credentials] = {}
        if path is not None:
            self._load(Path(path))
        username, password = os.environ.get(USERNAME_VARIABLE), os.environ.get(PASSWORD_VARIABLE)
        if username and password:
            self._default = Credentials(username, password)

    def _load(self, path: Path) -> None:
        if not path.exists():
            raise UsageError(f"credentials file {path} does not exist")
        if not path.is_file():
            raise UsageError(f"credentials file {path} is not a file")
        if path.stat().st_mode & (stat.S_IRWXG | stat.S_IRWXO):
            raise UsageError(f"credentials file {path} is readable by others: chmod 600 {path}")
        data = _read_private_yaml(path)
        try:
            if "default" in data:
                self._default = Credentials(
                    str(data["default"]["username"]), str(data["default"]["password"])
                )
            for name, entry in (data.get("devices") or {}).items():
                self._devices[name] = Credentials(str(entry["username"]), str(entry["password"]))
        except (KeyError, TypeError, AttributeError):
            raise UsageError(
                f"{path}: expected `default: {{username, password}}` and/or "
                "`devices: {NAME: {username, password}}`"
            ) from None

    def has(self, name: str) -> bool:
        return name in self._devices or self._default is not None

    def for_device(self, name: str) -> Credentials:
        found = self._devices.get(name, self._default)
        if found is None:
            raise UsageError(
                f"no credentials for {name}: set {USERNAME_VARIABLE} and {PASSWORD_VARIABLE}, "
                "or give --credentials FILE"
            )
        return found

    def scrub(self, text: str) -> str:
        return scrub(text)


def _read_private_yaml(path: Path) -> dict:
    """The file's mapping, every value the text written (a password `0123` stays `0123`).
    Any problem is `FILE:LINE:COL: not valid YAML`: messages that quote the text would show
    the password."""
    raw = read_bounded(path, "credentials file")
    try:
        return parse_yaml_text(raw.decode("utf-8"), str(path), text_scalars=True).data
    except UnicodeDecodeError:
        where = (1, 1)
    except InputError as error:
        where = (error.problems[0].line, error.problems[0].column)
    raise InputError([Problem(str(path), *where, "", "not valid YAML")])


def remember_secret(secret: str) -> None:
    """From now on, scrub() removes the secret as it removes a device password (the API token
    of `lossless import`)."""
    Credentials("", secret)  # loading credentials is what makes a password known to scrub()
