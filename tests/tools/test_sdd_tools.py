"""sdd_get_context and sdd_context_check through the SDK's Client, against the emulator.

The vault gets several projects, changes and stages (written before the emulator starts, which
indexes the vault); memory is an in-RAM store filled through mem_save.
"""

from __future__ import annotations

import dataclasses
import json
import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.types import CallToolResult
from tests.tools.conftest import EmulatorFactory, error_text, settings_for, texts

from vaultgate.config import MemorySettings, SddSettings, Secret, Settings
from vaultgate.emulator.runner import RunningEmulator
from vaultgate.memory.render import SUMMARY_FOOTER
from vaultgate.paging import DEFAULT_RESPONSE_BUDGET
from vaultgate.server import build_server

pytestmark = pytest.mark.anyio

FOOTER = "Use detail_level: standard or full for more detail"
BUDGET = DEFAULT_RESPONSE_BUDGET

SDD_TOOLS: dict[str, dict[str, Any]] = {
    "sdd_get_context": {"project": None, "change": None, "stage": None, "detail_level": "summary"},
    "sdd_context_check": {"change_description": ..., "project": None, "detail_level": "standard"},
}

# Added to the sample vault, which already has sdd/vaultgate/changes/add-dispatchers/
# {proposal,spec}.md.
PARAGRAPH = "The store keeps observations in SQLite with an FTS5 index and bounded answers. "
NOTES = {
    "sdd/vaultgate/changes/add-dispatchers/design.md": "# Design: dispatchers\n\n"
    + "One match statement per dispatcher. " * 40,
    "sdd/vaultgate/changes/memory-store/proposal.md": "# Proposal: memory store\n\n"
    + PARAGRAPH * 30,
    "sdd/vaultgate/changes/memory-store/spec.md": "# Spec: memory store\n\n" + PARAGRAPH * 25,
    "sdd/vaultgate/changes/memory-store/design.md": "# Design\n\n" + PARAGRAPH * 20,
    "sdd/vaultgate/changes/memory-store/tasks.md": "# Tasks\n\n- [x] schema\n- [ ] compaction\n",
    "sdd/vaultgate/changes/memory-store/verify.md": "# Verify\n\nAll green.\n",
    "sdd/atlas/changes/cache-search-results/proposal.md": "# Proposal: faster vault search\n\n"
    + "Searching the vault twice costs twice. " * 50,
    "sdd/atlas/changes/cache-search-results/tasks.md": "# Tasks\n\n- [ ] cache\n",
    "sdd/atlas/changes/huge-spec/spec.md": "# Spec: everything\n\n"
    + "".join(f"Requirement {n}: the system SHALL do thing {n}.\n" for n in range(1, 1500)),
}


@pytest.fixture
def sdd_vault(vault: Path) -> Path:
    for path, content in NOTES.items():
        target = vault / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content, encoding="utf-8")
    return vault


def with_memory(settings: Settings, **changes: Any) -> Settings:
    """Memory in RAM (never the user's own database), plus any other settings changed."""
    return dataclasses.replace(settings, memory=MemorySettings(db=":memory:"), **changes)


@asynccontextmanager
async def connected(settings: Settings) -> AsyncIterator[Client]:
    async with Client(build_server(settings)) as client:
        await seed_memory(client)
        yield client


@pytest.fixture
async def sdd_emulator(sdd_vault: Path, emulator_factory: EmulatorFactory) -> RunningEmulator:
    return emulator_factory()


@pytest.fixture
async def client(sdd_emulator: RunningEmulator) -> AsyncIterator[Client]:
    async with connected(with_memory(settings_for(sdd_emulator))) as opened:
        yield opened


MEMORY_TEXT = "Memory search falls back from AND to OR when every word finds nothing. " * 8


async def seed_memory(client: Client) -> None:
    for title, content, project in [
        ("Memory store uses FTS5", MEMORY_TEXT, "vaultgate"),
        ("Dispatchers call the single tools", "One code path per operation. " * 12, "vaultgate"),
        ("Atlas search is slow", "Vault search takes seconds on big vaults. " * 8, "atlas"),
    ]:
        saved = await client.call_tool(
            "mem_save", {"title": title, "content": content, "project": project}
        )
        assert not saved.is_error, texts(saved)


async def call(client: Client, name: str, **arguments: Any) -> CallToolResult:
    result = await client.call_tool(name, arguments)
    assert not result.is_error, texts(result)
    return result


def joined(result: CallToolResult) -> str:
    return "\n".join(texts(result))


def size(result: CallToolResult) -> int:
    return sum(len(t) for t in texts(result))


def chars(vault: Path, path: str) -> str:
    return f"{len((vault / path).read_text(encoding='utf-8')):,}"


# --- the contract ---------------------------------------------------------------------------


async def test_sdd_tools_have_the_contracted_parameters_defaults_and_hints(client: Client) -> None:
    tools = {tool.name: tool for tool in (await client.list_tools()).tools}

    for name, parameters in SDD_TOOLS.items():
        schema = tools[name].input_schema
        assert set(schema["properties"]) == set(parameters), name
        required = {p for p, default in parameters.items() if default is ...}
        assert set(schema.get("required", [])) == required, name
        for parameter, default in parameters.items():
            if default is not ...:
                assert schema["properties"][parameter].get("default") == default, (name, parameter)
        enum = schema["properties"]["detail_level"]["enum"]
        assert enum == ["summary", "standard", "full"], name
        annotations = tools[name].annotations
        assert annotations is not None
        assert annotations.read_only_hint is True, name
        assert not annotations.destructive_hint, name
        assert annotations.open_world_hint is False, name
        assert tools[name].description, name
    stage = tools["sdd_get_context"].input_schema["properties"]["stage"]
    assert stage["enum"] == ["proposal", "spec", "design", "tasks", "verify"]


@pytest.mark.parametrize("read_only", ["false", "true"])
async def test_the_sdd_tools_are_offered_in_compact_and_in_read_only_servers(
    read_only: str,
) -> None:
    tools: dict[str, dict[str, Any]] = {}
    for profile in ("compact", "full"):
        settings = Settings.from_env(
            {
                "OBSIDIAN_API_KEY": "k",
                "VAULTGATE_MEMORY_DB": ":memory:",
                "VAULTGATE_TOOLS": profile,
                "VAULTGATE_READ_ONLY": read_only,
            }
        )
        async with Client(build_server(settings)) as client:
            tools[profile] = {t.name: t.input_schema for t in (await client.list_tools()).tools}

    memory_operations = tools["compact"]["memory"]["properties"]["operation"]["enum"]
    assert {"sdd_context", "sdd_check"} <= set(memory_operations)
    assert set(SDD_TOOLS) <= set(tools["full"])


# --- sdd_get_context ------------------------------------------------------------------------


async def test_summary_lists_every_change_with_its_stage_sizes_and_ends_with_the_footer(
    client: Client, sdd_vault: Path
) -> None:
    answer = joined(await call(client, "sdd_get_context"))
    lines = answer.splitlines()

    def size_of(path: str) -> str:
        return chars(sdd_vault, path)

    base = "sdd/vaultgate/changes/memory-store/"
    assert lines[0] == (
        "SDD artifacts in sdd/: 2 projects, 4 changes (sizes in characters). Changes per "
        "project: atlas (2), vaultgate (2)."
    )
    assert lines[1] == (
        f"- atlas/cache-search-results: proposal "
        f"{size_of('sdd/atlas/changes/cache-search-results/proposal.md')}, tasks "
        f"{size_of('sdd/atlas/changes/cache-search-results/tasks.md')}; missing spec, design, "
        "verify"
    )
    assert lines[2].startswith("- atlas/huge-spec: spec ")
    assert lines[3].startswith("- vaultgate/add-dispatchers: proposal ")
    assert lines[3].endswith("; missing tasks, verify")
    assert lines[4] == (
        f"- vaultgate/memory-store: proposal {size_of(base + 'proposal.md')}, spec "
        f"{size_of(base + 'spec.md')}, design {size_of(base + 'design.md')}, tasks "
        f"{size_of(base + 'tasks.md')}, verify {size_of(base + 'verify.md')}"
    )
    assert "## Related memory — the most recent" in lines
    assert "- #3 [manual] Atlas search is slow" in lines
    assert lines[-1] == FOOTER == SUMMARY_FOOTER


@pytest.mark.parametrize(
    "arguments",
    [
        pytest.param({}, id="every-project"),
        pytest.param({"project": "vaultgate"}, id="one-project"),
        pytest.param({"change": "memory-store"}, id="one-change"),
    ],
)
async def test_summary_is_at_most_half_of_standard_and_full_holds_the_text(
    client: Client, sdd_vault: Path, arguments: dict[str, Any]
) -> None:
    summary = await call(client, "sdd_get_context", **arguments, detail_level="summary")
    standard = await call(client, "sdd_get_context", **arguments, detail_level="standard")
    full = await call(client, "sdd_get_context", **arguments, detail_level="full")

    assert size(summary) <= size(standard) / 2
    assert "chars):" not in joined(summary)  # no excerpts at summary
    assert joined(summary).endswith(FOOTER)
    assert not joined(standard).endswith(FOOTER)
    proposal = (sdd_vault / "sdd/vaultgate/changes/memory-store/proposal.md").read_text()
    flat = " ".join(proposal.split())
    excerpt = f"(2,{len(proposal) - 2000:03} chars): {flat[:500]}..."
    # changes share the budget: memory-store's, or the line that says changes were left out
    assert excerpt in joined(standard) or "Showing " in joined(standard)
    assert flat[:501] not in joined(standard)
    assert size(full) <= BUDGET
    if "change" in arguments:
        assert excerpt in joined(standard)
        assert proposal in joined(full)
    else:  # the proposal whole, cut with the call that reads on, or its change left out
        path = "sdd/vaultgate/changes/memory-store/proposal.md"
        assert any(found in joined(full) for found in (proposal, f'filename="{path}"', "Showing "))


async def test_full_stays_within_the_budget_and_get_vault_file_reads_on_exactly(
    client: Client, sdd_vault: Path
) -> None:
    path = "sdd/atlas/changes/huge-spec/spec.md"
    on_disk = (sdd_vault / path).read_text(encoding="utf-8")

    answer = await call(client, "sdd_get_context", change="huge-spec", detail_level="full")
    text = joined(answer)

    assert size(answer) <= BUDGET
    start = text.index("# Spec: everything")
    notice = next(line for line in text.splitlines() if line.startswith("Content truncated at"))
    next_index = int(notice.rsplit("startIndex=", 1)[1].split(")")[0])
    assert f'get_vault_file(filename="{path}", startIndex={next_index}) to get more.' in notice
    shown = text[start : text.index("\n\n" + notice)]
    rest = await call(
        client, "get_vault_file", filename=path, startIndex=next_index, maxLength=100_000
    )
    assert shown + texts(rest)[0] == on_disk


async def test_a_long_listing_is_cut_with_a_navigation_hint(client: Client) -> None:
    answer = joined(await call(client, "sdd_get_context", detail_level="full"))

    # The huge spec's window takes the rest of the budget; the vaultgate changes are left out.
    assert "### atlas/huge-spec" in answer
    assert "### vaultgate/" not in answer
    assert (
        "Showing 2 of 4 changes. Pass change=<slug> for one change, project=<name> for one "
        'project; list every change with list_vault_files(directory="sdd/<project>/changes/").'
    ) in answer


@pytest.mark.parametrize(
    ("level", "present", "absent"),
    [
        pytest.param(
            "summary",
            ["SDD vaultgate/memory-store spec.md: ", "Other stages: proposal, design, tasks"],
            ["FTS5 index"],
            id="summary",
        ),
        pytest.param("standard", ["# Spec: memory store The store keeps"], [], id="standard"),
        pytest.param("full", ["# Spec: memory store\n\nThe store keeps"], [], id="full"),
    ],
)
async def test_stage_returns_one_artifact(
    client: Client, level: str, present: list[str], absent: list[str]
) -> None:
    answer = await call(
        client, "sdd_get_context", change="memory-store", stage="spec", detail_level=level
    )
    text = joined(answer)

    for fragment in present:
        assert fragment in text
    for fragment in absent:
        assert fragment not in text
    assert "proposal.md" not in text
    assert "Memory store uses FTS5" in text  # the related memory part, at every level


async def test_a_whole_stage_at_full_is_shaped_like_get_vault_file(
    client: Client, sdd_vault: Path
) -> None:
    path = "sdd/vaultgate/changes/memory-store/design.md"

    window, rest = texts(  # whole: no metadata block, as get_vault_file
        await call(
            client, "sdd_get_context", change="memory-store", stage="design", detail_level="full"
        )
    )

    assert window == (sdd_vault / path).read_text(encoding="utf-8")
    assert rest.startswith("SDD vaultgate/memory-store design.md")


async def test_a_cut_stage_at_full_carries_the_metadata_block(
    client: Client, sdd_vault: Path
) -> None:
    path = "sdd/atlas/changes/huge-spec/spec.md"

    window, metadata, rest = texts(
        await call(client, "sdd_get_context", change="huge-spec", stage="spec", detail_level="full")
    )

    content = (sdd_vault / path).read_text(encoding="utf-8")
    end = json.loads(metadata)["endIndex"]
    assert 0 < end < len(content)
    assert metadata == (
        f'{{"path":"{path}","stage":"spec","truncated":true,"totalLength":{len(content)},'
        f'"startIndex":0,"endIndex":{end},"nextIndex":{end},"hasMore":true}}'
    )
    assert window.startswith(content[:end])
    assert window[end:].lstrip("\n").startswith(f"Content truncated at {end:,} of")
    assert rest.startswith("SDD atlas/huge-spec spec.md")


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        pytest.param(
            {"change": "nope"},
            "No change 'nope' in sdd/. Changes there: atlas/cache-search-results, "
            "atlas/huge-spec, vaultgate/add-dispatchers, vaultgate/memory-store.",
            id="unknown-change",
        ),
        pytest.param(
            {"project": "atlas", "change": "memory-store"},
            "No change 'memory-store' in project atlas. Changes there: cache-search-results, "
            "huge-spec.",
            id="change-of-another-project",
        ),
        pytest.param(
            {"change": "add-dispatchers", "stage": "verify"},
            "Change vaultgate/add-dispatchers has no verify.md; it has: proposal, spec, design.",
            id="missing-stage",
        ),
        pytest.param(
            {"stage": "spec"}, "stage='spec' needs change=<slug>.", id="stage-without-change"
        ),
        pytest.param(
            {"project": "nova"},
            "No SDD project 'nova' in sdd/. Projects there: atlas, vaultgate.",
            id="unknown-project",
        ),
    ],
)
async def test_mistakes_are_errors_that_say_what_exists(
    client: Client, arguments: dict[str, Any], message: str
) -> None:
    assert message in error_text(await client.call_tool("sdd_get_context", arguments))


async def test_an_unknown_stage_name_is_refused_with_the_stage_names(client: Client) -> None:
    result = await client.call_tool("sdd_get_context", {"change": "x", "stage": "review"})

    assert "proposal" in error_text(result)
    assert "verify" in error_text(result)


async def test_without_an_sdd_folder_it_says_where_artifacts_would_live(
    sdd_emulator: RunningEmulator,
) -> None:
    settings = with_memory(settings_for(sdd_emulator), sdd=SddSettings(folder="specs/"))
    async with connected(settings) as client:
        answer = joined(await call(client, "sdd_get_context"))
        checked = joined(await call(client, "sdd_context_check", change_description="fts5"))

    expected = (
        "No SDD artifacts yet: there is no specs/ folder in the vault. They would live in "
        "specs/<project>/changes/<slug>/{proposal,spec,design,tasks,verify}.md"
    )
    assert expected in answer
    assert expected in checked
    assert "Memory store uses FTS5" in checked


# --- sdd_context_check ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("description", "project", "matching"),
    [
        pytest.param(
            "Add dispatcher tools",
            None,
            ["vaultgate/add-dispatchers [shares: dispatcher, tool]"],  # "Delta for tools"
            id="slug-word-plural-and-title",
        ),
        pytest.param(
            "cache the vault search",
            None,
            [
                "atlas/cache-search-results [shares: cache, search, vault]",
                "atlas/huge-spec",
            ],
            id="slug-then-title",
        ),
        pytest.param(
            "faster search",
            "atlas",
            ["atlas/cache-search-results [shares: search, faster]"],
            id="title-word-counts",
        ),
        pytest.param("memory compaction", "VAULTGATE", ["vaultgate/memory-store"], id="any-case"),
    ],
)
async def test_changes_that_share_words_with_the_description_are_listed_best_first(
    client: Client, description: str, project: str | None, matching: list[str]
) -> None:
    arguments: dict[str, Any] = {"change_description": description, "detail_level": "summary"}
    if project is not None:
        arguments["project"] = project

    answer = joined(await call(client, "sdd_context_check", **arguments))
    listed = [line for line in answer.splitlines() if line.startswith("- ") and "/" in line]

    assert len(listed) >= 1
    for line, expected in zip(listed, matching, strict=False):
        assert line.startswith(f"- {expected}"), (line, expected)


async def test_context_check_detail_levels_follow_seed_001(client: Client, sdd_vault: Path) -> None:
    arguments = {"change_description": "memory store search", "project": "vaultgate"}

    summary = await call(client, "sdd_context_check", **arguments, detail_level="summary")
    standard = await call(client, "sdd_context_check", **arguments, detail_level="standard")
    full = await call(client, "sdd_context_check", **arguments, detail_level="full")

    # summary: file names and sizes, slugs, observation titles; no content at all.
    assert "- vaultgate/memory-store [shares: memory, store]: proposal 2," in joined(summary)
    assert "- #1 [manual] Memory store uses FTS5" in joined(summary)
    assert "falls back" not in joined(summary)
    assert "The store keeps" not in joined(summary)
    assert joined(summary).endswith(FOOTER)
    assert size(summary) <= size(standard) / 2
    # standard: 500-character artifact excerpts, 200-character memory snippets.
    flat_memory = " ".join(MEMORY_TEXT.split())
    assert f"    {flat_memory[:200].rstrip()}...\n" in joined(standard)
    assert flat_memory[:201] not in joined(standard)
    proposal = (sdd_vault / "sdd/vaultgate/changes/memory-store/proposal.md").read_text()
    assert " ".join(proposal.split())[:500] + "..." in joined(standard)
    # full: whole artifacts and whole observations, never cut (FR-017): the budget decides
    # how many changes, and the first matching change is whole even past it.
    memory_store = sdd_vault / "sdd/vaultgate/changes/memory-store"
    for stage in ("proposal", "spec", "design", "tasks", "verify"):
        assert (memory_store / f"{stage}.md").read_text().rstrip("\n") in joined(full), stage
    assert "Content truncated" not in joined(full)
    assert "not shown to keep this answer small" not in joined(full)
    assert MEMORY_TEXT.strip() in joined(full)
    assert size(full) > BUDGET  # one change, whole, past the 5,000-character default


async def test_context_check_at_full_gives_a_huge_artifact_whole(client: Client) -> None:
    full = joined(
        await call(
            client,
            "sdd_context_check",
            change_description="everything spec",
            project="atlas",
            detail_level="full",
        )
    )

    assert full.count("SHALL do thing") == 1499
    assert "Requirement 1499: the system SHALL do thing 1499." in full


async def test_memory_search_falls_back_to_any_word_and_says_so(client: Client) -> None:
    answer = joined(await call(client, "sdd_context_check", change_description="dispatchers zebra"))

    assert "no observation has every word; these have some, best first" in answer
    assert "Dispatchers call the single tools" in answer


# --- Obsidian unreachable -------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        pytest.param("sdd_get_context", {"change": "memory-store"}, id="get-context"),
        pytest.param(
            "sdd_context_check", {"change_description": "memory store"}, id="context-check"
        ),
    ],
)
async def test_with_obsidian_unreachable_the_memory_part_still_answers(
    tool: str, arguments: dict[str, Any]
) -> None:
    port = free_port()
    settings = Settings.from_env(
        {
            "OBSIDIAN_API_KEY": "k",
            "OBSIDIAN_PROTOCOL": "http",
            "OBSIDIAN_PORT": str(port),
            "VAULTGATE_MEMORY_DB": ":memory:",
            "VAULTGATE_TOOLS": "full",
        }
    )
    async with connected(settings) as client:
        answer = joined(await call(client, tool, **arguments))

    assert (
        f"Vault part unavailable: Obsidian is not reachable at http://127.0.0.1:{port}. " in answer
    )
    assert "Memory store uses FTS5" in answer


async def test_a_rejected_api_key_also_leaves_the_memory_part(
    sdd_emulator: RunningEmulator,
) -> None:
    settings = with_memory(settings_for(sdd_emulator))
    wrong_key = dataclasses.replace(settings.obsidian, api_key=Secret("not-the-key"))
    async with connected(dataclasses.replace(settings, obsidian=wrong_key)) as client:
        answer = joined(await call(client, "sdd_get_context", detail_level="standard"))

    assert "Vault part unavailable: Obsidian rejected the API key (OBSIDIAN_API_KEY)." in answer
    assert "Memory store uses FTS5" in answer
