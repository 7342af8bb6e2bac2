"""The head start: a child process walks the vault folder and catches its index up while the
server imports; the server takes both over, then walks again once calls pause."""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

import anyio
import pytest
from tests.conftest import mode_of

from vaultgate.engine.index import SyncReport, VaultIndex
from vaultgate.engine.index.database import default_location
from vaultgate.engine.vault import Vault
from vaultgate.engine.walk import FolderScan, scan_folder
from vaultgate.folder import indexing
from vaultgate.folder.backend import FolderBackend
from vaultgate.folder.head_start import HeadStart
from vaultgate.folder.indexing import KeptIndex
from vaultgate.locations import served_links

pytestmark = pytest.mark.anyio

TEMPORARY = "Folder #1/.a 100%.md.vaultgate-0123abcd.tmp"


@pytest.fixture
def indexed(awkward_vault: Path, tmp_path: Path) -> Path:
    """The awkward vault's index, built, then the vault changed while no server ran."""
    location = tmp_path / "index.sqlite3"
    with VaultIndex(awkward_vault, location=location) as index:
        index.sync()
    (awkward_vault / "Kelvin.md").write_text("now about a zeppelin 🚀\r\n", encoding="utf-8")
    (awkward_vault / "Sigma.md").unlink()
    (awkward_vault / "New #1 100%.md").write_text("a new zeppelin note\n", encoding="utf-8")
    (awkward_vault / "Folder #1").mkdir()
    (awkward_vault / TEMPORARY).write_text("half a note", encoding="utf-8")
    # a name that is not UTF-8: vault paths carry it as surrogate escapes
    (awkward_vault / os.fsdecode(b"caf\xe9 zeppelin.md")).write_text("x\n", encoding="utf-8")
    return location


def test_no_head_start_without_an_index_to_catch_up(awkward_vault: Path, tmp_path: Path) -> None:
    assert HeadStart.begin(awkward_vault, tmp_path / "index.sqlite3") is None


def test_the_child_hands_over_its_walk_and_catches_the_index_up(
    awkward_vault: Path, indexed: Path
) -> None:
    ahead = HeadStart.begin(awkward_vault, indexed)
    assert ahead is not None
    found = ahead.listing()
    assert ahead.caught_up()

    walked = scan_folder(str(awkward_vault))
    assert found is not None
    assert found.files == walked.files
    assert found.temporaries == walked.temporaries == [TEMPORARY]
    with VaultIndex(awkward_vault, location=indexed) as index:
        index.assume_synced()  # no sync in this process: the child's work is what is read
        assert index.files() == Vault(awkward_vault).markdown_files()
        assert sorted(index.candidates("zeppelin") or []) == sorted(
            [os.fsdecode(b"caf\xe9 zeppelin.md"), "Kelvin.md", "New #1 100%.md"]
        )


@pytest.mark.skipif(os.name != "posix", reason="mode bits mean little on Windows")
@pytest.mark.usefixtures("usual_umask")
def test_the_child_keeps_the_index_owner_only_when_it_builds_it_again(
    awkward_vault: Path,
) -> None:
    location = default_location(awkward_vault)  # in vaultgate's own cache folder
    with VaultIndex(awkward_vault, location=location) as index:
        index.sync()
    conn = sqlite3.connect(location)
    conn.execute("PRAGMA user_version = 1")  # of an older vaultgate: the child builds it again
    conn.close()
    for folder in (location.parent.parent, location.parent):
        folder.chmod(0o755)
    location.chmod(0o644)

    ahead = HeadStart.begin(awkward_vault, location)
    assert ahead is not None
    assert ahead.listing() is not None
    assert ahead.caught_up()

    assert mode_of(location) == 0o600
    assert mode_of(location.parent) == mode_of(location.parent.parent) == 0o700
    with VaultIndex(awkward_vault, location=location) as index:
        index.assume_synced()
        assert index.files() == Vault(awkward_vault).markdown_files()


def test_a_child_that_died_gives_nothing(awkward_vault: Path, indexed: Path) -> None:
    ahead = HeadStart.begin(awkward_vault, indexed)
    assert ahead is not None
    ahead.close()
    assert ahead.listing() is None
    assert not ahead.caught_up()


class _Gate:
    """A wait_idle the test opens: background work after the head start waits on it."""

    def __init__(self) -> None:
        self.reached, self.opened = threading.Event(), threading.Event()

    def __call__(self) -> bool:
        self.reached.set()
        return self.opened.wait(30)


async def test_the_server_takes_the_head_start_over_and_walks_again_once_idle(
    awkward_vault: Path, indexed: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    walks: list[str] = []
    real_scan, real_sync = indexing.scan_folder, VaultIndex.sync

    def recording_scan(root: str, under: str = "", **rules: Any) -> FolderScan:
        walks.append(f"walk {root}")
        return real_scan(root, under, **rules)

    def recording_sync(index: VaultIndex, *args: Any, **kwargs: Any) -> SyncReport:
        walks.append("sync")
        return real_sync(index, *args, **kwargs)

    real_watch = indexing.watch

    async def recording_watch(index: VaultIndex, stop: anyio.Event, **options: Any) -> None:
        walks.append("watch")  # (the real one sets its watches up in this same first step)
        await real_watch(index, stop, **options)

    monkeypatch.setattr(indexing, "scan_folder", recording_scan)
    monkeypatch.setattr(VaultIndex, "sync", recording_sync)
    monkeypatch.setattr(indexing, "watch", recording_watch)
    ahead = HeadStart.begin(awkward_vault, indexed)
    assert ahead is not None
    vault, gate = Vault(awkward_vault, scan=False, links=served_links("inside")), _Gate()
    kept = KeptIndex(
        vault.vault, vault, threading.RLock(), indexed, head_start=ahead, wait_idle=gate
    )
    async with kept.running():
        await kept.wait_opened()
        assert kept.ready  # answers at once, from the child's catch-up
        assert sorted(vault.files) == sorted(scan_folder(str(awkward_vault)).files)
        assert kept.index is not None
        assert "New #1 100%.md" in (kept.index.candidates("zeppelin") or [])
        await anyio.to_thread.run_sync(gate.reached.wait, 30)
        assert walks == []  # nothing walked, synced or watched in this process yet

        # a change the child's walk missed, perhaps before the watcher could see it: in,
        # whichever sees it, once the second walk is done
        (awkward_vault / "Late.md").write_text("a late zeppelin\n", encoding="utf-8")
        gate.opened.set()
        await kept.wait_settled()
        assert walks[:3] == ["watch", f"walk {vault.vault}", "sync"]
        assert "Late.md" in (kept.index.candidates("zeppelin") or [])
        assert vault.is_file("Late.md")


async def test_a_backend_given_a_dead_head_start_walks_and_syncs_itself(
    awkward_vault: Path, indexed: Path
) -> None:
    ahead = HeadStart.begin(awkward_vault, indexed)
    assert ahead is not None
    ahead.close()
    backend = FolderBackend(awkward_vault, index_location=indexed, head_start=ahead)
    async with backend.running():
        assert await backend.wait_until_indexed()
        hits = await backend.search_simple("zeppelin", 10)
    assert sorted(hit["filename"] for hit in hits) == sorted(
        [os.fsdecode(b"caf\xe9 zeppelin.md"), "Kelvin.md", "New #1 100%.md"]
    )


async def test_a_backend_given_a_head_start_serves_the_vault_as_it_is(
    awkward_vault: Path, indexed: Path
) -> None:
    ahead = HeadStart.begin(awkward_vault, indexed)
    backend = FolderBackend(awkward_vault, index_location=indexed, head_start=ahead)
    async with backend.running():
        hits = await backend.search_simple("zeppelin", 10)
        listed = await backend.list_files_below("")
        await backend.wait_until_settled()
    assert sorted(hit["filename"] for hit in hits) == sorted(
        [os.fsdecode(b"caf\xe9 zeppelin.md"), "Kelvin.md", "New #1 100%.md"]
    )
    assert "Sigma.md" not in listed
    assert not (awkward_vault / TEMPORARY).exists() or _young(awkward_vault / TEMPORARY)


def _young(path: Path) -> bool:
    return time.time() - path.stat().st_mtime < 3600
