"""The docs stay true: every tool the server offers is described in docs/tool-reference.md."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp import Client

from vaultgate.config import Settings
from vaultgate.server import build_server

pytestmark = pytest.mark.anyio

ROOT = Path(__file__).resolve().parents[1]


async def test_every_tool_has_a_section_in_the_tool_reference() -> None:
    reference = (ROOT / "docs" / "tool-reference.md").read_text(encoding="utf-8")
    async with Client(
        build_server(Settings.from_env({"OBSIDIAN_API_KEY": "k", "VAULTGATE_TOOLS": "full"}))
    ) as client:
        names = [tool.name for tool in (await client.list_tools()).tools]

    missing = [name for name in names if f"## {name}\n" not in reference]
    assert not missing, f"add these tools to docs/tool-reference.md: {missing}"


async def test_every_tool_is_in_the_readme_table() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    async with Client(
        build_server(Settings.from_env({"OBSIDIAN_API_KEY": "k", "VAULTGATE_TOOLS": "full"}))
    ) as client:
        names = [tool.name for tool in (await client.list_tools()).tools]

    assert [name for name in names if f"`{name}`" not in readme] == []


def test_every_dispatcher_operation_is_in_the_tool_reference() -> None:
    from vaultgate.tools.operations import SPLIT, UNIFIED

    reference = (ROOT / "docs" / "tool-reference.md").read_text(encoding="utf-8")
    split_section = reference.split("## The split profile", 1)[1].split("\n## ", 1)[0]
    missing = [
        f"{name}.{operation}"
        for name, dispatcher in UNIFIED.items()
        for operation in dispatcher.operations
        if f"`{name}.{operation}`" not in reference
    ]
    missing += [
        f"{name}.{operation} (split profile)"
        for name, dispatcher in SPLIT.items()
        for operation in dispatcher.operations
        if f"`{name}.{operation}`" not in reference and f"`{operation}`" not in split_section
    ]

    assert not missing, f"add these operations to docs/tool-reference.md: {missing}"


def test_the_tool_reference_says_what_an_empty_string_means_for_every_parameter() -> None:
    from vaultgate.config import Settings
    from vaultgate.tools.registry import select_tools
    from vaultgate.tools.routes import Route

    reference = (ROOT / "docs" / "tool-reference.md").read_text(encoding="utf-8")
    table = reference.split('**What `""` means, parameter by parameter**', 1)[1]
    table = table.split("\n\n", 2)[1]
    names = {
        parameter.name
        for profile in ("full", "split")
        for tool, _ in select_tools(
            Settings.from_env({"OBSIDIAN_API_KEY": "k", "VAULTGATE_TOOLS": profile})
        )
        for parameter in Route(tool).parameters
    }

    missing = sorted(name for name in names if f"`{name}`" not in table)
    assert not missing, f'say what "" means for these in docs/tool-reference.md: {missing}'


def test_every_tool_list_the_readme_shows_starts_a_server_under_a_40_tool_cap() -> None:
    import re

    from vaultgate.config import Settings
    from vaultgate.tools.registry import select_tools

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    lists = re.findall(r"VAULTGATE_TOOLS=([a-z_]+(?:,[a-z_]+)+)", readme)

    assert lists
    for names in lists:
        settings = Settings.from_env({"OBSIDIAN_API_KEY": "k", "VAULTGATE_TOOLS": names})
        offered = [tool.__name__ for tool, _ in select_tools(settings)]
        assert offered == names.split(","), names
        assert len(offered) <= 40
