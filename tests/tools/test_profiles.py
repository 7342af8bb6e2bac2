"""VAULTGATE_TOOLS profiles: which tools each offers, and how much tools/list costs."""

from __future__ import annotations

import json
import math

import pytest
from mcp import Client

from vaultgate.config import Settings
from vaultgate.errors import ConfigError
from vaultgate.server import build_server
from vaultgate.tools.dispatch import DISPATCHERS
from vaultgate.tools.registry import select_tools, single_tools
from vaultgate.tools.schema import listed_characters

pytestmark = pytest.mark.anyio

MEMORY_TOOLS = {
    "mem_session_start",
    "mem_session_end",
    "mem_save",
    "mem_update",
    "mem_delete",
    "mem_save_prompt",
    "mem_stats",
    "mem_search",
    "mem_context",
    "mem_timeline",
    "mem_get_observation",
    "mem_get_observations",
    "mem_compact",
}

# Frozen upper bounds (characters of the compact JSON tools/list result). Measured values are
# in docs/benchmarks.md; a change that grows a profile past its bound must say why.
# full: 37,000 → 38,000 for the tools' human-readable titles (issue 9), about 25 characters
# for each of its 43 tools. compact: 19,000 → 6,200 when memory became one dispatcher
# (issue 10); about 600 of it are titles and annotations, outside issue 10's measure.
# Issue 13's operations: the reading ones (read_many, recent, backlinks, broken_links,
# orphans) +139 compact (5 operation names, filenames and days), +4,001 full (with their 5
# single tools); the writing ones (replace, set/delete_property, add/remove_tag) +214 compact
# (five operation names, find, regex, frontmatter, value, tag, inline), +4,126 full. The
# listed bound below still holds. Issue 24's one name per idea: +62 full (search_vault_smart's
# folder takes one folder or several, and the single tools' patchOperation is longer); its lean
# search: withOffsets (+24 compact, +113 full with search_vault_simple's) and
# search_vault_smart's offset (+89 full); both together a few characters more (descriptions
# naming each other's parameters). Issue 24's reads apart from writes: compact 6,492 → 6,672
# for six tools, not five (vault_edit and memory_edit: their names, annotations and titles, and
# the parameters both sides of a split take), paid for with shorter tool descriptions, a few
# words on each unclear parameter only, and no `type` beside a string enum; full 45,991 →
# 45,831 (the same schema tidying). Its 5,000-character default answers: max_tokens on
# mem_context and mem_get_observation(s) (full only; compact's memory already had it).
# Issue 26's mode on search_smart (vault's schema too: compact 6,672 → 6,676, paid for with
# a shorter vault and discover description and no note on days; full 46,481 → 46,634).
BOUNDS = {"compact": 6_676, "full": 46_634}
# Issue 10's bar for the default profile: name + description + inputSchema of every tool, as
# bench/tools_list.py measures (listed_characters).
COMPACT_LISTED_BOUND = 6_000


async def tools_list(profile: str) -> tuple[set[str], str]:
    settings = Settings.from_env(
        {"OBSIDIAN_API_KEY": "k", "VAULTGATE_TOOLS": profile, "VAULTGATE_MEMORY_DB": ":memory:"}
    )
    async with Client(build_server(settings)) as client:
        tools = (await client.list_tools()).tools
    wire = json.dumps(
        {"tools": [t.model_dump(by_alias=True, mode="json", exclude_none=True) for t in tools]},
        separators=(",", ":"),
        ensure_ascii=False,
    )
    return {t.name for t in tools}, wire


async def test_compact_is_the_default_and_offers_the_dispatchers_fetch_and_memory() -> None:
    default = Settings.from_env({"OBSIDIAN_API_KEY": "k"})
    names, _ = await tools_list(default.tools)

    assert default.tools == "compact"
    assert names == {"discover", "vault", "vault_edit", "memory", "memory_edit", "fetch"}


async def test_the_compact_list_is_at_most_6000_characters() -> None:
    settings = Settings.from_env({"OBSIDIAN_API_KEY": "k", "VAULTGATE_MEMORY_DB": ":memory:"})
    async with Client(build_server(settings)) as client:
        tools = (await client.list_tools()).tools

    assert listed_characters(tools) <= COMPACT_LISTED_BOUND


def test_compact_reaches_every_single_tool_through_a_dispatcher() -> None:
    offered = {
        tool.__name__ for tool, _ in select_tools(Settings.from_env({"OBSIDIAN_API_KEY": "k"}))
    }
    reached = {
        name
        for dispatcher, (routes, _) in DISPATCHERS.items()
        if dispatcher in offered
        for route in routes.values()
        for name in route.single_tools
    }
    singles = {tool.__name__ for _, specs in single_tools() for tool, _ in specs}

    assert singles - offered - reached == set()


async def test_full_offers_every_single_tool_as_well() -> None:
    names, _ = await tools_list("full")

    assert {"vault", "vault_edit", "discover", "get_vault_file", "bulk_delete_files"} <= names
    assert names >= MEMORY_TOOLS
    assert len(names) > 35


async def test_a_list_offers_exactly_those_tools() -> None:
    names, _ = await tools_list("get_vault_file, search_vault_simple")

    assert names == {"get_vault_file", "search_vault_simple"}


def test_an_unknown_tool_name_stops_the_server_with_the_valid_names() -> None:
    settings = Settings.from_env({"OBSIDIAN_API_KEY": "k", "VAULTGATE_TOOLS": "vault,nope"})

    with pytest.raises(ConfigError, match="nope") as caught:
        build_server(settings)
    assert "get_vault_file" in str(caught.value)


@pytest.mark.parametrize("profile", list(BOUNDS))
async def test_tools_list_stays_within_its_frozen_bound(profile: str) -> None:
    _, wire = await tools_list(profile)

    tokens = math.ceil(len(wire) / 4)
    assert len(wire) <= BOUNDS[profile], f"{profile}: {len(wire)} chars, ~{tokens} tokens"


async def test_schemas_carry_no_titles_or_null_unions_but_keep_every_property() -> None:
    settings = Settings.from_env({"OBSIDIAN_API_KEY": "k", "VAULTGATE_TOOLS": "full"})
    async with Client(build_server(settings)) as client:
        tools = (await client.list_tools()).tools

    for tool in tools:
        schema = tool.input_schema
        wire = json.dumps(schema)
        assert '"title": "' not in wire.replace('"title": {', ""), tool.name
        assert '{"type": "null"}' not in wire, tool.name
        assert set(schema.get("required", [])) <= set(schema.get("properties", {})), tool.name
    mem_save = next(t for t in tools if t.name == "mem_save")
    assert "title" in mem_save.input_schema["properties"]
