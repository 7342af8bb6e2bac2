-- The memory store's schema, as an ordered list of migrations.
--
-- Each "-- migration N: ..." header starts migration N. A fresh database runs them all; a file at
-- PRAGMA user_version = K runs those above K. They run in one BEGIN EXCLUSIVE transaction, so
-- several servers starting at once migrate exactly once (see migrations.py). Rules for new
-- migrations: append, never edit an old one; never DELETE or DROP rows (migrations.py refuses a
-- migration that leaves fewer rows in a table than it found); use bound values only in code.
--
-- Timestamps are UTC text 'YYYY-MM-DD HH:MM:SS', which sorts chronologically.

-- migration 1: sessions, observations, prompts and the indexes of every hot query
CREATE TABLE sessions (
    id          TEXT PRIMARY KEY,
    project     TEXT NOT NULL DEFAULT '',
    directory   TEXT NOT NULL DEFAULT '',
    started_at  TEXT NOT NULL,
    ended_at    TEXT,
    summary     TEXT
);

-- Small columns come before title and content: a filter on project, scope or deleted_at then
-- reads the row's first page and never walks the overflow pages of a long content.
-- AUTOINCREMENT: an id is never reused after a hard delete, so an id a model remembers can never
-- point at another memory, and ids grow with creation time (the search ranks newest matches).
CREATE TABLE observations (
    id               INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id       TEXT NOT NULL REFERENCES sessions (id),
    type             TEXT NOT NULL,
    project          TEXT NOT NULL DEFAULT '',
    scope            TEXT NOT NULL DEFAULT 'project' CHECK (scope IN ('project', 'personal')),
    topic_key        TEXT,
    normalized_hash  TEXT NOT NULL,
    revision_count   INTEGER NOT NULL DEFAULT 1,
    duplicate_count  INTEGER NOT NULL DEFAULT 1,
    created_at       TEXT NOT NULL,
    updated_at       TEXT NOT NULL,
    deleted_at       TEXT,
    title            TEXT NOT NULL,
    content          TEXT NOT NULL
);

CREATE TABLE prompts (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id  TEXT NOT NULL REFERENCES sessions (id),
    project     TEXT NOT NULL DEFAULT '',
    created_at  TEXT NOT NULL,
    content     TEXT NOT NULL
);

-- Live rows only (partial indexes): every read filters on deleted_at IS NULL, and a soft delete
-- takes the row out of each of them, so there are as few as the hot queries allow.
-- mem_context and the empty-query search, newest first in a project (scope read from the index),
-- and count_observations by project and scope as a covering scan. Without a project filter these
-- queries walk the table backwards by id, reading only the small leading columns.
CREATE INDEX observations_live_project
    ON observations (project, id, scope) WHERE deleted_at IS NULL;
-- mem_timeline: neighbours in a session, and the session's total.
CREATE INDEX observations_live_session ON observations (session_id, id) WHERE deleted_at IS NULL;
-- mem_compact: the oldest live rows, filtered on project and scope inside the index.
CREATE INDEX observations_live_created
    ON observations (created_at, id, project, scope) WHERE deleted_at IS NULL;
-- mem_save: the 15-minute duplicate check and the topic_key upsert.
CREATE INDEX observations_dedupe
    ON observations (normalized_hash, project, scope, created_at) WHERE deleted_at IS NULL;
CREATE INDEX observations_topic
    ON observations (topic_key, project, scope, updated_at)
    WHERE deleted_at IS NULL AND topic_key IS NOT NULL;

CREATE INDEX sessions_project_started ON sessions (project, started_at, id);
CREATE INDEX sessions_started ON sessions (started_at, id);
CREATE INDEX prompts_project ON prompts (project, id);
CREATE INDEX prompts_session ON prompts (session_id);

-- migration 2: the full-text index of live observations
-- The index is derived data: it is rebuilt from the view below, which is also its content table.
-- The view lists live rows only, so a rebuild (or FTS5's integrity-check) agrees with an index
-- that soft-deleted rows have left. `facets` holds one token each for project, scope and type
-- ('p' || hex(project), ...): filters become part of the MATCH expression, so a filtered search
-- and its count are answered by the index alone, never by a join row by row. Its bm25 weight is 0.
CREATE VIEW observations_searchable AS
SELECT
    id,
    title,
    content,
    'p' || hex(project) || ' s' || hex(scope) || ' t' || hex(type) AS facets
FROM observations
WHERE deleted_at IS NULL;

CREATE VIRTUAL TABLE observations_fts USING fts5 (
    title,
    content,
    facets,
    content = 'observations_searchable',
    content_rowid = 'id',
    tokenize = 'unicode61 remove_diacritics 2'
);

CREATE TRIGGER observations_fts_insert AFTER INSERT ON observations
WHEN new.deleted_at IS NULL
BEGIN
    INSERT INTO observations_fts (rowid, title, content, facets)
    VALUES (
        new.id, new.title, new.content,
        'p' || hex(new.project) || ' s' || hex(new.scope) || ' t' || hex(new.type)
    );
END;

CREATE TRIGGER observations_fts_delete AFTER DELETE ON observations
WHEN old.deleted_at IS NULL
BEGIN
    INSERT INTO observations_fts (observations_fts, rowid, title, content, facets)
    VALUES (
        'delete', old.id, old.title, old.content,
        'p' || hex(old.project) || ' s' || hex(old.scope) || ' t' || hex(old.type)
    );
END;

-- Only the indexed columns and deleted_at fire it: a duplicate_count bump does not reindex.
-- A soft delete takes the row out of the index; a restore (deleted_at back to NULL) puts it back.
CREATE TRIGGER observations_fts_update
AFTER UPDATE OF title, content, project, scope, type, deleted_at ON observations
BEGIN
    INSERT INTO observations_fts (observations_fts, rowid, title, content, facets)
    SELECT
        'delete', old.id, old.title, old.content,
        'p' || hex(old.project) || ' s' || hex(old.scope) || ' t' || hex(old.type)
    WHERE old.deleted_at IS NULL;
    INSERT INTO observations_fts (rowid, title, content, facets)
    SELECT
        new.id, new.title, new.content,
        'p' || hex(new.project) || ' s' || hex(new.scope) || ' t' || hex(new.type)
    WHERE new.deleted_at IS NULL;
END;

INSERT INTO observations_fts (observations_fts) VALUES ('rebuild');

-- migration 3: compaction leaves its search-index removals for a quiet moment
-- Removing a row from the index means tokenizing its old title and content again and writing a
-- delete marker for every word, then merging index segments: three quarters of a 200-id
-- compaction at 100,000 observations (issue 11; bench/memory_bench.py). So compaction puts its ids
-- in observations_fts_pending, in the same transaction as its soft deletes, and their entries
-- stay in the index until a quiet moment removes them (memory/removals.py). Meanwhile every
-- search and count leaves pending ids out, so no read ever shows them.
--
-- The rule the triggers keep: the index holds a row, with its current values, exactly when the
-- row is live or its id is pending. The content view below lists the same rows, so FTS5's
-- integrity-check and a 'rebuild' agree with the index at every moment, pending ids or not.
-- A pending id whose row changes, is restored or is hard-deleted is handled by the triggers:
-- changed values are reindexed, a restored row leaves the list (it is live and indexed), and a
-- hard delete removes its entry and its id.
CREATE TABLE observations_fts_pending (
    id INTEGER PRIMARY KEY
);

DROP VIEW observations_searchable;

CREATE VIEW observations_searchable AS
SELECT
    id,
    title,
    content,
    'p' || hex(project) || ' s' || hex(scope) || ' t' || hex(type) AS facets
FROM observations
WHERE deleted_at IS NULL OR id IN (SELECT id FROM observations_fts_pending);

DROP TRIGGER observations_fts_delete;

CREATE TRIGGER observations_fts_delete AFTER DELETE ON observations
WHEN old.deleted_at IS NULL OR old.id IN (SELECT id FROM observations_fts_pending)
BEGIN
    INSERT INTO observations_fts (observations_fts, rowid, title, content, facets)
    VALUES (
        'delete', old.id, old.title, old.content,
        'p' || hex(old.project) || ' s' || hex(old.scope) || ' t' || hex(old.type)
    );
    DELETE FROM observations_fts_pending WHERE id = old.id;
END;

-- For an id that is not pending, exactly what migration 2's trigger did. For a pending one (in
-- the index whatever deleted_at says), only changed values are reindexed; a compaction's soft
-- delete changes none, so it costs the index nothing.
DROP TRIGGER observations_fts_update;

CREATE TRIGGER observations_fts_update
AFTER UPDATE OF title, content, project, scope, type, deleted_at ON observations
BEGIN
    INSERT INTO observations_fts (observations_fts, rowid, title, content, facets)
    SELECT
        'delete', old.id, old.title, old.content,
        'p' || hex(old.project) || ' s' || hex(old.scope) || ' t' || hex(old.type)
    WHERE CASE
        WHEN old.id IN (SELECT id FROM observations_fts_pending) THEN NOT (
            new.title IS old.title AND new.content IS old.content
            AND new.project IS old.project AND new.scope IS old.scope AND new.type IS old.type
        )
        ELSE old.deleted_at IS NULL
    END;
    INSERT INTO observations_fts (rowid, title, content, facets)
    SELECT
        new.id, new.title, new.content,
        'p' || hex(new.project) || ' s' || hex(new.scope) || ' t' || hex(new.type)
    WHERE CASE
        WHEN new.id IN (SELECT id FROM observations_fts_pending) THEN NOT (
            new.title IS old.title AND new.content IS old.content
            AND new.project IS old.project AND new.scope IS old.scope AND new.type IS old.type
        )
        ELSE new.deleted_at IS NULL
    END;
    DELETE FROM observations_fts_pending WHERE id = new.id AND new.deleted_at IS NULL;
END;

-- The duplicate check reads at most a few rows per hash and checks deleted_at on each; as a
-- partial index it also had to drop every soft-deleted row, one page per row in hash order
-- (193 of a 200-id compaction's 659 written pages). Deleted rows now stay in it.
DROP INDEX observations_dedupe;

CREATE INDEX observations_dedupe ON observations (normalized_hash, project, scope, created_at);

-- migration 4: one vector per live observation, for search by meaning (memory/vectors.py)
-- Derived data, like the FTS index: float16 little-endian L2-normalised values, with the model
-- that made them, so a vector from another model is never compared and is made again. Written
-- by the store when it saves or updates an observation (when the semantic extra is installed),
-- and for older observations at quiet moments. A change of title or content, a soft delete and
-- a hard delete drop the row's vector here, so a stale or deleted text never ranks.
CREATE TABLE observation_vectors (
    id      INTEGER PRIMARY KEY,
    model   TEXT NOT NULL,
    vector  BLOB NOT NULL
);

CREATE TRIGGER observation_vectors_stale
AFTER UPDATE OF title, content, deleted_at ON observations
WHEN new.title IS NOT old.title OR new.content IS NOT old.content OR new.deleted_at IS NOT NULL
BEGIN
    DELETE FROM observation_vectors WHERE id = new.id;
END;

CREATE TRIGGER observation_vectors_gone AFTER DELETE ON observations
BEGIN
    DELETE FROM observation_vectors WHERE id = old.id;
END;

-- migration 5: the text a revision replaced, kept so nothing saved is ever lost
-- A save under a topic_key in use, and mem_update, change an observation in place; the title,
-- type, topic key and content they replace are kept here as revision N (the observation's
-- revision_count before the change), readable with mem_get_observation(id, revision=N). Only a
-- hard delete of the observation removes its revisions (the store deletes them first).
CREATE TABLE observation_revisions (
    observation_id  INTEGER NOT NULL REFERENCES observations (id),
    revision        INTEGER NOT NULL,
    type            TEXT NOT NULL,
    topic_key       TEXT,
    saved_at        TEXT NOT NULL,
    replaced_at     TEXT NOT NULL,
    title           TEXT NOT NULL,
    content         TEXT NOT NULL,
    PRIMARY KEY (observation_id, revision)
) WITHOUT ROWID;
