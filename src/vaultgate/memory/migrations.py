"""Schema versions: PRAGMA user_version and the ordered migrations of schema.sql.

Several servers may start at once on one file. Each reads user_version; if it is behind, it
takes an exclusive lock (BEGIN EXCLUSIVE), reads user_version again (another server may have
migrated meanwhile) and runs only the migrations still missing, all in that one transaction,
so a failure leaves the file as it was. A migration that leaves any table with fewer rows than
it found is rolled back: migrations add and reshape, they never delete (claude-mem #2812).
"""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass
from importlib import resources

from vaultgate.errors import MemoryStoreError
from vaultgate.memory.connection import retrying

_HEADER = re.compile(r"^-- migration (\d+): (.+)$")


@dataclass(frozen=True, slots=True)
class Migration:
    version: int
    description: str
    statements: tuple[str, ...]


def parse_migrations(script: str) -> tuple[Migration, ...]:
    """The ``-- migration N: what`` sections of ``script``, each split into statements.

    Statements are split with sqlite3.complete_statement, so a trigger body's inner ``;`` does
    not end it. Numbers must run 1, 2, 3, ... in order.
    """
    sections: list[tuple[int, str, list[str]]] = []
    buffer: list[str] = []
    for line in script.splitlines():
        header = _HEADER.match(line)
        if header:
            _flush(buffer, sections)
            sections.append((int(header.group(1)), header.group(2).strip(), []))
            continue
        if not sections or (not buffer and (not line.strip() or line.lstrip().startswith("--"))):
            continue  # the preamble, blank lines and comments between statements
        buffer.append(line)
        if sqlite3.complete_statement("\n".join(buffer)):
            _flush(buffer, sections)
    if buffer and "".join(buffer).strip():
        raise ValueError(f"unterminated statement in schema.sql: {' '.join(buffer)[:80]}")
    migrations = tuple(Migration(v, d, tuple(s)) for v, d, s in sections)
    if [m.version for m in migrations] != list(range(1, len(migrations) + 1)):
        raise ValueError("schema.sql migrations must be numbered 1, 2, 3, ... in order")
    return migrations


def _flush(buffer: list[str], sections: list[tuple[int, str, list[str]]]) -> None:
    statement = "\n".join(buffer).strip()
    buffer.clear()
    if statement:
        sections[-1][2].append(statement)


def load_migrations() -> tuple[Migration, ...]:
    script = resources.files("vaultgate.memory").joinpath("schema.sql").read_text("utf-8")
    return parse_migrations(script)


MIGRATIONS = load_migrations()
LATEST_VERSION = MIGRATIONS[-1].version


def schema_version(conn: sqlite3.Connection) -> int:
    row = conn.execute("PRAGMA user_version").fetchone()
    return int(row[0])


def migrate(conn: sqlite3.Connection, migrations: tuple[Migration, ...] = MIGRATIONS) -> int:
    """Bring the file up to the last of ``migrations``; returns the version it is at."""
    latest = migrations[-1].version
    current = schema_version(conn)
    _refuse_newer(current, latest)
    if current == latest:
        return current  # the common start: no lock taken
    return retrying(lambda: _migrate_exclusively(conn, migrations, latest))


def _migrate_exclusively(
    conn: sqlite3.Connection, migrations: tuple[Migration, ...], latest: int
) -> int:
    conn.execute("BEGIN EXCLUSIVE")
    try:
        current = schema_version(conn)  # again: another server may have migrated meanwhile
        _refuse_newer(current, latest)
        before = _row_counts(conn)
        for migration in migrations:
            if migration.version <= current:
                continue
            for statement in migration.statements:
                conn.execute(statement)
            conn.execute(f"PRAGMA user_version = {migration.version:d}")
        after = _row_counts(conn)
        shrunk = {t: (n, after.get(t, 0)) for t, n in before.items() if after.get(t, 0) < n}
        if shrunk:
            detail = ", ".join(f"{t}: {a} → {b}" for t, (a, b) in sorted(shrunk.items()))
            raise MemoryStoreError(
                f"A schema migration would have removed rows ({detail}); it was rolled back "
                "and the memory database is unchanged. Report this as a vaultgate bug."
            )
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    return latest


def _refuse_newer(current: int, latest: int) -> None:
    if current > latest:
        raise MemoryStoreError(
            f"The memory database has schema version {current}, newer than this vaultgate "
            f"understands ({latest}). Upgrade vaultgate, or point VAULTGATE_MEMORY_DB at "
            "another file."
        )


def _row_counts(conn: sqlite3.Connection) -> dict[str, int]:
    """Rows per ordinary table; FTS5 shadow tables are derived data and left out."""
    tables = conn.execute(
        "SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
    ).fetchall()
    virtual = [name for name, sql in tables if (sql or "").upper().startswith("CREATE VIRTUAL")]
    counts: dict[str, int] = {}
    for name, _sql in tables:
        if name in virtual or any(name.startswith(f"{v}_") for v in virtual):
            continue
        quoted = '"' + name.replace('"', '""') + '"'
        counts[name] = int(conn.execute(f"SELECT count(*) FROM {quoted}").fetchone()[0])
    return counts
