"""google-adk: its own McpToolset (stdio), its function declarations (the default
``parameters_json_schema`` and the legacy ``_to_gemini_schema`` path into Gemini's
``parameters`` form), checked by google-genai's own types; a scripted model calls each tool
through ADK's McpTool as Gemini CLI has it call, with ``wait_for_previous`` added."""

from __future__ import annotations

import warnings
from typing import Any

import pytest
import scenario

pytest.importorskip("google.adk.tools.mcp_tool")
from google.adk.agents import LlmAgent
from google.adk.agents.invocation_context import InvocationContext
from google.adk.sessions import InMemorySessionService
from google.adk.tools._gemini_schema_util import _to_gemini_schema
from google.adk.tools.mcp_tool.mcp_session_manager import StdioConnectionParams
from google.adk.tools.mcp_tool.mcp_toolset import McpToolset
from google.adk.tools.tool_context import ToolContext
from google.genai import types
from mcp import StdioServerParameters

pytestmark = pytest.mark.anyio


async def run(server: scenario.Server) -> dict[str, Any]:
    parameters = StdioServerParameters(command=server.command, args=server.args, env=server.env)
    toolset = McpToolset(
        connection_params=StdioConnectionParams(server_params=parameters, timeout=60)
    )
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            tools = {tool.name: tool for tool in await toolset.get_tools()}
            declarations = [tool._get_declaration() for tool in tools.values()]
            types.GenerateContentConfig(tools=[types.Tool(function_declarations=declarations)])
            legacy = {
                tool.name: _to_gemini_schema(tool._mcp_tool.input_schema) for tool in tools.values()
            }
        sessions = InMemorySessionService()
        session = await sessions.create_session(app_name="compat", user_id="user")
        invocation = InvocationContext(
            session_service=sessions,
            invocation_id="run-1",
            agent=LlmAgent(name="scripted", tools=[toolset]),
            session=session,
        )
        answers = {}
        for call in scenario.calls(server.profile):
            context = ToolContext(invocation, function_call_id="call-1")
            result = await tools[call.tool].run_async(
                args=scenario.gemini_cli(call.arguments), tool_context=context
            )
            texts = [block.get("text", "") for block in result.get("content", [])]
            answers[call.what] = (bool(result.get("isError")), "\n".join(texts))
    finally:
        await toolset.close()
    return {
        "names": set(tools),
        "warnings": scenario.about_the_tools(caught),
        "legacy": legacy,
        "answers": answers,
    }


RUNS = scenario.Runs()


async def ran(factory: pytest.TempPathFactory, profile: str) -> tuple[scenario.Server, Any]:
    return await RUNS.get(factory, profile, run, profile)


@pytest.mark.parametrize("profile", scenario.PROFILES)
async def test_adk_lists_converts_and_calls_with_wait_for_previous(
    tmp_path_factory: pytest.TempPathFactory, profile: str
) -> None:
    server, result = await ran(tmp_path_factory, profile)
    assert scenario.LISTED[profile] <= result["names"]
    assert result["warnings"] == []
    scenario.check_answers(result["answers"], profile, server)


@pytest.mark.parametrize("profile", scenario.PROFILES)
async def test_every_property_is_typed_in_adks_legacy_gemini_schema(
    tmp_path_factory: pytest.TempPathFactory, profile: str
) -> None:
    _, result = await ran(tmp_path_factory, profile)
    found = [
        where
        for name, schema in result["legacy"].items()
        for where in scenario.untyped_gemini(schema, name)
    ]
    assert found == []


@pytest.mark.parametrize("profile", scenario.PROFILES)
async def test_adk_sets_a_number_as_a_number(
    tmp_path_factory: pytest.TempPathFactory, profile: str
) -> None:
    server, _ = await ran(tmp_path_factory, profile)
    assert scenario.number_arrived(server), server.frontmatter_line(scenario.NUMBER_KEY)
