"""Read tools: list folders, read notes (whole, one section, metadata or map), the active note."""

from __future__ import annotations

from typing import Annotated, assert_never

from pydantic import Field

from vaultgate.paging import page_fitting
from vaultgate.paths import refuse_hidden_pattern, validate_vault_path
from vaultgate.progress import report, reporting
from vaultgate.tools.base import (
    READ_ONLY,
    RESPONSE_BUDGET,
    Blocks,
    ToolContext,
    ToolSpec,
    app_state,
    items_budget,
    json_blocks,
    model_facing_errors,
    titled,
    window_blocks,
)
from vaultgate.vault.documents import MAX_LENGTH_LIMIT, NoteFormat, read_document
from vaultgate.vault.listing import Layout, compile_glob, group_by_folder, listing_costs

LIST_LIMIT_MAX = 1000
HARD_BUDGET = 100_000
CHARS_PER_LISTED_ITEM = 100


def list_budget(limit: int) -> int:
    """About 100 characters per requested item: 12,000 by default, never above 100,000."""
    return items_budget(min(HARD_BUDGET, max(RESPONSE_BUDGET, limit * CHARS_PER_LISTED_ITEM)))


Folder = Annotated[str, Field(description="Vault folder, e.g. 'Projects/Acme'; '' = root.")]
Limit = Annotated[int, Field(ge=1, le=LIST_LIMIT_MAX, description="Items per page (1-1000).")]
Offset = Annotated[int, Field(ge=0, description="Items to skip; use nextOffset to continue.")]
MaxLength = Annotated[
    int, Field(ge=1, le=MAX_LENGTH_LIMIT, description="Characters per window (1-100000).")
]
StartIndex = Annotated[int, Field(ge=0, description="Where the window starts; use nextIndex.")]
Format = Annotated[
    NoteFormat,
    Field(description="markdown: text; json: frontmatter, tags, stat, links + text; map: outline."),
]
ListLayout = Annotated[
    Layout, Field(description="flat: 'files' paths; tree: 'folders' {folder: [names]}.")
]


@model_facing_errors
async def list_vault_files(
    ctx: ToolContext,
    folder: Folder = "",
    recursive: Annotated[bool, Field(description="Every file below the folder.")] = False,
    pattern: Annotated[
        str | None, Field(description="Glob on vault paths, e.g. '**/*.md', 'Daily/2026-*'.")
    ] = None,
    limit: Limit = 100,
    offset: Offset = 0,
    layout: ListLayout = "flat",
) -> Blocks:
    """List notes and folders in the vault, one page at a time, as vault-relative paths.

    One level by default (folders end with '/'); recursive=true lists every file below the
    folder. layout='tree' groups the page by folder ({"folders": {"Projects/": ["a.md"]}},
    root ''): about 40% fewer characters when folders hold several files. When
    pagination.hasMore is true, call again with offset=nextOffset (the same in both layouts).
    """
    state = app_state(ctx)
    if pattern is not None:
        refuse_hidden_pattern(pattern)
    matcher = compile_glob(pattern) if pattern is not None else None
    if recursive:
        async with reporting(ctx.report_progress):
            files = await state.lister.list_recursive(folder, report)
    else:
        async with reporting(ctx.report_progress):
            files = await state.lister.list_folder(folder)
    if matcher is not None:
        files = [path for path in files if matcher(path)]
    page = page_fitting(
        files, limit=limit, offset=offset, budget=list_budget(limit), render_page=listing_costs
    )
    match layout:
        case "flat":
            return json_blocks(page.envelope("files"))
        case "tree":
            return json_blocks(page.envelope("folders", group_by_folder(page.items)))
        case _:
            assert_never(layout)


@model_facing_errors
async def get_vault_file(
    ctx: ToolContext,
    filename: Annotated[
        str, Field(description="Vault path of the note, e.g. 'Daily/2026-11-21.md'.")
    ],
    format: Format = "markdown",
    maxLength: MaxLength = 10_000,
    startIndex: StartIndex = 0,
    section: Annotated[
        str | None,
        Field(description="Only this heading's section: 'Heading' or 'Parent::Child'."),
    ] = None,
) -> Blocks:
    """Read a note in windows of maxLength characters.

    A cut window is followed by {truncated, totalLength, startIndex, endIndex, nextIndex,
    hasMore}; when hasMore is true, call again with startIndex=nextIndex. Use section= to read
    one heading's part of a long note, and format='map' first to see its headings.
    """
    validate_vault_path(filename)
    document = await read_document(
        app_state(ctx).client,
        filename,
        note_format=format,
        max_length=maxLength,
        start_index=startIndex,
        section=section,
    )
    return window_blocks(document)


@model_facing_errors
async def get_active_file(
    ctx: ToolContext,
    format: Format = "markdown",
    maxLength: MaxLength = 10_000,
    startIndex: StartIndex = 0,
) -> Blocks:
    """Read the note currently open in Obsidian, windowed like get_vault_file.

    A cut window is followed by a metadata block; when its hasMore is true, call again with
    startIndex=nextIndex.
    """
    document = await read_document(
        app_state(ctx).client,
        None,
        note_format=format,
        max_length=maxLength,
        start_index=startIndex,
    )
    return window_blocks(document)


TOOLS: list[ToolSpec] = [
    (list_vault_files, titled(READ_ONLY, "List notes and folders")),
    (get_vault_file, titled(READ_ONLY, "Read a note")),
    (get_active_file, titled(READ_ONLY, "Read the open note")),
]
