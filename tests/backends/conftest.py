"""A folder backend keeps its vault index under the user cache folder: in tests, a temporary one."""

from __future__ import annotations

from pathlib import Path

import platformdirs
import pytest


@pytest.fixture(autouse=True)
def _user_cache_in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The user cache folder, for this process and any it starts: never the real one."""
    cache = tmp_path / "user-cache"
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
    # platformdirs reads XDG_CACHE_HOME on Linux only; elsewhere this is what it answers
    monkeypatch.setattr(platformdirs, "user_cache_dir", lambda *_a, **_k: str(cache))
    return cache
