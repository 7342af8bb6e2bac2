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


async def watch(
    index: VaultIndex,
    stop_event: anyio.Event | asyncio.Event,
    *,
    step_ms: int = STEP_MS,
    debounce_ms: int = DEBOUNCE_MS,
) -> None:
    """Apply every change under ``index.folder`` to ``index`` until ``stop_event`` is set
    (or the task is cancelled). Never raises for a file, permission or watcher error."""
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
    while not stop_event.is_set():
        try:
            async for changes in watchfiles.awatch(
                root,
                watch_filter=keep,
                stop_event=stop_event,
                step=step_ms,
                debounce=debounce_ms,
                ignore_permission_denied=True,
            ):
                paths = sorted({p for _, path in changes if (p := relative(path)) is not None})
                await _in_thread(functools.partial(index.refresh, paths), "update")
                delay = RETRY_SECONDS
            return  # stop_event was set
        except Exception as exc:
            log.warning(
                "vault watcher on %s failed (%s); watching again in %.0f s", root, exc, delay
            )
        with anyio.move_on_after(delay):
            await stop_event.wait()
        delay = min(delay * 2, MAX_RETRY_SECONDS)
        if not stop_event.is_set():
            await _in_thread(index.sync, "sync")


async def _in_thread(work: Callable[[], object], what: str) -> None:
    """``work()`` in a worker thread; an exception is logged, never raised."""
    try:
        await anyio.to_thread.run_sync(work)
    except Exception:
        log.warning("vault index %s failed", what, exc_info=True)
