"""The mem_* tools through the SDK's in-process Client: the contract, a real workflow, errors."""

from __future__ import annotations

import json
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
from vaultgate.tools import memory as memory_tools
from vaultgate.tools.routes import Route

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


# --- full detail, the 2,000-token budget, ten ids (seeds 001 and 002) -------------------------


LONG = "Décision 🧭: the cache keeps 会議 notes whole. " * 125  # 5,400+ characters


async def test_full_detail_returns_a_long_observation_whole_in_every_reading_tool(
    client: Client,
) -> None:
    await call(client, "mem_save", title="Cache 🗄 rules", content=LONG, session_id="s")
    whole = LONG.strip()

    searched = await call(client, "mem_search", query="cache", detail_level="full")
    context = await call(client, "mem_context", detail_level="full")
    centred = await call(client, "mem_timeline", observation_id=1, detail_level="full")
    around = json.loads(await call(client, "timeline", detail_level="full"))
    read = await call(client, "mem_get_observation", id=1)

    assert len(whole) > 5_400
    for answer in (searched, context, centred, read):
        assert whole in answer
        assert "fit in max_tokens" not in answer
    assert around["entries"][0]["text"] == whole


async def test_the_budget_decides_how_many_results_and_never_cuts_one(client: Client) -> None:
    for n in range(4):
        await call(client, "mem_save", title=f"Long {n} 📚", content=f"{n} {LONG}")

    searched = await call(client, "mem_search", query="cache", detail_level="full")
    alone = await call(client, "mem_search", query="cache", detail_level="full", max_tokens=500)

    assert len(searched) <= 2_000 * 4
    shown = [line for line in searched.splitlines() if line.startswith("[")]
    assert len(shown) == 1
    assert "Token budget: 1 of 4 results fit in max_tokens=2000." in searched
    assert f"0 {LONG.strip()}" in alone or f"3 {LONG.strip()}" in alone  # the first, whole
    assert "Token budget: 1 of 4 results fit in max_tokens=500." in alone


async def test_a_default_search_fills_seed_002s_2000_tokens(client: Client) -> None:
    for n in range(12):
        await call(client, "mem_save", title=f"Note {n} " + "标题 🚀 " * 60, content=LONG)

    searched = await call(client, "mem_search", query="cache")

    assert 5_000 < len(searched) <= 8_000  # past the old 1,250-token (5,000-character) default
    assert len([line for line in searched.splitlines() if line.startswith("[")]) == 10
    assert "Token budget" not in searched


async def test_get_observations_takes_at_most_ten_ids(client: Client) -> None:
    for n in range(11):
        await call(client, "mem_save", title=f"t{n}", content=f"c{n} ✨")

    ten = await call(client, "mem_get_observations", ids=list(range(1, 11)))
    eleven = await client.call_tool("mem_get_observations", {"ids": list(range(1, 12))})

    assert [line.split()[0] for line in ten.splitlines() if line.startswith("#")] == [
        f"#{n}" for n in range(1, 11)
    ]
    assert eleven.is_error


# --- timeline around a time (seed 002) -------------------------------------------------------


async def timeline_server(tmp_path: Path) -> str:
    """A database with twelve observations an hour apart from 2026-03-01 08:00 UTC, in two
    projects and two sessions, with long emoji and CJK texts."""
    db = str(tmp_path / "memory.db")
    moment = [datetime(2026, 3, 1, 8, 0, tzinfo=UTC)]
    store = MemoryStore.open(db, clock=lambda: moment[0])
    try:
        for n in range(12):
            project = "atlas" if n % 2 == 0 else "borealis 🌌"
            store.save(
                f"Hour {n:02} 🕐",
                f"{n:02}: " + "記録 notes 📓 " * 40,
                type="decision" if n % 3 else "bugfix",
                project=project,
                session_id=f"{project}/s{n // 6}",
            )
            moment[0] += timedelta(hours=1)
    finally:
        store.close()
    return db


async def test_timeline_centres_on_an_anchor_chronologically_with_the_seeds_metadata(
    tmp_path: Path,
) -> None:
    db = await timeline_server(tmp_path)
    async with Client(build_server(settings(db))) as client:
        answer = json.loads(
            await call(client, "timeline", anchor="2026-03-01T13:30:00Z", before=2, after=3)
        )
        same = json.loads(
            await call(client, "mem_timeline", anchor="2026-03-01T13:30:00Z", before=2, after=3)
        )

    assert answer == same
    assert answer["anchor"] == "2026-03-01T13:30:00Z"
    assert [e["title"] for e in answer["entries"]] == [
        "Hour 04 🕐",
        "Hour 05 🕐",
        "Hour 06 🕐",
        "Hour 07 🕐",
        "Hour 08 🕐",
    ]
    first = answer["entries"][0]
    assert set(first) == {"id", "createdAt", "sessionId", "source", "title", "text"}
    assert (first["id"], first["createdAt"], first["sessionId"], first["source"]) == (
        5,
        "2026-03-01T12:00:00Z",
        "atlas/s0",
        "decision",
    )
    assert len(first["text"]) == 200
    assert first["text"].startswith("04: 記録 notes 📓")
    assert first["text"].endswith("…")
    assert (answer["totalBefore"], answer["totalAfter"]) == (6, 6)
    assert (answer["hasMore"], answer["truncated"]) == (True, False)
    assert answer["message"].startswith("Showing 5 of 12 observations around the anchor.")
    assert 'mem_timeline(anchor="2026-03-01T12:00:00Z")' in answer["message"]


async def test_timeline_filters_by_project_and_session_under_the_seeds_names(
    tmp_path: Path,
) -> None:
    db = await timeline_server(tmp_path)
    async with Client(build_server(settings(db))) as client:
        by_project = json.loads(
            await call(client, "timeline", anchor="2026-03-01T13:30:00Z", projectId="Atlas")
        )
        by_session = json.loads(
            await call(
                client, "timeline", anchor="2026-03-01T13:30:00Z", sessionId="borealis 🌌/s1"
            )
        )
        both = json.loads(
            await call(
                client,
                "mem_timeline",
                anchor="2026-03-01T13:30:00+02:00",
                project="borealis 🌌",
                session_id="borealis 🌌/s0",
                before=20,
                after=20,
            )
        )

    assert [e["title"][:7] for e in by_project["entries"]] == [
        f"Hour {n:02}" for n in (0, 2, 4, 6, 8, 10)
    ]
    assert (by_project["totalBefore"], by_project["totalAfter"], by_project["hasMore"]) == (
        3,
        3,
        False,
    )
    assert "message" not in by_project
    assert {e["sessionId"] for e in by_session["entries"]} == {"borealis 🌌/s1"}
    assert [e["title"][:7] for e in both["entries"]] == ["Hour 01", "Hour 03", "Hour 05"]
    assert (both["anchor"], both["totalBefore"], both["totalAfter"]) == (
        "2026-03-01T11:30:00Z",
        2,
        1,
    )


async def test_timeline_without_an_anchor_centres_on_now(tmp_path: Path) -> None:
    db = await timeline_server(tmp_path)
    async with Client(build_server(settings(db))) as client:
        answer = json.loads(await call(client, "timeline"))
        through_mem = json.loads(await call(client, "mem_timeline"))

    now = datetime.now(UTC)
    anchor = datetime.fromisoformat(answer["anchor"])
    assert abs((now - anchor).total_seconds()) < 60
    assert [e["title"][:7] for e in answer["entries"]] == [f"Hour {n:02}" for n in range(7, 12)]
    assert (answer["totalBefore"], answer["totalAfter"], answer["hasMore"]) == (12, 0, True)
    assert through_mem["entries"] == answer["entries"]


async def test_timeline_detail_levels_leave_out_cut_or_keep_the_text(tmp_path: Path) -> None:
    db = await timeline_server(tmp_path)
    async with Client(build_server(settings(db))) as client:
        levels = {
            level: json.loads(
                await call(client, "timeline", anchor="2026-03-01T13:30:00Z", detail_level=level)
            )
            for level in ("summary", "standard", "full")
        }

    assert all("text" not in e for e in levels["summary"]["entries"])
    assert all(len(e["text"]) <= 200 for e in levels["standard"]["entries"])
    assert all(e["text"].endswith("記録 notes 📓") for e in levels["full"]["entries"])
    assert len(json.dumps(levels["summary"])) < 0.5 * len(json.dumps(levels["standard"]))


async def test_timeline_keeps_the_nearest_entries_within_max_tokens_and_says_so(
    tmp_path: Path,
) -> None:
    db = await timeline_server(tmp_path)
    async with Client(build_server(settings(db))) as client:
        text = await call(
            client,
            "timeline",
            anchor="2026-03-01T13:30:00Z",
            before=20,
            after=20,
            detail_level="full",
            max_tokens=500,
        )

    answer = json.loads(text)
    assert len(text) <= 500 * 4
    assert [e["title"][:7] for e in answer["entries"]] == ["Hour 05", "Hour 06"]
    assert (answer["hasMore"], answer["truncated"]) == (True, True)
    assert "max_tokens left some out" in answer["message"]


@pytest.mark.parametrize(
    ("tool", "arguments", "message"),
    [
        pytest.param("timeline", {"anchor": "last Tuesday"}, "is not an ISO datetime", id="words"),
        pytest.param("timeline", {"before": 0}, "", id="before-0"),
        pytest.param("timeline", {"after": 21}, "", id="after-21"),
        pytest.param(
            "mem_timeline",
            {"anchor": "2026-03-01", "before": 0},
            "before must be 1",
            id="mem-before-0",
        ),
        pytest.param(
            "mem_timeline",
            {"observation_id": 1, "anchor": "2026-03-01"},
            "not both",
            id="id-and-anchor",
        ),
        pytest.param(
            "mem_timeline",
            {"observation_id": 1, "project": "atlas"},
            "not both",
            id="id-and-project",
        ),
    ],
)
async def test_a_bad_timeline_call_is_refused_with_what_works(
    client: Client, tool: str, arguments: dict[str, Any], message: str
) -> None:
    await call(client, "mem_save", title="t", content="c")

    assert message in error_of(await client.call_tool(tool, arguments))


def test_the_memory_dispatchers_route_validates_anchor_and_the_filters() -> None:
    # The dispatcher hands an operation's arguments to Route(mem_timeline), which validates them
    # against mem_timeline's own signature: anchor and the filters are its parameters, none of
    # the timeline's is required.
    route = Route(memory_tools.mem_timeline)

    names = [p.name for p in route.parameters]
    assert {"anchor", "project", "session_id", "observation_id"} <= set(names)
    assert [p.name for p in route.parameters if p.required] == []
    assert "anchor=null" in route.describe_parameters()


async def test_the_memory_dispatcher_reaches_the_timeline_around_now(tmp_path: Path) -> None:
    db = await timeline_server(tmp_path)
    async with Client(build_server(settings(db, VAULTGATE_TOOLS="compact"))) as client:
        names = {tool.name for tool in (await client.list_tools()).tools}
        answer = json.loads(await call(client, "memory", operation="timeline", before=2, after=0))

    assert "timeline" not in names  # the seed's own tool is the full profile's
    assert [e["title"][:7] for e in answer["entries"]] == ["Hour 10", "Hour 11"]
