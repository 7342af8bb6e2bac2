"""mcp-use: its own MCPClient (stdio) and LangChainAdapter, whose pydantic model of each tool
gives every optional field a ``None`` default, so LangChain sends every one of them as
``null``; a scripted model calls each tool through the adapter's tool."""

from __future__ import annotations

import warnings
from typing import Any

import pytest
import scenario

pytest.importorskip("mcp_use")
from mcp_use import MCPClient
from mcp_use.agents.adapters.langchain_adapter import LangChainAdapter

pytestmark = pytest.mark.anyio


async def run(server: scenario.Server) -> tuple[set[str], dict[str, tuple[bool, str]], list[Any]]:
    config = {
        "mcpServers": {
            "vaultgate": {"command": server.command, "args": server.args, "env": server.env}
        }
    }
    client = MCPClient.from_dict(config)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            tools = {tool.name: tool for tool in await LangChainAdapter().create_tools(client)}
        answers = {}
        sent = []
        for call in scenario.calls(server.profile):
            tool = tools[call.tool]
            sent.append(tool.tool_call_schema.model_validate(call.arguments).model_dump())
            result = await tool.ainvoke(call.arguments)
            if isinstance(result, dict):  # mcp-use's format_error: the call failed
                answers[call.what] = (True, str(result.get("details")))
            else:
                answers[call.what] = (False, result if isinstance(result, str) else str(result))
    finally:
        await client.close_all_sessions()
    assert scenario.about_the_tools(caught) == []
    return set(tools), answers, sent


RUNS = scenario.Runs()


async def ran(factory: pytest.TempPathFactory, profile: str) -> tuple[scenario.Server, Any]:
    return await RUNS.get(factory, profile, run, profile)


@pytest.mark.parametrize("profile", scenario.PROFILES)
async def test_mcp_use_lists_converts_and_calls_with_nulls(
    tmp_path_factory: pytest.TempPathFactory, profile: str
) -> None:
    server, (names, answers, sent) = await ran(tmp_path_factory, profile)
    assert scenario.LISTED[profile] <= names
    assert any(None in arguments.values() for arguments in sent)  # nulls did go out
    scenario.check_answers(answers, profile, server)


@pytest.mark.parametrize("profile", scenario.PROFILES)
async def test_mcp_use_sets_a_number_as_a_number(
    tmp_path_factory: pytest.TempPathFactory, profile: str
) -> None:
    server, _ = await ran(tmp_path_factory, profile)
    assert scenario.number_arrived(server), server.frontmatter_line(scenario.NUMBER_KEY)
