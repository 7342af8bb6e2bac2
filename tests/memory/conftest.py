"""Stores on ``:memory:`` or a temporary file, with a clock the test moves by hand."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from vaultgate.memory.store import MemoryStore


class FakeClock:
    """Now is whatever the test says; it only moves when told to."""

    def __init__(self, start: datetime) -> None:
        self.now = start

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> None:
        self.now += timedelta(**delta)


START = datetime(2026, 11, 22, 12, 0, 0, tzinfo=UTC)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(START)


@pytest.fixture
def store(clock: FakeClock) -> Iterator[MemoryStore]:
    opened = MemoryStore.in_memory(clock=clock)
    yield opened
    opened.close()


@pytest.fixture
def db_path(tmp_path: Path) -> str:
    return str(tmp_path / "memory.db")


@pytest.fixture
def file_store(db_path: str, clock: FakeClock) -> Iterator[MemoryStore]:
    opened = MemoryStore.open(db_path, clock=clock)
    yield opened
    opened.close()


@pytest.fixture
def raw(db_path: str, file_store: MemoryStore) -> Iterator[sqlite3.Connection]:
    """A second, plain connection to file_store's database, for looking under the hood."""
    conn = sqlite3.connect(db_path, isolation_level=None)
    yield conn
    conn.close()


SaveFn = Callable[..., int]


@pytest.fixture
def save(store: MemoryStore) -> SaveFn:
    """Save into ``store`` with short defaults; returns the id."""

    def saver(title: str = "A title", content: str = "Some content", **options: object) -> int:
        return store.save(title, content, **options).observation.id  # type: ignore[arg-type]

    return saver
