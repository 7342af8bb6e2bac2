"""The public surface, frozen: tool names, parameters, defaults and annotations."""

from __future__ import annotations

import pytest
from mcp import Client

from vaultgate.config import Settings
from vaultgate.server import build_server

pytestmark = pytest.mark.anyio

READ_TOOLS = {
    # seed 004: directory, limit 100, offset, pattern; flat `files` by default (issue 34)
    "list_vault_files": {
        "directory": "",
        "recursive": False,
        "pattern": None,
        "limit": 100,
        "offset": 0,
        "layout": "flat",
    },
    "get_vault_file": {
        "filename": ...,
        "format": "markdown",
        "maxLength": 10000,
        "startIndex": 0,
        "section": None,
    },
    "get_active_file": {"format": "markdown", "maxLength": 10000, "startIndex": 0},
    "search_vault_simple": {
        "query": ...,
        "contextLength": 60,
        "limit": 20,
        "offset": 0,
        "directory": None,
        "maxMatchesPerFile": 1,
        "withOffsets": False,
    },
    "search_vault": {"query": ..., "queryType": "jsonlogic", "limit": 50, "offset": 0},
    # seed 004: filter {folders, excludeFolders, limit}
    "search_vault_smart": {
        "query": ...,
        "filter": None,
        "limit": 20,
        "offset": 0,
        "mode": "hybrid",
    },
    "get_server_info": {},
    "list_tags": {"prefix": None, "limit": 100, "offset": 0},
    "list_commands": {"filter": None, "limit": 100, "offset": 0},
    "get_periodic_note": {
        "period": ...,
        "date": None,
        "format": "markdown",
        "maxLength": 10000,
        "startIndex": 0,
    },
}

PATCH = {
    "patchOperation": ...,
    "targetType": ...,
    "target": ...,
    "content": ...,
    "contentType": "markdown",
    "createTargetIfMissing": False,
}
WRITE_TOOLS = {
    "create_vault_file": {"filename": ..., "content": ..., "overwrite": False},
    "append_to_vault_file": {"filename": ..., "content": ...},
    "patch_vault_file": {"filename": ..., **PATCH},
    "delete_vault_file": {"filename": ..., "permanent": False},
    "move_vault_file": {"source": ..., "destination": ..., "overwrite": False, "dryRun": False},
    "bulk_delete_files": {
        "pattern": ...,
        "directory": "",
        "exclude": None,
        "dryRun": True,
        "limit": 50,
        "offset": 0,
        "confirmAll": False,
    },
    "update_active_file": {"content": ...},
    "append_to_active_file": {"content": ...},
    "patch_active_file": PATCH,
    "delete_active_file": {"permanent": False},
    "show_file_in_obsidian": {"filename": ..., "newLeaf": False},
    "execute_command": {"commandId": ...},
    "append_to_periodic_note": {"period": ..., "content": ..., "date": None},
    "execute_template": {"name": ..., "arguments": {}, "createFile": False, "targetPath": None},
}


async def test_tools_have_exactly_the_contracted_parameters_and_defaults() -> None:
    async with Client(
        build_server(Settings.from_env({"OBSIDIAN_API_KEY": "k", "VAULTGATE_TOOLS": "full"}))
    ) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}

    for name, parameters in {**READ_TOOLS, **WRITE_TOOLS}.items():
        schema = tools[name].input_schema
        assert set(schema.get("properties", {})) == set(parameters), name
        required = {p for p, default in parameters.items() if default is ...}
        assert set(schema.get("required", [])) == required, name
        for parameter, default in parameters.items():
            if default is not ...:
                assert schema["properties"][parameter].get("default") == default, (name, parameter)
        annotations = tools[name].annotations
        assert annotations is not None, name
        assert annotations.read_only_hint is (name in READ_TOOLS), name
        assert tools[name].description, name


async def test_every_tool_docstring_says_how_to_get_more_when_it_pages() -> None:
    async with Client(
        build_server(Settings.from_env({"OBSIDIAN_API_KEY": "k", "VAULTGATE_TOOLS": "full"}))
    ) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}

    for name in ("list_vault_files", "search_vault_simple", "search_vault"):
        assert "nextOffset" in (tools[name].description or ""), name
    for name in ("get_vault_file", "get_active_file"):
        assert "nextIndex" in (tools[name].description or ""), name


# Each profile's dispatchers and their operations, in the order their schemas list them.
VAULT_READS = [
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
]
VAULT_CHANGES = [
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
]
MEMORY = [
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
MEMORY_CHANGES = ["update", "delete", "compact"]
ACTIVE = ["active_update", "active_append", "active_patch", "active_delete"]
DISPATCHERS = {
    "compact": {
        "vault": [*VAULT_READS, *VAULT_CHANGES, "open", "run_command"],
        "active_file": ["read", "update", "append", "patch", "delete"],
        "memory": [*MEMORY, *MEMORY_CHANGES],
    },
    "split": {
        "vault": [*VAULT_READS, "active"],
        "vault_edit": [*VAULT_CHANGES, *ACTIVE, "open", "run_command"],
        "memory": MEMORY,
        "memory_edit": MEMORY_CHANGES,
    },
}


@pytest.mark.parametrize("profile", list(DISPATCHERS))
async def test_each_profiles_dispatchers_have_exactly_the_contracted_operations(
    profile: str,
) -> None:
    settings = Settings.from_env({"OBSIDIAN_API_KEY": "k", "VAULTGATE_TOOLS": profile})
    async with Client(build_server(settings)) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}

    operations = {
        name: tool.input_schema["properties"]["operation"]["enum"]
        for name, tool in tools.items()
        if name != "discover" and "operation" in tool.input_schema.get("properties", {})
    }
    assert operations == DISPATCHERS[profile]
    for name in operations:
        assert tools[name].input_schema["required"] == ["operation"], name
