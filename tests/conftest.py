"""Shared by every test: the anyio backend, and an environment free of our variables."""

from __future__ import annotations

import os

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
