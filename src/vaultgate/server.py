"""build_server(settings): the MCP server, its lifespan, its instructions and its tools."""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
from mcp.server.context import CallNext, HandlerResult, ServerMiddleware, ServerRequestContext
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, InputRequiredResult, ToolAnnotations
from mcp.types import Tool as MCPTool
from pydantic import BaseModel

from vaultgate import __version__
from vaultgate.calls import spelled_by
from vaultgate.config import Settings
from vaultgate.errors import InvalidArgument
from vaultgate.obsidian.transport import build_http_client
from vaultgate.state import AppState
from vaultgate.tools.base import ToolFunction
from vaultgate.tools.dispatch import accepted_parameters
from vaultgate.tools.parameters import refuse_unknown
from vaultgate.tools.registry import select_tools
from vaultgate.tools.routes import tool_parameters
from vaultgate.tools.schema import tidy_schema
from vaultgate.tools.spelling import OfferedTools
from vaultgate.vault.guard import GuardedClient
from vaultgate.vault.policy import AccessPolicy

INSTRUCTIONS = """\
Start with discover(): it lists every operation with its parameters (discover(operation=
'vault.read') explains one) and which features the user's plugin version has. Hints in errors
name single tools (list_vault_files, get_vault_file, ...); when only the dispatchers are
offered, use the vault operation discover lists for that tool (list, read, ...).

vaultgate reaches the user's Obsidian vault through the Local REST API plugin. Every response is
bounded so it never floods your context:
- Lists and searches come in pages: {"<items>": [...], "pagination": {total, offset, limit,
  hasMore}, "nextOffset"}. When hasMore is true, call again with offset=nextOffset.
- Note content comes in windows: a text block, then {truncated, totalLength, startIndex, endIndex,
  nextIndex, hasMore}. When hasMore is true, call again with startIndex=nextIndex.
Work from small to large: vault(operation='list') or vault(operation='search') to find notes
(list_vault_files / search_vault_simple when single tools are enabled), then
vault(operation='map') to see a long note's headings, then vault(operation='read',
section='Heading' or 'Parent::Child') to read only the part you need. Paths are
vault-relative, e.g. 'Projects/plan.md'.

Memory (the mem_* tools) keeps what you learn across sessions, in a local database. Find before
you read, in three steps: mem_search with detail_level='summary' (ids, types, titles: a compact
index), then mem_timeline(observation_id) for what happened around a hit in its session, then
mem_get_observation(s) for the full text of the few that matter. detail_level: 'summary' to scan
cheaply; 'standard' (default) for short snippets; 'full' only when you need whole texts. A line
'Showing X of Y ...' means more exist than were shown: raise limit, add words, or open ids. A
'Token budget' line means max_tokens cut the list: raise it or use summary. Start work on a
project with mem_context; save decisions, fixes and discoveries with mem_save (a topic_key
updates one memory in place instead of adding another). To shrink old memory, call mem_compact
with older_than_days only to list candidates, review them, then call it again with compact_ids
and a summary that keeps what still matters: all of it happens in one transaction.

For spec-driven work, call sdd_context_check(change_description) before starting a change: it
lists matching changes, their artifacts and related memories. sdd_get_context defaults to
detail_level='summary' (stages and sizes); narrow it with change= and stage=, and use 'full' to
read an artifact.
"""


# The answers that carry the server's capabilities (the handshake, and its successor).
_CAPABILITY_ANSWERS = ("initialize", "server/discover")


def advertise_only_what_exists(server: MCPServer) -> ServerMiddleware[Any]:
    """A middleware that leaves the prompts and resources capabilities out while ``server``
    has none: MCPServer always answers prompts/list and resources/list, so it always
    advertises both, and a host then shows empty Prompts and Resources menus."""

    async def middleware(ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        result = await call_next(ctx)
        if ctx.method not in _CAPABILITY_ANSWERS or result is None:
            return result
        # the answer may come as a model or already as its wire dict
        data = (
            result.model_dump(by_alias=True, mode="json", exclude_none=True)
            if isinstance(result, BaseModel)
            else dict(result)
        )
        capabilities = dict(data.get("capabilities") or {})
        if not await server.list_prompts():
            capabilities.pop("prompts", None)
        if not await server.list_resources() and not await server.list_resource_templates():
            capabilities.pop("resources", None)
        return {**data, "capabilities": capabilities}

    return middleware


class VaultgateServer(MCPServer):
    """MCPServer whose tools/list carries tidied schemas (see tools/schema.py) and
    descriptions without docstring indentation, and whose tool calls refuse parameters they
    do not take and name, in every hint, calls this server offers (vaultgate.calls)."""

    def __init__(self, *args: Any, spelling: OfferedTools, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.spelling = spelling
        self.parameters: dict[str, list[str]] = {}

    def add_vaultgate_tool(self, tool: ToolFunction, hints: ToolAnnotations) -> None:
        # The title rides in the annotations of each ToolSpec; it is sent once, as the tool's
        # own title, which is what hosts show (annotations.title is its older spelling).
        bare = hints.model_copy(update={"title": None})
        self.add_tool(tool, title=hints.title, annotations=bare, structured_output=False)
        self.parameters[tool.__name__] = tool_parameters(tool)

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> CallToolResult | InputRequiredResult:
        with spelled_by(self.spelling):
            own = self.parameters.get(name)  # None: an unknown tool, which the SDK answers
            if own is not None:
                call, accepted = accepted_parameters(name, arguments, own)
                try:
                    refuse_unknown(call, arguments, accepted)
                except InvalidArgument as exc:
                    raise ToolError(str(exc)) from exc
            return await super().call_tool(name, arguments, context)

    async def list_tools(self) -> list[MCPTool]:
        return [
            tool.model_copy(
                update={
                    "input_schema": tidy_schema(tool.input_schema),
                    # Python 3.11 keeps docstring indentation; the model needs none of it.
                    "description": inspect.cleandoc(tool.description or ""),
                }
            )
            for tool in await super().list_tools()
        ]


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
            await state.memory.aclose()
            await state.web.aclose()
            await client.aclose()

    tools = select_tools(settings)
    spelling = OfferedTools(frozenset(tool.__name__ for tool, _ in tools))
    server = VaultgateServer(
        "vaultgate",
        version=__version__,
        instructions=INSTRUCTIONS,
        lifespan=lifespan,
        spelling=spelling,
    )
    server.middleware.append(advertise_only_what_exists(server))
    for tool, hints in tools:
        server.add_vaultgate_tool(tool, hints)
    return server
