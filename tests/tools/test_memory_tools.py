"""The mem_* tools through the SDK's in-process Client: the contract, a real workflow, errors."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.types import CallToolResult, TextContent

from vaultgate.config import Settings
from vaultgate.memory.store import MemoryStore
from vaultgate.server import build_server

pytestmark = pytest.mark.anyio

MEMORY_TOOLS: dict[str, dict[str, Any]] = {
    "mem_session_start": {"project": ..., "session_id": None, "directory": None},
    "mem_session_end": {"session_id": ..., "summary": None},
    "mem_save": {
        "title": ...,
        "content": ...,
        "type": "manual",
        "project": None,
        "scope": "project",
        "session_id": None,
        "topic_key": None,
    },
    "mem_update": {"id": ..., "title": None, "content": None, "type": None, "topic_key": None},
    "mem_delete": {"id": ..., "hard": False},
    "mem_save_prompt": {"content": ..., "project": None, "session_id": None},
    "mem_stats": {"project": None},
    "mem_search": {
        "query": ...,
        "project": None,
        "type": None,
        "scope": None,
        "limit": 10,
        "detail_level": "standard",
        "max_tokens": 2000,
    },
    "mem_context": {
        "project": None,
        "scope": None,
        "limit": 20,
        "detail_level": "standard",
        "max_tokens": 2000,
    },
    "mem_timeline": {
        "observation_id": None,
        "anchor": None,
        "before": 5,
        "after": 5,
        "project": None,
        "session_id": None,
        "detail_level": "standard",
        "max_tokens": 2000,
    },
    "timeline": {
        "anchor": None,
        "before": 5,
        "after": 5,
        "sessionId": None,
        "projectId": None,
        "detail_level": "standard",
        "max_tokens": 2000,
    },
    "mem_get_observation": {"id": ..., "revision": None, "max_tokens": 2000},
    "mem_get_observations": {"ids": ..., "max_tokens": 2000},
    "mem_compact": {
        "older_than_days": ...,
        "project": None,
        "scope": None,
        "compact_ids": None,
        "summary_title": None,
        "summary_content": None,
        "session_id": None,
    },
}
READ_ONLY = {
    "mem_stats",
    "mem_search",
    "mem_context",
    "mem_timeline",
    "timeline",
    "mem_get_observation",
    "mem_get_observations",
}
DESTRUCTIVE = {"mem_delete", "mem_compact", "mem_update"}


def settings(db: str = ":memory:", **env: str) -> Settings:
    """The full profile: these tests hold the single mem_* tools to their seed contract."""
    return Settings.from_env(
        {"OBSIDIAN_API_KEY": "k", "VAULTGATE_MEMORY_DB": db, "VAULTGATE_TOOLS": "full", **env}
    )


@pytest.fixture
async def client() -> AsyncIterator[Client]:
    async with Client(build_server(settings())) as connected:
        yield connected


def text_of(result: CallToolResult) -> str:
    assert not result.is_error, result.content
    block = result.content[0]
    assert isinstance(block, TextContent)
    return block.text


def error_of(result: CallToolResult) -> str:
    assert result.is_error
    block = result.content[0]
    assert isinstance(block, TextContent)
    return block.text


async def call(client: Client, name: str, **arguments: Any) -> str:
    return text_of(await client.call_tool(name, arguments))


# --- the contract ---------------------------------------------------------------------------


async def test_memory_tools_have_exactly_the_contracted_parameters_defaults_and_hints(
    client: Client,
) -> None:
    tools = {tool.name: tool for tool in (await client.list_tools()).tools}

    for name, parameters in MEMORY_TOOLS.items():
        schema = tools[name].input_schema
        assert set(schema.get("properties", {})) == set(parameters), name
        required = {p for p, default in parameters.items() if default is ...}
        assert set(schema.get("required", [])) == required, name
        for parameter, default in parameters.items():
            if default is not ...:
                assert schema["properties"][parameter].get("default") == default, (name, parameter)
        annotations = tools[name].annotations
        assert annotations is not None
        assert annotations.read_only_hint is (name in READ_ONLY), name
        assert bool(annotations.destructive_hint) is (name in DESTRUCTIVE), name
        assert tools[name].description, name


async def test_detail_level_is_an_enum_and_max_tokens_is_bounded(client: Client) -> None:
    tools = {tool.name: tool for tool in (await client.list_tools()).tools}

    for name in ("mem_search", "mem_context", "mem_timeline"):
        enum = tools[name].input_schema["properties"]["detail_level"]["enum"]
        assert enum == ["summary", "standard", "full"], name
    result = await client.call_tool("mem_search", {"query": "x", "detail_level": "verbose"})
    assert result.is_error


async def test_the_instructions_describe_the_memory_workflow() -> None:
    async with Client(build_server(settings())) as client:
        given = client.instructions or ""

    for phrase in (
        'mem_search(query=<words>, detail_level="summary")',
        "mem_timeline(observation_id=<id>)",
        "mem_get_observations(ids=[<id>, ...])",
        "'Showing X of Y",
        "'Token budget'",
        "mem_compact(older_than_days=90)",
        "compact_ids",
    ):
        assert phrase in given, phrase


async def test_read_only_mode_keeps_every_memory_tool_since_none_writes_to_the_vault() -> None:
    async with Client(build_server(settings(VAULTGATE_READ_ONLY="true"))) as client:
        names = {tool.name for tool in (await client.list_tools()).tools}
        saved = await call(client, "mem_save", title="still", content="works")

    assert {name for name in names if name.startswith("mem_") or name == "timeline"} == set(
        MEMORY_TOOLS
    )
    assert saved.startswith("Saved #1")


# --- a session, end to end ------------------------------------------------------------------


async def test_search_then_timeline_then_full_detail(client: Client) -> None:
    started = await call(client, "mem_session_start", project="Atlas", session_id="s1")
    assert 'session_id="s1"' in started
    ids = []
    for n in range(6):
        saved = await call(
            client,
            "mem_save",
            title=f"Step {n}: cache decision",
            content=f"We chose write-through caching at step {n}. " * 30,
            type="decision",
            session_id="s1",
        )
        ids.append(int(saved.split("#")[1].split()[0]))
    await call(client, "mem_save_prompt", content="Make the cache faster", session_id="s1")

    index = await call(client, "mem_search", query="caching", limit=3, detail_level="summary")
    assert index.splitlines()[0] == '6 results for "caching", best first.'
    assert "Showing 3 of 6 results. Use limit or mem_get_observation #ID for more." in index
    assert index.endswith("Use detail_level: standard or full for more detail")

    around = await call(client, "mem_timeline", observation_id=ids[3], before=1, after=1)
    assert f">>> #{ids[3]} [decision] Step 3" in around
    assert "Showing 3 of 6 observations in session." in around

    full = await call(client, "mem_get_observation", id=ids[3])
    assert full.count("write-through caching at step 3") == 30
    assert "session: s1 | project: atlas" in full

    several = await call(client, "mem_get_observations", ids=[ids[0], 999])
    assert "Not found (unknown or deleted): #999" in several

    context = await call(client, "mem_context", project="ATLAS", limit=2)
    assert "Make the cache faster" in context
    assert "Showing 2 of 6 observations." in context

    ended = await call(client, "mem_session_end", session_id="s1", summary="Cache is faster.")
    assert "Ended session 's1'" in ended


async def test_saves_report_new_and_duplicate(client: Client) -> None:
    first = await call(client, "mem_save", title="Auth", content="JWT", topic_key="arch/auth")
    duplicate = await call(client, "mem_save", title="auth", content="jwt")

    assert first.startswith("Saved #1 (new)")
    assert duplicate.startswith("Duplicate of #1")


async def test_a_save_with_a_topic_key_in_use_updates_it_and_keeps_the_old_text(
    client: Client,
) -> None:
    old_text = "JWT 🔑 in a cookie, 会话令牌. " * 300  # 9,000 characters
    await call(client, "mem_save", title="Auth 🔐", content=old_text, topic_key="arch/auth")
    updated = await call(
        client,
        "mem_save",
        title="Auth",
        content="OAuth 2 🎟",
        type="decision",
        topic_key="Arch/Auth",
    )
    current = await call(client, "mem_get_observation", id=1)
    previous = await call(client, "mem_get_observation", id=1, revision=1)

    assert updated == (
        "Updated #1 (the memory with topic_key 'arch/auth') in place; it is now revision 2. "
        "The text it replaced is kept as revision 1: mem_get_observation(id=1, revision=1) "
        "shows it."
    )
    assert current.startswith("#1 [decision] Auth\nOAuth 2 🎟\n---\n")
    assert current.endswith(
        "Earlier revisions kept: 1. Read one: mem_get_observation(id=1, revision=1)."
    )
    assert previous.startswith(f"#1 [manual] Auth 🔐\n{old_text.strip()}\n---\nrevision 1 of 2, ")
    assert "mem_get_observation(id=1) shows the current text" in previous
    assert "OAuth" not in previous
    assert (await call(client, "mem_search", query="OAuth")).startswith('1 result for "OAuth"')


async def test_a_revision_that_was_never_kept_is_refused_naming_those_there_are(
    client: Client,
) -> None:
    await call(client, "mem_save", title="a", content="one", topic_key="k")
    await call(client, "mem_update", id=1, content="two")

    refused = error_of(await client.call_tool("mem_get_observation", {"id": 1, "revision": 5}))
    zero = await client.call_tool("mem_get_observation", {"id": 1, "revision": 0})

    assert refused.startswith(
        "Observation #1 has no revision 5 kept. Its current text is revision 2; earlier "
        "revisions kept: 1."
    )
    assert zero.is_error


async def test_update_delete_and_stats(client: Client) -> None:
    await call(client, "mem_save", title="a", content="alpha", project="p")
    await call(client, "mem_save", title="b", content="beta", project="p")

    assert await call(client, "mem_update", id=1, content="gamma") == (
        "Updated #1; it is now revision 2. The text it replaced is kept as revision 1: "
        "mem_get_observation(id=1, revision=1) shows it."
    )
    assert "\nalpha\n---\nrevision 1 of 2, " in await call(
        client, "mem_get_observation", id=1, revision=1
    )
    assert await call(client, "mem_delete", id=2) == "Deleted (soft): #2 'b'."
    stats = await call(client, "mem_stats", project="P")
    assert stats.startswith("Memory for project 'p': 1 observation")
    assert "Database: :memory:" in stats


# --- errors the model can act on ------------------------------------------------------------


@pytest.mark.parametrize(
    ("tool", "arguments", "message"),
    [
        pytest.param("mem_get_observation", {"id": 42}, "does not exist", id="unknown-id"),
        pytest.param(
            "mem_save",
            {"title": "t", "content": "x" * 100_001},
            "at most 100,000",
            id="content-over-cap",
        ),
        pytest.param(
            "mem_compact",
            {"older_than_days": 30, "compact_ids": "1, 2"},
            "JSON array",
            id="compact-ids-not-json",
        ),
        pytest.param(
            "mem_compact",
            {"older_than_days": 30, "compact_ids": "[]"},
            "empty",
            id="compact-ids-empty",
        ),
        pytest.param(
            "mem_compact",
            {"older_than_days": 30, "summary_title": "s"},
            "needs compact_ids",
            id="summary-without-ids",
        ),
        pytest.param(
            "mem_session_end", {"session_id": "nope"}, "mem_session_start", id="unknown-session"
        ),
        pytest.param("mem_update", {"id": 1}, "Nothing to update", id="update-nothing"),
    ],
)
async def test_expected_failures_come_back_as_actionable_tool_errors(
    client: Client, tool: str, arguments: dict[str, Any], message: str
) -> None:
    text = error_of(await client.call_tool(tool, arguments))

    assert message in text
    assert text != f"Error executing tool {tool}"


@pytest.mark.parametrize("query", ['"', "'", "-", "*", ":", "(", "/", "@", "?", "", "a" * 10_240])
async def test_search_never_fails_on_odd_input(client: Client, query: str) -> None:
    await call(client, "mem_save", title="note", content="text")

    assert await call(client, "mem_search", query=query)


# --- compaction through the tool ------------------------------------------------------------


async def test_compaction_identify_then_execute(tmp_path: Path) -> None:
    db = str(tmp_path / "memory.db")
    long_ago = datetime.now(UTC) - timedelta(days=120)
    old = MemoryStore.open(db, clock=lambda: long_ago)
    ids = [old.save(f"old {n}", f"stale fact {n}", project="p").observation.id for n in range(3)]
    old.close()

    async with Client(build_server(settings(db))) as client:
        await call(client, "mem_save", title="fresh", content="new fact", project="p")
        listing = await call(client, "mem_compact", older_than_days=90, project="p")
        assert listing.splitlines()[0].startswith("3 observations older than 90 days")
        assert f'compact_ids: "[{",".join(map(str, ids))}]"' in listing

        done = await call(
            client,
            "mem_compact",
            older_than_days=90,
            project="p",
            compact_ids=f"[{ids[0]}, {ids[1]}]",
            summary_title="Old facts",
            summary_content="Facts 0 and 1 were stale.",
        )
        assert done.startswith("Compacted 2 observations")
        assert "4 before, 3 after" in done

        refused = error_of(
            await client.call_tool(
                "mem_compact", {"older_than_days": 90, "project": "p", "compact_ids": [ids[0]]}
            )
        )
        assert f"already deleted [{ids[0]}]" in refused


@pytest.mark.skipif(sys.platform != "linux", reason="platformdirs reads XDG_DATA_HOME on Linux")
async def test_the_default_database_is_created_only_when_a_memory_tool_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    default = tmp_path / "vaultgate" / "memory.db"

    env = {"OBSIDIAN_API_KEY": "k", "VAULTGATE_TOOLS": "full"}
    async with Client(build_server(Settings.from_env(env))) as client:
        await client.list_tools()
        assert not default.exists()
        await call(client, "mem_stats")

    assert default.exists()
