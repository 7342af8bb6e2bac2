"""Reading across notes: several notes in one call, and the notes changed lately."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from vaultgate.calls import Later, Raw, call
from vaultgate.paging import compact_json, page_within_budget
from vaultgate.progress import report, reporting
from vaultgate.tools.base import (
    READ_ONLY,
    Blocks,
    ToolContext,
    ToolSpec,
    app_state,
    items_budget,
    json_blocks,
    model_facing_errors,
    titled,
)
from vaultgate.vault.batch import DEFAULT_BUDGET, MAX_NOTES, read_many
from vaultgate.vault.documents import MAX_LENGTH_LIMIT
from vaultgate.vault.recent import recent_changes

MIN_SHARED_BUDGET = 100  # at least a few characters for each of MAX_NOTES notes
CUT_NOTICE = Later(
    lambda: (
        "A note with hasMore=true was cut to share maxLength; continue it with "
        f"{call('get_vault_file', filename=Raw('<filename>'), startIndex=Raw('<nextIndex>'))}."
    )
)


@model_facing_errors
async def get_vault_files(
    ctx: ToolContext,
    filenames: Annotated[
        list[str],
        Field(
            min_length=1,
            max_length=MAX_NOTES,
            description=f"Vault paths of 1-{MAX_NOTES} notes, e.g. ['Daily/2026-11-21.md'].",
        ),
    ],
    maxLength: Annotated[
        int,
        Field(
            ge=MIN_SHARED_BUDGET,
            le=MAX_LENGTH_LIMIT,
            description="Characters shared by all the notes' content.",
        ),
    ] = DEFAULT_BUDGET,
) -> Blocks:
    """Read up to 20 notes in one call, sharing maxLength characters fairly (a short note
    leaves its unused share to the others). Each note is {filename, content}, plus the window
    metadata of a single read when cut (continue it from nextIndex), or {filename, error} when
    it cannot be read; the others are read all the same."""
    async with reporting(ctx.report_progress):
        notes = await read_many(app_state(ctx).client, filenames, maxLength)
    body: dict[str, object] = {"notes": notes.entries}
    if notes.cut:
        body["notice"] = str(CUT_NOTICE)
    return json_blocks(compact_json(body))


@model_facing_errors
async def get_recent_changes(
    ctx: ToolContext,
    days: Annotated[int, Field(ge=1, le=3650, description="Modified in the last N days.")] = 7,
    directory: Annotated[str | None, Field(description="Only notes below this folder.")] = None,
    limit: Annotated[int, Field(ge=1, le=1000, description="Notes per page (1-1000).")] = 50,
    offset: Annotated[int, Field(ge=0, description="Notes to skip; use nextOffset.")] = 0,
) -> Blocks:
    """Notes modified in the last `days` days, newest first, with their mtime (UTC), on every
    plugin version. While pagination.hasMore is true, call again with
    offset=pagination.nextOffset (pages asked within the same minute come from one cached
    search)."""
    async with reporting(ctx.report_progress):
        await report(0, 1, "searching for recent changes")
        served = await recent_changes(app_state(ctx).searcher, days, directory, offset=offset)
        changed = served.value
        await report(1, 1, f"{len(changed)} notes changed")
    page = page_within_budget(
        changed,
        limit=limit,
        offset=offset,
        budget=items_budget(),
        render=lambda note: compact_json(note.render()),
    )
    rendered = [note.render() for note in page.items]
    return json_blocks(page.envelope("notes", rendered, snapshot=served.notice))


TOOLS: list[ToolSpec] = [
    (get_vault_files, titled(READ_ONLY, "Read several notes")),
    (get_recent_changes, titled(READ_ONLY, "List recently changed notes")),
]
