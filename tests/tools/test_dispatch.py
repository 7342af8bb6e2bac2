"""Every dispatcher operation answers exactly what its single tool answers."""

from __future__ import annotations

import inspect
import json
import re
import shutil
import typing
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.types import CallToolResult
from tests.tools.conftest import (
    FIXTURE_VAULT,
    ClientFactory,
    EmulatorFactory,
    error_text,
    settings_for,
    texts,
)

from vaultgate.config import Settings
from vaultgate.emulator.runner import RunningEmulator, start_emulator
from vaultgate.server import build_server
from vaultgate.tools.catalogue import build_catalogue
from vaultgate.tools.operations import SPLIT, UNIFIED, Dispatcher
from vaultgate.tools.registry import select_tools, single_tools

pytestmark = pytest.mark.anyio

PATCH = {
    "patchOperation": "append",
    "targetType": "heading",
    "target": "Risks",
    "content": "- one more\n",
}

# single tool → its arguments; each profile's dispatcher operation reaching it is compared.
ARGUMENTS: dict[str, dict[str, Any]] = {
    "list_vault_files": {"recursive": True, "limit": 7, "offset": 7},
    "get_vault_file": {"filename": "Resources/Long essay.md", "maxLength": 900},
    "search_vault_simple": {"query": "meeting", "limit": 3},
    "search_vault": {"query": {"glob": ["Daily/*", {"var": "path"}]}},
    "search_vault_smart": {"query": "launch plan"},
    "list_tags": {"prefix": "book"},
    "create_vault_file": {"filename": "Inbox/n.md", "content": "# N\n"},
    "append_to_vault_file": {"filename": "Welcome.md", "content": "- x\n"},
    "patch_vault_file": {"filename": "Projects/Overview.md", **PATCH},
    "delete_vault_file": {"filename": "Inbox/Quick capture.md"},
    "move_vault_file": {"source": "Inbox/Quick capture.md", "destination": "Archive/"},
    "bulk_delete_files": {"pattern": "Daily/*.md", "limit": 2},
    "get_periodic_note": {"period": "daily", "date": "2026-11-21"},
    "append_to_periodic_note": {"period": "daily", "content": "- late\n", "date": "2026-11-21"},
    "execute_template": {
        "name": "Templates/Meeting template.md",
        "createFile": True,
        "targetPath": "Meetings/From template.md",
    },
    "get_server_info": {},
    # issue 13, reading
    "get_vault_files": {
        "filenames": ["Welcome.md", "Resources/Long essay.md", "Nope.md"],
        "maxLength": 900,
    },
    "get_recent_changes": {"days": 3650, "limit": 4, "offset": 2},
    "get_backlinks": {"filename": "People/Dana Whitfield.md", "limit": 2},
    "find_broken_links": {"directory": "Projects"},
    "find_orphans": {"limit": 5, "offset": 1},
    "replace_in_notes": {"find": "launch", "replacement": "release"},
    "set_note_property": {
        "filename": "Projects/Personal/🚀 Launch plan.md",
        "key": "status",
        "value": [1, "ü"],
    },
    "delete_note_property": {"filename": "Projects/Personal/100% done.md", "key": "progress"},
    "add_note_tag": {"filename": "Resources/Languages/日本語メモ.md", "tag": "#復習"},
    "remove_note_tag": {"filename": "Projects/Personal/🚀 Launch plan.md", "tag": "Side-Project"},
    "get_active_file": {"maxLength": 120},
    "update_active_file": {"content": "# Replaced\n"},
    "append_to_active_file": {"content": "- appended\n"},
    "patch_active_file": {**PATCH, "target": "Tasks"},
    "delete_active_file": {"permanent": True},
    "show_file_in_obsidian": {"filename": "Welcome.md"},
    "list_commands": {"filter": "bold"},
    "execute_command": {"commandId": "editor:toggle-bold"},
}
VAULT_DISPATCHERS = {
    "compact": {name: UNIFIED[name] for name in ("vault", "active_file")},
    "split": {name: SPLIT[name] for name in ("vault", "vault_edit")},
}
# (profile, dispatcher, operation, single tool) for every vault operation of both profiles
CASES: list[tuple[str, str, str, str]] = [
    (profile, name, operation, route.tool_name)
    for profile, dispatchers in VAULT_DISPATCHERS.items()
    for name, dispatcher in dispatchers.items()
    for operation, route in dispatcher.routes.items()
]
# Both profiles' dispatchers on a server that offers every single tool too, so each side's
# hints are spelled alike: full is the default profile's; a list naming vault_edit the split.
SINGLES = [tool.__name__ for _, specs in single_tools() for tool, _ in specs]
PROFILE_ENV = {
    "compact": "full",
    "split": ",".join(["discover", "vault", "vault_edit", "memory", "memory_edit", *SINGLES]),
}
# Periodic notes left the plugin in 5.0.2; these operations are compared where it has them.
PLUGIN_VERSION = {"get_periodic_note": "4.1.7", "append_to_periodic_note": "4.1.7"}


def tree(vault: Path) -> dict[str, str]:
    return {
        p.relative_to(vault).as_posix(): p.read_bytes().hex()
        for p in sorted(vault.rglob("*"))
        if p.is_file()
    }


def without_ports(answer: tuple[bool, list[str]]) -> tuple[bool, list[str]]:
    """The answer with the emulators' ports blanked: each side has its own emulator."""
    failed, blocks = answer
    return failed, [re.sub(r"127\.0\.0\.1:\d+", "127.0.0.1:<port>", block) for block in blocks]


def answer(result: CallToolResult) -> tuple[bool, list[str]]:
    return bool(result.is_error), texts(result)


def operation_literal(profile: str, dispatcher: str) -> set[str]:
    settings = Settings.from_env({"OBSIDIAN_API_KEY": "k", "VAULTGATE_TOOLS": profile})
    tool = next(t for t, _ in select_tools(settings) if t.__name__ == dispatcher)
    operation = inspect.signature(tool, eval_str=True).parameters["operation"]
    return set(typing.get_args(operation.annotation))


@pytest.mark.parametrize("profile", ["compact", "split"])
def test_the_route_tables_cover_every_operation_literal(profile: str) -> None:
    dispatchers = UNIFIED if profile == "compact" else SPLIT
    for name, dispatcher in dispatchers.items():
        assert operation_literal(profile, name) == set(dispatcher.routes), (profile, name)


def test_every_single_vault_tool_has_a_case_in_both_profiles() -> None:
    for profile in VAULT_DISPATCHERS:
        reached = {tool for p, _, _, tool in CASES if p == profile}
        assert reached == set(ARGUMENTS), profile


@pytest.mark.parametrize(
    ("profile", "dispatcher", "operation", "tool"),
    [pytest.param(*case, id=f"{case[0]}-{case[1]}.{case[2]}") for case in CASES],
)
async def test_each_operation_answers_as_its_single_tool(
    tmp_path: Path, profile: str, dispatcher: str, operation: str, tool: str
) -> None:
    arguments = ARGUMENTS[tool]
    vaults = []
    results = []
    for side in ("dispatcher", "single"):
        vault = tmp_path / side
        shutil.copytree(FIXTURE_VAULT, vault)
        vaults.append(vault)
        with start_emulator(
            vault,
            active_file="Daily/2026-11-21.md",
            extensions=True,
            plugin_version=PLUGIN_VERSION.get(tool, "5.1.0"),
        ) as emulator:
            settings = settings_for(emulator, VAULTGATE_TOOLS=PROFILE_ENV[profile])
            async with Client(build_server(settings)) as client:
                if side == "dispatcher":
                    call = (dispatcher, {"operation": operation, **arguments})
                else:
                    call = (tool, arguments)
                results.append(answer(await client.call_tool(*call)))

    assert not results[0][0], results[0]
    assert without_ports(results[0]) == without_ports(results[1])
    assert tree(vaults[0]) == tree(vaults[1])


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        pytest.param(
            {"operation": "read", "filename": "Welcome.md", "recursive": True},
            "does not take 'recursive'",
            id="foreign-parameter",
        ),
        pytest.param({"operation": "read"}, "needs filename", id="missing-required"),
        pytest.param(
            {"operation": "list", "limit": 5000},
            "limit",
            id="single-tool-bounds",
        ),
    ],
)
async def test_bad_dispatcher_arguments_name_the_operations_parameters(
    client: Client, arguments: dict[str, Any], expected: str
) -> None:
    error = error_text(await client.call_tool("vault", arguments))

    assert expected in error
    assert "Its parameters:" in error or "It takes: operation," in error


@pytest.mark.parametrize("profile", ["compact", "split"])
async def test_a_patch_without_its_parameters_names_them(
    emulator: RunningEmulator, profile: str
) -> None:
    dispatcher = "vault" if profile == "compact" else "vault_edit"
    arguments = {"operation": "patch", "filename": "Welcome.md"}
    settings = settings_for(emulator, VAULTGATE_TOOLS=PROFILE_ENV[profile])
    async with Client(build_server(settings)) as client:
        error = error_text(await client.call_tool(dispatcher, arguments))

    assert error.startswith(
        "Operation 'patch' needs patchOperation, targetType, target, content. Its parameters:"
    )


async def test_an_unknown_operation_is_refused_by_the_schema(client: Client) -> None:
    assert error_text(await client.call_tool("vault", {"operation": "explode"}))


async def test_discover_lists_every_operation_and_pages(
    emulator_factory: EmulatorFactory, connect: ClientFactory
) -> None:
    async with connect(emulator_factory()) as client:
        names: list[str] = []
        offset = 0
        while True:
            result = await client.call_tool("discover", {"limit": 25, "offset": offset})
            page = json.loads(texts(result)[0])
            names.extend(line.split("(", 1)[0] for line in page["operations"])
            pagination = page["pagination"]
            assert pagination["offset"] == offset
            assert pagination["limit"] == 25
            if not pagination["hasMore"]:
                assert "nextOffset" not in pagination
                break
            offset = pagination["nextOffset"]
        described = texts(await client.call_tool("discover", {"operation": "vault.patch"}))[0]

    # full: every single tool, each once, and no operation that repeats one
    assert {route.tool_name for route in UNIFIED["vault"].routes.values()} <= set(names)
    assert {route.tool_name for route in UNIFIED["active_file"].routes.values()} <= set(names)
    assert {"get_vault_file", "mem_search", "fetch"} <= set(names)
    assert not any("." in name for name in names)
    assert len(names) == len(set(names))
    assert pagination["total"] == len(names)
    assert page["plugin"]["version"] == "5.1.0"
    assert "patchOperation" in described
    assert 'vault(operation="patch"' in described


@pytest.mark.parametrize("profile", ["compact", "split"])
async def test_discover_pages_every_operation_of_the_profile(
    emulator: RunningEmulator, profile: str
) -> None:
    dispatchers = UNIFIED if profile == "compact" else SPLIT
    async with Client(build_server(settings_for(emulator, VAULTGATE_TOOLS=profile))) as client:
        names: list[str] = []
        offset = 0
        while True:
            result = await client.call_tool("discover", {"limit": 30, "offset": offset})
            page = json.loads(texts(result)[0])
            names.extend(line.split("(", 1)[0] for line in page["operations"])
            if not page["pagination"]["hasMore"]:
                break
            offset = page["pagination"]["nextOffset"]

    expected = [f"{name}.{op}" for name, d in dispatchers.items() for op in d.operations]
    assert sorted(names) == sorted([*expected, "fetch"])


@pytest.mark.parametrize("dispatchers", [UNIFIED, SPLIT], ids=["compact", "split"])
def test_discover_has_an_example_call_for_every_operation(
    dispatchers: dict[str, Dispatcher],
) -> None:
    catalogue = build_catalogue(single_tools(), set(dispatchers), dispatchers)

    for entry in catalogue:
        if "." not in entry.name:
            continue
        dispatcher, operation = entry.name.split(".")
        described = entry.describe()
        assert f'Call: {dispatcher}(operation="{operation}"' in described, entry.name
        assert "<" not in entry.example(), f"{entry.name}: an example with placeholders"
        for parameter in entry.route.parameters:
            assert f"- {parameter.name} (" in described, (entry.name, parameter.name)


@pytest.mark.parametrize(
    "content", ['["a", "b"]', '{"a": 1}', "null", "true", "[]", "42", '"quoted"']
)
async def test_text_that_looks_like_json_is_written_as_text(
    client: Client, vault: Path, content: str
) -> None:
    # The SDK parses as JSON the text given to a parameter not typed exactly `str` (hosts send
    # lists that way); a note's content is text whatever it looks like.
    created = await client.call_tool(
        "vault", {"operation": "create", "filename": "Inbox/json 🚀 #1.md", "content": content}
    )

    assert not created.is_error, texts(created)
    assert (vault / "Inbox" / "json 🚀 #1.md").read_text(encoding="utf-8") == content


async def test_a_list_parameter_still_takes_a_list_sent_as_json_text(client: Client) -> None:
    read = await client.call_tool(
        "vault", {"operation": "read_many", "filenames": '["Welcome.md"]', "maxLength": 200}
    )

    assert not read.is_error, texts(read)
    assert json.loads(texts(read)[0])["notes"][0]["filename"] == "Welcome.md"
