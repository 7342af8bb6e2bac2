"""What hosts show of each tool: a human-readable title, and annotations that tell the truth."""

from __future__ import annotations

import pytest
from mcp import Client

from vaultgate.config import Settings
from vaultgate.server import build_server

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize(
    "env",
    [
        pytest.param({"VAULTGATE_TOOLS": "full"}, id="full"),
        pytest.param({"VAULTGATE_TOOLS": "compact"}, id="compact"),
        pytest.param({"VAULTGATE_TOOLS": "full", "VAULTGATE_READ_ONLY": "true"}, id="read-only"),
    ],
)
async def test_every_tool_has_a_title_of_its_own(env: dict[str, str]) -> None:
    settings = Settings.from_env({"OBSIDIAN_API_KEY": "k", **env})
    async with Client(build_server(settings)) as client:
        tools = (await client.list_tools()).tools

    titles = {tool.name: tool.title for tool in tools}
    assert all(titles.values()), [name for name, title in titles.items() if not title]
    assert len(set(titles.values())) == len(titles)  # no two tools look alike in a host
    for tool in tools:  # sent once: the tool's own title is what hosts show
        assert tool.annotations is not None
        assert tool.annotations.title is None


async def test_annotations_say_what_a_tool_can_do_to_the_world() -> None:
    settings = Settings.from_env({"OBSIDIAN_API_KEY": "k", "VAULTGATE_TOOLS": "full"})
    async with Client(build_server(settings)) as client:
        hints = {tool.name: tool.annotations for tool in (await client.list_tools()).tools}

    command = hints["execute_command"]
    assert command is not None
    assert command.destructive_hint is True  # a command can delete notes
    assert command.open_world_hint is True  # ... or reach the network, through any plugin
    fetch = hints["fetch"]
    assert fetch is not None
    assert fetch.open_world_hint is True
    assert fetch.read_only_hint is True
    for name in ("get_vault_file", "list_vault_files", "search_vault_simple", "mem_search"):
        read = hints[name]
        assert read is not None
        assert read.read_only_hint is True, name
    for name in ("delete_vault_file", "bulk_delete_files", "mem_delete"):
        destroy = hints[name]
        assert destroy is not None
        assert destroy.destructive_hint is True, name
