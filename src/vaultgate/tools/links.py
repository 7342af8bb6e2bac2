"""Link tools: broken links, orphans, and the backlinks of a note, each one page at a time."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any, Protocol

from pydantic import Field

from vaultgate.paging import Page, compact_json, fit_count, page_items, page_within_budget
from vaultgate.paths import validate_vault_path
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
from vaultgate.vault import links
from vaultgate.vault.listing import ProgressCallback

Directory = Annotated[str | None, Field(description="Only notes below this folder.")]
Offset = Annotated[int, Field(ge=0, description="Items to skip; use nextOffset.")]


class _Shown(Protocol):
    def render(self) -> dict[str, Any]: ...


@model_facing_errors
async def find_broken_links(
    ctx: ToolContext,
    directory: Directory = None,
    limit: Annotated[int, Field(ge=1, le=500, description="Notes per page (1-500).")] = 50,
    offset: Offset = 0,
) -> Blocks:
    """Links and embeds whose target does not exist, grouped by note: each note lists its
    broken link texts (count: how many, when more than 20). Slow on a large vault before
    plugin 5.0 (every note is read). While pagination.hasMore is true, call again with
    offset=pagination.nextOffset."""
    state = app_state(ctx)
    async with reporting(ctx.report_progress):
        await report(0, None, "reading every note's links")
        found = await links.broken_links(state.links, directory, _progress(), offset=offset)
    return _page("notes", found.value, limit, offset, found.notice)


@model_facing_errors
async def find_orphans(
    ctx: ToolContext,
    directory: Annotated[str | None, Field(description="Only files below this folder.")] = None,
    limit: Annotated[int, Field(ge=1, le=1000, description="Files per page (1-1000).")] = 100,
    offset: Offset = 0,
) -> Blocks:
    """Notes no other note links to, then attachments no note links to or embeds
    ({path, kind}). Lists every file, which takes a while on a large vault through the
    plugin. While pagination.hasMore is true, call again with offset=pagination.nextOffset."""
    state = app_state(ctx)
    async with reporting(ctx.report_progress):
        await report(0, None, "reading every note's links")
        found = await links.orphans(state.links, directory, _progress(), offset=offset)
    return _page("orphans", found.value, limit, offset, found.notice)


@model_facing_errors
async def get_backlinks(
    ctx: ToolContext,
    filename: Annotated[str, Field(description="Vault path of the note, e.g. 'People/Ann.md'.")],
    limit: Annotated[int, Field(ge=1, le=50, description="Linking notes per page (1-50).")] = 20,
    offset: Offset = 0,
) -> Blocks:
    """The notes that link to a note, each with up to 3 of its lines holding the link
    (count: how many, when more). While pagination.hasMore is true, call again with
    offset=pagination.nextOffset."""
    validate_vault_path(filename)
    state = app_state(ctx)
    async with reporting(ctx.report_progress):
        sources = await links.backlinking_notes(state.links, filename, _progress(), offset=offset)
        page = page_items(sources.value, limit=limit, offset=offset)
        found = await links.with_lines(state.client, page.items, filename)
    rendered = [item.render() for item in found]
    kept = fit_count(map(compact_json, rendered), items_budget())
    shown = Page(items=found[:kept], total=page.total, offset=offset, limit=limit)
    return json_blocks(shown.envelope("backlinks", rendered[:kept], snapshot=sources.notice))


def _page(
    key: str, found: Sequence[_Shown], limit: int, offset: int, snapshot: str | None
) -> Blocks:
    """One page of ``found`` under ``key``, within the response budget; ``snapshot``: what
    a later page cut from an older answer says of it."""
    page = page_within_budget(
        found,
        limit=limit,
        offset=offset,
        budget=items_budget(),
        render=lambda item: compact_json(item.render()),
    )
    rendered = [item.render() for item in page.items]
    return json_blocks(page.envelope(key, rendered, snapshot=snapshot))


def _progress() -> ProgressCallback:
    """The domain's steps (a search, then each folder a walk lists) as one rising count: MCP
    progress must increase with each notification, and the total is not known ahead."""
    steps = 0

    async def progress(done: int, total: int | None, message: str) -> None:
        nonlocal steps
        steps += 1
        await report(steps, None, message)

    return progress


TOOLS: list[ToolSpec] = [
    (find_broken_links, titled(READ_ONLY, "Find broken links")),
    (find_orphans, titled(READ_ONLY, "Find orphan notes and attachments")),
    (get_backlinks, titled(READ_ONLY, "List backlinks of a note")),
]
