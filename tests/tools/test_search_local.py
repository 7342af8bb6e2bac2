"""search_vault_smart from the vault folder's own index: by meaning, by words, or both fused.

The corpus (tests/data/meaning) is a few dozen short notes with awkward names (emoji, CJK,
'#', '%', an NFD folder name, CRLF); each question shares no searched word with the note that
answers it, so only meaning finds it.
"""

from __future__ import annotations

import shutil
import sqlite3
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from tests.tools.conftest import payload, texts
from tests.tools.test_protection_tags import serve

from vaultgate.engine.index.database import default_location
from vaultgate.semantic.embedder import INSTALL_HINT, why_unavailable

CORPUS = Path(__file__).parents[1] / "data" / "meaning"
QUESTIONS = [
    tuple(line.split("\t"))
    for line in (CORPUS / "questions.tsv").read_text(encoding="utf-8").splitlines()
    if line and not line.startswith("#")
]
HIDDEN_TWIN = "---\ntags: [mcp-hidden]\n---\nCan't fall asleep at night: no caffeine, dark room.\n"

pytestmark = pytest.mark.anyio

needs_extra = pytest.mark.skipif(
    why_unavailable() is not None, reason=f"semantic extra: {why_unavailable()}"
)


def corpus(tmp_path: Path) -> Path:
    vault = tmp_path / "vault"
    shutil.copytree(CORPUS, vault)
    (vault / "questions.tsv").unlink()
    return vault


async def search(client: Client, query: str, **arguments: Any) -> dict[str, Any]:
    return payload(await client.call_tool("search_vault_smart", {"query": query, **arguments}))


async def embedded(client: Client) -> None:
    """Until the index is built and every note has its vector (both in the background)."""
    with anyio.fail_after(60):
        while True:
            result = await client.call_tool(
                "search_vault_smart", {"query": "anything", "mode": "semantic"}
            )
            if not result.is_error and "notice" not in payload(result):
                return
            await anyio.sleep(0.05)


async def until(found: Any) -> dict[str, Any]:
    """Call ``found()`` until it gives an answer rather than None (a search the index or
    the watcher has not caught up with yet)."""
    with anyio.fail_after(60):
        while True:
            answer = await found()
            if answer is not None:
                return answer  # type: ignore[no-any-return]
            await anyio.sleep(0.05)


def paths(page: dict[str, Any]) -> list[str]:
    return [row["path"] for row in page["results"]]


@needs_extra
@pytest.mark.parametrize("backend", ["folder", "auto"])
async def test_semantic_and_hybrid_find_each_note_by_a_paraphrase_in_the_top_three(
    tmp_path: Path, backend: str
) -> None:
    async with serve(corpus(tmp_path), backend) as world:
        await embedded(world.client)
        for question, answer in QUESTIONS:
            for mode in ("semantic", "hybrid"):
                page = await search(world.client, question, mode=mode, limit=3)
                assert answer in paths(page), (mode, question, page)


@needs_extra
async def test_keyword_mode_does_not_find_what_shares_no_word(tmp_path: Path) -> None:
    async with serve(corpus(tmp_path), "folder") as world:
        await embedded(world.client)
        page = await search(world.client, "baking bread at home", mode="keyword")
        exact = await search(world.client, "sourdough starter", mode="keyword")

    assert "Küche/Sauerteig 🍞.md" not in paths(page)
    assert paths(exact)[0] == "Küche/Sauerteig 🍞.md"


@needs_extra
@pytest.mark.parametrize("mode", ["hybrid", "keyword", "semantic"])
async def test_hidden_and_denied_notes_are_never_hits_nor_shape_a_score(
    tmp_path: Path, mode: str
) -> None:
    vault = corpus(tmp_path / "with")
    (vault / "Sleep" / "Hidden twin.md").write_text(HIDDEN_TWIN, encoding="utf-8")
    (vault / "Denied").mkdir()
    (vault / "Denied" / "Sleep twin.md").write_text(HIDDEN_TWIN[32:], encoding="utf-8")
    question = "can't fall asleep, caffeine at night"
    async with serve(vault, "folder", {"VAULTGATE_DENY": "Denied/**"}) as world:
        await embedded(world.client)
        page = await search(world.client, question, mode=mode)
    async with serve(corpus(tmp_path / "without"), "folder") as world:
        await embedded(world.client)
        alone = await search(world.client, question, mode=mode)

    assert not [p for p in paths(page) if "twin" in p]
    assert page["results"] == alone["results"]  # same notes, same ranks, same scores


@needs_extra
async def test_a_note_changed_by_vaultgate_or_behind_its_back_is_found_by_its_new_meaning(
    tmp_path: Path,
) -> None:
    vault = corpus(tmp_path)
    async with serve(vault, "folder") as world:
        await embedded(world.client)
        done = await world.client.call_tool(
            "create_vault_file",
            {
                "filename": "Art/Watercolour.md",
                "content": "Knitting a scarf: cast on stitches with wool and two needles.\n",
                "overwrite": True,
            },
        )
        assert not done.is_error, texts(done)
        written = await search(world.client, "knitting a wool scarf", mode="semantic")
        (vault / "Fitness" / "Yoga.md").write_text(
            "Scuba diving: check the oxygen tank, regulator and wetsuit before the dive.\n",
            encoding="utf-8",
        )

        async def diving() -> dict[str, Any] | None:  # the watcher's turn, then the vector
            page = await search(world.client, "underwater breathing gear", mode="semantic")
            return page if "Fitness/Yoga.md" in paths(page)[:3] else None

        behind = await until(diving)

    assert paths(written)[0] == "Art/Watercolour.md", written
    assert paths(behind)[0] == "Fitness/Yoga.md"


@needs_extra
async def test_vectors_survive_a_restart_and_are_not_built_again(tmp_path: Path) -> None:
    vault = corpus(tmp_path)
    async with serve(vault, "folder") as world:
        await embedded(world.client)
    before = stored_vectors(vault)
    async with serve(vault, "folder") as world:
        first = await search(world.client, "coffee brewing", mode="semantic")
    after = stored_vectors(vault)

    assert len(before) == 24
    assert after == before  # the same rows: nothing was deleted and embedded again
    assert "notice" not in first  # answered from the stored vectors at once
    assert paths(first)[0] == "Cafe\u0301/Espresso.md"  # NFD, as the disk names it


def stored_vectors(vault: Path) -> dict[int, bytes]:
    with sqlite3.connect(default_location(vault)) as conn:
        return dict(conn.execute("SELECT id, vector FROM note_vectors").fetchall())


async def test_without_the_extra_hybrid_ranks_by_words_and_says_how_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "wordllama", None)  # as if the extra were not installed
    async with serve(corpus(tmp_path), "folder") as world:

        async def built() -> dict[str, Any] | None:  # the index's first build
            result = await world.client.call_tool(
                "search_vault_smart", {"query": "sourdough starter"}
            )
            return None if result.is_error else payload(result)

        hybrid = await until(built)
        semantic = await world.client.call_tool(
            "search_vault_smart", {"query": "baking bread", "mode": "semantic"}
        )

    assert paths(hybrid)[0] == "Küche/Sauerteig 🍞.md"
    assert INSTALL_HINT in hybrid["notice"]
    assert semantic.is_error
    (message,) = texts(semantic)
    assert INSTALL_HINT in message
    assert "mode='keyword'" in message


@needs_extra
async def test_results_page_with_next_offset_and_every_note_once(tmp_path: Path) -> None:
    async with serve(corpus(tmp_path), "folder") as world:
        await embedded(world.client)
        pages = [await search(world.client, "things to do at home", mode="semantic", limit=7)]
        while pages[-1]["pagination"]["hasMore"]:
            offset = pages[-1]["pagination"]["nextOffset"]
            pages.append(
                await search(
                    world.client, "things to do at home", mode="semantic", limit=7, offset=offset
                )
            )

    found = [path for page in pages for path in paths(page)]
    assert pages[0]["pagination"]["total"] == 24
    assert len(found) == len(set(found)) == 24
    assert all(len(row["text"]) <= 120 for page in pages for row in page["results"])


# notes that hold 'alpha' and 'beta' in a proportion that ranks the alpha note first, and
# notes out of reach that would make 'alpha' common, and so rank it last (issue 36)
SMALL_CORPUS = {
    "Inbox/alpha 日本 #1.md": "An alpha note 🚀\r\nwith more words around it.\r\n",
    "Inbox/beta 50%.md": "A beta note, café.\n",
    "Areas/beta again 🙂.md": "Beta and beta once more, 漢字 beside it.\n",
    "Areas/plain.md": "Nothing to find here at all, just filler text.\n",
}
OUT_OF_REACH = {
    "Areas/hidden alpha 🙈.md": "---\ntags: [mcp-hidden]\n---\nalpha alpha " + "more " * 80,
    "Areas/.hidden folder/alpha.md": "alpha\n",
    "Denied/alpha #3.md": "alpha\r\n" * 5,
    "Denied/alpha again 100%.md": "alpha, alpha beta.\n",
}


@needs_extra
@pytest.mark.parametrize("mode", ["keyword", "hybrid"])
async def test_notes_out_of_reach_move_no_rank_and_no_score_of_a_word_search(
    tmp_path: Path, mode: str
) -> None:
    answers = []
    for name, notes in (("alone", SMALL_CORPUS), ("beside", SMALL_CORPUS | OUT_OF_REACH)):
        vault = tmp_path / name
        for path, text in notes.items():
            (vault / path).parent.mkdir(parents=True, exist_ok=True)
            (vault / path).write_text(text, encoding="utf-8", newline="")
        async with serve(vault, "folder", {"VAULTGATE_DENY": "Denied/**"}) as world:
            await embedded(world.client)
            answers.append(await search(world.client, "alpha beta", mode=mode))

    alone, beside = answers
    if mode == "keyword":
        assert paths(alone)[0] == "Inbox/alpha 日本 #1.md"  # the rarer word weighs more
    assert beside["results"] == alone["results"]  # same notes, same ranks, same scores
