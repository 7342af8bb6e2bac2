"""WAL checkpoints off the request path: the size bound, quiet moments, closing, and that
nothing committed depends on a checkpoint, in one process or several."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from itertools import pairwise
from pathlib import Path

from vaultgate.memory.connection import connect
from vaultgate.memory.gateway import MemoryGateway
from vaultgate.memory.store import MemoryStore
from vaultgate.memory.wal import CHECKPOINT_BYTES, KEEP_BYTES, WalKeeper

from .conftest import FakeClock

SMALL_BOUND = 256 * 1024


def save_many(store: MemoryStore, count: int, tag: str) -> list[int]:
    """``count`` distinct saves in a row, no pause; the -wal file's size after each."""
    sizes = []
    for i in range(count):
        store.save(f"{tag} note {i}", f"{tag} body {i} " + "some words to index " * 30)
        sizes.append(store.wal.size())
    return sizes


def eventually(condition: Callable[[], bool], within: float = 10.0) -> bool:
    """Wait for a background thread's effect; the deadline only guards against a hang."""
    deadline = time.monotonic() + within
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def test_the_store_connection_runs_no_automatic_checkpoint(tmp_path: Path) -> None:
    conn = connect(str(tmp_path / "m.db"))
    assert conn.execute("PRAGMA wal_autocheckpoint").fetchone()[0] == 1000  # SQLite's default

    keeper = WalKeeper(conn)

    assert conn.execute("PRAGMA wal_autocheckpoint").fetchone()[0] == 0
    assert conn.execute("PRAGMA journal_size_limit").fetchone()[0] == KEEP_BYTES
    assert keeper.path == str(tmp_path / "m.db") + "-wal"
    assert KEEP_BYTES < CHECKPOINT_BYTES
    conn.close()


def test_many_saves_in_a_row_keep_the_wal_under_its_bound(tmp_path: Path, clock: FakeClock) -> None:
    unbounded = MemoryStore.open(
        str(tmp_path / "free.db"), clock=clock, wal_checkpoint_bytes=10**12
    )
    grown = save_many(unbounded, 300, "free")
    one_save = max(b - a for a, b in pairwise(grown))  # the largest single transaction
    unbounded.close()
    bounded = MemoryStore.open(
        str(tmp_path / "m.db"), clock=clock, wal_checkpoint_bytes=SMALL_BOUND
    )

    sizes = save_many(bounded, 300, "bounded")

    assert grown[-1] > 4 * SMALL_BOUND  # without the bound the log would have grown past it
    assert max(sizes) < SMALL_BOUND + one_save
    assert sum(b < a for a, b in pairwise(sizes)) >= 3  # the log restarted, again and again
    assert bounded.count_observations() == 300
    bounded.close()


def test_the_default_bound_holds_through_a_burst_of_large_saves(
    tmp_path: Path, clock: FakeClock
) -> None:
    store = MemoryStore.open(str(tmp_path / "m.db"), clock=clock)
    words = " ".join(f"word{i}" for i in range(6_000))  # about 60,000 characters, all distinct
    sizes = []
    for i in range(150):
        store.save(f"large note {i}", f"{i} {words}")
        sizes.append(store.wal.size())

    largest = max(b - a for a, b in pairwise(sizes) if b > a)
    assert sum(b < a for a, b in pairwise(sizes)) >= 1  # the bound was reached
    assert max(sizes) < CHECKPOINT_BYTES + largest
    store.close()


def frames_in_log(path: Path) -> int:
    """How many frames the log holds now, as a PASSIVE checkpoint from another connection
    reports it (asking again while the store's own checkpoint is running)."""
    conn = sqlite3.connect(path)
    busy = True
    while busy:
        busy, frames, _copied = conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
    conn.close()
    return int(frames)


def test_an_idle_gateway_copies_the_log_into_the_database_file(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    gateway = MemoryGateway(str(path), idle_seconds=0.05)
    for i in range(20):
        gateway.run_sync(lambda store, i=i: store.save(f"note {i}", f"body {i}"))
    first_size = path.stat().st_size  # with no automatic checkpoint, little more than a header

    assert eventually(lambda: path.stat().st_size > first_size)  # the idle checkpoint ran

    gateway.run_sync(lambda store: store.save("one more", "after the quiet moment"))
    one_save = frames_in_log(path)
    assert 0 < one_save < 20  # the log started again from its beginning: one save's frames
    assert gateway.run_sync(lambda store: store.count_observations()) == 21
    gateway.close()


def test_no_checkpoint_runs_before_a_quiet_moment(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    gateway = MemoryGateway(str(path), idle_seconds=3600)
    for i in range(20):
        gateway.run_sync(lambda store, i=i: store.save(f"note {i}", f"body {i}"))

    assert frames_in_log(path) > 20  # every save still in the log: nothing checkpointed it
    gateway.close()


def test_closing_the_store_empties_the_wal_another_connection_still_has_open(
    tmp_path: Path,
) -> None:
    path = tmp_path / "m.db"
    store = MemoryStore.open(str(path))
    reader = sqlite3.connect(path)
    reader.execute("SELECT 1 FROM observations LIMIT 1").fetchall()
    store.save("kept", "in the database file")
    assert store.wal.size() > 0

    store.close()

    assert Path(f"{path}-wal").stat().st_size == 0
    assert reader.execute("SELECT title FROM observations").fetchall() == [("kept",)]
    reader.close()


def test_a_reader_in_the_way_makes_the_checkpoint_wait_for_later_not_fail(
    tmp_path: Path,
) -> None:
    path = tmp_path / "m.db"
    store = MemoryStore.open(str(path))
    store.save("first", "one")
    reader = sqlite3.connect(path, isolation_level=None)
    reader.execute("BEGIN")
    assert reader.execute("SELECT count(*) FROM observations").fetchone()[0] == 1
    store.save("second", "two")

    held = store.checkpoint()  # the reader's snapshot still needs the log's older frames

    assert held is not None
    assert not held.complete
    assert store.count_observations() == 2
    reader.execute("COMMIT")
    done = store.checkpoint()
    assert done is not None
    assert done.complete
    reader.close()
    store.close()


def test_an_in_memory_store_has_no_wal_to_keep() -> None:
    store = MemoryStore.in_memory()
    store.save("a", "b")

    assert store.checkpoint() is None
    assert store.wal.path is None
    assert store.wal.size() == 0
    store.close()


# --- several processes ----------------------------------------------------------------------

CRASHING = """
import os, sys
from vaultgate.memory.store import MemoryStore
store = MemoryStore.open(sys.argv[1])
for i in range(int(sys.argv[2])):
    store.save(f"note {i}", f"kept through a crash {i}")
print(store.wal.size(), flush=True)
os._exit(0)  # no close, no checkpoint, no cleanup: as if the process were killed
"""

WRITER = """
import sys
from vaultgate.memory.store import MemoryStore
path, n, count, bound = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
store = MemoryStore.open(path, wal_checkpoint_bytes=bound)
print("ready", flush=True)
sys.stdin.readline()
for i in range(count):
    body = f"process {n} wrote note {i} " + "word " * 40
    store.save(f"writer {n} note {i}", body, project=f"w{n}")
store.close()
print("done", flush=True)
"""


def python(script: str, *args: object) -> list[str]:
    return [sys.executable, "-c", script, *map(str, args)]


def test_a_process_that_stops_between_checkpoints_loses_no_save(tmp_path: Path) -> None:
    path = tmp_path / "m.db"

    stopped = subprocess.run(
        python(CRASHING, path, 200), capture_output=True, text=True, timeout=120, check=False
    )

    assert stopped.returncode == 0, stopped.stderr
    assert int(stopped.stdout) > 0  # the saves were only in the log when it stopped
    assert Path(f"{path}-wal").stat().st_size > 0
    reopened = MemoryStore.open(str(path))
    assert reopened.count_observations() == 200
    assert reopened.search("crash 199").total >= 1
    reopened.close()


def test_four_processes_keep_every_save_while_they_checkpoint(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    MemoryStore.open(str(path)).close()
    count = 150
    writers = [
        subprocess.Popen(
            python(WRITER, path, n, count, 64 * 1024),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for n in range(4)
    ]
    for writer in writers:
        assert writer.stdout is not None
        assert writer.stdout.readline().strip() == "ready"
    for writer in writers:  # all start together
        assert writer.stdin is not None
        writer.stdin.write("go\n")
        writer.stdin.flush()
    outcomes = [writer.communicate(timeout=300) for writer in writers]

    for writer, (out, err) in zip(writers, outcomes, strict=True):
        assert writer.returncode == 0, err
        assert out.strip() == "done"
        assert "locked" not in err
    store = MemoryStore.open(str(path))
    assert store.count_observations() == 4 * count
    for n in range(4):
        assert store.count_observations(f"w{n}") == count
    store.close()
