"""What the server says of itself: capabilities only for what it has."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import httpx
import pytest
from mcp import Client
from mcp.types import (
    Implementation,
    InitializeResult,
    PromptsCapability,
    ResourcesCapability,
    ServerCapabilities,
    ToolsCapability,
)
from tests.conftest import modules_loaded_by

from vaultgate.config import Settings
from vaultgate.server import advertise_only_what_exists, build_server

pytestmark = pytest.mark.anyio

SETTINGS = Settings.from_env({"OBSIDIAN_API_KEY": "k" * 16})


async def test_prompts_and_resources_may_come_at_any_time_so_both_are_advertised(
    tmp_path: Path,
) -> None:
    (tmp_path / "Note.md").write_text("no prompts folder here\n", encoding="utf-8")
    settings = Settings.from_env({"VAULTGATE_VAULT": str(tmp_path), "VAULTGATE_BACKEND": "folder"})
    async with Client(build_server(settings)) as client:
        capabilities = client.server_capabilities

    assert capabilities is not None
    assert capabilities.tools is not None
    assert capabilities.prompts is not None
    assert capabilities.prompts.list_changed is True
    assert capabilities.resources is not None  # the vault's notes (tools/resources.py)
    assert capabilities.resources.subscribe is True
    assert capabilities.resources.list_changed is True
    assert capabilities.completions is not None


@pytest.mark.parametrize("method", ["initialize", "server/discover"])
async def test_the_handshake_answer_loses_only_the_empty_capabilities(method: str) -> None:
    server = build_server(SETTINGS)
    answer = InitializeResult(
        protocol_version="2025-11-25",
        capabilities=ServerCapabilities(
            tools=ToolsCapability(list_changed=True),
            prompts=PromptsCapability(list_changed=True),
            resources=ResourcesCapability(subscribe=True),
        ),
        server_info=Implementation(name="vaultgate", version="0"),
    )

    async def call_next(_ctx: Any) -> InitializeResult:
        return answer

    shown = await advertise_only_what_exists(server)(SimpleNamespace(method=method), call_next)

    assert isinstance(shown, dict)
    assert set(shown["capabilities"]) == {"tools"}
    assert shown["serverInfo"]["name"] == "vaultgate"


async def test_behind_the_plugin_prompts_are_advertised_without_asking_it() -> None:
    asked: list[str] = []

    def refuse(request: httpx.Request) -> httpx.Response:
        asked.append(request.url.path)
        raise httpx.ConnectError("connection refused", request=request)

    # The handshake never waits on Obsidian; its prompt notes may come once it runs.
    async with Client(build_server(SETTINGS, transport=httpx.MockTransport(refuse))) as client:
        capabilities = client.server_capabilities

    assert capabilities is not None
    assert capabilities.prompts is not None
    assert capabilities.prompts.list_changed is True
    assert [path for path in asked if path.startswith("/vault/")] == []


async def test_other_answers_pass_untouched() -> None:
    server = build_server(SETTINGS)

    async def call_next(_ctx: Any) -> dict[str, Any]:
        return {"tools": []}

    assert await advertise_only_what_exists(server)(
        SimpleNamespace(method="tools/list"),
        call_next,
    ) == {"tools": []}


# What only some tools need is imported by their first use, never by a server start.
OPTIONAL_MODULES = (
    "bs4",  # fetch's HTML converter
    "markdownify",
    "vaultgate.web.convert",
    "vaultgate.emulator",
    "vaultgate.memory.store",
    "yaml",  # frontmatter: parsed by the first note that has some
)
_BUILD_A_SERVER = """
import sys
from vaultgate.cli import main  # what `vaultgate serve` imports
from vaultgate.config import Settings
from vaultgate.server import build_server

build_server(Settings.from_env({{"OBSIDIAN_API_KEY": "k" * 16, "VAULTGATE_TOOLS": "{profile}"}}))
print("\\n".join(sys.modules))
"""


@pytest.mark.parametrize("profile", ["full", "compact", "split"])
def test_building_a_server_imports_nothing_that_only_some_tools_need(profile: str) -> None:
    loaded = modules_loaded_by(_BUILD_A_SERVER.format(profile=profile))

    assert "vaultgate.server" in loaded
    assert [name for name in loaded if name.startswith(OPTIONAL_MODULES)] == []
