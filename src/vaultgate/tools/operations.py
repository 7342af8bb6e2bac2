"""The dispatchers' operations: each one a Route to the single tool that does the work.

Both profiles' dispatchers (tools/dispatch.py, the unified ones of the default profile, and
tools/dispatch_split.py, the read/write split) are built from these tables, so an operation
answers exactly what its single tool answers for the same arguments (defaults, bounds,
errors), whichever dispatcher reaches it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from vaultgate.calls import render_call
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
from vaultgate.tools.base import ToolFunction
from vaultgate.tools.routes import Route


@dataclass(frozen=True, slots=True)
class Dispatcher:
    """A dispatcher tool: its name and its operations, in the order its schema lists them."""

    name: str
    routes: Mapping[str, Route]

    @property
    def operations(self) -> tuple[str, ...]:
        return tuple(self.routes)

    def writes(self) -> bool:
        """Whether any operation writes to the vault (a read-only server then drops those)."""
        return any(route.writes for route in self.routes.values())


# Reading the vault (without the open note's `active`, which active_file reads).
VAULT_READS: dict[str, Route] = {
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
    "commands": Route(commands.list_commands),
}

# Every change to the vault, and what Obsidian does on request (open a note, run a command).
VAULT_CHANGES: dict[str, Route] = {
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
    "open": Route(active.show_file_in_obsidian, writes=True),
    "run_command": Route(commands.execute_command, writes=True),
}

# The note open in Obsidian: seed 004's active_file dispatcher.
ACTIVE_FILE: dict[str, Route] = {
    "read": Route(read.get_active_file),
    "update": Route(active.update_active_file, writes=True),
    "append": Route(active.append_to_active_file, writes=True),
    "patch": Route(active.patch_active_file, writes=True),
    "delete": Route(active.delete_active_file, writes=True),
}

# Reading memory, and the writes that add or revise (save keeps a replaced text as a revision).
MEMORY_READS_AND_ADDS: dict[str, Route] = {
    "search": Route(memory_tools.mem_search),
    # seed 002's own `timeline` (full profile) is mem_timeline's form around a time
    "timeline": Route(memory_tools.mem_timeline, answers_for=("timeline",)),
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

# What changes or removes a memory already saved.
MEMORY_CHANGES: dict[str, Route] = {
    "update": Route(memory_tools.mem_update),
    "delete": Route(memory_tools.mem_delete),
    "compact": Route(memory_tools.mem_compact),
}

# The default profile's dispatchers (seed 004's design: vault, active_file; and memory).
UNIFIED: dict[str, Dispatcher] = {
    "vault": Dispatcher("vault", {**VAULT_READS, **VAULT_CHANGES}),
    "active_file": Dispatcher("active_file", ACTIVE_FILE),
    "memory": Dispatcher("memory", {**MEMORY_READS_AND_ADDS, **MEMORY_CHANGES}),
}

# The split profile's: reading apart from changing, for hosts that approve tools one by one.
SPLIT: dict[str, Dispatcher] = {
    "vault": Dispatcher(
        "vault",
        {**VAULT_READS, "active": ACTIVE_FILE["read"]},
    ),
    "vault_edit": Dispatcher(
        "vault_edit",
        {
            **{op: r for op, r in VAULT_CHANGES.items() if op not in ("open", "run_command")},
            "active_update": ACTIVE_FILE["update"],
            "active_append": ACTIVE_FILE["append"],
            "active_patch": ACTIVE_FILE["patch"],
            "active_delete": ACTIVE_FILE["delete"],
            "open": VAULT_CHANGES["open"],
            "run_command": VAULT_CHANGES["run_command"],
        },
    ),
    "memory": Dispatcher("memory", MEMORY_READS_AND_ADDS),
    "memory_edit": Dispatcher("memory_edit", MEMORY_CHANGES),
}


@dataclass(frozen=True, slots=True)
class CallShape:
    """What a call takes: ``call``, as the model made it (``vault(operation="list")``); the
    parameters it accepts and requires; and ``tool``, the single tool that will run it."""

    call: str
    accepted: list[str]
    required: list[str]
    tool: str


def call_shape(
    tool: str,
    arguments: Mapping[str, Any],
    function: ToolFunction,
    dispatchers: Mapping[str, Dispatcher],
) -> CallShape:
    """A dispatcher operation's own parameters (with ``operation``) once the operation is
    known, else the tool's schema."""
    dispatcher = dispatchers.get(tool)
    operation = arguments.get("operation")
    if dispatcher is not None and isinstance(operation, str) and operation in dispatcher.routes:
        route = dispatcher.routes[operation]
        parameters = route.parameters
        return CallShape(
            render_call(tool, {"operation": operation}),
            ["operation", *(p.name for p in parameters)],
            ["operation", *(p.name for p in parameters if p.required)],
            route.tool_name,
        )
    parameters = Route(function).parameters
    return CallShape(
        tool,
        [p.name for p in parameters],
        [p.name for p in parameters if p.required],
        tool,
    )
