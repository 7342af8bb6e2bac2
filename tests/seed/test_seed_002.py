"""Seed 002, the timeline tool and the token budget: its must_haves (truths, artifacts,
key_links), its verification lines, and the timeline's own schema and answer.

The TypeScript names map to vaultgate's Python: ``src/mcp/tools/timeline.ts``'s
``registerTimelineTool`` is the ``timeline`` tool (``vaultgate.tools.memory.timeline``, full
profile), the same code as ``mem_timeline``'s anchor form; ``src/mcp/token-budget.ts``'s
``estimateTokens`` is ``vaultgate.paging.estimate_tokens``, ``enforceTokenBudget`` is
``vaultgate.paging.fit_count`` (items that fit a budget, with a running total), and
``TOKEN_BUDGET`` is ``vaultgate.memory.render.DEFAULT_MAX_TOKENS``, every ``max_tokens`` default.

``timeline`` takes seed 002's own names (``sessionId``, ``projectId``); ``mem_timeline`` takes the
Go seeds' (``session_id``, ``project``): docs/seed-contract.md records the two spellings.
"""

from __future__ import annotations

import ast
import inspect
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from tests.seed.conftest import (
    call,
    error_of,
    memory_settings,
    seed_store,
    text_of,
    tools_of,
)

from vaultgate.memory import render as memory_render
from vaultgate.paging import estimate_tokens, fit_count
from vaultgate.server import build_server

pytestmark = pytest.mark.anyio

TOKEN_BUDGET = 2000
DAY = datetime(2026, 1, 5, tzinfo=UTC)
ENTRY_KEYS = {"id", "text", "source", "createdAt", "sessionId"}
META_KEYS = {"anchor", "totalBefore", "totalAfter", "hasMore"}


def hour(h: float) -> datetime:
    return DAY + timedelta(hours=h)


def iso(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def long_text(tag: str, length: int) -> str:
    filler = "lorem ipsum 東京 café 🚀 dolor "
    head, tail = f"{tag}-start ", f" {tag}-end"
    return head + (filler * (length // len(filler) + 1))[: length - len(head) - len(tail)] + tail


@asynccontextmanager
async def memory_on(db: Path, profile: str | None = "full") -> AsyncIterator[Client]:
    async with Client(build_server(memory_settings(str(db), profile))) as client:
        yield client


@pytest.fixture
def hours_db(tmp_path: Path) -> Path:
    """Eight observations an hour apart, 10:00 to 17:00 UTC on 2026-01-05: sessions s-a and
    s-b in turn; the first six in project atlas, the last two in borealis; each 300
    characters long."""
    db = tmp_path / "memory.db"
    seed_store(
        db,
        [
            (
                hour(10 + n),
                {
                    "title": f"Hour {10 + n} ⏰",
                    "content": long_text(f"h{10 + n}", 300),
                    "type": "decision",
                    "project": "atlas" if n < 6 else "borealis",
                    "session_id": "s-a" if n % 2 == 0 else "s-b",
                },
            )
            for n in range(8)
        ],
    )
    return db


@pytest.fixture
async def hours(hours_db: Path) -> AsyncIterator[Client]:
    async with memory_on(hours_db) as client:
        yield client


async def timeline_of(client: Client, **arguments: Any) -> dict[str, Any]:
    value = json.loads(text_of(await call(client, "timeline", **arguments)))
    assert isinstance(value, dict)
    return value


def hours_of(answer: dict[str, Any]) -> list[int]:
    return [int(entry["createdAt"][11:13]) for entry in answer["entries"]]


def many_db(tmp_path: Path, count: int, length: int) -> Path:
    """``count`` observations a minute apart, each ``length`` characters, all with 'zephyrine'."""
    db = tmp_path / "many.db"
    seed_store(
        db,
        [
            (
                hour(9) + timedelta(minutes=n),
                {
                    "title": f"Zephyrine note {n}",
                    "content": long_text(f"m{n}", length - 10) + " zephyrine",
                    "project": "atlas",
                    "session_id": "s-many",
                },
            )
            for n in range(count)
        ],
    )
    return db


# --- must_haves: truths ---------------------------------------------------------------------


async def test_002_truth_timeline_around_anchor(hours: Client) -> None:
    answer = await timeline_of(hours, anchor=iso(hour(13.5)), before=2, after=2)

    assert hours_of(answer) == [12, 13, 14, 15]
    assert answer["totalBefore"] == 4
    assert answer["totalAfter"] == 4
    assert answer["hasMore"] is True


@pytest.mark.parametrize("level", ["summary", "standard", "full"])
async def test_002_truth_search_never_exceeds_2000_tokens(tmp_path: Path, level: str) -> None:
    async with memory_on(many_db(tmp_path, 25, 1_000)) as client:
        answer = text_of(
            await call(client, "mem_search", query="zephyrine", limit=20, detail_level=level)
        )

    assert estimate_tokens(answer) <= TOKEN_BUDGET


async def test_002_truth_progressive_disclosure(tmp_path: Path) -> None:
    async with memory_on(many_db(tmp_path, 6, 1_000)) as client:
        index = text_of(
            await call(client, "mem_search", query="zephyrine", limit=6, detail_level="summary")
        )
        around = await timeline_of(client, anchor=iso(hour(9) + timedelta(minutes=2.5)))
        ids = [entry["id"] for entry in around["entries"]]
        detail = text_of(await call(client, "mem_get_observations", ids=ids))

    assert estimate_tokens(index) <= 80 * 6  # compact index: ~80 tokens a result
    assert len(around["entries"]) == 6
    for entry in around["entries"]:
        assert len(entry["text"]) <= 200  # timeline adds context
        assert estimate_tokens(json.dumps(entry, ensure_ascii=False)) <= 120  # ~120 an entry
    for n in range(6):
        assert long_text(f"m{n}", 990) + " zephyrine" in detail  # get_observations: full detail


# --- must_haves: artifacts ------------------------------------------------------------------


async def test_002_artifact_timeline_tool_registered(mem: Client) -> None:
    tool = (await tools_of(mem))["timeline"]

    description = (tool.description or "").lower()
    assert "chronological" in description
    assert "anchor" in description
    assert tool.annotations is not None
    assert tool.annotations.read_only_hint is True


@pytest.mark.parametrize("export", ["estimateTokens", "enforceTokenBudget", "TOKEN_BUDGET"])
async def test_002_artifact_token_budget_exports(mem: Client, export: str) -> None:
    match export:
        case "estimateTokens":
            assert estimate_tokens("x" * 4_001) == 1_001  # Math.ceil(text.length / 4)
        case "enforceTokenBudget":
            assert fit_count(["a" * 99] * 5, 300) == 3  # items that fit, with a running total
        case "TOKEN_BUDGET":
            assert memory_render.DEFAULT_MAX_TOKENS == TOKEN_BUDGET
            budgeted = {
                name: tool.input_schema["properties"]["max_tokens"].get("default")
                for name, tool in (await tools_of(mem)).items()
                if "max_tokens" in tool.input_schema.get("properties", {})
                and name not in {"memory", "memory_edit"}  # a dispatcher passes it on
            }
            assert {"mem_search", "mem_context", "mem_timeline", "timeline"} <= set(budgeted)
            assert set(budgeted.values()) == {TOKEN_BUDGET}, budgeted


# --- must_haves: key_links ------------------------------------------------------------------


async def test_002_key_link_timeline_orders_by_created_at(tmp_path: Path) -> None:
    """Saved out of time order: the timeline follows created_at, not the id."""
    db = tmp_path / "memory.db"
    saved = seed_store(
        db,
        [
            (hour(15), {"title": "third", "content": "c3", "session_id": "s"}),
            (hour(11), {"title": "first", "content": "c1", "session_id": "s"}),
            (hour(13), {"title": "second", "content": "c2", "session_id": "s"}),
            (hour(17), {"title": "after", "content": "c4", "session_id": "s"}),
        ],
    )
    async with memory_on(db) as client:
        answer = await timeline_of(client, anchor=iso(hour(16)), before=5, after=5)

    assert [entry["id"] for entry in answer["entries"]] == [
        saved.ids[1],
        saved.ids[2],
        saved.ids[0],
        saved.ids[3],
    ]
    assert answer["totalBefore"] == 3
    assert answer["totalAfter"] == 1


@pytest.mark.parametrize("tool", ["mem_search", "timeline"])
async def test_002_key_link_token_budget_in_search_and_timeline(tmp_path: Path, tool: str) -> None:
    arguments: dict[str, Any] = {"detail_level": "full", "max_tokens": 500}
    if tool == "mem_search":
        arguments |= {"query": "zephyrine", "limit": 20}
    else:
        arguments |= {"anchor": iso(hour(10)), "before": 20}
    async with memory_on(many_db(tmp_path, 25, 1_000)) as client:
        answer = text_of(await call(client, tool, **arguments))

    assert estimate_tokens(answer) <= 500


def test_002_key_link_timeline_imports_token_budget() -> None:
    """memory/render.py (search's and the timeline's renderer) imports the budget helpers from
    the one paging module, and nothing else in it measures tokens on its own."""
    source = Path(inspect.getfile(memory_render)).read_text(encoding="utf-8")
    tree = ast.parse(source)
    from_paging = {
        alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module == "vaultgate.paging"
        for alias in node.names
    }
    assert "fit_count" in from_paging
    divides_by_four = [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.BinOp)
        and isinstance(node.op, ast.Div | ast.FloorDiv)
        and isinstance(node.right, ast.Constant)
        and node.right.value == 4
    ]
    assert divides_by_four == []  # tokens are paging.estimate_tokens' business


# --- verification ---------------------------------------------------------------------------


async def test_002_verification_timeline_registered_and_chronological(hours: Client) -> None:
    assert "timeline" in await tools_of(hours)

    answer = await timeline_of(hours, anchor=iso(hour(14)))

    stamps = [entry["createdAt"] for entry in answer["entries"]]
    assert stamps == sorted(stamps)
    assert hours_of(answer) == [10, 11, 12, 13, 14, 15, 16, 17]


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        pytest.param({"anchor": iso(hour(12))}, [10, 11, 12, 13, 14, 15, 16, 17], id="anchor"),
        pytest.param(
            {"anchor": iso(hour(12)), "before": 1, "after": 0}, [12], id="before-after-counts"
        ),
        pytest.param({"anchor": iso(hour(14)), "sessionId": "s-b"}, [11, 13, 15, 17], id="session"),
        pytest.param({"anchor": iso(hour(14)), "projectId": "borealis"}, [16, 17], id="project"),
    ],
)
async def test_002_verification_anchor_counts_and_filters(
    hours: Client, arguments: dict[str, Any], expected: list[int]
) -> None:
    assert hours_of(await timeline_of(hours, **arguments)) == expected


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        pytest.param("", 0, id="empty"),
        pytest.param("abc", 1, id="rounds-up"),
        pytest.param("abcd", 1, id="four-chars"),
        pytest.param("abcde", 2, id="five-chars"),
        pytest.param("x" * 8_000, 2_000, id="the-budget"),
        pytest.param("🚀東京", 1, id="characters-not-bytes"),
    ],
)
def test_002_verification_estimate_tokens_four_chars(text: str, tokens: int) -> None:
    assert estimate_tokens(text) == tokens


def test_002_verification_budget_truncates_over_budget() -> None:
    budget = TOKEN_BUDGET * 4  # characters
    items = ["x" * 1_000] * 20

    kept = fit_count(items, budget)

    assert kept == 7  # 7 x 1,001 fits in 8,000; an eighth would not
    assert kept < len(items)  # truncated
    assert fit_count(["y" * 9_000], budget) == 1  # the first item always comes back
    assert fit_count(["z" * 10] * 3, budget) == 3  # under budget: nothing cut


@pytest.mark.parametrize("level", ["summary", "standard", "full"])
async def test_002_verification_search_under_2000_tokens_with_20_plus(
    tmp_path: Path, level: str
) -> None:
    async with memory_on(many_db(tmp_path, 24, 600)) as client:
        answer = text_of(
            await call(client, "mem_search", query="zephyrine", limit=20, detail_level=level)
        )

    assert estimate_tokens(answer) <= TOKEN_BUDGET
    assert "Zephyrine note" in answer


@pytest.mark.parametrize("level", ["summary", "standard", "full"])
async def test_002_verification_timeline_under_2000_tokens(tmp_path: Path, level: str) -> None:
    async with memory_on(many_db(tmp_path, 41, 1_500)) as client:
        answer = text_of(
            await call(
                client,
                "timeline",
                anchor=iso(hour(9) + timedelta(minutes=20)),
                before=20,
                after=20,
                detail_level=level,
            )
        )

    assert estimate_tokens(answer) <= TOKEN_BUDGET


@pytest.mark.parametrize("tool", ["mem_search", "timeline"])
async def test_002_verification_truncation_communicated(tmp_path: Path, tool: str) -> None:
    async with memory_on(many_db(tmp_path, 25, 1_000)) as client:
        if tool == "mem_search":
            answer = text_of(
                await call(client, "mem_search", query="zephyrine", limit=20, detail_level="full")
            )
            assert "Token budget" in answer
            assert "fit in max_tokens=2000" in answer
        else:
            value = await timeline_of(
                client, anchor=iso(hour(10)), before=20, after=20, detail_level="full"
            )
            assert value["truncated"] is True
            assert value["hasMore"] is True
            assert "Showing" in value["message"]


def test_002_verification_both_tools_share_the_budget_module() -> None:
    sources = {
        name: inspect.getsource(getattr(memory_render, name))
        for name in ("render_search", "render_time_window")
    }
    for name, source in sources.items():
        assert "fit_" in source, name  # fit_budget / fit_count: the one budget helper
        assert "estimate_tokens(" not in source or "paging" in source, name


# --- the timeline tool's schema and answer (task 1) -----------------------------------------


async def test_002_timeline_description(mem: Client) -> None:
    description = (await tools_of(mem))["timeline"].description or ""

    assert "chronological order around a time anchor" in description


async def test_002_timeline_parameter_anchor(hours: Client) -> None:
    schema = (await tools_of(hours))["timeline"].input_schema
    assert "anchor" in schema["properties"]
    assert "anchor" not in schema.get("required", [])

    now = await timeline_of(hours)  # defaults to now: everything is before it
    assert now["totalBefore"] == 8
    assert now["totalAfter"] == 0
    assert "anchor" in now
    refused = error_of(await call(hours, "timeline", anchor="next tuesday"))
    assert "anchor" in refused


@pytest.mark.parametrize(
    ("name", "low", "high", "default"),
    [pytest.param("before", 1, 20, 5, id="before"), pytest.param("after", 0, 20, 5, id="after")],
)
async def test_002_timeline_parameter_before_after_range(
    hours: Client, name: str, low: int, high: int, default: int
) -> None:
    prop = (await tools_of(hours))["timeline"].input_schema["properties"][name]

    assert prop["default"] == default
    assert prop["minimum"] == low
    assert prop["maximum"] == high
    assert (await call(hours, "timeline", **{name: low - 1})).is_error
    assert (await call(hours, "timeline", **{name: high + 1})).is_error
    assert not (await call(hours, "timeline", **{name: high})).is_error


@pytest.mark.parametrize("name", ["sessionId", "projectId"])
async def test_002_timeline_parameter_session_and_project(mem: Client, name: str) -> None:
    schema = (await tools_of(mem))["timeline"].input_schema

    assert name in schema["properties"]
    assert name not in schema.get("required", [])


async def test_002_timeline_entry_and_metadata_shape(hours: Client) -> None:
    answer = await timeline_of(hours, anchor=iso(hour(13)), before=2, after=1)

    assert set(answer) >= META_KEYS
    assert answer["anchor"].startswith("2026-01-05T13:00:00")
    for entry in answer["entries"]:
        assert set(entry) >= ENTRY_KEYS
        assert len(entry["text"]) <= 200  # truncated to 200 chars
        assert entry["source"] == "decision"
        assert entry["sessionId"] in {"s-a", "s-b"}


async def test_002_mem_get_observations_at_most_10_ids(hours: Client) -> None:
    """Success criteria: get_observations is limited to 10 ids per call."""
    ten = await call(hours, "mem_get_observations", ids=list(range(1, 11)))
    eleven = await call(hours, "mem_get_observations", ids=list(range(1, 12)))

    assert not ten.is_error
    assert eleven.is_error


async def test_002_mem_timeline_around_a_time_takes_the_go_names(hours: Client) -> None:
    """mem_timeline's anchor form, with the Go seeds' spelling (project, session_id)."""
    answer = json.loads(
        text_of(
            await call(
                hours, "mem_timeline", anchor=iso(hour(14)), project="atlas", session_id="s-b"
            )
        )
    )

    assert hours_of(answer) == [11, 13, 15]


async def test_002_timeline_through_the_memory_dispatcher(hours_db: Path) -> None:
    async with memory_on(hours_db, profile=None) as client:
        answer = json.loads(
            text_of(
                await call(
                    client,
                    "memory",
                    operation="timeline",
                    anchor=iso(hour(13.5)),
                    before=2,
                    after=2,
                )
            )
        )

    assert hours_of(answer) == [12, 13, 14, 15]
