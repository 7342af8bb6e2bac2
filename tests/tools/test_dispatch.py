"""Every dispatcher operation answers exactly what its single tool answers."""

from __future__ import annotations

import json
import re
import shutil
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
    texts,
)

from vaultgate.emulator.runner import start_emulator
from vaultgate.tools.catalogue import build_catalogue
from vaultgate.tools.dispatch import DISPATCHERS, EDIT_ROUTES, VAULT_ROUTES
from vaultgate.tools.registry import single_tools

pytestmark = pytest.mark.anyio

PATCH = {
    "patchOperation": "append",
    "targetType": "heading",
    "target": "Risks",
    "content": "- one more\n",
}

# (dispatcher, operation, single tool, the single tool's arguments)
CASES: list[tuple[str, str, str, dict[str, Any]]] = [
    ("vault", "list", "list_vault_files", {"recursive": True, "limit": 7, "offset": 7}),
    ("vault", "read", "get_vault_file", {"filename": "Resources/Long essay.md", "maxLength": 900}),
    ("vault", "search", "search_vault_simple", {"query": "meeting", "limit": 3}),
    (
        "vault",
        "search_structured",
        "search_vault",
        {"query": {"glob": ["Daily/*", {"var": "path"}]}},
    ),
    ("vault", "search_smart", "search_vault_smart", {"query": "launch plan"}),
    ("vault", "tags", "list_tags", {"prefix": "book"}),
    ("vault_edit", "create", "create_vault_file", {"filename": "Inbox/n.md", "content": "# N\n"}),
    (
        "vault_edit",
        "append",
        "append_to_vault_file",
        {"filename": "Welcome.md", "content": "- x\n"},
    ),
    ("vault_edit", "patch", "patch_vault_file", {"filename": "Projects/Overview.md", **PATCH}),
    ("vault_edit", "delete", "delete_vault_file", {"filename": "Inbox/Quick capture.md"}),
    (
        "vault_edit",
        "move",
        "move_vault_file",
        {"source": "Inbox/Quick capture.md", "destination": "Archive/"},
    ),
    ("vault_edit", "bulk_delete", "bulk_delete_files", {"pattern": "Daily/*.md", "limit": 2}),
    ("vault", "periodic", "get_periodic_note", {"period": "daily", "date": "2026-11-21"}),
    (
        "vault_edit",
        "periodic_append",
        "append_to_periodic_note",
        {"period": "daily", "content": "- late\n", "date": "2026-11-21"},
    ),
    (
        "vault_edit",
        "template",
        "execute_template",
        {
            "name": "Templates/Meeting template.md",
            "createFile": True,
            "targetPath": "Meetings/From template.md",
        },
    ),
    ("vault", "info", "get_server_info", {}),
    # issue 13, reading
    (
        "vault",
        "read_many",
        "get_vault_files",
        {"filenames": ["Welcome.md", "Resources/Long essay.md", "Nope.md"], "maxLength": 900},
    ),
    ("vault", "recent", "get_recent_changes", {"days": 3650, "limit": 4, "offset": 2}),
    ("vault", "backlinks", "get_backlinks", {"filename": "People/Dana Whitfield.md", "limit": 2}),
    ("vault", "broken_links", "find_broken_links", {"folder": "Projects"}),
    ("vault", "orphans", "find_orphans", {"limit": 5, "offset": 1}),
    ("vault_edit", "replace", "replace_in_notes", {"find": "launch", "replacement": "release"}),
    (
        "vault_edit",
        "set_property",
        "set_note_property",
        {"filename": "Projects/Personal/🚀 Launch plan.md", "key": "status", "value": [1, "ü"]},
    ),
    (
        "vault_edit",
        "delete_property",
        "delete_note_property",
        {"filename": "Projects/Personal/100% done.md", "key": "progress"},
    ),
    (
        "vault_edit",
        "add_tag",
        "add_note_tag",
        {"filename": "Resources/Languages/日本語メモ.md", "tag": "#復習"},
    ),
    (
        "vault_edit",
        "remove_tag",
        "remove_note_tag",
        {"filename": "Projects/Personal/🚀 Launch plan.md", "tag": "Side-Project"},
    ),
    ("vault", "active", "get_active_file", {"maxLength": 120}),
    ("vault_edit", "active_update", "update_active_file", {"content": "# Replaced\n"}),
    ("vault_edit", "active_append", "append_to_active_file", {"content": "- appended\n"}),
    ("vault_edit", "active_patch", "patch_active_file", {**PATCH, "target": "Tasks"}),
    ("vault_edit", "active_delete", "delete_active_file", {"permanent": True}),
    ("vault_edit", "open", "show_file_in_obsidian", {"filename": "Welcome.md"}),
    ("vault", "commands", "list_commands", {"filter": "bold"}),
    ("vault_edit", "run_command", "execute_command", {"commandId": "editor:toggle-bold"}),
]
# Periodic notes left the plugin in 5.0.2; these operations are compared where it has them.
PLUGIN_VERSION = {"periodic": "4.1.7", "periodic_append": "4.1.7"}


def dispatcher_arguments(
    dispatcher: str, operation: str, arguments: dict[str, Any]
) -> dict[str, Any]:
    assert operation in DISPATCHERS[dispatcher][1]
    return {"operation": operation, **arguments}


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


def test_the_route_tables_cover_every_operation_literal() -> None:
    for _, (routes, operations) in DISPATCHERS.items():
        assert set(routes) == set(operations)
    assert {(d, op) for d, op, _, _ in CASES} == {
        *(("vault", op) for op in VAULT_ROUTES),
        *(("vault_edit", op) for op in EDIT_ROUTES),
    }


@pytest.mark.parametrize(
    ("dispatcher", "operation", "tool", "arguments"),
    [pytest.param(*case, id=f"{case[0]}.{case[1]}") for case in CASES],
)
async def test_each_operation_answers_as_its_single_tool(
    tmp_path: Path,
    connect: ClientFactory,
    dispatcher: str,
    operation: str,
    tool: str,
    arguments: dict[str, Any],
) -> None:
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
            plugin_version=PLUGIN_VERSION.get(operation, "5.1.0"),
        ) as emulator:
            async with connect(emulator) as client:
                if side == "dispatcher":
                    call = (dispatcher, dispatcher_arguments(dispatcher, operation, arguments))
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


async def test_a_patch_without_its_parameters_names_them(client: Client) -> None:
    arguments = {"operation": "patch", "filename": "Welcome.md"}
    error = error_text(await client.call_tool("vault_edit", arguments))

    assert "needs patchOperation, targetType, target, content" in error
    assert "Its parameters:" in error


@pytest.mark.parametrize(
    ("tool", "operation", "now"),
    [
        ("vault", "create", 'vault_edit(operation="create")'),
        ("vault", "set_property", 'vault_edit(operation="set_property")'),
        ("active_file", "read", 'vault(operation="active")'),
        ("active_file", "patch", 'vault_edit(operation="active_patch")'),
        ("active_file", "run_command", 'vault_edit(operation="run_command")'),
        ("memory", "delete", 'memory_edit(operation="delete")'),
    ],
)
async def test_an_operation_that_moved_is_answered_with_its_new_call(
    client: Client, vault: Path, tool: str, operation: str, now: str
) -> None:
    before = tree(vault)
    error = error_text(
        await client.call_tool(tool, {"operation": operation, "filename": "Welcome.md"})
    )

    assert f"{now} does the same" in error
    assert "Nothing was done" in error
    assert tree(vault) == before


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
            if "nextOffset" not in page:
                break
            offset = page["nextOffset"]
        described = texts(await client.call_tool("discover", {"operation": "vault_edit.patch"}))[0]

    # full: every single tool, each once, and no operation that repeats one
    assert {route.tool_name for route in VAULT_ROUTES.values()} <= set(names)
    assert {route.tool_name for route in EDIT_ROUTES.values()} <= set(names)
    assert {"get_vault_file", "mem_search", "fetch"} <= set(names)
    assert not any(name.startswith("vault.") for name in names)
    assert len(names) == len(set(names))
    assert page["plugin"]["version"] == "5.1.0"
    assert "patchOperation" in described
    assert 'vault_edit(operation="patch"' in described


def test_discover_has_an_example_call_for_every_operation() -> None:
    catalogue = build_catalogue(single_tools(), set(DISPATCHERS))

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
        "vault_edit", {"operation": "create", "filename": "Inbox/json 🚀 #1.md", "content": content}
    )

    assert not created.is_error, texts(created)
    assert (vault / "Inbox" / "json 🚀 #1.md").read_text(encoding="utf-8") == content


async def test_a_list_parameter_still_takes_a_list_sent_as_json_text(client: Client) -> None:
    read = await client.call_tool(
        "vault", {"operation": "read_many", "filenames": '["Welcome.md"]', "maxLength": 200}
    )

    assert not read.is_error, texts(read)
    assert json.loads(texts(read)[0])["notes"][0]["filename"] == "Welcome.md"
