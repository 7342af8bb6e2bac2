"""The vault index: every note's metadata and folded text in SQLite, kept equal to the folder.

:class:`VaultIndex` compares the notes on disk with the rows by ``(mtime_ns, size)`` at
:meth:`~VaultIndex.sync` (a note new or changed is read again, one gone is dropped), and looks
at given paths again at :meth:`~VaultIndex.refresh` (what the watcher and vaultgate's own
writes call). Work is done in batches of BATCH notes, one transaction each, so a process
killed mid-way leaves an index whose every row is a note as it was once read, and the next
``sync()`` finishes the job.

Races with the disk are settled where it is written: every note is stat'ed before it is read
(``records.py``), and a batch, read before its transaction takes the lock, is checked again
under it (a note whose stat moved since is read again, one that came back is read, one that
vanished is dropped). A write to the index therefore never puts back an older text than the last one
stored, whoever (sync, watcher, a write through vaultgate) stored it.

Reads answer None until the first ``sync()`` of this process has finished (the file may hold
a vault edited while vaultgate was not running), and whenever SQLite fails: the caller then
scans the vault instead.

The simple search's candidates are row ids from the trigram table, named from a list of every
note's path by row id kept in memory (:class:`_PathsById`): joining ``notes`` for the paths
was half of what the lookup of a broad word cost. The list is as current as the file while
this connection alone writes it (each write updates it), and is read again when SQLite's
``data_version`` says another connection wrote (a second server on the same vault).
"""

from __future__ import annotations

import json
import logging
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, cast

from vaultgate.engine.index import database, reachable_bm25, vectors
from vaultgate.engine.index.fold import current_fold
from vaultgate.engine.index.generation import Generation
from vaultgate.engine.index.query import (
    any_word_expression,
    any_word_phrases,
    match_expression,
    ranks_by_whole_words,
)
from vaultgate.engine.index.records import (
    IndexedNote,
    ReadNote,
    name_is_stored_as_is,
    read_note,
)
from vaultgate.engine.index.scan import Stat, scan_notes
from vaultgate.engine.tags import count_tags, counted_tags
from vaultgate.engine.vault import js_sort_key
from vaultgate.locations import OBSIDIAN_LINKS, LinkRules, locate, passes
from vaultgate.paths import is_hidden

log = logging.getLogger(__name__)

BATCH = 500  # notes per transaction
_SQL_VARIABLES = 900  # bound values per IN (...) list, far below SQLite's limit

Progress = Callable[[int, int], None]
"""``progress(done, total)``: notes settled so far of those the sync has to read or drop."""

_NOTE_COLUMNS = (
    "path, mtime_ns, size, frontmatter, frontmatter_valid, tags, headings, links, inline_tags"
)
_TEXT_COLUMNS = "notes.path, notes.mtime_ns, notes.size, notes_text.body"


@dataclass(frozen=True, slots=True)
class IndexedText:
    """A note's searched text as the index holds it, and the stat it was read at."""

    path: str
    stat: Stat  # (mtime_ns, size)
    searched: str


class TextMirror(Protocol):
    """Who keeps a copy of the searched texts (the folder's search keeps them in memory)."""

    def stored(self, texts: Sequence[IndexedText]) -> None: ...

    def dropped(self, paths: Sequence[str]) -> None: ...


@dataclass(frozen=True, slots=True)
class SyncReport:
    notes: int  # in the index afterwards
    read: int  # read (new or changed)
    removed: int
    seconds: float


class VaultIndex:
    """The index of one vault folder, in one SQLite file.

    Thread-safe: every method may be called from any thread; they share one connection under
    one lock. ``sync`` reads files for seconds on a first build, so call it from a worker
    thread, never on an event loop; the watcher (``watcher.watch``) does its own blocking work
    in worker threads.
    """

    def __init__(
        self,
        folder: Path,
        *,
        location: Path | None = None,
        mirror: TextMirror | None = None,
        links: LinkRules = OBSIDIAN_LINKS,
    ) -> None:
        """Open (or create, or replace when unusable) the index of ``folder``: by default
        under the user cache folder, named from a hash of the folder's resolved path.
        ``mirror`` is told of every searched text stored or dropped, once it is committed.
        ``links``: the symbolic links its notes may be read through (``vaultgate.locations``),
        as the Vault's walk follows them."""
        self.links = links
        self.folder = folder.resolve()
        self._mirror = mirror
        self._root = str(self.folder)
        self.location = location if location is not None else database.default_location(self.folder)
        self._fold = current_fold()
        self._lock = threading.Lock()
        self._conn = self._open()
        self._paths = _PathsById()
        # the word table's lengths by row id, as of (total_changes, data_version)
        self._lengths: tuple[tuple[int, int], dict[int, int]] | None = None
        self._read_paths()
        self._ready = False
        self._damaged = False  # a read found the file damaged: the next sync replaces it
        self._closed = False
        # moves on each committed write, whoever asked for it (sync, watcher, vaultgate)
        self.generation = Generation()

    def _open(self) -> sqlite3.Connection:
        return database.open_index(self.location, vault=self._root, fold=self._fold.fingerprint)

    def _read_paths(self) -> None:
        """The paths by row id, read at opening (a first build's writes then add the very
        path strings the searched texts hold, rather than a copy of each read at the end)."""
        try:
            self._paths.current(self._conn)
        except sqlite3.Error as exc:
            log.debug("vault index paths not read at opening: %s", exc)

    # --- life cycle ---------------------------------------------------------------------------

    @property
    def ready(self) -> bool:
        """Whether a ``sync()`` of this process has finished: reads answer from here on."""
        return self._ready

    def assume_synced(self) -> None:
        """Answer reads without a ``sync()`` of this process: another process (the server's
        head start, ``folder/head_start.py``) has just brought the file up to date, and this
        process's watcher and next sync bring in what changed since."""
        self._ready = not self._closed

    def close(self) -> None:
        """Checkpoint the WAL into the file and close; later reads answer None, and later
        refreshes do nothing (a watcher's last batch after shutdown)."""
        with self._lock:
            if self._closed:
                return
            self._closed, self._ready = True, False
            try:
                self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            except sqlite3.Error as exc:
                log.debug("vault index checkpoint on close failed: %s", exc)
            self._conn.close()

    def __enter__(self) -> VaultIndex:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # --- keeping it current -------------------------------------------------------------------

    def sync(
        self, progress: Progress | None = None, *, disk: Mapping[str, Stat] | None = None
    ) -> SyncReport:
        """Bring the index up to date with the folder: every note whose ``(mtime_ns, size)``
        differs from its row is read again, every row whose note is gone is dropped.

        ``disk``: the notes on disk as a walk just found them (``scan_folder(...).notes``),
        for a caller that walked the folder for more than the index; by default it is walked
        here.

        ``progress(done, total)`` is called after each batch when there is anything to read
        or drop (on a first build, every note). One line goes to the log at the end. An
        index file found damaged on the way is replaced and built again.
        """
        started = time.perf_counter()
        if self._damaged:
            self._replace_file()
        try:
            read, removed = self._sync(progress, disk)
        except sqlite3.DatabaseError as exc:
            if not database.is_corrupt(exc):
                raise
            log.warning("vault index %s is damaged (%s): building it again", self.location, exc)
            self._replace_file()
            read, removed = self._sync(progress, disk)
        with self._lock:
            if self._closed:
                raise RuntimeError("the vault index was closed during sync()")
            notes = self._conn.execute("SELECT count(*) FROM notes").fetchone()[0]
            self._paths.current(self._conn)  # read now (in the sync's thread), not by a search
            self._ready = True
        report = SyncReport(notes, read, removed, time.perf_counter() - started)
        log.info(
            "vault index: %d notes (%d read, %d removed) in %.2f s",
            report.notes,
            report.read,
            report.removed,
            report.seconds,
        )
        return report

    def _sync(self, progress: Progress | None, disk: Mapping[str, Stat] | None) -> tuple[int, int]:
        if disk is None:
            disk = scan_notes(self._root, rules=self.links)
        with self._lock:
            stored = self._stored("")
        removed = [path for path in stored if path not in disk]
        changed = sorted(path for path, stat in disk.items() if stored.get(path) != stat)
        self._settle([*changed, *removed], progress)
        return len(changed), len(removed)

    def refresh(self, paths: Iterable[str]) -> None:
        """Look at each vault path again now, and store what is there: a note is read again
        (even when its stat did not change), a folder's notes are compared with their rows
        like ``sync`` does, and the rows of a path that is gone (a note, or a folder and all
        below it) are dropped. '' is the whole vault; hidden paths are ignored."""
        if self._closed:
            return
        settle: dict[str, None] = {}
        for path in paths:
            if is_hidden(path) or not _is_relative(path):
                continue
            with self._lock:
                stored = self._stored(path)
            if os.path.isdir(self._location(path)):
                disk = scan_notes(self._root, path, rules=self.links)
                settle.update((p, None) for p, stat in disk.items() if stored.get(p) != stat)
                settle.update((p, None) for p in stored if p not in disk)
            else:  # a note, or a path that is gone with whatever was below it
                settle[path] = None
                settle.update(dict.fromkeys(stored))
        self._settle(list(settle), None)

    def note_written(self, path: str) -> None:
        """vaultgate wrote (created or changed) the note at ``path``: index it now."""
        self.refresh([path])

    def note_removed(self, path: str) -> None:
        """vaultgate deleted ``path`` (a note, or a folder with its notes)."""
        self.refresh([path])

    def note_moved(self, source: str, destination: str) -> None:
        """vaultgate moved ``source`` to ``destination`` (a note or a folder)."""
        self.refresh([source, destination])

    def _settle(self, paths: Sequence[str], progress: Progress | None) -> None:
        """Store each path's note as it is on disk now, or drop it: batch by batch, each
        read without the lock (reads keep answering meanwhile), checked again and written
        in one transaction under it."""
        done = 0
        for start in range(0, len(paths), BATCH):
            batch = paths[start : start + BATCH]
            reads = self._read_all(batch)
            with self._lock:
                if self._closed:
                    return
                self._write(batch, [self._recheck(p, r) for p, r in zip(batch, reads, strict=True)])
            done += len(batch)
            if progress is not None:
                progress(done, len(paths))

    def _read_all(self, paths: Sequence[str]) -> list[ReadNote | None]:
        return [self._read(path) for path in paths]

    def _read(self, path: str) -> ReadNote | None:
        """The note at ``path`` now, or None when there is none (gone, a folder, unreadable:
        the engine's searches leave out a note they cannot read, too)."""
        if not path.endswith(".md") or is_hidden(path):
            return None
        found = locate(self._root, path)  # a link the watcher saw appear is checked here
        if found.loop or (found.linked and not passes(found, self.links)):
            return None
        try:
            return read_note(self._root, path)
        except OSError as exc:
            log.debug("vault index: %s not indexed: %s", path, exc)
            return None
        except ValueError:  # a path the OS cannot take (NUL)
            return None

    def _recheck(self, path: str, read: ReadNote | None) -> ReadNote | None:
        """``read`` if the disk still agrees with it, else the note read again now."""
        try:
            st = os.stat(self._location(path))
        except (OSError, ValueError):
            return None
        if read is not None and (st.st_mtime_ns, st.st_size) == (
            read.note.mtime_ns,
            read.note.size,
        ):
            return read
        return self._read(path)

    def _write(self, paths: Sequence[str], reads: Sequence[ReadNote | None]) -> None:
        conn = self._conn
        keys = [key for key in map(_db_path, paths) if key is not None]
        with database.transaction(conn):
            rows = [
                row
                for chunk in _chunks(keys, _SQL_VARIABLES)
                for row in conn.execute(
                    "SELECT id, path, mtime_ns, size FROM notes"
                    f" WHERE path IN ({','.join('?' * len(chunk))})",
                    chunk,
                )
            ]
            old = [row[0] for row in rows]
            was = {row[1]: (row[2], row[3]) for row in rows}
            # a contentless table forgets a row's words only when told them: the text held now
            conn.executemany(
                "INSERT INTO notes_words (notes_words, rowid, body)"
                " SELECT 'delete', rowid, body FROM notes_text WHERE rowid = ?",
                ((i,) for i in old),
            )
            conn.executemany("DELETE FROM notes_text WHERE rowid = ?", ((i,) for i in old))
            vectors.delete(conn, old)  # a note read again is embedded again
            conn.executemany("DELETE FROM notes WHERE id = ?", ((i,) for i in old))
            next_id = conn.execute("SELECT coalesce(max(id), 0) + 1 FROM notes").fetchone()[0]
            notes: list[tuple[Any, ...]] = []
            texts: list[tuple[int, str]] = []
            stored: list[IndexedText] = []
            named: list[tuple[int, str]] = []  # row id, path
            for read in reads:
                key = None if read is None else _db_path(read.note.path)
                if read is None or key is None:
                    continue
                note = read.note
                notes.append(
                    (
                        next_id,
                        key,
                        js_sort_key(note.path),
                        note.mtime_ns,
                        note.size,
                        _json(note.frontmatter),
                        int(note.frontmatter_valid),
                        _json(note.tags),
                        _json(note.headings),
                        _json(note.links),
                        _json(note.inline_tags),
                    )
                )
                texts.append((next_id, read.searched))
                named.append((next_id, note.path))
                if name_is_stored_as_is(note.path):
                    stored.append(IndexedText(note.path, (note.mtime_ns, note.size), read.searched))
                next_id += 1
            conn.executemany(
                "INSERT INTO notes (id, path, sort_key, mtime_ns, size, frontmatter,"
                " frontmatter_valid, tags, headings, links, inline_tags)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                notes,
            )
            conn.executemany("INSERT INTO notes_text (rowid, body) VALUES (?, ?)", texts)
            conn.executemany("INSERT INTO notes_words (rowid, body) VALUES (?, ?)", texts)
        self._paths.dropped(old)  # committed, as the mirror below
        self._paths.stored(named)
        if self._mirror is not None:  # committed: what the index holds now
            self._mirror.stored(stored)
            kept = {text.path for text in stored}  # (the others: gone, or a name not UTF-8)
            self._mirror.dropped([path for path in paths if path not in kept])
        now = {
            key: (read.note.mtime_ns, read.note.size)
            for read in reads
            if read is not None and (key := _db_path(read.note.path)) is not None
        }
        if now != was:  # (the watcher's second look at vaultgate's own write changes nothing)
            self.generation.bump()  # last: what it stands for is all in place

    def _stored(self, under: str) -> dict[str, Stat]:
        """The rows at ``under`` or below it ('' for all): path -> (mtime_ns, size)."""
        select = "SELECT path, mtime_ns, size FROM notes"
        if not under:
            rows = self._conn.execute(select).fetchall()
            return {_py_path(path): (mtime_ns, size) for path, mtime_ns, size in rows}
        key = _db_path(under)
        if key is None:
            return {}
        raw = key if isinstance(key, bytes) else key.encode("utf-8")
        # '0' follows '/': each range holds the paths that start with under + '/' (and a few
        # others, dropped below), as BLOB (names that are not UTF-8) and, for a name that
        # is, as TEXT
        rows = self._conn.execute(
            f"{select} WHERE path >= ?1 AND path < ?2", (raw, raw + b"0")
        ).fetchall()
        if isinstance(key, str):
            rows += self._conn.execute(
                f"{select} WHERE path >= ?1 AND path < ?2", (key, f"{key}0")
            ).fetchall()
        prefix = f"{under}/"
        return {
            p: (mtime_ns, size)
            for p, mtime_ns, size in ((_py_path(row[0]), row[1], row[2]) for row in rows)
            if p == under or p.startswith(prefix)
        }

    def _replace_file(self) -> None:
        with self._lock:
            self._ready = self._damaged = False
            self._conn.close()
            database.delete(self.location)
            self._conn = self._open()
            self._paths = _PathsById()
            self._lengths = None
            self._read_paths()

    def _location(self, path: str) -> str:
        return os.path.join(self._root, *path.split("/")) if path else self._root

    # --- reading it ---------------------------------------------------------------------------

    def candidates(self, query: str) -> list[str] | None:
        """The notes that may match the simple search ``query``, in no particular order
        (the search takes them in the vault's; sorting here was a sixth of its time): a
        superset of the notes whose ``basename + "\\n\\n" + content`` holds every term
        (case-insensitive, as ``re.IGNORECASE``). None when the index cannot narrow: no term
        has three characters to look up (``query.py``), or the index is not ready."""
        if not query.split():
            return []  # the simple search finds nothing
        expression = match_expression(query)
        if expression is None or not self._ready:
            return None
        with self._lock:
            if not self._ready:
                return None
            try:
                paths = self._paths.current(self._conn)
                ids = self._conn.execute(
                    "SELECT rowid FROM notes_text WHERE notes_text MATCH ?", (expression,)
                ).fetchall()
            except sqlite3.Error:
                pass  # the query below says what to do about it
            else:
                named = paths.named(ids)
                if named is not None:
                    return named
        rows = self._matching("notes.path", query)  # (a row the list lacks: never seen)
        return None if rows is None else [_py_path(row[0]) for row in rows]

    def texts(self, paths: Sequence[str]) -> list[IndexedText] | None:
        """What the index holds of each note at ``paths`` (nothing for a path it does not
        hold, or whose name is not UTF-8): the ``(mtime_ns, size)`` it was read at and its
        searched text (``records.searched_text``), so that a search can count matches in a
        note whose file still has that stat without reading the file."""
        keys = [key for key in map(_db_path, paths) if key is not None]
        found: list[IndexedText] = []
        for chunk in _chunks(keys, _SQL_VARIABLES):
            rows = self._query(
                f"SELECT {_TEXT_COLUMNS} FROM notes JOIN notes_text ON notes_text.rowid = notes.id"
                f" WHERE notes.path IN ({','.join('?' * len(chunk))})",
                tuple(chunk),
            )
            if rows is None:
                return None
            found.extend(text for row in rows if (text := _text(row)) is not None)
        return found

    def _matching(self, columns: str, query: str) -> list[Any] | None:
        if not query.split():
            return []  # the simple search finds nothing
        expression = match_expression(query)
        if expression is None:
            return None
        return self._query(
            f"SELECT {columns} FROM notes_text JOIN notes ON notes.id = notes_text.rowid"
            " WHERE notes_text MATCH ?",
            (expression,),
        )

    def files(self) -> list[str] | None:
        """Every indexed note's path, in the vault's order (``Vault.markdown_files`` less the
        notes that could not be read)."""
        rows = self._query("SELECT path FROM notes ORDER BY sort_key")
        return None if rows is None else [_py_path(row[0]) for row in rows]

    def note(self, path: str) -> IndexedNote | None:
        """What the index holds for the note at ``path``; None when it holds nothing."""
        key = _db_path(path)
        if key is None:
            return None
        rows = self._query(f"SELECT {_NOTE_COLUMNS} FROM notes WHERE path = ?", (key,))
        return _note(rows[0]) if rows else None

    def notes(self) -> list[IndexedNote] | None:
        """Every indexed note, in the vault's order (JsonLogic over frontmatter and tags)."""
        rows = self._query(f"SELECT {_NOTE_COLUMNS} FROM notes ORDER BY sort_key")
        return None if rows is None else [_note(row) for row in rows]

    def frontmatter(self, path: str) -> dict[str, Any] | None:
        """The note's frontmatter as JSON-safe data ({} when it has none or it does not
        parse); None when the index holds no such note."""
        note = self.note(path)
        return None if note is None else note.frontmatter

    def tags_mentioning(self, text: str) -> list[IndexedNote] | None:
        """The notes whose frontmatter or tags (each as JSON) hold ``text``, ASCII case
        aside: a narrowing that skips every other note (vaultgate.protection checks the rest;
        the tags hold the inline ones, the frontmatter every key's)."""
        rows = self._query(
            f"SELECT {_NOTE_COLUMNS} FROM notes WHERE frontmatter LIKE ?1 OR tags LIKE ?1"
            " ORDER BY sort_key",
            (f"%{text}%",),
        )
        return None if rows is None else [_note(row) for row in rows]

    def tag_counts(self) -> list[tuple[str, int]] | None:
        """``engine.search.tag_counts`` from the index: every tag occurrence of each note,
        each also counted for its parents, in the order the plugin's table lists them."""
        rows = self._query("SELECT frontmatter, inline_tags FROM notes ORDER BY sort_key")
        if rows is None:
            return None
        return count_tags(
            counted_tags(json.loads(frontmatter), json.loads(inline))
            for frontmatter, inline in rows
        )

    def ranked_by_words(
        self, query: str, wanted: Callable[[str], bool], limit: int
    ) -> list[tuple[str, float]] | None:
        """The first ``limit`` notes ``wanted`` accepts among those holding any of the
        query's words, best bm25 first: ``(path, bm25)`` (lower is better). ``wanted`` sees
        every candidate before one is kept, so a note it refuses shapes no rank. None when
        the index cannot answer; [] when no word is long enough to look up.

        Each word is looked up in ``notes_words`` as the start of a word (a few posting lists
        each; 'compress' finds 'compression' as the trigram table's substrings did), or, for a
        script written without spaces, as a substring in the trigram table."""
        whole_words = ranks_by_whole_words(query)
        expression = any_word_expression(query, prefixes=whole_words)
        if expression is None:
            return []
        table = "notes_words" if whole_words else "notes_text"
        if not self._ready:
            return None
        found: list[tuple[str, float]] = []
        with self._lock:
            if not self._ready:
                return None
            if whole_words:
                try:
                    return self._ranked_over_wanted(query, wanted, limit)
                except sqlite3.Error as exc:
                    log.warning("vault index keyword ranking failed: %s", exc)
                    return None
            try:
                rows = self._conn.execute(
                    f"SELECT notes.path, bm25({table}) AS rank FROM {table}"
                    f" JOIN notes ON notes.id = {table}.rowid WHERE {table} MATCH ?"
                    " ORDER BY rank",
                    (expression,),
                )
                for stored, rank in rows:
                    path = _py_path(stored)
                    if wanted(path):
                        found.append((path, float(rank)))
                        if len(found) >= limit:
                            break
            except sqlite3.Error as exc:
                log.warning("vault index keyword ranking failed: %s", exc)
                return None
        return found

    def _ranked_over_wanted(
        self, query: str, wanted: Callable[[str], bool], limit: int
    ) -> list[tuple[str, float]]:
        """``ranked_by_words`` in the word table, with bm25's statistics taken over the notes
        ``wanted`` accepts alone (``reachable_bm25.py``): a note it refuses moves no rank and
        no score. One query per phrase (FTS5's score of each, which tells how often it
        occurs); every note's length is read once per change of the index."""
        total, lengths = self._word_lengths()
        paths = self._paths.current(self._conn).by_row()
        sizes = {
            row: size
            for row, size in lengths.items()
            if row < len(paths) and (path := paths[row]) is not None and wanted(path)
        }
        average_all = sum(lengths.values()) / total if total else 0.0
        frequencies: list[dict[int, int]] = []
        for phrase in any_word_phrases(query, prefixes=True):
            scored = self._conn.execute(
                "SELECT rowid, bm25(notes_words) FROM notes_words WHERE notes_words MATCH ?",
                (phrase,),
            ).fetchall()
            phrase_idf = reachable_bm25.idf(total, len(scored))
            frequencies.append(
                {
                    row: reachable_bm25.term_frequency(score, phrase_idf, lengths[row], average_all)
                    for row, score in scored
                    if row in sizes
                }
            )
        return [
            (cast(str, paths[row]), score)
            for row, score in reachable_bm25.ranked(frequencies, sizes)[:limit]
        ]

    def _word_lengths(self) -> tuple[int, dict[int, int]]:
        """The word table's note count and each note's length in words by row id, as FTS5's
        bm25 counts them; read again when the table may have changed."""
        version = (
            self._conn.total_changes,
            self._conn.execute("PRAGMA data_version").fetchone()[0],
        )
        if self._lengths is None or self._lengths[0] != version:
            lengths = {
                row: (reachable_bm25.varints(sz) or [0])[0]
                for row, sz in self._conn.execute("SELECT id, sz FROM notes_words_docsize")
            }
            self._lengths = (version, lengths)
        lengths = self._lengths[1]
        return len(lengths), lengths

    # --- vectors (engine/index/vectors.py) ----------------------------------------------------

    def use_vector_model(self, model: str) -> None:
        """Keep only vectors made by ``model`` (all are deleted when the stored ones are of
        another)."""
        with self._lock, database.transaction(self._conn):
            if vectors.use_model(self._conn, model):
                log.info("vault index: note vectors of another model deleted (now %s)", model)

    def unembedded(self, limit: int) -> list[tuple[int, str, int, int]]:
        """Up to ``limit`` notes without a vector: ``(row id, path, mtime_ns, size)``."""
        with self._lock:
            if self._closed:
                return []
            return [(i, _py_path(p), m, s) for i, p, m, s in vectors.missing(self._conn, limit)]

    def vector_counts(self) -> tuple[int, int]:
        """``(notes without a vector, notes)``."""
        with self._lock:
            return (0, 0) if self._closed else vectors.count_missing(self._conn)

    def store_vectors(
        self,
        rows: Sequence[tuple[int, int, int, bytes]],
        stored: Callable[[list[tuple[str, bytes]]], None],
    ) -> None:
        """Store ``(row id, mtime_ns, size, vector)`` for each note still as it was read,
        then tell ``stored`` which ``(path, vector)`` were, under the same lock as the
        writes that delete them (so a copy in memory never keeps a stale one)."""
        with self._lock:
            if self._closed:
                return
            with database.transaction(self._conn):
                kept = vectors.store(self._conn, rows)
            by_id = {row[0]: row[3] for row in rows}
            stored([(_py_path(path), by_id[note_id]) for note_id, path in kept])

    def load_vectors(self, stored: Callable[[list[tuple[str, bytes]]], None]) -> None:
        """Hand every stored ``(path, vector)`` to ``stored``, under the writes' lock."""
        with self._lock:
            if self._closed:
                return
            stored([(_py_path(path), vector) for path, vector in vectors.every(self._conn)])

    def _query(self, sql: str, parameters: tuple[Any, ...] = ()) -> list[Any] | None:
        """The rows, or None when the index cannot answer (not ready, closed, SQLite failed)."""
        if not self._ready:
            return None
        with self._lock:
            if not self._ready:
                return None
            try:
                return self._conn.execute(sql, parameters).fetchall()
            except sqlite3.Error as exc:
                log.warning("vault index query failed, scanning instead: %s", exc)
                if isinstance(exc, sqlite3.DatabaseError) and database.is_corrupt(exc):
                    self._ready, self._damaged = False, True  # the next sync() replaces it
                return None


class _PathsById:
    """Every note's path by row id (a list: row ids are dense, and a list of pointers is a
    tenth of a dict of ints), as of the ``data_version`` it was read or kept at. Used and
    changed under the index's lock."""

    __slots__ = ("_paths", "_version")

    def __init__(self) -> None:
        self._paths: list[str | None] = []
        self._version: int | None = None  # None: never read

    def current(self, conn: sqlite3.Connection) -> _PathsById:
        """This list, read again if another connection has written since."""
        version = conn.execute("PRAGMA data_version").fetchone()[0]
        if version != self._version:
            rows = conn.execute("SELECT id, path FROM notes").fetchall()
            paths: list[str | None] = [None] * (max((row[0] for row in rows), default=0) + 1)
            for note_id, path in rows:
                paths[note_id] = _py_path(path)
            self._paths, self._version = paths, version
        return self

    def stored(self, rows: Sequence[tuple[int, str]]) -> None:
        """This connection committed these rows ``(row id, path)``."""
        if self._version is None:
            return  # read whole when first needed
        paths = self._paths
        for note_id, path in rows:
            if note_id >= len(paths):
                paths.extend([None] * (note_id + 1 - len(paths)))
            paths[note_id] = path

    def dropped(self, note_ids: Iterable[int]) -> None:
        paths = self._paths
        for note_id in note_ids:
            if note_id < len(paths):
                paths[note_id] = None

    def by_row(self) -> list[str | None]:
        """The list itself: the path of row id ``i`` at ``i`` (None for no note)."""
        return self._paths

    def named(self, rows: Sequence[tuple[int]]) -> list[str] | None:
        """The paths of these row ids; None if one is not in the list."""
        paths = self._paths
        try:
            named = [paths[row[0]] for row in rows]
        except IndexError:
            return None
        return None if None in named else cast(list[str], named)


def _text(row: tuple[Any, ...]) -> IndexedText | None:
    """The row's text; None for a name that is not UTF-8, stored with U+FFFD for its
    surrogates (records.py): a search reads that note itself."""
    path, mtime_ns, size, body = row
    path = _py_path(path)
    return IndexedText(path, (mtime_ns, size), body) if name_is_stored_as_is(path) else None


def _note(row: tuple[Any, ...]) -> IndexedNote:
    path, mtime_ns, size, frontmatter, valid, tags, headings, links, inline_tags = row
    return IndexedNote(
        path=_py_path(path),
        mtime_ns=mtime_ns,
        size=size,
        frontmatter=json.loads(frontmatter),
        frontmatter_valid=bool(valid),
        tags=tuple(json.loads(tags)),
        headings=tuple((level, text) for level, text in json.loads(headings)),
        links=tuple(json.loads(links)),
        inline_tags=tuple(json.loads(inline_tags)),
    )


def _json(value: Any) -> str:
    # ASCII escapes: a lone surrogate in a YAML string cannot be sent to SQLite as UTF-8
    return json.dumps(value, separators=(",", ":"))


def _db_path(path: str) -> str | bytes | None:
    """The path as stored: TEXT, or BLOB for a name that is not UTF-8 (None: impossible)."""
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        try:
            return path.encode("utf-8", "surrogateescape")
        except UnicodeEncodeError:
            return None
    return path


def _py_path(stored: str | bytes) -> str:
    return stored if isinstance(stored, str) else stored.decode("utf-8", "surrogateescape")


def _is_relative(path: str) -> bool:
    return path == "" or not any(part in ("", ".", "..") for part in path.split("/"))


def _chunks(items: Sequence[Any], size: int) -> Iterator[Sequence[Any]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]
