"""The dispatchers: `vault` and `active_file` reach every note operation through two schemas.

Each operation is a Route to the single tool that does the work, so a dispatcher call answers
exactly what the single tool answers for the same arguments (defaults, bounds, errors). The
tables are exhaustive over the operation Literals; a test checks it.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, get_args

from pydantic import Field

from vaultgate.errors import ReadOnlyMode
from vaultgate.obsidian.patch import Operation as PatchOperation
from vaultgate.obsidian.patch import TargetType
from vaultgate.tools import active, edit, read, search
from vaultgate.tools.base import Blocks, ToolContext, app_state, model_facing_errors
from vaultgate.tools.routes import Route
from vaultgate.vault.documents import NoteFormat
from vaultgate.vault.editing import ContentType
from vaultgate.vault.search import QueryType

VaultOperation = Literal[
    "list",
    "read",
    "map",
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
]
ActiveOperation = Literal["read", "update", "append", "patch", "delete", "open"]

_PATCH = {"patchOperation": "operation"}

VAULT_ROUTES: dict[str, Route] = {
    "list": Route(read.list_vault_files),
    "read": Route(read.get_vault_file),
    "map": Route(read.get_vault_file, fixed={"format": "map"}),
    "search": Route(search.search_vault_simple),
    "search_structured": Route(search.search_vault),
    "search_smart": Route(search.search_vault_smart),
    "create": Route(edit.create_vault_file, writes=True),
    "append": Route(edit.append_to_vault_file, writes=True),
    "patch": Route(edit.patch_vault_file, renames=_PATCH, writes=True),
    "delete": Route(edit.delete_vault_file, writes=True),
    "move": Route(edit.move_vault_file, writes=True),
    "bulk_delete": Route(edit.bulk_delete_files, writes=True),
    "tags": Route(search.list_tags),
}

ACTIVE_ROUTES: dict[str, Route] = {
    "read": Route(read.get_active_file),
    "update": Route(active.update_active_file, writes=True),
    "append": Route(active.append_to_active_file, writes=True),
    "patch": Route(active.patch_active_file, renames=_PATCH, writes=True),
    "delete": Route(active.delete_active_file, writes=True),
    "open": Route(active.show_file_in_obsidian, writes=True),
}

# What the dispatchers say of themselves on a read-only server, whose schemas list only the
# reading operations (tools/registry.py).
READ_ONLY_DOCS: dict[str, str] = {
    "vault": (
        "Every reading note operation in one tool (this server is read-only): list, read, "
        "map, search, search_structured, search_smart, tags. Each takes the parameters (and "
        "defaults) of its single tool; call discover(operation='vault.<op>') for them. Pages "
        "continue with offset=nextOffset; windows with startIndex=nextIndex."
    ),
    "active_file": (
        "Read the note open in Obsidian (this server is read-only); takes the parameters of "
        "get_active_file (discover(operation='active_file.read'))."
    ),
}

DISPATCHERS: dict[str, tuple[dict[str, Route], tuple[str, ...]]] = {
    "vault": (VAULT_ROUTES, get_args(VaultOperation)),
    "active_file": (ACTIVE_ROUTES, get_args(ActiveOperation)),
}


async def dispatch(
    ctx: ToolContext, dispatcher: str, operation: str, arguments: dict[str, Any]
) -> Blocks:
    routes, _ = DISPATCHERS[dispatcher]
    route = routes[operation]
    if route.writes and app_state(ctx).settings.safety.read_only:
        raise ReadOnlyMode(f"{dispatcher}(operation={operation!r})")
    given = {name: value for name, value in arguments.items() if value is not None}
    return await route.call(ctx, operation, given)


@model_facing_errors
async def vault(
    ctx: ToolContext,
    operation: Annotated[VaultOperation, Field(description="What to do; see discover().")],
    filename: Annotated[
        str | None, Field(description="Note path (read, map, create, ...).")
    ] = None,
    directory: Annotated[str | None, Field(description="Folder (list, bulk_delete).")] = None,
    recursive: bool | None = None,
    pattern: Annotated[str | None, Field(description="Glob on vault paths.")] = None,
    limit: int | None = None,
    offset: int | None = None,
    format: NoteFormat | None = None,
    maxLength: int | None = None,
    startIndex: int | None = None,
    section: Annotated[str | None, Field(description="'Heading' or 'Parent::Child'.")] = None,
    query: Annotated[str | dict[str, Any] | None, Field(description="Words, or JsonLogic.")] = None,
    queryType: QueryType | None = None,
    contextLength: int | None = None,
    folder: str | None = None,
    maxMatchesPerFile: int | None = None,
    folders: list[str] | None = None,
    excludeFolders: list[str] | None = None,
    content: str | None = None,
    overwrite: bool | None = None,
    patchOperation: PatchOperation | None = None,
    targetType: TargetType | None = None,
    target: str | None = None,
    contentType: ContentType | None = None,
    createTargetIfMissing: bool | None = None,
    permanent: bool | None = None,
    source: str | None = None,
    destination: str | None = None,
    exclude: str | None = None,
    dryRun: bool | None = None,
    confirmAll: bool | None = None,
    prefix: str | None = None,
) -> Blocks:
    """Every note operation in one tool: list, read, map, search, search_structured,
    search_smart, create, append, patch, delete, move, bulk_delete, tags. Each takes the
    parameters (and defaults) of its single tool; call discover(operation='vault.<op>') for
    them. Pages continue with offset=nextOffset; windows with startIndex=nextIndex."""
    arguments = {
        "filename": filename,
        "directory": directory,
        "recursive": recursive,
        "pattern": pattern,
        "limit": limit,
        "offset": offset,
        "format": format,
        "maxLength": maxLength,
        "startIndex": startIndex,
        "section": section,
        "query": query,
        "queryType": queryType,
        "contextLength": contextLength,
        "folder": folder,
        "maxMatchesPerFile": maxMatchesPerFile,
        "folders": folders,
        "excludeFolders": excludeFolders,
        "content": content,
        "overwrite": overwrite,
        "patchOperation": patchOperation,
        "targetType": targetType,
        "target": target,
        "contentType": contentType,
        "createTargetIfMissing": createTargetIfMissing,
        "permanent": permanent,
        "source": source,
        "destination": destination,
        "exclude": exclude,
        "dryRun": dryRun,
        "confirmAll": confirmAll,
        "prefix": prefix,
    }
    return await dispatch(ctx, "vault", operation, arguments)


@model_facing_errors
async def active_file(
    ctx: ToolContext,
    operation: Annotated[ActiveOperation, Field(description="What to do; see discover().")],
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
    filename: Annotated[str | None, Field(description="Note to open (open).")] = None,
    newLeaf: bool | None = None,
) -> Blocks:
    """The note open in Obsidian: read, update, append, patch, delete, or open another note.
    Each takes the parameters of its single tool (discover(operation='active_file.<op>'))."""
    arguments = {
        "format": format,
        "maxLength": maxLength,
        "startIndex": startIndex,
        "content": content,
        "patchOperation": patchOperation,
        "targetType": targetType,
        "target": target,
        "contentType": contentType,
        "createTargetIfMissing": createTargetIfMissing,
        "permanent": permanent,
        "filename": filename,
        "newLeaf": newLeaf,
    }
    return await dispatch(ctx, "active_file", operation, arguments)
