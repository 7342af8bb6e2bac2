"""The simple search's pages on every backend: within 5,000 characters by default, one
whole-word context per note, more on request, offsets only when asked, lossless paging."""

from __future__ import annotations

import json
import random
import unicodedata
from pathlib import Path
from typing import Any

import pytest
import regex
from mcp import Client
from tests.tools.conftest import payload, size
from tests.tools.test_protection_tags import serve

from vaultgate.paging import ANSWER_CAP

pytestmark = pytest.mark.anyio

BACKENDS = ["3.6.2", "4.1.7", "5.1.0", "folder", "auto"]
DEFAULT_PAGE_BOUND = 5_000  # seed 004's "~5KB" default response

FOLDERS = ["Projects/Acme #1", "Daily/2026 11", "Areas/Résumé 100%", "Inbox", "日本/会議"]
NAMES = ["Plan #2", "Status 50%", "会議メモ", "🚀 Launch", unicodedata.normalize("NFD", "Café")]
WORDS = [
    "alpha",
    "beta",
    "gamma",
    "review",
    "project",
    "notes",
    "with",
    "and",
    "of",
    "a",
    "Meeting",
    "MEETING",
    "会議",
    "プロジェクト",
    "🚀",
    "✅",
    "👨\u200d👩\u200d👧",
    "🇯🇵",
    "café",
    "naïve",
    "#tag",
    "100%",
    "https://example.com/a-rather-long/path?x=1",
]
ADJACENT = ["🚀meeting", "meeting🇯🇵", "会議meeting", "👨‍👩‍👧meeting✅", "(meeting)", "Meeting:"]


def awkward_vault(root: Path, notes: int = 60) -> Path:
    """``notes`` notes holding "meeting" many times, emoji and CJK against it, names with
    #, %, spaces, NFD and CJK, CRLF in some, frontmatter with comments and quoted values;
    and "zyzzyva" in a few."""
    rnd = random.Random(24)
    vault = root / "vault"
    for index in range(notes):
        path = vault / FOLDERS[index % len(FOLDERS)] / f"{NAMES[index % len(NAMES)]} {index}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        paragraphs = []
        for _ in range(rnd.randint(3, 8)):
            words = [rnd.choice(WORDS + ADJACENT) for _ in range(rnd.randint(20, 70))]
            paragraphs.append(" ".join(words))
        front = f'---\ntitle: "Note # {index}"  # a comment\ntags: [a, "b c"]\n---\n'
        text = front + "\n\n".join(paragraphs) + " meeting\n"
        if index % 12 == 0:
            text += f"The zyzzyva {'🦓' * (index % 5)}is rare.\n"
        newline = "\r\n" if index % 3 == 0 else "\n"
        path.write_bytes(text.replace("\n", newline).encode("utf-8"))
    return vault


async def walk(client: Client, **arguments: Any) -> tuple[list[dict[str, Any]], int]:
    """Every result of a search, page by page, and the characters all pages cost."""
    results: list[dict[str, Any]] = []
    offset, spent = 0, 0
    while True:
        result = await client.call_tool("search_vault_simple", {**arguments, "offset": offset})
        spent += size(result)
        page = payload(result)
        results.extend(page["results"])
        if not page["pagination"]["hasMore"]:
            return results, spent
        offset = page["pagination"]["nextOffset"]


def whole_words_of(note: str, context: str) -> bool:
    """``context`` is a run of the note's whole words (whitespace collapsed, as shown)."""
    collapsed = " ".join(note.split())
    return f" {context} " in f" {collapsed} "


def note_text(vault: Path, filename: str) -> str:
    return (vault / filename).read_bytes().decode("utf-8")


@pytest.mark.parametrize("backend", BACKENDS)
async def test_a_common_word_fits_twenty_notes_in_5000_characters_with_whole_words(
    tmp_path: Path, backend: str
) -> None:
    vault = awkward_vault(tmp_path)
    async with serve(vault, backend) as world:
        first = await world.client.call_tool("search_vault_simple", {"query": "meeting"})
        walked, _ = await walk(world.client, query="meeting")

    page = payload(first)
    assert size(first) <= DEFAULT_PAGE_BOUND
    assert len(page["results"]) == 20  # seed 004: 20 results, contexts shortened to fit
    assert page["pagination"] == {
        "total": 60,
        "offset": 0,
        "limit": 20,
        "hasMore": True,
        "nextOffset": 20,
    }
    for hit in page["results"]:
        (context,) = hit["matches"]  # one context, a string: no offsets unless asked
        assert isinstance(context, str)
        assert "meeting" in context.lower()
        assert hit["matchCount"] > 1
        assert whole_words_of(note_text(vault, hit["filename"]), context), context
        context.encode("utf-8")  # no half emoji
    assert sorted(hit["filename"] for hit in walked) == sorted(
        path.relative_to(vault).as_posix() for path in vault.rglob("*.md")
    )


@pytest.mark.parametrize("backend", BACKENDS)
async def test_more_contexts_and_offsets_come_when_asked(tmp_path: Path, backend: str) -> None:
    vault = awkward_vault(tmp_path, notes=10)
    arguments = {"query": "meeting", "maxMatchesPerFile": 4, "withOffsets": True, "limit": 5}
    async with serve(vault, backend) as world:
        page = payload(await world.client.call_tool("search_vault_simple", arguments))

    for hit in page["results"]:
        assert len(hit["matches"]) == 4
        units = note_text(vault, hit["filename"]).encode("utf-16-le")
        for match in hit["matches"]:
            assert set(match) == {"context", "start", "end"}
            word = units[2 * match["start"] : 2 * match["end"]].decode("utf-16-le")
            assert word.lower() == "meeting"
            assert word in match["context"]


@pytest.mark.parametrize("backend", BACKENDS)
async def test_a_rare_word_costs_little_more_than_its_names_and_contexts(
    tmp_path: Path, backend: str
) -> None:
    vault = awkward_vault(tmp_path)
    async with serve(vault, backend) as world:
        hits, spent = await walk(world.client, query="zyzzyva")

    assert len(hits) == 5
    for hit in hits:
        (context,) = hit["matches"]
        assert "The zyzzyva" in context
        assert context.endswith("is rare.")
        assert whole_words_of(note_text(vault, hit["filename"]), context), context
        framing = len(json.dumps(hit, ensure_ascii=False, separators=(",", ":")))
        framing -= len(hit["filename"]) + len(context)
        assert framing <= 50  # {"filename":"","score":1.23,"matches":[""]}, and a comma
    assert spent <= sum(len(hit["filename"]) + len(hit["matches"][0]) + 50 for hit in hits) + 100


@pytest.mark.parametrize("backend", BACKENDS)
async def test_scores_that_are_all_equal_are_left_out(tmp_path: Path, backend: str) -> None:
    vault = tmp_path / "vault"
    for folder in ("Inbox", "Other"):
        (vault / folder).mkdir(parents=True)
    for name in ("a1", "b2", "c3"):  # the same length, the same text: the same score
        (vault / "Inbox" / f"{name}.md").write_text("quokka 🦘 here\n", encoding="utf-8")
    (vault / "Other" / "d4.md").write_text("quokka, quokka\n", encoding="utf-8")
    async with serve(vault, backend) as world:
        arguments = {"query": "quokka", "directory": "Inbox"}
        equal = payload(await world.client.call_tool("search_vault_simple", arguments))
        differ = payload(await world.client.call_tool("search_vault_simple", {"query": "quokka"}))

    assert [set(hit) for hit in equal["results"]] == [{"filename", "matches"}] * 3
    assert next(hit["score"] for hit in differ["results"]) > 2
    assert all("score" in hit for hit in differ["results"])


@pytest.mark.parametrize("backend", BACKENDS)
async def test_emoji_and_cjk_cut_by_the_context_keep_whole_characters(
    tmp_path: Path, backend: str
) -> None:
    family = "👨‍👩‍👧"
    vault = tmp_path / "vault"
    (vault / "日本").mkdir(parents=True)
    (vault / "日本" / "絵文字 #1.md").write_text(
        "会議" + "🦓" * 40 + "会議quokka日本語" + family * 20 + "メモ\n", encoding="utf-8"
    )
    arguments = {"query": "quokka", "contextLength": 61}
    async with serve(vault, backend) as world:
        page = payload(await world.client.call_tool("search_vault_simple", arguments))

    (context,) = page["results"][0]["matches"]
    assert "会議quokka日本語" in context
    assert not regex.search(r"[\ud800-\udfff]", context)
    assert context.startswith("🦓")
    assert context.endswith(family)


@pytest.mark.parametrize("backend", ["3.6.2", "5.1.0", "auto"])
async def test_smart_search_keeps_its_rows_and_shortens_their_text(
    tmp_path: Path, backend: str
) -> None:
    vault = awkward_vault(tmp_path)
    # Smart Connections' route, asked by name: with a vault folder (auto), the folder's own
    # index would answer otherwise (tests/tools/test_search_local.py)
    arguments: dict[str, Any] = {
        "query": "meeting review project notes",
        "limit": 50,
        "mode": "smart_connections",
    }
    async with serve(vault, backend) as world:
        first = await world.client.call_tool("search_vault_smart", arguments)
        pages = [payload(first)]
        while pages[-1]["pagination"]["hasMore"]:
            arguments["offset"] = pages[-1]["pagination"]["nextOffset"]
            pages.append(payload(await world.client.call_tool("search_vault_smart", arguments)))
        default = await world.client.call_tool(
            "search_vault_smart", {"query": "meeting", "mode": "smart_connections"}
        )

    assert size(default) <= DEFAULT_PAGE_BOUND
    assert len(payload(default)["results"]) == 20  # seed 004: filter?.limit ?? 20
    assert len(payload(first)["results"]) == 50  # as many rows as asked: shorter texts
    assert size(first) <= ANSWER_CAP
    paths = [row["path"] for page in pages for row in page["results"]]
    assert len(pages) == 2
    assert "total" not in pages[0]["pagination"]  # Smart Connections counts nothing
    assert pages[0]["pagination"]["hasMore"] is True
    assert pages[-1]["pagination"] == {"total": 60, "offset": 50, "limit": 50, "hasMore": False}
    assert len(paths) == len(set(paths)) == 60
    for row in payload(default)["results"]:
        assert len(row["text"]) <= 120
        assert "breadcrumbs" not in row  # a whole note's: its path again
