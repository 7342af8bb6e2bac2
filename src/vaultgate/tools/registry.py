"""Which tools a server offers: the tool profiles of VAULTGATE_TOOLS.

- ``compact`` (default): seed 004's dispatchers: ``vault`` (every vault operation, reads and
  changes), ``active_file`` (the open note), ``memory`` (every memory and SDD operation), with
  ``discover`` and ``fetch``.
- ``split``: reading apart from changing, for hosts that approve tools one by one: ``vault``
  and ``vault_edit``, ``memory`` and ``memory_edit``, ``discover`` and ``fetch``.
- ``full``: every single tool, the default profile's dispatchers and discover.
- a comma-separated list of tool names: exactly those (``vault_edit`` or ``memory_edit`` in
  it choose the split dispatchers).

Read-only servers (VAULTGATE_READ_ONLY) drop every single tool that writes to the vault, and
every dispatcher operation that does: their ``vault`` is the split profile's reading one (it
reads the open note too, as ``vault.active``), and ``active_file`` and ``vault_edit`` are not
offered. A call of a writing tool or operation is refused by its name (writing_call, asked by
server.py before anything else), so the model hears that the server is read-only rather than
"Unknown tool". The memory tools and dispatchers write only to vaultgate's own database and
stay.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from types import ModuleType

from mcp.types import ToolAnnotations

from vaultgate.config import Settings
from vaultgate.errors import ConfigError
from vaultgate.tools import (
    active,
    commands,
    dispatch,
    dispatch_split,
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
    ToolFunction,
    ToolSpec,
    titled,
)
from vaultgate.tools.catalogue import build_catalogue
from vaultgate.tools.discover import make_discover
from vaultgate.tools.operations import SPLIT, UNIFIED, Dispatcher

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


@dataclass(frozen=True, slots=True)
class DispatcherTool:
    """A dispatcher as a server registers it: its operations, its function (whose signature
    is its schema) and its annotations, which hold for every operation it offers (a test
    walks them)."""

    dispatcher: Dispatcher
    function: ToolFunction
    hints: ToolAnnotations

    @property
    def spec(self) -> ToolSpec:
        return (self.function, self.hints)


UNIFIED_TOOLS: dict[str, DispatcherTool] = {
    # run_command runs any Obsidian command, which can do anything a plugin can
    "vault": DispatcherTool(
        UNIFIED["vault"], dispatch.vault, titled(ANYTHING, "Read and change the vault")
    ),
    "active_file": DispatcherTool(
        UNIFIED["active_file"], dispatch.active_file, titled(DESTRUCTIVE, "The open note")
    ),
    "memory": DispatcherTool(
        UNIFIED["memory"], dispatch.memory, titled(DESTRUCTIVE, "Memory across sessions")
    ),
}
SPLIT_TOOLS: dict[str, DispatcherTool] = {
    "vault": DispatcherTool(
        SPLIT["vault"], dispatch_split.vault, titled(READ_ONLY, "Read and search the vault")
    ),
    "vault_edit": DispatcherTool(
        SPLIT["vault_edit"], dispatch_split.vault_edit, titled(ANYTHING, "Change the vault")
    ),
    "memory": DispatcherTool(
        SPLIT["memory"], dispatch_split.memory, titled(WRITE, "Memory across sessions")
    ),
    "memory_edit": DispatcherTool(
        SPLIT["memory_edit"],
        dispatch_split.memory_edit,
        titled(DESTRUCTIVE, "Revise or delete memories"),
    ),
}
# What a read-only server offers in place of the default profile's dispatchers.
READ_ONLY_TOOLS: dict[str, DispatcherTool] = {
    "vault": SPLIT_TOOLS["vault"],
    "memory": UNIFIED_TOOLS["memory"],
}
COMPACT_MODULES = (web,)
PROFILES = ("compact", "split", "full")
SPLIT_ONLY = frozenset({"vault_edit", "memory_edit"})


def _module_name(module: ModuleType) -> str:
    return module.__name__.rsplit(".", 1)[-1]


def single_tools() -> list[tuple[str, list[ToolSpec]]]:
    return [(_module_name(module), list(module.TOOLS)) for module in SINGLE_TOOL_MODULES]


def dispatcher_tools(settings: Settings) -> dict[str, DispatcherTool]:
    """The dispatchers in force for ``settings``, by name (offered or not: a list of names
    may offer some of them)."""
    split = settings.tools == "split" or bool(SPLIT_ONLY & set(_names(settings.tools)))
    if split:
        chosen = SPLIT_TOOLS
    elif settings.safety.read_only:
        chosen = READ_ONLY_TOOLS
    else:
        chosen = UNIFIED_TOOLS
    if settings.safety.read_only:
        return {name: tool for name, tool in chosen.items() if _keeps(tool.spec, chosen)}
    return dict(chosen)


def profile_dispatchers(settings: Settings) -> dict[str, Dispatcher]:
    """The dispatchers this server offers, by name."""
    offered = {tool.__name__ for tool, _ in select_tools(settings)}
    return {
        name: tool.dispatcher
        for name, tool in dispatcher_tools(settings).items()
        if name in offered
    }


def select_tools(settings: Settings) -> list[ToolSpec]:
    """The tools this server registers, in a stable order, discover included."""
    singles = [spec for _, specs in single_tools() for spec in specs]
    dispatchers = [tool.spec for tool in dispatcher_tools(settings).values()]
    match settings.tools:
        case "full":
            chosen = dispatchers + singles
        case "compact" | "split":
            chosen = dispatchers + [spec for m in COMPACT_MODULES for spec in m.TOOLS]
        case names:
            chosen = _by_name(names, dispatchers + singles, settings)
    if settings.safety.read_only:  # before the catalogue: discover lists only what is here
        chosen = [spec for spec in chosen if _keeps(spec, dispatcher_tools(settings))]
    names_chosen = {tool.__name__ for tool, _ in chosen}
    in_force = {name: tool.dispatcher for name, tool in dispatcher_tools(settings).items()}
    catalogue = build_catalogue(single_tools(), names_chosen, in_force)
    if settings.tools in PROFILES or "discover" in _names(settings.tools):
        discover = make_discover(catalogue)
        chosen = [(discover, titled(READ_ONLY, "Find operations and their parameters")), *chosen]
    return chosen


def _names(tools: str) -> list[str]:
    return [name.strip() for name in tools.split(",") if name.strip()]


def _by_name(names: str, available: list[ToolSpec], settings: Settings) -> list[ToolSpec]:
    wanted = _names(names)
    known = {tool.__name__: (tool, hints) for tool, hints in available}
    every = set(known) | set(UNIFIED_TOOLS) | set(SPLIT_TOOLS)
    unknown = [name for name in wanted if name not in every and name != "discover"]
    if unknown:
        raise ConfigError(
            f"VAULTGATE_TOOLS names unknown tools: {', '.join(unknown)}. Use 'compact', "
            f"'split', 'full', or names from: discover, {', '.join(sorted(every))}."
        )
    if not settings.safety.read_only:
        mixed = [name for name in wanted if name in UNIFIED_TOOLS and name not in known]
        if mixed:
            raise ConfigError(
                f"VAULTGATE_TOOLS names {', '.join(mixed)} with vault_edit or memory_edit: "
                "those belong to the default profile's dispatchers, these to the split one's. "
                "Name vault, vault_edit, memory, memory_edit, or vault, active_file, memory."
            )
    return [known[name] for name in wanted if name in known]


def _keeps(spec: ToolSpec, dispatchers: Mapping[str, DispatcherTool]) -> bool:
    """Whether a read-only server offers ``spec``: it does not write to the vault (memory is
    vaultgate's own database)."""
    tool, hints = spec
    if tool.__name__ in dispatchers:
        return not dispatchers[tool.__name__].dispatcher.writes()
    return bool(hints.read_only_hint) or tool.__module__ == memory.__name__


@functools.cache
def writing_tools() -> frozenset[str]:
    """The single tools a read-only server leaves out: those that write to the vault."""
    return frozenset(
        spec[0].__name__ for _, specs in single_tools() for spec in specs if not _keeps(spec, {})
    )
