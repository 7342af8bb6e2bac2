"""The memory database row: it opens, takes a write, and has a schema this vaultgate knows.

The doctor imports sqlite3 here (otherwise only ``memory/`` does) to try a write that changes
nothing: the store's own API has no such write, and the doctor must not add data.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from vaultgate.doctor.report import Check
from vaultgate.memory.connection import MEMORY, connect
from vaultgate.memory.migrations import LATEST_VERSION, schema_version

_FIX = (
    "Point VAULTGATE_MEMORY_DB at a file in a folder you can write to (or ':memory:'); the "
    "vault tools do not need it."
)


def memory_check(path: str) -> Check:
    if path == MEMORY:
        return Check("memory", True, ":memory: (kept in RAM, lost when the server stops)")
    existed = Path(path).exists()
    try:
        conn = connect(path)
    except (sqlite3.Error, OSError) as exc:
        return Check("memory", False, f"{path} cannot be opened ({_reason(exc)})", _FIX)
    try:
        version = schema_version(conn)
        # A write that changes nothing: takes the write lock and rewrites the same version.
        conn.execute("BEGIN IMMEDIATE")
        conn.execute(f"PRAGMA user_version = {version:d}")
        conn.execute("ROLLBACK")
    except sqlite3.Error as exc:
        return Check("memory", False, f"{path} opens but cannot be written ({_reason(exc)})", _FIX)
    finally:
        conn.close()
        if not existed:  # the server makes the file on its first memory call; leave no trace
            for suffix in ("", "-wal", "-shm"):
                Path(path + suffix).unlink(missing_ok=True)
    if version > LATEST_VERSION:
        return Check(
            "memory",
            False,
            f"{path} has schema version {version}, newer than this vaultgate knows "
            f"({LATEST_VERSION})",
            "Upgrade vaultgate, or point VAULTGATE_MEMORY_DB at another file.",
        )
    state = (
        f"schema version {version} of {LATEST_VERSION}"
        if existed
        else "not made yet (the server makes it on its first memory call)"
    )
    return Check("memory", True, f"{path}: opens, writable, {state}")


def _reason(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return str(exc) or type(exc).__name__
