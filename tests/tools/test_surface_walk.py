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
from vaultgate.tools import dispatch, dispatch_split
from vaultgate.tools.arguments import FORMER_NAMES
from vaultgate.tools.catalogue import EXAMPLES
from vaultgate.tools.operations import SPLIT, UNIFIED, Dispatcher
from vaultgate.tools.registry import profile_dispatchers, single_tools
from vaultgate.tools.routes import Route, tool_parameters

pytestmark = pytest.mark.anyio

PROFILES = {
    "compact": {"VAULTGATE_TOOLS": "compact"},
    "split": {"VAULTGATE_TOOLS": "split"},
    "full": {"VAULTGATE_TOOLS": "full"},
    "compact, read-only": {"VAULTGATE_TOOLS": "compact", "VAULTGATE_READ_ONLY": "true"},
    "split, read-only": {"VAULTGATE_TOOLS": "split", "VAULTGATE_READ_ONLY": "true"},
    "full, read-only": {"VAULTGATE_TOOLS": "full", "VAULTGATE_READ_ONLY": "true"},
}
# The folder parameter's former names (issue 34: `directory`, seed 004's, is the one name):
# still answered, quietly, but no call takes them.
GONE = {old for old, canonical in FORMER_NAMES.items() if canonical == ("directory",)}
# Each dispatcher function, with the operations it dispatches to.
DISPATCHER_FUNCTIONS = [
    (f"{profile}.{name}", getattr(module, name), table[name])
    for profile, module, table in (("compact", dispatch, UNIFIED), ("split", dispatch_split, SPLIT))
    for name in table
]

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


def dispatchers_of(profile: str) -> dict[str, Dispatcher]:
    return profile_dispatchers(Settings.from_env({"OBSIDIAN_API_KEY": "k", **PROFILES[profile]}))


def operations_of(tool: str, dispatchers: dict[str, Dispatcher]) -> dict[str, Route]:
    """What a tool offers: a dispatcher's operations, or the single tool itself."""
    if tool in dispatchers:
        return dict(dispatchers[tool].routes)
    single = next(t for _, specs in single_tools() for t, _ in specs if t.__name__ == tool)
    return {tool: Route(single)}


def every_parameter_list() -> dict[str, list[str]]:
    """Each single tool's parameters and each dispatcher operation's (both profiles'), by
    name."""
    lists = {t.__name__: tool_parameters(t) for _, specs in single_tools() for t, _ in specs}
    for table in (UNIFIED, SPLIT):
        for name, dispatcher in table.items():
            for operation, route in dispatcher.routes.items():
                lists[f"{name}.{operation}"] = [p.name for p in route.parameters]
    return lists


def snapshot(root: Path) -> dict[str, str]:
    return {
        path.relative_to(root).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(root.rglob("*"))
        if path.is_file()
    }


# --- (a) one idea, one name --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("old", "new"), [(old, new) for old, news in sorted(FORMER_NAMES.items()) for new in news]
)
def test_no_call_takes_a_former_name_beside_the_one_it_stands_for(old: str, new: str) -> None:
    lists = every_parameter_list()
    for where, parameters in lists.items():
        assert not {old, new} <= set(parameters), f"{where} takes {old!r} beside {new!r}"
    # one of the two is somebody's name (both ways for the seeds' two spellings of one idea)
    assert any({old, new} & set(parameters) for parameters in lists.values()), (old, new)


def test_the_folder_a_call_is_limited_to_is_always_directory() -> None:
    lists = every_parameter_list()
    lists |= {
        where: list(inspect.signature(function).parameters)
        for where, function, _ in DISPATCHER_FUNCTIONS
    }
    takers = set()
    for where, parameters in lists.items():
        assert not GONE & set(parameters), f"{where} takes {GONE & set(parameters)}"
        takers |= {where} if "directory" in parameters else set()
    assert {"list_vault_files", "vault.list", "compact.vault", "split.vault"} <= takers


@pytest.mark.parametrize(
    ("name", "function", "dispatcher"),
    [pytest.param(*entry, id=entry[0]) for entry in DISPATCHER_FUNCTIONS],
)
def test_a_dispatcher_takes_exactly_its_operations_parameters(
    name: str, function: object, dispatcher: Dispatcher
) -> None:
    # A parameter an operation takes but the dispatcher lacks would be dropped by the SDK
    # without a word; one no operation takes would be schema noise.
    assert callable(function)
    own = set(inspect.signature(function).parameters) - {"ctx", "operation"}
    needed = {p.name for route in dispatcher.routes.values() for p in route.parameters}
    assert own == needed


# --- (b) discover offers exactly what the profile has ------------------------------------------


async def discovered(client: Client) -> list[str]:
    names: list[str] = []
    offset: int | None = 0
    while offset is not None:
        page = json.loads(texts(await client.call_tool("discover", {"offset": offset}))[0])
        names.extend(line.split("(", 1)[0] for line in page["operations"])
        offset = page["pagination"].get("nextOffset")
    return names


def offered_calls(tools: dict[str, Tool], dispatchers: dict[str, Dispatcher]) -> set[str]:
    """Every call the profile has, as discover names it: single tools by name, dispatcher
    operations by ``tool.operation`` unless their single tool is offered too (discover
    itself aside)."""
    calls = {name for name in tools if name not in dispatchers and name != "discover"}
    for name, tool in tools.items():
        if name in dispatchers:
            routes = dispatchers[name].routes
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
    assert set(listed) == offered_calls(tools, dispatchers_of(profile))
    for name, described in examples.items():
        called = re.search(r"^Call: (\w+)\(", described, re.MULTILINE)
        assert called is not None, described
        assert called.group(1) in tools, f"{profile}: {name}'s example calls {called.group(1)}"
        assert "not available" not in described.lower(), described


@pytest.mark.parametrize(
    ("profile", "asked", "now"),
    [
        ("compact", "vault_edit.create", "vault.create"),
        ("compact", "vault.active", "active_file.read"),
        ("compact", "memory_edit.delete", "memory.delete"),
        ("compact", "vault.map", "vault.read"),
        ("split", "vault.create", "vault_edit.create"),
        ("split", "active_file.read", "vault.active"),
        ("split", "active_file.patch", "vault_edit.active_patch"),
        ("split", "memory.delete", "memory_edit.delete"),
    ],
)
async def test_discover_answers_another_profiles_name_with_this_ones(
    tmp_path: Path, profile: str, asked: str, now: str
) -> None:
    async with serve(tmp_path, profile) as (client, _):
        described = texts(await client.call_tool("discover", {"operation": asked}))[0]

    dispatcher, operation = now.split(".")
    assert described.startswith(f"{asked} is now {now}.")
    assert f'Call: {dispatcher}(operation="{operation}"' in described


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
    dispatchers = dispatchers_of(profile)

    for name, tool in tools.items():
        if name == "discover":
            continue
        hints = tool.annotations
        assert hints is not None, name
        reading = destroying = False
        for operation, route in operations_of(name, dispatchers).items():
            own = next(SINGLE_HINTS[t] for t in route.single_tools if t in SINGLE_HINTS)
            assert not at_most(own, hints), (profile, name, operation, at_most(own, hints))
            if hints.read_only_hint:
                assert not route.writes, (name, operation)
            reading |= bool(own.read_only_hint)
            destroying |= bool(own.destructive_hint) and not own.read_only_hint
        if not profile.startswith("split"):
            continue  # seed 004's unified dispatchers read and change, and say so
        assert not (reading and destroying), f"{name} mixes reading with destroying"


@pytest.mark.parametrize("profile", ["split", "full", "compact, read-only"])
async def test_no_reading_operation_changes_the_vault(tmp_path: Path, profile: str) -> None:
    vault = tmp_path / "vault"
    shutil.copytree(FIXTURE_VAULT, vault)
    before = snapshot(vault)
    dispatchers = dispatchers_of(profile)
    async with serve(vault, profile) as (client, tools):
        for name, tool in tools.items():
            if not (tool.annotations and tool.annotations.read_only_hint) or name in (
                "fetch",
                "discover",
            ):
                continue
            for operation, route in operations_of(name, dispatchers).items():
                arguments = dict(EXAMPLES.get(route.tool_name, {}))
                if name in dispatchers:
                    arguments = {"operation": operation, **arguments}
                await client.call_tool(name, arguments)  # an error changes nothing either

    assert snapshot(vault) == before


async def test_the_split_memory_never_loses_a_memory(tmp_path: Path) -> None:
    # The split profile's `memory` is announced non-destructive: every operation it offers,
    # run with its example, leaves every memory saved before as it was, and a save reusing a
    # topic_key updates that memory while its earlier text stays readable as a revision.
    vault = tmp_path / "vault"
    shutil.copytree(FIXTURE_VAULT, vault)
    async with serve(vault, "split") as (client, tools):
        saved = {"title": "Cache 🗄 policy", "content": "LRU, 缓存", "topic_key": "cache/policy"}
        await client.call_tool("memory", {"operation": "save", **saved})
        first = texts(await client.call_tool("memory", {"operation": "get", "id": 1}))[0]
        for operation, route in SPLIT["memory"].routes.items():
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

    hints = tools["memory"].annotations
    assert hints is not None
    assert hints.destructive_hint is False
    assert timeless(unchanged) == timeless(first)
    assert updated.startswith("Updated #1 (the memory with topic_key 'cache/policy') in place")
    assert 'memory(operation="get", id=1, revision=1)' in updated
    assert texts(previous)[0].startswith(
        "#1 [manual] Cache 🗄 policy\nLRU, 缓存\n---\nrevision 1 of 2"
    )


@pytest.mark.parametrize("table", [UNIFIED, SPLIT], ids=["compact", "split"])
def test_every_single_tool_is_reached_by_exactly_one_dispatcher(
    table: dict[str, Dispatcher],
) -> None:
    reached: dict[str, list[str]] = {}
    for name, dispatcher in table.items():
        for operation, route in dispatcher.routes.items():
            for tool in route.single_tools:
                reached.setdefault(tool, []).append(f"{name}.{operation}")
    assert {tool: where for tool, where in reached.items() if len(where) > 1} == {}
    singles = {t.__name__ for _, specs in single_tools() for t, _ in specs}
    assert singles - set(reached) == {"fetch"}  # offered as itself in every profile
