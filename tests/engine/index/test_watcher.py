"""The watcher keeps an index current while it runs, and stops when told.

Nothing here asserts a duration: each test waits (up to WAIT seconds) for the index to show a
change, and fails only if it never does.
"""

from __future__ import annotations

import shutil
from collections.abc import AsyncIterator, Callable, Iterable
from pathlib import Path

import anyio
import anyio.to_thread
import pytest
from tests.engine.index.conftest import write

from vaultgate.engine.index import VaultIndex
from vaultgate.engine.index.watcher import watch

pytestmark = pytest.mark.anyio

WAIT = 10.0


async def eventually(check: Callable[[], bool]) -> None:
    """Poll ``check``: the index's state has no event to wait on."""
    with anyio.fail_after(WAIT):
        while not await anyio.to_thread.run_sync(check):  # noqa: ASYNC110
            await anyio.sleep(0.02)


class Watched:
    def __init__(self, index: VaultIndex, folder: Path) -> None:
        self.index = index
        self.folder = folder
        self._probes = 0

    def found(self, query: str) -> list[str]:
        return self.index.candidates(query) or []

    async def until_watching(self) -> None:
        """The watcher starts in the background: write probe notes until one is indexed."""
        with anyio.fail_after(WAIT):
            while True:
                self._probes += 1
                name = f"probe{self._probes}"
                write(self.folder, f"{name}.md", "probe")
                with anyio.move_on_after(0.5):
                    await eventually(lambda name=name: f"{name}.md" in self.found(name))
                    return


@pytest.fixture
async def watched(vault: Path, index_at: Path) -> AsyncIterator[Watched]:
    with VaultIndex(vault, location=index_at) as index:
        stop = anyio.Event()
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(watch, index, stop)
            await anyio.to_thread.run_sync(index.sync)
            yield Watched(index, vault)
            stop.set()  # the task group then waits for watch() to return


async def test_an_edit_saved_in_the_folder_is_indexed(watched: Watched) -> None:
    await watched.until_watching()
    write(watched.folder, "Welcome.md", "# Welcome\n\nNow about zeppelins.\n")
    await eventually(lambda: watched.found("zeppelins") == ["Welcome.md"])


async def test_notes_created_removed_and_folders_renamed_are_followed(watched: Watched) -> None:
    await watched.until_watching()
    write(watched.folder, "Inbox/idea.md", "a marmalade idea")
    await eventually(lambda: watched.found("marmalade") == ["Inbox/idea.md"])
    (watched.folder / "Inbox").rename(watched.folder / "Ideas")
    await eventually(lambda: watched.found("marmalade") == ["Ideas/idea.md"])
    shutil.rmtree(watched.folder / "Ideas")
    await eventually(lambda: watched.found("marmalade") == [])


async def test_hidden_files_and_vaultgate_s_temporary_files_are_not_indexed(
    watched: Watched,
) -> None:
    await watched.until_watching()
    write(watched.folder, ".Welcome.md.vaultgate-1a2b.tmp", "half written gazpacho")
    write(watched.folder, ".obsidian/notes.md", "hidden gazpacho")
    write(watched.folder, "Welcome.md", "whole gazpacho")
    await eventually(lambda: watched.found("gazpacho") == ["Welcome.md"])
    assert not any(path.startswith(".") for path in watched.index.files() or [])


class FailingOnce(VaultIndex):
    """An index whose first refresh fails, as a disk or SQLite error would."""

    failed = False

    def refresh(self, paths: Iterable[str]) -> None:
        if not self.failed:
            self.failed = True
            raise OSError("the disk said no")
        super().refresh(paths)


async def test_a_failed_update_is_logged_and_the_watcher_goes_on(
    vault: Path, index_at: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with FailingOnce(vault, location=index_at) as index:
        index.sync()
        stop = anyio.Event()
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(watch, index, stop)
            watched = Watched(index, vault)
            await watched.until_watching()
            write(vault, "Welcome.md", "a quokka")
            await eventually(lambda: watched.found("quokka") == ["Welcome.md"])
            stop.set()
    assert index.failed
    assert "vault index update failed" in caplog.text


async def test_the_watcher_survives_its_folder_vanishing_and_stops_when_told(
    vault: Path, index_at: Path
) -> None:
    with VaultIndex(vault, location=index_at) as index:
        index.sync()
        stop = anyio.Event()
        with anyio.fail_after(WAIT):
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(watch, index, stop)
                await Watched(index, vault).until_watching()
                shutil.rmtree(vault)
                await eventually(lambda: index.files() == [])
                stop.set()


async def test_a_stopped_watcher_returns_at_once(vault: Path, index_at: Path) -> None:
    with VaultIndex(vault, location=index_at) as index:
        stop = anyio.Event()
        stop.set()
        with anyio.fail_after(WAIT):
            await watch(index, stop)
