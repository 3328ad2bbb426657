"""Start a real NetBox or Nautobot on 127.0.0.1, with PostgreSQL and Redis from Debian.

Each server runs from its own virtual environment, made with a Python 3.12 or newer found on
this machine (NetBox 4.x requires 3.12, `Requires-Python: >=3.12`): `LOSSLESS_SERVER_PYTHON`,
else the newest under pyenv's root (`pyenv root`, `$PYENV_ROOT`, `~/.pyenv`), else
`python3.13`/`python3.12` on PATH; none is a clear error. PostgreSQL (`initdb`, `postgres` of
Debian's postgresql package) and `redis-server` listen on 127.0.0.1 on free ports, with their
data in a temporary folder removed at the end. Installation follows each project's guide for
a pip install: NetBox's `netbox` console script with `NETBOX_ROOT/conf/configuration.py`
(https://netboxlabs.com/docs/netbox/en/stable/installation/), Nautobot's `nautobot-server`
with a `nautobot_config.py` importing `nautobot.core.settings`
(https://docs.nautobot.com/projects/core/en/stable/user-guide/administration/installation/).
"""

from __future__ import annotations

import contextlib
import itertools
import os
import pwd
import re
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parents[2]
MIN_PYTHON = (3, 12)


def cache_folder() -> Path:
    """Where the servers' virtual environments and migrated database dumps are kept between
    runs: outside the clone (CI runs in a fresh clone each time), LOSSLESS_SERVERS_CACHE, else
    $XDG_CACHE_HOME/lossless/servers (~/.cache without it). A cold run migrates each server's
    database, the longest step by far."""
    chosen = os.environ.get("LOSSLESS_SERVERS_CACHE")
    if chosen:
        return Path(chosen)
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    base = Path(xdg) if os.path.isabs(xdg) else Path.home() / ".cache"
    return base / "lossless" / "servers"


class ServerError(Exception):
    """A server could not be set up: said in one line, exit 2."""


def _version_of(python: Path) -> tuple[int, int] | None:
    try:
        out = subprocess.run(
            [str(python), "-c", "import sys; print(*sys.version_info[:2])"],
            capture_output=True,
            text=True,
            timeout=30,
        ).stdout.split()
    except (OSError, subprocess.SubprocessError):
        return None
    return (int(out[0]), int(out[1])) if len(out) == 2 and all(p.isdigit() for p in out) else None


def _pyenv_roots() -> list[Path]:
    roots = []
    pyenv = shutil.which("pyenv") or next(
        (str(p) for p in (Path.home() / ".pyenv/bin/pyenv",) if p.is_file()), None
    )
    if pyenv:
        with contextlib.suppress(OSError, subprocess.SubprocessError):
            out = subprocess.run([pyenv, "root"], capture_output=True, text=True, timeout=30)
            if out.returncode == 0 and out.stdout.strip():
                roots.append(Path(out.stdout.strip()))
    if os.environ.get("PYENV_ROOT"):
        roots.append(Path(os.environ["PYENV_ROOT"]))
    roots.append(Path.home() / ".pyenv")
    return roots


def find_python() -> Path:
    """A Python >= 3.12 to make the servers' virtual environments with."""
    candidates: list[Path] = []
    if os.environ.get("LOSSLESS_SERVER_PYTHON"):
        candidates.append(Path(os.environ["LOSSLESS_SERVER_PYTHON"]))
    for root in _pyenv_roots():
        candidates += sorted((root / "versions").glob("*/bin/python3"), reverse=True)
    candidates += [Path(p) for p in map(shutil.which, ("python3.13", "python3.12")) if p]
    best: tuple[tuple[int, int], Path] | None = None
    for python in candidates:
        version = _version_of(python)
        if version and version >= MIN_PYTHON and (best is None or version > best[0]):
            best = (version, python)
    if best is None:
        raise ServerError(
            "NetBox 4.x and Nautobot 3.x need Python 3.12 or newer: none found "
            "(LOSSLESS_SERVER_PYTHON, pyenv versions, python3.13/python3.12 on PATH)"
        )
    return best[1]


def _create_superuser(manage: list[str], env: dict[str, str], password: str) -> None:
    """The user `lossless` the loader's token belongs to (Django's createsuperuser)."""
    command = ["createsuperuser", "--no-input", "--username", "lossless"]
    _run(
        [*manage, *command, "--email", "lossless@example.com"],
        env={**env, "DJANGO_SUPERUSER_PASSWORD": password},
    )


def venv(work: Path, requirement: str) -> Path:
    """work/NAME-VERSION-venv with `requirement` installed (kept between runs); its bin."""
    folder = work / f"{requirement.replace('==', '-')}-venv"
    marker = folder / "lossless-requirement.txt"
    if marker.is_file() and marker.read_text() == requirement:
        return folder / "bin"
    if folder.exists():
        shutil.rmtree(folder)
    _run([str(find_python()), "-m", "venv", str(folder)])
    _run([str(folder / "bin/python"), "-m", "pip", "install", "-q", requirement])
    marker.write_text(requirement)
    return folder / "bin"


def _run(command: list[str], **kwargs: object) -> str:
    result = subprocess.run(command, capture_output=True, text=True, **kwargs)  # type: ignore[call-overload]
    if result.returncode != 0:
        tail = (result.stderr or result.stdout).strip().splitlines()[-5:]
        raise ServerError(f"{' '.join(command[:3])} failed: " + " | ".join(tail))
    return str(result.stdout)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _tool(name: str, *folders: str) -> str:
    for folder in folders:
        path = Path(folder) / name
        if path.is_file():
            return str(path)
    found = shutil.which(name)
    if not found:
        raise ServerError(f"{name} not found: install Debian's postgresql and redis-server")
    return found


def _postgres_bin(name: str) -> str:
    return _tool(name, *sorted(map(str, Path("/usr/lib/postgresql").glob("*/bin")), reverse=True))


@dataclass
class Services:
    pg_port: int
    redis_port: int


@contextlib.contextmanager
def services(scratch: Path) -> Iterator[Services]:
    """PostgreSQL and Redis on 127.0.0.1, stopped (and their data removed) at the end."""
    as_postgres: list[str] = []
    data = scratch / "pg"
    data.mkdir()
    if os.geteuid() == 0:  # PostgreSQL refuses to run as root
        user = pwd.getpwnam("postgres")
        os.chown(scratch, user.pw_uid, user.pw_gid)
        os.chown(data, user.pw_uid, user.pw_gid)
        as_postgres = ["runuser", "-u", "postgres", "--"]
    _run(
        [
            *as_postgres,
            _postgres_bin("initdb"),
            "-D",
            str(data),
            "-U",
            "postgres",
            "--auth=trust",
            "-E",
            "UTF8",
        ]
    )
    pg_port, redis_port = free_port(), free_port()
    logs = scratch / "logs"
    logs.mkdir()
    with (logs / "postgres.log").open("w") as pg_log, (logs / "redis.log").open("w") as r_log:
        postgres = subprocess.Popen(
            [
                *as_postgres,
                _postgres_bin("postgres"),
                "-D",
                str(data),
                "-h",
                "127.0.0.1",
                "-p",
                str(pg_port),
                "-k",
                str(scratch),
                "-c",
                "fsync=off",
            ],
            stdout=pg_log,
            stderr=subprocess.STDOUT,
        )
        redis = subprocess.Popen(
            [
                _tool("redis-server"),
                "--bind",
                "127.0.0.1",
                "--port",
                str(redis_port),
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                str(scratch),
            ],
            stdout=r_log,
            stderr=subprocess.STDOUT,
        )
        try:
            _wait_port(pg_port, "PostgreSQL", postgres)
            _wait_port(redis_port, "Redis", redis)
            yield Services(pg_port, redis_port)
        finally:
            for process in (redis, postgres):
                process.terminate()
            for process in (redis, postgres):
                with contextlib.suppress(subprocess.TimeoutExpired):
                    process.wait(30)


def _wait_port(port: int, what: str, process: subprocess.Popen[bytes], seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise ServerError(f"{what} exited ({process.returncode}) before listening")
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.2)
    raise ServerError(f"{what} did not listen on 127.0.0.1:{port} within {seconds:.0f} s")


def _database(requirement: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", requirement.lower())


def migrated_database(
    services: Services, work: Path, requirement: str, migrate: list[str], env: dict[str, str]
) -> None:
    """The requirement's database, migrated: restored from work's dump of an earlier run of the same
    requirement (a migration of NetBox or Nautobot takes minutes), else migrated and dumped."""
    name = _database(requirement)
    connect = ["-h", "127.0.0.1", "-p", str(services.pg_port), "-U", "postgres"]
    _run([_postgres_bin("psql"), *connect, "-q", "-c", f"CREATE DATABASE {name}"])
    dump = work / f"{requirement.replace('==', '-')}.dump"
    if dump.is_file():
        _run([_postgres_bin("pg_restore"), *connect, "-d", name, "--no-owner", str(dump)])
        return
    _run(migrate, env=env)
    _run([_postgres_bin("pg_dump"), *connect, "-Fc", "-f", f"{dump}.part", name])
    os.replace(f"{dump}.part", dump)


# The servers share one Redis (and one PostgreSQL): each its own pair of Redis databases,
# tasks and cache, so that two running side by side never read each other's cache
REDIS_DATABASES = itertools.count(0, 2)


@dataclass
class Server:
    kind: str  # "NetBox" or "Nautobot"
    version: str
    url: str
    token: str  # a token the REST API takes (Authorization: Token/Bearer)
    header: str  # the Authorization header's value
    process: subprocess.Popen[bytes]


def _wait_http(url: str, process: subprocess.Popen[bytes], seconds: float = 300) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise ServerError(f"the server at {url} exited ({process.returncode})")
        with contextlib.suppress(requests.RequestException):
            if requests.get(url, timeout=5).status_code < 500:
                return
        time.sleep(0.5)
    raise ServerError(f"{url} did not answer within {seconds:.0f} s")


@contextlib.contextmanager
def _serving(
    command: list[str], env: dict[str, str], port: int, log: Path
) -> Iterator[subprocess.Popen[bytes]]:
    with log.open("w") as out:
        process = subprocess.Popen(command, env=env, stdout=out, stderr=subprocess.STDOUT)
        try:
            _wait_http(f"http://127.0.0.1:{port}/api/", process)
            yield process
        finally:
            process.terminate()
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(30)


NETBOX_CONFIG = """\
ALLOWED_HOSTS = ["127.0.0.1"]
DATABASES = {{"default": {{"NAME": "{database}", "USER": "postgres", "HOST": "127.0.0.1",
    "PORT": "{pg}", "ENGINE": "django.db.backends.postgresql"}}}}
REDIS = {{
    "tasks": {{"HOST": "127.0.0.1", "PORT": {redis}, "DATABASE": {tasks}, "SSL": False}},
    "caching": {{"HOST": "127.0.0.1", "PORT": {redis}, "DATABASE": {cache}, "SSL": False}},
}}
SECRET_KEY = "{secret}"
API_TOKEN_PEPPERS = {{1: "{pepper}"}}
"""


@contextlib.contextmanager
def netbox(work: Path, scratch: Path, svc: Services, requirement: str) -> Iterator[Server]:
    """NetBox from PyPI, migrated, a superuser, a v2 token, served by its runserver."""
    bin_ = venv(work, requirement)
    root = scratch / requirement.replace("==", "-")
    (root / "conf").mkdir(parents=True)
    (root / "conf/configuration.py").write_text(
        NETBOX_CONFIG.format(
            database=_database(requirement),
            pg=svc.pg_port,
            redis=svc.redis_port,
            tasks=(tasks := next(REDIS_DATABASES)),
            cache=tasks + 1,
            secret=secrets.token_urlsafe(48),
            pepper=secrets.token_urlsafe(48),
        )
    )
    env = {**os.environ, "NETBOX_ROOT": str(root)}
    manage = [str(bin_ / "python"), str(bin_ / "netbox")]  # a moved venv: not its shebang
    migrated_database(svc, work, requirement, [*manage, "migrate", "--no-input"], env)
    password = secrets.token_urlsafe(16)
    _create_superuser(manage, env, password)
    version = _run([*manage, "version"], env=env).strip()
    port = free_port()
    command = [*manage, "runserver", f"127.0.0.1:{port}", "--noreload", "--insecure"]
    with _serving(command, env, port, scratch / f"logs/{root.name}.log") as process:
        url = f"http://127.0.0.1:{port}"
        answer = requests.post(
            f"{url}/api/users/tokens/provision/",
            json={"username": "lossless", "password": password},
            timeout=60,
        )
        if answer.status_code != 201:
            raise ServerError(f"NetBox token provision: HTTP {answer.status_code}")
        token = answer.json()
        key = token.get("key")
        value = f"nbt_{key}.{token['token']}" if key else str(token["token"])
        header = f"Bearer {value}" if key else f"Token {value}"
        yield Server("NetBox", version, url, value, header, process)


NAUTOBOT_CONFIG = """\
from nautobot.core.settings import *  # noqa: F403
ALLOWED_HOSTS = ["127.0.0.1"]
CACHES["default"]["LOCATION"] = "redis://127.0.0.1:{redis}/{cache}"  # noqa: F405
CELERY_BROKER_URL = "redis://127.0.0.1:{redis}/{tasks}"
"""


@contextlib.contextmanager
def nautobot(work: Path, scratch: Path, svc: Services, requirement: str) -> Iterator[Server]:
    """Nautobot from PyPI, migrated, a superuser and its token, served by its runserver."""
    bin_ = venv(work, requirement)
    root = scratch / requirement.replace("==", "-")
    root.mkdir()
    config = root / "nautobot_config.py"
    tasks = next(REDIS_DATABASES)
    config.write_text(NAUTOBOT_CONFIG.format(redis=svc.redis_port, tasks=tasks, cache=tasks + 1))
    env = {
        **os.environ,
        "NAUTOBOT_ROOT": str(root),
        "NAUTOBOT_CONFIG": str(config),
        "NAUTOBOT_DB_HOST": "127.0.0.1",
        "NAUTOBOT_DB_PORT": str(svc.pg_port),
        "NAUTOBOT_DB_USER": "postgres",
        "NAUTOBOT_DB_NAME": _database(requirement),
        "NAUTOBOT_REDIS_HOST": "127.0.0.1",
        "NAUTOBOT_REDIS_PORT": str(svc.redis_port),
        "NAUTOBOT_SECRET_KEY": secrets.token_urlsafe(48),
    }
    manage = [str(bin_ / "python"), str(bin_ / "nautobot-server")]
    migrated_database(svc, work, requirement, [*manage, "migrate", "--no-input"], env)
    _create_superuser(manage, env, "unused-" + secrets.token_hex(8))
    token = (
        _run(
            [
                *manage,
                "nbshell",
                "--command",
                "from nautobot.users.models import Token, User; "
                "print(Token.objects.create(user=User.objects.get(username='lossless')).key)",
            ],
            env=env,
        )
        .strip()
        .splitlines()[-1]
    )
    if not re.fullmatch(r"[0-9a-f]{40}", token):
        raise ServerError("Nautobot did not make a token")
    version = _run([str(bin_ / "python"), "-c", "import nautobot; print(nautobot.__version__)"])
    port = free_port()
    command = [*manage, "runserver", f"127.0.0.1:{port}", "--noreload", "--insecure"]
    with _serving(command, env, port, scratch / f"logs/{root.name}.log") as process:
        yield Server(
            "Nautobot",
            version.strip(),
            f"http://127.0.0.1:{port}",
            token,
            f"Token {token}",
            process,
        )


@contextlib.contextmanager
def scratch_folder() -> Iterator[Path]:
    folder = Path(tempfile.mkdtemp(prefix="lossless-servers-"))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":  # hold a server for a hand: `servers.py netbox|nautobot`
    work = cache_folder()
    work.mkdir(exist_ok=True)
    start = netbox if sys.argv[1:] == ["netbox"] else nautobot
    pins = {netbox: "netbox==4.7.3", nautobot: "nautobot==3.2.7"}
    with (
        scratch_folder() as scratch,
        services(scratch) as svc,
        start(work, scratch, svc, pins[start]) as server,
    ):
        (work / f"{server.kind.lower()}.env").write_text(
            f"URL={server.url}\nTOKEN={server.token}\nVERSION={server.version}\n"
        )
        print(server.kind, server.version, server.url, flush=True)
        with contextlib.suppress(KeyboardInterrupt):
            server.process.wait()
