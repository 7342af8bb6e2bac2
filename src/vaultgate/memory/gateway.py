"""MemoryGateway: the store for async tools, off the event loop, one thread at a time.

sqlite3 blocks, so each call runs in a worker thread (anyio.to_thread) and the event loop keeps
serving other requests. The store has one connection (``:memory:`` would otherwise be a new,
empty database per connection); a lock lets one worker at a time use it, so two tool calls never
interleave statements inside one transaction. Between processes, SQLite's own locking and the
store's BEGIN IMMEDIATE + retry take over.

The file is opened on the first call, not at server start: tools that never touch memory never
create the file, and a bad VAULTGATE_MEMORY_DB breaks only the memory tools, with a message. The
store's modules are imported then too, so a server start does not wait for them.

Quiet moments: once the store is open, one daemon thread waits for IDLE_SECONDS without a call
and then does the work no request should pay for (``MemoryStore.when_idle``): it removes the
search-index entries compactions left (removals.py), embeds a batch of observations that have
no vector yet (vectors.py, with the semantic extra; while some remain it comes back for the
next batch after VECTOR_PAUSE) and checkpoints the WAL (wal.py), holding the same lock, so none
of it is ever inside a request's transaction. A call that arrives meanwhile waits for it, as it
would for another call.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

import anyio.to_thread

from vaultgate.memory.wal import IDLE_SECONDS

if TYPE_CHECKING:
    from vaultgate.memory.store import Clock, MemoryStore

T = TypeVar("T")

VECTOR_PAUSE = 0.05  # seconds between two batches of observations embedded at quiet moments

log = logging.getLogger(__name__)


class MemoryGateway:
    def __init__(
        self, path: str, *, clock: Clock | None = None, idle_seconds: float = IDLE_SECONDS
    ) -> None:
        """``clock`` replaces the store's own (UTC now), for tests."""
        self.path = path
        self._clock = clock
        self._idle_seconds = idle_seconds
        self._lock = threading.Lock()
        self._quiet = threading.Condition(self._lock)  # the checkpointer waits on it
        self._store: MemoryStore | None = None
        self._closed = False
        self._last_call: float | None = None  # when the last call ended, until checkpointed
        self._checkpointer: threading.Thread | None = None

    async def run(self, operation: Callable[[MemoryStore], T]) -> T:
        """``operation(store)`` in a worker thread, holding the store's lock."""
        return await anyio.to_thread.run_sync(self.run_sync, operation)

    def run_sync(self, operation: Callable[[MemoryStore], T]) -> T:
        """The same, in the calling thread (for scripts and benchmarks)."""
        with self._lock:
            if self._closed:
                raise RuntimeError("the memory gateway is closed")
            if self._store is None:
                from vaultgate.memory.store import MemoryStore, utc_now  # on first use

                self._store = MemoryStore.open(self.path, clock=self._clock or utc_now)
                self._start_checkpointer()  # ':memory:' has no WAL, but compactions leave work
            try:
                return operation(self._store)
            finally:
                if self._last_call is None:
                    self._quiet.notify()  # the checkpointer waits for a call without a timeout
                self._last_call = time.monotonic()

    async def aclose(self) -> None:
        """close() off the event loop: it may wait for a call still running."""
        await anyio.to_thread.run_sync(self.close)

    def close(self) -> None:
        with self._lock:
            self._closed = True
            self._quiet.notify()
            if self._store is not None:
                self._store.close()  # checkpoints, and empties the -wal file if it can
                self._store = None
            checkpointer, self._checkpointer = self._checkpointer, None
        if checkpointer is not None:
            checkpointer.join()

    def _start_checkpointer(self) -> None:
        self._checkpointer = threading.Thread(
            target=self._checkpoint_when_quiet, name="vaultgate-memory-checkpoint", daemon=True
        )
        self._checkpointer.start()

    def _checkpoint_when_quiet(self) -> None:
        """The checkpointer thread: after each run of calls, wait until none came for
        ``idle_seconds``, then do the quiet moment's work (under the lock, so between two
        calls)."""
        with self._quiet:
            while not self._closed:
                if self._last_call is None:
                    self._quiet.wait()
                    continue
                left = self._last_call + self._idle_seconds - time.monotonic()
                if left > 0:
                    self._quiet.wait(left)
                    continue
                self._last_call = None
                if self._store is None:  # pragma: no cover - closed, and the loop ends
                    continue
                try:
                    self._store.when_idle()
                except Exception:  # pragma: no cover - when_idle logs what fails itself
                    log.exception("memory store's quiet-moment work failed")
                if self._store.vectors_pending:  # the next batch soon, letting calls in between
                    self._last_call = time.monotonic() - self._idle_seconds + VECTOR_PAUSE
