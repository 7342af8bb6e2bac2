"""Several writers on one file, the bounded retry, and the gateway that serves async tools."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import anyio
import pytest

from vaultgate.errors import MemoryBusy
from vaultgate.memory.connection import is_busy, retrying
from vaultgate.memory.gateway import MemoryGateway
from vaultgate.memory.store import MemoryStore


def test_two_connections_writing_at_once_keep_every_row(tmp_path: Path) -> None:
    path = str(tmp_path / "m.db")
    writers = [MemoryStore.open(path) for _ in range(2)]
    barrier = threading.Barrier(len(writers))
    errors: list[BaseException] = []

    def write(n: int, store: MemoryStore) -> None:
        barrier.wait()
        try:
            for i in range(150):
                store.save(f"writer {n} note {i}", f"body {n}-{i}", project=f"p{n}")
        except BaseException as exc:  # collected, asserted below
            errors.append(exc)

    threads = [threading.Thread(target=write, args=(n, s)) for n, s in enumerate(writers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert errors == []
    assert writers[0].count_observations() == 300
    assert writers[1].count_observations("p0") == 150
    for store in writers:
        store.close()


@pytest.fixture
def locked(tmp_path: Path) -> tuple[str, sqlite3.Connection]:
    """A file whose write lock another connection holds."""
    path = str(tmp_path / "m.db")
    MemoryStore.open(path).close()
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    return path, holder


def test_retrying_repeats_a_busy_unit_until_the_lock_is_free(
    locked: tuple[str, sqlite3.Connection],
) -> None:
    path, holder = locked
    impatient = sqlite3.connect(path, isolation_level=None, timeout=0)
    attempts: list[int] = []

    def write() -> None:
        attempts.append(1)
        impatient.execute("BEGIN IMMEDIATE")
        impatient.execute("COMMIT")

    def sleep(_: float) -> None:  # the other writer finishes while we back off
        if len(attempts) == 2:
            holder.execute("COMMIT")

    retrying(write, sleep=sleep)

    assert len(attempts) == 3
    impatient.close()
    holder.close()


def test_retrying_gives_up_after_the_bound_and_passes_other_errors_at_once(
    locked: tuple[str, sqlite3.Connection],
) -> None:
    path, holder = locked
    impatient = sqlite3.connect(path, isolation_level=None, timeout=0)
    attempts: list[int] = []

    def write() -> None:
        attempts.append(1)
        impatient.execute("BEGIN IMMEDIATE")

    with pytest.raises(sqlite3.OperationalError) as caught:
        retrying(write, retries=3, sleep=lambda _: None)
    assert is_busy(caught.value)
    assert len(attempts) == 4

    def broken() -> None:
        attempts.append(1)
        impatient.execute("SELEC 1")

    attempts.clear()
    with pytest.raises(sqlite3.OperationalError):
        retrying(broken, sleep=lambda _: None)
    assert len(attempts) == 1
    impatient.close()
    holder.close()


def test_a_lock_held_past_every_retry_reaches_the_caller_as_memory_busy(
    locked: tuple[str, sqlite3.Connection],
) -> None:
    path, holder = locked
    store = MemoryStore.open(path, busy_timeout_ms=1)

    with pytest.raises(MemoryBusy, match="call the tool again"):
        store.save("x", "y")

    holder.execute("ROLLBACK")
    assert store.save("x", "y").status == "created"
    store.close()
    holder.close()


# --- the gateway ----------------------------------------------------------------------------


@pytest.mark.anyio
async def test_concurrent_tool_calls_share_one_connection_safely() -> None:
    gateway = MemoryGateway(":memory:")
    results: list[int] = []

    async def save(n: int) -> None:
        saved = await gateway.run(lambda store: store.save(f"note {n}", f"body {n}"))
        results.append(saved.observation.id)

    async with anyio.create_task_group() as group:
        for n in range(40):
            group.start_soon(save, n)

    assert sorted(results) == list(range(1, 41))
    assert await gateway.run(lambda store: store.count_observations()) == 40
    await gateway.aclose()


@pytest.mark.anyio
async def test_the_file_is_created_on_the_first_call_not_before(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "memory.db"
    gateway = MemoryGateway(str(path))
    assert not path.exists()

    await gateway.run(lambda store: store.count_observations())

    assert path.exists()
    await gateway.aclose()
    with pytest.raises(RuntimeError, match="closed"):
        await gateway.run(lambda store: store.count_observations())
