"""Caches: a small time-bounded one (``TTLCache``), and the snapshots later pages are cut from
(``Snapshots``), which a first page reuses only while the vault's generation has not moved."""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Hashable
from dataclasses import dataclass
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class TTLCache(Generic[K, V]):
    """Entries live ``ttl`` seconds; the oldest are evicted past ``max_entries``."""

    def __init__(
        self, ttl: float, max_entries: int = 32, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._ttl = ttl
        self._max_entries = max_entries
        self._clock = clock
        self._entries: OrderedDict[K, tuple[float, V]] = OrderedDict()

    def get(self, key: K) -> V | None:
        entry = self._entries.get(key)
        if entry is None:
            return None
        stored_at, value = entry
        if self._clock() - stored_at > self._ttl:
            del self._entries[key]
            return None
        return value

    def put(self, key: K, value: V) -> None:
        self._entries[key] = (self._clock(), value)
        self._entries.move_to_end(key)
        while len(self._entries) > self._max_entries:
            self._entries.popitem(last=False)

    def clear(self) -> None:
        self._entries.clear()


SNAPSHOT_AGE_SHOWN = 10.0  # seconds: an older snapshot through the plugin says its age


@dataclass(frozen=True, slots=True)
class Served(Generic[V]):
    """An answer, and what a later page served from an older snapshot must say of it."""

    value: V
    notice: str | None = None


@dataclass(frozen=True, slots=True)
class _Snapshot(Generic[V]):
    value: V
    generation: int | None  # the vault's when it was computed; None: unknown
    taken_at: float


class Snapshots(Generic[K, V]):
    """Answers kept for the later pages of the question whose first page computed them.

    A first page is computed again unless the vault's generation (``Backend.generation``)
    says nothing changed since the kept answer was: never from a snapshot of unknown
    generation (the plugin), never on time alone. A later page takes the snapshot its first
    page was cut from, while it lives (``ttl`` seconds), so that every page agrees on the
    total; it says so when the vault has changed since (or, when nothing can tell, once the
    snapshot is SNAPSHOT_AGE_SHOWN old). Past ``max_entries``, the oldest are evicted.
    """

    def __init__(
        self,
        generation: Callable[[], int | None],
        ttl: float,
        max_entries: int = 32,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._generation = generation
        self._kept: TTLCache[K, _Snapshot[V]] = TTLCache(ttl, max_entries, clock)
        self._clock = clock

    def clear(self) -> None:
        self._kept.clear()

    async def get(
        self,
        key: K,
        compute: Callable[[], Awaitable[V]],
        *,
        first_page: bool = True,
        unknown_max_age: float = 0.0,
    ) -> Served[V]:
        """The answer to ``key``: kept, or ``compute()``-d now and kept. ``unknown_max_age``:
        where the generation is unknown, a first page may take an answer this many seconds
        old (a person typing: one walk of the vault for a burst of completions)."""
        now = self._generation()  # before computing: a change meanwhile moves it past
        kept = self._kept.get(key)
        if kept is not None:
            if not first_page:
                return Served(kept.value, self._notice(kept, now))
            if now is not None and kept.generation == now:
                return Served(kept.value)
            if now is None and 0 < unknown_max_age >= self._clock() - kept.taken_at:
                return Served(kept.value)
        value = await compute()
        self._kept.put(key, _Snapshot(value, now, self._clock()))
        return Served(value)

    def _notice(self, kept: _Snapshot[V], now: int | None) -> str | None:
        age = max(0, round(self._clock() - kept.taken_at))
        if now is not None and kept.generation == now:
            return None
        if now is not None and kept.generation is not None:
            return (
                f"The vault changed after the first page of this answer was computed ({age} s "
                "ago): this page comes from that snapshot. Ask again with offset 0 for the "
                "vault as it is now."
            )
        if self._clock() - kept.taken_at < SNAPSHOT_AGE_SHOWN:
            return None
        return (
            f"This page comes from the snapshot its first page was cut from, {age} s ago; the "
            "vault may have changed since. Ask again with offset 0 for the vault as it is now."
        )
