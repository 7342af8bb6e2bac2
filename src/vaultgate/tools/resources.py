"""Vault files as MCP resources: list, templates, read, completion, subscriptions, changes.

The resources live in the vault, so this module answers the resource methods itself, as a
middleware over the lifespan state (like ``tools/prompts.py``); ``vaultgate.vault.resources``,
``vault.completion`` and ``vault.resource_changes`` do the work without MCP.

- ``resources/templates/list``: one template, ``vault:///{path}`` (``vault/note_uris.py``).
- ``resources/list``: the notes, most recent first, paged with the protocol's cursor.
- ``resources/read``: a file bounded like a read; a binary attachment announced, not sent.
- ``completion/complete``: the template's ``path``, and prompt arguments whose name says they
  take a note or a folder (``note``, ``file``, ``path``, ``folder``, ``meeting_note``…).
- Subscriptions: ``resources/subscribe``/``unsubscribe`` on connections before 2026-07-28;
  on 2026-07-28 the URIs a ``subscriptions/listen`` stream asks for, for as long as it lasts.
  ``watch_resources`` checks what clients watch, every ``folder`` seconds when a vault folder
  serves reads (disk reads, kept current by its watcher) and every ``plugin`` seconds through
  the plugin (requests), and ``settle`` seconds after a write made through vaultgate; it sends
  ``notifications/resources/updated`` for a changed subscribed file and
  ``notifications/resources/list_changed`` when notes were added or removed, on the listen
  streams (through the server's subscription bus) and on older connections alike.
"""

from __future__ import annotations

import logging
import weakref
from dataclasses import dataclass
from typing import Any, TypeVar

from mcp import MCPError
from mcp.server.connection import Connection
from mcp.server.context import CallNext, HandlerResult, ServerMiddleware, ServerRequestContext
from mcp.server.subscriptions import ResourcesListChanged, ResourceUpdated, SubscriptionBus
from mcp.types import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    METHOD_NOT_FOUND,
    CompleteRequestParams,
    CompleteResult,
    Completion,
    EmptyResult,
    ListResourcesResult,
    ListResourceTemplatesResult,
    PaginatedRequestParams,
    PromptReference,
    ReadResourceRequestParams,
    ReadResourceResult,
    Resource,
    ResourceTemplate,
    SubscribeRequestParams,
    SubscriptionsListenRequestParams,
    TextResourceContents,
    UnsubscribeRequestParams,
)
from mcp.types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import BaseModel, ValidationError

from vaultgate.backend import Backend
from vaultgate.calls import Spelling, spelled_by
from vaultgate.change_watch import watch_changes
from vaultgate.errors import InvalidArgument, NotFound, VaultgateError
from vaultgate.paging import CONTENT_WINDOW
from vaultgate.state import AppState
from vaultgate.vault.completion import Completed, argument_kind, complete_path
from vaultgate.vault.marks_scope import new_call
from vaultgate.vault.note_uris import TEMPLATE, path_of
from vaultgate.vault.resource_changes import Changes, ResourceWatch
from vaultgate.vault.resources import (
    NOTE_MIME,
    list_page,
    notes_by_recency,
    parse_cursor,
    read_resource,
)

log = logging.getLogger("vaultgate.resources")
M = TypeVar("M", bound=BaseModel)

FOLDER_POLL_SECONDS = 1.0  # disk reads of what clients watch
PLUGIN_POLL_SECONDS = 3.0  # requests to Obsidian: "at most every few seconds"
SETTLE_SECONDS = 0.2  # after a write through vaultgate, so that a burst costs one check
PATH_ARGUMENT = "path"

NOTE_TEMPLATE = ResourceTemplate(
    uri_template=TEMPLATE,
    name="vault-file",
    title="Vault note or file",
    description=(
        "A note or file of the Obsidian vault by its vault path, e.g. 'Projects/Plan.md' "
        f"(completed as you type). A note comes as its first {CONTENT_WINDOW:,} characters, "
        "with how to read the rest; an attachment's type and size are shown, not its bytes."
    ),
    mime_type=NOTE_MIME,
)

_RESOURCE_METHODS = frozenset(
    {
        "resources/list",
        "resources/templates/list",
        "resources/read",
        "resources/subscribe",
        "resources/unsubscribe",
        "completion/complete",
    }
)


@dataclass(frozen=True, slots=True)
class ResourceTiming:
    folder: float = FOLDER_POLL_SECONDS
    plugin: float = PLUGIN_POLL_SECONDS
    settle: float = SETTLE_SECONDS


class _ListenStream:
    """Holds a listen stream's subscriptions while it lasts (weakly referenced)."""

    __slots__ = ("__weakref__",)


class ResourceAnnouncer:
    """Who hears of resource changes: listen streams, and older connections that listed."""

    def __init__(self, bus: SubscriptionBus) -> None:
        self.bus = bus
        self._listing: weakref.WeakSet[Connection] = weakref.WeakSet()

    def remember(self, ctx: ServerRequestContext[Any, Any]) -> None:
        """An older connection that listed the resources hears of list changes."""
        connection = _legacy_connection(ctx)
        if connection is not None:
            self._listing.add(connection)

    async def announce(self, changes: Changes) -> None:
        for uri, holders in changes.updated:
            await self.bus.publish(ResourceUpdated(uri=uri))
            for holder in holders:
                if isinstance(holder, Connection):
                    await holder.send_resource_updated(uri)  # best effort, as the bus is
        if changes.list_changed:
            await self.bus.publish(ResourcesListChanged())
            for connection in list(self._listing):
                await connection.send_resource_list_changed()


def _legacy_connection(ctx: ServerRequestContext[Any, Any]) -> Connection | None:
    """The connection of a request made before 2026-07-28, where notifications ride it."""
    if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:
        return None
    # The SDK builds a session per request around the connection, and names the connection
    # only privately; the connection is what outlives the request (as in tools/prompts.py).
    connection = getattr(ctx.session, "_connection", None)
    return connection if isinstance(connection, Connection) else None


async def watch_resources(
    watch: ResourceWatch, client: Backend, announcer: ResourceAnnouncer, timing: ResourceTiming
) -> None:
    """Announce what changed of what clients watch, for the life of the server."""

    def poll_seconds() -> float:
        return timing.folder if client.report().vault_folder is not None else timing.plugin

    await watch_changes(
        "resource",
        wait_until_stale=watch.wait_until_stale,
        poll_seconds=poll_seconds,
        settle_seconds=timing.settle,
        wanted=lambda: watch.active,
        check=watch.check,
        announce=announcer.announce,
    )


def serve_resources(announcer: ResourceAnnouncer, spelling: Spelling) -> ServerMiddleware[Any]:
    """A middleware answering the resource and completion methods from the lifespan state,
    and taking note of the files a listen stream subscribes to; the rest passes on."""

    async def middleware(ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        state = getattr(ctx, "lifespan_context", None)
        if not isinstance(state, AppState):
            return await call_next(ctx)
        if ctx.method == "subscriptions/listen":
            return await _listening(state.resources, ctx, call_next)
        if ctx.method not in _RESOURCE_METHODS:
            return await call_next(ctx)
        with spelled_by(spelling):
            new_call()  # this request's marks searches speak for this request alone
            try:
                return await _answer(state, announcer, ctx)
            except VaultgateError as exc:
                code = (
                    INVALID_PARAMS
                    if isinstance(exc, InvalidArgument | NotFound)
                    else INTERNAL_ERROR
                )
                raise MCPError(code=code, message=str(exc)) from exc

    return middleware


async def _answer(
    state: AppState, announcer: ResourceAnnouncer, ctx: ServerRequestContext[Any, Any]
) -> BaseModel:
    match ctx.method:
        case "resources/templates/list":
            return ListResourceTemplatesResult(resource_templates=[NOTE_TEMPLATE])
        case "resources/list":
            params = _params(PaginatedRequestParams, ctx.params, "an optional cursor")
            offset = parse_cursor(params.cursor)  # a first page asks the vault again
            page = list_page(await notes_by_recency(state.searcher, offset=offset), params.cursor)
            if params.cursor is None:
                announcer.remember(ctx)
                await state.resources.listed()
            return ListResourcesResult(
                resources=[Resource.model_validate(note.entry()) for note in page.notes],
                next_cursor=page.next_cursor,
            )
        case "resources/read":
            read = _params(ReadResourceRequestParams, ctx.params, "a resource uri")
            try:
                resource = await read_resource(state.client, path_of(read.uri))
            except NotFound as exc:
                raise MCPError(
                    code=INVALID_PARAMS, message=str(exc), data={"uri": read.uri}
                ) from exc
            return ReadResourceResult(
                contents=[
                    TextResourceContents(uri=read.uri, mime_type=mime_type, text=text)
                    for text, mime_type in resource.contents()
                ]
            )
        case "resources/subscribe" | "resources/unsubscribe":
            return await _subscription(state.resources, ctx)
        case "completion/complete":
            asked = _params(CompleteRequestParams, ctx.params, "a ref and an argument")
            return CompleteResult(completion=await _complete(state, asked))
    raise AssertionError(ctx.method)  # _RESOURCE_METHODS names every case


async def _subscription(watch: ResourceWatch, ctx: ServerRequestContext[Any, Any]) -> BaseModel:
    connection = _legacy_connection(ctx)
    if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:
        # removed in 2026-07-28: subscriptions/listen with resourceSubscriptions replaces it
        raise MCPError(code=METHOD_NOT_FOUND, message="Method not found", data=ctx.method)
    if ctx.method == "resources/subscribe":
        asked = _params(SubscribeRequestParams, ctx.params, "a resource uri")
        if connection is not None:
            await watch.watch(path_of(asked.uri), asked.uri, connection)
    else:
        gone = _params(UnsubscribeRequestParams, ctx.params, "a resource uri")
        if connection is not None:
            watch.unwatch(path_of(gone.uri), gone.uri, connection)
    return EmptyResult()


async def _listening(
    watch: ResourceWatch, ctx: ServerRequestContext[Any, Any], call_next: CallNext
) -> HandlerResult:
    """Watch the vault files a listen stream subscribes to while it lasts. A URI that names
    no vault file is honoured and never fires, as the protocol has it."""
    try:
        params = SubscriptionsListenRequestParams.model_validate(ctx.params or {})
    except ValidationError:
        return await call_next(ctx)  # the SDK's handler refuses it in its own words
    stream = _ListenStream()
    watched: list[tuple[str, str]] = []
    try:
        for uri in params.notifications.resource_subscriptions or ():
            try:
                path = path_of(uri)
                await watch.watch(path, uri, stream)
            except VaultgateError as exc:
                log.debug("listen stream subscribes to %r, which is not watched: %s", uri, exc)
                continue
            watched.append((path, uri))
        if params.notifications.resources_list_changed:
            await watch.listed()
        return await call_next(ctx)
    finally:
        for path, uri in watched:
            watch.unwatch(path, uri, stream)


async def _complete(state: AppState, asked: CompleteRequestParams) -> Completion:
    ref, argument = asked.ref, asked.argument
    completed: Completed | None = None
    if isinstance(ref, PromptReference):
        prompt = (await state.prompts.catalogue()).find(ref.name)
        known = {a.name for a in prompt.arguments} if prompt is not None else set()
        kind = argument_kind(argument.name) if argument.name in known else None
        if kind is not None:
            completed = await complete_path(
                state.lister,
                argument.value,
                folders_only=kind == "folder",
                notes_only=kind == "note",
            )
    elif ref.uri == TEMPLATE and argument.name == PATH_ARGUMENT:
        completed = await complete_path(state.lister, argument.value)
    if completed is None:
        return Completion(values=[], total=0, has_more=False)
    return Completion(
        values=list(completed.values), total=completed.total, has_more=completed.has_more
    )


def _params(model: type[M], raw: Any, wanted: str) -> M:
    try:
        return model.model_validate(raw or {})
    except ValidationError as exc:
        raise MCPError(
            code=INVALID_PARAMS,
            message=f"This request needs {wanted}: "
            + "; ".join(error["msg"] for error in exc.errors()),
        ) from exc
