"""Compaction (seed 003): find stale observations, then soft-delete chosen ones in one transaction.

Beyond the seed, and unlike the code it came from: each id is checked against the same
project / scope / age filter the candidates were listed with, and unknown or already-deleted ids
are refused by name (nothing is skipped silently); the summary's session is created inside the
transaction (no foreign-key failure after the deletes); the before count is taken inside it,
and the after count follows from it (every id was live and inside the filter, and the summary
takes the filter's project and scope). Any failure rolls every step back.

The soft-deleted rows' search-index entries are left for a quiet moment (removals.py): listed
as pending in this same transaction, so no read shows them meanwhile.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from vaultgate.errors import CompactionRefused, MemoryStoreError
from vaultgate.memory import queries, removals
from vaultgate.memory.models import (
    CompactResult,
    Observation,
    Scope,
    StaleObservation,
)

MAX_COMPACT_IDS = 200
STALE_LIMIT_DEFAULT = 50
STALE_LIMIT_MAX = 200
SNIPPET_CHARS = 100
SUMMARY_TYPE = "compaction_summary"
DEFAULT_SUMMARY_SESSION = "manual-save"


@dataclass(frozen=True, slots=True)
class Summary:
    """A summary observation, its text already cleaned and hashed."""

    title: str
    content: str
    normalized_hash: str
    session_id: str


def find_stale(
    conn: sqlite3.Connection,
    *,
    project: str | None,
    scope: Scope | None,
    cutoff: str,
    limit: int,
) -> list[StaleObservation]:
    """Live observations created before ``cutoff``, oldest first."""
    where, values = queries.live_filter(project, scope)
    rows = conn.execute(
        "SELECT id, type, title, project, scope, created_at, substr(content, 1, ?) "
        f"FROM observations WHERE {where} AND created_at < ? ORDER BY created_at, id LIMIT ?",
        [SNIPPET_CHARS, *values, cutoff, limit],
    ).fetchall()
    return [
        StaleObservation(
            id=row[0],
            type=row[1],
            title=row[2],
            project=row[3],
            scope=row[4],
            created_at=row[5],
            snippet=row[6],
        )
        for row in rows
    ]


def count_stale(
    conn: sqlite3.Connection, *, project: str | None, scope: Scope | None, cutoff: str
) -> int:
    where, values = queries.live_filter(project, scope)
    row = conn.execute(
        f"SELECT count(*) FROM observations WHERE {where} AND created_at < ?",
        [*values, cutoff],
    ).fetchone()
    return int(row[0])


def compact(
    conn: sqlite3.Connection,
    *,
    ids: tuple[int, ...],
    project: str | None,
    scope: Scope | None,
    cutoff: str,
    older_than_days: int,
    summary: Summary | None,
    now: str,
) -> CompactResult:
    """Soft-delete ``ids`` and write the summary. The caller holds a write transaction."""
    before = queries.count_observations(conn, project, scope)
    marks = ",".join("?" * len(ids))
    rows = {
        row[0]: row
        for row in conn.execute(
            "SELECT id, project, scope, created_at, deleted_at FROM observations "
            f"WHERE id IN ({marks})",
            ids,
        )
    }
    unknown = [i for i in ids if i not in rows]
    deleted = [i for i in ids if i in rows and rows[i][4] is not None]
    outside = [
        i
        for i in ids
        if i in rows
        and rows[i][4] is None
        and (
            (project is not None and rows[i][1] != project)
            or (scope is not None and rows[i][2] != scope)
            or rows[i][3] >= cutoff
        )
    ]
    if unknown or deleted or outside:
        raise CompactionRefused(
            unknown=unknown,
            deleted=deleted,
            outside_filter=outside,
            filter_description=_describe(project, scope, older_than_days),
        )
    removals.defer(conn, ids)
    cursor = conn.execute(
        f"UPDATE observations SET deleted_at = ?, updated_at = ? "
        f"WHERE deleted_at IS NULL AND id IN ({marks})",
        [now, now, *ids],
    )
    if cursor.rowcount != len(ids):  # pragma: no cover - the write lock rules this out
        raise MemoryStoreError("Observations changed during compaction; nothing was deleted.")
    written: Observation | None = None
    if summary is not None:
        summary_project = project if project is not None else _common({rows[i][1] for i in ids})
        summary_scope = scope or _common_scope({rows[i][2] for i in ids})
        queries.ensure_session(conn, summary.session_id, summary_project or "", now)
        written = queries.insert_observation(
            conn,
            session_id=summary.session_id,
            type=SUMMARY_TYPE,
            project=summary_project or "",
            scope=summary_scope,
            topic_key=None,
            normalized_hash=summary.normalized_hash,
            now=now,
            title=summary.title,
            content=summary.content,
        )
    return CompactResult(
        deleted=list(ids),
        summary=written,
        before=before,
        after=before - len(ids) + (1 if written is not None else 0),
        project=project,
        scope=scope,
    )


def _common(values: set[str]) -> str | None:
    return next(iter(values)) if len(values) == 1 else None


def _common_scope(values: set[str]) -> Scope:
    return "personal" if values == {"personal"} else "project"


def _describe(project: str | None, scope: Scope | None, older_than_days: int) -> str:
    parts = []
    if project is not None:
        parts.append(f"project {project!r}")
    if scope is not None:
        parts.append(f"scope {scope!r}")
    parts.append(f"older than {older_than_days} day{'' if older_than_days == 1 else 's'}")
    return "the filter (" + ", ".join(parts) + ")"
