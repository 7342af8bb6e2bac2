"""The note vectors beside the index (folder/meaning.py): a search embeds the few notes just
written before it answers, and never waits for a first build of many."""

from __future__ import annotations

import threading
from pathlib import Path

import anyio
import anyio.to_thread
import pytest

from vaultgate.engine.index import VaultIndex
from vaultgate.folder.local_search import answer
from vaultgate.folder.meaning import CATCH_UP_NOTES, MeaningIndex, NoteVectors
from vaultgate.semantic.embedder import load_embedder, why_unavailable

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.skipif(why_unavailable() is not None, reason=f"semantic: {why_unavailable()}"),
]

NAMES = ["Café #{n} ☕.md", "100% 日本語/メモ {n}.md", "Cafe\u0301 plans/Plan {n}.md"]


def vault_of(root: Path, notes: int) -> Path:
    for n in range(notes):
        path = root / NAMES[n % len(NAMES)].format(n=n)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(f"---\r\ntags: [t{n}]\r\n---\r\nNote {n}: espresso 🍵 抹茶\r\n".encode())
    return root


def meaning_over(index: VaultIndex) -> MeaningIndex:
    embedder = load_embedder()
    assert embedder is not None
    meaning = MeaningIndex(embedder)
    index.use_vector_model(embedder.model)
    meaning.loaded = True  # as keep_running leaves it once the stored vectors are read (none)
    return meaning


async def test_a_search_embeds_the_few_notes_waiting_before_it_answers(tmp_path: Path) -> None:
    vault = vault_of(tmp_path / "vault", 12)
    with VaultIndex(vault, location=tmp_path / "index.sqlite3") as index:
        index.sync()
        meaning = meaning_over(index)
        with anyio.fail_after(30):
            await meaning.catch_up(index)

        assert index.vector_counts() == (0, 12)
        assert len(meaning.vectors) == 12


async def test_a_search_during_a_first_build_answers_without_waiting_for_it(
    tmp_path: Path,
) -> None:
    vault = vault_of(tmp_path / "vault", CATCH_UP_NOTES + 1)
    with VaultIndex(vault, location=tmp_path / "index.sqlite3") as index:
        index.sync()
        meaning = meaning_over(index)
        # the first build holds the step until every note is embedded (minutes on a big
        # vault); here a thread holds it until the search has answered (10 s at most)
        holding, answered = threading.Event(), threading.Event()

        def build() -> None:
            with meaning._step:
                holding.set()
                answered.wait(10)

        builder = threading.Thread(target=build)
        builder.start()
        await anyio.to_thread.run_sync(holding.wait)
        try:
            await meaning.catch_up(index)
            still_building = builder.is_alive()
        finally:
            answered.set()
            builder.join()

        assert still_building  # the search did not wait for the build to end
        assert index.vector_counts() == (CATCH_UP_NOTES + 1, CATCH_UP_NOTES + 1)


def unit_rows(count: int, dimensions: int, seed: int) -> list[bytes]:
    import numpy as np

    rows = np.random.default_rng(seed).standard_normal((count, dimensions)).astype(np.float32)
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    return [row.astype("<f2").tobytes() for row in rows]


def test_vectors_held_find_each_note_whether_room_was_reserved_or_grown() -> None:
    import numpy as np

    dimensions, count = 16, 2_500  # more than one growth step
    names = [NAMES[n % len(NAMES)].format(n=n) for n in range(count)]
    blobs = unit_rows(count, dimensions, seed=7)
    reserved, grown = NoteVectors(dimensions), NoteVectors(dimensions)
    reserved.reserve(count)
    room = reserved.capacity

    reserved.put(list(zip(names, blobs, strict=True)))
    for start in range(0, count, 100):  # as a build stores them, batch by batch
        grown.put(list(zip(names[start : start + 100], blobs[start : start + 100], strict=True)))
    grown.dropped(names[:10])  # freed rows are taken again first
    grown.put(list(zip(names[:10], blobs[:10], strict=True)))

    assert reserved.capacity == room >= count  # filled without growing: no copy of the matrix
    assert grown.capacity < 2 * count
    for vectors in (reserved, grown):
        assert len(vectors) == count
        for n in (0, 9, 1_234, count - 1):
            query = np.frombuffer(blobs[n], dtype="<f2").astype(np.float32)
            assert vectors.ranked(query, lambda path: True, 1)[0][0] == names[n]


async def test_loading_stored_vectors_makes_room_for_every_note_at_once(tmp_path: Path) -> None:
    vault = vault_of(tmp_path / "vault", 40)
    with VaultIndex(vault, location=tmp_path / "index.sqlite3") as index:
        index.sync()
        with anyio.fail_after(30):
            await meaning_over(index).catch_up(index)
        embedder = load_embedder()
        assert embedder is not None
        restarted = MeaningIndex(embedder)  # a server started again over the same index

        restarted._load(index)

        assert len(restarted.vectors) == 40
        assert restarted.vectors.capacity >= 40
        assert (restarted.done, restarted.total, restarted.building) == (40, 40, False)


async def test_the_notice_while_embedding_counts_only_the_notes_searched(tmp_path: Path) -> None:
    vault = vault_of(tmp_path / "vault", 6)
    for n, path in enumerate(["Denied/a 🙈.md", "Denied/b #2.md", "Secret 100%/c.md"]):
        (vault / path).parent.mkdir(parents=True, exist_ok=True)
        (vault / path).write_bytes(f"---\r\ntags: [mcp-hidden]\r\n---\r\nespresso {n}\r\n".encode())

    def reachable(path: str) -> bool:
        return not path.startswith(("Denied/", "Secret 100%/"))

    with VaultIndex(vault, location=tmp_path / "index.sqlite3") as index:
        index.sync()
        meaning = meaning_over(index)  # nothing embedded yet
        rankings = meaning.rank(index, "espresso", reachable, 10)
        assert rankings is not None
        notice = answer(rankings, "hybrid", str(vault), 10, None).notice

    assert (rankings.embedded, rankings.notes) == (0, 6)
    assert notice is not None
    assert "0 of 6 notes" in notice
