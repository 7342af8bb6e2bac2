"""The write-ahead log: checkpoints outside request transactions, and a bound on its size.

By default SQLite checkpoints inside a commit: the commit that takes the WAL past 1,000 pages
also copies them into the database file and syncs it, so whichever request made that commit
pays for it (the commit was 10 ms of a 28 ms compaction of 200 ids at 100,000 observations,
issue 11). The store's WalKeeper turns that off on its connection (``wal_autocheckpoint = 0``)
and checkpoints itself, always between transactions, never inside one:

- **when idle**: MemoryGateway calls ``MemoryStore.when_idle`` after IDLE_SECONDS without a
  call (gateway.py): PASSIVE, which copies every frame it can into the database file.
- **at the bound**: after a commit that leaves the -wal file at CHECKPOINT_BYTES or more (a
  burst of writes with no quiet moment, or a script that uses the store without the gateway),
  PASSIVE, then the request returns.
- **on close**: PASSIVE, then TRUNCATE without waiting, which empties the -wal file when no
  other connection is in the way, so it does not linger.

Once every frame is copied, the next write starts the log again from its beginning, overwriting
the file rather than growing it, and ``journal_size_limit`` (KEEP_BYTES) has SQLite cut a larger
file back to that size as it does, so the file's size tells how much the log holds. A quiet
moment does not empty the file (TRUNCATE): the next write would have to grow it again, and the
next compaction took longer (p50 25.4 ms against 23.4 ms; 150 of each, interleaved, at 100,000
observations).

The bound: the -wal file stays under CHECKPOINT_BYTES plus one transaction (a save writes about
85 KB of log at 100,000 observations, but one that makes FTS5 merge index segments writes
megabytes: 2 MiB in a test at 10,000). Why 32 MiB: a checkpoint syncs the database file and
writes back every page the log holds, once however many commits changed it, so fewer, larger
checkpoints cost less in all. The checkpoints inside a burst of 2,000 saves at 100,000
observations took 0.34 s with a 16 MiB bound, 0.22 s with 32, 0.20 s with 64 and 0.15 s with
128 (medians of 3): past 32 MiB the gain is small, while the file, and the wal-index SQLite
searches for each page (one 4,096-frame block, 16 MiB of log, at a time), keep growing.
SQLite's own 1,000 pages (4 MiB) checkpointed every 50 saves.

PASSIVE never waits for and never blocks another connection, so several processes on one file
(VAULTGATE_MEMORY_DB) keep writing through any checkpoint; TRUNCATE, on close, is tried with
busy_timeout 0 and gives way at once. Each process checks the bound after its own commits, but
the log only starts again at a write that begins after a checkpoint copied every frame, and while
other processes write without a pause the next write has often begun already: 4 processes each
saving 1,000 times as fast as they could, at 100,000 observations, took the file to 64-72 MiB,
about twice the bound, restarting it every few hundred saves. A RESTART checkpoint after each
of a process's own PASSIVE ones did no better: 67-78 MiB when it did not wait, 64-68 MiB when it
waited, holding every writer off for up to 89 ms each time (0.6 s when it also had to copy what
another process's checkpoint was still copying). So the store uses neither.

``wal_autocheckpoint`` is a setting of each connection, not of the file: another vaultgate
process checkpoints by these same rules, and any other program on the file (the sqlite3 shell,
an older vaultgate) keeps SQLite's default, so its own commits checkpoint every 1,000 pages.
That is harmless here: the automatic checkpoint is PASSIVE too, it costs that program's commits
and not ours, and every frame it copies is one our checkpoints skip. What no checkpoint can pass
is a read transaction kept open in another process: the log restarts only when no reader still
needs its frames, so such a reader can hold the file above the bound until it ends (the store's
own reads are one short transaction each).

Nothing committed waits on a checkpoint: with synchronous=NORMAL a commit is written to the -wal
file before COMMIT returns (a crash of the process cannot undo that; only a power cut can lose
the last commits, as before), and a process that stops between checkpoints leaves a log that the
next connection reads as it opens (SQLite rebuilds the log's index from it).
"""

from __future__ import annotations

import logging
import os
import sqlite3
from dataclasses import dataclass
from typing import Literal

log = logging.getLogger(__name__)

CHECKPOINT_BYTES = 32 * 1024 * 1024
KEEP_BYTES = 4 * 1024 * 1024
IDLE_SECONDS = 0.5


@dataclass(frozen=True, slots=True)
class Checkpoint:
    """What one ``PRAGMA wal_checkpoint`` did."""

    busy: bool  # another connection was in the way: the rest waits for a later checkpoint
    frames: int  # frames in the log when it ran (0 after a TRUNCATE)
    copied: int  # of those, the frames now in the database file

    @property
    def complete(self) -> bool:
        return not self.busy and self.copied == self.frames


def checkpoint(
    conn: sqlite3.Connection, mode: Literal["PASSIVE", "TRUNCATE"] = "PASSIVE"
) -> Checkpoint:
    """Run one checkpoint on ``conn``, which must not be inside a transaction."""
    busy, frames, copied = conn.execute(f"PRAGMA wal_checkpoint({mode})").fetchone()
    return Checkpoint(busy=bool(busy), frames=int(frames), copied=int(copied))


def wal_file(conn: sqlite3.Connection) -> str | None:
    """The path of ``conn``'s -wal file, or None when it keeps no log (``:memory:``)."""
    if conn.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
        return None
    for _seq, name, file in conn.execute("PRAGMA database_list"):
        if name == "main" and file:
            return f"{file}-wal"
    return None  # pragma: no cover - a WAL database always has a file


class WalKeeper:
    """The checkpoints of one store's connection: at the bound, when idle, on close.

    Every method runs between transactions, from the thread that holds the store. A failed
    checkpoint is logged and loses nothing (the frames stay in the log for the next one), so
    it never turns a committed save into an error.
    """

    def __init__(self, conn: sqlite3.Connection, *, checkpoint_bytes: int = CHECKPOINT_BYTES):
        """Take over ``conn``'s checkpoints: SQLite's automatic one is turned off."""
        self._conn = conn
        self.checkpoint_bytes = checkpoint_bytes
        # Per connection, not per file: see the module's docstring for other processes.
        conn.execute("PRAGMA wal_autocheckpoint = 0")
        # Below the bound, or a file left at its largest would look full after a restart.
        keep = min(KEEP_BYTES, checkpoint_bytes // 4)
        conn.execute(f"PRAGMA journal_size_limit = {keep:d}")
        self.path = wal_file(conn)

    def size(self) -> int:
        """The -wal file's size in bytes (0 when there is none)."""
        if self.path is None:
            return 0
        try:
            return os.stat(self.path).st_size
        except FileNotFoundError:
            return 0

    def after_commit(self) -> Checkpoint | None:
        """A write committed: checkpoint (PASSIVE) when the log has reached the bound."""
        if self.size() >= self.checkpoint_bytes:
            return self._run()
        return None

    def when_idle(self) -> Checkpoint | None:
        """A quiet moment: copy every frame it can into the database file (PASSIVE)."""
        if self.size() > 0:
            return self._run()
        return None

    def before_close(self) -> Checkpoint | None:
        """Closing: copy every frame, then empty the -wal file if no connection is in the way."""
        if self.size() > 0:
            return self._run(truncate=True)
        return None

    def _run(self, *, truncate: bool = False) -> Checkpoint | None:
        """PASSIVE, which copies without blocking anyone; with ``truncate``, once every frame is
        copied, TRUNCATE without waiting, which empties the file. Waiting (busy_timeout) would
        hold this call, and hold off other writers, for as long; without it, TRUNCATE gives way
        at once to any other writer or reader."""
        conn = self._conn
        if conn.in_transaction:  # pragma: no cover - the store never calls it inside one
            return None
        try:
            done = checkpoint(conn, "PASSIVE")
            if truncate and done.complete:
                wait_ms = int(conn.execute("PRAGMA busy_timeout").fetchone()[0])
                conn.execute("PRAGMA busy_timeout = 0")
                try:
                    done = checkpoint(conn, "TRUNCATE")
                finally:
                    conn.execute(f"PRAGMA busy_timeout = {wait_ms:d}")
        except sqlite3.Error as exc:
            log.warning("memory WAL checkpoint failed (the log keeps every frame): %s", exc)
            return None
        log.debug("memory WAL checkpoint: %s", done)
        return done
