"""The folder backend answers as the plugin does whether its vault index answers or not.

``test_cross_backend.py`` serves the folder as a fresh server does: the index is built in the
background, so its calls may run before or after the build. Here the same calls run with an
index already built (the server's start-up only brings it up to date, and waits for that),
and with no index at all (its file cannot be created: every search reads the notes).
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import platformdirs
import pytest
from tests.backends.test_cross_backend import (
    READS,
    WRITES,
    _compare,
    _emulate,
    _env,
    _run,
    _serve,
    _tree,
    copies,  # noqa: F401 (a fixture)
    emulators,  # noqa: F401 (a fixture)
)

from vaultgate.emulator.runner import RunningEmulator
from vaultgate.engine.index import VaultIndex
from vaultgate.engine.index.database import default_location


@pytest.mark.anyio
@pytest.mark.parametrize("index", ["built", "unavailable"])
async def test_the_folder_answers_as_the_plugin_with_its_index_built_or_unavailable(
    copies: tuple[Path, Path],  # noqa: F811
    emulators: list[RunningEmulator],  # noqa: F811
    index: Literal["built", "unavailable"],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    plugin_copy, folder_copy = copies
    calls = READS + WRITES
    async with _serve(_env(_emulate(plugin_copy, emulators))) as client:
        expected = await _run(client, calls)
    if index == "built":
        with VaultIndex(folder_copy, location=default_location(folder_copy)) as built:
            assert built.sync().notes > 10
    else:  # the cache "folder" is a file: the index file cannot be created below it
        blocker = tmp_path / "not a folder"
        blocker.write_text("", encoding="utf-8")
        monkeypatch.setattr(platformdirs, "user_cache_dir", lambda *_a, **_k: str(blocker))
    caplog.set_level("INFO", logger="vaultgate")
    folder_env = _env(None) | {"VAULTGATE_VAULT": str(folder_copy), "VAULTGATE_BACKEND": "folder"}
    async with _serve(folder_env) as client:
        got = await _run(client, calls)
    _compare(calls, expected, got)
    assert _tree(folder_copy) == _tree(plugin_copy)
    if index == "built":  # brought up to date at start, nothing read again
        assert any(
            r.getMessage().startswith("vault index:") and "(0 read, 0 removed)" in r.getMessage()
            for r in caplog.records
        ), caplog.text
    else:
        assert "cannot be opened" in caplog.text
