"""The folder's simple search answers what the engine's full scan answers, index or not.

The folder scores notes on folded text and builds a hit's matches only when they are read
(``folder/search.py``); the engine's matcher builds everything with ``re.IGNORECASE``. On an
awkward vault (emoji and CJK beside matches, KELVIN SIGN, sharp s, dotless i, CRLF, names
with '#', '%' and spaces, a note over 1 MB) every answer must be the same, in the same order.
"""

from __future__ import annotations

import gc
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.folder.conftest import BIG

from vaultgate.engine.behaviour import Behaviour
from vaultgate.engine.index import IndexedText, VaultIndex
from vaultgate.engine.simple_search import SimpleSearchOptions
from vaultgate.engine.vault import Vault
from vaultgate.folder.backend import FOLDER_SEMANTICS
from vaultgate.folder.search import (
    LazyMatches,
    NoteTexts,
    SearchedTexts,
    collector_paused,
    engine_search,
    scored_search,
    unsafe_characters,
)
from vaultgate.obsidian.models import SimpleHit
from vaultgate.vault.search import SimpleHit as ShownHit

BEHAVIOUR = Behaviour.for_version(str(FOLDER_SEMANTICS))

QUERIES = [
    "project",
    "PROJECT",
    "project plan",
    "kelvin",
    "\u212a",
    "k",
    "straße",
    "STRASSE",
    "ẞ",
    "ß",
    "ı",
    "i̇stanbul",
    "istanbul",
    "σ",
    "ς",
    "σίσυφος",
    "日本",
    "🚀",
    "😀project",
    "aa",
    "aaa",
    "crlf",
    "plan 日本",
    "#1",
    "100%",
    "zebra-absent",
    "meeting",
    "a",
    "nul\x00project",
    "\x00",
]


def _materialised(hits: list[SimpleHit]) -> list[dict[str, object]]:
    return [dict(hit, matches=list(hit.get("matches", []))) for hit in hits]


def _options(query: str, context_length: int = 20) -> SimpleSearchOptions:
    return SimpleSearchOptions.for_version(BEHAVIOUR, query, context_length)


@pytest.mark.parametrize("query", QUERIES)
def test_the_scored_pass_answers_as_the_engine_scan(awkward_vault: Path, query: str) -> None:
    vault = Vault(awkward_vault)
    fast = scored_search(vault, NoteTexts(awkward_vault), _options(query))
    assert fast is not None
    assert _materialised(fast) == _materialised(engine_search(vault, _options(query)))


@pytest.fixture
def index(awkward_vault: Path, tmp_path: Path) -> Iterator[VaultIndex]:
    with VaultIndex(awkward_vault, location=tmp_path / "index.sqlite3") as opened:
        opened.sync()
        yield opened


def _indexed(vault: Vault, index: VaultIndex, query: str) -> list[SimpleHit] | None:
    """The folder's search on the index's candidates and texts, as the backend runs it."""
    candidates = index.candidates(query)
    texts = index.texts(candidates or [])
    assert texts is not None
    indexed = {text.path: text for text in texts}
    return scored_search(vault, NoteTexts(vault.vault), _options(query), candidates, indexed)


def _engine_on_candidates(vault: Vault, index: VaultIndex, query: str) -> list[SimpleHit]:
    candidates = index.candidates(query)
    return engine_search(vault, _options(query), candidates)


@pytest.mark.parametrize("query", QUERIES)
def test_scored_on_the_index_s_text_it_answers_as_the_engine_scan(
    awkward_vault: Path, index: VaultIndex, query: str
) -> None:
    vault = Vault(awkward_vault)
    fast = _indexed(vault, index, query)
    assert fast is not None
    assert _materialised(fast) == _materialised(engine_search(vault, _options(query)))


def test_with_the_index_only_the_notes_a_page_shows_are_opened(
    awkward_vault: Path, index: VaultIndex, opened: list[str]
) -> None:
    hits = _indexed(Vault(awkward_vault), index, "project")
    assert hits is not None
    assert len(hits) >= 5
    assert opened == []  # scored on the index's text: every note still has its indexed stat
    matches = hits[0].get("matches", [])
    assert len(matches) > 0
    assert opened == [os.path.join(awkward_vault, hits[0]["filename"])]


def test_a_note_changed_between_its_score_and_its_page_shows_and_counts_its_new_text(
    awkward_vault: Path, index: VaultIndex
) -> None:
    hits = _indexed(Vault(awkward_vault), index, "project")
    assert hits is not None
    crlf = next(hit for hit in hits if hit["filename"] == "CRLF note.md")  # 2 matches indexed
    (awkward_vault / "CRLF note.md").write_text("🚀project\r\n" * 5, encoding="utf-8")
    shown = ShownHit(crlf["filename"], crlf.get("score", 0.0), crlf.get("matches", []), 20)
    rendered = shown.render(3, with_offsets=True)
    assert rendered["matchCount"] == 5
    assert [match["start"] for match in rendered["matches"]] == [2, 13, 24]


def test_a_note_changed_since_it_was_indexed_is_scored_on_its_text_on_disk(
    awkward_vault: Path, index: VaultIndex
) -> None:
    vault = Vault(awkward_vault)
    # more matches than any other note now (the big one has 18,000), where the index holds
    # two; and no match left in another
    (awkward_vault / "CRLF note.md").write_text("project\r\n" * 20_000, encoding="utf-8")
    (awkward_vault / "NUL inside.md").write_text("gone\n", encoding="utf-8")
    fast = _indexed(vault, index, "project")
    assert fast is not None
    assert fast[0]["filename"] == "CRLF note.md"
    assert "NUL inside.md" not in [hit["filename"] for hit in fast]
    assert _materialised(fast) == _materialised(_engine_on_candidates(vault, index, "project"))


_INDEX_ALPHABET = "aAkK\u212asSſßẞıİiIσςΣ日本🚀😀 \n\r#%-\x00"


@settings(max_examples=100, deadline=None)
@given(
    texts=st.lists(st.text(alphabet=_INDEX_ALPHABET, max_size=40), min_size=1, max_size=5),
    edits=st.lists(st.text(alphabet=_INDEX_ALPHABET, max_size=40), max_size=5),
    query=st.text(alphabet=_INDEX_ALPHABET, min_size=1, max_size=6),
)
def test_random_vaults_edited_after_indexing_answer_as_the_engine(
    tmp_path_factory: pytest.TempPathFactory, texts: list[str], edits: list[str], query: str
) -> None:
    """Some notes are rewritten after the index read them (new text, new size or not): each is
    scored on the text on disk, the others on the index's."""
    root = tmp_path_factory.mktemp("random")
    name = query.replace("\x00", "").strip()[:2]
    notes = [root / f"n{n} {name}.md" for n in range(len(texts))]
    for note, text in zip(notes, texts, strict=True):
        note.write_text(text, encoding="utf-8", newline="")
    with VaultIndex(root, location=root.parent / f"{root.name}.sqlite3") as index:
        index.sync()
        for note, text in zip(notes, edits, strict=False):
            note.write_text(text, encoding="utf-8", newline="")
            os.utime(note, ns=(0, note.stat().st_mtime_ns + 1))  # a new stat, whatever the size
        vault = Vault(root)
        options = _options(query, 3)
        candidates = index.candidates(query)
        texts = index.texts(candidates or []) or []
        indexed = {text.path: text for text in texts}
        fast = scored_search(vault, NoteTexts(root), options, candidates, indexed)
        assert fast is not None
        assert _materialised(fast) == _materialised(engine_search(vault, options, candidates))


def test_matches_are_built_only_when_read(awkward_vault: Path) -> None:
    vault = Vault(awkward_vault)
    hits = scored_search(vault, NoteTexts(awkward_vault), _options("project"))
    assert hits is not None
    lazies = [hit.get("matches") for hit in hits]
    assert all(isinstance(m, LazyMatches) and not m.built for m in lazies)
    first = lazies[0]
    assert isinstance(first, LazyMatches)
    assert len(first) > 0
    assert first.built
    assert not any(isinstance(m, LazyMatches) and m.built for m in lazies[1:])


@pytest.mark.parametrize("query", QUERIES)
@pytest.mark.parametrize("scored_on", ["files", "index"])
def test_a_page_shows_what_every_match_would_show_building_only_those(
    awkward_vault: Path, tmp_path: Path, query: str, scored_on: str
) -> None:
    vault = Vault(awkward_vault)
    if scored_on == "index":
        with VaultIndex(awkward_vault, location=tmp_path / "index.sqlite3") as index:
            index.sync()
            hits = _indexed(vault, index, query)
    else:
        hits = scored_search(vault, NoteTexts(awkward_vault), _options(query))
    assert hits is not None
    full = {
        hit["filename"]: hit.get("matches", []) for hit in engine_search(vault, _options(query))
    }
    for hit in hits:
        lazy = hit.get("matches")
        assert isinstance(lazy, LazyMatches)
        for shown in (1, 3, 20):
            score = hit.get("score", 0.0)
            paged = ShownHit(hit["filename"], score, lazy, 20).render(shown, with_offsets=True)
            every = ShownHit(hit["filename"], score, full[hit["filename"]], 20)
            assert paged == every.render(shown, with_offsets=True)
        assert not lazy.built


def test_a_hit_keeps_the_text_it_was_scored_on(awkward_vault: Path) -> None:
    vault = Vault(awkward_vault)
    hits = scored_search(vault, NoteTexts(awkward_vault), _options("kelvin"))
    assert hits is not None
    assert len(hits) == 1
    (awkward_vault / "Kelvin.md").write_text("no longer\n", encoding="utf-8")
    matches = list(hits[0].get("matches", []))
    assert [m["match"]["source"] for m in matches] == ["filename", "content"]
    assert matches[1]["context"].startswith("Temperature in \u212aelvin")


def test_a_note_changed_on_disk_is_read_again(awkward_vault: Path) -> None:
    vault, texts = Vault(awkward_vault), NoteTexts(awkward_vault)
    assert scored_search(vault, texts, _options("zeppelin")) == []
    (awkward_vault / "Empty.md").write_text("a zeppelin passes\n", encoding="utf-8")
    found = scored_search(vault, texts, _options("zeppelin"))
    assert found is not None
    assert [hit["filename"] for hit in found] == ["Empty.md"]


def test_the_text_cache_keeps_under_its_limit(awkward_vault: Path) -> None:
    texts = NoteTexts(awkward_vault, limit=200)
    first = texts.text("Kelvin.md")
    texts.text(BIG)  # over the limit alone: kept until the next read, then dropped
    assert texts.text("Kelvin.md") == first
    assert texts.text("Sigma.md").startswith("ΣΊΣΥΦΟΣ")


_ALPHABET = "aAkK\u212asSſßẞıİiIσςΣ日本🚀😀 \n\r#%-"


@settings(max_examples=150, deadline=None)
@given(
    texts=st.lists(st.text(alphabet=_ALPHABET, max_size=60), min_size=1, max_size=5),
    query=st.text(alphabet=_ALPHABET, min_size=1, max_size=6),
)
def test_random_texts_and_queries_answer_as_the_engine(
    tmp_path_factory: pytest.TempPathFactory, texts: list[str], query: str
) -> None:
    root = tmp_path_factory.mktemp("random")
    for n, text in enumerate(texts):
        (root / f"n{n} {query.strip()[:2]}.md").write_text(text, encoding="utf-8")
    vault = Vault(root)
    fast = scored_search(vault, NoteTexts(root), _options(query, 3))
    assert fast is not None
    assert _materialised(fast) == _materialised(engine_search(vault, _options(query, 3)))


def test_no_ascii_character_needs_the_engines_matcher() -> None:
    # scored_search skips the unsafe-character check for ASCII queries on this ground
    assert not any(char.isascii() for char in unsafe_characters())


def test_the_text_cache_reads_whole_notes_as_the_vault_does(awkward_vault: Path) -> None:
    (awkward_vault / "Bad bytes.md").write_bytes(b"caf\xc3\xa9 \xff\xfe project\r\n")
    vault, texts = Vault(awkward_vault), NoteTexts(awkward_vault)
    for path in [BIG, "Bad bytes.md", "CRLF note.md", "Empty.md", "100% done/日本語 notes.md"]:
        assert texts.text(path) == vault.read_text(path), path
    assert len(texts.text(BIG)) > 1_000_000


def test_the_texts_in_memory_follow_what_the_index_stores(tmp_path: Path) -> None:
    root = tmp_path / "vault"
    root.mkdir()
    for name in ["a.md", "b 100%.md", "日本.md"]:
        (root / name).write_text(f"{name} project\r\n", encoding="utf-8")
    searched = SearchedTexts()
    with VaultIndex(root, location=tmp_path / "index.sqlite3", mirror=searched) as index:
        index.sync()
        paths = ["a.md", "b 100%.md", "日本.md"]
        assert searched.found(paths) == {text.path: text for text in index.texts(paths) or []}
        (root / "a.md").write_text("changed\n", encoding="utf-8")
        (root / "b 100%.md").unlink()
        index.refresh(["a.md", "b 100%.md"])
        held = searched.found(paths)
        assert sorted(held) == ["a.md", "日本.md"]
        assert held["a.md"].searched == "a\n\nchanged\n"
        assert held["a.md"] == (index.texts(["a.md"]) or [None])[0]


@pytest.mark.parametrize("query", QUERIES)
def test_scored_on_the_texts_in_memory_it_answers_as_the_engine_scan(
    awkward_vault: Path, tmp_path: Path, query: str
) -> None:
    """As the backend searches: the index's texts read in place, not copied per search."""
    vault, searched = Vault(awkward_vault), SearchedTexts()
    with VaultIndex(awkward_vault, location=tmp_path / "in.sqlite3", mirror=searched) as index:
        index.sync()
        candidates = index.candidates(query)
        assert searched.get("no such note.md") is None
        fast = scored_search(vault, NoteTexts(vault.vault), _options(query), candidates, searched)
    assert fast is not None
    assert _materialised(fast) == _materialised(engine_search(vault, _options(query)))


def test_the_collector_is_paused_while_hits_are_made_and_resumed_only_by_who_paused_it() -> None:
    assert gc.isenabled()
    with collector_paused():
        assert not gc.isenabled()
        with collector_paused():  # another search meanwhile
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()


def test_the_texts_in_memory_keep_under_their_limit_and_never_go_back_in_time() -> None:
    searched = SearchedTexts(limit=10)
    old, new = IndexedText("a.md", (1, 1), "a\n\nold"), IndexedText("a.md", (2, 1), "a\n\nnew")
    searched.stored([new])
    searched.fill([old])  # read from the file before the index stored the new one
    assert searched.found(["a.md"]) == {"a.md": new}
    assert searched.missing(["b.md", "a.md", "c 100%.md"]) == ["b.md", "c 100%.md"]
    assert len(searched) == 1
    searched.stored([IndexedText("b.md", (1, 1), "b\n\n123456")])  # 17 characters in all
    assert searched.found(["a.md", "b.md"]) == {"b.md": IndexedText("b.md", (1, 1), "b\n\n123456")}
    assert not searched.full()


def test_the_texts_in_memory_drop_the_oldest_stored_first() -> None:
    # 10 characters each: a limit of 35 holds three
    names = ["a.md", "b 100%.md", "#c.md", "日本.md", "🚀 e.md", "cafe\u0301.md"]
    texts = {name: IndexedText(name, (1, 10), f"{n:03d}\n\n12345") for n, name in enumerate(names)}
    searched = SearchedTexts(limit=35)
    searched.stored([texts[name] for name in names[:3]])
    assert searched.missing(names) == names[3:]
    searched.stored([texts["a.md"]])  # stored again: the newest now
    searched.stored([texts["日本.md"]])
    assert searched.missing(names) == ["b 100%.md", "🚀 e.md", "cafe\u0301.md"]
    searched.fill([texts[name] for name in names[4:]])  # two more: the two oldest go
    assert searched.missing(names) == ["a.md", "b 100%.md", "#c.md"]
    assert len(searched) == 3
    searched.dropped(["日本.md"])
    searched.fill([texts["b 100%.md"]])  # room for it again: nothing else goes
    assert searched.missing(names) == ["a.md", "#c.md", "日本.md"]


def test_the_texts_in_memory_keep_a_long_run_of_stores_under_the_limit() -> None:
    # a build of many batches through a small cache: every text kept is among the newest
    searched = SearchedTexts(limit=1_000)
    paths = [f"n{n:05d} ✓.md" for n in range(5_000)]
    for start in range(0, len(paths), 500):
        searched.stored(
            [IndexedText(p, (1, 20), f"{p[:10]}\r\n{'x' * 13}") for p in paths[start : start + 500]]
        )
        newest = paths[max(0, start + 500 - 40) : start + 500]
        assert searched.missing(newest) == []
        assert searched.found(paths[: start + 500 - 40]) == {}
        assert len(searched) == 40


def test_the_text_cache_drops_the_least_recently_read_first(awkward_vault: Path) -> None:
    names = ["Kelvin.md", "Sigma.md", "CRLF note.md", "100% done/日本語 notes.md"]
    texts = NoteTexts(awkward_vault)
    sizes = {name: len(texts.text(name)) for name in names}
    # room for Kelvin.md, CRLF note.md and the note read last, not for Sigma.md as well
    limit = sizes["Kelvin.md"] + sizes["CRLF note.md"] + sizes[names[3]]
    texts = NoteTexts(awkward_vault, limit=limit)
    for name in names[:3]:
        texts.text(name)
    texts.text("Kelvin.md")  # read again: the most recent
    texts.text(names[3])  # Sigma.md, the least recently read, goes
    for name in ["Kelvin.md", "Sigma.md"]:  # same size, same mtime: only a read tells
        path, st = awkward_vault / name, (awkward_vault / name).stat()
        path.write_bytes(b"z" * st.st_size)
        os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert "z" not in texts.text("Kelvin.md")  # held: not read again
    assert set(texts.text("Sigma.md")) == {"z"}  # dropped: read again


def test_with_a_watcher_keeping_the_index_current_the_files_are_not_stat_ed(
    awkward_vault: Path, index: VaultIndex
) -> None:
    # the watcher's contract: a change on disk is seen after its delay (the backend's test);
    # until then the note is scored on the index's text, and its page shows the note as it is
    vault = Vault(awkward_vault)
    candidates = index.candidates("project")
    texts = index.texts(candidates or [])
    assert texts is not None
    indexed = {text.path: text for text in texts}
    (awkward_vault / "CRLF note.md").write_text("project\r\n" * 20_000, encoding="utf-8")
    options = _options("project")
    trusted = scored_search(
        vault, NoteTexts(vault.vault), options, candidates, indexed, watched=True
    )
    checked = scored_search(vault, NoteTexts(vault.vault), options, candidates, indexed)
    assert trusted is not None
    assert checked is not None
    assert checked[0]["filename"] == "CRLF note.md"  # the stat saw the change
    assert trusted[0]["filename"] != "CRLF note.md"  # two matches, as indexed
