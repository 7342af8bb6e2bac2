"""The folder backend's vault index, open while the server runs, and the Vault kept current.

:meth:`KeptIndex.running` returns at once: the server answers ``initialize`` without waiting
for the folder. In the background it opens the index (``engine/index``), starts its watcher,
walks the folder once for both the Vault's file list and the index's comparison with the
disk, and syncs the index. Calls wait for what they need (:meth:`KeptIndex.wait_opened`):
the file list, and an existing index brought up to date (usually well under a second; at most
CATCH_UP_SECONDS after the start). A first build (no index file yet) is not waited for:
searches read the notes meanwhile, and each reports how far the build is to a client that
asked for progress. An index that cannot be opened (an unwritable cache folder, a broken
SQLite) is logged, and every search reads the notes.

The watcher refreshes the index on each change; the same refresh keeps the engine's
``Vault`` file list current for files created, removed or moved behind vaultgate's back (an
edit needs nothing: the Vault checks ``(mtime, size)`` on each read).
"""

from __future__ import annotations

import gc
import logging
import os
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterable, Mapping, Sequence
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import anyio.lowlevel
import anyio.to_thread

from vaultgate.engine.index import IndexedText, SyncReport, VaultIndex
from vaultgate.engine.index.database import default_location
from vaultgate.engine.index.scan import Stat
from vaultgate.engine.index.vault_index import Progress, TextMirror
from vaultgate.engine.index.watcher import WatchHealth, watch
from vaultgate.engine.vault import Vault
from vaultgate.engine.walk import FolderScan, scan_folder
from vaultgate.folder.head_start import HeadStart
from vaultgate.logs import NOTICES
from vaultgate.paths import is_hidden

log = logging.getLogger(__name__)
notices = logging.getLogger(NOTICES)

CATCH_UP_SECONDS = 2.0  # calls wait this long at most for an existing index to catch up


def built_share(done: int, total: int) -> int | None:
    """How far a first build is, in whole percent (None before the notes are counted). What
    the model is told: a count of notes would count the hidden and denied ones too."""
    if total <= 0:
        return None
    return min(100, done * 100 // total)


class Mirrors:
    """Several TextMirrors told as one (the search's texts, the note vectors); one may join
    later, before the index's first sync ends."""

    def __init__(self, *mirrors: TextMirror) -> None:
        self._mirrors = list(mirrors)

    def add(self, mirror: TextMirror) -> None:
        self._mirrors = [*self._mirrors, mirror]  # a new list: a write may be iterating

    def stored(self, texts: Sequence[IndexedText]) -> None:
        for mirror in self._mirrors:
            mirror.stored(texts)

    def dropped(self, paths: Sequence[str]) -> None:
        for mirror in self._mirrors:
            mirror.dropped(paths)


class _WatchedIndex(VaultIndex):
    """A VaultIndex that brings the Vault's file list along after each refresh and sync."""

    def __init__(
        self,
        folder: Path,
        vault: Vault,
        lock: threading.RLock,
        location: Path,
        mirror: TextMirror | None,
    ) -> None:
        super().__init__(folder, location=location, mirror=mirror, links=vault.link_rules)
        self._vault = vault
        self._vault_lock = lock

    def refresh(self, paths: Iterable[str]) -> None:
        paths = list(paths)
        super().refresh(paths)
        if self._files_changed(paths):
            with self._vault_lock:
                self._vault.refresh()
            self.generation.bump()  # the file list moved after the index did: an attachment

    def sync(
        self, progress: Progress | None = None, *, disk: Mapping[str, Stat] | None = None
    ) -> SyncReport:
        """As VaultIndex.sync; without ``disk``, the one walk also gives the Vault its list
        (a sync after a head start, or after the watcher failed: what changed meanwhile)."""
        if disk is None:
            found = scan_folder(str(self.folder), rules=self._vault.link_rules)
            with self._vault_lock:
                self._vault.install(found.files, found.links)
            disk = found.notes
            self.generation.bump()  # the file list may have changed where no note did
        return super().sync(progress, disk=disk)

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
        after_sync: Callable[[FolderScan], object] | None = None,
        mirror: TextMirror | None = None,
        head_start: HeadStart | None = None,
        wait_idle: Callable[[], bool] | None = None,
    ) -> None:
        """``vault``: not scanned yet (``Vault(folder, scan=False)``): its file list comes
        from the one walk at start. ``after_sync``: what to do in a worker thread once the
        index is up to date, given the start's walk, off every call's path (it takes the
        lock itself, as often as it needs). ``mirror``: told of every text the index stores
        or drops (the search's copy in memory). ``head_start``: a child process already at
        work on the walk and the index (``head_start.py``), taken over by ``running``.
        ``wait_idle``: blocks until no call runs, and says whether the server still does:
        background work after a head start waits for it."""
        self.folder = folder
        self._after_sync = after_sync
        self._mirror = mirror
        self._vault = vault
        self._lock = lock
        self._location = location
        self._head_start = head_start
        self._wait_idle = wait_idle
        self.index: VaultIndex | None = None
        self.building = False  # a first build runs: (done, total) tells how far
        self.done, self.total = 0, 0
        self.listed = False  # the Vault has its file list
        self._listed: anyio.Event | None = None
        self._synced: anyio.Event | None = None
        self._settled: anyio.Event | None = None  # start-up's background work is done
        self._catch_up_until = 0.0  # monotonic; 0 when there is nothing to wait for
        self._health = WatchHealth()

    @property
    def ready(self) -> bool:
        return self.index is not None and self.index.ready

    @property
    def watched(self) -> bool:
        """Whether the index is ready and its watcher keeps it current now: the index's
        stat of a note is then the disk's, the watcher's delay (under a second) aside."""
        return self._health.healthy and self.ready

    def generation(self) -> int | None:
        """The index's generation while its watcher keeps it current (every change on disk
        moves it, within the watcher's delay); None otherwise: nothing says when the folder
        changes then, so whoever asks must ask the folder again."""
        index = self.index
        if index is None or not self.watched:
            return None
        return index.generation.value

    @property
    def opening(self) -> bool:
        """Inside ``running``: the background opening answers ``wait_opened``."""
        return self._listed is not None

    async def wait_opened(self) -> None:
        """Inside ``running``: until the Vault has its file list and an existing index has
        caught up with the folder (CATCH_UP_SECONDS after the start at most)."""
        if self._listed is None or self._synced is None:
            return
        await self._listed.wait()
        remaining = self._catch_up_until - time.monotonic()
        if remaining > 0 and not self._synced.is_set():
            with anyio.move_on_after(remaining):
                await self._synced.wait()

    async def wait_synced(self) -> bool:
        """Inside ``running``: wait for the first sync to end; whether the index answers."""
        if self._synced is not None:
            await self._synced.wait()
        return self.ready

    async def wait_settled(self) -> None:
        """Inside ``running``: until start-up's work is done, ``after_sync`` included (or
        could not be done)."""
        if self._settled is not None:
            await self._settled.wait()

    @asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        self._listed, self._synced, self._settled = anyio.Event(), anyio.Event(), anyio.Event()
        stop = anyio.Event()
        failure: Exception | None = None  # the server's, raised as it is, not in a group
        try:
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(self._keep, stop)
                try:
                    yield
                except Exception as exc:
                    failure = exc
                finally:
                    stop.set()  # first: the watcher's thread sees it at its next step
                    tasks.cancel_scope.cancel()
        finally:
            self._listed = self._synced = self._settled = None
        if failure is not None:
            raise failure

    async def _keep(self, stop: anyio.Event) -> None:
        """Open, watch and sync the index until cancelled; close it then."""
        location = self._location or default_location(self.folder)
        existed = await anyio.to_thread.run_sync(location.exists)
        if existed:
            self._catch_up_until = time.monotonic() + CATCH_UP_SECONDS
        ahead, self._head_start = self._head_start, None
        try:
            found = await self._take_head_start(ahead, location) if existed and ahead else None
        finally:
            if ahead is not None:
                ahead.close()
        try:
            index = await anyio.to_thread.run_sync(
                lambda: _WatchedIndex(self.folder, self._vault, self._lock, location, self._mirror)
            )
        except Exception as exc:
            log.warning(
                "vault index %s cannot be opened (%s): searches read every note", location, exc
            )
            if not self.listed:
                walked = await anyio.to_thread.run_sync(self._walk)
                await anyio.to_thread.run_sync(lambda: self._list(walked))
            self._mark(self._listed, self._synced, self._settled)
            return
        self.index = index
        try:
            async with anyio.create_task_group() as tasks:
                if found is None:
                    tasks.start_soon(
                        self._watch, index, stop
                    )  # before the walk: none falls between
                    tasks.start_soon(self._first_sync, index, not existed)
                else:  # the head start's child walked and caught the index up
                    index.assume_synced()
                    self._mark(self._synced)
                    tasks.start_soon(self._after_head_start, index, found, stop)
        finally:
            self.index = None
            with anyio.CancelScope(shield=True):
                await anyio.to_thread.run_sync(index.close)

    async def _watch(self, index: VaultIndex, stop: anyio.Event) -> None:
        await watch(index, stop, health=self._health)

    async def _take_head_start(self, ahead: HeadStart, location: Path) -> FolderScan | None:
        """The child's walk, given to the Vault, when the child also caught the index up;
        else None (its walk may still have been given: the first sync walks again)."""
        if (ahead.folder, ahead.location, ahead.rules) != (
            self.folder,
            location,
            self._vault.link_rules,
        ):
            return None  # started for another vault or index (cannot happen from the CLI)
        found = await anyio.to_thread.run_sync(ahead.listing, abandon_on_cancel=True)
        if found is None:
            return None
        await anyio.to_thread.run_sync(lambda: self._list(found), abandon_on_cancel=True)
        self._mark(self._listed)
        caught_up = await anyio.to_thread.run_sync(ahead.caught_up, abandon_on_cancel=True)
        return found if caught_up else None

    async def _after_head_start(
        self, index: VaultIndex, found: FolderScan, stop: anyio.Event
    ) -> None:
        """Once the calls pause (``wait_idle``): the watcher, then a second walk and sync for
        what changed between the child's walk and the watcher's start, then ``after_sync``.

        The watcher waits for the pause too: ``watchfiles`` sets up its watches (one per
        folder: about 0.1 s for 2,000 folders) on the event loop, holding the interpreter,
        and the first calls after a start are the ones a client waits on. Until then, a note
        changed behind vaultgate's back after the child's walk is not seen."""
        wait_idle = self._wait_idle
        try:
            if wait_idle is not None and not await anyio.to_thread.run_sync(
                wait_idle, abandon_on_cancel=True
            ):
                return  # the server is leaving
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(self._watch, index, stop)
                # its first step sets its watches up, all in one go (no await before they
                # are set): only then may the second walk start, or a change could fall
                # between the two
                await anyio.lowlevel.checkpoint()
                try:
                    # (the _WatchedIndex walks, and brings the Vault's file list along)
                    await anyio.to_thread.run_sync(index.sync, abandon_on_cancel=True)
                    await self._run_after_sync(found)
                except Exception:
                    log.warning("vault index sync failed after the head start", exc_info=True)
                finally:
                    gc.freeze()
                    self._mark(self._settled)
        finally:
            self._mark(self._settled)

    async def _first_sync(self, index: VaultIndex, first_build: bool) -> None:
        self.building = first_build

        def progress(done: int, total: int) -> None:
            self.done, self.total = done, total

        # one walk for the file list and the index's comparison with the disk
        found = await anyio.to_thread.run_sync(self._walk, abandon_on_cancel=True)
        await anyio.to_thread.run_sync(lambda: self._list(found), abandon_on_cancel=True)
        self._mark(self._listed)
        try:
            synced = await anyio.to_thread.run_sync(
                lambda: index.sync(progress, disk=found.notes),
                abandon_on_cancel=True,
            )
            if first_build:  # seconds of work, once: said at the default level, not a warning
                notices.info(
                    "vault index built for %s: %d notes in %.1f s (later starts only bring "
                    "it up to date)",
                    self.folder,
                    synced.notes,
                    synced.seconds,
                )
            else:  # with -v: when a later start's index answers (bench/default_config.py)
                log.info(
                    "vault index up to date for %s: %d notes in %.1f s",
                    self.folder,
                    synced.notes,
                    synced.seconds,
                )
        except Exception:
            log.warning("vault index sync failed: searches read every note", exc_info=True)
        finally:
            self.building = False
            gc.freeze()  # what the index keeps in memory (its texts) lives as long too
            self._mark(self._synced)
        try:  # last, off the start's path
            await self._run_after_sync(found)
        finally:
            gc.freeze()
            self._mark(self._settled)

    async def _run_after_sync(self, found: FolderScan) -> None:
        after_sync = self._after_sync
        if after_sync is not None:
            await anyio.to_thread.run_sync(lambda: after_sync(found), abandon_on_cancel=True)

    def _walk(self) -> FolderScan:
        return scan_folder(str(self.folder), rules=self._vault.link_rules)

    def _list(self, found: FolderScan) -> None:
        with self._lock:
            self._vault.install(found.files, found.links)
        self.listed = True
        # The file list (and what is built from it) lives as long as the server: out of every
        # full garbage collection from now on, which would otherwise walk them all again
        # (100-200 ms pauses in the middle of a large search).
        gc.freeze()

    @staticmethod
    def _mark(*events: anyio.Event | None) -> None:
        for event in events:
            if event is not None:
                event.set()
