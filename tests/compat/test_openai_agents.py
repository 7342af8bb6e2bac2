"""openai-agents: its own MCPServerStdio, its strict conversion (``convert_schemas_to_strict``,
as ``Agent(mcp_config=...)`` asks it) and its FunctionTool wrapper; a scripted model sends each
call as a strict-mode model must, every property filled."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest
import scenario

pytest.importorskip("agents.mcp")
from agents import Agent, FunctionTool
from agents.mcp import MCPServerStdio, MCPUtil
from agents.run_context import RunContextWrapper
from agents.tool_context import ToolContext

pytestmark = pytest.mark.anyio

# Tools whose schema strict conversion refuses ("an object that permits undeclared
# properties": a query's JsonLogic object, a template's arguments, a property's object value,
# get_server_info's bare object); openai-agents then offers them non-strict, and says so only
# at INFO level.
NOT_STRICT = {"vault", "search_vault", "get_server_info", "set_note_property", "execute_template"}


async def run(
    server: scenario.Server, caplog: pytest.LogCaptureFixture
) -> tuple[dict[str, FunctionTool], dict[str, tuple[bool, str]]]:
    params: Any = {"command": server.command, "args": server.args, "env": server.env}
    async with MCPServerStdio(params=params, client_session_timeout_seconds=60) as mcp:
        agent = Agent(
            name="scripted", mcp_servers=[mcp], mcp_config={"convert_schemas_to_strict": True}
        )
        with caplog.at_level(logging.INFO, logger="openai.agents"):
            listed = await MCPUtil.get_function_tools(mcp, True, RunContextWrapper(None), agent)
        tools = {tool.name: tool for tool in listed if isinstance(tool, FunctionTool)}
        answers = {}
        for call in scenario.calls(server.profile):
            tool = tools[call.tool]
            sent = json.dumps(scenario.strict_fill(tool.params_json_schema, call.arguments))
            context = ToolContext(
                context=None, tool_name=tool.name, tool_call_id="call-1", tool_arguments=sent
            )
            result = await tool.on_invoke_tool(context, sent)
            # The wrapper hands the model the text either way: an error is told by its words.
            text = result.get("text", "") if isinstance(result, dict) else str(result)
            answers[call.what] = (False, text)
    return tools, answers


@pytest.mark.parametrize("profile", scenario.PROFILES)
async def test_openai_agents_strict_lists_converts_and_calls(
    tmp_path: Path, profile: str, caplog: pytest.LogCaptureFixture
) -> None:
    server = scenario.Server.on_copy(tmp_path, profile)
    tools, answers = await run(server, caplog)
    assert scenario.LISTED[profile] <= set(tools)
    not_strict = {name for name, tool in tools.items() if not tool.strict_json_schema}
    assert not_strict <= NOT_STRICT
    assert [r for r in caplog.records if r.levelno >= logging.WARNING] == []
    scenario.check_answers(answers, profile, server)


@pytest.mark.parametrize("profile", scenario.PROFILES)
async def test_openai_agents_sets_a_number_as_a_number(
    tmp_path: Path, profile: str, caplog: pytest.LogCaptureFixture
) -> None:
    server = scenario.Server.on_copy(tmp_path, profile)
    await run(server, caplog)
    assert scenario.number_arrived(server), server.frontmatter_line(scenario.NUMBER_KEY)
