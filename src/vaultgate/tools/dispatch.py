"""The dispatchers: `vault`, `vault_edit`, `memory` and `memory_edit` reach every operation.

Reading and changing are apart (issue 24): `vault` and `memory` never destroy anything, so a
host can let a user approve them once and still ask before each `vault_edit` or `memory_edit`.

Each operation is a Route to the single tool that does the work, so a dispatcher call answers
exactly what the single tool answers for the same arguments (defaults, bounds, errors). The
tables are exhaustive over the operation Literals; a test checks it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Literal, get_args

from pydantic import Field

from vaultgate.calls import Raw, render_call
from vaultgate.errors import InvalidArgument, VaultgateError, WritingCall
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
from vaultgate.vault.search import QueryType, SmartMode

# Reading the vault, and the note open in Obsidian: nothing here writes (readOnlyHint).
VaultOperation = Literal[
    "list",
    "read",
    "read_many",
    "search",
    "search_structured",
    "search_smart",
    "tags",
    "recent",
    "backlinks",
    "broken_links",
    "orphans",
    "periodic",
    "info",
    "active",
    "commands",
]
# Every change to the vault, and what Obsidian does on request (open a note, run a command).
EditOperation = Literal[
    "create",
    "append",
    "patch",
    "delete",
    "move",
    "bulk_delete",
    "periodic_append",
    "template",
    "replace",
    "set_property",
    "delete_property",
    "add_tag",
    "remove_tag",
    "active_update",
    "active_append",
    "active_patch",
    "active_delete",
    "open",
    "run_command",
]
# Reading memory, and writes that only add (a topic_key already in use is refused by save,
# not revised: that is memory_edit's update).
MemoryOperation = Literal[
    "search",
    "timeline",
    "get",
    "context",
    "stats",
    "sdd_context",
    "sdd_check",
    "save",
    "save_prompt",
    "session_start",
    "session_end",
]
# What changes or removes a memory already saved.
MemoryEditOperation = Literal["update", "delete", "compact"]

VAULT_ROUTES: dict[str, Route] = {
    "list": Route(read.list_vault_files),
    "read": Route(read.get_vault_file),
    "read_many": Route(note_tools.get_vault_files),
    "search": Route(search.search_vault_simple),
    "search_structured": Route(search.search_vault),
    "search_smart": Route(search.search_vault_smart),
    "tags": Route(search.list_tags),
    "recent": Route(note_tools.get_recent_changes),
    "backlinks": Route(link_tools.get_backlinks),
    "broken_links": Route(link_tools.find_broken_links),
    "orphans": Route(link_tools.find_orphans),
    "periodic": Route(periodic.get_periodic_note),
    "info": Route(info.get_server_info),
    "active": Route(read.get_active_file),
    "commands": Route(commands.list_commands),
}

EDIT_ROUTES: dict[str, Route] = {
    "create": Route(edit.create_vault_file, writes=True),
    "append": Route(edit.append_to_vault_file, writes=True),
    "patch": Route(edit.patch_vault_file, writes=True),
    "delete": Route(edit.delete_vault_file, writes=True),
    "move": Route(edit.move_vault_file, writes=True),
    "bulk_delete": Route(edit.bulk_delete_files, writes=True),
    "periodic_append": Route(periodic.append_to_periodic_note, writes=True),
    "template": Route(templates.execute_template, writes=True),
    "replace": Route(refactor.replace_in_notes, writes=True),
    "set_property": Route(refactor.set_note_property, writes=True),
    "delete_property": Route(refactor.delete_note_property, writes=True),
    "add_tag": Route(refactor.add_note_tag, writes=True),
    "remove_tag": Route(refactor.remove_note_tag, writes=True),
    # the open note's changes, as active_file's update, append, patch and delete were
    "active_update": Route(active.update_active_file, writes=True),
    "active_append": Route(active.append_to_active_file, writes=True),
    "active_patch": Route(active.patch_active_file, writes=True),
    "active_delete": Route(active.delete_active_file, writes=True),
    "open": Route(active.show_file_in_obsidian, writes=True),
    "run_command": Route(commands.execute_command, writes=True),
}

# The memory store is vaultgate's own, not the vault: read-only servers keep all of it.
ACTIVE_EDITS = ("update", "append", "patch", "delete")

MEMORY_ROUTES: dict[str, Route] = {
    "search": Route(memory_tools.mem_search),
    "timeline": Route(memory_tools.mem_timeline),
    "get": Route(memory_tools.mem_get, answers_for=("mem_get_observation", "mem_get_observations")),
    "context": Route(memory_tools.mem_context),
    "stats": Route(memory_tools.mem_stats),
    "sdd_context": Route(sdd.sdd_get_context),
    "sdd_check": Route(sdd.sdd_context_check),
    "save": Route(memory_tools.mem_save),
    "save_prompt": Route(memory_tools.mem_save_prompt),
    "session_start": Route(memory_tools.mem_session_start),
    "session_end": Route(memory_tools.mem_session_end),
}

MEMORY_EDIT_ROUTES: dict[str, Route] = {
    "update": Route(memory_tools.mem_update),
    "delete": Route(memory_tools.mem_delete),
    "compact": Route(memory_tools.mem_compact),
}

DISPATCHERS: dict[str, tuple[dict[str, Route], tuple[str, ...]]] = {
    "vault": (VAULT_ROUTES, get_args(VaultOperation)),
    "vault_edit": (EDIT_ROUTES, get_args(EditOperation)),
    "memory": (MEMORY_ROUTES, get_args(MemoryOperation)),
    "memory_edit": (MEMORY_EDIT_ROUTES, get_args(MemoryEditOperation)),
}


# Where each operation of issue 24's split went: (old tool, old operation) → (tool, operation).
_MOVED: dict[tuple[str, str], tuple[str, str]] = {
    **{("vault", op): ("vault_edit", op) for op in EDIT_ROUTES if not op.startswith("active_")},
    ("active_file", "read"): ("vault", "active"),
    ("active_file", "commands"): ("vault", "commands"),
    **{("active_file", op): ("vault_edit", f"active_{op}") for op in ACTIVE_EDITS},
    ("active_file", "open"): ("vault_edit", "open"),
    ("active_file", "run_command"): ("vault_edit", "run_command"),
    **{("memory", op): ("memory_edit", op) for op in MEMORY_EDIT_ROUTES},
}

# Operations this server offered before (issue 24), with the call that does the same now: a
# model with an old habit hears the new call instead of a list of every operation. Reading
# and writing were split into vault / vault_edit and memory / memory_edit; active_file's
# operations went to both.
RETIRED_OPERATIONS: dict[tuple[str, str], tuple[str, dict[str, Any]]] = {
    ("vault", "map"): ("vault", {"operation": "read", "format": "map"}),
    **{old: (tool, {"operation": operation}) for old, (tool, operation) in _MOVED.items()},
}
# Tools this server offered before: a call of one is answered (with its operation's new
# call), not "Unknown tool".
RETIRED_TOOLS = frozenset({"active_file"})


def retired_call(dispatcher: str, operation: str) -> tuple[str, dict[str, Any]] | None:
    """The call that replaced ``dispatcher``'s ``operation``, if it was retired."""
    return RETIRED_OPERATIONS.get((dispatcher, operation))


def retired_operation(
    dispatcher: str, arguments: Mapping[str, Any], *, read_only: bool
) -> VaultgateError | None:
    """The refusal of an operation this server no longer offers, naming its replacement (on a
    read-only server, one that moved to vault_edit is refused as a write)."""
    operation = arguments.get("operation")
    if not isinstance(operation, str):
        return None
    replacement = retired_call(dispatcher, operation)
    if replacement is None:
        return None
    tool, fixed = replacement
    new_call = render_call(tool, fixed)
    if read_only and _writes(tool, fixed):
        return WritingCall(
            f"{render_call(dispatcher, {'operation': operation})} (now {new_call})",
            f"Reading still works: {render_call('vault', {'operation': Raw('...')})}.",
        )
    return InvalidArgument(
        f"{render_call(dispatcher, {'operation': operation})} was removed: "
        f"{new_call} does the same, with the same other parameters. Nothing was done."
    )


def _writes(tool: str, fixed: Mapping[str, Any]) -> bool:
    routes, _ = DISPATCHERS[tool]
    return routes[str(fixed["operation"])].writes


def writing_operation(dispatcher: str, operation: str) -> WritingCall:
    """The refusal of a read-only server asked for ``operation``, a writing one."""
    return WritingCall(
        render_call(dispatcher, {"operation": operation}),
        f"Reading still works: {render_call('vault', {'operation': Raw('...')})}.",
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


def said(description: str) -> Any:
    """A parameter's description in a dispatcher's schema: a few words, where the name alone
    does not say it (the single tool's own, longer one is in discover)."""
    return Field(description=description)


@model_facing_errors
async def vault(
    ctx: ToolContext,
    operation: VaultOperation,
    filename: str | None = None,
    folder: str | list[str] | None = None,
    recursive: bool | None = None,
    pattern: Annotated[str | None, said("Glob.")] = None,
    layout: Annotated[Literal["flat", "tree"] | None, said("tree: by folder.")] = None,
    limit: int | None = None,
    offset: int | None = None,
    format: Annotated[NoteFormat | None, said("map: outline.")] = None,
    maxLength: int | None = None,
    startIndex: int | None = None,
    section: Annotated[str | None, said("'Heading' or 'Parent::Child'.")] = None,
    query: Annotated[str | dict[str, Any] | None, said("Words, or JsonLogic.")] = None,
    queryType: QueryType | None = None,
    mode: SmartMode | None = None,
    contextLength: int | None = None,
    maxMatchesPerFile: int | None = None,
    withOffsets: bool | None = None,
    excludeFolders: list[str] | None = None,
    prefix: str | None = None,
    period: periodic.PeriodName | None = None,
    date: Annotated[str | None, said("YYYY-MM-DD.")] = None,
    filenames: list[str] | None = None,
    days: int | None = None,
    filter: str | None = None,
) -> Blocks:
    """Read and search notes."""
    return await dispatch(ctx, "vault", operation, locals())


@model_facing_errors
async def vault_edit(
    ctx: ToolContext,
    operation: EditOperation,
    filename: str | None = None,
    content: str | None = None,
    overwrite: bool | None = None,
    patchOperation: PatchOperation | None = None,
    targetType: TargetType | None = None,
    target: Annotated[str | None, said("Heading, block id or frontmatter key.")] = None,
    contentType: ContentType | None = None,
    createTargetIfMissing: bool | None = None,
    permanent: bool | None = None,
    source: str | None = None,
    destination: str | None = None,
    pattern: Annotated[str | None, said("Glob.")] = None,
    folder: str | None = None,
    exclude: Annotated[str | None, said("Glob to keep.")] = None,
    dryRun: bool | None = None,
    confirmAll: Annotated[bool | None, said("Allow matching every note.")] = None,
    limit: int | None = None,
    offset: int | None = None,
    period: periodic.PeriodName | None = None,
    date: str | None = None,
    name: Annotated[str | None, said("Template path.")] = None,
    arguments: Annotated[dict[str, str] | None, said("Template values.")] = None,
    createFile: Annotated[bool | None, said("Save at targetPath.")] = None,
    targetPath: str | None = None,
    find: str | None = None,
    replacement: str | None = None,
    regex: bool | None = None,
    frontmatter: Annotated[bool | None, said("Also in frontmatter.")] = None,
    key: str | None = None,
    value: Any = None,
    tag: str | None = None,
    inline: Annotated[bool | None, said("Also #tag in the text.")] = None,
    newLeaf: Annotated[bool | None, said("New tab.")] = None,
    commandId: str | None = None,
) -> Blocks:
    """Change notes; open one; run Obsidian commands."""
    return await dispatch(ctx, "vault_edit", operation, locals())


@model_facing_errors
async def memory(
    ctx: ToolContext,
    operation: MemoryOperation,
    query: str | None = None,
    id: int | None = None,
    ids: list[int] | None = None,
    observation_id: int | None = None,
    project: str | None = None,
    scope: Annotated[Scope | None, said("personal: about the user.")] = None,
    type: str | None = None,
    title: str | None = None,
    content: str | None = None,
    topic_key: Annotated[str | None, said("e.g. 'arch/auth'.")] = None,
    session_id: str | None = None,
    directory: str | None = None,
    summary: str | None = None,
    limit: int | None = None,
    before: int | None = None,
    after: int | None = None,
    detail_level: DetailLevel | None = None,
    max_tokens: int | None = None,
    change: Annotated[str | None, said("Spec change name.")] = None,
    stage: Stage | None = None,
    change_description: str | None = None,
) -> Blocks:
    """Memory across sessions: search, read, add."""
    return await dispatch(ctx, "memory", operation, locals())


@model_facing_errors
async def memory_edit(
    ctx: ToolContext,
    operation: MemoryEditOperation,
    id: int | None = None,
    title: str | None = None,
    content: str | None = None,
    type: str | None = None,
    topic_key: Annotated[str | None, said("'' removes it.")] = None,
    hard: Annotated[bool | None, said("Remove for good.")] = None,
    older_than_days: int | None = None,
    project: str | None = None,
    scope: Scope | None = None,
    compact_ids: Annotated[list[int] | str | None, said("Omit to list candidates.")] = None,
    summary_title: str | None = None,
    summary_content: str | None = None,
    session_id: str | None = None,
) -> Blocks:
    """Revise or delete memories."""
    return await dispatch(ctx, "memory_edit", operation, locals())
