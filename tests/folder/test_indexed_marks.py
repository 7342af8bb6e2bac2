"""The index's marked notes are asked once per change of the index, and every change is seen:
vaultgate's writes, the watcher's refresh, another writer told through ``changed_elsewhere``."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from vaultgate.engine.index import VaultIndex
from vaultgate.folder.backend import FolderBackend
from vaultgate.folder.indexed_marks import IndexedMarks

pytestmark = pytest.mark.anyio

HIDDEN_NOTE = "---\r\ntags: [mcp-hidden]\r\n---\r\n# 秘密 🚀 #1 100%\r\n"


def _likes(index: VaultIndex) -> list[str]:
    """The statements the index runs from now on that scan for marks (read, not changed)."""
    seen: list[str] = []
    index._conn.set_trace_callback(lambda sql: seen.append(sql) if "LIKE" in sql else None)
    return seen


def test_the_marks_are_asked_again_only_after_the_index_changes(
    awkward_vault: Path, tmp_path: Path
) -> None:
    marks = IndexedMarks()
    with VaultIndex(awkward_vault, location=tmp_path / "index.sqlite3", mirror=marks) as index:
        index.sync()
        likes = _likes(index)
        assert marks.marked(index) == {}
        assert marks.marked(index) == {}
        assert len(likes) == 1
        (awkward_vault / "Straße #1.md").write_text(HIDDEN_NOTE, encoding="utf-8")
        index.note_written("Straße #1.md")
        found = marks.marked(index)
        assert found is not None
        assert found["Straße #1.md"].hidden
        assert len(likes) == 2
        (awkward_vault / "Straße #1.md").unlink()
        index.note_removed("Straße #1.md")
        assert marks.marked(index) == {}


def test_an_answer_read_while_the_index_changed_is_not_kept(
    awkward_vault: Path, tmp_path: Path
) -> None:
    marks = IndexedMarks()
    with VaultIndex(awkward_vault, location=tmp_path / "index.sqlite3", mirror=marks) as index:
        index.sync()
        real = index.tags_mentioning

        def changed_meanwhile(text: str) -> object:
            rows = real(text)  # read before the change below commits
            (awkward_vault / "Kelvin.md").write_text(HIDDEN_NOTE, encoding="utf-8")
            index.note_written("Kelvin.md")
            return rows

        index.tags_mentioning = changed_meanwhile  # type: ignore[method-assign]
        assert marks.marked(index) == {}  # the rows as read
        index.tags_mentioning = real  # type: ignore[method-assign]
        found = marks.marked(index)
        assert found is not None
        assert set(found) == {"Kelvin.md"}


async def test_the_backend_sees_marks_written_through_it_and_on_disk(
    awkward_vault: Path, tmp_path: Path
) -> None:
    backend = FolderBackend(awkward_vault, index_location=tmp_path / "index.sqlite3")
    async with backend.running():
        await backend.wait_until_settled()
        assert await backend.marked_notes() == {}
        await backend.write_note("100% done/秘密 #1.md", HIDDEN_NOTE)
        assert set(await backend.marked_notes()) == {"100% done/秘密 #1.md"}  # at once
        (awkward_vault / "Sigma.md").write_text(HIDDEN_NOTE, encoding="utf-8")
        with anyio.fail_after(10):  # the watcher's delay: well under a second
            while "Sigma.md" not in await backend.marked_notes():  # noqa: ASYNC110 (no event to wait on)
                await anyio.sleep(0.02)
        (awkward_vault / "Kelvin.md").write_text(HIDDEN_NOTE, encoding="utf-8")
        await backend.changed_elsewhere(["Kelvin.md"])
        assert "Kelvin.md" in await backend.marked_notes()  # at once
