"""Write tools: create, append, patch, delete, move and bulk-delete notes.

Every answer is a short confirmation (a patch also shows the patched part), never the note.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from vaultgate import progress
from vaultgate.paging import compact_json
from vaultgate.patch_request import Operation, TargetType
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
from vaultgate.vault import editing
from vaultgate.vault.bulk_delete import REAL_RUN_LIMIT, Selection
from vaultgate.vault.editing import ContentType, PatchSpec

Filename = Annotated[str, Field(description="Vault path of the note, e.g. 'Projects/plan.md'.")]
Content = Annotated[str, Field(description="Markdown text.")]
PatchOperation = Annotated[Operation, Field(description="append, prepend or replace.")]
PatchTargetType = Annotated[TargetType, Field(description="heading, block or frontmatter.")]
PatchTarget = Annotated[
    str,
    Field(
        description=(
            "heading: 'Heading' or 'Parent::Child' (a unique name is enough); block: its id; "
            "frontmatter: the key."
        )
    ),
]
PatchContent = Annotated[str, Field(description="Text to insert, or JSON when contentType=json.")]
PatchContentType = Annotated[
    ContentType,
    Field(description="json: frontmatter values keep their JSON type; [[...]] rows for tables."),
]
CreateTarget = Annotated[bool, Field(description="Create the heading/key if it is missing.")]
Permanent = Annotated[
    bool, Field(description="Skip Obsidian's trash (plugin 5.x); older plugins always delete.")
]


@model_facing_errors
async def create_vault_file(
    ctx: ToolContext,
    filename: Filename,
    content: Content,
    overwrite: Annotated[bool, Field(description="Replace the note if it exists.")] = False,
) -> Blocks:
    """Create a note (and its folders). An existing note is left alone unless overwrite=true;
    to add to a note use append_to_vault_file or patch_vault_file."""
    state = app_state(ctx)
    message = await editing.create_note(state.client, filename, content, overwrite=overwrite)
    state.vault_changed()
    return [text(message)]


@model_facing_errors
async def append_to_vault_file(ctx: ToolContext, filename: Filename, content: Content) -> Blocks:
    """Append text to the end of a note, creating it if it does not exist."""
    state = app_state(ctx)
    message = await editing.append_to_note(state.client, filename, content)
    state.vault_changed()
    return [text(message)]


@model_facing_errors
async def patch_vault_file(
    ctx: ToolContext,
    filename: Filename,
    patchOperation: PatchOperation,
    targetType: PatchTargetType,
    target: PatchTarget,
    content: PatchContent,
    contentType: PatchContentType = "markdown",
    createTargetIfMissing: CreateTarget = False,
) -> Blocks:
    """Insert or replace text relative to a heading, a block reference or a frontmatter key.

    A heading target may be a unique name; an ambiguous one gets an error listing the full
    'Parent::Child' paths (see them with get_vault_file format='map'). The answer shows the
    patched part only.
    """
    state = app_state(ctx)
    spec = PatchSpec(
        patchOperation, targetType, target, content, contentType, createTargetIfMissing
    )
    message = await editing.patch_note(state.client, filename, spec)
    state.vault_changed()
    return [text(message)]


@model_facing_errors
async def delete_vault_file(
    ctx: ToolContext, filename: Filename, permanent: Permanent = False
) -> Blocks:
    """Delete a note: to Obsidian's trash on plugin 5.x unless permanent=true; older plugin
    versions delete permanently, and the answer says so."""
    state = app_state(ctx)
    message = await editing.delete_note(state.client, filename, permanent=permanent)
    state.vault_changed()
    return [text(message)]


@model_facing_errors
async def move_vault_file(
    ctx: ToolContext,
    source: Annotated[str, Field(description="Vault path of the note to move.")],
    destination: Annotated[
        str, Field(description="New vault path; ending in '/' moves it into that folder.")
    ],
    overwrite: Annotated[
        bool,
        Field(description="Replace a note at the destination (deleted first, as delete does)."),
    ] = False,
    dryRun: Annotated[
        bool, Field(description="Only check, and list the links that would be rewritten.")
    ] = False,
) -> Blocks:
    """Move or rename a note; the links to it in other notes follow, as in Obsidian, and the
    answer says which. Plugins before 4.1 copy, verify, then delete (links stay)."""
    state = app_state(ctx)
    message = await editing.move_note(
        state.client, source, destination, overwrite=overwrite, dry_run=dryRun
    )
    if not dryRun:
        state.vault_changed()
    return [text(message)]


@model_facing_errors
async def bulk_delete_files(
    ctx: ToolContext,
    pattern: Annotated[
        str, Field(description="Glob on vault paths, e.g. 'Inbox/*.md', 'Archive/2024/**'.")
    ],
    directory: Annotated[str, Field(description="Only below this folder; '' = root.")] = "",
    exclude: Annotated[str | None, Field(description="Glob of paths to keep.")] = None,
    dryRun: Annotated[bool, Field(description="List what would be deleted (default).")] = True,
    limit: Annotated[int, Field(ge=1, le=REAL_RUN_LIMIT, description="Files per call.")] = 50,
    offset: Annotated[int, Field(ge=0, description="Matches to skip.")] = 0,
    confirmAll: Annotated[
        bool, Field(description="Allow a pattern that matches every file in the vault.")
    ] = False,
) -> Blocks:
    """Delete the files matching a glob, in two steps: first dryRun=true (the default) lists
    them, paged (while pagination.hasMore, offset=pagination.nextOffset); then the same
    arguments with dryRun=false delete up to limit of them. Only files a dry run listed are
    ever deleted; notes tagged mcp-protected or mcp-readonly never are ("kept" names them)."""
    state = app_state(ctx)
    selection = Selection(pattern, directory, exclude)
    if not confirmAll:
        await state.bulk.refuse_whole_vault(selection, await state.bulk.matches(selection))
    if dryRun:
        page, kept = await state.bulk.dry_run(
            selection, limit=limit, offset=offset, budget=items_budget()
        )
        note = (
            f"Nothing was deleted. To delete these {len(page.items)} files, call again with "
            "the same arguments and dryRun=false."
        )
        return json_blocks(page.envelope("files", note=note, kept=kept.as_json()))
    async with progress.reporting(ctx.report_progress):
        run, remaining = await state.bulk.run(
            selection, limit=limit, offset=offset, budget=items_budget(), progress=progress.report
        )
    state.vault_changed()
    return json_blocks(compact_json(run.as_json(remaining)))


TOOLS: list[ToolSpec] = [
    (create_vault_file, titled(DESTRUCTIVE, "Create or replace a note")),
    (append_to_vault_file, titled(WRITE, "Append to a note")),
    (patch_vault_file, titled(DESTRUCTIVE, "Edit part of a note")),
    (delete_vault_file, titled(DESTRUCTIVE, "Delete a note")),
    (move_vault_file, titled(DESTRUCTIVE, "Move or rename a note")),
    (bulk_delete_files, titled(DESTRUCTIVE, "Delete notes by pattern")),
]
