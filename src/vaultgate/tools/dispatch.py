"""The dispatchers: `vault`, `active_file` and `memory` reach every operation in three schemas.

Each operation is a Route to the single tool that does the work, so a dispatcher call answers
exactly what the single tool answers for the same arguments (defaults, bounds, errors). The
tables are exhaustive over the operation Literals; a test checks it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Literal, get_args

from pydantic import Field

from vaultgate.calls import render_call
from vaultgate.errors import InvalidArgument, WritingCall
from vaultgate.memory.models import Scope
from vaultgate.memory.render import DetailLevel
from vaultgate.patch_request import Operation as PatchOperation
from vaultgate.patch_request import TargetType
from vaultgate.sdd.layout import Stage
from vaultgate.tools import (
    active,
    commands,
    edit,
    info,
    periodic,
    read,
    refactor,
    sdd,
    search,
    templates,
)
from vaultgate.tools import links as link_tools
from vaultgate.tools import memory as memory_tools
from vaultgate.tools import notes as note_tools
from vaultgate.tools.base import Blocks, ToolContext, app_state, model_facing_errors
from vaultgate.tools.routes import Route
from vaultgate.vault.documents import NoteFormat
from vaultgate.vault.editing import ContentType
from vaultgate.vault.search import QueryType

VaultOperation = Literal[
    "list",
    "read",
    "search",
    "search_structured",
    "search_smart",
    "create",
    "append",
    "patch",
    "delete",
    "move",
    "bulk_delete",
    "tags",
    "periodic",
    "periodic_append",
    "template",
    "info",
    # issue 13, reading
    "read_many",
    "recent",
    "backlinks",
    "broken_links",
    "orphans",
    # issue 13, writing: search-and-replace, frontmatter and tags
    "replace",
    "set_property",
    "delete_property",
    "add_tag",
    "remove_tag",
]
ActiveOperation = Literal[
    "read", "update", "append", "patch", "delete", "open", "commands", "run_command"
]
MemoryOperation = Literal[
    "search",
    "timeline",
    "get",
    "context",
    "save",
    "update",
    "delete",
    "session_start",
    "session_end",
    "save_prompt",
    "stats",
    "compact",
    "sdd_context",
    "sdd_check",
]

VAULT_ROUTES: dict[str, Route] = {
    "list": Route(read.list_vault_files),
    "read": Route(read.get_vault_file),
    "search": Route(search.search_vault_simple),
    "search_structured": Route(search.search_vault),
    "search_smart": Route(search.search_vault_smart),
    "create": Route(edit.create_vault_file, writes=True),
    "append": Route(edit.append_to_vault_file, writes=True),
    "patch": Route(edit.patch_vault_file, writes=True),
    "delete": Route(edit.delete_vault_file, writes=True),
    "move": Route(edit.move_vault_file, writes=True),
    "bulk_delete": Route(edit.bulk_delete_files, writes=True),
    "tags": Route(search.list_tags),
    "periodic": Route(periodic.get_periodic_note),
    "periodic_append": Route(periodic.append_to_periodic_note, writes=True),
    "template": Route(templates.execute_template, writes=True),
    "info": Route(info.get_server_info),
    # issue 13, reading
    "read_many": Route(note_tools.get_vault_files),
    "recent": Route(note_tools.get_recent_changes),
    "backlinks": Route(link_tools.get_backlinks),
    "broken_links": Route(link_tools.find_broken_links),
    "orphans": Route(link_tools.find_orphans),
    "replace": Route(refactor.replace_in_notes, writes=True),
    "set_property": Route(refactor.set_note_property, writes=True),
    "delete_property": Route(refactor.delete_note_property, writes=True),
    "add_tag": Route(refactor.add_note_tag, writes=True),
    "remove_tag": Route(refactor.remove_note_tag, writes=True),
}

ACTIVE_ROUTES: dict[str, Route] = {
    "read": Route(read.get_active_file),
    "update": Route(active.update_active_file, writes=True),
    "append": Route(active.append_to_active_file, writes=True),
    "patch": Route(active.patch_active_file, writes=True),
    "delete": Route(active.delete_active_file, writes=True),
    "open": Route(active.show_file_in_obsidian, writes=True),
    "commands": Route(commands.list_commands),
    "run_command": Route(commands.execute_command, writes=True),
}

# The memory store is vaultgate's own, not the vault: read-only servers keep all of it.
MEMORY_ROUTES: dict[str, Route] = {
    "search": Route(memory_tools.mem_search),
    "timeline": Route(memory_tools.mem_timeline),
    "get": Route(memory_tools.mem_get, answers_for=("mem_get_observation", "mem_get_observations")),
    "context": Route(memory_tools.mem_context),
    "save": Route(memory_tools.mem_save),
    "update": Route(memory_tools.mem_update),
    "delete": Route(memory_tools.mem_delete),
    "session_start": Route(memory_tools.mem_session_start),
    "session_end": Route(memory_tools.mem_session_end),
    "save_prompt": Route(memory_tools.mem_save_prompt),
    "stats": Route(memory_tools.mem_stats),
    "compact": Route(memory_tools.mem_compact),
    "sdd_context": Route(sdd.sdd_get_context),
    "sdd_check": Route(sdd.sdd_context_check),
}

# What the dispatchers say of themselves on a read-only server, whose schemas list only the
# reading operations (tools/registry.py).
READ_ONLY_DOCS: dict[str, str] = {
    "vault": (
        "Read notes in the Obsidian vault (this server is read-only); "
        'discover(operation="vault.<op>") explains an op.'
    ),
    "active_file": (
        "Read the note open in Obsidian (this server is read-only); "
        'discover(operation="active_file.read") explains.'
    ),
}

DISPATCHERS: dict[str, tuple[dict[str, Route], tuple[str, ...]]] = {
    "vault": (VAULT_ROUTES, get_args(VaultOperation)),
    "active_file": (ACTIVE_ROUTES, get_args(ActiveOperation)),
    "memory": (MEMORY_ROUTES, get_args(MemoryOperation)),
}


# Operations this server offered before (issue 24), with the call that does the same now: a
# model with an old habit hears the new call instead of a list of every operation.
RETIRED_OPERATIONS: dict[tuple[str, str], tuple[str, dict[str, Any]]] = {
    ("vault", "map"): ("vault", {"operation": "read", "format": "map"}),
}


def retired_operation(dispatcher: str, arguments: Mapping[str, Any]) -> InvalidArgument | None:
    """The refusal of an operation this server no longer offers, naming its replacement."""
    operation = arguments.get("operation")
    if not isinstance(operation, str):
        return None
    replacement = RETIRED_OPERATIONS.get((dispatcher, operation))
    if replacement is None:
        return None
    tool, fixed = replacement
    return InvalidArgument(
        f"{render_call(dispatcher, {'operation': operation})} was removed: "
        f"{render_call(tool, fixed)} does the same, with the same other parameters. Nothing "
        "was done."
    )


def reading_operations(dispatcher: str) -> tuple[str, ...]:
    """The operations of ``dispatcher`` a read-only server offers: those that do not write."""
    routes, operations = DISPATCHERS[dispatcher]
    return tuple(operation for operation in operations if not routes[operation].writes)


def reading_parameters(dispatcher: str) -> frozenset[str]:
    """The parameters of ``dispatcher`` some reading operation takes (``operation`` aside)."""
    routes, _ = DISPATCHERS[dispatcher]
    return frozenset(
        parameter.name
        for operation in reading_operations(dispatcher)
        for parameter in routes[operation].parameters
    )


def writing_operation(dispatcher: str, operation: str) -> WritingCall:
    """The refusal of a read-only server asked for ``operation``, a writing one."""
    return WritingCall(
        render_call(dispatcher, {"operation": operation}),
        f"Its reading operations still work: {', '.join(reading_operations(dispatcher))}.",
    )


def accepted_parameters(
    tool: str, arguments: Mapping[str, Any], own: list[str]
) -> tuple[str, list[str]]:
    """The call as the model made it, and the parameters it takes: a dispatcher operation's
    own (with ``operation``) once the operation is known, else the tool's schema."""
    if tool not in DISPATCHERS:
        return tool, own
    routes, _ = DISPATCHERS[tool]
    operation = arguments.get("operation")
    if not isinstance(operation, str) or operation not in routes:
        return tool, own
    call = render_call(tool, {"operation": operation})
    return call, ["operation", *(p.name for p in routes[operation].parameters)]


async def dispatch(
    ctx: ToolContext, dispatcher: str, operation: str, arguments: Mapping[str, Any]
) -> Blocks:
    """Run ``operation`` with the dispatcher's ``arguments``: its parameters as the model
    passed them (a dispatcher hands over its locals, so a new parameter cannot be left out),
    those not given being None."""
    routes, _ = DISPATCHERS[dispatcher]
    route = routes[operation]
    if route.writes and app_state(ctx).settings.safety.read_only:
        raise writing_operation(dispatcher, operation)
    given = {
        name: value
        for name, value in arguments.items()
        if value is not None and name not in ("ctx", "operation")
    }
    return await route.call(ctx, operation, given)


@model_facing_errors
async def vault(
    ctx: ToolContext,
    operation: VaultOperation,
    filename: str | None = None,
    folder: str | list[str] | None = None,
    recursive: bool | None = None,
    pattern: str | None = None,
    layout: Literal["flat", "tree"] | None = None,
    limit: int | None = None,
    offset: int | None = None,
    format: NoteFormat | None = None,
    maxLength: int | None = None,
    startIndex: int | None = None,
    section: Annotated[str | None, Field(description="'Heading' or 'Parent::Child'.")] = None,
    query: Annotated[str | dict[str, Any] | None, Field(description="Words, or JsonLogic.")] = None,
    queryType: QueryType | None = None,
    contextLength: int | None = None,
    maxMatchesPerFile: int | None = None,
    withOffsets: bool | None = None,
    excludeFolders: list[str] | None = None,
    content: str | None = None,
    replacement: str | None = None,
    overwrite: bool | None = None,
    patchOperation: PatchOperation | None = None,
    targetType: TargetType | None = None,
    target: str | None = None,
    contentType: ContentType | None = None,
    createTargetIfMissing: bool | None = None,
    permanent: bool | None = None,
    key: str | None = None,
    source: str | None = None,
    destination: str | None = None,
    exclude: str | None = None,
    dryRun: bool | None = None,
    confirmAll: bool | None = None,
    prefix: str | None = None,
    period: periodic.PeriodName | None = None,
    date: str | None = None,
    name: str | None = None,
    arguments: dict[str, str] | None = None,
    createFile: bool | None = None,
    targetPath: str | None = None,
    filenames: list[str] | None = None,  # issue 13, reading
    days: int | None = None,
    find: str | None = None,
    regex: bool | None = None,
    frontmatter: bool | None = None,
    value: Any = None,
    tag: str | None = None,
    inline: bool | None = None,
) -> Blocks:
    """Notes in the Obsidian vault; discover(operation="vault.<op>") explains an op."""
    return await dispatch(ctx, "vault", operation, locals())


@model_facing_errors
async def active_file(
    ctx: ToolContext,
    operation: ActiveOperation,
    format: NoteFormat | None = None,
    maxLength: int | None = None,
    startIndex: int | None = None,
    content: str | None = None,
    patchOperation: PatchOperation | None = None,
    targetType: TargetType | None = None,
    target: str | None = None,
    contentType: ContentType | None = None,
    createTargetIfMissing: bool | None = None,
    permanent: bool | None = None,
    filename: str | None = None,
    newLeaf: bool | None = None,
    filter: str | None = None,
    commandId: str | None = None,
) -> Blocks:
    """The note open in Obsidian, or open one; discover(operation="active_file.<op>")."""
    return await dispatch(ctx, "active_file", operation, locals())


@model_facing_errors
async def memory(
    ctx: ToolContext,
    operation: MemoryOperation,
    query: str | None = None,
    id: int | None = None,
    ids: list[int] | None = None,
    observation_id: int | None = None,
    project: str | None = None,
    scope: Scope | None = None,
    type: str | None = None,
    title: str | None = None,
    content: str | None = None,
    topic_key: str | None = None,
    session_id: str | None = None,
    directory: str | None = None,
    summary: str | None = None,
    hard: bool | None = None,
    limit: int | None = None,
    before: int | None = None,
    after: int | None = None,
    detail_level: DetailLevel | None = None,
    max_tokens: int | None = None,
    older_than_days: int | None = None,
    compact_ids: list[int] | str | None = None,
    summary_title: str | None = None,
    summary_content: str | None = None,
    change: str | None = None,
    stage: Stage | None = None,
    change_description: str | None = None,
) -> Blocks:
    """Memory across sessions, spec-driven context; discover(operation="memory.<op>")."""
    return await dispatch(ctx, "memory", operation, locals())
