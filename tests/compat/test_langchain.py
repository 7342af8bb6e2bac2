"""langchain-mcp-adapters: its own MCP client session and conversion to LangChain tools, then
LangChain's strict OpenAI conversion (langchain-openai's ``bind_tools(strict=True)``) and
langchain-google-genai's Gemini declarations; a scripted model calls each tool through
LangChain's tool wrapper, plain and with strict mode's fills."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import pytest
import scenario

pytest.importorskip("langchain_mcp_adapters")
from langchain_core.messages import ToolMessage
from langchain_core.tools import BaseTool
from langchain_core.utils.function_calling import convert_to_openai_tool
from langchain_mcp_adapters.sessions import create_session
from langchain_mcp_adapters.tools import load_mcp_tools

pytestmark = pytest.mark.anyio


def connection(server: scenario.Server) -> Any:
    return {
        "transport": "stdio",
        "command": server.command,
        "args": server.args,
        "env": server.env,
    }


async def answer(tool: BaseTool, arguments: dict[str, Any]) -> tuple[bool, str]:
    call = {"type": "tool_call", "id": "call-1", "name": tool.name, "args": arguments}
    message = await tool.ainvoke(call)
    assert isinstance(message, ToolMessage)
    content = message.content
    text = (
        content
        if isinstance(content, str)
        else " ".join(
            block.get("text", "") if isinstance(block, dict) else str(block) for block in content
        )
    )
    return message.status == "error", text


async def run(server: scenario.Server, fill: Any) -> tuple[dict[str, BaseTool], dict[str, Any]]:
    """List and convert (no warning), then the scripted calls with ``fill`` applied to each
    call's arguments and the tool's strict OpenAI schema."""
    async with create_session(connection(server)) as session:
        await session.initialize()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            tools = {tool.name: tool for tool in await load_mcp_tools(session)}
            strict = {
                name: convert_to_openai_tool(tool, strict=True) for name, tool in tools.items()
            }
        assert scenario.about_the_tools(caught) == []
        answers = {}
        for call in scenario.calls(server.profile):
            parameters = strict[call.tool]["function"]["parameters"]
            answers[call.what] = await answer(tools[call.tool], fill(parameters, call.arguments))
    return tools, answers


def listed_ok(profile: str, names: set[str]) -> None:
    assert scenario.LISTED[profile] <= names
    if profile == "full":
        assert len(names) >= scenario.FULL_AT_LEAST


RUNS = scenario.Runs()


async def plain(server: scenario.Server) -> tuple[dict[str, BaseTool], dict[str, Any]]:
    return await run(server, lambda _schema, arguments: arguments)


async def strict(server: scenario.Server) -> tuple[dict[str, BaseTool], dict[str, Any]]:
    return await run(server, scenario.strict_fill)


@pytest.mark.parametrize("profile", scenario.PROFILES)
async def test_langchain_lists_converts_and_calls_every_scripted_call(
    tmp_path_factory: pytest.TempPathFactory, profile: str
) -> None:
    server, (tools, answers) = await RUNS.get(tmp_path_factory, profile, plain, profile)
    listed_ok(profile, set(tools))
    scenario.check_answers(answers, profile, server)


@pytest.mark.parametrize("profile", scenario.PROFILES)
async def test_langchain_openai_strict_calls_answer(
    tmp_path_factory: pytest.TempPathFactory, profile: str
) -> None:
    server, (_, answers) = await RUNS.get(tmp_path_factory, f"{profile} strict", strict, profile)
    scenario.check_answers(answers, profile, server)


@pytest.mark.parametrize("profile", scenario.PROFILES)
async def test_langchain_openai_bind_tools_strict_accepts_every_tool(
    tmp_path: Path, profile: str
) -> None:
    chat_models = pytest.importorskip("langchain_openai")
    server = scenario.Server.on_copy(tmp_path, profile)
    async with create_session(connection(server)) as session:
        await session.initialize()
        tools = await load_mcp_tools(session)
    model = chat_models.ChatOpenAI(model="gpt-4.1", api_key="offline")  # no request is made
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        bound = model.bind_tools(tools, strict=True)
    assert scenario.about_the_tools(caught) == []
    sent = bound.kwargs["tools"]
    assert len(sent) == len(tools)
    assert all(tool["function"].get("strict") is True for tool in sent)


@pytest.mark.parametrize("profile", scenario.PROFILES)
async def test_every_property_is_typed_in_langchain_google_genais_declarations(
    tmp_path: Path, profile: str
) -> None:
    utils = pytest.importorskip("langchain_google_genai._function_utils")
    server = scenario.Server.on_copy(tmp_path, profile)
    async with create_session(connection(server)) as session:
        await session.initialize()
        tools = await load_mcp_tools(session)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        declared = utils.convert_to_genai_function_declarations(tools)
    assert scenario.about_the_tools(caught) == []
    declarations = [d for tool in declared for d in tool.function_declarations or []]
    assert len(declarations) == len(tools)
    untyped = [
        f"{declaration.name}.{name}"
        for declaration in declarations
        if declaration.parameters is not None
        for name, schema in (declaration.parameters.properties or {}).items()
        if schema.type is None and not schema.any_of
    ]
    assert untyped == []


@pytest.mark.parametrize("profile", scenario.PROFILES)
async def test_langchain_sets_a_number_as_a_number(
    tmp_path_factory: pytest.TempPathFactory, profile: str
) -> None:
    server, _ = await RUNS.get(tmp_path_factory, profile, plain, profile)
    assert scenario.number_arrived(server), server.frontmatter_line(scenario.NUMBER_KEY)
