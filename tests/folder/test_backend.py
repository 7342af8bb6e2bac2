"""The vault folder as a backend, at its boundary with the disk: what the disk refuses comes
back as vaultgate's own errors, never as an internal error."""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable
from pathlib import Path

import anyio
import pytest

from vaultgate.errors import NameTooLong
from vaultgate.folder.backend import FolderBackend

pytestmark = pytest.mark.anyio

# Three names of 234 bytes: a vault path of 707 bytes passes every up-front check, but a vault
# folder nested ~3,600 bytes deep puts it past the 4,096 bytes Linux holds in a whole path.
DEEP = "/".join(["日本語 🚀 #1 100%" * 10 + "日本語 🚀"] * 3) + ".md"


@pytest.fixture
def deep_vault(tmp_path: Path) -> Path:
    root = tmp_path.joinpath(*["v" * 250] * 14)
    root.mkdir(parents=True)
    (root / "Welcome.md").write_text("# Welcome\n", encoding="utf-8")
    limit = os.pathconf(root, "PC_PATH_MAX")
    if len(os.fsencode(root)) + 1 + len(DEEP.encode()) <= limit:
        pytest.skip(f"this disk holds paths of {limit} bytes")
    return root


@pytest.mark.parametrize(
    "call",
    [
        pytest.param(lambda b: b.write_note(DEEP, "# Deep\n"), id="create"),
        pytest.param(lambda b: b.append_note(DEEP, "more\n"), id="append"),
        pytest.param(lambda b: b.move_note("Welcome.md", DEEP, overwrite=False), id="move"),
    ],
)
async def test_a_path_the_disk_refuses_as_too_long_names_the_disk_s_limits(
    deep_vault: Path, call: Callable[[FolderBackend], Awaitable[object]]
) -> None:
    backend = FolderBackend(deep_vault, index_location=deep_vault.parent / "index")

    with pytest.raises(NameTooLong) as caught:
        await call(backend)

    message = str(caught.value)
    assert "the disk refused it as too long for the file system the vault is on" in message
    assert f"{os.pathconf(deep_vault, 'PC_NAME_MAX'):,} bytes per name" in message
    assert f"{os.pathconf(deep_vault, 'PC_PATH_MAX'):,} bytes per path" in message
    assert f"takes {len(os.fsencode(deep_vault)):,} bytes" in message
    assert "日本語 🚀 #1 100%" in message
    assert DEEP not in message
    assert (deep_vault / "Welcome.md").exists()


async def test_start_up_builds_the_folder_tree_before_the_first_listing(
    awkward_vault: Path, tmp_path: Path
) -> None:
    backend = FolderBackend(awkward_vault, index_location=tmp_path / "index.sqlite3")
    async with backend.running():
        await backend.wait_until_settled()
        tree = backend._tree  # built while idle: the first listing does not pay for it
        assert tree is not None
        assert tree.files is backend._vault.files
        assert "100% done/" in await backend.list_directory("")
        assert backend._tree is tree
        assert "100% done/日本語 notes.md" in (await backend.list_files_below("") or [])


async def test_a_broad_search_sees_every_change_while_the_watcher_keeps_the_index(
    awkward_vault: Path, tmp_path: Path
) -> None:
    backend = FolderBackend(awkward_vault, index_location=tmp_path / "index.sqlite3")

    async def first() -> str:
        return (await backend.search_simple("project", 20))[0]["filename"]

    async with backend.running():
        await backend.wait_until_settled()
        assert backend._index.watched  # so the search scores without a stat per note
        assert await first() == "Big note.md"
        # vaultgate's own write: indexed before the next search
        await backend.write_note("100% done/日本語 notes.md", "project\r\n" * 20_000)
        assert await first() == "100% done/日本語 notes.md"
        # another writer that says so (the plugin, folder/through_plugin.py): at once too
        (awkward_vault / "Straße #1.md").write_text("🚀project " * 30_000, encoding="utf-8")
        await backend.changed_elsewhere(["Straße #1.md"])
        assert await first() == "Straße #1.md"
        # behind vaultgate's back: after the watcher's delay (under a second)
        (awkward_vault / "CRLF note.md").write_text("PROJECT\r\n" * 40_000, encoding="utf-8")
        with anyio.fail_after(10):
            while await first() != "CRLF note.md":  # noqa: ASYNC110 (no event to wait on)
                await anyio.sleep(0.02)
    assert not backend._index.watched  # stopped: a search would stat every note again
