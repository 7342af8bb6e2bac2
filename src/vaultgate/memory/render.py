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
    SaveResult,
    SearchResult,
    Session,
    StaleReport,
    Stats,
    Timeline,
)
from vaultgate.paging import estimate_tokens, fit_count, navigation_hint

DetailLevel = Literal["summary", "standard", "full"]

SUMMARY_FOOTER = "Use detail_level: standard or full for more detail"
TIMELINE_HINT = "observations in session."


def open_observation(id_text: object) -> str:
    """How to read an observation in full: the seeds' words, ``mem_get_observation #12``,
    where that tool is offered, else the call that does it (vaultgate.calls)."""
    if offers("mem_get_observation"):
        return f"mem_get_observation #{id_text}"
    return call("mem_get_observation", id=Raw(str(id_text)))


def search_hint() -> str:
    return f"results. Use limit or {open_observation('ID')} for more."


def context_hint() -> str:
    return f"observations. Increase limit or use {open_observation('ID')} for details."


def stale_hint() -> str:
    again = call("mem_compact", older_than_days=Raw("<days>"))
    return f"stale observations. Compact these first, then call {again} again for the rest."


def _timeline_on(observation_id: int) -> str:
    return f"call {call('mem_timeline', observation_id=observation_id)}"


DEFAULT_MAX_TOKENS = 2_000
CHARS_PER_TOKEN = 4  # paging.estimate_tokens: ceil(characters / 4)

# Display lengths at detail_level=standard (seed 001), in characters.
SEARCH_SNIPPET = 300
CONTEXT_SESSION_SUMMARY = 200
CONTEXT_PROMPT = 200
CONTEXT_OBSERVATION = 300
TIMELINE_NEIGHBOUR = 200
TIMELINE_SESSION_SUMMARY = 100
MEMORY_SNIPPET_FOR_SDD = 200  # sdd_context_check, standard (seed 001 FR-016)
STALE_TITLE = 50
QUERY_ECHO = 80
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
    """mem_get_observation: everything, content untouched."""
    topic = obs.topic_key or "(none)"
    return (
        f"{observation_heading(obs)}\n{obs.content}\n---\n"
        f"session: {obs.session_id} | project: {obs.project or '(none)'} | scope: {obs.scope} | "
        f"topic: {topic} | revisions: {obs.revision_count} | "
        f"duplicates: {obs.duplicate_count} | created: {obs.created_at} | "
        f"updated: {obs.updated_at}"
    )


def observations_detail(found: Sequence[Observation], missing: Sequence[int]) -> str:
    parts = [observation_detail(obs) for obs in found]
    if missing:
        ids = ", ".join(f"#{i}" for i in missing)
        parts.append(f"Not found (unknown or deleted): {ids}")
    return "\n\n".join(parts)


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

    Entries are measured once with a running total (paging.fit_count) against what the head
    and the longest possible tail leave; a final check drops entries should the real tail
    still not fit, so the estimate never exceeds ``max_tokens``.
    """
    budget = max_tokens * CHARS_PER_TOKEN
    fixed = sum(len(line) + 1 for line in (*head, *worst_tail))
    shown = fit_count(entries, budget - fixed, at_least_one=False)
    while True:
        text = "\n".join([*head, *entries[:shown], *tail(shown)])
        if estimate_tokens(text) <= max_tokens or shown == 0:
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
    """The compact index: a header, ranked entries within the budget, then the footers."""
    head = [_search_header(result, query, filters)]
    if result.ranked_window is not None:
        head.append(
            f"Ranked by relevance among the newest {result.ranked_window} of {result.total} "
            "matches; add words or filters to rank them all."
        )
    entries = [
        f"[{n}] " + observation_entry(obs, detail_level, SEARCH_SNIPPET)
        for n, obs in enumerate(result.observations, start=1)
    ]
    fetched = len(entries)
    biggest_id = max((obs.id for obs in result.observations), default=0)

    def tail(shown: int) -> list[str]:
        lines = [navigation_hint(shown, result.total, search_hint())]
        if shown < fetched:
            next_id = result.observations[shown].id
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
    then neighbours by distance; the focus's content is cut (and marked) only if it alone is
    over the budget."""
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
            lines.append(budget_line(shown, fetched, max_tokens, "timeline entries", more))
        if detail_level == "summary":
            lines.append(SUMMARY_FOOTER)
        return [line for line in lines if line]

    biggest_id = max(obs.id for obs in ordered)
    worst = [
        f"Showing {fetched} of {timeline.total_in_session} {TIMELINE_HINT}",
        budget_line(fetched, fetched, max_tokens, "timeline entries", _timeline_on(biggest_id)),
        SUMMARY_FOOTER,
    ]
    budget = max_tokens * CHARS_PER_TOKEN - sum(len(line) + 1 for line in (*head, *worst))
    # The focus always appears; its content is cut (and says so) only if it alone is too long.
    entries[focus_index] = _fit_focus(timeline.focus, entries[focus_index], budget - 1)
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


def _fit_focus(obs: Observation, entry: str, room: int) -> str:
    """The focus entry within ``room`` characters: its content cut and marked if need be."""
    if len(entry) <= room:
        return entry
    heading, _, content = entry.partition("\n")
    marker = (
        "[cut at {kept} of "
        f"{len(content)} characters to fit max_tokens; {open_observation(obs.id)} "
        "shows all of it]"
    )
    longest_marker = len(marker.format(kept=len(content)))
    kept = room - len(heading) - longest_marker - 2
    if kept < 0:  # even the heading is too long: shorten the title too, show no content
        heading = truncate(heading, max(0, room - longest_marker - 4))
        kept = 0
    return f"{heading}\n{content[:kept]}\n{marker.format(kept=kept)}"


# --- mem_context ----------------------------------------------------------------------------


def render_context(data: ContextData, *, filters: str, detail_level: DetailLevel) -> str:
    title = "## Memory context" + (f" ({filters})" if filters else "")
    if not data.sessions and not data.observations and not data.prompts:
        save = call("mem_save", title=Raw("<title>"), content=Raw("<content>"))
        return f"{title}\nNo memories yet. Save one with {save}."
    lines = [title]
    if data.sessions:
        lines.append("### Recent sessions")
        lines.extend(
            _session_line(item.session, item.observation_count, detail_level)
            for item in data.sessions
        )
    if data.prompts and detail_level != "summary":
        lines.append("### Recent prompts")
        for prompt in data.prompts:
            text = (
                prompt.content
                if detail_level == "full"
                else truncate(prompt.content, CONTEXT_PROMPT)
            )
            lines.append(f"- {prompt.created_at}: {text}")
    if data.observations:
        lines.append("### Recent observations")
        for obs in data.observations:
            lines.append("- " + observation_entry(obs, detail_level, CONTEXT_OBSERVATION))
    hint = navigation_hint(len(data.observations), data.total_observations, context_hint())
    if hint:
        lines.append(hint)
    if detail_level == "summary":
        lines.append(SUMMARY_FOOTER)
    return "\n".join(lines)


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
            f"Updated #{obs.id} in place (topic_key {obs.topic_key!r}); revision "
            f"{obs.revision_count}."
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
        lines.append("Types: " + ", ".join(f"{t} {n}" for t, n in stats.types[:20]))
    if stats.project is None and stats.projects:
        shown = stats.projects[:20]
        more = len(stats.projects) - len(shown)
        line = "Projects: " + ", ".join(f"{p or '(none)'} {n}" for p, n in shown)
        lines.append(line + (f", and {more} more" if more else ""))
    lines.append(f"Database: {path}")
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
    for stale in report.observations:
        lines.append(
            f"{stale.id} | {truncate(stale.title, STALE_TITLE)} | {stale.type} | "
            f"{stale.project or '(none)'} | {stale.created_at}"
        )
    lines.append(
        "Age: "
        + _age_distribution(
            [s.created_at for s in report.observations], report.cutoff, older_than_days
        )
    )
    ids = ",".join(str(stale.id) for stale in report.observations)
    lines.append(f'compact_ids: "[{ids}]"')
    hint = navigation_hint(len(report.observations), report.total, stale_hint())
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
