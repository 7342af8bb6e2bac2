"""MemoryGateway: the store for async tools, off the event loop, one thread at a time.

sqlite3 blocks, so each call runs in a worker thread (anyio.to_thread) and the event loop keeps
serving other requests. The store has one connection (``:memory:`` would otherwise be a new,
empty database per connection); a lock lets one worker at a time use it, so two tool calls never
interleave statements inside one transaction. Between processes, SQLite's own locking and the
store's BEGIN IMMEDIATE + retry take over.

The file is opened on the first call, not at server start: tools that never touch memory never
create the file, and a bad VAULTGATE_MEMORY_DB breaks only the memory tools, with a message.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TypeVar

import anyio.to_thread

from vaultgate.memory.store import Clock, MemoryStore, utc_now

T = TypeVar("T")


class MemoryGateway:
    def __init__(self, path: str, *, clock: Clock = utc_now) -> None:
        self.path = path
        self._clock = clock
        self._lock = threading.Lock()
        self._store: MemoryStore | None = None
        self._closed = False

    async def run(self, operation: Callable[[MemoryStore], T]) -> T:
        """``operation(store)`` in a worker thread, holding the store's lock."""
        return await anyio.to_thread.run_sync(self.run_sync, operation)

    def run_sync(self, operation: Callable[[MemoryStore], T]) -> T:
        """The same, in the calling thread (for scripts and benchmarks)."""
        with self._lock:
            if self._closed:
                raise RuntimeError("the memory gateway is closed")
            if self._store is None:
                self._store = MemoryStore.open(self.path, clock=self._clock)
            return operation(self._store)

    async def aclose(self) -> None:
        """close() off the event loop: it may wait for a call still running."""
        await anyio.to_thread.run_sync(self.close)

    def close(self) -> None:
        with self._lock:
            self._closed = True
            if self._store is not None:
                self._store.close()
                self._store = None
