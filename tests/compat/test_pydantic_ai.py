"""pydantic-ai: its own MCPToolset (FastMCP's stdio transport) inside a real Agent run, whose
model is pydantic-ai's FunctionModel playing the scripted calls: pydantic-ai converts the tool
definitions, validates each call's arguments and calls the tool as it would for any model."""

from __future__ import annotations

import warnings
from typing import Any

import pytest
import scenario

pytest.importorskip("pydantic_ai.mcp")
pytest.importorskip("fastmcp")
from fastmcp.client.transports import StdioTransport
from pydantic_ai import Agent
from pydantic_ai.mcp import MCPToolset
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    RetryPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel

pytestmark = pytest.mark.anyio


async def run(server: scenario.Server) -> tuple[set[str], dict[str, tuple[bool, str]], list[str]]:
    script = scenario.calls(server.profile)
    seen: dict[str, Any] = {}

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen["tools"] = {tool.name: tool for tool in info.function_tools}
        turn = sum(isinstance(m, ModelResponse) for m in messages)
        if turn < len(script):
            call = script[turn]
            return ModelResponse(
                parts=[ToolCallPart(call.tool, call.arguments, tool_call_id=f"call-{turn}")]
            )
        return ModelResponse(parts=[TextPart("done")])

    transport = StdioTransport(command=server.command, args=server.args, env=server.env)
    toolset = MCPToolset(transport, tool_error_behavior="retry", max_retries=0)
    agent = Agent(FunctionModel(model), toolsets=[toolset], retries=0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        async with agent:
            result = await agent.run("Go.")
    answers: dict[str, tuple[bool, str]] = {}
    for message in result.all_messages():
        if not isinstance(message, ModelRequest):
            continue
        for part in message.parts:
            if isinstance(part, ToolReturnPart | RetryPromptPart):
                turn = int(str(part.tool_call_id).removeprefix("call-"))
                text = (
                    part.model_response_str()
                    if isinstance(part, ToolReturnPart)
                    else str(part.content)
                )
                answers[script[turn].what] = (isinstance(part, RetryPromptPart), text)
    return set(seen["tools"]), answers, scenario.about_the_tools(caught)


RUNS = scenario.Runs()


async def ran(factory: pytest.TempPathFactory, profile: str) -> tuple[scenario.Server, Any]:
    return await RUNS.get(factory, profile, run, profile)


@pytest.mark.parametrize("profile", scenario.PROFILES)
async def test_pydantic_ai_lists_converts_and_calls(
    tmp_path_factory: pytest.TempPathFactory, profile: str
) -> None:
    server, (names, answers, warned) = await ran(tmp_path_factory, profile)
    assert scenario.LISTED[profile] <= names
    assert warned == []
    scenario.check_answers(answers, profile, server)


@pytest.mark.parametrize("profile", scenario.PROFILES)
async def test_pydantic_ai_sets_a_number_as_a_number(
    tmp_path_factory: pytest.TempPathFactory, profile: str
) -> None:
    server, _ = await ran(tmp_path_factory, profile)
    assert scenario.number_arrived(server), server.frontmatter_line(scenario.NUMBER_KEY)
