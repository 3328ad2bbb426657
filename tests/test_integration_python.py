"""tests/integration/servers.py finds a Python 3.12 or newer for the NetBox and Nautobot
servers (NetBox 4.x requires it) without a hard-coded path, and says so clearly when there is
none."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from conftest import REPO

sys.path.insert(0, str(REPO / "tests" / "integration"))
import servers


def _fake_python(path: Path, version: str) -> Path:
    """An executable answering the version probe as that Python would."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"#!/bin/sh\necho {version.replace('.', ' ')}\n")
    path.chmod(0o755)
    return path


@pytest.fixture
def bare(tmp_path, monkeypatch):
    """No pyenv, no python3.12 on PATH, no LOSSLESS_SERVER_PYTHON."""
    empty = tmp_path / "bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("PYENV_ROOT", raising=False)
    monkeypatch.delenv("LOSSLESS_SERVER_PYTHON", raising=False)
    return tmp_path


def test_no_python_312_is_a_clear_error(bare):
    _fake_python(bare / "home/.pyenv/versions/3.11.7/bin/python3", "3.11")
    with pytest.raises(servers.ServerError, match=r"need Python 3\.12 or newer: none found"):
        servers.find_python()


def test_the_newest_under_pyenv_is_taken(bare):
    _fake_python(bare / "home/.pyenv/versions/3.11.7/bin/python3", "3.11")
    _fake_python(bare / "home/.pyenv/versions/3.12.1/bin/python3", "3.12")
    newest = _fake_python(bare / "home/.pyenv/versions/3.13.0/bin/python3", "3.13")
    assert servers.find_python() == newest


def test_pyenv_root_and_path_are_looked_in(bare, monkeypatch):
    root = bare / "elsewhere"
    found = _fake_python(root / "versions/3.12.4/bin/python3", "3.12")
    monkeypatch.setenv("PYENV_ROOT", str(root))
    assert servers.find_python() == found
    monkeypatch.delenv("PYENV_ROOT")
    on_path = _fake_python(bare / "bin/python3.13", "3.13")
    assert servers.find_python() == on_path
