"""A walk over every operation of every dispatcher and every single tool, in every profile
(issue 24): one idea has one parameter name, discover offers exactly what the profile offers,
and each tool's annotations hold for every operation it offers (no tool mixes reading with
destroying)."""

from __future__ import annotations

import hashlib
import inspect
import json
import re
import shutil
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from mcp import Client
from mcp.types import Tool, ToolAnnotations
from tests.tools.conftest import FIXTURE_VAULT, folder_settings, texts

from vaultgate.config import Settings
from vaultgate.server import build_server
from vaultgate.tools import dispatch
from vaultgate.tools.catalogue import EXAMPLES
from vaultgate.tools.parameters import RENAMED
from vaultgate.tools.registry import single_tools
from vaultgate.tools.routes import Route, tool_parameters

pytestmark = pytest.mark.anyio

PROFILES = {
    "compact": {"VAULTGATE_TOOLS": "compact"},
    "full": {"VAULTGATE_TOOLS": "full"},
    "compact, read-only": {"VAULTGATE_TOOLS": "compact", "VAULTGATE_READ_ONLY": "true"},
    "full, read-only": {"VAULTGATE_TOOLS": "full", "VAULTGATE_READ_ONLY": "true"},
}
# memory's session_start keeps `directory`: the session's working directory, not a vault
# folder a call is limited to.
WORKING_DIRECTORY = {"mem_session_start", "memory.session_start", "memory"}
# Old names no call takes any more, anywhere (RENAMED's others, such as `content`, still name
# their own idea elsewhere: a note's text).
GONE = {old for old, new in RENAMED.items() if new == "folder"}

SINGLE_HINTS: dict[str, ToolAnnotations] = {
    tool.__name__: hints for _, specs in single_tools() for tool, hints in specs
}


def settings(vault: Path, profile: str) -> Settings:
    return folder_settings(vault, **PROFILES[profile])


@asynccontextmanager
async def serve(vault: Path, profile: str) -> AsyncIterator[tuple[Client, dict[str, Tool]]]:
    async with Client(build_server(settings(vault, profile))) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        yield client, tools


def operations_of(tool: str) -> dict[str, Route]:
    """What a tool offers: a dispatcher's operations, or the single tool itself."""
    if tool in dispatch.DISPATCHERS:
        routes, _ = dispatch.DISPATCHERS[tool]
        return dict(routes)
    single = next(t for _, specs in single_tools() for t, _ in specs if t.__name__ == tool)
    return {tool: Route(single)}


def every_parameter_list() -> dict[str, list[str]]:
    """Each single tool's parameters and each dispatcher operation's, by name."""
    lists = {t.__name__: tool_parameters(t) for _, specs in single_tools() for t, _ in specs}
    for name, (routes, operations) in dispatch.DISPATCHERS.items():
        for operation in operations:
            lists[f"{name}.{operation}"] = [p.name for p in routes[operation].parameters]
    return lists


def snapshot(root: Path) -> dict[str, str]:
    return {
        path.relative_to(root).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(root.rglob("*"))
        if path.is_file()
    }


# --- (a) one idea, one name --------------------------------------------------------------------


@pytest.mark.parametrize(("old", "new"), sorted(RENAMED.items()))
def test_no_call_takes_an_old_name_beside_the_new_one(old: str, new: str) -> None:
    takers = []
    for where, parameters in every_parameter_list().items():
        if new in parameters:
            takers.append(where)
            assert old not in parameters, f"{where} takes {old!r} beside {new!r}"
    assert takers, f"nothing takes {new!r}"


def test_the_folder_a_call_is_limited_to_is_always_folder() -> None:
    lists = every_parameter_list()
    lists |= {
        name: list(inspect.signature(getattr(dispatch, name)).parameters)
        for name in dispatch.DISPATCHERS
    }
    for where, parameters in lists.items():
        wrong = GONE & set(parameters)
        if where in WORKING_DIRECTORY:
            wrong -= {"directory"}
        assert not wrong, f"{where} takes {wrong}, not 'folder'"


@pytest.mark.parametrize("name", list(dispatch.DISPATCHERS))
def test_a_dispatcher_takes_exactly_its_operations_parameters(name: str) -> None:
    # A parameter an operation takes but the dispatcher lacks would be dropped by the SDK
    # without a word; one no operation takes would be schema noise.
    routes, _ = dispatch.DISPATCHERS[name]
    own = set(inspect.signature(getattr(dispatch, name)).parameters) - {"ctx", "operation"}
    needed = {p.name for route in routes.values() for p in route.parameters}
    assert own == needed


# --- (b) discover offers exactly what the profile has ------------------------------------------


async def discovered(client: Client) -> list[str]:
    names: list[str] = []
    offset: int | None = 0
    while offset is not None:
        page = json.loads(texts(await client.call_tool("discover", {"offset": offset}))[0])
        names.extend(line.split("(", 1)[0] for line in page["operations"])
        offset = page.get("nextOffset")
    return names


def offered_calls(tools: dict[str, Tool]) -> set[str]:
    """Every call the profile has, as discover names it: single tools by name, dispatcher
    operations by ``tool.operation`` unless their single tool is offered too (discover
    itself aside)."""
    calls = {name for name in tools if name not in dispatch.DISPATCHERS and name != "discover"}
    for name, tool in tools.items():
        if name in dispatch.DISPATCHERS:
            routes, _ = dispatch.DISPATCHERS[name]
            calls |= {
                f"{name}.{operation}"
                for operation in tool.input_schema["properties"]["operation"]["enum"]
                if not set(routes[operation].single_tools) & set(tools)
            }
    return calls


@pytest.mark.parametrize("profile", list(PROFILES))
async def test_discover_lists_everything_the_profile_offers_and_nothing_else(
    tmp_path: Path, profile: str
) -> None:
    vault = tmp_path / "vault"
    shutil.copytree(FIXTURE_VAULT, vault)
    async with serve(vault, profile) as (client, tools):
        listed = await discovered(client)
        examples = {
            name: texts(await client.call_tool("discover", {"operation": name}))[0]
            for name in listed
        }

    assert len(listed) == len(set(listed))
    assert set(listed) == offered_calls(tools)
    for name, described in examples.items():
        called = re.search(r"^Call: (\w+)\(", described, re.MULTILINE)
        assert called is not None, described
        assert called.group(1) in tools, f"{profile}: {name}'s example calls {called.group(1)}"
        assert "not available" not in described.lower(), described


async def test_discover_answers_an_old_name_with_the_new_one(tmp_path: Path) -> None:
    async with serve(tmp_path, "compact") as (client, _):
        moved = texts(await client.call_tool("discover", {"operation": "vault.create"}))[0]
        active = texts(await client.call_tool("discover", {"operation": "active_file.read"}))[0]

    assert moved.startswith("vault.create is now vault_edit.create.")
    assert 'Call: vault_edit(operation="create"' in moved
    assert active.startswith("active_file.read is now vault.active.")


# --- (c) annotations hold for every operation -------------------------------------------------


def at_most(operation: ToolAnnotations, tool: ToolAnnotations) -> list[str]:
    """How ``operation``'s own annotations break what ``tool`` announces."""
    broken = []
    if tool.read_only_hint and not operation.read_only_hint:
        broken.append("writes under readOnlyHint")
    if (
        tool.destructive_hint is False
        and not operation.read_only_hint
        and (operation.destructive_hint is not False)
    ):
        broken.append("destroys under destructiveHint=false")
    if tool.open_world_hint is False and operation.open_world_hint is not False:
        broken.append("reaches the open world under openWorldHint=false")
    return broken


@pytest.mark.parametrize("profile", list(PROFILES))
async def test_each_tools_annotations_hold_for_every_operation_it_offers(
    tmp_path: Path, profile: str
) -> None:
    async with serve(tmp_path, profile) as (_, tools):
        pass

    for name, tool in tools.items():
        if name == "discover":
            continue
        hints = tool.annotations
        assert hints is not None, name
        reading = destroying = False
        for operation, route in operations_of(name).items():
            own = next(SINGLE_HINTS[t] for t in route.single_tools if t in SINGLE_HINTS)
            assert not at_most(own, hints), (profile, name, operation, at_most(own, hints))
            if hints.read_only_hint:
                assert not route.writes, (name, operation)
            reading |= bool(own.read_only_hint)
            destroying |= bool(own.destructive_hint) and not own.read_only_hint
        assert not (reading and destroying), f"{name} mixes reading with destroying"


@pytest.mark.parametrize("profile", ["compact", "full"])
async def test_no_reading_operation_changes_the_vault(tmp_path: Path, profile: str) -> None:
    vault = tmp_path / "vault"
    shutil.copytree(FIXTURE_VAULT, vault)
    before = snapshot(vault)
    async with serve(vault, profile) as (client, tools):
        for name, tool in tools.items():
            if not (tool.annotations and tool.annotations.read_only_hint) or name in (
                "fetch",
                "discover",
            ):
                continue
            for operation, route in operations_of(name).items():
                arguments = dict(EXAMPLES.get(route.tool_name, {}))
                if name in dispatch.DISPATCHERS:
                    arguments = {"operation": operation, **arguments}
                await client.call_tool(name, arguments)  # an error changes nothing either

    assert snapshot(vault) == before


async def test_memory_never_loses_a_memory(tmp_path: Path) -> None:
    # `memory` is announced non-destructive: every operation it offers, run with its example,
    # leaves every memory saved before as it was, and a save reusing a topic_key updates that
    # memory while its earlier text stays readable as a revision.
    vault = tmp_path / "vault"
    shutil.copytree(FIXTURE_VAULT, vault)
    async with serve(vault, "compact") as (client, _):
        saved = {"title": "Cache 🗄 policy", "content": "LRU, 缓存", "topic_key": "cache/policy"}
        await client.call_tool("memory", {"operation": "save", **saved})
        first = texts(await client.call_tool("memory", {"operation": "get", "id": 1}))[0]
        routes, _ = dispatch.DISPATCHERS["memory"]
        for operation, route in routes.items():
            if operation == "save":
                continue  # saved below, under the topic_key in use
            arguments = {"operation": operation, **EXAMPLES.get(route.tool_name, {})}
            await client.call_tool("memory", arguments)
        unchanged = texts(await client.call_tool("memory", {"operation": "get", "id": 1}))[0]
        again = {**saved, "content": "FIFO ⏩"}
        updated = texts(await client.call_tool("memory", {"operation": "save", **again}))[0]
        previous = await client.call_tool("memory", {"operation": "get", "id": 1, "revision": 1})

    def timeless(text: str) -> str:
        return re.sub(r"\d{4}-\d\d-\d\d[T ][\d:.]+Z?", "", text)

    assert timeless(unchanged) == timeless(first)
    assert updated.startswith("Updated #1 (the memory with topic_key 'cache/policy') in place")
    assert 'memory(operation="get", id=1, revision=1)' in updated
    assert texts(previous)[0].startswith(
        "#1 [manual] Cache 🗄 policy\nLRU, 缓存\n---\nrevision 1 of 2"
    )


def test_every_single_tool_is_reached_by_exactly_one_dispatcher() -> None:
    reached: dict[str, list[str]] = {}
    for name, (routes, _) in dispatch.DISPATCHERS.items():
        for operation, route in routes.items():
            for tool in route.single_tools:
                reached.setdefault(tool, []).append(f"{name}.{operation}")
    assert {tool: where for tool, where in reached.items() if len(where) > 1} == {}
