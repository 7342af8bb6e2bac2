"""Memory tools (mem_*): thin adapters from MCP arguments to the memory store and back to text.

Each tool is async and hands its store call to the MemoryGateway, which runs it in a worker
thread, one at a time, so SQLite never blocks the event loop.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from vaultgate.calls import Raw, call
from vaultgate.errors import InvalidMemoryInput
from vaultgate.memory.inputs import normalize_type, optional_project, parse_id_list
from vaultgate.memory.models import CompactRequest, Scope, SearchOptions
from vaultgate.memory.render import (
    DEFAULT_MAX_TOKENS,
    MAX_TOKENS,
    DetailLevel,
    describe_filters,
    observation_detail,
    observations_detail,
    render_compaction,
    render_context,
    render_revision,
    render_save,
    render_search,
    render_stale,
    render_stats,
    render_time_window,
    render_timeline,
)
from vaultgate.tools.base import (
    DESTRUCTIVE,
    READ_ONLY,
    WRITE,
    Blocks,
    ToolContext,
    ToolSpec,
    app_state,
    model_facing_errors,
    text,
    titled,
)
from vaultgate.tools.routes import Route

Project = Annotated[
    str | None,
    Field(description="Project name, e.g. the repository's; case and outer spaces are ignored."),
]
ProjectFilter = Annotated[str | None, Field(description="Only this project; omit for all.")]
ScopeFilter = Annotated[Scope | None, Field(description="Only 'project' or 'personal' memories.")]
SessionId = Annotated[
    str | None,
    Field(description="From a session start; omit to use the project's session of the day."),
]
Detail = Annotated[
    DetailLevel,
    Field(
        description=(
            "summary: ids, types and titles only (cheapest); standard: short snippets; "
            "full: whole contents."
        )
    ),
]
MaxTokens = Annotated[
    int,
    Field(
        ge=500,
        le=MAX_TOKENS,
        description="Most tokens (≈ characters / 4): how many results, never cuts one.",
    ),
]
ObservationId = Annotated[int, Field(ge=1, description="An observation id, e.g. 42.")]
Anchor = Annotated[
    str | None,
    Field(description="ISO datetime to centre on, e.g. 2026-05-01T09:30:00Z; default now."),
]
Revision = Annotated[
    int | None,
    Field(ge=1, description="An earlier revision's number; omit for the current text."),
]


@model_facing_errors
async def mem_session_start(
    ctx: ToolContext,
    project: Annotated[str, Field(description="Project the session works on.")],
    session_id: Annotated[
        str | None, Field(description="Your own id for it; omit to get a new one.")
    ] = None,
    directory: Annotated[str | None, Field(description="Working directory, if any.")] = None,
) -> Blocks:
    """Start a memory session (or continue one with a known session_id).

    Pass the returned session_id to mem_save, mem_save_prompt and mem_session_end, so the
    session's observations form one timeline.
    """
    started = await app_state(ctx).memory.run(
        lambda store: store.start_session(project, session_id, directory)
    )
    session = started.session
    state = "Started" if started.created else "Continuing"
    return [
        text(
            f"{state} session {session.id!r} for project {session.project or '(none)'} "
            f"(started {session.started_at}). Pass it on: "
            f"{call('mem_save', session_id=session.id)}, "
            f"{call('mem_save_prompt', session_id=session.id)}, "
            f"{call('mem_session_end', session_id=session.id)}."
        )
    ]


@model_facing_errors
async def mem_session_end(
    ctx: ToolContext,
    session_id: Annotated[str, Field(description="The id the session's start returned.")],
    summary: Annotated[
        str | None, Field(description="What the session achieved, for later sessions.")
    ] = None,
) -> Blocks:
    """End a session, with an optional summary that mem_context shows to later sessions."""
    session = await app_state(ctx).memory.run(lambda store: store.end_session(session_id, summary))
    kept = " with its summary" if session.summary else ""
    return [text(f"Ended session {session.id!r} at {session.ended_at}{kept}.")]


@model_facing_errors
async def mem_save(
    ctx: ToolContext,
    title: Annotated[str, Field(description="Short, searchable title (at most 500 characters).")],
    content: Annotated[
        str,
        Field(description="What to remember (at most 100,000 characters; never cut silently)."),
    ],
    type: Annotated[
        str, Field(description="decision, bugfix, discovery, pattern, config, manual, ...")
    ] = "manual",
    project: Project = None,
    scope: Annotated[
        Scope, Field(description="project: about this project; personal: about the user.")
    ] = "project",
    session_id: SessionId = None,
    topic_key: Annotated[
        str | None,
        Field(description="Stable key such as 'architecture/auth': one memory per key."),
    ] = None,
) -> Blocks:
    """Remember something for later sessions. Returns the observation id and whether it was
    new, a duplicate (the same text within 15 minutes: its count goes up), or an update: a
    topic_key a memory already has updates it, keeping the replaced text as a revision.

    <private>…</private> spans are stored as [REDACTED]. Content over 100,000 characters is
    refused, not cut: split it.
    """
    result = await app_state(ctx).memory.run(
        lambda store: store.save(
            title,
            content,
            type=type,
            project=project,
            scope=scope,
            session_id=session_id,
            topic_key=topic_key,
        )
    )
    return [text(render_save(result))]


@model_facing_errors
async def mem_update(
    ctx: ToolContext,
    id: ObservationId,
    title: Annotated[str | None, Field(description="New title; omit to keep.")] = None,
    content: Annotated[str | None, Field(description="New content; omit to keep.")] = None,
    type: Annotated[str | None, Field(description="New type; omit to keep.")] = None,
    topic_key: Annotated[
        str | None, Field(description="New topic key; omit or '' to keep.")
    ] = None,
) -> Blocks:
    """Change an observation in place (revision + 1). Only the fields you pass change; the
    replaced text is kept as a revision."""
    updated = await app_state(ctx).memory.run(
        lambda store: store.update(id, title=title, content=content, type=type, topic_key=topic_key)
    )
    kept = updated.revision_count - 1
    shows = call("mem_get_observation", id=updated.id, revision=kept)
    return [
        text(
            f"Updated #{updated.id}; it is now revision {updated.revision_count}. The text it "
            f"replaced is kept as revision {kept}: {shows} shows it."
        )
    ]


@model_facing_errors
async def mem_delete(
    ctx: ToolContext,
    id: ObservationId,
    hard: Annotated[
        bool, Field(description="true: remove the row for good; false: soft delete.")
    ] = False,
) -> Blocks:
    """Delete an observation. A soft delete (the default) hides it from every search and
    listing; hard=true removes it from the database for good."""
    deleted = await app_state(ctx).memory.run(lambda store: store.delete(id, hard=hard))
    how = "Removed for good" if deleted.hard else "Deleted (soft)"
    return [text(f"{how}: #{deleted.id} {deleted.title!r}.")]


@model_facing_errors
async def mem_save_prompt(
    ctx: ToolContext,
    content: Annotated[str, Field(description="The user's request, as they wrote it.")],
    project: Project = None,
    session_id: SessionId = None,
) -> Blocks:
    """Record what the user asked, so later sessions see it in mem_context."""
    prompt = await app_state(ctx).memory.run(
        lambda store: store.save_prompt(content, project=project, session_id=session_id)
    )
    return [text(f"Saved prompt #{prompt.id} in session {prompt.session_id!r}.")]


@model_facing_errors
async def mem_stats(ctx: ToolContext, project: ProjectFilter = None) -> Blocks:
    """Counts of observations, sessions and prompts; types and projects. Use it to check a
    project's exact name when a search finds nothing."""
    memory = app_state(ctx).memory
    stats = await memory.run(lambda store: store.stats(project))
    return [text(render_stats(stats, memory.path))]


@model_facing_errors
async def mem_search(
    ctx: ToolContext,
    query: Annotated[
        str,
        Field(
            description="Words to find (every word; any word if none has all). '' lists the newest."
        ),
    ],
    project: ProjectFilter = None,
    type: Annotated[str | None, Field(description="Only this type, e.g. decision.")] = None,
    scope: ScopeFilter = None,
    limit: Annotated[int, Field(ge=1, le=100, description="Results (1-100).")] = 10,
    detail_level: Detail = "standard",
    max_tokens: MaxTokens = DEFAULT_MAX_TOKENS,
) -> Blocks:
    """Search memory, best matches first: the compact index of progressive disclosure.

    Start with detail_level='summary' (ids and titles) to scan; then mem_timeline on a hit
    for what happened around it, and mem_get_observation(s) for full text. 'Showing X of Y'
    means more matched: raise limit, add words, or open ids. A 'Token budget' line means
    max_tokens cut the list. Fewer matches than limit? The list goes on under 'Also matching
    any word:' and 'Related by meaning:': weaker hits, to check before relying on them.
    """
    options = SearchOptions(project=project, type=type, scope=scope, limit=limit)
    result = await app_state(ctx).memory.run(lambda store: store.search(query, options))
    filters = describe_filters(
        optional_project(project), scope, normalize_type(type) if type is not None else None
    )
    return [
        text(
            render_search(
                result,
                query=query,
                filters=filters,
                detail_level=detail_level,
                max_tokens=max_tokens,
            )
        )
    ]


@model_facing_errors
async def mem_context(
    ctx: ToolContext,
    project: ProjectFilter = None,
    scope: ScopeFilter = None,
    limit: Annotated[int, Field(ge=1, le=100, description="Observations to show (1-100).")] = 20,
    detail_level: Detail = "standard",
    max_tokens: MaxTokens = DEFAULT_MAX_TOKENS,
) -> Blocks:
    """What earlier sessions left: recent sessions, user prompts and the newest observations.

    Call it at the start of work on a project. detail_level='summary' gives titles only; a
    'Showing X of Y' line means older observations exist (raise limit or use mem_search); a
    'Token budget' line means max_tokens cut the list.
    """
    data = await app_state(ctx).memory.run(lambda store: store.context(project, scope, limit))
    filters = describe_filters(optional_project(project), scope, None)
    rendered = render_context(
        data, filters=filters, detail_level=detail_level, max_tokens=max_tokens
    )
    return [text(rendered)]


@model_facing_errors
async def mem_timeline(
    ctx: ToolContext,
    observation_id: Annotated[
        int | None, Field(ge=1, description="Centre on it, in its session; or omit.")
    ] = None,
    anchor: Anchor = None,
    before: Annotated[int, Field(ge=0, le=20, description="Earlier ones (1-20 at a time).")] = 5,
    after: Annotated[int, Field(ge=0, le=20, description="Later ones (0-20).")] = 5,
    project: Annotated[str | None, Field(description="At a time: only this project.")] = None,
    session_id: Annotated[str | None, Field(description="At a time: only this session.")] = None,
    detail_level: Detail = "standard",
    max_tokens: MaxTokens = DEFAULT_MAX_TOKENS,
) -> Blocks:
    """What happened around an observation, or around a time.

    observation_id: its neighbours in its session, as text; 'Showing X of Y observations in
    session.' means more: raise before/after, or centre on the first or last id shown.
    Otherwise around anchor (default now), as the timeline tool answers: JSON entries (oldest
    first, text cut at 200 characters), totalBefore, totalAfter, hasMore.
    """
    if observation_id is None:
        return await _around(
            ctx, anchor, before, after, project, session_id, detail_level, max_tokens
        )
    if anchor is not None or project is not None or session_id is not None:
        raise InvalidMemoryInput(
            "Give observation_id (its session's neighbours) or anchor with project/session_id "
            "(observations around a time), not both: "
            f"{call('mem_timeline', observation_id=observation_id)} or "
            f"{call('mem_timeline', anchor=anchor or Raw('<ISO datetime>'))}."
        )
    centred = await app_state(ctx).memory.run(
        lambda store: store.timeline(observation_id, before, after)
    )
    return [text(render_timeline(centred, detail_level=detail_level, max_tokens=max_tokens))]


@model_facing_errors
async def timeline(
    ctx: ToolContext,
    anchor: Anchor = None,
    before: Annotated[int, Field(ge=1, le=20, description="Before the anchor (1-20).")] = 5,
    after: Annotated[int, Field(ge=0, le=20, description="After the anchor (0-20).")] = 5,
    sessionId: Annotated[str | None, Field(description="Only this session.")] = None,
    projectId: Annotated[str | None, Field(description="Only this project.")] = None,
    detail_level: Detail = "standard",
    max_tokens: MaxTokens = DEFAULT_MAX_TOKENS,
) -> Blocks:
    """Observations in chronological order around a time anchor: what happened before and
    after a moment. JSON {anchor, entries: [{id, createdAt, sessionId, source (the type),
    title, text (cut at 200 characters)}], totalBefore, totalAfter, hasMore, truncated}, with
    a message on how to see more when hasMore.
    """
    return await _around(ctx, anchor, before, after, projectId, sessionId, detail_level, max_tokens)


async def _around(
    ctx: ToolContext,
    anchor: str | None,
    before: int,
    after: int,
    project: str | None,
    session_id: str | None,
    detail_level: DetailLevel,
    max_tokens: int,
) -> Blocks:
    window = await app_state(ctx).memory.run(
        lambda store: store.timeline_around(
            anchor, before, after, project=project, session_id=session_id
        )
    )
    return [text(render_time_window(window, detail_level=detail_level, max_tokens=max_tokens))]


@model_facing_errors
async def mem_get_observation(
    ctx: ToolContext,
    id: ObservationId,
    revision: Revision = None,
    max_tokens: MaxTokens = DEFAULT_MAX_TOKENS,
) -> Blocks:
    """One observation in full: its whole content (never cut), its metadata, and the earlier
    revisions kept; revision=N reads the text it had then."""
    memory = app_state(ctx).memory
    if revision is not None:
        kept = await memory.run(lambda store: store.get_revision(id, revision))
        return [text(render_revision(kept))]
    found = await memory.run(lambda store: store.get(id))
    return [text(observation_detail(found))]


@model_facing_errors
async def mem_get_observations(
    ctx: ToolContext,
    ids: Annotated[
        list[int], Field(min_length=1, max_length=10, description="1 to 10 observation ids.")
    ],
    max_tokens: MaxTokens = DEFAULT_MAX_TOKENS,
) -> Blocks:
    """Several observations in full (up to 10), in the order given, each whole: max_tokens
    decides how many (the first always); the rest and ids not found are named."""
    found, missing = await app_state(ctx).memory.run(lambda store: store.get_many(ids))
    return [text(observations_detail(found, missing, max_tokens))]


@model_facing_errors
async def mem_get(
    ctx: ToolContext,
    id: Annotated[int | None, Field(description="One observation id, e.g. 42.")] = None,
    ids: Annotated[list[int] | None, Field(description="Up to 10 ids, e.g. [42, 43].")] = None,
    revision: Revision = None,
    max_tokens: MaxTokens = DEFAULT_MAX_TOKENS,
) -> Blocks:
    """Observations in full: one (id=42; revision=N for the text it had at revision N), or up
    to 10 (ids=[42, 43]) in the order given, with the ids not found listed; each is whole, and
    max_tokens decides how many (the first always)."""
    if (id is None) == (ids is None):
        raise InvalidMemoryInput(
            "Give id (one observation, e.g. id=42) or ids (up to 10, e.g. ids=[42, 43]), "
            "not both and not neither."
        )
    # Through the single tools' own validation (ids: 1 to 10 of them, each an id).
    if id is not None:
        one: dict[str, object] = {"id": id, "max_tokens": max_tokens}
        if revision is not None:
            one["revision"] = revision
        return await Route(mem_get_observation).call(ctx, "get", one)
    if revision is not None:
        one_call = call("mem_get_observation", id=Raw("<id>"), revision=revision)
        raise InvalidMemoryInput(f"revision reads one observation: {one_call}.")
    return await Route(mem_get_observations).call(
        ctx, "get", {"ids": ids, "max_tokens": max_tokens}
    )


@model_facing_errors
async def mem_compact(
    ctx: ToolContext,
    older_than_days: Annotated[
        int, Field(gt=0, description="Only observations older than this many days.")
    ],
    project: ProjectFilter = None,
    scope: ScopeFilter = None,
    compact_ids: Annotated[
        list[int] | str | None,
        Field(description='Ids to soft-delete, e.g. "[12, 15]"; omit to list candidates first.'),
    ] = None,
    summary_title: Annotated[
        str | None, Field(description="Title of a summary that replaces them.")
    ] = None,
    summary_content: Annotated[
        str | None, Field(description="What the summary keeps (needs summary_title).")
    ] = None,
    session_id: Annotated[
        str | None, Field(description="Session of the summary; default 'manual-save'.")
    ] = None,
) -> Blocks:
    """Shrink old memory in two steps. First call without compact_ids: it lists stale
    observations (oldest first, up to 200) with a ready compact_ids line. Review them, then call
    again with compact_ids and a summary_title/summary_content that keep what still matters:
    the ids are soft-deleted and the summary saved in one transaction (all or nothing). Ids
    that are unknown, already deleted, or outside the project/scope/age filter are refused.
    """
    memory = app_state(ctx).memory
    filters = describe_filters(optional_project(project), scope, None)
    if compact_ids is None:
        if summary_title is not None or summary_content is not None:
            raise InvalidMemoryInput(
                "A summary needs compact_ids: list candidates first (no compact_ids), then "
                "pass the ids to compact together with the summary."
            )
        report = await memory.run(
            lambda store: store.stale_report(project, scope, older_than_days, limit=200)
        )
        return [text(render_stale(report, older_than_days=older_than_days, filters=filters))]
    request = CompactRequest(
        older_than_days=older_than_days,
        ids=tuple(parse_id_list(compact_ids, name="compact_ids")),
        project=project,
        scope=scope,
        summary_title=summary_title,
        summary_content=summary_content,
        session_id=session_id,
    )
    result = await memory.run(lambda store: store.compact(request))
    return [text(render_compaction(result))]


TOOLS: list[ToolSpec] = [
    (mem_session_start, titled(WRITE, "Start a memory session")),
    (mem_session_end, titled(WRITE, "End a memory session")),
    (mem_save, titled(WRITE, "Remember something")),
    (mem_update, titled(DESTRUCTIVE, "Update a memory")),
    (mem_delete, titled(DESTRUCTIVE, "Delete a memory")),
    (mem_save_prompt, titled(WRITE, "Record the user's request")),
    (mem_stats, titled(READ_ONLY, "Memory statistics")),
    (mem_search, titled(READ_ONLY, "Search memories")),
    (mem_context, titled(READ_ONLY, "Recent memory context")),
    (mem_timeline, titled(READ_ONLY, "Memories around an observation or a time")),
    (timeline, titled(READ_ONLY, "Memories around a time")),
    (mem_get_observation, titled(READ_ONLY, "Read a memory")),
    (mem_get_observations, titled(READ_ONLY, "Read several memories")),
    (mem_compact, titled(DESTRUCTIVE, "Compact stale memories")),
]
