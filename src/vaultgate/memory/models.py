"""The memory store's values: frozen dataclasses, free of SQL and of MCP."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

Scope = Literal["project", "personal"]
SCOPES: tuple[Scope, ...] = ("project", "personal")

SaveStatus = Literal["created", "duplicate", "updated"]

# How a search found its rows: every word matched ("all"), AND found nothing so any word did
# ("any"), or there were no words, so the most recent observations stand in ("recent").
SearchMode = Literal["all", "any", "recent"]


@dataclass(frozen=True, slots=True)
class Observation:
    id: int
    session_id: str
    type: str
    project: str
    scope: Scope
    topic_key: str | None
    revision_count: int
    duplicate_count: int
    created_at: str
    updated_at: str
    title: str
    content: str
    # Earlier revisions whose text is kept (observation_revisions), oldest first; filled by the
    # reads that show one observation in full, empty elsewhere.
    kept_revisions: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class Revision:
    """The text an update replaced: revision ``revision`` of observation ``observation_id``,
    written at ``saved_at`` and replaced at ``replaced_at`` (revision ``current`` is live now)."""

    observation_id: int
    revision: int
    current: int
    type: str
    topic_key: str | None
    saved_at: str
    replaced_at: str
    title: str
    content: str


@dataclass(frozen=True, slots=True)
class Session:
    id: str
    project: str
    directory: str
    started_at: str
    ended_at: str | None
    summary: str | None


@dataclass(frozen=True, slots=True)
class SessionActivity:
    """A session and how many live observations it holds."""

    session: Session
    observation_count: int


@dataclass(frozen=True, slots=True)
class Prompt:
    id: int
    session_id: str
    project: str
    created_at: str
    content: str


@dataclass(frozen=True, slots=True)
class SessionStart:
    session: Session
    created: bool  # False: the id existed and the session goes on


@dataclass(frozen=True, slots=True)
class SaveResult:
    observation: Observation
    status: SaveStatus
    session_created: bool
    redactions: int  # <private> spans replaced by [REDACTED] in title and content
    suggested_topic_key: str | None  # when saved without one
    # status "updated": the revision that now keeps the text the save replaced
    replaced_revision: int | None = None


@dataclass(frozen=True, slots=True)
class DeleteResult:
    id: int
    title: str
    hard: bool


@dataclass(frozen=True, slots=True)
class SearchOptions:
    """Filters and page size of a search; ``None`` means any."""

    project: str | None = None
    type: str | None = None
    scope: Scope | None = None
    limit: int = 10


@dataclass(frozen=True, slots=True)
class SearchResult:
    observations: list[Observation]
    total: int  # every match under the same filters and the same mode, before the limit
    mode: SearchMode
    terms: tuple[str, ...]  # the words searched for, as given
    ignored_terms: int  # words beyond the query's word limit, not searched for
    ranked_window: int | None  # when set, only the newest this-many matches were ranked
    other_projects: int | None  # matches outside the project filter when it found none
    # The fallbacks when fewer than the limit matched (listed after ``observations``, never
    # counted in ``total``): observations with some of the words but not all ("all" mode
    # only), how many there are, then observations related by meaning (the semantic extra).
    some_words: list[Observation] = field(default_factory=list)
    some_words_total: int = 0
    by_meaning: list[Observation] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Timeline:
    focus: Observation
    before: list[Observation]  # chronological
    after: list[Observation]  # chronological
    total_in_session: int  # live observations in the focus's whole session
    session: Session | None


@dataclass(frozen=True, slots=True)
class TimeWindow:
    """Live observations around a moment (seed 002's timeline), chronological on each side."""

    anchor: str  # the moment, as the store writes times (UTC 'YYYY-MM-DD HH:MM:SS')
    before: list[Observation]  # created at or before the anchor, oldest first
    after: list[Observation]  # created after it, oldest first
    total_before: int  # every live observation at or before the anchor under the filters
    total_after: int
    project: str | None
    session_id: str | None


@dataclass(frozen=True, slots=True)
class ContextData:
    sessions: list[SessionActivity]
    prompts: list[Prompt]
    observations: list[Observation]
    total_observations: int  # count_observations(project, scope)


@dataclass(frozen=True, slots=True)
class Stats:
    project: str | None
    sessions: int
    observations: int
    deleted_observations: int
    prompts: int
    types: list[tuple[str, int]]  # live observations per type, most first
    projects: list[tuple[str, int]]  # live observations per project, most first
    oldest: str | None
    newest: str | None


@dataclass(frozen=True, slots=True)
class StaleObservation:
    id: int
    type: str
    title: str
    project: str
    scope: Scope
    created_at: str
    snippet: str  # the first 100 characters of the content


@dataclass(frozen=True, slots=True)
class StaleReport:
    observations: list[StaleObservation]  # oldest first
    total: int  # every live observation older than the cut-off under the filters
    cutoff: str


@dataclass(frozen=True, slots=True)
class CompactRequest:
    older_than_days: int
    ids: tuple[int, ...]
    project: str | None = None
    scope: Scope | None = None
    summary_title: str | None = None
    summary_content: str | None = None
    session_id: str | None = None


@dataclass(frozen=True, slots=True)
class CompactResult:
    deleted: list[int]
    summary: Observation | None
    before: int  # count_observations(project, scope) inside the transaction, before
    after: int  # and after, summary included
    project: str | None
    scope: Scope | None
