"""Opening the SQLite file, and surviving other processes that write to it.

WAL lets readers run beside one writer. busy_timeout makes SQLite wait for a lock; on top of it,
``retrying`` repeats a whole unit of work a few times with jittered backoff, because a busy
timeout alone still fails under a burst of writers (engram #125) and SQLite returns BUSY at
once, without waiting, in some cases (a read transaction that would have to become a write one).
Writes therefore always start with BEGIN IMMEDIATE: they take the write lock up front.

The file is its owner's alone (``vaultgate.private_files``), made so before SQLite opens it.
"""

from __future__ import annotations

import logging
import os
import random
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from vaultgate.private_files import prepare_database

T = TypeVar("T")

log = logging.getLogger(__name__)

MEMORY = ":memory:"
BUSY_TIMEOUT_MS = 5_000
RETRIES = 3  # after the first attempt
BACKOFF_SECONDS = 0.05  # the n-th retry sleeps n × 0.05 … n × 0.15 s

_BUSY_CODES = {sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED}


def connect(path: str, *, busy_timeout_ms: int = BUSY_TIMEOUT_MS) -> sqlite3.Connection:
    """A connection with WAL, busy_timeout, foreign keys and synchronous=NORMAL.

    ``isolation_level=None``: the store issues BEGIN / COMMIT itself. ``check_same_thread=False``:
    tools run the store in worker threads; MemoryGateway lets one thread at a time use it.
    """
    if path != MEMORY:
        path = os.path.expanduser(path)
        prepare_database(Path(path))
    conn = sqlite3.connect(
        path,
        isolation_level=None,
        check_same_thread=False,
        timeout=busy_timeout_ms / 1000,
    )
    try:
        conn.execute(f"PRAGMA busy_timeout = {busy_timeout_ms:d}")
        conn.execute("PRAGMA foreign_keys = ON")
        # Changing the journal mode needs a moment of exclusive access: retry like a write.
        retrying(lambda: conn.execute("PRAGMA journal_mode = WAL").fetchone())
        # In WAL mode NORMAL is safe against corruption; a power cut may lose the last commits.
        conn.execute("PRAGMA synchronous = NORMAL")
    except BaseException:
        conn.close()
        raise
    return conn


def is_busy(exc: BaseException) -> bool:
    if not isinstance(exc, sqlite3.OperationalError):
        return False
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None:
        return code & 0xFF in _BUSY_CODES
    return "locked" in str(exc) or "busy" in str(exc)  # pragma: no cover - Python < 3.11


def retrying(
    work: Callable[[], T],
    *,
    retries: int = RETRIES,
    sleep: Callable[[float], None] = time.sleep,
) -> T:
    """``work()``, repeated up to ``retries`` more times while SQLite reports BUSY or LOCKED.

    ``work`` must be a whole unit (its own transaction), so repeating it is safe.
    """
    attempt = 0
    while True:
        try:
            return work()
        except sqlite3.OperationalError as exc:
            if not is_busy(exc) or attempt >= retries:
                raise
            attempt += 1
            delay = random.uniform(1.0, 3.0) * BACKOFF_SECONDS * attempt
            log.debug("memory database busy; retry %d in %.3f s", attempt, delay)
            sleep(delay)
