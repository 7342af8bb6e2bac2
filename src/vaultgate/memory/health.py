"""Is the memory database usable? A probe for `vaultgate doctor` that changes nothing but
modes: a file or vaultgate folder found readable by others is made owner-only, as the
server's first memory call would (``vaultgate.private_files``).

It opens the file as the store would, takes the write lock and rewrites the same schema
version inside a rolled-back transaction (the store's own API has no write that adds no data),
and reads the schema version. A file that did not exist before is removed again with its WAL
files: the server makes it on its first memory call, not the doctor.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path

from vaultgate.memory.connection import connect
from vaultgate.memory.migrations import LATEST_VERSION, schema_version


@dataclass(frozen=True, slots=True)
class DatabaseHealth:
    existed: bool  # the file was there before the probe
    problem: str | None  # None when it opens and takes a write
    stage: str  # "open" or "write": where the problem arose
    version: int | None  # its schema version, when it could be read

    @property
    def newer_than_known(self) -> bool:
        return self.version is not None and self.version > LATEST_VERSION


def probe(path: str) -> DatabaseHealth:
    """Open ``path``, take the write lock, read the schema version; change nothing."""
    existed = Path(path).exists()
    try:
        conn = connect(path)
    except (sqlite3.Error, OSError) as exc:
        return DatabaseHealth(existed, _reason(exc), "open", None)
    version: int | None = None
    try:
        version = schema_version(conn)
        conn.execute("BEGIN IMMEDIATE")
        conn.execute(f"PRAGMA user_version = {version:d}")
        conn.execute("ROLLBACK")
    except sqlite3.Error as exc:
        return DatabaseHealth(existed, _reason(exc), "write", version)
    finally:
        conn.close()
        if not existed:
            for suffix in ("", "-wal", "-shm"):
                Path(path + suffix).unlink(missing_ok=True)
    return DatabaseHealth(existed, None, "write", version)


def _reason(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return str(exc) or type(exc).__name__
