"""Seed 001, "Response Verbosity Control": one test per FR and NFR.

The four tools are ``mem_context``, ``mem_search``, ``mem_timeline`` and ``sdd_context_check``.
Go's ``server.go`` instructions are ``vaultgate.instructions``; the shared ``detailLevel`` helper
is ``vaultgate.memory.render.DetailLevel``; the one truncation utility is
``vaultgate.memory.render.truncate``.

Where 001's "full returns complete untruncated content" meets 002's 2,000-token cap, the budget
decides how many results come back, never how much of one: every data set here fits the
default budget whole, and the first result is always whole (docs/seed-contract.md).
"""

from __future__ import annotations

import ast
import inspect
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from tests.seed.conftest import ClientOpener, Memory, call, saved_id, tools_of

from vaultgate.memory import render as memory_render
from vaultgate.sdd import context as sdd_context
from vaultgate.tools import memory as memory_tools
from vaultgate.tools import sdd as sdd_tools

pytestmark = pytest.mark.anyio

LEVELS = ["summary", "standard", "full"]
FOUR_TOOLS = ["mem_context", "mem_search", "mem_timeline", "sdd_context_check"]
SUMMARY_FOOTER = "Use detail_level: standard or full for more detail"
FILLER = "lorem ipsum dolor sit amet 東京 café 🚀 "


def long_text(tag: str, length: int) -> str:
    """``length`` characters that start with ``<tag>-start`` and end with ``<tag>-end``."""
    head, tail = f"{tag}-start ", f" {tag}-end"
    body = (FILLER * (length // len(FILLER) + 1))[: length - len(head) - len(tail)]
    return head + body + tail


def run_after(answer: str, marker: str) -> str:
    """The text from ``marker`` to the end of its line, without a trailing '...'."""
    line = next(line for line in answer.splitlines() if marker in line)
    return line[line.index(marker) :].removesuffix("...").rstrip()


class Story:
    """One session with a summary, a prompt and three observations, all long."""

    OBS = tuple(long_text(f"obs{n}", 1_500) for n in range(3))
    PROMPT = long_text("prompt", 400)
    SUMMARY = long_text("summary", 400)
    TITLES = tuple(f"Caching step {n} 🚀" for n in range(3))

    def __init__(self) -> None:
        self.ids: list[int] = []

    async def tell(self, memory: Memory) -> Story:
        await memory.text("mem_session_start", project="Atlas", session_id="s-001")
        for title, content in zip(self.TITLES, self.OBS, strict=True):
            answer = await memory.text(
                "mem_save", title=title, content=content, type="decision", session_id="s-001"
            )
            self.ids.append(saved_id(answer))
        await memory.text("mem_save_prompt", content=self.PROMPT, session_id="s-001")
        await memory.text("mem_session_end", session_id="s-001", summary=self.SUMMARY)
        return self


@pytest.fixture
async def story(memory: Memory) -> Story:
    return await Story().tell(memory)


async def answer_of(memory: Memory, tool: str, story: Story, **arguments: Any) -> str:
    """``tool`` on the story's data, with ``arguments``."""
    base: dict[str, Any] = {
        "mem_context": {"project": "Atlas"},
        "mem_search": {"query": "caching"},
        "mem_timeline": {"observation_id": story.ids[1] if story.ids else 1},
        "sdd_context_check": {"change_description": "add dispatchers"},
    }[tool]
    return await memory.text(tool, **base, **arguments)


@asynccontextmanager
async def sdd_session(open_client: ClientOpener) -> AsyncIterator[Client]:
    """The folder backend (its vault holds sdd/vaultgate/changes/add-dispatchers) with a
    memory about dispatchers."""
    async with open_client("folder", "full") as client:
        await call(
            client,
            "mem_save",
            title="Dispatcher decision 🚀",
            content=long_text("memo", 1_200) + " dispatchers",
            project="vaultgate",
        )
        yield client


@pytest.fixture
async def sdd_client(open_client: ClientOpener) -> AsyncIterator[Client]:
    async with sdd_session(open_client) as client:
        yield client


def sdd_artifacts(vault: Path) -> dict[str, str]:
    folder = vault / "sdd" / "vaultgate" / "changes" / "add-dispatchers"
    return {p.name: p.read_text(encoding="utf-8") for p in sorted(folder.glob("*.md"))}


@asynccontextmanager
async def client_for(tool: str, memory: Memory, open_client: ClientOpener) -> AsyncIterator[Memory]:
    """sdd_context_check needs the vault (and a memory about dispatchers); mem_* the store."""
    if tool != "sdd_context_check":
        yield memory
        return
    async with sdd_session(open_client) as client:
        yield Memory(client, dispatched=False)


async def level_enum(client: Client, tool: str) -> tuple[list[str], str]:
    schema = (await tools_of(client))[tool].input_schema["properties"]["detail_level"]
    return schema["enum"], schema["default"]


# --- mem_context: FR-001 to FR-005 ----------------------------------------------------------


async def test_001_fr_001_mem_context_accepts_detail_level(mem: Client) -> None:
    assert await level_enum(mem, "mem_context") == (LEVELS, "standard")


async def test_001_fr_002_mem_context_summary_is_names_and_titles(
    memory: Memory, story: Story
) -> None:
    answer = await answer_of(memory, "mem_context", story, detail_level="summary")

    assert "atlas" in answer
    for title, obs_id in zip(story.TITLES, story.ids, strict=True):
        assert f"#{obs_id} [decision] {title}" in answer
    for marker in ("obs0-start", "obs1-start", "obs2-start", "prompt-start", "summary-start"):
        assert marker not in answer


async def test_001_fr_003_mem_context_standard_cuts_200_200_300(
    memory: Memory, story: Story
) -> None:
    answer = await answer_of(memory, "mem_context", story, detail_level="standard")

    assert 0 < len(run_after(answer, "summary-start")) <= 200
    assert 0 < len(run_after(answer, "prompt-start")) <= 200
    assert 0 < len(run_after(answer, "obs1-start")) <= 300
    assert "obs1-end" not in answer


async def test_001_fr_004_mem_context_full_is_complete(memory: Memory, story: Story) -> None:
    answer = await answer_of(memory, "mem_context", story, detail_level="full")

    for whole in (*story.OBS, story.PROMPT, story.SUMMARY):
        assert whole in answer


async def test_001_fr_005_mem_context_limit_controls_observations(
    memory: Memory, story: Story
) -> None:
    two = await answer_of(memory, "mem_context", story, detail_level="summary", limit=2)
    one = await answer_of(memory, "mem_context", story, detail_level="summary", limit=1)

    assert sum(f"#{i} [decision]" in two for i in story.ids) == 2
    assert sum(f"#{i} [decision]" in one for i in story.ids) == 1


# --- mem_search: FR-006 to FR-009 -----------------------------------------------------------


async def test_001_fr_006_mem_search_accepts_detail_level(mem: Client) -> None:
    assert await level_enum(mem, "mem_search") == (LEVELS, "standard")


async def test_001_fr_007_mem_search_summary_is_ids_types_titles(
    memory: Memory, story: Story
) -> None:
    answer = await answer_of(memory, "mem_search", story, detail_level="summary")

    for title, obs_id in zip(story.TITLES, story.ids, strict=True):
        assert f"#{obs_id} [decision] {title}" in answer
    assert "-start" not in answer


async def test_001_fr_008_mem_search_standard_snippets_300(memory: Memory, story: Story) -> None:
    answer = await answer_of(memory, "mem_search", story, detail_level="standard")

    for n in range(3):
        assert 0 < len(run_after(answer, f"obs{n}-start")) <= 300
        assert f"obs{n}-end" not in answer


async def test_001_fr_009_mem_search_full_is_untruncated(memory: Memory) -> None:
    content = long_text("huge", 5_400)
    await memory.text("mem_save", title="Huge zephyrine note", content=content)

    answer = await memory.text("mem_search", query="zephyrine", detail_level="full")

    assert content in answer


async def test_001_fr_009_full_first_result_whole_over_the_budget(memory: Memory) -> None:
    """C1: alone over the 2,000-token budget, the first result still comes back whole."""
    content = long_text("giant", 12_000) + " gargantuan"  # over 3,000 tokens
    await memory.text("mem_save", title="Giant note", content=content)
    await memory.text("mem_save", title="Small note", content="something else entirely")

    answer = await memory.text("mem_search", query="gargantuan", detail_level="full")

    assert content in answer


# --- mem_timeline: FR-010 to FR-013 ---------------------------------------------------------


async def test_001_fr_010_mem_timeline_accepts_detail_level(mem: Client) -> None:
    assert await level_enum(mem, "mem_timeline") == (LEVELS, "standard")


async def test_001_fr_011_mem_timeline_summary_is_titles_and_times(
    memory: Memory, story: Story
) -> None:
    answer = await answer_of(memory, "mem_timeline", story, detail_level="summary")

    for title in story.TITLES:
        line = next(line for line in answer.splitlines() if title in line)
        assert any(ch.isdigit() for ch in line.split(title, 1)[1])  # its timestamp
    assert "-start" not in answer


async def test_001_fr_012_mem_timeline_standard_200_around_full_focus(
    memory: Memory, story: Story
) -> None:
    answer = await answer_of(memory, "mem_timeline", story, detail_level="standard")

    assert 0 < len(run_after(answer, "obs0-start")) <= 200
    assert 0 < len(run_after(answer, "obs2-start")) <= 200
    assert story.OBS[1] in answer  # the focus, whole


async def test_001_fr_013_mem_timeline_full_is_complete_for_all(
    memory: Memory, story: Story
) -> None:
    answer = await answer_of(memory, "mem_timeline", story, detail_level="full")

    for whole in story.OBS:
        assert whole in answer


# --- sdd_context_check: FR-014 to FR-017 ----------------------------------------------------


async def test_001_fr_014_sdd_context_check_accepts_detail_level(mem: Client) -> None:
    assert await level_enum(mem, "sdd_context_check") == (LEVELS, "standard")


async def test_001_fr_015_sdd_context_check_summary_is_names_and_sizes(
    sdd_client: Client, vault: Path
) -> None:
    answer = await answer_of(
        Memory(sdd_client, dispatched=False), "sdd_context_check", Story(), detail_level="summary"
    )

    assert "add-dispatchers" in answer
    for name, body in sdd_artifacts(vault).items():
        assert name.removesuffix(".md") in answer
        assert f"{len(body):,}" in answer
        assert body.splitlines()[-1].strip() not in answer  # no excerpt
    assert "Dispatcher decision 🚀" in answer
    assert "memo-start" not in answer


async def test_001_fr_016_sdd_context_check_standard_500_and_200(
    sdd_client: Client, vault: Path
) -> None:
    answer = await answer_of(
        Memory(sdd_client, dispatched=False), "sdd_context_check", Story(), detail_level="standard"
    )

    for name, body in sdd_artifacts(vault).items():
        line = next(line for line in answer.splitlines() if line.startswith(f"- {name}"))
        excerpt = line.split("): ", 1)[1].removesuffix("...")
        assert 0 < len(excerpt) <= 500
        assert len(body) > 500  # so the cut shows
    assert 0 < len(run_after(answer, "memo-start")) <= 200


async def test_001_fr_017_sdd_context_check_full_is_complete(
    sdd_client: Client, vault: Path
) -> None:
    answer = await answer_of(
        Memory(sdd_client, dispatched=False), "sdd_context_check", Story(), detail_level="full"
    )

    for body in sdd_artifacts(vault).values():
        assert body.strip() in answer
    assert long_text("memo", 1_200) + " dispatchers" in answer


# --- FR-018 to FR-021 -----------------------------------------------------------------------


async def test_001_fr_018_instructions_guide_detail_levels(mem: Client) -> None:
    text = mem.instructions or ""

    assert "detail_level" in text
    for level in LEVELS:
        assert f"'{level}'" in text


async def test_001_fr_019_one_shared_detail_level_helper(mem: Client) -> None:
    enums = {tuple((await level_enum(mem, tool))[0]) for tool in FOUR_TOOLS}

    assert enums == {tuple(LEVELS)}
    assert memory_tools.DetailLevel is memory_render.DetailLevel
    assert sdd_tools.DetailLevel is memory_render.DetailLevel


@pytest.mark.parametrize("tool", FOUR_TOOLS)
async def test_001_fr_020_summary_footer(
    memory: Memory, story: Story, tool: str, open_client: ClientOpener
) -> None:
    async with client_for(tool, memory, open_client) as client:
        answer = await answer_of(client, tool, story, detail_level="summary")

    assert answer.rstrip().endswith(SUMMARY_FOOTER)


def test_001_fr_021_one_truncation_utility() -> None:
    assert sdd_context.truncate is memory_render.truncate
    assert memory_render.truncate("x" * 10, 4) == "xxxx..."
    assert memory_render.truncate("short", 10) == "short"
    assert not any(
        name.startswith("truncate") and obj is not memory_render.truncate
        for module in (memory_tools, sdd_tools)
        for name, obj in inspect.getmembers(module)
    )


# --- NFR ------------------------------------------------------------------------------------


@pytest.mark.parametrize("tool", FOUR_TOOLS)
async def test_001_nfr_001_default_is_standard(mem: Client, tool: str) -> None:
    # sdd_get_context defaults to summary: seed 000 FR-006, the later and narrower line, wins.
    assert (await level_enum(mem, tool))[1] == "standard"


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("tool", FOUR_TOOLS)
async def test_001_nfr_002_every_tool_at_every_level(
    memory: Memory, story: Story, tool: str, level: str, open_client: ClientOpener
) -> None:
    async with client_for(tool, memory, open_client) as client:
        answer = await answer_of(client, tool, story, detail_level=level)
        default = await answer_of(client, tool, story)

    assert answer
    assert (answer == default) is (level == "standard")


@pytest.mark.parametrize("tool", FOUR_TOOLS)
async def test_001_nfr_003_summary_at_least_half_smaller(
    memory: Memory, story: Story, tool: str, open_client: ClientOpener
) -> None:
    async with client_for(tool, memory, open_client) as client:
        summary = await answer_of(client, tool, story, detail_level="summary")
        standard = await answer_of(client, tool, story, detail_level="standard")

    assert len(summary) <= len(standard) / 2, (len(summary), len(standard))


@pytest.mark.parametrize("module", [memory_render, sdd_context, memory_tools, sdd_tools])
def test_001_nfr_004_no_new_dependencies(module: object) -> None:
    tree = ast.parse(Path(inspect.getfile(module)).read_text(encoding="utf-8"))  # type: ignore[arg-type]
    roots = {
        (node.module or "").split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.level == 0
    } | {
        alias.name.split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.Import)
        for alias in node.names
    }
    allowed = set(sys.stdlib_module_names) | {"vaultgate", "pydantic", "__future__"}
    assert roots <= allowed, roots - allowed
