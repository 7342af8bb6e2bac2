"""Which tools a server offers: the tool profiles of VAULTGATE_TOOLS.

- ``full``: every single tool, the dispatchers and discover.
- ``compact``: ``vault``, ``vault_edit``, ``memory``, ``memory_edit``, ``discover`` and
  ``fetch``; every operation stays reachable through the dispatchers.
- a comma-separated list of tool names: exactly those.

Read-only servers (VAULTGATE_READ_ONLY) drop every single tool that writes to the vault, and
``vault_edit``; ``vault`` only reads anyway. A call of a writing tool or operation is refused
by its name (writing_call, asked by server.py before anything else), so the model hears that
the server is read-only rather than "Unknown tool". The memory tools, and both memory
dispatchers, write only to vaultgate's own database and stay.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from types import ModuleType
from typing import Any

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
    WRITE,
    ToolSpec,
    titled,
)
from vaultgate.tools.catalogue import build_catalogue
from vaultgate.tools.discover import make_discover

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
# Each one's annotations hold for every operation it offers (a test walks them).
DISPATCHER_SPECS: list[ToolSpec] = [
    (dispatch.vault, titled(READ_ONLY, "Read and search the vault")),
    # run_command runs any Obsidian command, which can do anything a plugin can
    (dispatch.vault_edit, titled(ANYTHING, "Change the vault")),
    (dispatch.memory, titled(WRITE, "Memory across sessions")),
    (dispatch.memory_edit, titled(DESTRUCTIVE, "Revise or delete memories")),
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
    if settings.safety.read_only:  # before the catalogue: discover lists only what is here
        chosen = [spec for spec in chosen if _keeps(spec)]
    names_chosen = {tool.__name__ for tool, _ in chosen}
    catalogue = build_catalogue(single_tools(), names_chosen)
    if settings.tools in PROFILES or "discover" in settings.tools.split(","):
        discover = make_discover(catalogue)
        chosen = [(discover, titled(READ_ONLY, "Find operations and their parameters")), *chosen]
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


def _keeps(spec: ToolSpec) -> bool:
    """Whether a read-only server offers ``spec``: it does not write to the vault (memory is
    vaultgate's own database)."""
    tool, hints = spec
    if tool.__name__ in dispatch.DISPATCHERS:
        routes, _ = dispatch.DISPATCHERS[tool.__name__]
        return not any(route.writes for route in routes.values())
    return bool(hints.read_only_hint) or tool.__module__ == memory.__name__


def writing_call(tool: str, arguments: Mapping[str, Any]) -> WritingCall | None:
    """The refusal a read-only server answers this call with, if the call writes to the
    vault: a dispatcher's writing operation, or a single tool that writes, offered or not
    (a read-only server offers none). None for every other call, unknown ones included."""
    if tool in dispatch.DISPATCHERS:
        routes, _ = dispatch.DISPATCHERS[tool]
        operation = arguments.get("operation")
        if isinstance(operation, str) and operation in routes:
            return dispatch.writing_operation(tool, operation) if routes[operation].writes else None
        if all(route.writes for route in routes.values()):  # vault_edit, whatever was asked
            return WritingCall(tool, "Reading the vault still works.")
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
