"""Refactoring tools: search and replace across notes, one frontmatter property, one tag.

Every answer is short: a replace dry run is a page of notes with a few snippets each, a real
run a per-note report, and a property or tag edit one line saying what changed.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from vaultgate.paging import compact_json
from vaultgate.progress import reporting
from vaultgate.tools.base import (
    DESTRUCTIVE,
    WRITE,
    Blocks,
    ToolContext,
    ToolSpec,
    app_state,
    items_budget,
    json_blocks,
    model_facing_errors,
    text,
    titled,
)
from vaultgate.vault import properties
from vaultgate.vault.replace import MAX_LIMIT, ReplaceSpec

Filename = Annotated[str, Field(description="Vault path of the note, e.g. 'Projects/plan.md'.")]
# A frontmatter value, each JSON type a typed branch: every converter of the client matrix
# keeps an anyOf of typed options, where an untyped `value` became a string in some and an
# object in others (docs/clients.md). int before float: 5 stays 5, not 5.0.
PropertyValue = str | int | float | bool | list[Any] | dict[str, Any] | None
Key = Annotated[str, Field(description="The frontmatter key, e.g. 'status'.")]
Tag = Annotated[str, Field(description="With or without '#'; nested as 'area/sub'.")]


@model_facing_errors
async def replace_in_notes(
    ctx: ToolContext,
    find: Annotated[str, Field(description="The text to find (a Python regex if regex=true).")],
    replacement: Annotated[
        str, Field(description="What replaces each match; with regex, \\1 or \\g<name> groups.")
    ],
    filename: Annotated[str | None, Field(description="Only this note.")] = None,
    directory: Annotated[str, Field(description="Only notes below this folder; '' = all.")] = "",
    pattern: Annotated[
        str | None, Field(description="Only notes matching this glob, e.g. 'Daily/2026-*.md'.")
    ] = None,
    regex: Annotated[bool, Field(description="find is a Python regex (MULTILINE).")] = False,
    frontmatter: Annotated[
        bool, Field(description="Also replace inside the frontmatter block.")
    ] = False,
    dryRun: Annotated[bool, Field(description="List what would change (default).")] = True,
    limit: Annotated[int, Field(ge=1, le=MAX_LIMIT, description="Notes per call.")] = 20,
    offset: Annotated[int, Field(ge=0, description="Notes to skip.")] = 0,
) -> Blocks:
    """Find and replace text in one note, a folder or a glob, in two steps: dryRun=true (the
    default) lists each note that would change, with its match count and snippets, paged
    (continue with offset=nextOffset); then the same arguments with dryRun=false replace in
    up to limit of those notes (continue with its nextOffset: replaced notes leave the list).
    Only notes a dry run listed, unchanged since, are written.
    The frontmatter is left alone unless frontmatter=true."""
    state = app_state(ctx)
    spec = ReplaceSpec(find, replacement, regex, frontmatter, filename, directory, pattern)
    async with reporting(ctx.report_progress):
        if dryRun:
            page, entries, matches = await state.replacer.dry_run(
                spec, limit=limit, offset=offset, budget=items_budget()
            )
            note = (
                f"Nothing was changed. To replace in these {len(page.items)} notes, call "
                "again with the same arguments and dryRun=false."
                if page.items
                else "No note matches; nothing would change."
            )
            return json_blocks(page.envelope("notes", entries, matches=matches, note=note))
        run, remaining, next_offset = await state.replacer.run(spec, limit=limit, offset=offset)
    state.vault_changed()
    return json_blocks(compact_json(run.as_json(remaining, next_offset)))


@model_facing_errors
async def set_note_property(
    ctx: ToolContext,
    filename: Filename,
    key: Key,
    value: Annotated[
        PropertyValue, Field(description="Any JSON: string, number, boolean, list, object.")
    ],
) -> Blocks:
    """Set one frontmatter property of a note (created if missing), keeping its JSON type;
    only that key's lines change (comments, quoting, other keys stay)."""
    state = app_state(ctx)
    message = await properties.set_property(state.client, filename, key, value)
    state.vault_changed()
    return [text(message)]


@model_facing_errors
async def delete_note_property(ctx: ToolContext, filename: Filename, key: Key) -> Blocks:
    """Remove one frontmatter property from a note; a missing one changes nothing."""
    state = app_state(ctx)
    message = await properties.delete_property(state.client, filename, key)
    state.vault_changed()
    return [text(message)]


@model_facing_errors
async def add_note_tag(ctx: ToolContext, filename: Filename, tag: Tag) -> Blocks:
    """Add a tag to a note's frontmatter tags; a tag it already has (any case, frontmatter or
    inline) changes nothing."""
    state = app_state(ctx)
    message = await properties.add_tag(state.client, filename, tag)
    state.vault_changed()
    return [text(message)]


@model_facing_errors
async def remove_note_tag(
    ctx: ToolContext,
    filename: Filename,
    tag: Tag,
    inline: Annotated[bool, Field(description="Also remove #tag from the note's text.")] = False,
) -> Blocks:
    """Remove a tag (any case, exact: 'a' keeps 'a/b') from a note's frontmatter tags, and
    with inline=true from its text too."""
    state = app_state(ctx)
    message = await properties.remove_tag(state.client, filename, tag, inline=inline)
    state.vault_changed()
    return [text(message)]


TOOLS: list[ToolSpec] = [
    (replace_in_notes, titled(DESTRUCTIVE, "Find and replace in notes")),
    (set_note_property, titled(DESTRUCTIVE, "Set a note property")),
    (delete_note_property, titled(DESTRUCTIVE, "Delete a note property")),
    (add_note_tag, titled(WRITE, "Tag a note")),
    (remove_note_tag, titled(DESTRUCTIVE, "Untag a note")),
]
