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
    url: str,
    maxLength: Annotated[int, Field(ge=1, le=MAX_LENGTH_LIMIT)] = 5_000,
    startIndex: Annotated[int, Field(ge=0)] = 0,
    raw: bool = False,
) -> Blocks:
    """A public web page as markdown (raw=true: HTML); if hasMore, startIndex=nextIndex."""
    text = await app_state(ctx).web.text(url, raw=raw)
    return window_blocks(render_text(text, max_length=maxLength, start_index=startIndex))


TOOLS: list[ToolSpec] = [(fetch, titled(FETCH_HINTS, "Fetch a web page"))]
