"""Device credentials: from the environment or a credentials file kept outside the inventory.

Never printed, logged or written: the password is excluded from repr, and `scrub()` removes it
from any text (an error message from a driver) before that text is shown.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from ruamel.yaml import YAML

from lossless.errors import UsageError

USERNAME_VARIABLE = "LOSSLESS_USERNAME"
PASSWORD_VARIABLE = "LOSSLESS_PASSWORD"


@dataclass(frozen=True)
class Credentials:
    username: str
    password: str = field(repr=False)


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
        if not path.is_file():
            raise UsageError(f"credentials file {path} does not exist")
        if path.stat().st_mode & (stat.S_IRWXG | stat.S_IRWXO):
            raise UsageError(f"credentials file {path} is readable by others: chmod 600 {path}")
        data = YAML(typ="safe").load(path.read_text()) or {}
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
        secrets = {c.password for c in (self._default, *self._devices.values()) if c}
        for secret in sorted(secrets, key=len, reverse=True):
            if secret:
                text = text.replace(secret, "***")
        return text
