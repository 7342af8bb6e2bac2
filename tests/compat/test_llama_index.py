"""llama-index-tools-mcp: its own BasicMCPClient (stdio; it starts the server anew for every
call, so the memory lives in a file here) and McpToolSpec's FunctionTools, each converted to
the OpenAI tool form llama-index's agents send; a scripted model calls each FunctionTool."""

from __future__ import annotations

import warnings
from typing import Any

import pytest
import scenario

pytest.importorskip("llama_index.tools.mcp")
from llama_index.core.tools import FunctionTool
from llama_index.tools.mcp import BasicMCPClient, McpToolSpec

pytestmark = pytest.mark.anyio


async def run(
    server: scenario.Server,
) -> tuple[dict[str, FunctionTool], dict[str, tuple[bool, str]], list[str]]:
    client = BasicMCPClient(server.command, args=server.args, env=server.env, timeout=60)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        listed = await McpToolSpec(client=client).to_tool_list_async()
        tools = {tool.metadata.name or "": tool for tool in listed}
        for tool in listed:
            tool.metadata.to_openai_tool()
    answers = {}
    for call in scenario.calls(server.profile):
        output = await tools[call.tool].acall(**call.arguments)
        raw = output.raw_output  # the MCP CallToolResult
        text = "\n".join(getattr(block, "text", "") for block in raw.content)
        answers[call.what] = (bool(raw.is_error), text)
    return tools, answers, scenario.about_the_tools(caught)


RUNS = scenario.Runs()


async def ran(factory: pytest.TempPathFactory, profile: str) -> tuple[scenario.Server, Any]:
    memory = str(factory.getbasetemp() / f"memory-{profile}.db")
    return await RUNS.get(factory, profile, run, profile, memory=memory)


@pytest.mark.parametrize("profile", scenario.PROFILES)
async def test_llama_index_lists_converts_and_calls(
    tmp_path_factory: pytest.TempPathFactory, profile: str
) -> None:
    server, (tools, answers, warned) = await ran(tmp_path_factory, profile)
    assert scenario.LISTED[profile] <= set(tools)
    assert warned == []
    scenario.check_answers(answers, profile, server)


@pytest.mark.parametrize("profile", scenario.PROFILES)
async def test_llama_index_sets_a_number_as_a_number(
    tmp_path_factory: pytest.TempPathFactory, profile: str
) -> None:
    server, _ = await ran(tmp_path_factory, profile)
    assert scenario.number_arrived(server), server.frontmatter_line(scenario.NUMBER_KEY)
