"""The folder backend's vault index, open while the server runs, and the Vault kept current.

:meth:`KeptIndex.running` opens the index (``engine/index``), starts its watcher, then syncs
it with the folder in a worker thread. A first build (no index file yet) runs in the
background: the server answers meanwhile, searches by reading the notes, and each search
reports how far the build is to a client that asked for progress. An index file that exists
is only brought up to date, usually in well under a second: start-up waits for that, up to
CATCH_UP_SECONDS, so the first answers already use it. An index that cannot be opened (an
unwritable cache folder, a broken SQLite) is logged, and every search reads the notes.

The watcher refreshes the index on each change; the same refresh keeps the engine's
``Vault`` file list current for files created, removed or moved behind vaultgate's back (an
edit needs nothing: the Vault checks ``(mtime, size)`` on each read).
"""

from __future__ import annotations

import gc
import logging
import os
import threading
from collections.abc import AsyncIterator, Callable, Iterable
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import anyio.to_thread

from vaultgate.engine.index import SyncReport, VaultIndex
from vaultgate.engine.index.database import default_location
from vaultgate.engine.index.vault_index import Progress
from vaultgate.engine.index.watcher import watch
from vaultgate.engine.vault import Vault
from vaultgate.engine.vaultfs import sweep_temporaries
from vaultgate.paths import is_hidden

log = logging.getLogger(__name__)

CATCH_UP_SECONDS = 2.0  # start-up waits this long at most for an existing index to catch up


class _WatchedIndex(VaultIndex):
    """A VaultIndex that brings the Vault's file list along after each refresh and sync."""

    def __init__(self, folder: Path, vault: Vault, lock: threading.RLock, location: Path) -> None:
        super().__init__(folder, location=location)
        self._vault = vault
        self._vault_lock = lock

    def refresh(self, paths: Iterable[str]) -> None:
        paths = list(paths)
        super().refresh(paths)
        if self._files_changed(paths):
            with self._vault_lock:
                self._vault.refresh()

    def sync(self, progress: Progress | None = None) -> SyncReport:
        report = super().sync(progress)
        with self._vault_lock:  # for what changed before the watcher started
            self._vault.refresh()
        return report

    def _files_changed(self, paths: list[str]) -> bool:
        """Whether the Vault's file list misses a file at ``paths`` or holds one gone."""
        vault = self._vault
        for path in paths:
            if path == "":
                return True
            if is_hidden(path):
                continue
            disk = os.path.join(str(vault.vault), *path.split("/"))
            if os.path.isdir(disk):
                return True  # a folder moved in, or out of hiding: what it holds is new
            if os.path.isfile(disk):
                if not vault.is_file(path):
                    return True
            elif vault.is_file(path) or any(f.startswith(f"{path}/") for f in vault.files):
                return True
        return False


class KeptIndex:
    """The index of one vault folder while the server runs; ``index`` None before and after,
    and when it could not be opened."""

    def __init__(
        self,
        folder: Path,
        vault: Vault,
        lock: threading.RLock,
        location: Path | None,
        *,
        warm: Callable[[], object] | None = None,
    ) -> None:
        """``warm``: what to build once the Vault's file list is current (under the lock, in a
        worker thread, before the first sync), so the first call that needs it does not
        wait."""
        self.folder = folder
        self._warm = warm
        self._vault = vault
        self._lock = lock
        self._location = location
        self.index: VaultIndex | None = None
        self.building = False  # a first build runs: (done, total) tells how far
        self.done, self.total = 0, 0
        self._synced = anyio.Event()

    @property
    def ready(self) -> bool:
        return self.index is not None and self.index.ready

    async def wait_synced(self) -> bool:
        """Wait for the first sync to end; whether the index answers."""
        await self._synced.wait()
        return self.ready

    @asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        location = self._location or default_location(self.folder)
        existed = await anyio.to_thread.run_sync(location.exists)
        try:
            index = await anyio.to_thread.run_sync(
                lambda: _WatchedIndex(self.folder, self._vault, self._lock, location)
            )
        except Exception as exc:
            log.warning(
                "vault index %s cannot be opened (%s): searches read every note", location, exc
            )
            self._synced.set()
            yield
            return
        self.index = index
        stop = anyio.Event()
        failure: Exception | None = None  # the server's, raised as it is, not in a group
        try:
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(watch, index, stop)  # before the sync: no change falls between
                tasks.start_soon(self._first_sync, index, not existed)
                if existed:
                    with anyio.move_on_after(CATCH_UP_SECONDS):
                        await self._synced.wait()
                try:
                    yield
                except Exception as exc:
                    failure = exc
                finally:
                    stop.set()
                    tasks.cancel_scope.cancel()
        finally:
            self.index = None
            await anyio.to_thread.run_sync(index.close)
        if failure is not None:
            raise failure

    async def _first_sync(self, index: VaultIndex, first_build: bool) -> None:
        self.building = first_build

        def progress(done: int, total: int) -> None:
            self.done, self.total = done, total

        # first the Vault's file list again (what changed between its scan and the watcher's
        # start) and what is built from it, so the first calls do not wait for them
        await anyio.to_thread.run_sync(self._refresh_vault, abandon_on_cancel=True)
        try:
            await anyio.to_thread.run_sync(
                lambda: VaultIndex.sync(index, progress), abandon_on_cancel=True
            )
        except Exception:
            log.warning("vault index sync failed: searches read every note", exc_info=True)
        finally:
            self.building = False
            self._synced.set()
        # last, off the start's path: the temporary files of writes a crash killed (a walk of
        # the whole vault, 40-190 ms on 20,000 notes)
        await anyio.to_thread.run_sync(sweep_temporaries, self.folder, abandon_on_cancel=True)

    def _refresh_vault(self) -> None:
        with self._lock:
            self._vault.refresh()
            if self._warm is not None:
                self._warm()
        # The file list, folder tree and fold tables live as long as the server: out of every
        # full garbage collection from now on, which would otherwise walk them all again
        # (100-200 ms pauses in the middle of a large search).
        gc.freeze()
