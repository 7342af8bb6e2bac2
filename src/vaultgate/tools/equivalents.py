"""A call this server's profile cannot take, answered with the call that does the same here.

Profiles offer the same operations under different tools (``vault_edit(operation="create")``
in the split profile is ``vault(operation="create")`` in the default one), and earlier
releases had other names (``active_file(operation="commands")``, ``vault(operation="map")``).
A model with such a habit is told the exact call, with its own arguments, that does the same
in the profile in use; nothing is run, since a host approves tools by name and the call would
otherwise bypass what the user approved.

Which single tool a call means is looked up in every profile's tables (tools/operations.py),
then spelled the way this server offers that tool (tools/spelling.py).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

from vaultgate.calls import Raw, render_call
from vaultgate.errors import InvalidArgument, VaultgateError, WritingCall
from vaultgate.tools.arguments import normalized
from vaultgate.tools.operations import SPLIT, UNIFIED, Dispatcher
from vaultgate.tools.routes import Route

# Operations earlier releases offered that no profile has now: (tool, operation) → the single
# tool that does the same, and the arguments it needs for that.
FORMER_OPERATIONS: Mapping[tuple[str, str], tuple[str, dict[str, Any]]] = {
    ("vault", "map"): ("get_vault_file", {"format": "map"}),
    ("active_file", "commands"): ("list_commands", {}),
    ("active_file", "open"): ("show_file_in_obsidian", {}),
    ("active_file", "run_command"): ("execute_command", {}),
}


@functools.cache  # asked on every call: the tables never change
def _single_tools() -> frozenset[str]:
    """Every single tool some dispatcher operation reaches (in the full profile, or a list of
    names, each is offered under its own name too)."""
    return frozenset(
        name
        for table in (UNIFIED, SPLIT)
        for dispatcher in table.values()
        for route in dispatcher.routes.values()
        for name in route.single_tools
    )


def _dispatcher(tool: str) -> bool:
    return tool in UNIFIED or tool in SPLIT


def meant_tool(tool: str, operation: object) -> tuple[str, dict[str, Any]] | None:
    """The single tool ``tool(operation=...)`` means in any profile, with the arguments that
    operation fixes; ``tool`` itself when it is a single tool; None when no profile knows it."""
    if not _dispatcher(tool) and tool in _single_tools():
        return tool, {}
    if not isinstance(operation, str):
        return None
    for table in (UNIFIED, SPLIT):
        dispatcher = table.get(tool)
        if dispatcher is not None and operation in dispatcher.routes:
            return dispatcher.routes[operation].tool_name, {}
    return FORMER_OPERATIONS.get((tool, operation))


def known_tool(tool: str) -> bool:
    """Whether some profile, or an earlier release, has a tool of this name."""
    return _dispatcher(tool) or tool in _single_tools()


def operation_here(single: str, dispatchers: Mapping[str, Dispatcher]) -> tuple[str, str] | None:
    """The dispatcher operation of this profile that answers for single tool ``single``."""
    for name, dispatcher in dispatchers.items():
        for operation, route in dispatcher.routes.items():
            if single in route.single_tools:
                return name, operation
    return None


def _route_to(single: str) -> Route | None:
    """A route to single tool ``single`` in any profile (they all run the same function)."""
    for table in (UNIFIED, SPLIT):
        for dispatcher in table.values():
            for route in dispatcher.routes.values():
                if route.tool_name == single:
                    return route
    return None


def equivalent_call(
    tool: str,
    arguments: Mapping[str, Any],
    *,
    dispatchers: Mapping[str, Dispatcher],
    offered: frozenset[str],
) -> str | None:
    """``tool(**arguments)`` as this profile spells it, when ``tool`` (or its operation) is
    not offered here but another tool here does the same; None otherwise."""
    meant = meant_tool(tool, arguments.get("operation"))
    if meant is None:
        return None
    single, fixed = meant
    # a dispatcher's operation is spent on choosing the tool; a single tool's `operation` is
    # an argument (patch_vault_file's former name for patchOperation)
    rest = {
        name: value
        for name, value in arguments.items()
        if name != "operation" or not _dispatcher(tool)
    }
    route = _route_to(single)
    if route is not None:  # as the call means them: no nulls, host keys or empty fills
        parameters = route.parameters
        rest = normalized(
            rest,
            [p.name for p in parameters],
            required=[p.name for p in parameters if p.required],
            tool=single,
        )
    rest = {**rest, **fixed}
    if single in offered:
        return render_call(single, rest)
    reached = operation_here(single, dispatchers)
    if reached is None:
        return None
    dispatcher, operation = reached
    return render_call(dispatcher, {"operation": operation, **rest})


def not_offered(
    tool: str,
    arguments: Mapping[str, Any],
    *,
    dispatchers: Mapping[str, Dispatcher],
    offered: frozenset[str],
) -> VaultgateError | None:
    """The answer to a call this profile does not take but can do another way: the exact
    equivalent call, nothing done. (A read-only server refuses writes before: writing_call.)"""
    if tool in dispatchers:
        operation = arguments.get("operation")
        if isinstance(operation, str) and operation in dispatchers[tool].routes:
            return None  # offered as asked
    elif tool in offered or not known_tool(tool):
        return None
    operation = arguments.get("operation")
    dispatched = operation is not None and _dispatcher(tool)
    asked = render_call(tool, {"operation": operation}) if dispatched else tool
    new_call = equivalent_call(tool, arguments, dispatchers=dispatchers, offered=offered)
    if new_call is None:
        return None
    return InvalidArgument(
        f"{asked} is not offered by this server's tools; {new_call} does the same. "
        "Nothing was done."
    )


def writing_operation(dispatcher: str, operation: str) -> WritingCall:
    """The refusal of a read-only server asked for ``operation``, a writing one."""
    return WritingCall(
        render_call(dispatcher, {"operation": operation}),
        f"Reading still works: {render_call('vault', {'operation': Raw('...')})}.",
    )


def writes(tool: str, arguments: Mapping[str, Any], writing_tools: frozenset[str]) -> bool:
    """Whether ``tool(**arguments)`` writes to the vault, in whichever profile it exists."""
    meant = meant_tool(tool, arguments.get("operation"))
    single = meant[0] if meant is not None else tool
    if single in writing_tools:
        return True
    if tool == "vault_edit":  # every operation of it writes, whatever was asked
        return True
    return tool == "active_file" and arguments.get("operation") != "read"


def writing_call(
    tool: str,
    arguments: Mapping[str, Any],
    *,
    dispatchers: Mapping[str, Dispatcher],
    writing_tools: frozenset[str],
) -> WritingCall | None:
    """The refusal a read-only server answers this call with, if the call writes to the
    vault: a dispatcher's writing operation (of this profile or another), or a single tool
    that writes, offered or not.
    None for every other call, unknown ones included."""
    if not writes(tool, arguments, writing_tools):
        return None
    operation = arguments.get("operation")
    # a dispatcher of any profile (vault_edit, active_file on a read-only server) is named
    # with the operation asked, as the model wrote the call
    if (tool in dispatchers or known_tool(tool)) and isinstance(operation, str):
        return writing_operation(tool, operation)
    return WritingCall(tool, "Reading the vault still works.")
