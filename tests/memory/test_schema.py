"""The schema under the store: the search index follows live rows, and hot queries use indexes."""

from __future__ import annotations

import sqlite3

import pytest

from vaultgate.memory import queries, removals
from vaultgate.memory.fts import match_expression
from vaultgate.memory.models import CompactRequest, SearchOptions
from vaultgate.memory.search import MATCH_WHERE
from vaultgate.memory.store import MemoryStore

from .conftest import FakeClock


def indexed_rows(raw: sqlite3.Connection) -> int:
    """Documents in the FTS index itself (not its content view)."""
    return int(raw.execute("SELECT count(*) FROM observations_fts_docsize").fetchone()[0])


def pending_ids(raw: sqlite3.Connection) -> int:
    """Ids whose index entry a compaction left for a quiet moment."""
    return int(raw.execute("SELECT count(*) FROM observations_fts_pending").fetchone()[0])


def check_index(raw: sqlite3.Connection) -> None:
    """FTS5 compares its index with the content view; raises if they disagree."""
    raw.execute(
        "INSERT INTO observations_fts (observations_fts, rank) VALUES ('integrity-check', 1)"
    )


def test_the_index_holds_exactly_the_live_rows_through_every_kind_of_change(
    file_store: MemoryStore, raw: sqlite3.Connection, clock: FakeClock
) -> None:
    clock.advance(days=-60)
    ids = [file_store.save(f"t{i}", f"body {i}", project="p").observation.id for i in range(8)]
    assert file_store.save("t7", "body 7", project="p").status == "duplicate"
    clock.advance(days=60)
    file_store.save("topic", "v1", topic_key="k")
    file_store.save("topic", "v2", topic_key="k")  # an upsert
    file_store.update(ids[0], title="renamed", type="decision")
    file_store.delete(ids[1])
    file_store.delete(ids[2], hard=True)
    file_store.delete(ids[1], hard=True)
    file_store.compact(CompactRequest(older_than_days=30, ids=(ids[3], ids[4]), summary_title="s"))
    raw.execute("UPDATE observations SET project = 'q' WHERE id = ?", (ids[5],))

    check_index(raw)  # the index agrees with its content view at every moment
    live = raw.execute("SELECT count(*) FROM observations WHERE deleted_at IS NULL").fetchone()[0]
    # The two compacted rows stay indexed until a quiet moment (removals.py), unseen by reads.
    assert (indexed_rows(raw), live, pending_ids(raw)) == (8, 6, 2)
    assert file_store.search("body").total == 4  # ids 0, 5, 6 and 7
    assert file_store.search("renamed").total == 1
    assert file_store.search("body", SearchOptions(project="q")).total == 1

    file_store.when_idle()

    check_index(raw)
    assert (indexed_rows(raw), live, pending_ids(raw)) == (6, 6, 0)
    assert file_store.search("body").total == 4


def test_a_soft_delete_takes_the_row_out_of_the_index(
    file_store: MemoryStore, raw: sqlite3.Connection
) -> None:
    observation_id = file_store.save("a", "b").observation.id
    assert indexed_rows(raw) == 1

    file_store.delete(observation_id)

    assert indexed_rows(raw) == 0
    check_index(raw)


def plan(raw: sqlite3.Connection, sql: str, values: list[object]) -> str:
    rows = raw.execute(f"EXPLAIN QUERY PLAN {sql}", values).fetchall()
    return " | ".join(row[3] for row in rows)


def filtered(sql: str, project: str | None, scope: str | None) -> tuple[str, list[object]]:
    where, values = queries.live_filter(project, scope)
    return sql.format(where=where), values


@pytest.mark.parametrize(
    ("name", "sql", "values", "index"),
    [
        pytest.param(
            "count_observations by project and scope",
            *filtered("SELECT count(*) FROM observations WHERE {where}", "p", "project"),
            "observations_live_project",
            id="count-project-scope",
        ),
        pytest.param(
            "count_observations by project",
            *filtered("SELECT count(*) FROM observations WHERE {where}", "p", None),
            "observations_live_project",
            id="count-project",
        ),
        pytest.param(
            "mem_context recent by project",
            *filtered(
                "SELECT id FROM observations WHERE {where} ORDER BY id DESC LIMIT 20", "p", None
            ),
            "observations_live_project",
            id="recent-project",
        ),
        pytest.param(
            "mem_context recent by project and scope",
            *filtered(
                "SELECT id FROM observations WHERE {where} ORDER BY id DESC LIMIT 20",
                "p",
                "personal",
            ),
            "observations_live_project",
            id="recent-project-scope",
        ),
        pytest.param(
            "mem_context recent in every project: the table backwards by id",
            *filtered(
                "SELECT id FROM observations WHERE {where} ORDER BY id DESC LIMIT 20",
                None,
                "personal",
            ),
            "SCAN observations",
            id="recent-all",
        ),
        pytest.param(
            "mem_timeline neighbours",
            "SELECT id FROM observations WHERE session_id = ? AND deleted_at IS NULL AND id < ? "
            "ORDER BY id DESC LIMIT 5",
            ["s", 10],
            "observations_live_session",
            id="timeline",
        ),
        pytest.param(
            "mem_save duplicate check",
            "SELECT id FROM observations WHERE normalized_hash = ? AND project = ? AND scope = ? "
            "AND created_at >= ? AND deleted_at IS NULL ORDER BY created_at DESC, id DESC LIMIT 1",
            ["h", "p", "project", "2026"],
            "observations_dedupe",
            id="dedupe",
        ),
        pytest.param(
            "mem_save topic upsert",
            "SELECT id FROM observations WHERE topic_key = ? AND project = ? AND scope = ? "
            "AND deleted_at IS NULL AND topic_key IS NOT NULL "
            "ORDER BY updated_at DESC, id DESC LIMIT 1",
            ["k", "p", "project"],
            "observations_topic",
            id="topic",
        ),
        pytest.param(
            "mem_compact stale",
            "SELECT id FROM observations WHERE deleted_at IS NULL AND created_at < ? "
            "ORDER BY created_at, id LIMIT 200",
            ["2026"],
            "observations_live_created",
            id="stale",
        ),
        pytest.param(
            "mem_context prompts",
            "SELECT id FROM prompts WHERE project = ? ORDER BY id DESC LIMIT 10",
            ["p"],
            "prompts_project",
            id="prompts",
        ),
        pytest.param(
            "mem_context sessions",
            "SELECT id FROM sessions WHERE project = ? ORDER BY started_at DESC, id DESC LIMIT 5",
            ["p"],
            "sessions_project_started",
            id="sessions",
        ),
    ],
)
def test_hot_queries_use_an_index_and_need_no_sort(
    raw: sqlite3.Connection, name: str, sql: str, values: list[object], index: str
) -> None:
    steps = plan(raw, sql, values)

    assert index in steps, name
    assert "TEMP B-TREE" not in steps, name


@pytest.mark.parametrize(
    "where",
    [
        pytest.param(MATCH_WHERE, id="nothing-pending"),
        pytest.param(MATCH_WHERE + removals.EXCLUSION, id="ids-pending"),
    ],
)
def test_search_counts_and_pages_are_answered_by_the_index_alone(
    raw: sqlite3.Connection, where: str
) -> None:
    expression = match_expression(("a", "b"), project="p", scope="project", type="note")
    count = plan(raw, f"SELECT count(*) FROM observations_fts WHERE {where}", [expression])
    page = plan(
        raw,
        f"SELECT rowid FROM observations_fts WHERE {where} AND rowid >= ? "
        "ORDER BY bm25(observations_fts, 2.0, 1.0, 0.0) LIMIT 10",
        [expression, 0],
    )

    for text in (count, page):
        assert "VIRTUAL TABLE INDEX" in text
        assert "observations " not in text.replace("observations_fts", "")


def test_counting_the_pending_matches_runs_the_match_once_over_their_id_range(
    raw: sqlite3.Connection,
) -> None:
    expression = match_expression(("a",))
    steps = plan(
        raw,
        f"SELECT count(*) FROM observations_fts WHERE {MATCH_WHERE} "
        f"AND rowid BETWEEN ? AND ? AND {removals.IS_PENDING}",
        [expression, 1, 2],
    ).split(" | ")

    assert steps[0].startswith("SCAN observations_fts VIRTUAL TABLE INDEX")
    # FTS5's plan names its constraints: M (MATCH), > and < (the range); = would mean one
    # MATCH per pending id, which SQLite picks when the IN is offered to the table.
    assert "=" not in steps[0].partition("INDEX")[2]
    assert "observations " not in " ".join(steps).replace("observations_fts", "")
