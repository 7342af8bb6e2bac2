"""What the model reads from the SDD tools, at the detail levels of seed 001, within a budget.

Pure functions of loaded changes and memory search results. Snippets, detail levels and the
summary footer are the memory renderer's (vaultgate.memory.render), so the two families read
alike. Windows of artifact text come from paging.window_text; a cut window ends with a line that
says exactly which call reads on, since the SDD tools take no startIndex.

- summary: artifact file names and sizes, change slugs, observation titles.
- standard: adds 500-character artifact excerpts and 200-character observation snippets.
- full: artifact text in windows (sdd_get_context) or whole (sdd_context_check), and whole
  observations.

Every answer stays within RESPONSE_BUDGET characters (5,000, the default answer of every tool),
by cutting windows and lists, never by dropping a line silently; except that at full,
sdd_context_check's first matching change and the first related observation are shown whole
even past it (seed 001 FR-017: full detail is never cut; the budget decides how many).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from vaultgate.calls import Raw, call
from vaultgate.memory.models import SearchResult
from vaultgate.memory.render import (
    MEMORY_SNIPPET_FOR_SDD,
    SUMMARY_FOOTER,
    DetailLevel,
    observation_entry,
    open_observation,
    plural,
    truncate,
)
from vaultgate.paging import (
    DEFAULT_RESPONSE_BUDGET,
    Window,
    fit_count,
    navigation_hint,
    window_text,
)
from vaultgate.sdd.layout import LAYOUT
from vaultgate.sdd.models import Artifact, Change

RESPONSE_BUDGET = DEFAULT_RESPONSE_BUDGET  # characters of a whole answer
ARTIFACT_EXCERPT = 500  # detail_level=standard (seed 001 FR-016)
MEMORY_BUDGET = 2_000  # characters the memory part may take at most: the vault part comes first
MIN_WINDOW = 200  # a window shorter than this is left out in favour of a pointer to read it
LIST_NAMES = 20  # names listed in one line ("a, b, ... and N more")


def memory_hint() -> str:
    more = call("mem_search", query=Raw("<words>"))
    return f"related observations. Use {more} for more, or {open_observation('ID')}."


def read_more_line(path: str, end: int, total: int) -> str:
    """The line after cut text: the call that reads on from where it was cut."""
    read_on = call("get_vault_file", filename=path, startIndex=end)
    return f"Content truncated at {end:,} of {total:,} characters. Call {read_on} to get more."


def not_shown(artifact: Artifact) -> str:
    read = call("get_vault_file", filename=artifact.path)
    return f"({artifact.size:,} characters, not shown to keep this answer small. Read it: {read}.)"


def chars(count: int) -> str:
    return f"{count:,}"


def names(items: Sequence[str], limit: int = LIST_NAMES) -> str:
    """``a, b, c`` or ``a, b, ... and N more``: never an unbounded line."""
    shown = ", ".join(items[:limit])
    more = len(items) - limit
    return f"{shown} and {more} more" if more > 0 else shown


def read_more(path: str, window: Window) -> str:
    return read_more_line(path, window.end_index, window.total_length)


def unavailable(reason: str) -> str:
    """The one line that replaces the vault part when Obsidian cannot be reached."""
    return (
        f"Vault part unavailable: {reason}. SDD artifacts could not be read; the memory part "
        "below is complete. Run `vaultgate doctor` to diagnose."
    )


def place(folder: str) -> str:
    """How a folder is named in a sentence: 'sdd/', or 'the vault root' for ''."""
    return folder or "the vault root"


def no_artifacts(folder: str, project: str | None = None, *, folder_exists: bool = False) -> str:
    """Nothing to show yet, and where the artifacts would live."""
    if project is not None:
        return (
            f"No SDD changes for project {project!r} yet. They would live in "
            f"{folder}{project}/changes/<slug>/{{proposal,spec,design,tasks,verify}}.md."
        )
    missing = (
        f"No SDD changes in {place(folder)} yet."
        if folder_exists
        else f"No SDD artifacts yet: there is no {place(folder)} folder in the vault."
    )
    return f"{missing} They would live in {folder}{LAYOUT} (VAULTGATE_SDD_FOLDER sets the folder)."


# --- one change ------------------------------------------------------------------------------


def _label(change: Change, qualified: bool) -> str:
    return change.name if qualified else change.layout.slug


def _others(change: Change) -> str:
    count = len(change.layout.other_files)
    return f"; {plural(count, 'other file')} in {change.layout.folder}" if count else ""


def stage_sizes(change: Change) -> str:
    """``proposal 1,067, spec 1,504; missing design, tasks, verify``."""
    present = ", ".join(f"{a.stage} {chars(a.size)}" for a in change.artifacts)
    missing = f"missing {', '.join(change.missing)}" if change.missing else ""
    return "; ".join(part for part in (present or "no stage files yet", missing) if part)


def _missing(change: Change) -> str:
    return f" (missing {', '.join(change.missing)})" if change.missing else ""


def change_summary(change: Change, *, qualified: bool, note: str = "") -> str:
    return f"- {_label(change, qualified)}{note}: {stage_sizes(change)}{_others(change)}"


def change_standard(change: Change, *, qualified: bool, note: str = "") -> str:
    lines = [f"### {_label(change, qualified)}{note}{_missing(change)}{_others(change)}"]
    lines.extend(
        f"- {a.filename} ({chars(a.size)} chars): {truncate(a.content, ARTIFACT_EXCERPT)}"
        for a in change.artifacts
    )
    return "\n".join(lines)


def artifact_header(artifact: Artifact) -> str:
    return f"#### {artifact.filename} ({chars(artifact.size)} chars) {artifact.path}"


def change_full(change: Change, *, qualified: bool, room: int, note: str = "") -> str:
    """The change with each artifact's text in a window, the whole within ``room`` characters
    (unless even its heading and pointer lines are longer).

    Artifacts take the room in stage order; one whose window would be shorter than MIN_WINDOW
    (and shorter than its text) is replaced by a line saying how to read it.
    """
    heading = f"### {_label(change, qualified)}{note}{_missing(change)}{_others(change)}"
    headers = [artifact_header(a) for a in change.artifacts]
    pointers = [not_shown(a) for a in change.artifacts]
    # Reserve what each artifact costs even when its text is left out: header and pointer.
    left = (
        room
        - len(heading)
        - sum(len(h) + len(p) + 2 for h, p in zip(headers, pointers, strict=True))
    )
    lines = [heading]
    for artifact, header, pointer in zip(change.artifacts, headers, pointers, strict=True):
        lines.append(header)
        available = left + len(pointer) + 1  # this artifact's own reserve, freed for its text
        body = window_body(artifact, available - 1)
        if body is None:
            lines.append(pointer)
            continue
        lines.append(body)
        left = available - len(body) - 1
    return "\n".join(lines)


def change_whole(change: Change, *, qualified: bool, note: str = "") -> str:
    """The change with every artifact's whole text (sdd_context_check at full, seed 001
    FR-017: complete untruncated artifact content)."""
    heading = f"### {_label(change, qualified)}{note}{_missing(change)}{_others(change)}"
    lines = [heading]
    for artifact in change.artifacts:
        lines.extend((artifact_header(artifact), artifact.content.rstrip("\n")))
    return "\n".join(lines)


def window_body(artifact: Artifact, room: int) -> str | None:
    """The artifact's text from the start, cut to fit ``room`` with a read-more line; None when
    less than MIN_WINDOW characters of a longer text would fit."""
    if artifact.size <= room:
        return artifact.content
    longest = len(read_more_line(artifact.path, artifact.size, artifact.size))
    length = room - longest - 2
    if length < MIN_WINDOW:
        return None
    window = window_text(artifact.content, start_index=0, max_length=length)
    # A blank line between text and notice, as paging's windows have, so the notice never
    # reads as the last line of the note.
    separator = "" if window.text.endswith("\n") else "\n"
    return f"{window.text}{separator}\n{read_more(artifact.path, window)}"


# --- lists of changes ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Fitted:
    text: str
    shown: int


def fit_changes(
    changes: Sequence[Change],
    level: DetailLevel,
    *,
    qualified: bool,
    budget: int,
    notes: Mapping[str, str] | None = None,
    whole: bool = False,
) -> Fitted:
    """As many changes as fit in ``budget`` characters at ``level`` (the first always does).

    ``notes`` adds a few words after a change's name (keyed by ``project/slug``). ``whole``
    (at full): each change with its artifacts' whole texts, never cut; the budget decides how
    many changes, and the first is shown whole even past it.
    """
    notes = notes or {}
    if level == "full" and whole:
        wholes = [change_whole(c, qualified=qualified, note=notes.get(c.name, "")) for c in changes]
        shown = fit_count(wholes, budget)
        return Fitted("\n".join(wholes[:shown]), shown)
    if level == "full":
        parts: list[str] = []
        left = budget
        for change in changes:
            note = notes.get(change.name, "")
            part = change_full(change, qualified=qualified, room=left - 1, note=note)
            if parts and len(part) + 1 > left:
                break
            parts.append(part)
            left -= len(part) + 1
        return Fitted("\n".join(parts), len(parts))
    render = change_summary if level == "summary" else change_standard
    entries = [render(c, qualified=qualified, note=notes.get(c.name, "")) for c in changes]
    shown = fit_count(entries, budget)
    return Fitted("\n".join(entries[:shown]), shown)


def changes_hint(shown: int, total: int, more: str) -> str:
    return navigation_hint(shown, total, f"changes. {more}")


# --- memory ----------------------------------------------------------------------------------


def memory_section(
    result: SearchResult, level: DetailLevel, *, about: str, budget: int = MEMORY_BUDGET
) -> str:
    """Related observations at ``level``, whole entries only, within ``budget`` characters;
    at full the first is shown whole even past it (seed 001 FR-017: full memory content)."""
    heading = f"## Related memory ({about})" if about else "## Related memory"
    if result.mode == "any" and result.observations:
        heading += " — no observation has every word; these have some, best first"
    elif result.mode == "recent" and result.observations:
        heading += " — the most recent"
    if not result.observations:
        return f"{heading}\nNo related observations in memory."
    entries = [
        "- " + observation_entry(obs, level, MEMORY_SNIPPET_FOR_SDD).rstrip("\n")
        for obs in result.observations
    ]
    ids = [obs.id for obs in result.observations]
    worst_tail = len(_left_out(ids)) + len(
        f"Showing {result.total} of {result.total} {memory_hint()}"
    )
    room = budget - len(heading) - worst_tail - 3
    shown = fit_count(entries, room, at_least_one=level == "full")
    lines = [heading, *entries[:shown]]
    if shown < len(entries):
        lines.append(_left_out(ids[shown:]))
    hint = navigation_hint(shown, result.total, memory_hint())
    if hint:
        lines.append(hint)
    return "\n".join(lines)


def _left_out(ids: Sequence[int]) -> str:
    shows = call("mem_get_observations", ids=list(ids))
    return f"Left out to stay small: {shows} shows them in full."


def memory_unavailable(reason: str) -> str:
    return f"## Related memory\nMemory part unavailable: {reason}"


def finish(sections: Sequence[str], level: DetailLevel) -> str:
    """The answer: its sections, then the summary footer when the level is summary."""
    parts = [section for section in sections if section]
    if level == "summary":
        parts.append(SUMMARY_FOOTER)
    return "\n".join(parts)
