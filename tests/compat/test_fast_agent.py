"""fast-agent (Python 3.12 or newer): its own MCP aggregator (stdio, tools named
``vaultgate__<tool>``), its Google converter into Gemini's ``parameters`` form, and its
passthrough model, which makes each scripted ``***CALL_TOOL`` call through the agent's own
tool loop."""

from __future__ import annotations

import json
import warnings
from typing import Any

import pytest
import scenario

pytest.importorskip("fast_agent")
from fast_agent import FastAgent
from fast_agent.llm.provider.google.google_converter import GoogleConverter

pytestmark = pytest.mark.anyio


async def run(server: scenario.Server) -> dict[str, Any]:
    folder = server.vault.parent
    config = folder / "fastagent.config.yaml"
    settings = {
        "mcp": {
            "servers": {
                "vaultgate": {"command": server.command, "args": server.args, "env": server.env}
            }
        },
        "logger": {"level": "error", "progress_display": False, "show_chat": False},
    }
    config.write_text(json.dumps(settings), encoding="utf-8")  # YAML reads JSON
    fast = FastAgent(
        "compat",
        config_path=str(config),
        parse_cli_args=False,
        quiet=True,
        no_home=True,
        isolated=True,
        workspace=str(folder),
    )

    @fast.agent(name="scripted", servers=["vaultgate"], model="passthrough")
    async def scripted() -> None:  # the agent is declared by the decorator
        pass

    answers = {}
    async with fast.run() as app:
        agent = app.scripted
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            tools = (await agent.list_tools()).tools
            converted = GoogleConverter().convert_to_google_tools(tools)
        declarations = [d for tool in converted for d in tool.function_declarations or []]
        for call in scenario.calls(server.profile):
            sent = f"***CALL_TOOL vaultgate__{call.tool} {json.dumps(call.arguments)}"
            # The passthrough model hands back the tool's text either way.
            answers[call.what] = (False, await agent.send(sent))
    return {
        "names": {tool.name.removeprefix("vaultgate__") for tool in tools},
        "declarations": declarations,
        "warnings": scenario.about_the_tools(caught),
        "answers": answers,
    }


RUNS = scenario.Runs()


async def ran(factory: pytest.TempPathFactory, profile: str) -> tuple[scenario.Server, Any]:
    return await RUNS.get(factory, profile, run, profile)


@pytest.mark.parametrize("profile", scenario.PROFILES)
async def test_fast_agent_lists_converts_and_calls(
    tmp_path_factory: pytest.TempPathFactory, profile: str
) -> None:
    server, result = await ran(tmp_path_factory, profile)
    assert scenario.LISTED[profile] <= result["names"]
    assert len(result["declarations"]) == len(result["names"])
    assert result["warnings"] == []
    scenario.check_answers(result["answers"], profile, server)


@pytest.mark.parametrize("profile", scenario.PROFILES)
async def test_every_property_is_typed_in_fast_agents_gemini_declarations(
    tmp_path_factory: pytest.TempPathFactory, profile: str
) -> None:
    _, result = await ran(tmp_path_factory, profile)
    found = [
        where
        for declaration in result["declarations"]
        if declaration.parameters is not None
        for where in scenario.untyped_gemini(declaration.parameters, declaration.name)
    ]
    assert found == []


@pytest.mark.parametrize("profile", scenario.PROFILES)
async def test_fast_agent_sets_a_number_as_a_number(
    tmp_path_factory: pytest.TempPathFactory, profile: str
) -> None:
    server, _ = await ran(tmp_path_factory, profile)
    assert scenario.number_arrived(server), server.frontmatter_line(scenario.NUMBER_KEY)
