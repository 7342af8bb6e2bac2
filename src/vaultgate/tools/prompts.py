"""MCP prompts from vault notes: ``prompts/list``, ``prompts/get`` and ``list_changed``.

The prompts live in the vault, not in the server: ``vaultgate.vault.prompts`` finds and
renders them (through the guarded client in the lifespan state), and this module adapts that
to MCP. It answers the two prompt methods itself, as a middleware, because the prompts are
per lifespan state (the vault behind this session) rather than registered once on the server.

When the list changes, ``notifications/prompts/list_changed`` goes to every client that may
hold the old list: on 2026-07-28 connections through the server's subscription bus (the
client's ``subscriptions/listen`` stream), on earlier ones on each session that asked for the
list. A change is looked for (``watch_prompts``) once a client has listed the prompts:

- ``settle`` seconds after a write made through vaultgate (``AppState.vault_changed``), so that
  a burst of writes costs one check;
- every ``poll`` seconds otherwise, for edits made in Obsidian or on disk.

A check rebuilds the catalogue: one listing of the prompts folder and one read per note in it.
"""

from __future__ import annotations

import logging
import weakref
from dataclasses import dataclass
from typing import Any

from mcp import MCPError
from mcp.server.connection import Connection
from mcp.server.context import CallNext, HandlerResult, ServerMiddleware, ServerRequestContext
from mcp.server.subscriptions import PromptsListChanged, SubscriptionBus
from mcp.types import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    GetPromptRequestParams,
    GetPromptResult,
    ListPromptsResult,
    Prompt,
    PromptArgument,
    PromptMessage,
    TextContent,
)
from mcp.types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import ValidationError

from vaultgate.calls import Spelling, spelled_by
from vaultgate.change_watch import watch_changes
from vaultgate.errors import InvalidArgument, VaultgateError
from vaultgate.vault.prompts import Catalogue, PromptLibrary

log = logging.getLogger("vaultgate.prompts")

PROMPT_POLL_SECONDS = 60.0
PROMPT_SETTLE_SECONDS = 1.0


@dataclass(frozen=True, slots=True)
class PromptTiming:
    poll: float = PROMPT_POLL_SECONDS
    settle: float = PROMPT_SETTLE_SECONDS


class PromptAnnouncer:
    """Who hears ``notifications/prompts/list_changed``: listen streams and older sessions."""

    def __init__(self, bus: SubscriptionBus) -> None:
        self.bus = bus
        self._connections: weakref.WeakSet[Connection] = weakref.WeakSet()

    def remember(self, ctx: ServerRequestContext[Any, Any]) -> None:
        """The connection of a client that listed the prompts, on a protocol where change
        notifications ride the connection (before 2026-07-28)."""
        if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:
            return
        # The SDK builds a session per request around the connection, and names the
        # connection only privately; the connection is what outlives the request.
        connection = getattr(ctx.session, "_connection", None)
        if isinstance(connection, Connection):
            self._connections.add(connection)

    async def announce(self) -> None:
        await self.bus.publish(PromptsListChanged())
        for connection in list(self._connections):
            await connection.send_prompt_list_changed()  # best effort: a closed one drops it


async def watch_prompts(
    library: PromptLibrary, announcer: PromptAnnouncer, timing: PromptTiming
) -> None:
    """Announce each change of the prompts, for the life of the server (see the module)."""

    async def announce(changed: bool) -> None:
        if changed:
            await announcer.announce()

    await watch_changes(
        "prompt",
        wait_until_stale=library.wait_until_stale,
        poll_seconds=lambda: timing.poll,
        settle_seconds=timing.settle,
        wanted=lambda: library.listed,
        check=library.check,
        announce=announce,
    )


def _listed(catalogue: Catalogue) -> ListPromptsResult:
    return ListPromptsResult(
        prompts=[
            Prompt(
                name=prompt.name,
                title=prompt.title,
                description=prompt.description,
                arguments=[
                    PromptArgument(name=a.name, description=a.description, required=a.required)
                    for a in prompt.arguments
                ],
            )
            for prompt in catalogue.prompts
        ]
    )


def _mcp_error(exc: VaultgateError) -> MCPError:
    code = INVALID_PARAMS if isinstance(exc, InvalidArgument) else INTERNAL_ERROR
    return MCPError(code=code, message=str(exc))


def serve_prompts(announcer: PromptAnnouncer, spelling: Spelling) -> ServerMiddleware[Any]:
    """A middleware answering ``prompts/list`` and ``prompts/get`` from the lifespan state's
    prompt library; every other message passes on."""

    async def middleware(ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        if ctx.method not in ("prompts/list", "prompts/get"):
            return await call_next(ctx)
        library: PromptLibrary = ctx.lifespan_context.prompts
        with spelled_by(spelling):
            try:
                if ctx.method == "prompts/list":
                    announcer.remember(ctx)
                    return _listed(await library.list_for_client())
                return await _get(library, ctx.params)
            except VaultgateError as exc:
                raise _mcp_error(exc) from exc

    return middleware


async def _get(library: PromptLibrary, raw: Any) -> GetPromptResult:
    try:
        params = GetPromptRequestParams.model_validate(raw or {})
    except ValidationError as exc:
        raise MCPError(
            code=INVALID_PARAMS,
            message="prompts/get needs a prompt name and string arguments: "
            + "; ".join(error["msg"] for error in exc.errors()),
        ) from exc
    rendered = await library.render(params.name, params.arguments)
    return GetPromptResult(
        description=rendered.prompt.description,
        messages=[PromptMessage(role="user", content=TextContent(type="text", text=rendered.text))],
    )
