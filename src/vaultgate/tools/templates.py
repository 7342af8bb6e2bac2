"""Templater templates, through the MCP Tools companion plugin's /templates/execute."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from vaultgate.errors import InvalidArgument
from vaultgate.obsidian.client import template_target
from vaultgate.paging import compact_json, window_text
from vaultgate.paths import validate_vault_path
from vaultgate.tools.base import (
    WRITE,
    Blocks,
    ToolContext,
    ToolSpec,
    app_state,
    model_facing_errors,
    text,
    titled,
)

RENDERED_LIMIT = 10_000


@model_facing_errors
async def execute_template(
    ctx: ToolContext,
    name: Annotated[
        str, Field(description="Vault path of the template, e.g. 'Templates/Meeting.md'.")
    ],
    arguments: Annotated[
        dict[str, str], Field(description="Values for the template's tp.mcpTools.prompt() calls.")
    ] = {},  # noqa: B006 - pydantic copies defaults; the contract's default is {}
    createFile: Annotated[bool, Field(description="Also write the result to targetPath.")] = False,
    targetPath: Annotated[str | None, Field(description="Where to write the result.")] = None,
) -> Blocks:
    """Run a Templater template (needs the MCP Tools and Templater plugins) and return what it
    rendered; with createFile=true and targetPath the result is also saved as a new note
    (.md added)."""
    validate_vault_path(name)
    if createFile and not targetPath:
        raise InvalidArgument(
            "createFile=true needs targetPath, the vault path of the note to create."
        )
    if targetPath is not None:
        validate_vault_path(targetPath)
    state = app_state(ctx)
    result = await state.client.execute_template(
        name, arguments, create_file=createFile, target_path=targetPath
    )
    if createFile:
        state.vault_changed()
    rendered = str(result.get("content", ""))
    window = window_text(rendered, start_index=0, max_length=RENDERED_LIMIT)
    summary = {
        "message": result.get("message"),
        "createdFile": template_target(targetPath) if createFile and targetPath else None,
        "renderedLength": len(rendered),
    }
    blocks = [text(compact_json(summary)), text(window.text)]
    if window.has_more:
        blocks.append(
            text(
                f"The rendered text is cut at {RENDERED_LIMIT:,} characters. "
                + (
                    "Read the created note for all of it."
                    if createFile
                    else "Run again with createFile=true and a targetPath, then read that note."
                )
            )
        )
    return blocks


TOOLS: list[ToolSpec] = [(execute_template, titled(WRITE, "Run a Templater template"))]
