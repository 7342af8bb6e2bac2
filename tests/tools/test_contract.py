"""The public surface, frozen: tool names, parameters, defaults and annotations."""

from __future__ import annotations

import pytest
from mcp import Client

from vaultgate.config import Settings
from vaultgate.server import build_server

pytestmark = pytest.mark.anyio

READ_TOOLS = {
    "list_vault_files": {
        "folder": "",
        "recursive": False,
        "pattern": None,
        "limit": None,
        "offset": 0,
        "layout": None,
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
        "folder": None,
        "maxMatchesPerFile": 1,
        "withOffsets": False,
    },
    "search_vault": {"query": ..., "queryType": "jsonlogic", "limit": 50, "offset": 0},
    "search_vault_smart": {
        "query": ...,
        "folder": None,
        "excludeFolders": None,
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
        "folder": "",
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
