"""Observation vectors: search by meaning over the memory store (schema.sql, migration 4).

One float16 vector per live observation (its title and content embedded together), with the
model that made it. ``nearest`` ranks by cosine with brute force over the newest
SEMANTIC_WINDOW live observations under the filters: one matrix product, a few milliseconds,
and a bounded read however large the store grows (like search.RANK_WINDOW for words).

A match must reach MIN_SIMILARITY: averaged static token vectors give unrelated short texts
cosines around 0.1 and related ones 0.2 and up, so without a floor every query would
"relate" to something.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Collection, Sequence
from typing import TYPE_CHECKING

from vaultgate.memory import queries
from vaultgate.memory.models import SearchOptions

if TYPE_CHECKING:
    from vaultgate.semantic.embedder import Embedder

SEMANTIC_WINDOW = 20_000  # newest live observations ranked by meaning (10 MB of vectors)
MIN_SIMILARITY = 0.15
FILL_BATCH = 256  # observations embedded per write transaction at a quiet moment


def text_of(title: str, content: str) -> str:
    return f"{title}\n{content}"


def save_vectors(
    conn: sqlite3.Connection, embedder: Embedder, rows: Sequence[tuple[int, str, str]]
) -> None:
    """Embed ``(id, title, content)`` rows and store their vectors (replacing older ones)."""
    if not rows:
        return
    matrix = embedder.embed([text_of(title, content) for _, title, content in rows])
    half = matrix.astype("<f2")
    conn.executemany(
        "INSERT OR REPLACE INTO observation_vectors (id, model, vector) VALUES (?, ?, ?)",
        [(row[0], embedder.model, half[n].tobytes()) for n, row in enumerate(rows)],
    )


def missing(conn: sqlite3.Connection, model: str, limit: int) -> list[tuple[int, str, str]]:
    """Up to ``limit`` live observations without a vector from ``model``, newest first."""
    return [
        (int(row[0]), str(row[1]), str(row[2]))
        for row in conn.execute(
            "SELECT o.id, o.title, o.content FROM observations o "
            "LEFT JOIN observation_vectors v ON v.id = o.id AND v.model = ? "
            "WHERE o.deleted_at IS NULL AND v.id IS NULL ORDER BY o.id DESC LIMIT ?",
            (model, limit),
        )
    ]


def nearest(
    conn: sqlite3.Connection,
    embedder: Embedder,
    query: str,
    options: SearchOptions,
    exclude: Collection[int],
    limit: int,
) -> list[int]:
    """Ids of up to ``limit`` live observations under ``options``' filters closest in meaning
    to ``query`` (cosine at least MIN_SIMILARITY), best first, leaving out ``exclude``."""
    import numpy as np

    from vaultgate.semantic.ranking import cosine_top

    where, values = queries.live_filter(options.project, options.scope, options.type)
    rows = conn.execute(
        "SELECT v.id, v.vector FROM observation_vectors v JOIN observations o ON o.id = v.id "
        f"WHERE {where} AND v.model = ? ORDER BY v.id DESC LIMIT ?",
        (*values, embedder.model, SEMANTIC_WINDOW),
    ).fetchall()
    width = embedder.dimensions * 2
    rows = [row for row in rows if len(row[1]) == width]  # a damaged blob is never read
    if not rows or limit <= 0:
        return []
    matrix = np.frombuffer(b"".join(row[1] for row in rows), dtype="<f2").reshape(len(rows), -1)
    ranked = cosine_top(embedder.embed_query(query), matrix, limit + len(exclude))
    ids = [int(rows[n][0]) for n, score in ranked if score >= MIN_SIMILARITY]
    return [i for i in ids if i not in exclude][:limit]
