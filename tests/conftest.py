"""Shared by every test: the anyio backend, an environment free of our variables, and what a
fresh interpreter imports."""

from __future__ import annotations

import os
import subprocess
import sys

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


def modules_loaded_by(code: str) -> list[str]:
    """The modules a fresh interpreter has imported after running ``code``, which prints
    ``sys.modules`` one name a line."""
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.split()
