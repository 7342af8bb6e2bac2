"""SQL shared by the store's operations: row mapping, filters, counts, sessions.

Functions here take a connection inside a transaction the caller opened; they never BEGIN or
COMMIT. Every value is a bound parameter; only fixed column names are ever put into SQL text.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence
from typing import Any, cast

from vaultgate.memory.models import Observation, Prompt, Scope, Session

OBSERVATION_COLUMNS = (
    "id, session_id, type, project, scope, topic_key, revision_count, duplicate_count, "
    "created_at, updated_at, title, content"
)
SESSION_COLUMNS = "id, project, directory, started_at, ended_at, summary"
PROMPT_COLUMNS = "id, session_id, project, created_at, content"


def observation(row: Sequence[Any]) -> Observation:
    return Observation(
        id=int(row[0]),
        session_id=str(row[1]),
        type=str(row[2]),
        project=str(row[3]),
        scope=cast(Scope, row[4]),
        topic_key=row[5],
        revision_count=int(row[6]),
        duplicate_count=int(row[7]),
        created_at=str(row[8]),
        updated_at=str(row[9]),
        title=str(row[10]),
        content=str(row[11]),
    )


def session(row: Sequence[Any]) -> Session:
    return Session(
        id=str(row[0]),
        project=str(row[1]),
        directory=str(row[2]),
        started_at=str(row[3]),
        ended_at=row[4],
        summary=row[5],
    )


def prompt(row: Sequence[Any]) -> Prompt:
    return Prompt(
        id=int(row[0]),
        session_id=str(row[1]),
        project=str(row[2]),
        created_at=str(row[3]),
        content=str(row[4]),
    )


def live_filter(
    project: str | None = None, scope: str | None = None, type: str | None = None
) -> tuple[str, list[Any]]:
    """The WHERE clause (without the keyword) for live observations under the filters.

    Its first term is ``deleted_at IS NULL`` literally, so the partial indexes apply.
    """
    clauses = ["deleted_at IS NULL"]
    values: list[Any] = []
    for column, value in (("project", project), ("scope", scope), ("type", type)):
        if value is not None:
            clauses.append(f"{column} = ?")
            values.append(value)
    return " AND ".join(clauses), values


def count_observations(
    conn: sqlite3.Connection,
    project: str | None = None,
    scope: str | None = None,
    type: str | None = None,
) -> int:
    where, values = live_filter(project, scope, type)
    return int(
        conn.execute(f"SELECT count(*) FROM observations WHERE {where}", values).fetchone()[0]
    )


def recent_observations(
    conn: sqlite3.Connection,
    limit: int,
    project: str | None = None,
    scope: str | None = None,
    type: str | None = None,
) -> list[Observation]:
    where, values = live_filter(project, scope, type)
    rows = conn.execute(
        f"SELECT {OBSERVATION_COLUMNS} FROM observations WHERE {where} ORDER BY id DESC LIMIT ?",
        [*values, limit],
    ).fetchall()
    return [observation(row) for row in rows]


def observations_by_id(conn: sqlite3.Connection, ids: Iterable[int]) -> dict[int, Observation]:
    """Live observations among ``ids``, by id."""
    wanted = list(ids)
    if not wanted:
        return {}
    marks = ",".join("?" * len(wanted))
    rows = conn.execute(
        f"SELECT {OBSERVATION_COLUMNS} FROM observations "
        f"WHERE deleted_at IS NULL AND id IN ({marks})",
        wanted,
    ).fetchall()
    return {row[0]: observation(row) for row in rows}


def observation_state(conn: sqlite3.Connection, observation_id: int) -> str | None:
    """'live', 'deleted', or None when no row has the id."""
    row = conn.execute(
        "SELECT deleted_at IS NULL FROM observations WHERE id = ?", (observation_id,)
    ).fetchone()
    if row is None:
        return None
    return "live" if row[0] else "deleted"


def live_observation(conn: sqlite3.Connection, observation_id: int) -> Observation | None:
    row = conn.execute(
        f"SELECT {OBSERVATION_COLUMNS} FROM observations WHERE id = ? AND deleted_at IS NULL",
        (observation_id,),
    ).fetchone()
    return None if row is None else observation(row)


def get_session(conn: sqlite3.Connection, session_id: str) -> Session | None:
    row = conn.execute(
        f"SELECT {SESSION_COLUMNS} FROM sessions WHERE id = ?", (session_id,)
    ).fetchone()
    return None if row is None else session(row)


def ensure_session(
    conn: sqlite3.Connection, session_id: str, project: str, now: str, directory: str = ""
) -> bool:
    """Create the session unless it exists; True when it was created. Call inside a write."""
    cursor = conn.execute(
        "INSERT INTO sessions (id, project, directory, started_at) VALUES (?, ?, ?, ?) "
        "ON CONFLICT (id) DO NOTHING",
        (session_id, project, directory, now),
    )
    return cursor.rowcount == 1


def insert_observation(
    conn: sqlite3.Connection,
    *,
    session_id: str,
    type: str,
    project: str,
    scope: str,
    topic_key: str | None,
    normalized_hash: str,
    now: str,
    title: str,
    content: str,
) -> Observation:
    cursor = conn.execute(
        "INSERT INTO observations (session_id, type, project, scope, topic_key, normalized_hash, "
        "created_at, updated_at, title, content) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (session_id, type, project, scope, topic_key, normalized_hash, now, now, title, content),
    )
    assert cursor.lastrowid is not None
    return Observation(
        id=cursor.lastrowid,
        session_id=session_id,
        type=type,
        project=project,
        scope=cast(Scope, scope),
        topic_key=topic_key,
        revision_count=1,
        duplicate_count=1,
        created_at=now,
        updated_at=now,
        title=title,
        content=content,
    )


# --- revisions ------------------------------------------------------------------------------

REVISION_COLUMNS = (
    "observation_id, revision, type, topic_key, saved_at, replaced_at, title, content"
)


def keep_revision(conn: sqlite3.Connection, current: Observation, replaced_at: str) -> int:
    """Keep ``current``'s type, topic key, title and content as its revision (the number it
    has now), before an update replaces them; the revision's number. A plain INSERT: should
    that number be kept already, the update fails whole rather than replace a kept text."""
    conn.execute(
        f"INSERT INTO observation_revisions ({REVISION_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (
            current.id,
            current.revision_count,
            current.type,
            current.topic_key,
            current.updated_at,
            replaced_at,
            current.title,
            current.content,
        ),
    )
    return current.revision_count


def kept_revisions(conn: sqlite3.Connection, ids: Sequence[int]) -> dict[int, tuple[int, ...]]:
    """The revision numbers kept for each of ``ids`` that has any, oldest first."""
    if not ids:
        return {}
    marks = ",".join("?" * len(ids))
    kept: dict[int, list[int]] = {}
    for observation_id, revision in conn.execute(
        "SELECT observation_id, revision FROM observation_revisions "
        f"WHERE observation_id IN ({marks}) ORDER BY observation_id, revision",
        list(ids),
    ):
        kept.setdefault(int(observation_id), []).append(int(revision))
    return {key: tuple(value) for key, value in kept.items()}


def revision(conn: sqlite3.Connection, observation_id: int, number: int) -> tuple[Any, ...] | None:
    row = conn.execute(
        f"SELECT {REVISION_COLUMNS} FROM observation_revisions "
        "WHERE observation_id = ? AND revision = ?",
        (observation_id, number),
    ).fetchone()
    return None if row is None else tuple(row)
