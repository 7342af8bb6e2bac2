"""The folder backend's vault index while the server runs: built, watched, told of writes."""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

import anyio
import pytest
from tests.folder.test_search import QUERIES

from vaultgate.engine.behaviour import Behaviour
from vaultgate.engine.index import IndexedText, VaultIndex
from vaultgate.engine.simple_search import SimpleSearchOptions
from vaultgate.engine.vault import Vault
from vaultgate.folder import indexing
from vaultgate.folder.backend import FOLDER_SEMANTICS, FolderBackend
from vaultgate.folder.search import engine_search
from vaultgate.logs import NOTICES
from vaultgate.obsidian.models import SimpleHit
from vaultgate.protection import MARKED_QUERY, marked_from_rows

pytestmark = pytest.mark.anyio

BEHAVIOUR = Behaviour.for_version(str(FOLDER_SEMANTICS))
T = TypeVar("T")


def _materialised(hits: list[SimpleHit]) -> list[dict[str, object]]:
    return [dict(hit, matches=list(hit.get("matches", []))) for hit in hits]


@pytest.fixture
def vault_folder(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    (root / "Folder #1").mkdir(parents=True)
    (root / "Folder #1" / "a 100%.md").write_text("#alpha first note 🚀\n", encoding="utf-8")
    (root / "b.md").write_text("---\ntags: [beta]\n---\nsecond note\n", encoding="utf-8")
    return root


async def _eventually(check: Callable[[], Awaitable[bool]]) -> None:
    """The watcher works on its own clock: look every 20 ms, for 10 s at most."""
    for _ in range(500):
        if await check():
            return
        await anyio.sleep(0.02)
    pytest.fail("the watcher did not pass the change on within 10 s")


async def test_the_index_is_built_where_asked_and_answers_tags(
    vault_folder: Path, tmp_path: Path
) -> None:
    location = tmp_path / "index" / "vault.sqlite3"
    location.parent.mkdir()
    backend = FolderBackend(vault_folder, index_location=location)
    async with backend.running():
        assert await backend.wait_until_indexed()
        tags = await backend.list_tags()
    assert location.exists()
    assert [(t["name"], t["count"]) for t in tags] == [("alpha", 1), ("beta", 1)]


async def test_a_frontmatter_tag_with_a_space_is_no_tag_as_in_obsidian(
    vault_folder: Path, tmp_path: Path
) -> None:
    (vault_folder / "c.md").write_text("---\ntags: [two words, gamma]\n---\n", encoding="utf-8")
    backend = FolderBackend(vault_folder, index_location=tmp_path / "index.sqlite3")
    async with backend.running():
        assert await backend.wait_until_indexed()
        names = [t["name"] for t in await backend.list_tags()]
    assert sorted(names) == ["alpha", "beta", "gamma"]


async def test_writes_through_vaultgate_reach_the_index_at_once(
    vault_folder: Path, tmp_path: Path
) -> None:
    backend = FolderBackend(vault_folder, index_location=tmp_path / "index.sqlite3")
    async with backend.running():
        assert await backend.wait_until_indexed()
        await backend.write_note("New 日本/c.md", "a #gamma zeppelin\n")
        assert [h["filename"] for h in await backend.search_simple("zeppelin", 10)] == [
            "New 日本/c.md"
        ]
        assert "gamma" in [t["name"] for t in await backend.list_tags()]
        await backend.move_note("New 日本/c.md", "Moved/c.md", overwrite=False)
        assert [h["filename"] for h in await backend.search_simple("zeppelin", 10)] == [
            "Moved/c.md"
        ]
        await backend.delete_note("Moved/c.md", permanent=True)
        assert await backend.search_simple("zeppelin", 10) == []
        assert "gamma" not in [t["name"] for t in await backend.list_tags()]


async def test_notes_created_and_removed_behind_vaultgates_back_are_seen(
    vault_folder: Path, tmp_path: Path
) -> None:
    backend = FolderBackend(vault_folder, index_location=tmp_path / "index.sqlite3")
    async with backend.running():
        assert await backend.wait_until_indexed()
        (vault_folder / "Folder #1" / "made elsewhere.md").write_text(
            "an airship #delta\n", encoding="utf-8"
        )

        async def found() -> bool:
            hits = await backend.search_simple("airship", 10)
            listed = await backend.list_files_below("")
            tags = [t["name"] for t in await backend.list_tags()]
            return (
                [h["filename"] for h in hits] == ["Folder #1/made elsewhere.md"]
                and listed is not None
                and "Folder #1/made elsewhere.md" in listed
                and "delta" in tags
            )

        await _eventually(found)
        (vault_folder / "b.md").unlink()

        async def gone() -> bool:
            listed = await backend.list_files_below("")
            return listed is not None and "b.md" not in listed

        await _eventually(gone)
        assert await backend.search_simple("second", 10) == []


@pytest.mark.parametrize("indexed", [True, False], ids=["index", "no-index"])
async def test_the_backend_answers_as_the_engine_with_or_without_its_index(
    awkward_vault: Path, tmp_path: Path, indexed: bool
) -> None:
    # no index: its location is a file's child, which cannot be created
    (tmp_path / "a file").write_text("", encoding="utf-8")
    location = tmp_path / ("index.sqlite3" if indexed else "a file/index.sqlite3")
    backend = FolderBackend(awkward_vault, index_location=location)
    vault = Vault(awkward_vault)
    async with backend.running():
        assert await backend.wait_until_indexed() is indexed
        for query in QUERIES:
            got = await backend.search_simple(query, 20)
            assert _materialised(got) == _materialised(
                engine_search(vault, SimpleSearchOptions.for_version(BEHAVIOUR, query, 20))
            ), query


async def test_an_index_that_cannot_be_opened_leaves_searches_working(
    vault_folder: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    (tmp_path / "a file").write_text("", encoding="utf-8")
    backend = FolderBackend(vault_folder, index_location=tmp_path / "a file" / "index.sqlite3")
    async with backend.running():
        assert not await backend.wait_until_indexed()
        hits = await backend.search_simple("note", 10)
    assert sorted(h["filename"] for h in hits) == ["Folder #1/a 100%.md", "b.md"]
    assert "cannot be opened" in caplog.text


async def test_a_failure_while_running_comes_out_as_itself(
    vault_folder: Path, tmp_path: Path
) -> None:
    backend = FolderBackend(vault_folder, index_location=tmp_path / "index.sqlite3")

    async def serve_and_fail() -> None:
        async with backend.running():
            assert await backend.wait_until_indexed()
            raise LookupError("the server failed")

    with pytest.raises(LookupError, match="the server failed"):
        await serve_and_fail()
    assert await backend.search_simple("second", 10) != []  # scanning, the index closed


class _Gate:
    """Holds a worker thread at a function until the test opens it."""

    def __init__(self) -> None:
        self.reached, self.opened = threading.Event(), threading.Event()

    def wrap(self, function: Callable[..., T]) -> Callable[..., T]:
        def held(*args: Any, **kwargs: Any) -> T:
            self.reached.set()
            self.opened.wait(timeout=30)
            return function(*args, **kwargs)

        return held


async def _listing_at_start(backend: FolderBackend, gate: _Gate) -> tuple[bool, list[str] | None]:
    """Enter ``running`` while ``gate`` holds the start's work; a listing asked at once: was
    it answered before the gate opened, and what it answered."""
    answered: list[list[str] | None] = []
    async with backend.running(), anyio.create_task_group() as tasks:
        await anyio.to_thread.run_sync(gate.reached.wait, 30)

        async def listing() -> None:
            answered.append(await backend.list_files_below(""))

        tasks.start_soon(listing)
        await anyio.sleep(0.2)  # a listing that does not wait would be answered by now
        early = bool(answered)
        gate.opened.set()
    return early, answered[0]


async def test_the_server_starts_before_the_folder_is_walked_and_calls_wait_for_it(
    vault_folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    gate = _Gate()
    monkeypatch.setattr(indexing, "scan_folder", gate.wrap(indexing.scan_folder))
    backend = FolderBackend(vault_folder, index_location=tmp_path / "index.sqlite3")

    early, listed = await _listing_at_start(backend, gate)

    assert not early
    assert listed == ["Folder #1/a 100%.md", "b.md"]


@pytest.mark.parametrize("existed", [True, False], ids=["existing-index", "first-build"])
async def test_calls_wait_for_an_existing_index_to_catch_up_but_not_for_a_first_build(
    vault_folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, existed: bool
) -> None:
    location = tmp_path / "index.sqlite3"
    if existed:
        built = FolderBackend(vault_folder, index_location=location)
        async with built.running():
            assert await built.wait_until_indexed()
        (vault_folder / "c.md").write_text("made while vaultgate was not running\n", "utf-8")
    gate = _Gate()
    monkeypatch.setattr(indexing.VaultIndex, "sync", gate.wrap(indexing.VaultIndex.sync))
    backend = FolderBackend(vault_folder, index_location=location)

    early, listed = await _listing_at_start(backend, gate)

    assert early is not existed
    assert listed is not None
    assert "b.md" in listed
    assert ("c.md" in listed) is existed


async def test_a_first_build_says_so_in_one_notice_and_a_catch_up_does_not(
    vault_folder: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger=NOTICES)
    location = tmp_path / "index.sqlite3"
    for _ in range(2):
        backend = FolderBackend(vault_folder, index_location=location)
        async with backend.running():
            assert await backend.wait_until_indexed()

    assert [r for r in caplog.records if r.levelno >= logging.WARNING] == []  # a normal start
    said = [r for r in caplog.records if r.name == NOTICES]
    assert [r.getMessage().split(" in ")[0] for r in said] == [
        f"vault index built for {vault_folder}: 2 notes"
    ]


async def test_an_up_to_date_index_scores_a_search_without_opening_the_notes(
    vault_folder: Path, tmp_path: Path, opened: list[str]
) -> None:
    backend = FolderBackend(vault_folder, index_location=tmp_path / "index.sqlite3")
    async with backend.running():
        await backend.wait_until_settled()
        opened.clear()
        hits = await backend.search_simple("note", 100)
        assert len(hits) >= 2
        assert opened == []
        contexts = [m["context"] for m in hits[0]["matches"]]  # its page shows it: read now
    assert opened == [os.path.join(vault_folder, hits[0]["filename"])]
    assert all("note" in context.lower() for context in contexts)


async def test_a_later_start_loads_the_index_s_texts_so_a_search_reads_neither_file_nor_index(
    vault_folder: Path, tmp_path: Path, opened: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    an_hour_ago = time.time() - 3600  # so that the second start reads no note again
    for note in vault_folder.rglob("*.md"):
        os.utime(note, (an_hour_ago, an_hour_ago))
    location = tmp_path / "index.sqlite3"
    backend = FolderBackend(vault_folder, index_location=location)
    async with backend.running():
        assert await backend.wait_until_indexed()  # the first build
    asked: list[str] = []
    texts = VaultIndex.texts

    def recording_texts(index: VaultIndex, paths: Sequence[str]) -> list[IndexedText] | None:
        asked.extend(paths)
        return texts(index, paths)

    monkeypatch.setattr(VaultIndex, "texts", recording_texts)
    backend = FolderBackend(vault_folder, index_location=location)
    async with backend.running():
        await backend.wait_until_settled()  # the texts read from the index file
        assert sorted(asked) == ["Folder #1/a 100%.md", "b.md"]
        asked.clear()
        opened.clear()
        hits = await backend.search_simple("note", 100)
        assert len(hits) == 2
        assert asked == opened == []


async def test_the_index_finds_the_notes_with_protection_tags_as_the_search_does(
    vault_folder: Path, tmp_path: Path
) -> None:
    (vault_folder / "Folder #1" / "🙈 hidden.md").write_text(
        "---\nTags: [x, '#MCP-Hidden']\n---\nhidden #inner\n", encoding="utf-8"
    )
    (vault_folder / "ro 100%.md").write_text("---\ntag: mcp-readonly\n---\n", encoding="utf-8")
    (vault_folder / "prompt.md").write_text("---\ntags: mcp-tools-prompt\n---\n", encoding="utf-8")
    # the tag past the head's first 4 KB, in CRLF; and 'mcp-' in the text only
    long_yaml = "".join(f"k{i}: {'x' * 60}\r\n" for i in range(80))
    (vault_folder / "long 日本.md").write_text(
        f"---\r\n{long_yaml}tags: [MCP-Protected]\r\n---\r\nbody\r\n", encoding="utf-8"
    )
    (vault_folder / "plain.md").write_text("mentions mcp-hidden in the text\n", encoding="utf-8")
    # the spellings Obsidian reads beyond a plain `tags` list (issue 23)
    spelled = {
        "TaGs key.md": "---\nTaGs: mcp-hidden\n---\n",
        "TAG string.md": '---\n# a comment\nTAG: "mcp-hidden"\n---\n',
        "escaped.md": '---\ntags: ["\\x6dcp-hidden"]\n---\nbody\n',
        "inline 🙈.md": "---\ntitle: x\n---\n日本 #mcp-hidden here\n",
        "inline nested.md": "text #MCP-Readonly/x\r\n",
        "nested.md": "---\ntags: [mcp-hidden/drafts]\n---\n",
        "fenced.md": "```\n#mcp-hidden\n```\nand `#mcp-readonly`\n",
    }
    for name, text in spelled.items():
        (vault_folder / name).write_bytes(text.encode("utf-8"))
    unindexed = FolderBackend(vault_folder)
    searched = marked_from_rows(await unindexed.search_jsonlogic(MARKED_QUERY))  # the plugin's
    scanned = await unindexed.marked_notes()  # no index: the heads of the notes
    backend = FolderBackend(vault_folder, index_location=tmp_path / "index.sqlite3")
    async with backend.running():
        assert await backend.wait_until_indexed()
        indexed = await backend.marked_notes()
        await backend.write_note("b.md", "---\ntags: [mcp-protected]\n---\nnow protected\n")
        after_write = await backend.marked_notes()

    assert indexed == searched == scanned
    assert sorted(indexed) == [
        "Folder #1/🙈 hidden.md",
        "TAG string.md",
        "TaGs key.md",
        "escaped.md",
        "inline nested.md",
        "inline 🙈.md",
        "long 日本.md",
        "nested.md",
        "ro 100%.md",
    ]
    assert indexed["inline nested.md"].tags == {"mcp-readonly"}
    assert sorted(after_write) == sorted([*indexed, "b.md"])


async def test_a_start_sweeps_old_temporary_files(vault_folder: Path, tmp_path: Path) -> None:
    old = vault_folder / "Folder #1" / ".a 100%.md.vaultgate-0123abcd.tmp"
    fresh = vault_folder / ".b.md.vaultgate-89abcdef.tmp"
    for leftover in (old, fresh):
        leftover.write_text("half a note", encoding="utf-8")
    two_hours_ago = time.time() - 7200
    os.utime(old, (two_hours_ago, two_hours_ago))
    backend = FolderBackend(vault_folder, index_location=tmp_path / "index.sqlite3")
    async with backend.running():
        await backend.wait_until_settled()

    assert not old.exists()
    assert fresh.exists()  # a write may still be under way in another process


@pytest.mark.parametrize(
    ("done", "total", "share"),
    [(0, 0, None), (0, 7, 0), (3, 7, 42), (7, 7, 100), (9, 7, 100)],
)
def test_a_first_build_is_told_in_percent_never_in_notes(
    done: int, total: int, share: int | None
) -> None:
    # a count of notes would count the hidden and denied ones too (issue 36)
    assert indexing.built_share(done, total) == share
