"""Full-text search: one MATCH expression drives both the page and its count.

The count and the page share the literal WHERE clause ``MATCH_WHERE``; filters live inside the
MATCH expression (fts.py), so both are answered from the FTS index alone, FTS-first, with no
join evaluated row by row. Ranking is bm25 with titles weighted double.

Ranking a very common word means computing bm25 for every row that has it (about 30 ms for
47,000 matches at 100,000 observations). So when more than RANK_WINDOW rows match, the page
ranks the newest RANK_WINDOW of them: a word that common carries almost no relevance signal
(its IDF is near zero), and recency breaks the tie. The total stays exact and the response says
a window was used. A query with one rarer word, or a project filter, matches fewer rows and is
ranked in full.

Ids a compaction soft-deleted may still be in the index for a moment (removals.py); while any
are, a page's statements add ``removals.EXCLUSION`` to their WHERE clause and a count takes off
the pending ids that match, so they are neither listed nor counted.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Callable
from typing import TypeVar

from vaultgate.errors import InvalidMemoryInput
from vaultgate.memory import queries, removals
from vaultgate.memory.connection import is_busy
from vaultgate.memory.fts import TextQuery, match_expression, parse_query
from vaultgate.memory.models import Observation, SearchMode, SearchOptions, SearchResult

T = TypeVar("T")

log = logging.getLogger(__name__)

RANK_WINDOW = 1_000
MATCH_WHERE = "observations_fts MATCH ?"
BM25 = "bm25(observations_fts, 2.0, 1.0, 0.0)"  # title, content, facets (filters only)


def count_search_results(conn: sqlite3.Connection, query: str, options: SearchOptions) -> int:
    """What ``search`` reports as its total: matches under the same filters and the same
    AND-then-OR rule, or the filtered count of live observations for a query without words."""
    parsed = parse_query(query)
    if not parsed.has_words:
        return queries.count_observations(conn, options.project, options.scope, options.type)
    return _plan(conn, parsed, options, removals.span(conn))[2]


def search(conn: sqlite3.Connection, query: str, options: SearchOptions) -> SearchResult:
    parsed = parse_query(query)
    if not parsed.has_words:
        return SearchResult(
            observations=queries.recent_observations(
                conn, options.limit, options.project, options.scope, options.type
            ),
            total=queries.count_observations(conn, options.project, options.scope, options.type),
            mode="recent",
            terms=(),
            ignored_terms=parsed.ignored,
            ranked_window=None,
            other_projects=None,
        )
    pending = removals.span(conn)
    where = MATCH_WHERE if pending is None else MATCH_WHERE + removals.EXCLUSION
    expression, mode, total = _plan(conn, parsed, options, pending)
    ids: list[int] = []
    window: int | None = None
    if total:
        floor = 0
        if total > RANK_WINDOW:
            window = RANK_WINDOW
            floor = _guard(
                lambda: conn.execute(
                    f"SELECT rowid FROM observations_fts WHERE {where} "
                    "ORDER BY rowid DESC LIMIT 1 OFFSET ?",
                    (expression, RANK_WINDOW - 1),
                ).fetchone()[0]
            )
        ids = _guard(
            lambda: [
                row[0]
                for row in conn.execute(
                    f"SELECT rowid FROM observations_fts WHERE {where} AND rowid >= ? "
                    f"ORDER BY {BM25}, rowid DESC LIMIT ?",
                    (expression, floor, options.limit),
                )
            ]
        )
    found = queries.observations_by_id(conn, ids)
    other_projects = None
    if total == 0 and options.project is not None:
        elsewhere = SearchOptions(project=None, type=options.type, scope=options.scope)
        other_projects = _plan(conn, parsed, elsewhere, pending)[2]
    return SearchResult(
        observations=[found[i] for i in ids if i in found],
        total=total,
        mode=mode,
        terms=parsed.terms,
        ignored_terms=parsed.ignored,
        ranked_window=window,
        other_projects=other_projects,
    )


def some_words(
    conn: sqlite3.Connection, query: str, options: SearchOptions, limit: int
) -> tuple[list[Observation], int]:
    """The fallback after a search whose every-word matches were fewer than its limit: up to
    ``limit`` observations that have some of the query's words but not all of them (those
    were listed already), best first, and how many there are. Nothing for a one-word query."""
    parsed = parse_query(query)
    if len(parsed.terms) < 2 or limit <= 0:
        return [], 0
    pending = removals.span(conn)
    where = MATCH_WHERE if pending is None else MATCH_WHERE + removals.EXCLUSION
    expression = (
        f"({_expression(parsed, options, any_term=True)}) NOT ({match_expression(parsed.terms)})"
    )
    total = _count(conn, expression, pending)
    if not total:
        return [], 0
    ids = _guard(
        lambda: [
            row[0]
            for row in conn.execute(
                f"SELECT rowid FROM observations_fts WHERE {where} "
                f"ORDER BY {BM25}, rowid DESC LIMIT ?",
                (expression, limit),
            )
        ]
    )
    found = queries.observations_by_id(conn, ids)
    return [found[i] for i in ids if i in found], total


def _plan(
    conn: sqlite3.Connection,
    parsed: TextQuery,
    options: SearchOptions,
    pending: tuple[int, int] | None,
) -> tuple[str, SearchMode, int]:
    """Every word first; when that finds nothing and there are several words, any word.
    ``pending``: the range of ids a compaction left in the index (removals.span), if any."""
    expression = _expression(parsed, options, any_term=False)
    total = _count(conn, expression, pending)
    if total == 0 and len(parsed.terms) > 1:
        any_expression = _expression(parsed, options, any_term=True)
        any_total = _count(conn, any_expression, pending)
        if any_total:
            return any_expression, "any", any_total
    return expression, "all", total


def _expression(parsed: TextQuery, options: SearchOptions, *, any_term: bool) -> str:
    return match_expression(
        parsed.terms,
        any_term=any_term,
        project=options.project,
        scope=options.scope,
        type=options.type,
    )


def _count(conn: sqlite3.Connection, expression: str, pending: tuple[int, int] | None) -> int:
    """Matches of ``expression``, less the pending ids among them: counted apart, inside the
    pending ids' range only, so no match outside it is tested against the list."""

    def count() -> int:
        total = conn.execute(
            f"SELECT count(*) FROM observations_fts WHERE {MATCH_WHERE}", (expression,)
        ).fetchone()[0]
        if pending is not None:
            total -= conn.execute(
                f"SELECT count(*) FROM observations_fts WHERE {MATCH_WHERE} "
                f"AND rowid BETWEEN ? AND ? AND {removals.IS_PENDING}",
                (expression, *pending),
            ).fetchone()[0]
        return int(total)

    return _guard(count)


def _guard(work: Callable[[], T]) -> T:
    """Run an FTS statement; its error never reaches the caller as raw FTS syntax."""
    try:
        return work()
    except sqlite3.OperationalError as exc:
        if is_busy(exc):
            raise  # not about the query: the store retries the whole read
        log.warning("FTS query failed: %s", exc)
        raise InvalidMemoryInput(
            "The search could not run on these words. Try fewer or plainer words, "
            "or an empty query to list the most recent observations."
        ) from None
