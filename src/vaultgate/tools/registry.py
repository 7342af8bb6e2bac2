"""Which tools a server offers: the tool profiles of VAULTGATE_TOOLS.

- ``full``: every single tool, the dispatchers and discover.
- ``compact``: ``vault``, ``active_file``, ``memory``, ``discover`` and ``fetch``; every
  operation stays reachable through the dispatchers.
- a comma-separated list of tool names: exactly those.

Read-only servers (VAULTGATE_READ_ONLY) drop every single tool that writes to the vault; the
dispatchers stay with only their reading operations, and only the parameters those take, in
their schemas, announced read-only. A call of a writing tool or operation is refused by its
name (writing_call, asked by server.py before anything else), so the model hears that the
server is read-only rather than that its arguments do not fit a schema. The memory tools, and
the memory dispatcher, write only to vaultgate's own database and stay whole.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Mapping
from types import ModuleType
from typing import Any, Literal

from vaultgate.config import Settings
from vaultgate.errors import ConfigError, WritingCall
from vaultgate.tools import (
    active,
    commands,
    dispatch,
    edit,
    info,
    links,
    memory,
    notes,
    periodic,
    read,
    refactor,
    sdd,
    search,
    templates,
    web,
)
from vaultgate.tools.base import (
    ANYTHING,
    DESTRUCTIVE,
    READ_ONLY,
    Blocks,
    ToolFunction,
    ToolSpec,
    titled,
)
from vaultgate.tools.catalogue import build_catalogue
from vaultgate.tools.discover import make_discover
from vaultgate.tools.routes import CONTEXT_PARAMETER

SINGLE_TOOL_MODULES: tuple[ModuleType, ...] = (
    read,
    search,
    info,
    edit,
    refactor,
    active,
    commands,
    periodic,
    templates,
    web,
    memory,
    sdd,
    notes,  # issue 13, reading
    links,
)
DISPATCHER_SPECS: list[ToolSpec] = [
    (dispatch.vault, titled(DESTRUCTIVE, "Notes in the vault")),
    # active_file runs Obsidian commands too, which can do anything a plugin can
    (dispatch.active_file, titled(ANYTHING, "The note open in Obsidian, and commands")),
    (dispatch.memory, titled(DESTRUCTIVE, "Memory across sessions")),
]
COMPACT_MODULES = (web,)
PROFILES = ("compact", "full")


def _module_name(module: ModuleType) -> str:
    return module.__name__.rsplit(".", 1)[-1]


def single_tools() -> list[tuple[str, list[ToolSpec]]]:
    return [(_module_name(module), list(module.TOOLS)) for module in SINGLE_TOOL_MODULES]


def select_tools(settings: Settings) -> list[ToolSpec]:
    """The tools this server registers, in a stable order, discover included."""
    singles = [spec for _, specs in single_tools() for spec in specs]
    compact = DISPATCHER_SPECS + [spec for m in COMPACT_MODULES for spec in m.TOOLS]
    match settings.tools:
        case "full":
            chosen = DISPATCHER_SPECS + singles
        case "compact":
            chosen = compact
        case names:
            chosen = _by_name(names, DISPATCHER_SPECS + singles)
    names_chosen = {tool.__name__ for tool, _ in chosen}
    catalogue = build_catalogue(single_tools(), names_chosen)
    if settings.tools in PROFILES or "discover" in settings.tools.split(","):
        discover = make_discover(catalogue)
        chosen = [(discover, titled(READ_ONLY, "Find operations and their parameters")), *chosen]
    if settings.safety.read_only:
        chosen = [_read_only(spec) for spec in chosen if _keeps(spec)]
    return chosen


def _by_name(names: str, available: list[ToolSpec]) -> list[ToolSpec]:
    wanted = [name.strip() for name in names.split(",") if name.strip()]
    known = {tool.__name__: (tool, hints) for tool, hints in available}
    unknown = [name for name in wanted if name not in known and name != "discover"]
    if unknown:
        raise ConfigError(
            f"VAULTGATE_TOOLS names unknown tools: {', '.join(unknown)}. Use 'compact', 'full', "
            f"or names from: discover, {', '.join(sorted(known))}."
        )
    return [known[name] for name in wanted if name in known]


def _is_dispatcher(spec: ToolSpec) -> bool:
    return spec[0].__name__ in dispatch.DISPATCHERS


def _keeps(spec: ToolSpec) -> bool:
    tool, hints = spec
    return bool(hints.read_only_hint) or _is_dispatcher(spec) or tool.__module__ == memory.__name__


def _read_only(spec: ToolSpec) -> ToolSpec:
    tool, hints = spec
    if not _is_dispatcher(spec):
        return spec
    routes, _ = dispatch.DISPATCHERS[tool.__name__]
    if not any(route.writes for route in routes.values()):
        return spec  # memory: vaultgate's own database, not the vault
    return reading_dispatcher(tool), titled(READ_ONLY, hints.title or tool.__name__)


def reading_dispatcher(tool: ToolFunction) -> ToolFunction:
    """``tool`` (a dispatcher) whose schema offers only its reading operations and the
    parameters they take.

    The SDK builds a tool's schema from its signature, so the same function is offered under
    a signature whose ``operation`` is the Literal of the operations that do not write, and
    which leaves out every parameter only writing operations take (``content``,
    ``destination``, ``commandId``...): the dispatcher's own default (None) stands for them.
    """
    name = tool.__name__
    reading = dispatch.reading_operations(name)
    kept = dispatch.reading_parameters(name) | {"operation", CONTEXT_PARAMETER}
    signature = inspect.signature(tool, eval_str=True)
    narrowed = signature.parameters["operation"].replace(annotation=Literal[reading])

    @functools.wraps(tool)
    async def read_only_tool(*args: Any, **kwargs: Any) -> Blocks:
        return await tool(*args, **kwargs)

    read_only_tool.__signature__ = signature.replace(  # type: ignore[attr-defined]
        parameters=[
            narrowed if p.name == "operation" else p
            for p in signature.parameters.values()
            if p.name in kept
        ]
    )
    read_only_tool.__doc__ = dispatch.READ_ONLY_DOCS[tool.__name__]
    return read_only_tool


def writing_call(tool: str, arguments: Mapping[str, Any]) -> WritingCall | None:
    """The refusal a read-only server answers this call with, if the call writes to the
    vault: a dispatcher's writing operation, or a single tool that writes, offered or not
    (a read-only server offers none). None for every other call, unknown ones included."""
    if tool in dispatch.DISPATCHERS:
        routes, _ = dispatch.DISPATCHERS[tool]
        operation = arguments.get("operation")
        if isinstance(operation, str) and operation in routes and routes[operation].writes:
            return dispatch.writing_operation(tool, operation)
        return None
    if tool in writing_tools():
        return WritingCall(tool, "Reading the vault still works.")
    return None


@functools.cache
def writing_tools() -> frozenset[str]:
    """The single tools a read-only server leaves out: those that write to the vault."""
    return frozenset(
        spec[0].__name__ for _, specs in single_tools() for spec in specs if not _keeps(spec)
    )
