"""MemoryStore: sessions, observations and prompts in one SQLite file.

Synchronous and MCP-free. One store owns one connection and is not safe to share between
threads by itself: MemoryGateway (gateway.py) gives it to one worker thread at a time.

Every write is one ``BEGIN IMMEDIATE`` transaction, repeated a few times if another process holds
the lock (connection.retrying); every read that takes more than one statement runs in one read
transaction, so a page and its count see the same snapshot. sqlite3 errors become
MemoryStoreError here and nowhere else. WAL checkpoints run between transactions, never inside
one (wal.py): after a commit that leaves the log at its bound, when the gateway finds the store
idle (``when_idle``), and on ``close``. The search-index removals a compaction leaves
(removals.py) run at the same moments, each in its own write transaction.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import TypeVar

from vaultgate.calls import call
from vaultgate.errors import (
    InvalidMemoryInput,
    MemoryBusy,
    MemoryStoreError,
    ObservationNotFound,
    RevisionNotFound,
    SessionNotFound,
    VaultgateError,
)
from vaultgate.memory import compaction, queries, removals, vectors
from vaultgate.memory import search as fts_search
from vaultgate.memory.connection import BUSY_TIMEOUT_MS, MEMORY, connect, is_busy, retrying
from vaultgate.memory.inputs import (
    MAX_CONTENT_CHARS,
    MAX_ID,
    MAX_TITLE_CHARS,
    check_days,
    check_id,
    check_query,
    clean_text,
    content_hash,
    normalize_directory,
    normalize_project,
    normalize_scope,
    normalize_session_id,
    normalize_topic_key,
    normalize_type,
    optional_project,
    parse_anchor,
    suggest_topic_key,
    unique_ids,
)
from vaultgate.memory.meaning import Meaning
from vaultgate.memory.migrations import migrate
from vaultgate.memory.models import (
    CompactRequest,
    CompactResult,
    ContextData,
    DeleteResult,
    Observation,
    Prompt,
    Revision,
    SaveResult,
    SaveStatus,
    Scope,
    SearchOptions,
    SearchResult,
    Session,
    SessionActivity,
    SessionStart,
    StaleObservation,
    StaleReport,
    Stats,
    Timeline,
    TimeWindow,
)
from vaultgate.memory.wal import CHECKPOINT_BYTES, Checkpoint, WalKeeper

T = TypeVar("T")
Clock = Callable[[], datetime]

log = logging.getLogger(__name__)

DEDUPE_WINDOW = timedelta(minutes=15)
MAX_SEARCH_LIMIT = 100
MAX_GET_IDS = 10
CONTEXT_SESSIONS = 5
CONTEXT_PROMPTS = 10
TIMELINE_DEFAULT = 5  # seed 002: before and after default to 5
TIMELINE_MAX = 20  # and go up to 20 (before at least 1, after at least 0)
TIMESTAMP = "%Y-%m-%d %H:%M:%S"


def utc_now() -> datetime:
    return datetime.now(UTC)


class MemoryStore:
    """The memory store over one SQLite file (or ``:memory:``)."""

    def __init__(
        self,
        conn: sqlite3.Connection,
        *,
        path: str,
        clock: Clock = utc_now,
        wal_checkpoint_bytes: int = CHECKPOINT_BYTES,
        meaning: Meaning | None = None,
    ) -> None:
        """``meaning``: the embedder for search by meaning (default: the semantic extra's,
        loaded on first need; none without the extra)."""
        self._conn = conn
        self.path = path
        self._clock = clock
        self._meaning = meaning or Meaning()
        self.vectors_pending = True  # until a quiet moment finds every observation embedded
        self.wal = WalKeeper(conn, checkpoint_bytes=wal_checkpoint_bytes)

    @classmethod
    def open(
        cls,
        path: str,
        *,
        clock: Clock = utc_now,
        busy_timeout_ms: int = BUSY_TIMEOUT_MS,
        wal_checkpoint_bytes: int = CHECKPOINT_BYTES,
        meaning: Meaning | None = None,
    ) -> MemoryStore:
        """Open (creating it if needed) and migrate the database at ``path``.

        ``wal_checkpoint_bytes``: the -wal file size at which a commit is followed by a
        checkpoint (wal.py); tests and benchmarks choose another.
        """
        try:
            conn = connect(path, busy_timeout_ms=busy_timeout_ms)
        except (sqlite3.Error, OSError, ValueError) as exc:  # ValueError: a NUL in the path
            why = exc.strerror if isinstance(exc, OSError) and exc.strerror else ""
            raise MemoryStoreError(
                f"The memory database {path!r} could not be opened ({type(exc).__name__}"
                f"{': ' + why if why else ''}), so the memory tools cannot work; the vault "
                "tools are unaffected. Tell the user to point VAULTGATE_MEMORY_DB at a file in "
                "a folder they can write to (or ':memory:'), then restart the server."
            ) from exc
        try:
            migrate(conn)
        except VaultgateError:
            conn.close()
            raise
        except sqlite3.Error as exc:
            conn.close()
            if is_busy(exc):
                raise MemoryBusy() from exc
            raise MemoryStoreError(
                f"The memory database {path!r} could not be prepared ({exc}); it was left as "
                "it was. Tell the user to check that VAULTGATE_MEMORY_DB is a vaultgate memory "
                "database in a folder they can write to."
            ) from exc
        return cls(
            conn,
            path=path,
            clock=clock,
            wal_checkpoint_bytes=wal_checkpoint_bytes,
            meaning=meaning,
        )

    @classmethod
    def in_memory(cls, *, clock: Clock = utc_now, meaning: Meaning | None = None) -> MemoryStore:
        return cls.open(MEMORY, clock=clock, meaning=meaning)

    def checkpoint(self) -> Checkpoint | None:
        """Copy the WAL into the database file as far as other connections' reads allow
        (PASSIVE), the last step of ``when_idle``: never blocks another process and never
        fails (wal.py). None when there was no log to copy, or the checkpoint failed."""
        return self.wal.when_idle()

    def when_idle(self) -> Checkpoint | None:
        """The work of a quiet moment (MemoryGateway): remove the search-index entries that
        compactions left (removals.py), embed one batch of observations that have no vector
        yet (``vectors_pending`` says whether more wait), then ``checkpoint``. Never raises for
        a busy or failing database: what is not done now waits for the next quiet moment."""
        self._purge_removals()
        try:
            self.vectors_pending = self.fill_vectors() == vectors.FILL_BATCH
        except VaultgateError as exc:
            log.warning("memory vectors left for later: %s", exc)
        return self.checkpoint()

    def fill_vectors(self, batch: int = vectors.FILL_BATCH) -> int:
        """Embed up to ``batch`` live observations that have no vector from the current model
        (saved before the semantic extra was installed, or by another model), newest first,
        in one write transaction; how many were embedded (0 without the extra)."""
        embedder = self._meaning.embedder()
        if embedder is None:
            return 0

        def work(conn: sqlite3.Connection) -> int:
            rows = vectors.missing(conn, embedder.model, batch)
            vectors.save_vectors(conn, embedder, rows)
            return len(rows)

        return self._write(work)

    def pending_removals(self) -> int:
        """How many compacted ids still wait for their search-index entry to be removed (none
        is ever shown by a read meanwhile; removals.py)."""
        return self._read(removals.pending)

    def close(self) -> None:
        """Remove the index entries compactions left, checkpoint (emptying the -wal file if no
        other connection is in the way), close."""
        self._purge_removals()
        self.wal.before_close()
        self._conn.close()

    # --- sessions ---------------------------------------------------------------------------

    def start_session(
        self, project: str, session_id: str | None = None, directory: str | None = None
    ) -> SessionStart:
        """Start a session, or go on with it when ``session_id`` exists (its directory is filled
        in if it had none). Without an id, a new one is made."""
        name = normalize_project(project)
        folder = normalize_directory(directory)
        wanted = normalize_session_id(session_id) if session_id is not None else None

        def work(conn: sqlite3.Connection) -> SessionStart:
            now = self._now()
            new_id = wanted or self._new_session_id(conn, name, now)
            created = queries.ensure_session(conn, new_id, name, now, folder)
            if not created and folder:
                conn.execute(
                    "UPDATE sessions SET directory = ? WHERE id = ? AND directory = ''",
                    (folder, new_id),
                )
            found = queries.get_session(conn, new_id)
            assert found is not None
            return SessionStart(session=found, created=created)

        return self._write(work)

    def end_session(self, session_id: str, summary: str | None = None) -> Session:
        wanted = normalize_session_id(session_id)
        text = None
        if summary is not None:
            text, _ = clean_text("summary", summary, cap=MAX_CONTENT_CHARS, required=False)

        def work(conn: sqlite3.Connection) -> Session:
            cursor = conn.execute(
                "UPDATE sessions SET ended_at = ?, summary = coalesce(?, summary) WHERE id = ?",
                (self._now(), text or None, wanted),
            )
            if cursor.rowcount == 0:
                raise SessionNotFound(wanted)
            found = queries.get_session(conn, wanted)
            assert found is not None
            return found

        return self._write(work)

    # --- observations: writes ---------------------------------------------------------------

    def save(
        self,
        title: str,
        content: str,
        *,
        type: str = "manual",
        project: str | None = None,
        scope: str = "project",
        session_id: str | None = None,
        topic_key: str | None = None,
    ) -> SaveResult:
        """Save an observation: a topic_key upsert, a duplicate bump, or a new row.

        With a topic_key that a live observation in the same project and scope already has,
        that one is updated in place (revision_count + 1, as engram does), and the title, type
        and content it had are kept as its previous revision (``get_revision``), in the same
        transaction: nothing saved is lost. The same title, content and type again is a
        duplicate of it instead. Otherwise, the same title and content (ignoring case and
        spacing) saved in the same project and scope within 15 minutes bumps the earlier one's
        duplicate_count. Otherwise a new row. Without a session_id the observation goes into
        the project's session of the day (UTC).
        """
        clean_title, title_spans = clean_text("title", title, cap=MAX_TITLE_CHARS)
        clean_content, content_spans = clean_text("content", content, cap=MAX_CONTENT_CHARS)
        kind = normalize_type(type)
        kept_scope = normalize_scope(scope)
        topic = normalize_topic_key(topic_key)
        wanted_session = normalize_session_id(session_id) if session_id is not None else None
        given_project = optional_project(project)
        digest = content_hash(clean_title, clean_content)
        embedder = self._meaning.embedder()  # outside the transaction: it may load the model

        def work(conn: sqlite3.Connection) -> SaveResult:
            now_time = self._clock()
            now = _format(now_time)
            name, session, session_created = self._resolve_session(
                conn, given_project, wanted_session, now_time
            )
            status: SaveStatus
            existing = None
            if topic is not None:
                row = conn.execute(
                    f"SELECT {queries.OBSERVATION_COLUMNS} FROM observations WHERE topic_key = ? "
                    "AND project = ? AND scope = ? AND deleted_at IS NULL "
                    "AND topic_key IS NOT NULL ORDER BY updated_at DESC, id DESC LIMIT 1",
                    (topic, name, kept_scope),
                ).fetchone()
                existing = None if row is None else queries.observation(row)
            # Each branch's one statement gives back the saved row (RETURNING, or the inserted
            # values): no second read.
            saved: Observation
            replaced = None
            same = existing is not None and (existing.type, existing.title, existing.content) == (
                kind,
                clean_title,
                clean_content,
            )
            if existing is not None and not same:
                replaced = queries.keep_revision(conn, existing, now)
                saved = _returned(
                    conn.execute(
                        "UPDATE observations SET type = ?, title = ?, content = ?, "
                        "normalized_hash = ?, revision_count = revision_count + 1, "
                        f"updated_at = ? WHERE id = ? RETURNING {queries.OBSERVATION_COLUMNS}",
                        (kind, clean_title, clean_content, digest, now, existing.id),
                    )
                )
                status = "updated"
            else:
                duplicate = (
                    (existing.id,)
                    if existing is not None
                    else conn.execute(
                        "SELECT id FROM observations WHERE normalized_hash = ? AND project = ? "
                        "AND scope = ? AND created_at >= ? AND deleted_at IS NULL "
                        "ORDER BY created_at DESC, id DESC LIMIT 1",
                        (digest, name, kept_scope, _format(now_time - DEDUPE_WINDOW)),
                    ).fetchone()
                )
                if duplicate is not None:
                    saved = _returned(
                        conn.execute(
                            "UPDATE observations SET duplicate_count = duplicate_count + 1, "
                            f"updated_at = ? WHERE id = ? RETURNING {queries.OBSERVATION_COLUMNS}",
                            (now, duplicate[0]),
                        )
                    )
                    status = "duplicate"
                else:
                    saved = queries.insert_observation(
                        conn,
                        session_id=session,
                        type=kind,
                        project=name,
                        scope=kept_scope,
                        topic_key=topic,
                        normalized_hash=digest,
                        now=now,
                        title=clean_title,
                        content=clean_content,
                    )
                    status = "created"
            if embedder is not None and status != "duplicate":
                vectors.save_vectors(conn, embedder, [(saved.id, saved.title, saved.content)])
            return SaveResult(
                observation=saved,
                status=status,
                session_created=session_created,
                redactions=title_spans + content_spans,
                suggested_topic_key=None if topic else suggest_topic_key(kind, clean_title),
                replaced_revision=replaced,
            )

        return self._write(work)

    def update(
        self,
        observation_id: int,
        *,
        title: str | None = None,
        content: str | None = None,
        type: str | None = None,
        topic_key: str | None = None,
    ) -> Observation:
        """Change some fields of a live observation in place; revision_count + 1. What it
        had before is kept as its previous revision (``get_revision``), in the same transaction.

        ``topic_key=""`` removes the topic key; ``None`` leaves any field as it is.
        """
        if title is None and content is None and type is None and topic_key is None:
            raise InvalidMemoryInput(
                "Nothing to update: pass at least one of title, content, type or topic_key."
            )
        new_title = (
            clean_text("title", title, cap=MAX_TITLE_CHARS)[0] if title is not None else None
        )
        new_content = (
            clean_text("content", content, cap=MAX_CONTENT_CHARS)[0]
            if content is not None
            else None
        )
        new_type = normalize_type(type) if type is not None else None
        new_topic = normalize_topic_key(topic_key) if topic_key is not None else None
        embedder = self._meaning.embedder()

        def work(conn: sqlite3.Connection) -> Observation:
            current = self._live(conn, observation_id)
            final_title = new_title if new_title is not None else current.title
            final_content = new_content if new_content is not None else current.content
            now = self._now()
            queries.keep_revision(conn, current, now)
            conn.execute(
                "UPDATE observations SET title = ?, content = ?, type = ?, topic_key = ?, "
                "normalized_hash = ?, revision_count = revision_count + 1, updated_at = ? "
                "WHERE id = ?",
                (
                    final_title,
                    final_content,
                    new_type or current.type,
                    new_topic if topic_key is not None else current.topic_key,
                    content_hash(final_title, final_content),
                    now,
                    observation_id,
                ),
            )
            updated = self._live(conn, observation_id)
            if embedder is not None:  # the trigger dropped the vector of a changed text
                vectors.save_vectors(conn, embedder, [(updated.id, updated.title, updated.content)])
            return updated

        return self._write(work)

    def delete(self, observation_id: int, *, hard: bool = False) -> DeleteResult:
        """Soft delete (out of every read and of the search index), or remove the row for good.

        A hard delete also purges an observation that was soft-deleted before.
        """

        def work(conn: sqlite3.Connection) -> DeleteResult:
            check_id(observation_id)
            row = conn.execute(
                "SELECT title, deleted_at FROM observations WHERE id = ?", (observation_id,)
            ).fetchone()
            if row is None or (row[1] is not None and not hard):
                raise ObservationNotFound(observation_id, deleted=row is not None)
            if hard:  # its kept revisions go with it: "for good" means every text of it
                conn.execute(
                    "DELETE FROM observation_revisions WHERE observation_id = ?", (observation_id,)
                )
                conn.execute("DELETE FROM observations WHERE id = ?", (observation_id,))
            else:
                now = self._now()
                conn.execute(
                    "UPDATE observations SET deleted_at = ?, updated_at = ? WHERE id = ?",
                    (now, now, observation_id),
                )
            return DeleteResult(id=observation_id, title=str(row[0]), hard=hard)

        return self._write(work)

    def save_prompt(
        self, content: str, *, project: str | None = None, session_id: str | None = None
    ) -> Prompt:
        text, _ = clean_text("prompt", content, cap=MAX_CONTENT_CHARS)
        wanted_session = normalize_session_id(session_id) if session_id is not None else None
        given_project = optional_project(project)

        def work(conn: sqlite3.Connection) -> Prompt:
            now_time = self._clock()
            name, session, _ = self._resolve_session(conn, given_project, wanted_session, now_time)
            now = _format(now_time)
            cursor = conn.execute(
                "INSERT INTO prompts (session_id, project, created_at, content) "
                "VALUES (?, ?, ?, ?)",
                (session, name, now, text),
            )
            assert cursor.lastrowid is not None
            return Prompt(
                id=cursor.lastrowid, session_id=session, project=name, created_at=now, content=text
            )

        return self._write(work)

    # --- observations: reads ----------------------------------------------------------------

    def get(self, observation_id: int) -> Observation:
        """A live observation, with the numbers of its kept earlier revisions."""

        def work(conn: sqlite3.Connection) -> Observation:
            found = self._live(conn, observation_id)
            kept = queries.kept_revisions(conn, [found.id]).get(found.id, ())
            return replace(found, kept_revisions=kept)

        return self._read(work)

    def get_many(self, ids: Sequence[int]) -> tuple[list[Observation], list[int]]:
        """Up to 10 live observations in the order asked (each with the numbers of its kept
        revisions), and the ids not found (or deleted)."""
        wanted = unique_ids(ids, maximum=MAX_GET_IDS, name="ids")

        def work(conn: sqlite3.Connection) -> dict[int, Observation]:
            found = queries.observations_by_id(conn, wanted)
            kept = queries.kept_revisions(conn, list(found))
            return {i: replace(obs, kept_revisions=kept.get(i, ())) for i, obs in found.items()}

        found = self._read(work)
        return [found[i] for i in wanted if i in found], [i for i in wanted if i not in found]

    def get_revision(self, observation_id: int, revision: int) -> Revision:
        """Revision ``revision`` of a live observation: a kept earlier text, or the current one
        (its revision_count). RevisionNotFound names the revisions there are."""

        def work(conn: sqlite3.Connection) -> Revision:
            current = self._live(conn, observation_id)
            if revision == current.revision_count:
                return Revision(
                    observation_id=current.id,
                    revision=revision,
                    current=current.revision_count,
                    type=current.type,
                    topic_key=current.topic_key,
                    saved_at=current.updated_at,
                    replaced_at="",
                    title=current.title,
                    content=current.content,
                )
            row = queries.revision(conn, current.id, revision) if revision >= 1 else None
            if row is None:
                kept = queries.kept_revisions(conn, [current.id]).get(current.id, ())
                raise RevisionNotFound(current.id, revision, kept, current.revision_count)
            return Revision(
                observation_id=int(row[0]),
                revision=int(row[1]),
                current=current.revision_count,
                type=str(row[2]),
                topic_key=row[3],
                saved_at=str(row[4]),
                replaced_at=str(row[5]),
                title=str(row[6]),
                content=str(row[7]),
            )

        if not 1 <= revision <= MAX_ID:
            raise InvalidMemoryInput(f"revision must be 1 or more (at most {MAX_ID}).")
        return self._read(work)

    def count_observations(
        self, project: str | None = None, scope: str | None = None, type: str | None = None
    ) -> int:
        """Live observations under the filters (seed 000 FR-001); ``None`` means any."""
        filters = _filters(project, scope, type)
        return self._read(lambda conn: queries.count_observations(conn, *filters))

    def count_search_results(self, query: str, options: SearchOptions | None = None) -> int:
        """The total ``search`` reports for the same arguments (seed 000 FR-002)."""
        check_query(query)
        opts = _search_options(options or SearchOptions())
        return self._read(lambda conn: fts_search.count_search_results(conn, query, opts))

    def search(self, query: str, options: SearchOptions | None = None) -> SearchResult:
        """Ranked full-text search (bm25); every word is data. Every word must match; when no
        observation has them all, any word may (``mode="any"``). A query without words lists
        the most recent observations (``mode="recent"``).

        When fewer than the limit match, the rest of the page falls back: first to
        observations with some of the words (``some_words``), then, with the semantic extra,
        to observations related by meaning (``by_meaning``); neither is counted in ``total``.
        """
        check_query(query)
        opts = _search_options(options or SearchOptions())
        embedder = self._meaning.embedder()  # outside the transaction: it may load the model

        def work(conn: sqlite3.Connection) -> SearchResult:
            result = fts_search.search(conn, query, opts)
            room = opts.limit - len(result.observations)
            if result.mode == "recent" or room <= 0:
                return result
            some: list[Observation] = []
            some_total = 0
            if result.mode == "all":
                some, some_total = fts_search.some_words(conn, query, opts, room)
            related: list[Observation] = []
            if embedder is not None and room > len(some):
                shown = {obs.id for obs in (*result.observations, *some)}
                ids = vectors.nearest(conn, embedder, query, opts, shown, room - len(some))
                found = queries.observations_by_id(conn, ids)
                related = [found[i] for i in ids if i in found]
            return replace(result, some_words=some, some_words_total=some_total, by_meaning=related)

        return self._read(work)

    def context(
        self, project: str | None = None, scope: str | None = None, limit: int = 20
    ) -> ContextData:
        """Recent sessions (5), prompts (10) and ``limit`` observations, newest first."""
        name, scope_filter, _ = _filters(project, scope, None)
        if not 1 <= limit <= MAX_SEARCH_LIMIT:
            raise InvalidMemoryInput(f"limit must be between 1 and {MAX_SEARCH_LIMIT}.")

        def work(conn: sqlite3.Connection) -> ContextData:
            session_where = "WHERE project = ?" if name is not None else ""
            session_values = [name] if name is not None else []
            sessions = [
                SessionActivity(session=queries.session(row[:6]), observation_count=int(row[6]))
                for row in conn.execute(
                    f"SELECT {queries.SESSION_COLUMNS}, (SELECT count(*) FROM observations o "
                    "WHERE o.session_id = sessions.id AND o.deleted_at IS NULL) "
                    f"FROM sessions {session_where} ORDER BY started_at DESC, id DESC LIMIT ?",
                    [*session_values, CONTEXT_SESSIONS],
                )
            ]
            prompts = [
                queries.prompt(row)
                for row in conn.execute(
                    f"SELECT {queries.PROMPT_COLUMNS} FROM prompts {session_where} "
                    "ORDER BY id DESC LIMIT ?",
                    [*session_values, CONTEXT_PROMPTS],
                )
            ]
            return ContextData(
                sessions=sessions,
                prompts=prompts,
                observations=queries.recent_observations(conn, limit, name, scope_filter),
                total_observations=queries.count_observations(conn, name, scope_filter),
            )

        return self._read(work)

    def timeline(self, observation_id: int, before: int = 5, after: int = 5) -> Timeline:
        """The observation, and up to ``before``/``after`` live neighbours in its session, in
        the order they were saved; ``total_in_session`` counts the whole session."""
        if not (0 <= before <= MAX_ID and 0 <= after <= MAX_ID):
            raise InvalidMemoryInput("before and after must be 0 or more (at most 20 is useful).")

        def work(conn: sqlite3.Connection) -> Timeline:
            focus = self._live(conn, observation_id)
            columns = queries.OBSERVATION_COLUMNS
            earlier = conn.execute(
                f"SELECT {columns} FROM observations WHERE session_id = ? "
                "AND deleted_at IS NULL AND id < ? ORDER BY id DESC LIMIT ?",
                (focus.session_id, focus.id, before),
            ).fetchall()
            later = conn.execute(
                f"SELECT {columns} FROM observations WHERE session_id = ? "
                "AND deleted_at IS NULL AND id > ? ORDER BY id LIMIT ?",
                (focus.session_id, focus.id, after),
            ).fetchall()
            total = conn.execute(
                "SELECT count(*) FROM observations WHERE session_id = ? AND deleted_at IS NULL",
                (focus.session_id,),
            ).fetchone()[0]
            return Timeline(
                focus=focus,
                before=[queries.observation(row) for row in reversed(earlier)],
                after=[queries.observation(row) for row in later],
                total_in_session=int(total),
                session=queries.get_session(conn, focus.session_id),
            )

        return self._read(work)

    def timeline_around(
        self,
        anchor: str | None = None,
        before: int = TIMELINE_DEFAULT,
        after: int = TIMELINE_DEFAULT,
        *,
        project: str | None = None,
        session_id: str | None = None,
    ) -> TimeWindow:
        """Live observations around a moment (seed 002): up to ``before`` created at or before
        ``anchor`` (an ISO datetime, default now) and up to ``after`` created later, each side
        chronological, under the project and session filters, with the totals on each side."""
        if not 1 <= before <= TIMELINE_MAX:
            raise InvalidMemoryInput(f"before must be 1 to {TIMELINE_MAX}; got {before}.")
        if not 0 <= after <= TIMELINE_MAX:
            raise InvalidMemoryInput(f"after must be 0 to {TIMELINE_MAX}; got {after}.")
        moment = _stamp(parse_anchor(anchor, self._clock()))
        name = optional_project(project)
        session = normalize_session_id(session_id) if session_id is not None else None

        def work(conn: sqlite3.Connection) -> TimeWindow:
            where, values = queries.live_filter(name)
            if session is not None:
                where += " AND session_id = ?"
                values.append(session)
            columns = queries.OBSERVATION_COLUMNS

            def rows(side: str, order: str, limit: int) -> list[Observation]:
                found = conn.execute(
                    f"SELECT {columns} FROM observations WHERE {where} AND {side} "
                    f"ORDER BY {order} LIMIT ?",
                    [*values, moment, limit],
                ).fetchall()
                return [queries.observation(row) for row in found]

            def count(side: str) -> int:
                sql = f"SELECT count(*) FROM observations WHERE {where} AND {side}"
                return int(conn.execute(sql, [*values, moment]).fetchone()[0])

            earlier = rows("created_at <= ?", "created_at DESC, id DESC", before)
            return TimeWindow(
                anchor=moment,
                before=earlier[::-1],
                after=rows("created_at > ?", "created_at, id", after) if after else [],
                total_before=count("created_at <= ?"),
                total_after=count("created_at > ?"),
                project=name,
                session_id=session,
            )

        return self._read(work)

    def stats(self, project: str | None = None) -> Stats:
        name = optional_project(project)

        def work(conn: sqlite3.Connection) -> Stats:
            where, values = ("WHERE project = ?", [name]) if name is not None else ("", [])
            also = "AND project = ?" if name is not None else ""

            def one(sql: str) -> int:
                return int(conn.execute(sql, values).fetchone()[0])

            def pairs(sql: str) -> list[tuple[str, int]]:
                return [(str(k), int(n)) for k, n in conn.execute(sql, values)]

            span = conn.execute(
                f"SELECT min(created_at), max(created_at) FROM observations "
                f"WHERE deleted_at IS NULL {also}",
                values,
            ).fetchone()
            return Stats(
                project=name,
                sessions=one(f"SELECT count(*) FROM sessions {where}"),
                observations=one(
                    f"SELECT count(*) FROM observations WHERE deleted_at IS NULL {also}"
                ),
                deleted_observations=one(
                    f"SELECT count(*) FROM observations WHERE deleted_at IS NOT NULL {also}"
                ),
                prompts=one(f"SELECT count(*) FROM prompts {where}"),
                types=pairs(
                    f"SELECT type, count(*) FROM observations WHERE deleted_at IS NULL {also} "
                    "GROUP BY type ORDER BY count(*) DESC, type"
                ),
                projects=pairs(
                    f"SELECT project, count(*) FROM observations WHERE deleted_at IS NULL {also} "
                    "GROUP BY project ORDER BY count(*) DESC, project"
                ),
                oldest=span[0],
                newest=span[1],
            )

        return self._read(work)

    # --- compaction -------------------------------------------------------------------------

    def find_stale_observations(
        self,
        project: str | None = None,
        scope: str | None = None,
        older_than_days: int = 30,
        limit: int = compaction.STALE_LIMIT_DEFAULT,
    ) -> list[StaleObservation]:
        """Live observations older than ``older_than_days``, oldest first (seed 003 FR-001);
        ``limit`` defaults to 50 and may be at most 200."""
        return self.stale_report(project, scope, older_than_days, limit).observations

    def stale_report(
        self,
        project: str | None = None,
        scope: str | None = None,
        older_than_days: int = 30,
        limit: int = compaction.STALE_LIMIT_DEFAULT,
    ) -> StaleReport:
        """find_stale_observations, with the count of every stale observation."""
        name, scope_filter, _ = _filters(project, scope, None)
        _check_days(older_than_days)
        if not 1 <= limit <= compaction.STALE_LIMIT_MAX:
            raise InvalidMemoryInput(
                f"limit must be between 1 and {compaction.STALE_LIMIT_MAX}; got {limit}."
            )
        cutoff = self._cutoff(older_than_days)

        def work(conn: sqlite3.Connection) -> StaleReport:
            return StaleReport(
                observations=compaction.find_stale(
                    conn, project=name, scope=scope_filter, cutoff=cutoff, limit=limit
                ),
                total=compaction.count_stale(conn, project=name, scope=scope_filter, cutoff=cutoff),
                cutoff=cutoff,
            )

        return self._read(work)

    def compact(self, request: CompactRequest) -> CompactResult:
        """Soft-delete ``request.ids`` and write the optional summary, in one transaction.

        Refused as a whole (CompactionRefused, nothing deleted) when an id is unknown, already
        deleted, or outside the project / scope / age filter.
        """
        name, scope_filter, _ = _filters(request.project, request.scope, None)
        _check_days(request.older_than_days)
        ids = unique_ids(request.ids, maximum=compaction.MAX_COMPACT_IDS, name="compact_ids")
        if request.summary_content is not None and request.summary_title is None:
            raise InvalidMemoryInput(
                "summary_content needs a summary_title: pass both, or neither to compact "
                "without a summary."
            )
        summary = None
        if request.summary_title is not None:
            title, _ = clean_text("summary_title", request.summary_title, cap=MAX_TITLE_CHARS)
            body, _ = clean_text(
                "summary_content",
                request.summary_content or "",
                cap=MAX_CONTENT_CHARS,
                required=False,
            )
            session = request.session_id
            summary = compaction.Summary(
                title=title,
                content=body,
                normalized_hash=content_hash(title, body),
                session_id=normalize_session_id(session)
                if session is not None
                else compaction.DEFAULT_SUMMARY_SESSION,
            )
        cutoff = self._cutoff(request.older_than_days)

        def work(conn: sqlite3.Connection) -> tuple[CompactResult, int]:
            result = compaction.compact(
                conn,
                ids=ids,
                project=name,
                scope=scope_filter,
                cutoff=cutoff,
                older_than_days=request.older_than_days,
                summary=summary,
                now=self._now(),
            )
            return result, removals.pending(conn)

        result, pending = self._write(work)
        if pending >= removals.PENDING_BOUND:  # no quiet moment came: keep the list short
            self._purge_removals()
        return result

    # --- plumbing ---------------------------------------------------------------------------

    def _purge_removals(self) -> None:
        """Remove every pending index entry, PURGE_BATCH ids per write transaction (removals.py).
        Between transactions only; a failure is logged and the rest waits for the next call."""
        try:
            batch = removals.PURGE_BATCH
            while self._write(lambda conn: removals.purge(conn, batch)) == batch:
                pass
        except VaultgateError as exc:
            log.warning("memory search-index removals left for later: %s", exc)

    def _now(self) -> str:
        return _format(self._clock())

    def _cutoff(self, older_than_days: int) -> str:
        return _format(self._clock() - timedelta(days=older_than_days))

    def _live(self, conn: sqlite3.Connection, observation_id: int) -> Observation:
        check_id(observation_id)
        found = queries.live_observation(conn, observation_id)
        if found is None:
            state = queries.observation_state(conn, observation_id)
            raise ObservationNotFound(observation_id, deleted=state == "deleted")
        return found

    def _resolve_session(
        self,
        conn: sqlite3.Connection,
        project: str | None,
        session_id: str | None,
        now: datetime,
    ) -> tuple[str, str, bool]:
        """(project, session id, created): an explicit session is created if new; without one,
        the project's session of the day. A save without a project takes its session's."""
        if session_id is not None:
            existing = queries.get_session(conn, session_id)
            if existing is not None:
                return (project if project is not None else existing.project), session_id, False
            name = project or ""
            return name, session_id, queries.ensure_session(conn, session_id, name, _format(now))
        name = project or ""
        day = now.strftime("%Y-%m-%d")
        daily = f"auto/{name}/{day}" if name else f"auto/{day}"
        return name, daily, queries.ensure_session(conn, daily, name, _format(now))

    def _new_session_id(self, conn: sqlite3.Connection, project: str, now: str) -> str:
        stamp = now.replace(" ", "T").replace(":", "")
        base = f"{project or 'session'}/{stamp}"
        candidate, n = base, 1
        while queries.get_session(conn, candidate) is not None:
            n += 1
            candidate = f"{base}-{n}"
        return candidate

    def _write(self, work: Callable[[sqlite3.Connection], T]) -> T:
        conn = self._conn

        def attempt() -> T:
            conn.execute("BEGIN IMMEDIATE")
            try:
                result = work(conn)
                conn.execute("COMMIT")
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise
            return result

        result = self._translate(lambda: retrying(attempt), "save the change")
        self.wal.after_commit()  # outside the transaction: the change is already committed
        return result

    def _read(self, work: Callable[[sqlite3.Connection], T]) -> T:
        conn = self._conn

        def attempt() -> T:
            conn.execute("BEGIN")  # one snapshot for every statement of this answer
            try:
                return work(conn)
            finally:
                if conn.in_transaction:
                    conn.execute("COMMIT")

        return self._translate(lambda: retrying(attempt), "read")

    def _translate(self, run: Callable[[], T], doing: str) -> T:
        try:
            return run()
        except OverflowError as exc:  # a number SQLite cannot hold, bound as a parameter
            raise InvalidMemoryInput(
                f"A number in this request is too large for the memory store (at most "
                f"{MAX_ID}); nothing was changed. Use the ids and counts "
                f"{call('mem_search', query='')} shows."
            ) from exc
        except sqlite3.Error as exc:
            if is_busy(exc):
                raise MemoryBusy() from exc
            log.error("memory store could not %s: %s", doing, exc)
            raise MemoryStoreError(
                f"The memory store could not {doing} ({type(exc).__name__}); nothing was "
                "changed. The details are in the server's log."
            ) from exc


def _returned(cursor: sqlite3.Cursor) -> Observation:
    """The row an UPDATE ... RETURNING gave back (the caller's WHERE names one live row)."""
    row = cursor.fetchone()
    assert row is not None
    return queries.observation(row)


def _format(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime(TIMESTAMP)


def _stamp(moment: datetime) -> str:
    """An aware moment as the store writes times, the year always four digits (strftime's %Y
    is not, before 1000), so that it compares with stored times as text."""
    m = moment.astimezone(UTC)
    return f"{m.year:04d}-{m.month:02d}-{m.day:02d} {m.hour:02d}:{m.minute:02d}:{m.second:02d}"


def _filters(
    project: str | None, scope: str | None, type: str | None
) -> tuple[str | None, Scope | None, str | None]:
    return (
        optional_project(project),
        normalize_scope(scope) if scope is not None else None,
        normalize_type(type) if type is not None else None,
    )


def _search_options(options: SearchOptions) -> SearchOptions:
    project, scope, kind = _filters(options.project, options.scope, options.type)
    if not 1 <= options.limit <= MAX_SEARCH_LIMIT:
        raise InvalidMemoryInput(f"limit must be between 1 and {MAX_SEARCH_LIMIT}.")
    return SearchOptions(project=project, scope=scope, type=kind, limit=options.limit)


def _check_days(older_than_days: int) -> None:
    check_days(older_than_days)
