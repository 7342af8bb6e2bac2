"""The split profile's dispatchers (VAULTGATE_TOOLS=split): reading apart from changing.

`vault` and `memory` never destroy anything, so a host that approves tools one by one can let
a user approve them once and still ask before each `vault_edit` or `memory_edit`. The default
profile has seed 004's unified `vault` and `active_file` instead (tools/dispatch.py); both are
built from the same operation tables (tools/operations.py).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from vaultgate.memory.models import Scope
from vaultgate.memory.render import DetailLevel
from vaultgate.patch_request import Operation as PatchOperation
from vaultgate.patch_request import TargetType
from vaultgate.sdd.layout import Stage
from vaultgate.tools import periodic
from vaultgate.tools.base import Blocks, ToolContext, model_facing_errors
from vaultgate.tools.dispatch import dispatch, said
from vaultgate.tools.operations import SPLIT
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
    "active",
]
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
MemoryEditOperation = Literal["update", "delete", "compact"]


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
    prefix: str | None = None,
    period: periodic.PeriodName | None = None,
    date: Annotated[str | None, said("YYYY-MM-DD.")] = None,
    filenames: list[str] | None = None,
    days: int | None = None,
    filter: Annotated[str | dict[str, Any] | None, said("search_smart: {folders, ...}.")] = None,
) -> Blocks:
    """Read and search notes."""
    return await dispatch(ctx, SPLIT["vault"], operation, locals())


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
    directory: str | None = None,
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
    value: PropertyValue = None,
    tag: str | None = None,
    inline: Annotated[bool | None, said("Also #tag in the text.")] = None,
    newLeaf: Annotated[bool | None, said("New tab.")] = None,
    commandId: str | None = None,
) -> Blocks:
    """Change notes; open one; run Obsidian commands."""
    return await dispatch(ctx, SPLIT["vault_edit"], operation, locals())


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
) -> Blocks:
    """Memory across sessions: search, read, add."""
    return await dispatch(ctx, SPLIT["memory"], operation, locals())


@model_facing_errors
async def memory_edit(
    ctx: ToolContext,
    operation: MemoryEditOperation,
    id: int | None = None,
    title: str | None = None,
    content: str | None = None,
    type: str | None = None,
    topic_key: Annotated[str | None, said("e.g. 'arch/auth'.")] = None,
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
    return await dispatch(ctx, SPLIT["memory_edit"], operation, locals())
