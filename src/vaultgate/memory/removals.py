"""Search-index removals that a compaction leaves for a quiet moment (schema.sql, migration 3).

Taking an observation out of the FTS5 index means tokenizing its title and content again and
writing a delete marker for every word, which FTS5 then merges into its segments. For the 200
rows of one compaction at 100,000 observations that was three quarters of the compaction: its
UPDATE took 25-42 ms with the index's removals and 3-6 ms without them, in the same runs of
bench/memory_bench.py on a loaded 2-core machine (issue 11). SQLite 3.40 has no
contentless-delete tables, which would drop entries by rowid.

So a compaction lists its ids in ``observations_fts_pending`` (``defer``), in the transaction
that soft-deletes them, and their entries leave the index later (``purge``): when the gateway
finds the store idle, when the store closes, and after a compaction that leaves PENDING_BOUND
ids or more, so the list stays short.

Until then no read shows a pending id (search.py): a page's statement adds EXCLUSION, and a count
takes off the pending ids that match, counted inside their id range (``span``), which for a
compaction's ids is a few thousand rows: a NOT IN on each match of a word in 47,000 rows cost
3.5 ms more, this 0.4 ms (200 pending ids, 100,000 observations). One lookup per read finds
whether any id is pending; when none is, every statement is what it was. What a pending
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
# A filter, not a constraint FTS5 is offered (the +): SQLite must not run the MATCH once per id.
IS_PENDING = f"+rowid IN (SELECT id FROM {PENDING_TABLE})"
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


def span(conn: sqlite3.Connection) -> tuple[int, int] | None:
    """The lowest and highest pending id, or None when none is pending. Call it in the read's
    transaction, so what it says holds for the read's other statements."""
    low, high = conn.execute(
        f"SELECT (SELECT min(id) FROM {PENDING_TABLE}), (SELECT max(id) FROM {PENDING_TABLE})"
    ).fetchone()
    return None if low is None else (int(low), int(high))


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
