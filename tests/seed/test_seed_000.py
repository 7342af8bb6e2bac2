"""Seed 000, "Token-Efficient Tool Responses": one test per FR and NFR.

The seed's Go names map to vaultgate's Python: ``Store.CountObservations`` is
``MemoryStore.count_observations``, ``Store.CountSearchResults`` is
``MemoryStore.count_search_results``, ``NavigationHint`` is ``paging.navigation_hint``,
``serverInstructions()`` is ``vaultgate.instructions.instructions``.
"""

from __future__ import annotations

import ast
import re
import sqlite3
from pathlib import Path

import pytest
from mcp import Client
from tests.seed.conftest import (
    Memory,
    days_ago,
    memory_settings,
    saved_id,
    seed_store,
    tools_of,
)

from vaultgate.memory import queries
from vaultgate.memory.models import SearchOptions
from vaultgate.memory.store import MemoryStore
from vaultgate.paging import navigation_hint
from vaultgate.server import build_server

pytestmark = pytest.mark.anyio

SEARCH_FOOTER = (
    "Showing {returned} of {total} results. Use limit or mem_get_observation #ID for more."
)
CONTEXT_FOOTER = (
    "Showing {returned} of {total} observations. "
    "Increase limit or use mem_get_observation #ID for details."
)
TIMELINE_FOOTER = "Showing {shown} of {total} observations in session."


def has_footer(answer: str, footer: str, memory: Memory) -> bool:
    """The seed's footer, word for word, as a line of the answer. Through the dispatcher,
    where mem_get_observation is not a tool, the same line goes on with the call that does it
    in that profile (one line still: 000 NFR-001)."""
    lines = answer.splitlines()
    if not memory.dispatched or "mem_get_observation #ID" not in footer:
        return footer in lines
    return any(
        line.startswith(footer) and 'Here: memory(operation="get", id=ID).' in line
        for line in lines
    )


async def save_many(memory: Memory, count: int, **common: object) -> list[int]:
    ids = []
    for n in range(count):
        answer = await memory.text(
            "mem_save",
            title=f"Cache decision {n} 🚀",
            content=f"Write-through caching, step {n}: 東京 café notes.",
            **common,
        )
        ids.append(saved_id(answer))
    return ids


# --- FR-001 ---------------------------------------------------------------------------------


def test_000_fr_001_count_observations_counts_live_filtered_observations() -> None:
    store = MemoryStore.in_memory()
    try:
        for n in range(4):
            store.save(f"a{n}", f"alpha {n}", project="Atlas")
        store.save("p", "personal one", project="Atlas", scope="personal")
        store.save("b", "beta", project="Borealis")
        gone = store.save("c", "gamma", project="Atlas").observation.id
        store.delete(gone)

        assert store.count_observations() == 6
        assert store.count_observations("atlas") == 5  # project names fold case
        assert store.count_observations("Atlas", "project") == 4
        assert store.count_observations("Atlas", "personal") == 1
        assert store.count_observations("Nowhere") == 0
    finally:
        store.close()


# --- FR-002 ---------------------------------------------------------------------------------


def test_000_fr_002_count_search_results_counts_matches_before_the_limit() -> None:
    store = MemoryStore.in_memory()
    try:
        for n in range(12):
            store.save(f"Zephyr note {n}", f"zephyrine caching {n}", project="Atlas")
        store.save("other", "unrelated words", project="Atlas")

        options = SearchOptions(project="Atlas", limit=3)
        assert store.count_search_results("zephyrine", options) == 12
        assert len(store.search("zephyrine", options).observations) == 3
        assert store.search("zephyrine", options).total == 12
    finally:
        store.close()


# --- FR-003 ---------------------------------------------------------------------------------


async def test_000_fr_003_search_footer_when_capped(memory: Memory) -> None:
    await save_many(memory, 7, project="Atlas")

    capped = await memory.text("mem_search", query="caching", limit=3)
    whole = await memory.text("mem_search", query="caching", limit=10)

    assert has_footer(capped, SEARCH_FOOTER.format(returned=3, total=7), memory)
    assert "Showing" not in whole  # only shown when returned < total


# --- FR-004 ---------------------------------------------------------------------------------


async def test_000_fr_004_context_footer_when_capped(memory: Memory) -> None:
    await save_many(memory, 5, project="Atlas")

    capped = await memory.text("mem_context", project="Atlas", limit=2)
    whole = await memory.text("mem_context", project="Atlas", limit=20)

    assert has_footer(capped, CONTEXT_FOOTER.format(returned=2, total=5), memory)
    assert "Showing" not in whole


# --- FR-005 ---------------------------------------------------------------------------------


async def test_000_fr_005_timeline_footer_when_window_smaller(memory: Memory) -> None:
    ids = await save_many(memory, 9, project="Atlas", session_id="s-000")

    narrow = await memory.text("mem_timeline", observation_id=ids[4], before=1, after=2)
    wide = await memory.text("mem_timeline", observation_id=ids[4], before=10, after=10)

    assert has_footer(narrow, TIMELINE_FOOTER.format(shown=1 + 1 + 2, total=9), memory)
    assert "Showing" not in wide


# --- FR-006 ---------------------------------------------------------------------------------


async def test_000_fr_006_sdd_get_context_defaults_to_summary(mem: Client) -> None:
    tool = (await tools_of(mem))["sdd_get_context"]

    assert tool.input_schema["properties"]["detail_level"]["default"] == "summary"
    assert "summary" in (tool.description or "").lower()


# --- FR-007 ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("showing", "total", "expected"),
    [
        pytest.param(3, 7, "Showing 3 of 7 results.", id="fewer-shown"),
        pytest.param(7, 7, "", id="all-shown"),
        pytest.param(8, 7, "", id="more-than-total"),
        pytest.param(0, 1, "Showing 0 of 1 results.", id="none-shown"),
    ],
)
def test_000_fr_007_navigation_hint_helper(showing: int, total: int, expected: str) -> None:
    assert navigation_hint(showing, total, "results.") == expected


# --- FR-008 ---------------------------------------------------------------------------------


async def test_000_fr_008_instructions_document_summary_default_and_hints() -> None:
    async with Client(build_server(memory_settings())) as client:
        given = client.instructions or ""

    paragraph = next(p for p in given.split("\n\n") if "sdd_get_context" in p)
    assert re.search(r"sdd_get_context.*summary|summary.*sdd_get_context", paragraph, re.S)
    assert "Showing X of Y" in given


# --- NFR-001 --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        pytest.param("mem_search", {"query": "caching", "limit": 2}, id="mem_search"),
        pytest.param("mem_context", {"project": "Atlas", "limit": 2}, id="mem_context"),
        pytest.param("mem_timeline", {"before": 1, "after": 1}, id="mem_timeline"),
    ],
)
async def test_000_nfr_001_navigation_hint_is_one_line(
    memory: Memory, tool: str, arguments: dict[str, object]
) -> None:
    ids = await save_many(memory, 6, project="Atlas", session_id="s-nfr")
    if tool == "mem_timeline":
        arguments = {**arguments, "observation_id": ids[3]}

    answer = await memory.text(tool, **arguments)

    hint_lines = [line for line in answer.splitlines() if line.startswith("Showing ")]
    assert len(hint_lines) == 1
    assert "\n" not in navigation_hint(2, 6, "results. Use limit for more.")


# --- NFR-002 --------------------------------------------------------------------------------


def test_000_nfr_002_count_queries_are_count_star_on_an_index(tmp_path: Path) -> None:
    db = tmp_path / "memory.db"
    seed_store(
        db, [(days_ago(1), {"title": f"t{n}", "content": "c", "project": "p"}) for n in range(5)]
    )
    conn = sqlite3.connect(db)
    statements: list[str] = []
    conn.set_trace_callback(statements.append)
    try:
        assert queries.count_observations(conn, "p", "project") == 5
        counted = [s for s in statements if "count(" in s.lower()]
        assert counted, statements
        plan = " ".join(str(row[-1]) for row in conn.execute("EXPLAIN QUERY PLAN " + counted[0]))
        assert "USING" in plan, plan  # a SEARCH on an index, no full scan
        assert "INDEX" in plan, plan
    finally:
        conn.close()


# --- NFR-003 --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("tool", "parameters"),
    [
        pytest.param("mem_search", {"query", "project", "type", "scope", "limit"}, id="mem_search"),
        pytest.param("mem_context", {"project", "scope", "limit"}, id="mem_context"),
        pytest.param("mem_timeline", {"observation_id", "before", "after"}, id="mem_timeline"),
        pytest.param("sdd_get_context", {"project", "change", "stage"}, id="sdd_get_context"),
    ],
)
async def test_000_nfr_003_existing_tool_signatures_unchanged(
    mem: Client, tool: str, parameters: set[str]
) -> None:
    schema = (await tools_of(mem))[tool].input_schema

    assert parameters <= set(schema["properties"])
    assert set(schema.get("required", [])) <= {"query", "observation_id"}  # none new


# --- NFR-004 --------------------------------------------------------------------------------


def test_000_nfr_004_new_code_paths_have_tests() -> None:
    """Count methods, the hint helper and each handler's footer each have a test here."""
    tree = ast.parse(Path(__file__).read_text(encoding="utf-8"))
    names = {
        node.name
        for node in ast.walk(tree)
        if isinstance(node, ast.AsyncFunctionDef | ast.FunctionDef)
    }
    for line in ("fr_001", "fr_002", "fr_003", "fr_004", "fr_005", "fr_007"):
        assert any(name.startswith(f"test_000_{line}_") for name in names), line
