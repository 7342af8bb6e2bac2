"""The index file: where it lives, its schema, and throwing it away when it cannot be trusted.

The file is a cache, so it is never migrated: one of another schema version (``PRAGMA
user_version``), of another vault, or holding text folded by another Python's Unicode tables,
is deleted and built again, as is one SQLite cannot read (not a database, malformed). Deleting
it by hand is always safe.

``notes`` holds one row per note; ``notes_text`` (FTS5, ``trigram`` tokenizer,
``case_sensitive 1`` because the text is folded before it is stored, see ``fold.py``) holds its
searched text under the same rowid, ``notes_words`` the same text's words (``unicode61``), for
ranking by bm25 alone, and ``note_vectors`` (``vectors.py``) a vector of its meaning. The text
lives nowhere else, so ``notes_text`` is a plain FTS5 table rather than an external-content
one; ``notes_words`` is contentless (the text is not stored twice: a row is deleted by giving
it the text ``notes_text`` holds), and all are written in the same transaction. A path is
TEXT, or BLOB (its UTF-8 bytes with surrogateescape) for a file name that is not valid UTF-8.

The file holds the text of every note, hidden ones too: it and its folder are its owner's
alone (``vaultgate.private_files``), made so before each time SQLite opens it.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path

from vaultgate.engine.index import vectors
from vaultgate.private_files import COMPANIONS, cache_folder, prepare_database

log = logging.getLogger(__name__)

SCHEMA_VERSION = 5  # 2: NUL stored as a space (records.py); 3: inline_tags; 4: notes_words;
# 5: links listed before embeds, frontmatter tags with a space dropped (issue 36)
BUSY_TIMEOUT_MS = 5_000
CACHE_KIB = 16_384  # SQLite's page cache for the connection, in KiB
# FTS5 merges a level's segments once it holds this many, in one pass, and not a few at every
# write as its default ('automerge' 4) does: 11-14% less CPU for a first build of 20,000 or
# 80,000 notes (fewer merge passes over the same postings), no slower a search (a query reads
# at most CRISIS_MERGE - 1 segments per level)
CRISIS_MERGE = 64

_SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE notes (
    id INTEGER PRIMARY KEY,
    path TEXT NOT NULL UNIQUE,
    sort_key BLOB NOT NULL,         -- UTF-16-BE: JavaScript's (the vault's) order of paths
    mtime_ns INTEGER NOT NULL,
    size INTEGER NOT NULL,
    frontmatter TEXT NOT NULL,      -- JSON object
    frontmatter_valid INTEGER NOT NULL,
    tags TEXT NOT NULL,             -- JSON array of strings
    headings TEXT NOT NULL,         -- JSON array of [level, text]
    links TEXT NOT NULL,            -- JSON array of strings
    inline_tags TEXT NOT NULL       -- JSON array of strings: each inline #tag, repeats kept
);
CREATE VIRTUAL TABLE notes_text USING fts5(
    body, tokenize = 'trigram case_sensitive 1', columnsize = 0
);
-- for ranking by bm25: in the trigram table each word is a phrase of trigrams whose every
-- posting is read (85 ms a query on 20,000 notes), here it is one posting list (a few ms)
CREATE VIRTUAL TABLE notes_words USING fts5(
    body, content = '', tokenize = 'unicode61 remove_diacritics 2'
);
"""

# SQLite's primary result codes for a file that is damaged or is not a database at all
_CORRUPT_CODES = {sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB}


def default_location(root: Path) -> Path:
    """``<user cache>/vaultgate/index/<hash of the vault's resolved path>.sqlite3``."""
    digest = hashlib.sha256(str(root.resolve()).encode("utf-8", "surrogateescape")).hexdigest()
    return cache_folder() / "index" / f"{digest[:24]}.sqlite3"


def is_corrupt(exc: sqlite3.Error) -> bool:
    code = getattr(exc, "sqlite_errorcode", None)
    return code is not None and code & 0xFF in _CORRUPT_CODES


def open_index(location: Path, *, vault: str, fold: str) -> sqlite3.Connection:
    """A connection to a usable index for ``vault`` whose text is folded by ``fold``: the
    file as found when it fits, else a new, empty one in its place."""
    expected = {"vault": vault, "fold": fold}
    try:
        conn = _connect(location)
    except sqlite3.DatabaseError as exc:
        reason: str | None = f"unreadable ({exc})"
    else:
        try:
            reason = _unusable(conn, expected)
        except sqlite3.DatabaseError as exc:
            reason = f"unreadable ({exc})"
        if reason is None:
            vectors.ensure_table(conn)  # an index made before vectors gains their table
            return conn
        conn.close()
    if reason != "new":
        log.info("vault index %s is %s: building it again", location, reason)
        delete(location)
    conn = _connect(location)
    try:
        with transaction(conn):
            _create(conn, expected)
    except BaseException:
        conn.close()
        raise
    return conn


@contextlib.contextmanager
def transaction(conn: sqlite3.Connection) -> Iterator[None]:
    """BEGIN IMMEDIATE (the write lock up front, so a busy file waits here, not mid-way)
    ... COMMIT, or ROLLBACK on any exception."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


def delete(location: Path) -> None:
    """Remove the index file and its WAL companions."""
    for suffix in ("", *COMPANIONS):
        with contextlib.suppress(FileNotFoundError):
            os.remove(f"{location}{suffix}")


def _connect(location: Path) -> sqlite3.Connection:
    prepare_database(location)  # owner-only, made so by us: SQLite would follow the umask
    # isolation_level=None: transactions are explicit (BEGIN IMMEDIATE ... COMMIT).
    # check_same_thread=False: VaultIndex serialises every use with its own lock.
    conn = sqlite3.connect(
        location, isolation_level=None, check_same_thread=False, timeout=BUSY_TIMEOUT_MS / 1000
    )
    try:
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS:d}")
        conn.execute(f"PRAGMA cache_size = -{CACHE_KIB:d}")
        conn.execute("PRAGMA journal_mode = WAL")
        # with WAL, NORMAL cannot corrupt the file; a power cut may lose the last commits,
        # which the next sync redoes from the notes themselves
        conn.execute("PRAGMA synchronous = NORMAL")
    except sqlite3.DatabaseError:
        conn.close()
        raise
    return conn


def _unusable(conn: sqlite3.Connection, expected: dict[str, str]) -> str | None:
    """Why the file cannot serve as this vault's index ("new" when it is empty), or None."""
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if version == 0:
        tables = conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
        return "new" if tables == 0 else "incomplete"
    if version != SCHEMA_VERSION:
        return f"of schema version {version}, not {SCHEMA_VERSION}"
    found = dict(conn.execute("SELECT key, value FROM meta").fetchall())
    for key, value in expected.items():
        if found.get(key) != value:
            return f"made for another {key} ({found.get(key)!r})"
    # a cheap read of both tables: a file damaged there fails now rather than mid-search
    conn.execute("SELECT count(*) FROM notes").fetchone()
    conn.execute("SELECT count(*) FROM notes_text WHERE rowid = 0").fetchone()
    conn.execute("SELECT count(*) FROM notes_words WHERE rowid = 0").fetchone()
    return None


def _create(conn: sqlite3.Connection, meta: dict[str, str]) -> None:
    for statement in _SCHEMA.split(";"):
        if statement.strip():
            conn.execute(statement)
    vectors.ensure_table(conn)
    conn.executemany("INSERT INTO meta (key, value) VALUES (?, ?)", meta.items())
    for table in ("notes_text", "notes_words"):
        conn.execute(f"INSERT INTO {table} ({table}, rank) VALUES ('automerge', 0)")
        conn.execute(
            f"INSERT INTO {table} ({table}, rank) VALUES ('crisismerge', ?)", (CRISIS_MERGE,)
        )
    # last: a file whose creation was cut short has user_version 0 and tables, "incomplete"
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION:d}")
