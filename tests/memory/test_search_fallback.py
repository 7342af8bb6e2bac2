"""mem_search's fallbacks when fewer observations than the limit match: first any word, then
(with the semantic extra) meaning, each under its label; filters, deletes and budgets hold.

Meaning runs on the real model shipped by the extra; tests that need it skip without it. The
store's vectors are checked in its own file through a second connection."""

from __future__ import annotations

import socket
import sqlite3
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from vaultgate.memory.meaning import Meaning
from vaultgate.memory.models import SearchOptions
from vaultgate.memory.render import (
    BY_MEANING_LABEL,
    DEFAULT_MAX_TOKENS,
    SOME_WORDS_LABEL,
    render_search,
)
from vaultgate.memory.store import MemoryStore
from vaultgate.paging import DEFAULT_RESPONSE_BUDGET, estimate_tokens
from vaultgate.semantic.embedder import load_embedder, why_unavailable

from .conftest import FakeClock

needs_extra = pytest.mark.skipif(
    why_unavailable() is not None, reason=f"semantic extra: {why_unavailable()}"
)

KEEPER = ("灯台 Lighthouse keeper rota 🗼", "Who keeps the lighthouse each night of the week.")
PAINT = ("Lighthouse paint order", "Forty litres of white paint, ordered from the harbour shop.")
CARETAKER = (
    "Coastal beacon tower caretaker",
    "The man who tends the beacon tower on the coast changes shift at dusk.",
)
TAXES = ("Quarterly filing", "The accountant needs the receipts before the 15th.")


def without_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    """As if the semantic extra were not installed: its model package cannot be found."""
    monkeypatch.setitem(sys.modules, "wordllama", None)


def rendered(store: MemoryStore, query: str, **options: Any) -> str:
    result = store.search(query, SearchOptions(**options))
    return render_search(
        result, query=query, filters="", detail_level="standard", max_tokens=DEFAULT_MAX_TOKENS
    )


@pytest.fixture
def shore(file_store: MemoryStore) -> Callable[..., int]:
    def saver(pair: tuple[str, str], **options: Any) -> int:
        return file_store.save(*pair, project="shore", **options).observation.id

    return saver


@needs_extra
def test_every_word_then_any_word_then_meaning_each_under_its_label(
    file_store: MemoryStore, shore: Callable[..., int]
) -> None:
    keeper, paint, caretaker = shore(KEEPER), shore(PAINT), shore(CARETAKER)
    taxes = shore(TAXES)

    result = file_store.search("lighthouse keeper", SearchOptions(project="shore"))
    text = rendered(file_store, "lighthouse keeper", project="shore")

    assert [o.id for o in result.observations] == [keeper]
    assert [o.id for o in result.some_words] == [paint]
    assert [o.id for o in result.by_meaning][:1] == [caretaker]
    assert taxes not in [o.id for o in result.by_meaning]
    assert result.total == 1  # the fallbacks are never counted as matches
    assert text.index(f"#{keeper} ") < text.index(SOME_WORDS_LABEL) < text.index(f"#{paint} ")
    assert text.index(f"#{paint} ") < text.index(BY_MEANING_LABEL) < text.index(f"#{caretaker} ")
    assert f"{SOME_WORDS_LABEL}\n[2] #{paint} " in text
    assert f"{BY_MEANING_LABEL}\n[3] #{caretaker} " in text


def test_a_full_page_of_matches_has_no_fallback(
    file_store: MemoryStore, shore: Callable[..., int]
) -> None:
    shore(KEEPER)
    shore(PAINT)

    result = file_store.search("lighthouse", SearchOptions(limit=2))

    assert len(result.observations) == 2
    assert (result.some_words, result.by_meaning) == ([], [])


def test_without_the_extra_words_fall_back_and_no_meaning_section_appears(
    monkeypatch: pytest.MonkeyPatch, db_path: str, clock: FakeClock
) -> None:
    without_extra(monkeypatch)
    store = MemoryStore.open(db_path, clock=clock)
    try:
        keeper = store.save(*KEEPER).observation.id
        paint = store.save(*PAINT).observation.id
        store.save(*CARETAKER)

        result = store.search("lighthouse keeper")
        text = rendered(store, "lighthouse keeper")
        assert store.fill_vectors() == 0
    finally:
        store.close()

    assert [o.id for o in result.observations] == [keeper]
    assert [o.id for o in result.some_words] == [paint]
    assert result.by_meaning == []
    assert SOME_WORDS_LABEL in text
    assert BY_MEANING_LABEL not in text


@needs_extra
def test_a_one_word_query_goes_straight_to_meaning(
    file_store: MemoryStore, shore: Callable[..., int]
) -> None:
    shore(KEEPER)
    caretaker = shore(CARETAKER)

    result = file_store.search("lighthouse")

    assert result.some_words == []
    assert caretaker in [o.id for o in result.by_meaning]


@needs_extra
def test_deleted_and_other_project_observations_never_appear(
    file_store: MemoryStore, shore: Callable[..., int], raw: sqlite3.Connection
) -> None:
    shore(KEEPER)
    soft = shore(CARETAKER)
    hard = shore(("Beacon tower caretaker's log", "The tower's caretaker lit the beacon at dusk."))
    elsewhere = file_store.save(*CARETAKER, project="inland").observation.id
    other_words = file_store.save(*PAINT, project="inland").observation.id
    file_store.delete(soft)
    file_store.delete(hard, hard=True)

    result = file_store.search("lighthouse keeper", SearchOptions(project="shore"))

    listed = [o.id for o in (*result.observations, *result.some_words, *result.by_meaning)]
    assert not {soft, hard, elsewhere, other_words} & set(listed)
    vectors = {row[0] for row in raw.execute("SELECT id FROM observation_vectors")}
    assert soft not in vectors  # dropped with the text, not just hidden
    assert hard not in vectors


@needs_extra
def test_vectors_follow_saves_and_updates_and_record_their_model(
    file_store: MemoryStore, shore: Callable[..., int], raw: sqlite3.Connection
) -> None:
    paint = shore(PAINT)
    before = raw.execute("SELECT model, vector FROM observation_vectors WHERE id = ?", (paint,))
    model, vector = before.fetchone()

    file_store.update(paint, content="Ten litres of 赤 red paint for the door 🚪")
    after = raw.execute("SELECT model, vector FROM observation_vectors WHERE id = ?", (paint,))
    new_model, new_vector = after.fetchone()

    embedder = load_embedder()
    assert embedder is not None
    assert model == new_model == embedder.model
    assert len(vector) == len(new_vector) == embedder.dimensions * 2  # float16
    assert new_vector != vector


@needs_extra
def test_observations_saved_before_the_extra_are_embedded_at_quiet_moments(
    monkeypatch: pytest.MonkeyPatch, db_path: str, clock: FakeClock
) -> None:
    with monkeypatch.context() as blocked:
        without_extra(blocked)
        old = MemoryStore.open(db_path, clock=clock)
        ids = [
            old.save(f"{CARETAKER[0]} {n} 📝", f"{CARETAKER[1]}\r\nShift {n}.").observation.id
            for n in range(5)
        ]
        old.close()
    store = MemoryStore.open(db_path, clock=clock)
    check = sqlite3.connect(db_path, isolation_level=None)
    try:
        embedded_before = check.execute("SELECT count(*) FROM observation_vectors").fetchone()
        assert store.fill_vectors(batch=3) == 3
        store.when_idle()
        assert store.fill_vectors() == 0
        assert not store.vectors_pending
        related = store.search("lighthouse keeper", SearchOptions(limit=10)).by_meaning
    finally:
        store.close()
        check.close()

    assert embedded_before == (0,)
    assert set(ids) <= {o.id for o in related}


@needs_extra
@pytest.mark.parametrize("max_tokens", [DEFAULT_MAX_TOKENS, 300])
def test_the_fallbacks_stay_within_the_answer_budget(
    file_store: MemoryStore, max_tokens: int
) -> None:
    long_text = "The beacon tower caretaker wrote a very long log entry. " * 60
    file_store.save("Lighthouse keeper rota", "Who keeps it.")
    for n in range(12):
        file_store.save(f"Lighthouse paint {n}", long_text)
        file_store.save(f"Tower caretaker diary {n} 🗼", long_text)

    result = file_store.search("lighthouse keeper", SearchOptions(limit=30))
    text = render_search(
        result,
        query="lighthouse keeper",
        filters="",
        detail_level="full",
        max_tokens=max_tokens,
    )

    assert result.some_words
    assert result.by_meaning
    assert estimate_tokens(text) <= max_tokens
    assert len(text) <= max(DEFAULT_RESPONSE_BUDGET, max_tokens * 4)
    assert "Token budget:" in text


@pytest.fixture
def blocked_network(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    attempts: list[Any] = []

    def refuse(*args: Any, **kwargs: Any) -> Any:
        attempts.append(args)
        raise OSError("network blocked by the test")

    for owner, name in (
        (socket.socket, "connect"),
        (socket.socket, "connect_ex"),
        (socket, "create_connection"),
        (socket, "getaddrinfo"),
    ):
        monkeypatch.setattr(owner, name, refuse)
    return attempts


@needs_extra
def test_searching_memory_by_meaning_attempts_no_network(
    blocked_network: list[Any], tmp_path: Path, clock: FakeClock
) -> None:
    store = MemoryStore.open(str(tmp_path / "m.db"), clock=clock, meaning=Meaning())
    try:
        caretaker = store.save(*CARETAKER).observation.id
        related = store.search("lighthouse keeper").by_meaning
    finally:
        store.close()

    assert [o.id for o in related] == [caretaker]
    assert blocked_network == []
