"""Shared by every test: the anyio backend, an environment free of our variables, what a
fresh interpreter imports, and the usual umask for tests of files at rest."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import platformdirs
import pytest


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """A developer's own OBSIDIAN_API_KEY or VAULTGATE_* must never leak into a test."""
    for name in list(os.environ):
        if name.startswith(("OBSIDIAN_", "VAULTGATE_")):
            monkeypatch.delenv(name)


@pytest.fixture(autouse=True)
def _user_cache_in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The user cache folder (where a folder backend keeps its vault index), for this process
    and any it starts: never the developer's own."""
    cache = tmp_path / "user-cache"
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
    if not sys.platform.startswith("linux"):  # platformdirs reads XDG_CACHE_HOME on Linux only
        monkeypatch.setattr(
            platformdirs, "user_cache_dir", lambda name="", *_a, **_k: str(cache / name)
        )
    return cache


@pytest.fixture(autouse=True)
def _user_config_in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The user config folder, where Linux's Obsidian keeps its vault list: a server started
    by a test never finds the developer's own vaults (vaultgate.discovery)."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "user-config"))


def modules_loaded_by(code: str) -> list[str]:
    """The modules a fresh interpreter has imported after running ``code``, which prints
    ``sys.modules`` one name a line."""
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.split()


@pytest.fixture
def usual_umask() -> Iterator[None]:
    """The process umask at 022, as for most users: what SQLite alone would make 0644."""
    before = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(before)


def mode_of(path: Path | str) -> int:
    """The permission bits of ``path``."""
    return stat.S_IMODE(os.stat(path).st_mode)
