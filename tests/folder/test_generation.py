"""The folder backend's generation: None while no watcher keeps the index current, and moved
by every change once it does (on disk, by the watcher; by vaultgate's own writes, at once);
a later page cut from an older answer says the vault changed since."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import anyio
import pytest

from vaultgate.folder.backend import FolderBackend
from vaultgate.vault.search import VaultSearcher

pytestmark = pytest.mark.anyio

WAIT = 10.0  # seconds: the watcher's delay is well under one


async def _until(check: Callable[[], bool]) -> None:
    with anyio.fail_after(WAIT):
        while not check():  # noqa: ASYNC110 (no event to wait on)
            await anyio.sleep(0.02)


def _write(vault: Path, path: str, data: str | bytes) -> None:
    target = vault / path
    target.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, bytes):
        target.write_bytes(data)
    else:
        with target.open("w", encoding="utf-8", newline="") as out:
            out.write(data)


async def test_the_generation_moves_with_every_change_once_watched(
    awkward_vault: Path, tmp_path: Path
) -> None:
    backend = FolderBackend(awkward_vault, index_location=tmp_path / "index.sqlite3")
    assert backend.generation() is None  # not running: nothing keeps the index current
    async with backend.running():
        await backend.wait_until_settled()
        await _until(lambda: backend.generation() is not None)
        seen = [backend.generation()]

        await backend.write_note("Inbox/new #1 日本.md", "written through vaultgate 🚀\r\n")
        seen.append(backend.generation())  # at once

        _write(awkward_vault, "Projects/edited 100% 🧪.md", "written by an editor\r\n")
        await _until(lambda: backend.generation() != seen[-1])
        seen.append(backend.generation())

        _write(awkward_vault, "Attachments/picture #2.png", b"\x89PNG\r\n\x1a\n")
        await _until(lambda: backend.generation() != seen[-1])
        seen.append(backend.generation())

    assert len(set(seen)) == len(seen)
    assert backend.generation() is None  # stopped


async def test_a_later_page_from_before_a_change_on_disk_says_so(
    awkward_vault: Path, tmp_path: Path
) -> None:
    _write(awkward_vault, "Inbox/quokka one.md", "quokka 日本語\r\n")
    _write(awkward_vault, "Inbox/quokka two.md", "quokka 🚀\r\n")
    backend = FolderBackend(awkward_vault, index_location=tmp_path / "index.sqlite3")
    searcher = VaultSearcher(backend)
    async with backend.running():
        await backend.wait_until_settled()
        await _until(lambda: backend.generation() is not None)
        first = await searcher.simple("quokka", context_length=20)
        unchanged = await searcher.simple("quokka", context_length=20, offset=1)
        before = backend.generation()

        _write(awkward_vault, "Inbox/quokka three #3.md", "quokka café\r\n")
        await _until(lambda: backend.generation() != before)
        later = await searcher.simple("quokka", context_length=20, offset=1)
        again = await searcher.simple("quokka", context_length=20)

    assert len(first.value) == len(unchanged.value) == len(later.value) == 2
    assert first.notice is None
    assert unchanged.notice is None
    assert later.notice is not None
    assert "The vault changed after the first page" in later.notice
    assert len(again.value) == 3
    assert again.notice is None
