"""What the model reads: detail levels (seed 001), navigation hints (seed 000) and token budgets
(seed 002), as plain text lines.

Pure functions of the store's values. Truncation here is display only (stored text is whole),
is cut on characters, and is always marked: ``...`` after a snippet, or a line that names the
tool call that shows the rest. Each footer (navigation hint, budget, detail) is one line and
appears only when it has something to say.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Literal

from vaultgate.calls import Raw, call, offers
from vaultgate.memory.models import (
    CompactResult,
    ContextData,
    Observation,
    Revision,
    SaveResult,
    SearchResult,
    Session,
    StaleReport,
    Stats,
    Timeline,
    TimeWindow,
)
from vaultgate.paging import (
    DEFAULT_RESPONSE_BUDGET,
    compact_json,
    estimate_tokens,
    fit_count,
    navigation_hint,
)

DetailLevel = Literal["summary", "standard", "full"]

SUMMARY_FOOTER = "Use detail_level: standard or full for more detail"
# mem_search's fallbacks when fewer observations than the limit match (MemoryStore.search)
SOME_WORDS_LABEL = "Also matching any word:"
BY_MEANING_LABEL = "Related by meaning:"
TIMELINE_HINT = "observations in session."


def open_observation(id_text: object) -> str:
    """How to read an observation in full: the seeds' words, ``mem_get_observation #12``,
    where that tool is offered, else the call that does it (vaultgate.calls)."""
    if offers("mem_get_observation"):
        return f"mem_get_observation #{id_text}"
    return call("mem_get_observation", id=Raw(str(id_text)))


def _here() -> str:
    """Where mem_get_observation is not offered (the dispatcher profiles), the call that does
    it, after the seeds' own sentence and on its line: the sentence stays word for word."""
    if offers("mem_get_observation"):
        return ""
    return f" Here: {call('mem_get_observation', id=Raw('ID'))}."


def search_hint() -> str:
    """Seed 000 FR-003's footer, word for word (after "Showing X of Y ")."""
    return f"results. Use limit or mem_get_observation #ID for more.{_here()}"


def context_hint() -> str:
    """Seed 000 FR-004's footer, word for word (after "Showing X of Y ")."""
    return f"observations. Increase limit or use mem_get_observation #ID for details.{_here()}"


def stale_hint() -> str:
    again = call("mem_compact", older_than_days=Raw("<days>"))
    return f"stale observations. Compact these first, then call {again} again for the rest."


def _timeline_on(observation_id: int) -> str:
    return f"call {call('mem_timeline', observation_id=observation_id)}"


CHARS_PER_TOKEN = 4  # paging.estimate_tokens: ceil(characters / 4)
# Seed 002's TOKEN_BUDGET: every memory answer's default max_tokens (8,000 characters).
TOKEN_BUDGET = 2_000
DEFAULT_MAX_TOKENS = TOKEN_BUDGET
MAX_TOKENS = 100_000  # the most max_tokens may ask for: any observation fits in it whole

# Display lengths at detail_level=standard (seed 001), in characters.
SEARCH_SNIPPET = 300
CONTEXT_SESSION_SUMMARY = 200
CONTEXT_PROMPT = 200
CONTEXT_OBSERVATION = 300
TIMELINE_NEIGHBOUR = 200
TIME_WINDOW_TEXT = 200  # seed 002: each timeline entry's text, cut at 200 characters
TIMELINE_SESSION_SUMMARY = 100
MEMORY_SNIPPET_FOR_SDD = 200  # sdd_context_check, standard (seed 001 FR-016)
STALE_TITLE = 50
QUERY_ECHO = 80
STATS_NAMED = 20  # types and projects mem_stats names at most
TIMESTAMP = "%Y-%m-%d %H:%M:%S"  # as the store writes it


def plural(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def truncate(text: str, limit: int) -> str:
    """``text`` on one line, cut to ``limit`` characters with ``...`` when it was longer."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[:limit].rstrip() + "..."


# --- observations ---------------------------------------------------------------------------


def observation_heading(obs: Observation) -> str:
    return f"#{obs.id} [{obs.type}] {obs.title}"


def observation_meta(obs: Observation) -> str:
    project = obs.project or "(none)"
    return f"{obs.created_at} | project: {project} | scope: {obs.scope}"


def observation_entry(obs: Observation, level: DetailLevel, snippet: int) -> str:
    """One observation in a list: heading; standard adds a snippet and the metadata line; full
    adds the metadata line and the whole content."""
    heading = observation_heading(obs)
    if level == "summary":
        return heading
    if level == "standard":
        return f"{heading}\n    {truncate(obs.content, snippet)}\n    {observation_meta(obs)}"
    return f"{heading}\n    {observation_meta(obs)}\n{obs.content}\n"


def observation_detail(obs: Observation) -> str:
    """mem_get_observation: everything, the content whole (seed 001: full detail is never
    cut), then the metadata and, when earlier texts are kept, how to read them."""
    parts = [f"{observation_heading(obs)}\n{obs.content}\n---\n{_detail_meta(obs)}"]
    if obs.kept_revisions:
        parts.append(revisions_line(obs.id, obs.kept_revisions))
    return "\n".join(parts)


def revisions_line(observation_id: int, kept: Sequence[int]) -> str:
    numbers = ", ".join(str(n) for n in kept)
    shows = call("mem_get_observation", id=observation_id, revision=kept[-1])
    return f"Earlier revisions kept: {numbers}. Read one: {shows}."


def _detail_meta(obs: Observation) -> str:
    return (
        f"session: {obs.session_id} | project: {obs.project or '(none)'} | scope: {obs.scope} | "
        f"topic: {obs.topic_key or '(none)'} | revisions: {obs.revision_count} | "
        f"duplicates: {obs.duplicate_count} | created: {obs.created_at} | "
        f"updated: {obs.updated_at}"
    )


def render_revision(revision: Revision) -> str:
    """mem_get_observation with revision: that revision's text, whole, and what replaced it."""
    heading = f"#{revision.observation_id} [{revision.type}] {revision.title}"
    if revision.revision == revision.current:
        state = f"revision {revision.revision}, the current one (saved {revision.saved_at})"
    else:
        state = (
            f"revision {revision.revision} of {revision.current}, saved {revision.saved_at}, "
            f"replaced {revision.replaced_at}; "
            f"{call('mem_get_observation', id=revision.observation_id)} shows the current text"
        )
    topic = revision.topic_key or "(none)"
    return f"{heading}\n{revision.content}\n---\n{state} | topic: {topic}"


def observations_detail(
    found: Sequence[Observation], missing: Sequence[int], max_tokens: int | None = None
) -> str:
    """Several observations in full, in order: as many whole ones as fit in ``max_tokens``,
    the first always (a text is never cut); the ones left out are named with the call that
    shows them."""
    missing_line = ""
    if missing:
        missing_line = "Not found (unknown or deleted): " + ", ".join(f"#{i}" for i in missing)
    wholes = [observation_detail(obs) for obs in found]
    if max_tokens is None:
        return "\n\n".join(filter(None, [*wholes, missing_line]))
    ids = [obs.id for obs in found]
    room = max_tokens * CHARS_PER_TOKEN - len(missing_line) - 2
    room -= len(_left_out_line(ids, len(ids), max_tokens)) + 2  # the longest it can be
    shown = fit_count((whole + "\n" for whole in wholes), room, at_least_one=True)
    parts = wholes[:shown]
    if shown < len(found):
        parts.append(_left_out_line(ids[shown:], len(found), max_tokens))
    return "\n\n".join(filter(None, [*parts, missing_line]))


def _left_out_line(left_out: Sequence[int], fetched: int, max_tokens: int) -> str:
    shows = call("mem_get_observations", ids=list(left_out))
    shown = fetched - len(left_out)
    return (
        f"Token budget: {shown} of {fetched} observations fit in max_tokens={max_tokens}, each "
        f"whole. For the rest: raise max_tokens, or call {shows}."
    )


# --- token budgets --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Budgeted:
    text: str
    shown: int  # entries in the text


def fit_budget(
    head: Sequence[str],
    entries: Sequence[str],
    tail: Callable[[int], list[str]],
    worst_tail: Sequence[str],
    max_tokens: int,
) -> Budgeted:
    """Head, as many leading entries as fit, then ``tail(shown)``, within ``max_tokens``.

    The budget decides how many entries, never how much of one: an entry is whole or left
    out, and the first is always shown whole, even alone past ``max_tokens`` (seed 001's full
    detail is never cut). Entries are measured once with a running total (paging.fit_count)
    against what the head and the longest possible tail leave; a final check drops entries
    should the real tail still not fit.
    """
    budget = max_tokens * CHARS_PER_TOKEN
    fixed = sum(len(line) + 1 for line in (*head, *worst_tail))
    shown = fit_count(entries, budget - fixed, at_least_one=True)
    while True:
        text = "\n".join([*head, *entries[:shown], *tail(shown)])
        if estimate_tokens(text) <= max_tokens or shown <= 1:
            return Budgeted(text=text, shown=shown)
        shown -= 1  # pragma: no cover - the reserve for the tail makes this unreachable


def budget_line(shown: int, fetched: int, max_tokens: int, what: str, more: str) -> str:
    return (
        f"Token budget: {shown} of {fetched} {what} fit in max_tokens={max_tokens}. "
        f"For more: raise max_tokens, use detail_level: summary, or {more}."
    )


# --- mem_search -----------------------------------------------------------------------------


def render_search(
    result: SearchResult,
    *,
    query: str,
    filters: str,
    detail_level: DetailLevel,
    max_tokens: int,
) -> str:
    """The compact index: a header, ranked entries within the budget, then the footers.

    The fallbacks (fewer matches than the limit) follow the matches, numbered on, each section
    under its label (SOME_WORDS_LABEL, BY_MEANING_LABEL), which travels with its first entry
    so a cut never leaves a bare label; the navigation hint counts the matches alone."""
    head = [_search_header(result, query, filters)]
    if result.ranked_window is not None:
        head.append(
            f"Ranked by relevance among the newest {result.ranked_window} of {result.total} "
            "matches; add words or filters to rank them all."
        )
    listed = [*result.observations, *result.some_words, *result.by_meaning]
    entries = [
        f"[{n}] " + observation_entry(obs, detail_level, SEARCH_SNIPPET)
        for n, obs in enumerate(listed, start=1)
    ]
    some_label = SOME_WORDS_LABEL
    if result.some_words_total > len(result.some_words):
        some_label = (
            f"{SOME_WORDS_LABEL[:-1]} ({len(result.some_words)} of "
            f"{result.some_words_total}; raise limit for more):"
        )
    first_some = len(result.observations)
    first_meaning = first_some + len(result.some_words)
    for first, label, section in (
        (first_some, some_label, result.some_words),
        (first_meaning, BY_MEANING_LABEL, result.by_meaning),
    ):
        if section:
            entries[first] = f"{label}\n{entries[first]}"
    fetched = len(entries)
    biggest_id = max((obs.id for obs in listed), default=0)

    def tail(shown: int) -> list[str]:
        lines = [navigation_hint(min(shown, len(result.observations)), result.total, search_hint())]
        if shown < fetched:
            next_id = listed[shown].id
            lines.append(
                budget_line(shown, fetched, max_tokens, "results", open_observation(next_id))
            )
        if detail_level == "summary" and fetched:
            lines.append(SUMMARY_FOOTER)
        return [line for line in lines if line]

    worst = [
        f"Showing {result.total} of {result.total} {search_hint()}",
        budget_line(fetched, fetched, max_tokens, "results", open_observation(biggest_id)),
        SUMMARY_FOOTER,
    ]
    return fit_budget(head, entries, tail, worst, max_tokens).text


def _search_header(result: SearchResult, query: str, filters: str) -> str:
    echo = truncate(query, QUERY_ECHO)
    where = f" in {filters}" if filters else ""
    extra = ""
    if result.ignored_terms:
        extra = (
            f" Only the first {len(result.terms)} words were searched for; "
            f"{result.ignored_terms} more were left out."
        )
    if result.mode == "recent":
        if not query.strip():
            return f"Most recent observations{where} (empty query)."
        return (
            f'"{echo}" has no words to search for (only symbols); showing the most recent '
            f"observations{where} instead."
        )
    if result.total == 0:
        line = f'No observations match "{echo}"{where}.'
        if result.other_projects:
            line += (
                f" {result.other_projects} match in other projects: search again without "
                f"project, or check the project's spelling with {call('mem_stats')}."
            )
        return line + extra
    if result.mode == "any":
        return (
            f'No observation has every word of "{echo}"{where}; showing the '
            f"{result.total} that have some of them, best first.{extra}"
        )
    return f'{plural(result.total, "result")} for "{echo}"{where}, best first.{extra}'


# --- mem_timeline ---------------------------------------------------------------------------


def render_timeline(timeline: Timeline, *, detail_level: DetailLevel, max_tokens: int) -> str:
    """The focus and its neighbours, chronological. Within the budget the focus comes first,
    then neighbours by distance; the budget decides how many neighbours, never cuts one, and
    the focus is always whole."""
    head = [_timeline_header(timeline, detail_level)]
    ordered = [*timeline.before, timeline.focus, *timeline.after]
    focus_index = len(timeline.before)
    entries = [
        _timeline_entry(obs, detail_level, focus=i == focus_index) for i, obs in enumerate(ordered)
    ]
    # Nearest first: the focus, then one before, one after, two before, ...
    priority = [focus_index]
    for distance in range(1, len(ordered)):
        for index in (focus_index - distance, focus_index + distance):
            if 0 <= index < len(ordered):
                priority.append(index)
    fetched = len(ordered)

    def tail(shown: int, edge: int | None) -> list[str]:
        lines = [navigation_hint(shown, timeline.total_in_session, TIMELINE_HINT)]
        if shown < fetched:
            more = _timeline_on(edge) if edge is not None else "lower before/after"
            lines.append(budget_line(shown, fetched, max_tokens, "observations", more))
        if detail_level == "summary":
            lines.append(SUMMARY_FOOTER)
        return [line for line in lines if line]

    biggest_id = max(obs.id for obs in ordered)
    worst = [
        f"Showing {fetched} of {timeline.total_in_session} {TIMELINE_HINT}",
        budget_line(fetched, fetched, max_tokens, "observations", _timeline_on(biggest_id)),
        SUMMARY_FOOTER,
    ]
    budget = max_tokens * CHARS_PER_TOKEN - sum(len(line) + 1 for line in (*head, *worst))
    # The focus always appears whole, even alone past the budget; neighbours are whole or out.
    chosen = fit_count((entries[i] for i in priority), budget, at_least_one=True)
    kept = sorted(priority[:chosen])
    edge = ordered[priority[chosen]].id if chosen < len(priority) else None
    return "\n".join([*head, *(entries[i] for i in kept), *tail(len(kept), edge)])


def _timeline_header(timeline: Timeline, level: DetailLevel) -> str:
    session = timeline.session
    if session is None:
        return f"Session {timeline.focus.session_id}"
    ended = f", ended {session.ended_at}" if session.ended_at else ""
    line = (
        f"Session {session.id} | project: {session.project or '(none)'} | "
        f"started {session.started_at}{ended}"
    )
    if level != "summary" and session.summary:
        limit = TIMELINE_SESSION_SUMMARY if level == "standard" else len(session.summary)
        line += f" | summary: {truncate(session.summary, limit)}"
    return line


def _timeline_entry(obs: Observation, level: DetailLevel, *, focus: bool) -> str:
    heading = f"{observation_heading(obs)} | {obs.created_at}"
    if focus:
        heading = f">>> {heading} <<<"
    if level == "summary":
        return heading
    if level == "standard" and not focus:
        return f"{heading}\n    {truncate(obs.content, TIMELINE_NEIGHBOUR)}"
    return f"{heading}\n{obs.content}"


# --- timeline around a time (seed 002) -------------------------------------------------------


def iso_time(stamp: str) -> str:
    """A stored time ('YYYY-MM-DD HH:MM:SS', UTC) as ISO 8601: '2026-05-01T09:30:00Z'."""
    return stamp.replace(" ", "T") + "Z"


def clip(text: str, limit: int) -> str:
    """``text`` on one line, at most ``limit`` characters, ending in '…' when it was cut."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def time_window_entry(obs: Observation, level: DetailLevel) -> dict[str, object]:
    """One entry of seed 002's timeline: {id, createdAt, sessionId, source, title, text};
    ``source`` is the observation's type. Summary leaves the text out; standard cuts it at
    200 characters; full gives it whole."""
    entry: dict[str, object] = {
        "id": obs.id,
        "createdAt": iso_time(obs.created_at),
        "sessionId": obs.session_id,
        "source": obs.type,
        "title": obs.title,
    }
    if level == "standard":
        entry["text"] = clip(obs.content, TIME_WINDOW_TEXT)
    elif level == "full":
        entry["text"] = obs.content
    return entry


def render_time_window(window: TimeWindow, *, detail_level: DetailLevel, max_tokens: int) -> str:
    """Seed 002's timeline as compact JSON: ``{"anchor", "entries", "totalBefore",
    "totalAfter", "hasMore", "truncated"}``, entries chronological, plus ``"message"`` saying
    how to see more when ``hasMore``.

    Within ``max_tokens`` the entries nearest the anchor are kept first (one before, one
    after, two before, ...); the budget decides how many, never cuts an entry's text, and the
    nearest is always kept (``truncated`` then says the budget left some out).
    """
    ordered = [*window.before, *window.after]
    entries = [compact_json(time_window_entry(obs, detail_level)) for obs in ordered]
    edge = len(window.before)  # the first entry after the anchor
    priority: list[int] = []
    for distance in range(len(ordered)):
        for index in (edge - 1 - distance, edge + distance):
            if 0 <= index < len(ordered):
                priority.append(index)
    widest = "9" * 20
    envelope = compact_json(
        {
            "anchor": iso_time(window.anchor),
            "entries": [],
            "totalBefore": widest,
            "totalAfter": widest,
            "hasMore": False,
            "truncated": False,
            "message": _window_message(window, ordered, len(ordered), truncated=True),
        }
    )
    room = max_tokens * CHARS_PER_TOKEN - len(envelope) - len(widest) * 2
    chosen = fit_count((entries[i] for i in priority), room, at_least_one=True)
    kept = sorted(priority[:chosen])
    shown_before = sum(1 for i in kept if i < edge)
    shown_after = len(kept) - shown_before
    has_more = window.total_before > shown_before or window.total_after > shown_after
    truncated = len(kept) < len(ordered)
    answer: dict[str, object] = {
        "anchor": iso_time(window.anchor),
        "entries": [time_window_entry(ordered[i], detail_level) for i in kept],
        "totalBefore": window.total_before,
        "totalAfter": window.total_after,
        "hasMore": has_more,
        "truncated": truncated,
    }
    if has_more:
        answer["message"] = _window_message(
            window, [ordered[i] for i in kept], len(kept), truncated=truncated
        )
    return compact_json(answer)


def _window_message(
    window: TimeWindow, shown: Sequence[Observation], count: int, *, truncated: bool
) -> str:
    total = window.total_before + window.total_after
    filters: dict[str, object] = {}
    if window.project is not None:
        filters["project"] = window.project
    if window.session_id is not None:
        filters["session_id"] = window.session_id
    moves = []
    if shown:
        earliest, latest = iso_time(shown[0].created_at), iso_time(shown[-1].created_at)
        moves = [
            f"earlier: {call('mem_timeline', anchor=earliest, **filters)}",
            f"later: {call('mem_timeline', anchor=latest, before=1, **filters)}",
        ]
    why = "max_tokens left some out; " if truncated else ""
    return (
        f"Showing {count} of {total} observations around the anchor. {why}For more: raise "
        f"before/after (up to 20), max_tokens, or move the anchor ({'; '.join(moves)})."
        if moves
        else f"Showing {count} of {total} observations around the anchor."
    )


# --- mem_context ----------------------------------------------------------------------------


def render_context(
    data: ContextData,
    *,
    filters: str,
    detail_level: DetailLevel,
    max_tokens: int = DEFAULT_MAX_TOKENS,
) -> str:
    """Sessions, prompts, then observations, newest first, as many as fit in ``max_tokens``;
    a budget line says how many were left out and how to see them."""
    title = "## Memory context" + (f" ({filters})" if filters else "")
    if not data.sessions and not data.observations and not data.prompts:
        save = call("mem_save", title=Raw("<title>"), content=Raw("<content>"))
        return f"{title}\nNo memories yet. Save one with {save}."
    sessions = [
        _session_line(item.session, item.observation_count, detail_level) for item in data.sessions
    ]
    prompts: list[str] = []
    if detail_level != "summary":
        prompts = [
            f"- {prompt.created_at}: "
            + (
                prompt.content
                if detail_level == "full"
                else truncate(prompt.content, CONTEXT_PROMPT)
            )
            for prompt in data.prompts
        ]
    observations = [
        "- " + observation_entry(obs, detail_level, CONTEXT_OBSERVATION)
        for obs in data.observations
    ]
    # Each section's heading travels with its first line, so a cut never leaves a bare heading.
    entries: list[str] = []
    for heading, lines in (
        ("### Recent sessions", sessions),
        ("### Recent prompts", prompts),
        ("### Recent observations", observations),
    ):
        entries.extend(f"{heading}\n{line}" if n == 0 else line for n, line in enumerate(lines))
    first_observation = len(entries) - len(observations)
    more = call("mem_search", query=Raw("<words>"))

    def tail(shown: int) -> list[str]:
        shown_observations = max(0, shown - first_observation)
        lines = [navigation_hint(shown_observations, data.total_observations, context_hint())]
        if shown < len(entries):
            lines.append(budget_line(shown, len(entries), max_tokens, "context entries", more))
        if detail_level == "summary":
            lines.append(SUMMARY_FOOTER)
        return [line for line in lines if line]

    total = data.total_observations
    worst = [
        f"Showing {total} of {total} {context_hint()}",
        budget_line(len(entries), len(entries), max_tokens, "context entries", more),
        SUMMARY_FOOTER,
    ]
    return fit_budget([title], entries, tail, worst, max_tokens).text


def _session_line(session: Session, count: int, level: DetailLevel) -> str:
    project = session.project or "(none)"
    if level == "summary":
        return f"- {project} ({session.started_at})"
    ended = f", ended {session.ended_at}" if session.ended_at else ""
    line = (
        f"- {project} | {session.id} ({session.started_at}{ended}) [{plural(count, 'observation')}]"
    )
    if session.summary:
        shown = session.summary
        if level == "standard":
            shown = truncate(shown, CONTEXT_SESSION_SUMMARY)
        line += f": {shown}"
    return line


# --- writes, stats, compaction --------------------------------------------------------------


def render_save(result: SaveResult) -> str:
    obs = result.observation
    if result.status == "created":
        line = f"Saved #{obs.id} (new) in session {obs.session_id}."
    elif result.status == "duplicate":
        line = (
            f"Duplicate of #{obs.id}, saved at {obs.created_at}: nothing new was stored; "
            f"duplicate_count is now {obs.duplicate_count}."
        )
    else:
        line = (
            f"Updated #{obs.id} (the memory with topic_key {obs.topic_key!r}) in place; it is "
            f"now revision {obs.revision_count}."
        )
        if result.replaced_revision is not None:
            shows = call("mem_get_observation", id=obs.id, revision=result.replaced_revision)
            line += (
                f" The text it replaced is kept as revision {result.replaced_revision}: "
                f"{shows} shows it."
            )
    notes = []
    if result.redactions:
        notes.append(f"{result.redactions} <private> span(s) were stored as [REDACTED].")
    if result.suggested_topic_key and result.status == "created":
        notes.append(
            f"To keep one memory on this topic, save with topic_key={result.suggested_topic_key!r}."
        )
    return " ".join([line, *notes])


def render_stats(stats: Stats, path: str) -> str:
    scope = f" for project {stats.project!r}" if stats.project is not None else ""
    lines = [
        f"Memory{scope}: {stats.observations} observations ({stats.deleted_observations} "
        f"deleted), {stats.sessions} sessions, {stats.prompts} prompts.",
    ]
    if stats.oldest:
        lines.append(f"Observations from {stats.oldest} to {stats.newest}.")
    if stats.types:
        lines.append("Types: " + ", ".join(f"{t} {n}" for t, n in stats.types[:STATS_NAMED]))
    database = f"Database: {path}"
    if stats.project is None and stats.projects:
        named = [f"{p or '(none)'} {n}" for p, n in stats.projects[:STATS_NAMED]]
        # the names of 200-character projects could outgrow the answer: as many as fit
        room = DEFAULT_RESPONSE_BUDGET - sum(len(line) + 1 for line in (*lines, database)) - 80
        shown = fit_count(named, room, at_least_one=False)
        more = len(stats.projects) - shown
        line = "Projects: " + ", ".join(named[:shown])
        lines.append(line + (f", and {more} more" if more else ""))
    lines.append(database)
    return "\n".join(lines)


def render_stale(report: StaleReport, *, older_than_days: int, filters: str) -> str:
    where = f" ({filters})" if filters else ""
    if not report.observations:
        return (
            f"No live observations older than {plural(older_than_days, 'day')}{where}. "
            "Nothing to compact."
        )
    lines = [
        f"{plural(report.total, 'observation')} older than {plural(older_than_days, 'day')}"
        f"{where} (created before "
        f"{report.cutoff}); review them, then call "
        f"{call('mem_compact', older_than_days=older_than_days, compact_ids=Raw('<ids>'))} "
        "with a summary_title and summary_content that keep what still matters.",
        "ID | title | type | project | created",
    ]
    rows = [
        f"{stale.id} | {truncate(stale.title, STALE_TITLE)} | {stale.type} | "
        f"{stale.project or '(none)'} | {stale.created_at}"
        for stale in report.observations
    ]
    # as many rows as fit, each with its id in the compact_ids line; the rest come next time
    worst_tail = (
        len(f"Showing {report.total} of {report.total} {stale_hint()}")
        + len(_age_distribution([], report.cutoff, older_than_days))
        + 60
    )
    room = DEFAULT_RESPONSE_BUDGET - sum(len(line) + 1 for line in lines) - worst_tail
    costs = (f"{row}\n{stale.id}," for row, stale in zip(rows, report.observations, strict=True))
    listed = report.observations[: fit_count(costs, room)]
    lines.extend(rows[: len(listed)])
    lines.append(
        "Age: " + _age_distribution([s.created_at for s in listed], report.cutoff, older_than_days)
    )
    ids = ",".join(str(stale.id) for stale in listed)
    lines.append(f'compact_ids: "[{ids}]"')
    hint = navigation_hint(len(listed), report.total, stale_hint())
    if hint:
        lines.append(hint)
    return "\n".join(lines)


def _age_distribution(created: Sequence[str], cutoff: str, older_than_days: int) -> str:
    """How the listed observations spread over age bands, in days."""
    now = datetime.strptime(cutoff, TIMESTAMP) + timedelta(days=older_than_days)
    edges = [older_than_days, *(edge for edge in (90, 365) if edge > older_than_days)]
    bands = list(zip(edges, [*edges[1:], None], strict=True))
    counts = [0] * len(bands)
    for stamp in created:
        age = (now - datetime.strptime(stamp, TIMESTAMP)).days
        band = next((n for n, (_, high) in enumerate(bands) if high is None or age < high), 0)
        counts[band] += 1
    return ", ".join(
        f"{low}-{high} days: {count}" if high is not None else f"{low}+ days: {count}"
        for (low, high), count in zip(bands, counts, strict=True)
    )


def render_compaction(result: CompactResult) -> str:
    where = describe_filters(result.project, result.scope, None)
    counted = f" ({where})" if where else ""
    line = (
        f"Compacted {plural(len(result.deleted), 'observation')} (soft-deleted; they leave "
        f"search and context). Live observations{counted}: {result.before} before, "
        f"{result.after} after."
    )
    if result.summary is not None:
        line += f" Summary saved as #{result.summary.id} ({result.summary.title!r})."
    return line


def describe_filters(project: str | None, scope: str | None, type: str | None) -> str:
    parts = []
    if project is not None:
        parts.append(f"project {project or '(none)'}")
    if scope is not None:
        parts.append(f"scope {scope}")
    if type is not None:
        parts.append(f"type {type}")
    return ", ".join(parts)
