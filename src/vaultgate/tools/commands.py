"""Obsidian's command palette: list the commands and run one."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from vaultgate.paging import compact_json, page_within_budget
from vaultgate.tools.base import (
    ANYTHING,
    READ_ONLY,
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


@model_facing_errors
async def list_commands(
    ctx: ToolContext,
    filter: Annotated[
        str | None, Field(description="Only commands whose id or name contains this.")
    ] = None,
    limit: Annotated[int, Field(ge=1, le=500, description="Commands per page.")] = 100,
    offset: Annotated[int, Field(ge=0, description="Commands to skip; use nextOffset.")] = 0,
) -> Blocks:
    """Obsidian's commands as {id, name}, sorted by id. Run one with
    execute_command(commandId=<id>). While nextOffset is given, call again with
    offset=nextOffset."""
    commands = await app_state(ctx).client.list_commands()
    if filter:
        needle = filter.casefold()
        commands = [
            c
            for c in commands
            if needle in str(c.get("id", "")).casefold()
            or needle in str(c.get("name", "")).casefold()
        ]
    commands = sorted(
        ({"id": c.get("id"), "name": c.get("name")} for c in commands),
        key=lambda c: str(c["id"]),
    )
    page = page_within_budget(
        commands, limit=limit, offset=offset, budget=items_budget(), render=compact_json
    )
    return json_blocks(page.envelope("commands"))


@model_facing_errors
async def execute_command(
    ctx: ToolContext,
    commandId: Annotated[str, Field(description="A command id from the command list.")],
) -> Blocks:
    """Run an Obsidian command by id, as if picked from the command palette."""
    await app_state(ctx).client.execute_command(commandId)
    app_state(ctx).vault_changed()  # a command may change any note
    return [text(f"Ran the command {commandId!r}.")]


TOOLS: list[ToolSpec] = [
    (list_commands, titled(READ_ONLY, "List Obsidian commands")),
    (execute_command, titled(ANYTHING, "Run an Obsidian command")),
]
