"""Schema versions: fresh files, old files, newer files, failed and row-deleting migrations,
and several servers starting on one file at once."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest

from vaultgate.errors import MemoryStoreError
from vaultgate.memory.connection import connect
from vaultgate.memory.migrations import (
    LATEST_VERSION,
    MIGRATIONS,
    Migration,
    migrate,
    parse_migrations,
    schema_version,
)
from vaultgate.memory.models import CompactRequest
from vaultgate.memory.store import MemoryStore


def schema_of(conn: sqlite3.Connection) -> list[tuple[str, str]]:
    return conn.execute(
        "SELECT type, name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name"
    ).fetchall()


def test_schema_sql_holds_numbered_migrations_with_whole_triggers() -> None:
    assert [m.version for m in MIGRATIONS] == list(range(1, LATEST_VERSION + 1))
    triggers = [s for m in MIGRATIONS for s in m.statements if s.startswith("CREATE TRIGGER")]
    assert len(triggers) == 7  # migration 2's three; 3 replaces two of them; 4 adds two
    assert all(t.rstrip().endswith("END;") for t in triggers)


def test_parse_refuses_gaps_and_unterminated_statements() -> None:
    with pytest.raises(ValueError, match="numbered"):
        parse_migrations("-- migration 2: x\nCREATE TABLE a (b);\n")
    with pytest.raises(ValueError, match="unterminated"):
        parse_migrations("-- migration 1: x\nCREATE TABLE a (b)\n")


def test_a_fresh_file_gets_every_migration(tmp_path: Path) -> None:
    conn = connect(str(tmp_path / "m.db"))

    assert migrate(conn) == LATEST_VERSION
    assert schema_version(conn) == LATEST_VERSION
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    assert conn.execute("PRAGMA busy_timeout").fetchone()[0] == 5000
    conn.close()


def test_opening_twice_changes_nothing(tmp_path: Path) -> None:
    path = str(tmp_path / "m.db")
    MemoryStore.open(path).close()
    conn = connect(path)
    before = schema_of(conn)

    MemoryStore.open(path).close()

    assert schema_of(conn) == before
    conn.close()


def test_an_old_version_file_is_migrated_and_keeps_every_row(tmp_path: Path) -> None:
    path = str(tmp_path / "old.db")
    conn = connect(path)
    migrate(conn, MIGRATIONS[:1])  # a file from before the search index existed
    conn.execute("INSERT INTO sessions (id, project, started_at) VALUES ('s', 'p', '2026-01-01')")
    for i, deleted in enumerate([None, None, "2026-02-01 00:00:00"]):
        conn.execute(
            "INSERT INTO observations (session_id, type, project, normalized_hash, created_at, "
            "updated_at, deleted_at, title, content) "
            "VALUES ('s', 'note', 'p', 'h', '2026-01-01', '2026-01-01', ?, ?, 'lighthouse')",
            (deleted, f"row {i}"),
        )
    conn.execute("INSERT INTO prompts (session_id, created_at, content) VALUES ('s', 'x', 'hi')")
    conn.close()

    store = MemoryStore.open(path)

    check = sqlite3.connect(path)
    assert schema_version(check) == LATEST_VERSION
    assert check.execute("SELECT count(*) FROM observations").fetchone()[0] == 3
    assert check.execute("SELECT count(*) FROM prompts").fetchone()[0] == 1
    assert check.execute("SELECT count(*) FROM observations_fts_docsize").fetchone()[0] == 2
    check.execute(
        "INSERT INTO observations_fts (observations_fts, rank) VALUES ('integrity-check', 1)"
    )
    check.close()
    assert [obs.title for obs in store.search("lighthouse").observations] == ["row 1", "row 0"]
    store.close()


def test_a_file_from_a_newer_vaultgate_is_refused_untouched(tmp_path: Path) -> None:
    path = str(tmp_path / "new.db")
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {LATEST_VERSION + 1}")
    conn.close()

    with pytest.raises(MemoryStoreError, match="newer than this vaultgate"):
        MemoryStore.open(path)

    conn = sqlite3.connect(path)
    assert schema_of(conn) == []
    conn.close()


def test_a_migration_that_would_remove_rows_is_rolled_back(tmp_path: Path) -> None:
    conn = connect(str(tmp_path / "m.db"))
    migrate(conn)
    conn.execute("INSERT INTO sessions (id, started_at) VALUES ('s', 'now')")
    bad = Migration(LATEST_VERSION + 1, "dedupe sessions", ("DELETE FROM sessions",))

    with pytest.raises(MemoryStoreError, match=r"sessions: 1 → 0"):
        migrate(conn, (*MIGRATIONS, bad))

    assert schema_version(conn) == LATEST_VERSION
    assert conn.execute("SELECT count(*) FROM sessions").fetchone()[0] == 1
    conn.close()


def test_a_failing_migration_leaves_the_file_as_it_was(tmp_path: Path) -> None:
    conn = connect(str(tmp_path / "m.db"))
    migrate(conn, MIGRATIONS[:1])
    before = schema_of(conn)
    broken = Migration(2, "broken", ("CREATE TABLE fine (a)", "CREATE TABLE (syntax error"))

    with pytest.raises(sqlite3.OperationalError):
        migrate(conn, (MIGRATIONS[0], broken))

    assert schema_version(conn) == 1
    assert schema_of(conn) == before
    conn.close()


def test_several_servers_starting_at_once_migrate_exactly_once(tmp_path: Path) -> None:
    path = str(tmp_path / "shared.db")
    starters = 6
    barrier = threading.Barrier(starters)
    errors: list[BaseException] = []
    stores: list[MemoryStore] = []
    lock = threading.Lock()

    def start() -> None:
        barrier.wait()
        try:
            opened = MemoryStore.open(path)
        except BaseException as exc:  # collected, asserted below
            with lock:
                errors.append(exc)
            return
        with lock:
            stores.append(opened)

    threads = [threading.Thread(target=start) for _ in range(starters)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert errors == []
    assert len(stores) == starters
    for n, opened in enumerate(stores):
        opened.save(f"from server {n}", "hello")
    conn = sqlite3.connect(path)
    assert schema_version(conn) == LATEST_VERSION
    assert conn.execute("SELECT count(*) FROM observations").fetchone()[0] == starters
    conn.close()
    for opened in stores:
        opened.close()


def test_a_version_2_file_upgrades_with_every_row_and_search_result(tmp_path: Path) -> None:
    path = str(tmp_path / "v2.db")
    conn = connect(path)
    migrate(conn, MIGRATIONS[:2])  # the schema before compaction left removals for later
    conn.execute("INSERT INTO sessions (id, project, started_at) VALUES ('s', 'p', '2026-01-01')")
    for i, deleted in enumerate([None, "2026-02-01 00:00:00", None, None]):
        conn.execute(
            "INSERT INTO observations (session_id, type, project, normalized_hash, created_at, "
            "updated_at, deleted_at, title, content) "
            "VALUES ('s', 'note', 'p', ?, '2026-01-01', '2026-01-01', ?, ?, ?)",
            (f"h{i}", deleted, f"row {i}", f"lighthouse keeper {i}"),
        )
    matches = "SELECT rowid FROM observations_fts WHERE observations_fts MATCH ? ORDER BY rowid"
    found_before = conn.execute(matches, ("lighthouse",)).fetchall()
    conn.close()

    store = MemoryStore.open(path)

    check = sqlite3.connect(path, isolation_level=None)
    assert schema_version(check) == LATEST_VERSION == 5
    assert check.execute("SELECT count(*) FROM observations").fetchone()[0] == 4
    assert check.execute(matches, ("lighthouse",)).fetchall() == found_before == [(1,), (3,), (4,)]
    check.execute(
        "INSERT INTO observations_fts (observations_fts, rank) VALUES ('integrity-check', 1)"
    )
    dedupe = check.execute(
        "SELECT sql FROM sqlite_master WHERE name = 'observations_dedupe'"
    ).fetchone()[0]
    assert "WHERE" not in dedupe  # soft-deleted rows stay in it now
    triggers = check.execute("SELECT name FROM sqlite_master WHERE type = 'trigger' ORDER BY 1")
    assert [name for (name,) in triggers] == [
        "observation_vectors_gone",
        "observation_vectors_stale",
        "observations_fts_delete",
        "observations_fts_insert",
        "observations_fts_update",
    ]
    assert [obs.title for obs in store.search("lighthouse").observations] == [
        "row 3",
        "row 2",
        "row 0",
    ]
    # The new triggers work on the upgraded file: a compaction's row is hidden, then removed.
    store.compact(CompactRequest(older_than_days=30, ids=(1,)))
    assert store.search("lighthouse").total == 2
    store.when_idle()
    assert check.execute(matches, ("lighthouse",)).fetchall() == [(3,), (4,)]
    check.execute(
        "INSERT INTO observations_fts (observations_fts, rank) VALUES ('integrity-check', 1)"
    )
    check.close()
    store.close()
