"""The catalogue `discover` pages through: every dispatcher operation and every single tool,
each marked with whether this server's profile offers it (discover lists only those).

Entries are built from the tool functions themselves (their docstrings and the SDK's model of
their signatures), so the catalogue cannot drift from what the tools accept.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from vaultgate.tools.base import ToolSpec
from vaultgate.tools.operations import Dispatcher
from vaultgate.tools.routes import Parameter, Route

# Categories by the module a tool lives in.
CATEGORIES: Mapping[str, str] = {
    "read": "read",
    "search": "search",
    "info": "info",
    "edit": "write",
    "refactor": "write",
    "active": "active",
    "commands": "commands",
    "periodic": "periodic",
    "templates": "templates",
    "web": "web",
    "memory": "memory",
    "sdd": "sdd",
    "notes": "read",  # issue 13, reading
    "links": "links",
}

EXAMPLES: Mapping[str, dict[str, Any]] = {
    "list_vault_files": {"directory": "Projects", "limit": 100},
    "get_vault_file": {"filename": "Daily/2026-11-21.md", "section": "Tasks"},
    "get_active_file": {"maxLength": 5000},
    "search_vault_simple": {"query": "meeting notes", "limit": 10},
    "search_vault": {"query": {"glob": ["Projects/**", {"var": "path"}]}},
    "search_vault_smart": {"query": "what did we decide about pricing"},
    "list_tags": {"prefix": "project/"},
    "create_vault_file": {"filename": "Inbox/idea.md", "content": "# Idea\n"},
    "append_to_vault_file": {"filename": "Inbox/idea.md", "content": "- one more thing\n"},
    "patch_vault_file": {
        "filename": "Projects/plan.md",
        "patchOperation": "append",
        "targetType": "heading",
        "target": "Risks",
        "content": "- A new risk\n",
    },
    "delete_vault_file": {"filename": "Inbox/idea.md"},
    "move_vault_file": {"source": "Inbox/idea.md", "destination": "Projects/"},
    "bulk_delete_files": {"pattern": "Inbox/*.md", "dryRun": True},
    "replace_in_notes": {"find": "Acme Corp", "replacement": "Acme Inc.", "directory": "Projects"},
    "set_note_property": {"filename": "Projects/plan.md", "key": "status", "value": "done"},
    "delete_note_property": {"filename": "Projects/plan.md", "key": "draft"},
    "add_note_tag": {"filename": "Projects/plan.md", "tag": "project/active"},
    "remove_note_tag": {"filename": "Projects/plan.md", "tag": "draft", "inline": True},
    "update_active_file": {"content": "# Rewritten\n"},
    "append_to_active_file": {"content": "- noted\n"},
    "patch_active_file": {
        "patchOperation": "append",
        "targetType": "heading",
        "target": "Log",
        "content": "- 10:00 call\n",
    },
    "delete_active_file": {},
    "show_file_in_obsidian": {"filename": "Projects/plan.md"},
    "list_commands": {"filter": "bold"},
    "execute_command": {"commandId": "editor:toggle-bold"},
    "get_periodic_note": {"period": "daily", "date": "2026-11-21"},
    "append_to_periodic_note": {"period": "daily", "content": "- 10:00 call\n"},
    "execute_template": {"name": "Templates/Meeting.md", "arguments": {"topic": "Pricing"}},
    "mem_search": {"query": "auth token refresh", "detail_level": "summary"},
    "mem_timeline": {"observation_id": 42},
    "timeline": {"anchor": "2026-11-20T09:00:00Z", "before": 5, "after": 5},
    "mem_get": {"ids": [42, 43]},
    "mem_get_observation": {"id": 42},
    "mem_get_observations": {"ids": [42, 43]},
    "mem_context": {"project": "vaultgate"},
    "mem_save": {
        "title": "Chose SQLite FTS5 for memory search",
        "content": "Why: local, no server; trigram tokenizer for code identifiers.",
        "type": "decision",
        "project": "vaultgate",
    },
    "mem_update": {"id": 42, "title": "Chose SQLite FTS5 (with triggers)"},
    "mem_delete": {"id": 42},
    "mem_session_start": {"project": "vaultgate"},
    "mem_session_end": {"session_id": "s-2026-11-23", "summary": "Paging done; tests pass."},
    "mem_save_prompt": {"content": "Make search faster"},
    "mem_stats": {"project": "vaultgate"},
    "mem_compact": {"older_than_days": 90, "project": "vaultgate"},
    "sdd_get_context": {"change": "add-dispatchers"},
    "sdd_context_check": {"change_description": "page the search results"},
    # issue 13, reading
    "get_vault_files": {"filenames": ["Daily/2026-11-21.md", "Projects/plan.md"]},
    "get_recent_changes": {"days": 3, "directory": "Projects"},
    "get_backlinks": {"filename": "People/Ann.md"},
    "find_broken_links": {"directory": "Projects"},
    "find_orphans": {"limit": 50},
}

PAGING_BY_PARAMETER = {
    "offset": (
        "Lists page: each answer has pagination {total, offset, limit, hasMore}; while "
        "hasMore is true, call again with offset=pagination.nextOffset."
    ),
    "startIndex": "Windows: when hasMore is true, call again with startIndex=nextIndex.",
}
ERRORS = (
    "Errors come back as tool errors that say what to try next: a bad or missing parameter "
    "names the parameters; a missing note points at listing its folder; a feature your plugin "
    "version lacks names the version that has it; an unreachable Obsidian says how to check."
)


Rename = Callable[[str], str]


@dataclass(frozen=True, slots=True)
class Entry:
    name: str  # "vault.read" or "get_vault_file"
    category: str
    route: Route
    callable_as: str  # how this profile reaches it
    writes: bool  # a read-only server leaves it out, and says so when asked about it
    offered: bool  # callable here under its own name

    @property
    def summary(self) -> str:
        doc = inspect.getdoc(self.route.tool) or ""
        return doc.split("\n\n", 1)[0].replace("\n", " ")

    def line(self, rename: Rename = str) -> str:
        return f"{self.name}({self.route.describe_parameters()}) — {rename(self.summary)}"

    def describe(self, rename: Rename = str) -> str:
        """The full description; ``rename`` spells the tools its docstring names."""
        lines = [f"{self.name} — {rename(inspect.getdoc(self.route.tool) or '')}", ""]
        lines.append(f"Call: {self.example()}")
        lines.append("Parameters:")
        lines.extend(f"- {_describe_parameter(p)}" for p in self.route.parameters)
        if not self.route.parameters:
            lines.append("- (none)")
        for parameter, note in PAGING_BY_PARAMETER.items():
            if any(p.name == parameter for p in self.route.parameters):
                lines.append(f"Paging: {note}")
        lines.append(ERRORS)
        return "\n".join(lines)

    def example(self) -> str:
        arguments = dict(EXAMPLES.get(self.route.tool_name, {}))
        for parameter in self.route.parameters:
            if parameter.required and parameter.name not in arguments:
                arguments[parameter.name] = f"<{parameter.name}>"
        if "." in self.name:
            dispatcher, operation = self.name.split(".", 1)
            arguments = {"operation": operation, **arguments}
            target = dispatcher
        else:
            target = self.name
        rendered = ", ".join(
            f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in arguments.items()
        )
        return f"{target}({rendered})"


def _describe_parameter(parameter: Parameter) -> str:
    schema = parameter.schema
    kind = _type_name(schema)
    bounds = ""
    if "minimum" in schema or "maximum" in schema:
        bounds = f" {schema.get('minimum', '')}–{schema.get('maximum', '')}"
    need = "required" if parameter.required else f"default {json.dumps(parameter.default)}"
    description = schema.get("description", "")
    return f"{parameter.name} ({kind}{bounds}, {need}){': ' + description if description else ''}"


def _type_name(schema: Mapping[str, Any]) -> str:
    if "enum" in schema:
        return " | ".join(json.dumps(v) for v in schema["enum"])
    if "type" in schema:
        return str(schema["type"])
    options = [
        _type_name(option) for option in schema.get("anyOf", []) if option.get("type") != "null"
    ]
    return " | ".join(options) or "any"


def build_catalogue(
    modules: Iterable[tuple[str, list[ToolSpec]]],
    registered: set[str],
    dispatchers: Mapping[str, Dispatcher],
) -> list[Entry]:
    """Dispatcher operations first, then the single tools, each with how to reach it here
    (``registered``: the tools this server offers; ``dispatchers``: those of its profile)."""
    category_of: dict[str, str] = {}
    entries: list[Entry] = []
    singles: list[Entry] = []
    for module_name, specs in modules:
        category = CATEGORIES.get(module_name, module_name)
        for tool, hints in specs:
            category_of[tool.__name__] = category
            singles.append(
                Entry(
                    name=tool.__name__,
                    category=category,
                    route=Route(tool),
                    callable_as=tool.__name__,
                    writes=not hints.read_only_hint,
                    offered=tool.__name__ in registered,
                )
            )
    for dispatcher, table in dispatchers.items():
        for operation, route in table.routes.items():
            category = next(
                (category_of[t] for t in route.single_tools if t in category_of), "read"
            )
            entries.append(
                Entry(
                    name=f"{dispatcher}.{operation}",
                    category=category,
                    route=route,
                    callable_as=f"{dispatcher}.{operation}",
                    writes=route.writes,
                    offered=dispatcher in registered,
                )
            )
    for single in singles:
        via = next(
            (e.name for e in entries if e.offered and single.name in e.route.single_tools),
            single.name,
        )
        reachable = single.name if single.offered else via
        entries.append(
            Entry(
                single.name,
                single.category,
                single.route,
                reachable,
                single.writes,
                single.offered,
            )
        )
    return entries


def listed_entries(catalogue: list[Entry]) -> list[Entry]:
    """What discover lists: each thing this server offers, once, by the name the model has.

    An operation whose single tool is offered too (the full profile, or a list naming both)
    is left out for that tool: the same call, under the name the model sees in its tool list.
    """
    offered_tools = {e.name for e in catalogue if e.offered and "." not in e.name}
    return [
        entry
        for entry in catalogue
        if entry.offered
        and not ("." in entry.name and offered_tools & set(entry.route.single_tools))
    ]
