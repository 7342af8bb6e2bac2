"""The search-index removals a compaction leaves for a quiet moment: no read ever shows a
compacted row, the index agrees with its content view at every step, and the entries leave it
when the store is idle, closes, or has too many waiting."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from vaultgate.memory import removals
from vaultgate.memory import search as search_module
from vaultgate.memory.gateway import MemoryGateway
from vaultgate.memory.models import CompactRequest, SearchOptions
from vaultgate.memory.store import MemoryStore

from .conftest import FakeClock


def old_notes(store: MemoryStore, clock: FakeClock, count: int, project: str = "") -> list[int]:
    """``count`` observations saved 60 days ago, each with the word 'lighthouse'."""
    clock.advance(days=-60)
    try:
        return [
            store.save(f"note {i}", f"lighthouse keeper {i}", project=project).observation.id
            for i in range(count)
        ]
    finally:
        clock.advance(days=60)


def compact(
    store: MemoryStore, ids: list[int], project: str | None = None, summary: str | None = None
) -> None:
    store.compact(
        CompactRequest(older_than_days=30, ids=tuple(ids), project=project, summary_title=summary)
    )


def indexed(raw: sqlite3.Connection) -> int:
    return int(raw.execute("SELECT count(*) FROM observations_fts_docsize").fetchone()[0])


def pending(raw: sqlite3.Connection) -> int:
    return int(raw.execute("SELECT count(*) FROM observations_fts_pending").fetchone()[0])


def check_index(raw: sqlite3.Connection) -> None:
    """FTS5 compares its index with the content view; raises if they disagree."""
    raw.execute(
        "INSERT INTO observations_fts (observations_fts, rank) VALUES ('integrity-check', 1)"
    )


def eventually(condition: Callable[[], bool], *, every: float, within: float = 10.0) -> bool:
    """Wait for a background thread's effect, looking ``every`` seconds; the deadline only
    guards against a hang."""
    deadline = time.monotonic() + within
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(every)
    return True


def test_compacted_rows_leave_every_read_at_once_and_the_index_at_a_quiet_moment(
    file_store: MemoryStore, raw: sqlite3.Connection, clock: FakeClock
) -> None:
    ids = old_notes(file_store, clock, 5, project="p")
    kept = [*ids[3:], file_store.save("new", "lighthouse today", project="p").observation.id]

    compact(file_store, ids[:3], project="p", summary="three notes")

    assert (indexed(raw), pending(raw), file_store.pending_removals()) == (7, 3, 3)
    check_index(raw)
    for options in (SearchOptions(), SearchOptions(project="p"), SearchOptions(scope="project")):
        result = file_store.search("lighthouse", options)
        assert sorted(obs.id for obs in result.observations) == kept
        assert result.total == file_store.count_search_results("lighthouse", options) == 3
    assert file_store.search("keeper lighthouse").total == 2
    assert file_store.search("lighthouse", SearchOptions(project="q")).other_projects == 3

    file_store.when_idle()

    assert (indexed(raw), pending(raw)) == (4, 0)
    check_index(raw)
    assert sorted(obs.id for obs in file_store.search("lighthouse").observations) == kept


def test_live_matches_between_pending_ids_are_counted(store: MemoryStore, clock: FakeClock) -> None:
    ids = old_notes(store, clock, 6)
    compact(store, [ids[0], ids[4]])  # the pending range holds three live matches

    assert store.count_search_results("lighthouse") == 4
    assert store.count_search_results("keeper", SearchOptions(scope="project")) == 4
    assert sorted(o.id for o in store.search("lighthouse").observations) == [
        *ids[1:4],
        ids[5],
    ]


def test_the_rank_window_counts_only_rows_no_compaction_took(
    store: MemoryStore, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(search_module, "RANK_WINDOW", 3)
    ids = old_notes(store, clock, 8)
    compact(store, ids[-2:])  # the two newest: inside the window if it still counted them

    result = store.search("lighthouse", SearchOptions(limit=10))

    assert (result.total, result.ranked_window) == (6, 3)
    assert sorted(obs.id for obs in result.observations) == ids[3:6]


def test_a_restored_row_is_live_and_indexed_and_no_longer_pending(
    file_store: MemoryStore, raw: sqlite3.Connection, clock: FakeClock
) -> None:
    ids = old_notes(file_store, clock, 2)
    compact(file_store, ids[:1])

    raw.execute("UPDATE observations SET deleted_at = NULL WHERE id = ?", (ids[0],))

    assert pending(raw) == 0
    assert file_store.search("lighthouse").total == 2
    file_store.when_idle()
    check_index(raw)
    assert indexed(raw) == 2


def test_a_hard_delete_removes_a_pending_rows_entry_at_once(
    file_store: MemoryStore, raw: sqlite3.Connection, clock: FakeClock
) -> None:
    ids = old_notes(file_store, clock, 2)
    compact(file_store, ids[:1])

    file_store.delete(ids[0], hard=True)

    assert (indexed(raw), pending(raw)) == (1, 0)
    check_index(raw)


def test_a_pending_row_whose_text_changes_is_reindexed_then_removed(
    file_store: MemoryStore, raw: sqlite3.Connection, clock: FakeClock
) -> None:
    ids = old_notes(file_store, clock, 2)
    compact(file_store, ids[:1])

    raw.execute("UPDATE observations SET title = 'renamed', type = 'other' WHERE id = ?", (ids[0],))

    check_index(raw)  # the entry now holds the new words, so the removal can find them
    assert pending(raw) == 1
    assert file_store.search("renamed").total == 0
    file_store.when_idle()
    check_index(raw)
    assert (indexed(raw), pending(raw)) == (1, 0)


def test_a_compaction_that_leaves_the_bound_of_pending_ids_removes_them(
    file_store: MemoryStore,
    raw: sqlite3.Connection,
    clock: FakeClock,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(removals, "PENDING_BOUND", 4)
    ids = old_notes(file_store, clock, 6)

    compact(file_store, ids[:3])
    assert pending(raw) == 3
    compact(file_store, ids[3:5])

    assert (indexed(raw), pending(raw)) == (1, 0)
    check_index(raw)


def test_removals_go_in_batches_until_none_is_left(
    file_store: MemoryStore,
    raw: sqlite3.Connection,
    clock: FakeClock,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(removals, "PURGE_BATCH", 2)
    ids = old_notes(file_store, clock, 6)
    compact(file_store, ids[:5])

    file_store.when_idle()

    assert (indexed(raw), pending(raw)) == (1, 0)
    check_index(raw)


def test_closing_the_store_removes_what_is_pending(db_path: str, clock: FakeClock) -> None:
    store = MemoryStore.open(db_path, clock=clock)
    compact(store, old_notes(store, clock, 3)[:2])

    store.close()

    raw = sqlite3.connect(db_path)
    assert (indexed(raw), pending(raw)) == (1, 0)
    check_index(raw)
    raw.close()


def test_ids_one_connection_left_are_hidden_from_another_and_removed_by_it(
    file_store: MemoryStore, db_path: str, raw: sqlite3.Connection, clock: FakeClock
) -> None:
    ids = old_notes(file_store, clock, 3)
    compact(file_store, ids[:2])
    other = MemoryStore.open(db_path, clock=clock)

    assert other.search("lighthouse").total == 1
    other.when_idle()

    assert (indexed(raw), pending(raw)) == (1, 0)
    assert file_store.search("lighthouse").total == 1
    other.close()


def test_a_removal_that_cannot_take_the_lock_waits_for_the_next_quiet_moment(
    db_path: str, clock: FakeClock
) -> None:
    store = MemoryStore.open(db_path, clock=clock, busy_timeout_ms=10)
    compact(store, old_notes(store, clock, 2)[:1])
    writer = sqlite3.connect(db_path, isolation_level=None)
    writer.execute("BEGIN IMMEDIATE")  # another process holds the write lock

    store.when_idle()  # does not raise: the id stays listed

    assert store.pending_removals() == 1
    writer.execute("ROLLBACK")
    store.when_idle()
    assert store.pending_removals() == 0
    writer.close()
    store.close()


@pytest.mark.parametrize("where", ["file", ":memory:"])
def test_an_idle_gateway_removes_the_entries_compactions_left(
    tmp_path: Path, clock: FakeClock, where: str
) -> None:
    path = where if where == ":memory:" else str(tmp_path / "m.db")
    gateway = MemoryGateway(path, clock=clock, idle_seconds=0.05)
    ids = gateway.run_sync(lambda store: old_notes(store, clock, 3))

    gateway.run_sync(lambda store: compact(store, ids[:2]))

    # Each look is a call too: look less often than the quiet moment, so one can come.
    assert eventually(
        lambda: gateway.run_sync(lambda store: store.pending_removals()) == 0, every=0.2
    )
    assert gateway.run_sync(lambda store: store.search("lighthouse").total) == 1
    gateway.close()
