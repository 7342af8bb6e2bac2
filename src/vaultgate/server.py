"""build_server(settings): the MCP server, its lifespan, its instructions and its tools."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import httpx
from mcp.server.mcpserver import MCPServer

from vaultgate import __version__
from vaultgate.config import Settings
from vaultgate.obsidian.client import ObsidianClient
from vaultgate.obsidian.transport import build_http_client
from vaultgate.state import AppState
from vaultgate.tools import info, read, search

INSTRUCTIONS = """\
vaultgate reaches the user's Obsidian vault through the Local REST API plugin. Every response is
bounded so it never floods your context:
- Lists and searches come in pages: {"<items>": [...], "pagination": {total, offset, limit,
  hasMore}, "nextOffset"}. When hasMore is true, call again with offset=nextOffset.
- Note content comes in windows: a text block, then {truncated, totalLength, startIndex, endIndex,
  nextIndex, hasMore}. When hasMore is true, call again with startIndex=nextIndex.
Work from small to large: list_vault_files or search_vault_simple to find notes, then
get_vault_file with format='map' to see a long note's headings, then section='Heading' (or
'Parent::Child') to read only the part you need. Paths are vault-relative, e.g.
'Projects/plan.md'. get_server_info tells which features the user's plugin version has.
"""


def build_server(
    settings: Settings, *, transport: httpx.AsyncBaseTransport | None = None
) -> MCPServer:
    """The server for ``settings``; ``transport`` lets tests route HTTP without a network."""

    @asynccontextmanager
    async def lifespan(_server: MCPServer) -> AsyncIterator[AppState]:
        http = await build_http_client(settings.obsidian, transport=transport)
        client = ObsidianClient(settings.obsidian, http)
        try:
            yield AppState.create(settings, client)
        finally:
            await client.aclose()

    server = MCPServer(
        "vaultgate",
        version=__version__,
        instructions=INSTRUCTIONS,
        lifespan=lifespan,
    )
    for module in (read, search, info):
        module.register(server)
    return server
