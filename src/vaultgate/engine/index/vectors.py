"""Note vectors in the index file: one float16 vector per note, for search by meaning.

``note_vectors`` is keyed by the note's row (``notes.id``): a note read again gets a new row,
so its old vector goes with the old row (``VaultIndex._write`` deletes it in the same
transaction) and the note waits to be embedded again. A vector is stored only while its row
still holds the ``(mtime_ns, size)`` it was read at; one for a row gone meanwhile is dropped.
``meta.vectors`` names the model that made them: another model's vectors are all deleted.

The table is created when missing (``CREATE TABLE IF NOT EXISTS``) rather than by a schema
version: an index built before it keeps its notes and only gains vectors.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

VECTORS_TABLE = """
CREATE TABLE IF NOT EXISTS note_vectors (
    id INTEGER PRIMARY KEY,         -- notes.id
    vector BLOB NOT NULL            -- float16, little-endian, the model's dimensions
)
"""


def ensure_table(conn: sqlite3.Connection) -> None:
    conn.execute(VECTORS_TABLE)


def use_model(conn: sqlite3.Connection, model: str) -> bool:
    """Make ``model`` the one the stored vectors are of (inside a transaction); whether
    vectors of another had to be deleted."""
    row = conn.execute("SELECT value FROM meta WHERE key = 'vectors'").fetchone()
    if row is not None and row[0] == model:
        return False
    conn.execute("DELETE FROM note_vectors")
    conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('vectors', ?)", (model,))
    return row is not None


def delete(conn: sqlite3.Connection, ids: Sequence[int]) -> None:
    conn.executemany("DELETE FROM note_vectors WHERE id = ?", ((i,) for i in ids))


def missing(conn: sqlite3.Connection, limit: int) -> list[tuple[int, str | bytes, int, int]]:
    """Up to ``limit`` notes without a vector: ``(id, stored path, mtime_ns, size)``."""
    return conn.execute(
        "SELECT notes.id, notes.path, notes.mtime_ns, notes.size FROM notes"
        " LEFT JOIN note_vectors ON note_vectors.id = notes.id"
        " WHERE note_vectors.id IS NULL ORDER BY notes.id LIMIT ?",
        (limit,),
    ).fetchall()


def count_missing(conn: sqlite3.Connection) -> tuple[int, int]:
    """``(notes without a vector, notes)``."""
    notes = conn.execute("SELECT count(*) FROM notes").fetchone()[0]
    stored = conn.execute(
        "SELECT count(*) FROM note_vectors JOIN notes ON notes.id = note_vectors.id"
    ).fetchone()[0]
    return notes - stored, notes


def store(
    conn: sqlite3.Connection, rows: Sequence[tuple[int, int, int, bytes]]
) -> list[tuple[int, str | bytes]]:
    """Store ``(id, mtime_ns, size, vector)`` for each row still as it was read (inside a
    transaction); the ``(id, stored path)`` of those stored."""
    stored: list[tuple[int, str | bytes]] = []
    for note_id, mtime_ns, size, vector in rows:
        found = conn.execute(
            "SELECT path FROM notes WHERE id = ? AND mtime_ns = ? AND size = ?",
            (note_id, mtime_ns, size),
        ).fetchone()
        if found is None:
            continue
        conn.execute(
            "INSERT OR REPLACE INTO note_vectors (id, vector) VALUES (?, ?)", (note_id, vector)
        )
        stored.append((note_id, found[0]))
    return stored


def every(conn: sqlite3.Connection) -> list[tuple[str | bytes, bytes]]:
    """Every stored vector with its note's stored path."""
    return conn.execute(
        "SELECT notes.path, note_vectors.vector FROM note_vectors"
        " JOIN notes ON notes.id = note_vectors.id"
    ).fetchall()
