"""Search tools: simple text search, structured queries (JsonLogic / Dataview), semantic search."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from typing import Annotated, Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from vaultgate.calls import Later, Raw, call
from vaultgate.paging import (
    Page,
    compact_json,
    fit_count,
    page_items,
    page_within_budget,
    shorten_to_fit,
)
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
from vaultgate.vault.guard import GuardedClient
from vaultgate.vault.search import (
    SMART_TEXT_LIMIT,
    QueryType,
    SmartMode,
    scores_order_something,
    trim_text,
)

T = TypeVar("T")

STRUCTURED_RESULT_LIMIT = 1_000
RESULT_CUT_NOTICE = Later(
    lambda: (
        "A row marked resultTruncated (length: its full size) was cut to stay small; "
        f"{call('get_vault_file', filename=Raw('<filename>'), format='json')} reads all of it."
    )
)

# Seed 004: "Default response limit: ~5KB", and "Search results: 20 items". A page keeps its
# results and shortens their contexts (down to CONTEXT_FLOOR characters a side) or query rows
# (down to ROW_FLOOR) to come near SEARCH_BUDGET; it never holds fewer results than asked unless
# even then it would pass ANSWER_CAP (then nextOffset says where the rest starts).
SEARCH_BUDGET = 5_000
CONTEXT_FLOOR = 20
ROW_FLOOR = 200
SMART_TEXT_FLOOR = 30

SHORTENED_NOTICE = (
    "Contexts were shortened to {side} characters a side to keep {count} results small; "
    "a lower limit or maxMatchesPerFile shows more of each."
)


@model_facing_errors
async def search_vault_simple(
    ctx: ToolContext,
    query: Annotated[str, Field(description="Words to find (all must occur), case-insensitive.")],
    contextLength: Annotated[
        int, Field(ge=0, le=500, description="Characters of context around each match.")
    ] = 60,
    limit: Annotated[int, Field(ge=1, le=100, description="Max results (default: 20).")] = 20,
    offset: Annotated[int, Field(ge=0, description="Skip first N results.")] = 0,
    directory: Annotated[str | None, Field(description="Only notes below this folder.")] = None,
    maxMatchesPerFile: Annotated[
        int, Field(ge=1, le=20, description="Match contexts shown per note (1-20).")
    ] = 1,
    withOffsets: Annotated[bool, Field(description="Matches as {context, start, end}.")] = False,
) -> Blocks:
    """Full-text search over note contents and names, best matches first.

    Each result: filename, score (when scores differ), matchCount (when more matched than
    shown) and matches (maxMatchesPerFile contexts). While pagination.hasMore is true, call
    again with offset=pagination.nextOffset (cached, no new search).
    """
    async with reporting(ctx.report_progress):
        await report(0, 1, "searching the vault")
        served = await app_state(ctx).searcher.simple(
            query, context_length=contextLength, folder=directory, offset=offset
        )
        hits = served.value
        await report(1, 1, f"{len(hits)} notes match")
    with_score = scores_order_something(hits)
    page = page_items(hits, limit=limit, offset=offset)

    def render(side: int) -> list[str]:
        shown_side = None if side >= contextLength else side
        return [
            compact_json(
                hit.render(
                    maxMatchesPerFile,
                    with_score=with_score,
                    with_offsets=withOffsets,
                    shown_side=shown_side,
                )
            )
            for hit in page.items
        ]

    side, rendered = shorten_to_fit(
        render,
        start=contextLength,
        floor=min(contextLength, CONTEXT_FLOOR),
        budget=items_budget(SEARCH_BUDGET),
    )
    page = _capped(page, rendered)
    notice = None
    if side < contextLength:
        notice = SHORTENED_NOTICE.format(side=side, count=len(page.items))
    rows = [json.loads(text) for text in rendered[: len(page.items)]]
    rows, withheld = await _without_hidden_since(
        ctx, offset, rows, [hit.filename for hit in page.items]
    )
    notice = " ".join(filter(None, (notice, withheld))) or None
    return json_blocks(page.envelope("results", rows, notice=notice, snapshot=served.notice))


@model_facing_errors
async def search_vault(
    ctx: ToolContext,
    query: Annotated[
        str | dict[str, Any],
        Field(
            description=(
                'JsonLogic (JSON), e.g. {"glob": ["Projects/**", {"var": "path"}]}, '
                "or Dataview DQL text (plugin < 4.0)."
            )
        ),
    ],
    queryType: Annotated[QueryType, Field(description="jsonlogic or dataview.")] = "jsonlogic",
    limit: Annotated[int, Field(ge=1, le=200, description="Max results (default: 50).")] = 50,
    offset: Annotated[int, Field(ge=0, description="Skip first N results.")] = 0,
) -> Blocks:
    """Structured search: which notes match a JsonLogic expression over their metadata.

    The data of each note is {path, content, frontmatter, tags, stat, links}; operators include
    var, ==, in, and, or, glob and regexp. Rows are {filename, result}. While
    pagination.hasMore is true, call again with offset=pagination.nextOffset (cached).
    """
    async with reporting(ctx.report_progress):
        await report(0, 1, "evaluating the query over every note")
        served = await app_state(ctx).searcher.structured(query, queryType, offset=offset)
        rows = served.value
        await report(1, 1, f"{len(rows)} notes match")
    page = page_items(rows, limit=limit, offset=offset)
    _, rendered = shorten_to_fit(
        lambda room: [compact_json(_bounded_row(row, room)) for row in page.items],
        start=STRUCTURED_RESULT_LIMIT,
        floor=ROW_FLOOR,
        budget=items_budget(SEARCH_BUDGET),
    )
    page = _capped(page, rendered)
    shown = [json.loads(text) for text in rendered[: len(page.items)]]
    cut = any("resultTruncated" in row for row in shown)
    shown, withheld = await _without_hidden_since(
        ctx, offset, shown, [str(row.get("filename", "")) for row in page.items]
    )
    notice = " ".join(filter(None, (str(RESULT_CUT_NOTICE) if cut else None, withheld)))
    return json_blocks(
        page.envelope("results", shown, notice=notice or None, snapshot=served.notice)
    )


WITHHELD_SINCE = (
    "{count} result(s) of this page were left out: they are now outside what you may reach."
)


async def _without_hidden_since(
    ctx: ToolContext, offset: int, rows: list[Any], paths: Sequence[str]
) -> tuple[list[Any], str | None]:
    """A later page comes from its first page's snapshot: a note tagged mcp-hidden since shows
    none of its text. Its row is left out (the page keeps its place in the walk: pagination
    is the snapshot's)."""
    client = app_state(ctx).client
    if offset == 0 or not rows or not isinstance(client, GuardedClient):
        return rows, None  # a first page was just computed, through the guard
    hidden = await client.hidden_now(paths[: len(rows)])
    if not hidden:
        return rows, None
    kept = [row for row, path in zip(rows, paths, strict=False) if path not in hidden]
    return kept, WITHHELD_SINCE.format(count=len(rows) - len(kept))


SMART_LIMIT_MAX = 50


class SmartFilter(BaseModel):
    """Where to look, and how many results (seed 004's filter)."""

    model_config = ConfigDict(extra="forbid")

    folders: Annotated[list[str] | None, Field(description="Only these folders.")] = None
    excludeFolders: Annotated[list[str] | None, Field(description="Not these folders.")] = None
    limit: Annotated[
        int | None, Field(ge=1, le=SMART_LIMIT_MAX, description="Max results (default: 20).")
    ] = None


@model_facing_errors
async def search_vault_smart(
    ctx: ToolContext,
    query: Annotated[str, Field(description="What you look for, in plain words.")],
    filter: Annotated[
        SmartFilter | None, Field(description="{folders, excludeFolders, limit}.")
    ] = None,
    limit: Annotated[
        int, Field(ge=1, le=SMART_LIMIT_MAX, description="Max results (default: 20).")
    ] = 20,
    offset: Annotated[int, Field(ge=0, description="Skip first N results.")] = 0,
    mode: SmartMode = "hybrid",
) -> Blocks:
    """Find notes by meaning, from the vault folder's index or Smart Connections.

    Rows {path, score, text}. filter={folders, excludeFolders, limit} narrows it (limit there
    or here: the seed's filter.limit wins). While pagination.hasMore is true, call again with
    offset=pagination.nextOffset.
    """
    chosen = filter or SmartFilter()
    if chosen.limit is not None:
        limit = chosen.limit
    # Smart Connections pages nothing: ask for the results up to this page's end, and one
    # more, which says whether there are more
    results, notice, complete = await app_state(ctx).searcher.smart(
        query,
        folders=chosen.folders,
        exclude_folders=chosen.excludeFolders,
        limit=offset + limit + 1,
        mode=mode,
    )
    page = page_items(results, limit=limit, offset=offset)
    if not complete:
        page = dataclasses.replace(page, total_known=False)
    _, rendered = shorten_to_fit(
        lambda room: [compact_json(_with_shorter_text(row, room)) for row in page.items],
        start=SMART_TEXT_LIMIT,
        floor=SMART_TEXT_FLOOR,
        budget=items_budget(SEARCH_BUDGET),
    )
    page = _capped(page, rendered)
    rows = [json.loads(text) for text in rendered[: len(page.items)]]
    return json_blocks(page.envelope("results", rows, notice=notice))


def _with_shorter_text(row: Any, room: int) -> Any:
    """A smart search row whose ``text`` is cut to whole words within ``room`` characters."""
    if not isinstance(row, dict) or not isinstance(row.get("text"), str):
        return row
    return {**row, "text": trim_text(row["text"], room)}


@model_facing_errors
async def list_tags(
    ctx: ToolContext,
    prefix: Annotated[
        str | None, Field(description="Only tags starting with this, e.g. 'project/'.")
    ] = None,
    limit: Annotated[int, Field(ge=1, le=1000, description="Tags per page.")] = 100,
    offset: Annotated[int, Field(ge=0, description="Tags to skip; use nextOffset.")] = 0,
) -> Blocks:
    """The vault's tags with how many notes use each, most used first (plugin 3.5+). A nested
    tag like 'a/b' also counts for 'a'. While nextOffset is given, call again with
    offset=nextOffset."""
    async with reporting(ctx.report_progress):
        tags = await app_state(ctx).client.list_tags()
    wanted = (prefix or "").removeprefix("#")
    counts = sorted(
        (
            (int(tag.get("count", 0)), str(tag.get("name", "")))
            for tag in tags
            if str(tag.get("name", "")).startswith(wanted)
        ),
        key=lambda pair: (-pair[0], pair[1]),
    )
    rows = [{"name": name, "count": count} for count, name in counts]
    page = page_within_budget(
        rows, limit=limit, offset=offset, budget=items_budget(), render=compact_json
    )
    return json_blocks(page.envelope("tags"))


def _bounded_row(row: dict[str, Any], room: int = STRUCTURED_RESULT_LIMIT) -> dict[str, Any]:
    """A row whose result is over ``room`` characters (e.g. the whole content) is cut; the note
    can be read in full. What a cut means is said once per page (RESULT_CUT_NOTICE), not in
    every cut row."""
    result = row.get("result")
    rendered = compact_json(result)
    if len(rendered) <= room:
        return {"filename": row.get("filename"), "result": result}
    return {
        "filename": row.get("filename"),
        "result": rendered[:room],
        "resultTruncated": {"length": len(rendered)},
    }


def _capped(page: Page[T], rendered: Sequence[str]) -> Page[T]:
    """``page`` cut where its ``rendered`` items pass the answer's hard cap (ANSWER_CAP), so
    that even huge results come in pages; nextOffset then points at the first one left out."""
    kept = fit_count(rendered, items_budget())
    if kept == len(page.items):
        return page
    return dataclasses.replace(page, items=page.items[:kept])


TOOLS: list[ToolSpec] = [
    (search_vault_simple, titled(READ_ONLY, "Search notes for words")),
    (search_vault, titled(READ_ONLY, "Search notes with a query")),
    (search_vault_smart, titled(READ_ONLY, "Search notes by meaning")),
    (list_tags, titled(READ_ONLY, "List tags")),
]
