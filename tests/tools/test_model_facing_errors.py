"""Arguments that used to reach the model as the SDK's bare "Error executing tool X": each now
gets an error that says what was wrong and what to try, through the SDK's Client."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.types import CallToolResult, TextContent
from tests.tools.conftest import settings_for

from vaultgate.config import MemorySettings, Settings
from vaultgate.emulator.runner import RunningEmulator
from vaultgate.server import build_server

pytestmark = pytest.mark.anyio

BARE = "Error executing tool {name}"


def model_error(result: CallToolResult, name: str) -> str:
    """The error text, checked to be more than the SDK's bare message."""
    assert result.is_error
    text = " ".join(block.text for block in result.content if isinstance(block, TextContent))
    assert text.strip()
    assert text.strip() != BARE.format(name=name)
    assert "internal error" not in text
    return text


@asynccontextmanager
async def server(emulator: RunningEmulator, memory_db: str) -> AsyncIterator[Client]:
    settings = dataclasses.replace(settings_for(emulator), memory=MemorySettings(db=memory_db))
    async with Client(build_server(settings)) as client:
        yield client


HUGE = [2**63, 2**64, 10**30]


@pytest.mark.parametrize("number", HUGE, ids=["2**63", "2**64", "10**30"])
@pytest.mark.parametrize(
    ("name", "arguments"),
    [
        pytest.param("mem_get_observation", lambda n: {"id": n}, id="get"),
        pytest.param("mem_get_observations", lambda n: {"ids": [1, n]}, id="get-many"),
        pytest.param("mem_delete", lambda n: {"id": n, "hard": True}, id="delete"),
        pytest.param("mem_update", lambda n: {"id": n, "title": "x"}, id="update"),
        pytest.param("mem_timeline", lambda n: {"observation_id": n}, id="timeline"),
        pytest.param(
            "mem_compact",
            lambda n: {"older_than_days": 1, "compact_ids": [n], "summary_title": "t"},
            id="compact-list",
        ),
        pytest.param(
            "mem_compact",
            lambda n: {"older_than_days": 1, "compact_ids": f"[{n}]"},
            id="compact-json",
        ),
    ],
)
async def test_an_id_beyond_sqlite_says_which_ids_exist(
    emulator: RunningEmulator,
    name: str,
    arguments: Callable[[int], dict[str, Any]],
    number: int,
) -> None:
    async with server(emulator, ":memory:") as client:
        result = await client.call_tool(name, arguments(number))

    text = model_error(result, name)
    assert "observation id" in text
    assert "mem_search" in text


@pytest.mark.parametrize(
    "days", [36_501, 10**9, 2**63], ids=["100-years-and-a-day", "1e9", "2**63"]
)
async def test_an_age_beyond_the_calendar_says_what_would_work(
    emulator: RunningEmulator, days: int
) -> None:
    async with server(emulator, ":memory:") as client:
        listing = await client.call_tool("mem_compact", {"older_than_days": days})
        compacting = await client.call_tool(
            "mem_compact", {"older_than_days": days, "compact_ids": [1]}
        )

    for result in (listing, compacting):
        text = model_error(result, "mem_compact")
        assert "older_than_days must be between 1 and 36,500" in text
        assert "Try 30" in text


async def test_a_query_the_length_of_a_document_is_refused_with_what_to_search_instead(
    emulator: RunningEmulator,
) -> None:
    async with server(emulator, ":memory:") as client:
        result = await client.call_tool("mem_search", {"query": "word " * 20_001})

    text = model_error(result, "mem_search")
    assert "100,005 characters" in text
    assert "distinctive words" in text


def unusable_paths(tmp_path: Path) -> dict[str, str]:
    folder = tmp_path / "a-folder"
    folder.mkdir()
    blocker = tmp_path / "a-file"
    blocker.write_text("not a database\n" * 100, encoding="utf-8")
    return {
        "folder": str(folder),
        "under-a-file": str(blocker / "memory.db"),
        "deeper-under-a-file": str(blocker / "sub" / "memory.db"),
        "not-a-database": str(blocker),
        "uncreatable-folder": "/proc/vaultgate-no-such/memory.db",
    }


@pytest.mark.parametrize(
    "kind",
    ["folder", "under-a-file", "deeper-under-a-file", "not-a-database", "uncreatable-folder"],
)
async def test_an_unusable_memory_database_fails_only_the_memory_tools(
    emulator: RunningEmulator, tmp_path: Path, kind: str
) -> None:
    path = unusable_paths(tmp_path)[kind]
    async with server(emulator, path) as client:
        saved = await client.call_tool("mem_save", {"title": "t", "content": "c"})
        searched = await client.call_tool("mem_search", {"query": "t"})
        listing = await client.call_tool("vault", {"operation": "list"})

    for result, name in ((saved, "mem_save"), (searched, "mem_search")):
        text = model_error(result, name)
        assert "VAULTGATE_MEMORY_DB" in text
        assert "vault tools are unaffected" in text or "vaultgate memory database" in text
    assert not listing.is_error


@pytest.mark.parametrize(
    ("url", "says"),
    [
        pytest.param("https://" + "a" * 64 + ".example/", "at most 63", id="label-over-63"),
        pytest.param("https://" + "b." * 130 + "example/", "at most 253", id="host-over-253"),
        pytest.param("http://[fec0::1]/", "site-local", id="site-local"),
        pytest.param("http://[3fff::1]/", "documentation", id="documentation"),
    ],
)
async def test_fetch_refuses_hosts_it_cannot_or_may_not_reach(
    emulator: RunningEmulator, url: str, says: str
) -> None:
    async with server(emulator, ":memory:") as client:
        result = await client.call_tool("fetch", {"url": url})

    assert says in model_error(result, "fetch")


@asynccontextmanager
async def no_obsidian() -> AsyncIterator[Client]:
    """A server whose arguments are refused before any request: no Obsidian is needed."""
    settings = Settings.from_env(
        {"OBSIDIAN_API_KEY": "k", "VAULTGATE_MEMORY_DB": ":memory:", "VAULTGATE_TOOLS": "full"}
    )
    async with Client(build_server(settings)) as client:
        yield client


@pytest.mark.parametrize(
    ("name", "arguments", "names"),
    [
        pytest.param("get_vault_file", {"filename": 3}, "filename: ", id="wrong-type"),
        pytest.param("get_vault_file", {}, "filename: Field required", id="missing"),
        pytest.param("list_vault_files", {"limit": 0}, "limit: ", id="out-of-bounds"),
        pytest.param("vault", {"operation": "nope"}, "operation: ", id="unknown-operation"),
        pytest.param(
            "vault", {"operation": "list", "limit": "many"}, "limit: ", id="dispatcher-type"
        ),
        pytest.param("vault", {"operation": "list", "limit": 0}, "limit: ", id="dispatcher-bounds"),
        pytest.param(
            "vault",
            {"operation": "read_many", "filenames": ["a.md", 5]},
            "filenames[1]: ",
            id="list-item",
        ),
        pytest.param("memory", {"operation": "search", "query": 5}, "query: ", id="memory"),
        pytest.param("mem_save", {"title": "t", "content": {"a": 1}}, "content: ", id="mem"),
        pytest.param("list_vault_files", {"limit": "\ud800"}, "limit: ", id="lone-surrogate"),
    ],
)
async def test_a_value_that_does_not_fit_is_named_without_pydantics_dump(
    name: str, arguments: dict[str, Any], names: str
) -> None:
    async with no_obsidian() as client:
        result = await client.call_tool(name, arguments)

    text = model_error(result, name)
    assert names in text
    assert "pydantic" not in text.lower()
    assert "https://" not in text
    assert "validation error for" not in text  # pydantic's header, naming its own model
    assert "[type=" not in text
    text.encode("utf-8")  # what the answer carries can be sent: no value it cannot encode


@pytest.mark.parametrize(
    ("profile", "arguments", "equivalent"),
    [
        ("full", {}, 'get_vault_file(format="map")'),
        (
            "full",
            {"filename": "Welcome.md", "maxLength": 500},
            'get_vault_file(filename="Welcome.md", maxLength=500, format="map")',
        ),
        (
            "compact",
            {"filename": "Welcome.md"},
            'vault(operation="read", filename="Welcome.md", format="map")',
        ),
        (
            "split",
            {"filename": "Welcome.md", "maxLength": None},
            'vault(operation="read", filename="Welcome.md", format="map")',
        ),
    ],
)
async def test_a_removed_operation_names_the_call_that_replaced_it(
    profile: str, arguments: dict[str, Any], equivalent: str
) -> None:
    settings = Settings.from_env(
        {"OBSIDIAN_API_KEY": "k", "VAULTGATE_MEMORY_DB": ":memory:", "VAULTGATE_TOOLS": profile}
    )
    async with Client(build_server(settings)) as client:
        result = await client.call_tool("vault", {"operation": "map", **arguments})

    assert model_error(result, "vault") == (
        f'vault(operation="map") is not offered by this server\'s tools; {equivalent} does the '
        "same. Nothing was done."
    )
