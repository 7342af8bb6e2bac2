"""Read tools: list folders, read notes (whole, one section, metadata or map), the active note."""

from __future__ import annotations

from typing import Annotated, assert_never

from pydantic import Field

from vaultgate.paging import DEFAULT_RESPONSE_BUDGET
from vaultgate.paths import normalize_directory, refuse_hidden_pattern, validate_vault_path
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
    window_blocks,
)
from vaultgate.vault.documents import MAX_LENGTH_LIMIT, NoteFormat, read_document
from vaultgate.vault.listing import (
    Layout,
    compile_glob,
    default_layout,
    group_by_folder,
    page_listing,
)

LIST_LIMIT_MAX = 1000
DEFAULT_LIST_LIMIT = 100
HARD_BUDGET = 100_000
CHARS_PER_LISTED_ITEM = 100
LISTING_ENVELOPE = 100  # {"folders":{…}}, total and nextOffset, around the files


def page_size(limit: int | None, *, recursive: bool) -> tuple[int, int]:
    """A listing page's (limit, character budget for its files).

    Without a limit a page is the default answer's size: 100 entries of one level, or as many
    files as fit for a recursive listing (a page of 100 files of a deep vault is half that:
    twice the pages to walk). A limit asks for that many items, so the budget grows with it."""
    if limit is None:
        size = LIST_LIMIT_MAX if recursive else DEFAULT_LIST_LIMIT
        return size, DEFAULT_RESPONSE_BUDGET - LISTING_ENVELOPE
    return limit, list_budget(limit)


def list_budget(limit: int) -> int:
    """About 100 characters per requested item, 5,000 at least and never above 100,000."""
    return items_budget(
        min(HARD_BUDGET, max(DEFAULT_RESPONSE_BUDGET, limit * CHARS_PER_LISTED_ITEM))
    )


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
    Layout | None,
    Field(
        description="flat: 'files' paths; tree: 'folders' {folder: [names]}. Default: "
        "tree when recursive."
    ),
]


@model_facing_errors
async def list_vault_files(
    ctx: ToolContext,
    folder: Folder = "",
    recursive: Annotated[bool, Field(description="Every file below the folder.")] = False,
    pattern: Annotated[
        str | None, Field(description="Glob on vault paths, e.g. '**/*.md', 'Daily/2026-*'.")
    ] = None,
    limit: Annotated[
        int | None,
        Field(
            ge=1,
            le=LIST_LIMIT_MAX,
            description="Items per page (1-1000). Default: 100; recursive: as many as fit "
            "in about 5,000 characters.",
        ),
    ] = None,
    offset: Offset = 0,
    layout: ListLayout = None,
) -> Blocks:
    """List notes and folders in the vault, one page at a time, as vault-relative paths.

    One level by default, as {"files": paths} (folders end with '/'); recursive=true lists
    every file below the folder, grouped by folder ({"folders": {"Projects/": ["a.md"]}},
    root ''; layout='flat' gives paths). The first page says the total; while a page has
    nextOffset, call again with offset=nextOffset for the next one.
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
    size, budget = page_size(limit, recursive=recursive)
    shown = layout or default_layout(recursive)
    page = page_listing(files, limit=size, offset=offset, budget=budget, layout=shown)
    listing = (normalize_directory(folder), recursive, pattern)
    tell_total = state.lister.totals.tell(listing, offset=offset, total=page.total)
    match shown:
        case "flat":
            return json_blocks(page.envelope("files", tell_total=tell_total))
        case "tree":
            rendered = group_by_folder(page.items)
            return json_blocks(page.envelope("folders", rendered, tell_total=tell_total))
        case _:
            assert_never(shown)


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
