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
    window_blocks,
)
from vaultgate.vault.documents import MAX_LENGTH_LIMIT, render_text

# Reads only, but from the open web: a world the server does not control.
FETCH_HINTS = ToolAnnotations(read_only_hint=True, open_world_hint=True)


@model_facing_errors
async def fetch(
    ctx: ToolContext,
    url: Annotated[str, Field(description="http(s) only; private addresses are refused.")],
    maxLength: Annotated[int, Field(ge=1, le=MAX_LENGTH_LIMIT)] = 5_000,
    startIndex: Annotated[int, Field(ge=0, description="Use nextIndex.")] = 0,
    raw: Annotated[bool, Field(description="The HTML source, not markdown.")] = False,
) -> Blocks:
    """A web page as markdown (raw=true: its HTML), in windows of maxLength characters.

    A cut window is followed by {truncated, ..., nextIndex, hasMore}: call again with the same
    url and startIndex=nextIndex (the page is cached meanwhile). Public http(s) text pages up
    to 5 MB only.
    """
    text = await app_state(ctx).web.text(url, raw=raw)
    return window_blocks(render_text(text, max_length=maxLength, start_index=startIndex))


TOOLS: list[ToolSpec] = [(fetch, titled(FETCH_HINTS, "Fetch a web page"))]
