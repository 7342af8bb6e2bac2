"""VAULTGATE_READ_ONLY and VAULTGATE_ALLOW / VAULTGATE_DENY hold for every tool."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from mcp import Client
from tests.tools.conftest import EmulatorFactory, error_text, payload, settings_for, texts

from vaultgate.config import Settings
from vaultgate.emulator.runner import RunningEmulator
from vaultgate.errors import ConfigError
from vaultgate.server import build_server
from vaultgate.tools.operations import SPLIT, UNIFIED, Dispatcher
from vaultgate.tools.registry import writing_tools

pytestmark = pytest.mark.anyio

WRITE_TOOLS = {
    "create_vault_file",
    "append_to_vault_file",
    "patch_vault_file",
    "delete_vault_file",
    "move_vault_file",
    "bulk_delete_files",
    "update_active_file",
    "append_to_active_file",
    "patch_active_file",
    "delete_active_file",
    "show_file_in_obsidian",
    "execute_command",
    "append_to_periodic_note",
    "execute_template",
    "replace_in_notes",
    "set_note_property",
    "delete_note_property",
    "add_note_tag",
    "remove_note_tag",
}


@asynccontextmanager
async def guarded(emulator: RunningEmulator, env: Mapping[str, str]) -> AsyncIterator[Client]:
    async with Client(build_server(settings_for(emulator, **env))) as client:
        yield client


async def test_read_only_leaves_every_write_tool_out(emulator_factory: EmulatorFactory) -> None:
    async with guarded(emulator_factory(), {"VAULTGATE_READ_ONLY": "true"}) as client:
        names = {tool.name for tool in (await client.list_tools()).tools}
        refused = await client.call_tool("create_vault_file", {"filename": "x.md", "content": "x"})

    assert names.isdisjoint(WRITE_TOOLS)
    assert {"list_vault_files", "get_vault_file", "search_vault_simple", "list_tags"} <= names
    assert refused.is_error


async def test_every_write_tool_is_left_out_in_read_only_mode_and_present_otherwise(
    client: Client,
) -> None:
    names = {tool.name for tool in (await client.list_tools()).tools}

    assert names >= WRITE_TOOLS
    for tool in (await client.list_tools()).tools:
        if tool.name in WRITE_TOOLS:
            assert tool.annotations is not None
            assert tool.annotations.read_only_hint is False, tool.name


async def test_a_read_only_server_offers_vault_and_no_vault_edit(
    emulator_factory: EmulatorFactory, vault: Path
) -> None:
    async with guarded(emulator_factory(), {"VAULTGATE_READ_ONLY": "true"}) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        read = await client.call_tool("vault", {"operation": "read", "filename": "Welcome.md"})
        search = await client.call_tool("vault", {"operation": "search", "query": "meeting"})
        active_read = await client.call_tool("vault", {"operation": "active"})
        write = await client.call_tool(
            "vault_edit", {"operation": "create", "filename": "x.md", "content": "x"}
        )
        old_write = await client.call_tool(
            "vault", {"operation": "create", "filename": "x.md", "content": "x"}
        )
        active = await client.call_tool("active_file", {"operation": "update", "content": "x"})

    assert not {"vault_edit", "active_file", "memory_edit"} & set(tools)
    assert tools["vault"].input_schema["properties"]["operation"]["enum"] == list(
        SPLIT["vault"].routes
    )
    assert tools["vault"].annotations is not None
    assert tools["vault"].annotations.read_only_hint is True
    assert {"mem_save", "memory"} <= set(tools)  # vaultgate's own database
    assert tools["memory"].input_schema["properties"]["operation"]["enum"] == list(
        UNIFIED["memory"].routes
    )
    assert not read.is_error
    assert not search.is_error
    assert not active_read.is_error
    assert error_text(write).startswith(f'{READ_ONLY}vault_edit(operation="create") writes')
    assert error_text(old_write).startswith(f'{READ_ONLY}vault(operation="create") writes')
    assert error_text(active).startswith(f'{READ_ONLY}active_file(operation="update") writes')
    assert not (vault / "x.md").exists()


@pytest.mark.parametrize(
    ("profile", "table"), [("full", UNIFIED), ("split", SPLIT)], ids=["compact", "split"]
)
async def test_a_writable_server_offers_every_operation(
    emulator: RunningEmulator, profile: str, table: dict[str, Dispatcher]
) -> None:
    async with guarded(emulator, {"VAULTGATE_TOOLS": profile}) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}

    for name, dispatcher in table.items():
        enum = tools[name].input_schema["properties"]["operation"]["enum"]
        assert enum == list(dispatcher.routes), name


READ_ONLY = "vaultgate is read-only (VAULTGATE_READ_ONLY=true): "


# Both profiles' writing operations (vault.create and vault_edit.create alike): a read-only
# server of any profile refuses each by its own name.
WRITING_OPERATIONS = sorted(
    {
        (name, operation)
        for table in (UNIFIED, SPLIT)
        for name, dispatcher in table.items()
        for operation, route in dispatcher.routes.items()
        if route.writes
    }
)


@asynccontextmanager
async def read_only(profile: str) -> AsyncIterator[Client]:
    """A read-only server with no Obsidian behind it: a write is refused before any request."""
    settings = Settings.from_env(
        {
            "OBSIDIAN_API_KEY": "k",
            "VAULTGATE_MEMORY_DB": ":memory:",
            "VAULTGATE_TOOLS": profile,
            "VAULTGATE_READ_ONLY": "true",
        }
    )
    async with Client(build_server(settings)) as client:
        yield client


@pytest.mark.parametrize("profile", ["compact", "split", "full"])
async def test_a_write_asked_of_a_read_only_server_is_told_so_whatever_its_arguments(
    profile: str,
) -> None:
    bad = {"filename": 3, "content": ["x"], "path": "x"}  # wrong types and an unknown name too
    async with read_only(profile) as client:
        answers = [
            (call, await client.call_tool(call[0], {"operation": call[1], **arguments}))
            for call in WRITING_OPERATIONS
            for arguments in ({}, bad)
        ]
        created = await client.call_tool(
            "vault", {"operation": "create", "filename": "x.md", "content": "x"}
        )

    assert WRITING_OPERATIONS
    assert len(answers) == 2 * len(WRITING_OPERATIONS)
    for (dispatcher, operation), answer in answers:
        text = error_text(answer)
        assert text.startswith(f'{READ_ONLY}{dispatcher}(operation="{operation}") writes to the')
        assert "Tell the user" in text
        assert "Reading still works: vault(operation=...)." in text
        assert "validation" not in text
        assert "pydantic" not in text
    assert error_text(created).startswith(f'{READ_ONLY}vault(operation="create") writes')
    assert {"vault", "vault_edit", "active_file"} == {d for d, _ in WRITING_OPERATIONS}


@pytest.mark.parametrize("profile", ["compact", "split", "full"])
async def test_a_writing_tool_asked_of_a_read_only_server_is_told_so(profile: str) -> None:
    async with read_only(profile) as client:
        answers = {name: await client.call_tool(name, {"filename": 3}) for name in WRITE_TOOLS}

    assert writing_tools() == WRITE_TOOLS
    for name, answer in answers.items():
        assert error_text(answer).startswith(f"{READ_ONLY}{name} writes to the vault"), name


DENY_PRIVATE = {"VAULTGATE_DENY": "Areas/**,**/Résumé*"}
RUNNING_LOG = "Areas/Health/Running log.md"


async def test_denied_paths_vanish_from_listings(emulator_factory: EmulatorFactory) -> None:
    async with guarded(emulator_factory(), DENY_PRIVATE) as client:
        root = payload(await client.call_tool("list_vault_files", {}))
        every = payload(
            await client.call_tool(
                "list_vault_files", {"recursive": True, "limit": 1000, "layout": "flat"}
            )
        )

    assert "Areas/" not in root["files"]
    assert not [p for p in every["files"] if p.startswith("Areas/")]
    assert every["files"]


async def test_denied_paths_vanish_from_search_results(emulator_factory: EmulatorFactory) -> None:
    async with guarded(emulator_factory(), DENY_PRIVATE) as client:
        simple = payload(await client.call_tool("search_vault_simple", {"query": "run"}))
        structured = payload(
            await client.call_tool("search_vault", {"query": {"glob": ["**", {"var": "path"}]}})
        )

    for results in (simple["results"], structured["results"]):
        assert results
        assert not [r for r in results if r["filename"].startswith("Areas/")]


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("get_vault_file", {"filename": "Areas/Health/Running log.md"}),
        ("get_vault_file", {"filename": "Areas/Health/Running log.md", "format": "map"}),
        ("create_vault_file", {"filename": "Areas/new.md", "content": "x"}),
        ("append_to_vault_file", {"filename": "Areas/Health/Running log.md", "content": "x"}),
        (
            "patch_vault_file",
            {
                "filename": "Areas/Health/Running log.md",
                "patchOperation": "append",
                "targetType": "frontmatter",
                "target": "x",
                "content": "y",
            },
        ),
        ("delete_vault_file", {"filename": "Areas/Health/Running log.md"}),
        ("move_vault_file", {"source": "Inbox/Quick capture.md", "destination": "Areas/q.md"}),
        ("move_vault_file", {"source": "Areas/Health/Running log.md", "destination": "Inbox/"}),
        ("show_file_in_obsidian", {"filename": "Areas/Health/Running log.md"}),
        ("replace_in_notes", {"find": "a", "replacement": "b", "filename": RUNNING_LOG}),
        ("set_note_property", {"filename": RUNNING_LOG, "key": "k", "value": 1}),
        ("delete_note_property", {"filename": RUNNING_LOG, "key": "goal_km_per_week"}),
        ("add_note_tag", {"filename": RUNNING_LOG, "tag": "t"}),
        (
            "remove_note_tag",
            {"filename": RUNNING_LOG, "tag": "area/health/running", "inline": True},
        ),
    ],
)
async def test_denied_paths_are_refused_by_every_path_tool(
    emulator_factory: EmulatorFactory, vault: Path, tool: str, arguments: dict[str, object]
) -> None:
    before = sorted(p.as_posix() for p in vault.rglob("*"))

    async with guarded(emulator_factory(), DENY_PRIVATE) as client:
        error = error_text(await client.call_tool(tool, arguments))

    assert "VAULTGATE_ALLOW / VAULTGATE_DENY" in error
    assert sorted(p.as_posix() for p in vault.rglob("*")) == before


async def test_a_denied_active_file_cannot_be_read_or_changed(
    emulator_factory: EmulatorFactory, vault: Path
) -> None:
    emulator = emulator_factory(active_file="Areas/Health/Running log.md")
    before = (vault / "Areas/Health/Running log.md").read_text(encoding="utf-8")

    async with guarded(emulator, DENY_PRIVATE) as client:
        errors = [
            error_text(await client.call_tool("get_active_file", {})),
            error_text(await client.call_tool("get_active_file", {"format": "map"})),
            error_text(await client.call_tool("append_to_active_file", {"content": "x"})),
            error_text(await client.call_tool("update_active_file", {"content": "x"})),
        ]

    assert all("VAULTGATE_ALLOW / VAULTGATE_DENY" in e for e in errors)
    assert (vault / "Areas/Health/Running log.md").read_text(encoding="utf-8") == before


async def test_an_allow_list_keeps_everything_else_out(emulator_factory: EmulatorFactory) -> None:
    async with guarded(emulator_factory(), {"VAULTGATE_ALLOW": "Daily/**"}) as client:
        root = payload(await client.call_tool("list_vault_files", {}))
        every = payload(
            await client.call_tool(
                "list_vault_files", {"recursive": True, "limit": 1000, "layout": "flat"}
            )
        )
        daily = await client.call_tool("get_vault_file", {"filename": "Daily/2026-11-21.md"})
        other = await client.call_tool("get_vault_file", {"filename": "Projects/Overview.md"})

    assert root["files"] == ["Daily/"]
    assert every["files"] == [f"Daily/2026-11-{day}.md" for day in range(17, 22)]
    assert not daily.is_error
    assert "VAULTGATE_ALLOW" in texts(other)[0]


def test_a_bad_glob_in_the_settings_stops_the_server_at_start() -> None:
    settings = Settings.from_env({"OBSIDIAN_API_KEY": "k", "VAULTGATE_DENY": "{1..1000000}"})

    with pytest.raises(ConfigError):
        build_server(settings)


async def test_denied_paths_are_never_bulk_deleted(
    emulator_factory: EmulatorFactory, vault: Path
) -> None:
    arguments = {"pattern": "**/*.md", "limit": 200}
    async with guarded(emulator_factory(), DENY_PRIVATE) as client:
        listed = payload(await client.call_tool("bulk_delete_files", arguments))["files"]
        report = payload(
            await client.call_tool("bulk_delete_files", {**arguments, "dryRun": False})
        )

    assert listed
    assert not [p for p in listed if p.startswith("Areas/")]
    assert report["deleted"] == listed
    assert (vault / "Areas/Health/Running log.md").exists()


async def test_denied_notes_are_never_listed_or_changed_by_replace(
    emulator_factory: EmulatorFactory, vault: Path
) -> None:
    arguments = {"find": "run", "replacement": "jog", "limit": 100}
    denied = (vault / RUNNING_LOG).read_bytes()
    async with guarded(emulator_factory(), DENY_PRIVATE) as client:
        listed = [
            n["path"]
            for n in payload(await client.call_tool("replace_in_notes", arguments))["notes"]
        ]
        report = payload(await client.call_tool("replace_in_notes", {**arguments, "dryRun": False}))

    assert listed
    assert not [p for p in listed if p.startswith("Areas/")]
    assert [entry["path"] for entry in report["replaced"]] == listed
    assert (vault / RUNNING_LOG).read_bytes() == denied


async def test_denied_paths_vanish_from_smart_search(emulator_factory: EmulatorFactory) -> None:
    async with guarded(emulator_factory(extensions=True), DENY_PRIVATE) as client:
        page = payload(
            await client.call_tool("search_vault_smart", {"query": "running sleep budget"})
        )

    assert page["results"]
    assert not [r for r in page["results"] if r["path"].startswith("Areas/")]


async def test_a_denied_periodic_note_is_refused(emulator_factory: EmulatorFactory) -> None:
    emulator = emulator_factory(plugin_version="4.1.7")
    async with guarded(emulator, {"VAULTGATE_DENY": "Daily/**"}) as client:
        read = error_text(
            await client.call_tool("get_periodic_note", {"period": "daily", "date": "2026-11-21"})
        )
        append = error_text(
            await client.call_tool(
                "append_to_periodic_note",
                {"period": "daily", "content": "x", "date": "2026-11-21"},
            )
        )

    assert "VAULTGATE_ALLOW / VAULTGATE_DENY" in read
    assert "VAULTGATE_ALLOW / VAULTGATE_DENY" in append


async def test_a_template_cannot_write_to_a_denied_path(
    emulator_factory: EmulatorFactory, vault: Path
) -> None:
    async with guarded(emulator_factory(extensions=True), DENY_PRIVATE) as client:
        error = error_text(
            await client.call_tool(
                "execute_template",
                {
                    "name": "Templates/Meeting template.md",
                    "createFile": True,
                    "targetPath": "Areas/from template.md",
                },
            )
        )

    assert "VAULTGATE_ALLOW / VAULTGATE_DENY" in error
    assert not (vault / "Areas/from template.md").exists()
