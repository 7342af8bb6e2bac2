"""The folder's simple search answers what the engine's full scan answers, index or not.

The folder scores notes on folded text and builds a hit's matches only when they are read
(``folder/search.py``); the engine's matcher builds everything with ``re.IGNORECASE``. On an
awkward vault (emoji and CJK beside matches, KELVIN SIGN, sharp s, dotless i, CRLF, names
with '#', '%' and spaces, a note over 1 MB) every answer must be the same, in the same order.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.folder.conftest import BIG, NOTES

from vaultgate.engine.behaviour import Behaviour
from vaultgate.engine.simple_search import SimpleSearchOptions
from vaultgate.engine.vault import Vault
from vaultgate.folder.backend import FOLDER_SEMANTICS
from vaultgate.folder.search import (
    LazyMatches,
    NoteTexts,
    engine_search,
    scored_search,
    unsafe_characters,
)
from vaultgate.obsidian.models import SimpleHit

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


def test_preloading_fills_the_cache_to_its_share_and_drops_nothing(awkward_vault: Path) -> None:
    texts = NoteTexts(awkward_vault, limit=1_000)
    first = texts.text("Kelvin.md")
    small = sorted(set(NOTES) - {"Canvas.canvas", "Kelvin.md"})
    assert texts.preload(small, share=0.5) is True  # every small note fits in 500 characters
    assert texts.preload([BIG, "Sigma.md"], share=0.5) is False  # the big one fills it
    # the same size and mtime, other text: only a cached copy still reads as the first
    kelvin = awkward_vault / "Kelvin.md"
    stat = kelvin.stat()
    kelvin.write_bytes(b"x" * stat.st_size)
    os.utime(kelvin, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert texts.text("Kelvin.md") == first  # nothing was dropped for the rest
