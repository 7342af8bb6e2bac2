"""Keeping a vault index current while the server runs: one ``watchfiles`` watcher on the folder.

:func:`watch` is a task for the server's event loop. Each batch of changes the watcher reports
(after STEP_MS without a new one, or DEBOUNCE_MS at most while changes keep coming) becomes one
``VaultIndex.refresh`` of the changed paths, run in a worker thread. Hidden paths never reach it,
and with them the temporary files vaultgate writes before renaming them into place
(``.<name>.vaultgate-*.tmp``); a path that vanished or cannot be read is dropped from the index
by ``refresh`` itself. A batch that fails is logged and the watcher goes on; a watcher that
fails (the folder removed, no more inotify watches) is logged and started again after
RETRY_SECONDS (doubling while it keeps failing), and the index is synced with the folder then,
for what happened meanwhile.

Start the task before the index's first ``sync()``: a change made between that sync's scan of
the folder and the start of the watcher would otherwise wait for the next sync.

A :class:`WatchHealth` given to :func:`watch` says whether the watcher is keeping the index
current now (its watches set up, no failure since): while it does, the index's stat of a note
is the disk's within the watcher's delay, and a search may score the index's text without
checking the file (``folder/search.py``).
"""

from __future__ import annotations

import asyncio
import functools
import logging
import os
from collections.abc import Callable

import anyio
import anyio.to_thread
import watchfiles

from vaultgate.engine.index.vault_index import VaultIndex
from vaultgate.paths import is_hidden

log = logging.getLogger(__name__)

STEP_MS = 50  # a batch is handed over after this long without a new change
DEBOUNCE_MS = 400  # ... or after this long, while changes keep coming
RETRY_SECONDS = 2.0  # after a watcher failure, doubling up to MAX_RETRY_SECONDS
MAX_RETRY_SECONDS = 60.0


class WatchHealth:
    """Whether a watcher keeps its index current now; read from any thread."""

    def __init__(self) -> None:
        self.healthy = False


async def watch(
    index: VaultIndex,
    stop_event: anyio.Event | asyncio.Event,
    *,
    step_ms: int = STEP_MS,
    debounce_ms: int = DEBOUNCE_MS,
    health: WatchHealth | None = None,
) -> None:
    """Apply every change under ``index.folder`` to ``index`` until ``stop_event`` is set
    (or the task is cancelled). Never raises for a file, permission or watcher error.
    ``health``: healthy from the step that sets the watches up until a failure or the end."""
    health = health if health is not None else WatchHealth()
    root = str(index.folder)

    def relative(path: str) -> str | None:
        """The vault path of a reported path; None for a hidden one or one outside."""
        if path == root:
            return ""
        if not path.startswith(root + os.sep):
            return None
        vault_path = path[len(root) + 1 :].replace(os.sep, "/")
        return None if is_hidden(vault_path) else vault_path

    def keep(_change: watchfiles.Change, path: str) -> bool:
        return relative(path) is not None

    delay = RETRY_SECONDS
    try:
        while not stop_event.is_set():
            try:
                # no await before awatch's first step sets its watches up
                health.healthy = True
                async for changes in watchfiles.awatch(
                    root,
                    watch_filter=keep,
                    stop_event=stop_event,
                    step=step_ms,
                    debounce=debounce_ms,
                    ignore_permission_denied=True,
                ):
                    paths = sorted({p for _, path in changes if (p := relative(path)) is not None})
                    if not await _in_thread(functools.partial(index.refresh, paths), "update"):
                        # the index may hold these notes' old texts: not current until a sync
                        health.healthy = False
                        health.healthy = await _in_thread(index.sync, "sync")
                    delay = RETRY_SECONDS
                return  # stop_event was set
            except Exception as exc:
                health.healthy = False
                log.warning(
                    "vault watcher on %s failed (%s); watching again in %.0f s", root, exc, delay
                )
            with anyio.move_on_after(delay):
                await stop_event.wait()
            delay = min(delay * 2, MAX_RETRY_SECONDS)
            if not stop_event.is_set():
                await _in_thread(index.sync, "sync")
    finally:
        health.healthy = False


async def _in_thread(work: Callable[[], object], what: str) -> bool:
    """``work()`` in a worker thread; an exception is logged, never raised. Whether it
    succeeded."""
    try:
        await anyio.to_thread.run_sync(work)
    except Exception:
        log.warning("vault index %s failed", what, exc_info=True)
        return False
    return True
