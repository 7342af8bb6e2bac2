"""Search tools: simple text search, structured queries (JsonLogic / Dataview), semantic search."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from vaultgate.calls import Later, Raw, call
from vaultgate.paging import compact_json, page_within_budget
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
from vaultgate.vault.search import QueryType, SimpleHit, SmartMode, scores_order_something

STRUCTURED_RESULT_LIMIT = 1_000
RESULT_CUT_NOTICE = Later(
    lambda: (
        "A row marked resultTruncated (length: its full size) was cut to stay small; "
        f"{call('get_vault_file', filename=Raw('<filename>'), format='json')} reads all of it."
    )
)

# A search answers within the response-size seed's default of about 5,000 characters: 20
# notes with one trimmed context each fit; more contexts or notes are a parameter away.
SEARCH_BUDGET = 5_000

BUDGET_NOTICE = (
    "This page was cut to about {budget} characters because its matches are long; "
    "continue with offset={next_offset}, or lower contextLength / maxMatchesPerFile."
)


@model_facing_errors
async def search_vault_simple(
    ctx: ToolContext,
    query: Annotated[str, Field(description="Words to find (all must occur), case-insensitive.")],
    contextLength: Annotated[
        int, Field(ge=0, le=500, description="Characters of context around each match.")
    ] = 60,
    limit: Annotated[int, Field(ge=1, le=100, description="Notes per page (1-100).")] = 20,
    offset: Annotated[int, Field(ge=0, description="Notes to skip; use nextOffset.")] = 0,
    folder: Annotated[str | None, Field(description="Only notes below this folder.")] = None,
    maxMatchesPerFile: Annotated[
        int, Field(ge=1, le=20, description="Match contexts shown per note (1-20).")
    ] = 1,
    withOffsets: Annotated[bool, Field(description="Matches as {context, start, end}.")] = False,
) -> Blocks:
    """Full-text search over note contents and names, best matches first.

    Each result: filename, score (when scores differ), matchCount (when more matched than
    shown) and matches (maxMatchesPerFile contexts). While nextOffset is given, call
    again with offset=nextOffset (cached, no new search).
    """
    async with reporting(ctx.report_progress):
        await report(0, 1, "searching the vault")
        hits = await app_state(ctx).searcher.simple(
            query, context_length=contextLength, folder=folder
        )
        await report(1, 1, f"{len(hits)} notes match")
    with_score = scores_order_something(hits)

    def render(hit: SimpleHit) -> dict[str, Any]:
        return hit.render(maxMatchesPerFile, with_score=with_score, with_offsets=withOffsets)

    page = page_within_budget(
        hits,
        limit=limit,
        offset=offset,
        budget=items_budget(SEARCH_BUDGET),
        render=lambda hit: compact_json(render(hit)),
    )
    notice = None
    if page.has_more and len(page.items) < min(limit, page.total - offset):
        notice = BUDGET_NOTICE.format(budget=SEARCH_BUDGET, next_offset=page.next_offset)
    return json_blocks(page.envelope("results", [render(hit) for hit in page.items], notice=notice))


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
    limit: Annotated[int, Field(ge=1, le=200, description="Rows per page (1-200).")] = 50,
    offset: Annotated[int, Field(ge=0, description="Rows to skip; use nextOffset.")] = 0,
) -> Blocks:
    """Structured search: which notes match a JsonLogic expression over their metadata.

    The data of each note is {path, content, frontmatter, tags, stat, links}; operators include
    var, ==, in, and, or, glob and regexp. Rows are {filename, result}. While nextOffset
    is given, call again with offset=nextOffset (the result is cached, not searched again).
    """
    async with reporting(ctx.report_progress):
        await report(0, 1, "evaluating the query over every note")
        rows = await app_state(ctx).searcher.structured(query, queryType)
        await report(1, 1, f"{len(rows)} notes match")
    shown = [_bounded_row(row) for row in rows]
    page = page_within_budget(
        shown, limit=limit, offset=offset, budget=items_budget(SEARCH_BUDGET), render=compact_json
    )
    cut = any("resultTruncated" in row for row in page.items)
    return json_blocks(page.envelope("results", notice=str(RESULT_CUT_NOTICE) if cut else None))


@model_facing_errors
async def search_vault_smart(
    ctx: ToolContext,
    query: Annotated[str, Field(description="What you look for, in plain words.")],
    folder: Annotated[str | list[str] | None, Field(description="Only these folders.")] = None,
    excludeFolders: Annotated[list[str] | None, Field(description="Not these folders.")] = None,
    limit: Annotated[int, Field(ge=1, le=50, description="Results per page (1-50).")] = 20,
    offset: Annotated[int, Field(ge=0, description="Results to skip; use nextOffset.")] = 0,
    mode: SmartMode = "hybrid",
) -> Blocks:
    """Find notes by meaning, from the vault folder's index or Smart Connections.

    Rows {path, score, text}. While nextOffset is given, call again with offset=nextOffset.
    """
    # Smart Connections pages nothing: ask for the results up to this page's end
    results, notice = await app_state(ctx).searcher.smart(
        query,
        folders=[folder] if isinstance(folder, str) else folder,
        exclude_folders=excludeFolders,
        limit=offset + limit,
        mode=mode,
    )
    page = page_within_budget(
        results,
        limit=limit,
        offset=offset,
        budget=items_budget(SEARCH_BUDGET),
        render=compact_json,
    )
    return json_blocks(page.envelope("results", notice=notice))


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


def _bounded_row(row: dict[str, Any]) -> dict[str, Any]:
    """A row whose result is huge (e.g. the whole content) is cut; the note can be read in full.
    What a cut means is said once per page (RESULT_CUT_NOTICE), not in every cut row."""
    result = row.get("result")
    rendered = compact_json(result)
    if len(rendered) <= STRUCTURED_RESULT_LIMIT:
        return {"filename": row.get("filename"), "result": result}
    return {
        "filename": row.get("filename"),
        "result": rendered[:STRUCTURED_RESULT_LIMIT],
        "resultTruncated": {"length": len(rendered)},
    }


TOOLS: list[ToolSpec] = [
    (search_vault_simple, titled(READ_ONLY, "Search notes for words")),
    (search_vault, titled(READ_ONLY, "Search notes with a query")),
    (search_vault_smart, titled(READ_ONLY, "Search notes by meaning")),
    (list_tags, titled(READ_ONLY, "List tags")),
]
