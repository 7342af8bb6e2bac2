"""The default profile's dispatchers: `vault`, `active_file` and `memory` reach every operation.

Seed 004's design: one `vault` dispatcher for every vault operation, reads and changes; one
`active_file` for the note open in Obsidian; and `memory` for every memory and SDD operation.
Hosts that approve tools one by one can have reading apart from changing instead
(VAULT_TOOLS=split, tools/dispatch_split.py).

Each operation is a Route to the single tool that does the work (tools/operations.py), so a
dispatcher call answers exactly what the single tool answers for the same arguments. The
operation Literals here are exhaustive over the tables; a test checks it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Literal

from pydantic import Field

from vaultgate.memory.models import Scope
from vaultgate.memory.render import DetailLevel
from vaultgate.patch_request import Operation as PatchOperation
from vaultgate.patch_request import TargetType
from vaultgate.sdd.layout import Stage
from vaultgate.tools import periodic
from vaultgate.tools.base import Blocks, ToolContext, app_state, model_facing_errors
from vaultgate.tools.equivalents import writing_operation
from vaultgate.tools.operations import UNIFIED, Dispatcher
from vaultgate.tools.refactor import PropertyValue
from vaultgate.vault.documents import NoteFormat
from vaultgate.vault.editing import ContentType
from vaultgate.vault.listing import Layout
from vaultgate.vault.search import QueryType, SmartMode

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
    "commands",
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
    "open",
    "run_command",
]
ActiveOperation = Literal["read", "update", "append", "patch", "delete"]
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
    "update",
    "delete",
    "compact",
]


async def dispatch(
    ctx: ToolContext, dispatcher: Dispatcher, operation: str, arguments: Mapping[str, Any]
) -> Blocks:
    """Run ``operation`` with the dispatcher's ``arguments``: its parameters as the model
    passed them (a dispatcher hands over its locals, so a new parameter cannot be left out),
    those not given being None."""
    route = dispatcher.routes[operation]
    if route.writes and app_state(ctx).settings.safety.read_only:
        raise writing_operation(dispatcher.name, operation)
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
    directory: Annotated[str | None, said("Folder; '' = root.")] = None,
    recursive: bool | None = None,
    pattern: Annotated[str | None, said("Glob.")] = None,
    layout: Annotated[Layout | None, said("tree: by folder, cheapest whole walk.")] = None,
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
    filter: Annotated[str | dict[str, Any] | None, said("search_smart: {folders, ...}.")] = None,
    prefix: str | None = None,
    period: periodic.PeriodName | None = None,
    date: Annotated[str | None, said("YYYY-MM-DD.")] = None,
    filenames: list[str] | None = None,
    days: int | None = None,
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
    exclude: Annotated[str | None, said("Glob to keep.")] = None,
    dryRun: bool | None = None,
    confirmAll: Annotated[bool | None, said("Allow matching every note.")] = None,
    name: Annotated[str | None, said("Template path.")] = None,
    arguments: Annotated[dict[str, str] | None, said("Template values.")] = None,
    createFile: Annotated[bool | None, said("Save at targetPath.")] = None,
    targetPath: str | None = None,
    find: str | None = None,
    replacement: str | None = None,
    regex: bool | None = None,
    frontmatter: Annotated[bool | None, said("Also in frontmatter.")] = None,
    key: str | None = None,
    value: PropertyValue = None,
    tag: str | None = None,
    inline: Annotated[bool | None, said("Also #tag in the text.")] = None,
    newLeaf: Annotated[bool | None, said("New tab.")] = None,
    commandId: str | None = None,
) -> Blocks:
    """Read, search and change notes; open one; run Obsidian commands."""
    return await dispatch(ctx, UNIFIED["vault"], operation, locals())


@model_facing_errors
async def active_file(
    ctx: ToolContext,
    operation: ActiveOperation,
    format: Annotated[NoteFormat | None, said("map: outline.")] = None,
    maxLength: int | None = None,
    startIndex: int | None = None,
    content: str | None = None,
    patchOperation: PatchOperation | None = None,
    targetType: TargetType | None = None,
    target: Annotated[str | None, said("Heading, block id or frontmatter key.")] = None,
    contentType: ContentType | None = None,
    createTargetIfMissing: bool | None = None,
    permanent: bool | None = None,
) -> Blocks:
    """The note open in Obsidian: read (windowed), update, append, patch, delete."""
    return await dispatch(ctx, UNIFIED["active_file"], operation, locals())


@model_facing_errors
async def memory(
    ctx: ToolContext,
    operation: MemoryOperation,
    query: str | None = None,
    id: int | None = None,
    ids: list[int] | None = None,
    revision: Annotated[int | None, said("get: an earlier text of id.")] = None,
    observation_id: int | None = None,
    anchor: Annotated[str | None, said("timeline: ISO datetime.")] = None,
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
    hard: Annotated[bool | None, said("Remove for good.")] = None,
    older_than_days: int | None = None,
    compact_ids: Annotated[list[int] | str | None, said("Omit to list candidates.")] = None,
    summary_title: str | None = None,
    summary_content: str | None = None,
) -> Blocks:
    """Memory across sessions and SDD context: search, read, save, revise, compact."""
    return await dispatch(ctx, UNIFIED["memory"], operation, locals())
