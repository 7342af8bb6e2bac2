"""Read tools: list folders, read notes (whole, one section, metadata or map), the active note."""

from __future__ import annotations

from typing import Annotated, assert_never

from pydantic import Field

from vaultgate.paging import ANSWER_CAP
from vaultgate.paths import refuse_hidden_pattern, validate_vault_path
from vaultgate.progress import report, reporting
from vaultgate.tools.base import (
    READ_ONLY,
    Blocks,
    ToolContext,
    ToolSpec,
    app_state,
    json_blocks,
    model_facing_errors,
    titled,
    window_blocks,
)
from vaultgate.vault.documents import MAX_LENGTH_LIMIT, NoteFormat, read_document
from vaultgate.vault.listing import (
    Layout,
    compile_glob,
    group_by_folder,
    page_listing,
)

LIST_LIMIT_MAX = 1000
DEFAULT_LIST_LIMIT = 100  # seed 004: "File lists: 100 items"
CHARS_PER_LISTED_ITEM = 100
HARD_BUDGET = 100_000
LISTING_ENVELOPE = 200  # {"files":[…]} and its pagination block, around the files


def list_budget(limit: int) -> int:
    """The characters a page of ``limit`` files may take: about 100 per file, never less than
    seed 004's 50 KB cap (so the default 100 files always fit unless their paths are huge),
    never more than 100,000."""
    return min(HARD_BUDGET, max(ANSWER_CAP, limit * CHARS_PER_LISTED_ITEM)) - LISTING_ENVELOPE


Directory = Annotated[str, Field(description="Vault folder, e.g. 'Projects/Acme'; '' = root.")]
Limit = Annotated[
    int, Field(ge=1, le=LIST_LIMIT_MAX, description="Max files to return (default: 100).")
]
Offset = Annotated[int, Field(ge=0, description="Skip first N files.")]
MaxLength = Annotated[
    int, Field(ge=1, le=MAX_LENGTH_LIMIT, description="Characters per window (1-100000).")
]
StartIndex = Annotated[int, Field(ge=0, description="Where the window starts; use nextIndex.")]
Format = Annotated[
    NoteFormat,
    Field(description="markdown: text; json: frontmatter, tags, stat, links + text; map: outline."),
]
ListLayout = Annotated[
    Layout,
    Field(
        description="flat: 'files' paths; tree: 'folders' {folder: [names]}, each folder once "
        "(cheapest to walk a whole vault: recursive=true, layout='tree', limit=1000)."
    ),
]


@model_facing_errors
async def list_vault_files(
    ctx: ToolContext,
    directory: Directory = "",
    limit: Limit = DEFAULT_LIST_LIMIT,
    offset: Offset = 0,
    pattern: Annotated[
        str | None, Field(description="Glob pattern to filter, e.g. '**/*.md', 'Daily/2026-*'.")
    ] = None,
    recursive: Annotated[bool, Field(description="Every file below the folder.")] = False,
    layout: ListLayout = "flat",
) -> Blocks:
    """List notes and folders in the vault, one page at a time, as vault-relative paths.

    Answers {"files": [...], "pagination": {total, offset, limit, hasMore, nextOffset}}:
    one level by default (folders end with '/'); recursive=true lists every file below the
    folder. While hasMore is true, call again with offset=nextOffset. To walk a whole vault,
    recursive=true with layout='tree' and limit=1000 is cheapest: {"folders": {"Projects/":
    ["a.md"]}} writes each folder once (root '').
    """
    state = app_state(ctx)
    if pattern is not None:
        refuse_hidden_pattern(pattern)
    matcher = compile_glob(pattern) if pattern is not None else None
    snapshot = None  # what a later page cut from an older listing says of it
    if recursive:
        async with reporting(ctx.report_progress):
            listed = await state.lister.listed(directory, report, offset=offset)
        files, snapshot = listed.value, listed.notice
    else:
        async with reporting(ctx.report_progress):
            files = await state.lister.list_folder(directory)
    if matcher is not None:
        files = [path for path in files if matcher(path)]
    page = page_listing(files, limit=limit, offset=offset, budget=list_budget(limit), layout=layout)
    match layout:
        case "flat":
            return json_blocks(page.envelope("files", snapshot=snapshot))
        case "tree":
            folders = group_by_folder(page.items)
            return json_blocks(page.envelope("folders", folders, snapshot=snapshot))
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
    window = await read_document(
        app_state(ctx).client,
        filename,
        note_format=format,
        max_length=maxLength,
        start_index=startIndex,
        section=section,
    )
    return window_blocks(window)


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
    window = await read_document(
        app_state(ctx).client,
        None,
        note_format=format,
        max_length=maxLength,
        start_index=startIndex,
    )
    return window_blocks(window)


TOOLS: list[ToolSpec] = [
    (list_vault_files, titled(READ_ONLY, "List notes and folders")),
    (get_vault_file, titled(READ_ONLY, "Read a note")),
    (get_active_file, titled(READ_ONLY, "Read the open note")),
]
