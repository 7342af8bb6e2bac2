"""build_server(settings): the MCP server, its lifespan, its instructions and its tools."""

from __future__ import annotations

import functools
import inspect
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from typing import Any

import anyio
import httpx
from mcp.server.context import CallNext, HandlerResult, ServerMiddleware, ServerRequestContext
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp.server.mcpserver.tools import Tool
from mcp.server.subscriptions import InMemorySubscriptionBus
from mcp.types import CallToolResult, InputRequiredResult, ToolAnnotations
from mcp.types import Tool as MCPTool
from pydantic import BaseModel, ValidationError

from vaultgate import __version__
from vaultgate.calls import spelled_by
from vaultgate.config import Settings
from vaultgate.connect import open_backend
from vaultgate.discovery.finder import DiscoveryTiming
from vaultgate.errors import InvalidArgument
from vaultgate.folder.head_start import HeadStart
from vaultgate.instructions import instructions
from vaultgate.state import AppState
from vaultgate.tools.arguments import normalized
from vaultgate.tools.base import ToolFunction, ToolSpec
from vaultgate.tools.equivalents import not_offered, writing_call
from vaultgate.tools.operations import Dispatcher, call_shape
from vaultgate.tools.parameters import refuse_unknown, value_problems
from vaultgate.tools.prompts import (
    PromptAnnouncer,
    PromptTiming,
    serve_prompts,
    watch_prompts,
)
from vaultgate.tools.registry import profile_dispatchers, select_tools, writing_tools
from vaultgate.tools.resources import (
    ResourceAnnouncer,
    ResourceTiming,
    serve_resources,
    watch_resources,
)
from vaultgate.tools.schema import tidy_schema
from vaultgate.tools.spelling import OfferedTools
from vaultgate.tools.text_arguments import keep_text_arguments
from vaultgate.vault.guard import GuardedClient
from vaultgate.vault.marks_scope import new_call
from vaultgate.vault.policy import AccessPolicy

# The answers that carry the server's capabilities (the handshake, and its successor).
_CAPABILITY_ANSWERS = ("initialize", "server/discover")


def advertise_only_what_exists(server: MCPServer) -> ServerMiddleware[Any]:
    """A middleware that leaves the prompts and resources capabilities out while ``server``
    has none: MCPServer always answers prompts/list and resources/list, so it always
    advertises both, and a host then shows empty Prompts and Resources menus.

    Prompts come from the vault's prompt notes (tools/prompts.py), resources from its files
    (tools/resources.py, with subscriptions and completion): always advertised, with
    ``listChanged``, whatever the backend, since a note may appear at any time; the
    handshake reads nothing from the vault (a folder backend walks its folder meanwhile)."""

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
        state = getattr(ctx, "lifespan_context", None)
        if isinstance(state, AppState):
            capabilities["prompts"] = {"listChanged": True}
            capabilities["resources"] = {"subscribe": True, "listChanged": True}
            capabilities["completions"] = {}
            return {**data, "capabilities": capabilities}
        if not await server.list_prompts():
            capabilities.pop("prompts", None)
        if not await server.list_resources() and not await server.list_resource_templates():
            capabilities.pop("resources", None)
        return {**data, "capabilities": capabilities}

    return middleware


class VaultgateServer(MCPServer):
    """MCPServer whose tools/list carries tidied schemas (see tools/schema.py) and
    descriptions without docstring indentation, and whose tool calls refuse parameters they
    do not take, tell a value that does not fit without pydantic's dump (tools/parameters.py),
    refuse writes by name when read-only (tools/registry.py), and name, in every hint, calls
    this server offers (vaultgate.calls)."""

    def __init__(
        self,
        *args: Any,
        tools: list[ToolSpec],
        dispatchers: Mapping[str, Dispatcher],
        spelling: OfferedTools,
        read_only: bool,
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, tools=[sdk_tool(tool, hints) for tool, hints in tools], **kwargs)
        self.spelling = spelling
        self.read_only = read_only
        self.dispatchers = dispatchers
        # Each one's parameter names are read from its signature's model on its first call,
        # not here: building that model again for every tool would lengthen every start.
        self.functions: dict[str, ToolFunction] = {tool.__name__: tool for tool, _ in tools}
        self.offered = frozenset(self.functions)

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> CallToolResult | InputRequiredResult:
        new_call()  # this call's marks searches speak for this call alone (vault/guard.py)
        with spelled_by(self.spelling):
            arguments = dict(arguments or {})
            # A write asked of a read-only server is refused as that, whatever its arguments:
            # the schema offers no writing operation, and "read-only" is what the model must hear.
            if self.read_only:
                refusal = writing_call(
                    name, arguments, dispatchers=self.dispatchers, writing_tools=writing_tools()
                )
                if refusal is not None:
                    raise ToolError(str(refusal)) from refusal
            call = name
            function = self.functions.get(name)
            if function is not None:
                shape = call_shape(name, arguments, function, self.dispatchers)
                arguments = normalized(
                    arguments, shape.accepted, required=shape.required, tool=shape.tool
                )
                call = shape.call
            elsewhere = not_offered(
                name, arguments, dispatchers=self.dispatchers, offered=self.offered
            )
            if elsewhere is not None:
                raise ToolError(str(elsewhere)) from elsewhere
            if function is not None:
                try:
                    refuse_unknown(call, arguments, shape.accepted)
                except InvalidArgument as exc:
                    raise ToolError(str(exc)) from exc
            try:
                return await super().call_tool(name, arguments, context)
            except UnexpectedToolError:
                raise
            except ToolError as exc:
                cause = exc.__cause__
                if isinstance(cause, ValidationError):  # the SDK's: str(cause) is pydantic's
                    raise ToolError(
                        f"Invalid arguments for {call}: {value_problems(cause)}. Nothing was done."
                    ) from cause
                # The SDK prefixes a tool's own message with "Error executing tool <name>: ";
                # the model knows which tool it called, and every error pays for the prefix.
                if type(cause) is ToolError:
                    raise ToolError(str(cause)) from cause
                raise

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


def sdk_tool(tool: ToolFunction, hints: ToolAnnotations) -> Tool:
    """The SDK's Tool for ``tool`` with ``hints``. The title rides in the hints of each
    ToolSpec; it is sent once, as the tool's own title, which is what hosts show
    (annotations.title is its older spelling)."""
    bare = hints.model_copy(update={"title": None})
    return _sdk_tool(tool, hints.title, bare.model_dump_json())


@functools.lru_cache(maxsize=512)
def _sdk_tool(tool: ToolFunction, title: str | None, annotations: str) -> Tool:
    # Built once per function and hints in a process: a Tool is a pydantic model of the
    # signature and its JSON Schema (about 2 ms each, 55 in the full profile), and the SDK
    # never changes one it serves. The test suite builds hundreds of servers.
    registered = Tool.from_function(
        tool,
        title=title,
        annotations=ToolAnnotations.model_validate_json(annotations),
        structured_output=False,
    )
    keep_text_arguments(registered)
    return registered


def spelled_instructions(spelling: OfferedTools) -> str:
    with spelled_by(spelling):
        return instructions()


def build_server(
    settings: Settings,
    *,
    transport: httpx.AsyncBaseTransport | None = None,
    prompt_timing: PromptTiming | None = None,
    resource_timing: ResourceTiming | None = None,
    head_start: HeadStart | None = None,
    discovery_timing: DiscoveryTiming | None = None,
) -> MCPServer:
    """The server for ``settings``; ``transport`` lets tests route HTTP without a network,
    ``prompt_timing`` and ``resource_timing`` let them look for changes sooner;
    ``head_start``: the command line's child process at work on the vault folder
    (``folder/head_start.py``);
    ``discovery_timing`` lets them check the vault folder found sooner (``discovery``)."""
    policy = AccessPolicy(
        settings.safety, vault=settings.vault.folder, follow=settings.vault.follow_links
    )
    bus = InMemorySubscriptionBus()
    announcer = PromptAnnouncer(bus)
    timing = prompt_timing or PromptTiming()
    resource_announcer = ResourceAnnouncer(bus)
    resources_timing = resource_timing or ResourceTiming()

    @asynccontextmanager
    async def lifespan(_server: MCPServer) -> AsyncIterator[AppState]:
        async with open_backend(
            settings,
            transport=transport,
            head_start=head_start,
            discovery=discovery_timing,
            on_folder=policy.serve_folder,  # a found folder's real locations are checked too
        ) as backend:
            client = GuardedClient(backend, policy)
            state = AppState.create(settings, client)
            try:
                async with anyio.create_task_group() as background:
                    background.start_soon(watch_prompts, state.prompts, announcer, timing)
                    background.start_soon(
                        watch_resources,
                        state.resources,
                        client,
                        resource_announcer,
                        resources_timing,
                    )
                    try:
                        yield state
                    finally:
                        background.cancel_scope.cancel()
            finally:
                await state.memory.aclose()
                await state.web.aclose()

    tools = select_tools(settings)
    dispatchers = profile_dispatchers(settings)
    spelling = OfferedTools(frozenset(tool.__name__ for tool, _ in tools), dispatchers)
    server = VaultgateServer(
        "vaultgate",
        version=__version__,
        instructions=spelled_instructions(spelling),
        lifespan=lifespan,
        tools=tools,
        dispatchers=dispatchers,
        spelling=spelling,
        read_only=settings.safety.read_only,
        subscriptions=announcer.bus,
    )
    server.middleware.append(advertise_only_what_exists(server))
    server.middleware.append(serve_prompts(announcer, spelling))
    server.middleware.append(serve_resources(resource_announcer, spelling))
    return server
