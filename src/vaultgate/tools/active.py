"""Tools for the note open in Obsidian, and for opening a note there."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from vaultgate.paths import validate_vault_path
from vaultgate.tools.base import (
    DESTRUCTIVE,
    WRITE,
    Blocks,
    ToolContext,
    ToolSpec,
    app_state,
    model_facing_errors,
    text,
    titled,
)
from vaultgate.tools.edit import (
    Content,
    CreateTarget,
    PatchContent,
    PatchContentType,
    PatchOperation,
    PatchTarget,
    PatchTargetType,
    Permanent,
)
from vaultgate.vault import editing
from vaultgate.vault.editing import PatchSpec


@model_facing_errors
async def update_active_file(ctx: ToolContext, content: Content) -> Blocks:
    """Replace the whole content of the note open in Obsidian."""
    state = app_state(ctx)
    await state.client.write_note(None, content)
    state.vault_changed()
    return [text(f"Replaced the active file's content ({len(content):,} chars).")]


@model_facing_errors
async def append_to_active_file(ctx: ToolContext, content: Content) -> Blocks:
    """Append text to the end of the note open in Obsidian."""
    state = app_state(ctx)
    message = await editing.append_to_note(state.client, None, content)
    state.vault_changed()
    return [text(message)]


@model_facing_errors
async def patch_active_file(
    ctx: ToolContext,
    patchOperation: PatchOperation,
    targetType: PatchTargetType,
    target: PatchTarget,
    content: PatchContent,
    contentType: PatchContentType = "markdown",
    createTargetIfMissing: CreateTarget = False,
) -> Blocks:
    """Insert or replace text relative to a heading, block or frontmatter key of the note open
    in Obsidian, as patch_vault_file does."""
    state = app_state(ctx)
    spec = PatchSpec(
        patchOperation, targetType, target, content, contentType, createTargetIfMissing
    )
    message = await editing.patch_note(state.client, None, spec)
    state.vault_changed()
    return [text(message)]


@model_facing_errors
async def delete_active_file(ctx: ToolContext, permanent: Permanent = False) -> Blocks:
    """Delete the note open in Obsidian (to the trash on plugin 5.x unless permanent=true)."""
    state = app_state(ctx)
    message = await editing.delete_note(state.client, None, permanent=permanent)
    state.vault_changed()
    return [text(message)]


@model_facing_errors
async def show_file_in_obsidian(
    ctx: ToolContext,
    filename: Annotated[str, Field(description="Vault path of the note to open.")],
    newLeaf: Annotated[bool, Field(description="Open it in a new tab.")] = False,
) -> Blocks:
    """Open a note in Obsidian's window (Obsidian creates it if it does not exist)."""
    validate_vault_path(filename)
    state = app_state(ctx)
    await state.client.open_note(filename, new_leaf=newLeaf)
    state.vault_changed()
    return [text(f"Opened {filename!r} in Obsidian{' in a new tab' if newLeaf else ''}.")]


TOOLS: list[ToolSpec] = [
    (update_active_file, titled(DESTRUCTIVE, "Replace the open note")),
    (append_to_active_file, titled(WRITE, "Append to the open note")),
    (patch_active_file, titled(DESTRUCTIVE, "Edit part of the open note")),
    (delete_active_file, titled(DESTRUCTIVE, "Delete the open note")),
    (show_file_in_obsidian, titled(WRITE, "Open a note in Obsidian")),
]
