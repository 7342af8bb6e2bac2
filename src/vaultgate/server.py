"""build_server(settings): the MCP server, its lifespan, its instructions and its tools."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import httpx
from mcp.server.mcpserver import MCPServer

from vaultgate import __version__
from vaultgate.config import Settings
from vaultgate.obsidian.transport import build_http_client
from vaultgate.state import AppState
from vaultgate.tools import active, commands, edit, info, periodic, read, search, templates, web
from vaultgate.tools.base import ToolSpec
from vaultgate.vault.guard import GuardedClient
from vaultgate.vault.policy import AccessPolicy

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


TOOL_MODULES = (read, search, info, edit, active, commands, periodic, templates, web)


def build_server(
    settings: Settings, *, transport: httpx.AsyncBaseTransport | None = None
) -> MCPServer:
    """The server for ``settings``; ``transport`` lets tests route HTTP without a network."""
    policy = AccessPolicy(settings.safety)

    @asynccontextmanager
    async def lifespan(_server: MCPServer) -> AsyncIterator[AppState]:
        http = await build_http_client(settings.obsidian, transport=transport)
        client = GuardedClient(settings.obsidian, http, policy)
        state = AppState.create(settings, client)
        try:
            yield state
        finally:
            await state.web.aclose()
            await client.aclose()

    server = MCPServer(
        "vaultgate",
        version=__version__,
        instructions=INSTRUCTIONS,
        lifespan=lifespan,
    )
    for tool, hints in available_tools(settings):
        server.add_tool(tool, annotations=hints, structured_output=False)
    return server


def available_tools(settings: Settings) -> list[ToolSpec]:
    """Every tool, less the ones that write when the server is read-only."""
    tools = [spec for module in TOOL_MODULES for spec in module.TOOLS]
    if settings.safety.read_only:
        return [spec for spec in tools if spec[1].read_only_hint]
    return tools
