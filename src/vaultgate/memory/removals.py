"""Search-index removals that a compaction leaves for a quiet moment (schema.sql, migration 3).

Taking an observation out of the FTS5 index means tokenizing its title and content again and
writing a delete marker for every word, which FTS5 then merges into its segments: for the 200
rows of one compaction at 100,000 observations, 11-20 ms, more than the rest of the compaction
together (issue 11; SQLite 3.40 has no contentless-delete tables, which would drop by rowid).
So a compaction lists its ids in ``observations_fts_pending`` (``defer``), in the transaction
that soft-deletes them, and their entries leave the index later (``purge``): when the gateway
finds the store idle, when the store closes, and after a compaction that leaves PENDING_BOUND
ids or more, so the list stays short.

Until then no read shows a pending id: every full-text count and page adds ``exclusion``'s
clause when the list is not empty (one lookup per read; nothing when it is). What a pending
entry still changes is bm25's statistics: the index's row count and average lengths include it
until it leaves, as if the compaction had happened a moment later. Single deletes (``delete``,
an update that changes text) still update the index at once: one row costs about 0.1 ms.

Nothing here is lost by a crash: the list is a table in the same file, written in the same
transactions as the rows it describes, so the next process purges what this one did not.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

PENDING_TABLE = "observations_fts_pending"
PENDING_BOUND = 1_000  # ids: five compactions of 200 with no quiet moment between them
PURGE_BATCH = 200  # ids per purge transaction, about one compaction's worth
EXCLUSION = f" AND rowid NOT IN (SELECT id FROM {PENDING_TABLE})"
FACETS = "'p' || hex(project) || ' s' || hex(scope) || ' t' || hex(type)"  # as schema.sql


def defer(conn: sqlite3.Connection, ids: Sequence[int]) -> None:
    """List the live ``ids`` as pending, before the caller soft-deletes them in the same write
    transaction: the update trigger then leaves their index entries alone."""
    marks = ",".join("?" * len(ids))
    conn.execute(
        f"INSERT OR IGNORE INTO {PENDING_TABLE} (id) SELECT id FROM observations "
        f"WHERE deleted_at IS NULL AND id IN ({marks})",
        ids,
    )


def pending(conn: sqlite3.Connection) -> int:
    """How many ids wait for their index entry to be removed."""
    return int(conn.execute(f"SELECT count(*) FROM {PENDING_TABLE}").fetchone()[0])


def exclusion(conn: sqlite3.Connection) -> str:
    """What a full-text query must add to its WHERE clause so no pending id is counted or
    listed: EXCLUSION, or nothing when no id is pending. Call it in the read's transaction."""
    row = conn.execute(f"SELECT 1 FROM {PENDING_TABLE} LIMIT 1").fetchone()
    return "" if row is None else EXCLUSION


def purge(conn: sqlite3.Connection, limit: int) -> int:
    """Remove the index entries of up to ``limit`` pending ids (lowest first) and take them off
    the list; returns how many left it. The caller holds a write transaction."""
    ids = [
        int(row[0])
        for row in conn.execute(
            f"SELECT id FROM {PENDING_TABLE} ORDER BY id LIMIT ?", (limit,)
        ).fetchall()
    ]
    if not ids:
        return 0
    marks = ",".join("?" * len(ids))
    # One statement, rowids ascending: FTS5 writes every delete marker into one new segment.
    # A row that is live again keeps its entry (the update trigger takes a restored id off the
    # list, so this is only a guard).
    conn.execute(
        "INSERT INTO observations_fts (observations_fts, rowid, title, content, facets) "
        f"SELECT 'delete', id, title, content, {FACETS} FROM observations "
        f"WHERE id IN ({marks}) AND deleted_at IS NOT NULL ORDER BY id",
        ids,
    )
    conn.execute(f"DELETE FROM {PENDING_TABLE} WHERE id IN ({marks})", ids)
    return len(ids)
