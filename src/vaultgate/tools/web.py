"""fetch: a web page as markdown (or as served), windowed in seed 004's own fetch pattern.

Seed 004 names fetch's answer as the pattern the read tools adopt ("Adopt fetch tool approach"),
so fetch keeps it as written: the window with the truncation notice in an ``<error>`` element
after it, then ``Pagination: {...}``. Unlike the seed's sketch, ``endIndex`` and ``nextIndex``
count the page's characters only, never the notice, so a walk's windows still join exactly once
the notice is taken off.
"""

from __future__ import annotations

from typing import Annotated

from mcp.types import ToolAnnotations
from pydantic import Field

from vaultgate.paging import Window, compact_json, truncation_notice, window_text
from vaultgate.tools.base import (
    Blocks,
    ToolContext,
    ToolSpec,
    app_state,
    model_facing_errors,
    text,
    titled,
)
from vaultgate.vault.documents import MAX_LENGTH_LIMIT

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
    page = await app_state(ctx).web.text(url, raw=raw)
    window = window_text(page, start_index=startIndex, max_length=maxLength)
    return [text(part) for part in fetch_parts(window)]


def fetch_parts(window: Window) -> list[str]:
    """Seed 004's fetch answer: a page that fits is its text alone; else the window (and, when
    more remains, ``<error>Content truncated. Call with startIndex of E to get more.</error>``
    after a blank line), then ``Pagination: {truncated, totalLength, startIndex, endIndex,
    nextIndex, hasMore}``."""
    if not window.truncated:
        return [window.text]
    body = window.text
    if window.has_more:
        body += f"\n\n<error>{truncation_notice(window.end_index)}</error>"
    return [body, f"Pagination: {compact_json(window.metadata())}"]


TOOLS: list[ToolSpec] = [(fetch, titled(FETCH_HINTS, "Fetch a web page"))]
