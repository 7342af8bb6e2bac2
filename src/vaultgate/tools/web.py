"""fetch: a web page as markdown (or as served), windowed like a note."""

from __future__ import annotations

from typing import Annotated

from mcp.types import ToolAnnotations
from pydantic import Field

from vaultgate.tools.base import (
    Blocks,
    ToolContext,
    ToolSpec,
    app_state,
    model_facing_errors,
    titled,
)
from vaultgate.tools.read import window_blocks
from vaultgate.vault.documents import MAX_LENGTH_LIMIT, render_text

# Reads only, but from the open web: a world the server does not control.
FETCH_HINTS = ToolAnnotations(read_only_hint=True, open_world_hint=True)


@model_facing_errors
async def fetch(
    ctx: ToolContext,
    url: Annotated[str, Field(description="An http(s) URL, e.g. 'https://example.com/docs'.")],
    maxLength: Annotated[
        int, Field(ge=1, le=MAX_LENGTH_LIMIT, description="Characters per window (1-100000).")
    ] = 5_000,
    startIndex: Annotated[
        int, Field(ge=0, description="Where the window starts; use nextIndex.")
    ] = 0,
    raw: Annotated[
        bool, Field(description="true: the page as served (HTML source), not converted.")
    ] = False,
) -> Blocks:
    """Fetch a web page and read it as markdown, in windows of maxLength characters.

    A cut window is followed by {truncated, totalLength, startIndex, endIndex, nextIndex,
    hasMore}; when hasMore is true, call again with the same url and startIndex=nextIndex (the
    page is cached for a few minutes, so later windows are not downloaded again). Use raw=true
    for the HTML source. Only http(s); local and private addresses, pages over 5 MB and
    non-text content are refused.
    """
    text = await app_state(ctx).web.text(url, raw=raw)
    return window_blocks(render_text(text, max_length=maxLength, start_index=startIndex))


TOOLS: list[ToolSpec] = [(fetch, titled(FETCH_HINTS, "Fetch a web page"))]
