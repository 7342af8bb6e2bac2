"""Where users got hurt, end to end: `vaultgate serve` over stdio against the emulator.

Emoji cut in half by the plugin's search, a folder path sent to delete, and a deny list that
could be walked around: each is shown here as a user would meet it.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters
from mcp.types import CallToolResult, TextContent
from tests.tools.test_hidden_paths import (
    DISPATCHER_CALLS,
    FULL_PROFILE_CALLS,
    HIDDEN_FILES,
    hidden_tree,
)

from vaultgate.demo import fixture_vault, server_parameters
from vaultgate.emulator.runner import RunningEmulator, start_emulator

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

# Half an emoji in JSON: a high surrogate escape with no low one after it, or the reverse.
LONE_SURROGATE_ESCAPE = re.compile(
    r"\\ud[89ab][0-9a-f]{2}(?!\\ud[c-f])|(?<!\\ud[89ab][0-9a-f]{2})\\ud[c-f][0-9a-f]{2}",
    re.IGNORECASE,
)


def stdio(emulator: RunningEmulator, **env: str) -> StdioServerParameters:
    params = server_parameters(emulator)
    return params.model_copy(update={"env": {**(params.env or {}), **env}})


def text_of(result: CallToolResult) -> str:
    return "\n".join(block.text for block in result.content if isinstance(block, TextContent))


def answer(result: CallToolResult) -> dict[str, Any]:
    assert not result.is_error, text_of(result)
    first = result.content[0]
    assert isinstance(first, TextContent)
    value = json.loads(first.text)
    assert isinstance(value, dict)
    return value


def emoji_vault(root: Path) -> Path:
    """The issue's reproduction, and a note with an emoji on every line next to the match."""
    vault = root / "emoji vault"
    vault.mkdir()
    (vault / "rocket.md").write_text("🚀" + "a" * 98 + " zz", encoding="utf-8")
    lines = [f"日本 🚀 line {i} 🎉 zz 𝄞 終わり" for i in range(40)]
    (vault / "Journal 📓/every line.md").parent.mkdir()
    (vault / "Journal 📓/every line.md").write_text("\r\n".join(lines), encoding="utf-8")
    return vault


async def raw_search(emulator: RunningEmulator, query: str) -> str:
    async with emulator.client() as http:
        response = await http.post("/search/simple/", params={"query": query})
    return response.text


@pytest.mark.parametrize("version", ["3.6.2", "4.1.7", "5.1.0", "5.1.1"])
async def test_a_search_with_emoji_next_to_every_match_answers_on_every_version(
    tmp_path: Path, version: str
) -> None:
    with start_emulator(emoji_vault(tmp_path), plugin_version=version) as emulator:
        raw = await raw_search(emulator, "zz")
        async with Client(stdio(emulator)) as client:
            found = answer(
                await client.call_tool(
                    "vault",
                    {"operation": "search", "query": "zz", "maxMatchesPerFile": 20},
                )
            )

    # Up to 5.1.0 the plugin cuts contexts by UTF-16 code units: its JSON holds half an emoji.
    assert bool(LONE_SURROGATE_ESCAPE.search(raw)) == (version != "5.1.1")
    assert {hit["filename"] for hit in found["results"]} == {
        "rocket.md",
        "Journal 📓/every line.md",
    }
    contexts = [context for hit in found["results"] for context in hit["matches"]]
    assert all("zz" in context for context in contexts)
    # the half emoji is dropped whole with the cut side's partial word (vault/snippets.py)
    assert not any("\ufffd" in context for context in contexts)
    assert all(context.encode("utf-8") for context in contexts)


async def test_a_folder_given_to_delete_is_refused_and_nothing_moves(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    shutil.copytree(fixture_vault(), vault)
    before = sorted(p.relative_to(vault).as_posix() for p in vault.rglob("*"))

    with start_emulator(vault) as emulator:
        async with Client(stdio(emulator, VAULTGATE_TOOLS="full")) as client:
            bare = await client.call_tool("delete_vault_file", {"filename": "Projects/Work"})
            slashed = await client.call_tool(
                "vault", {"operation": "delete", "filename": "Projects/Work/"}
            )
            overwrite = await client.call_tool(
                "create_vault_file", {"filename": "Daily", "content": "x", "overwrite": True}
            )

    for result in (bare, slashed, overwrite):
        assert result.is_error
        assert "is a folder, not a note" in text_of(result)
    assert "dryRun=true" in text_of(bare)
    assert sorted(p.relative_to(vault).as_posix() for p in vault.rglob("*")) == before


async def test_a_denied_folder_cannot_be_read_listed_probed_or_seen_in_backlinks(
    tmp_path: Path,
) -> None:
    vault = tmp_path / "vault"
    shutil.copytree(fixture_vault(), vault)
    (vault / "Private/Sub").mkdir(parents=True)
    (vault / "Private/diary.md").write_text("Met [[Welcome]] today.\n", encoding="utf-8")
    (vault / "Private/Sub/plans.md").write_text("# Plans\n", encoding="utf-8")

    with start_emulator(vault) as emulator:
        async with Client(stdio(emulator, VAULTGATE_DENY="Private")) as client:
            reads = [
                await client.call_tool("vault", {"operation": "read", "filename": name})
                for name in ("Private", "Private/", "Private/diary.md")
            ]
            listings = {
                name: await client.call_tool("vault", {"operation": "list", "directory": name})
                for name in ("Private", "Private/Sub", "Nope", "Private/Nope")
            }
            welcome = await client.call_tool(
                "vault", {"operation": "read", "filename": "Welcome.md", "format": "json"}
            )
            root = answer(await client.call_tool("vault", {"operation": "list"}))

    for result in reads:
        assert result.is_error
        assert "plans" not in text_of(result)
    for result in reads[:2]:  # the folder itself: nothing inside it is named
        assert "diary" not in text_of(result)
    shapes = {
        name: text_of(result)
        .replace(repr(name + "/"), "NAME")
        .replace(repr(name), "NAME")
        .replace(json.dumps(name.rpartition("/")[0]), "PARENT")
        for name, result in listings.items()
    }
    assert all(result.is_error for result in listings.values())
    assert len(set(shapes.values())) == 1, shapes
    assert "Private/" not in root["files"]
    assert "Private/diary.md" not in text_of(welcome)


async def test_no_tool_reaches_a_hidden_path_over_stdio(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    shutil.copytree(fixture_vault(), vault)
    for path, text in HIDDEN_FILES.items():
        (vault / path).parent.mkdir(parents=True, exist_ok=True)
        (vault / path).write_text(text, encoding="utf-8")
    before = hidden_tree(vault)

    with start_emulator(vault) as emulator:
        async with Client(stdio(emulator, VAULTGATE_TOOLS="full")) as client:
            results = {
                f"{name}{arguments}": await client.call_tool(name, arguments)
                for name, arguments in FULL_PROFILE_CALLS + DISPATCHER_CALLS
            }

    reached = {
        call: text_of(result)
        for call, result in results.items()
        if not result.is_error
        or "Hidden and configuration files are not part of the vault" not in text_of(result)
    }
    assert reached == {}
    assert hidden_tree(vault) == before
