"""The embedder reads the model shipped in the wheel: no network, no logging set up, unit
vectors that put a paraphrase nearest the text it paraphrases."""

from __future__ import annotations

import socket
import subprocess
import sys
from typing import Any

import pytest

from vaultgate.semantic.embedder import INSTALL_HINT, Embedder, load_embedder, why_unavailable
from vaultgate.semantic.ranking import cosine_top

np = pytest.importorskip("numpy")

TEXTS = [
    "The secrets module generates cryptographically strong random numbers for tokens.",
    "bisect — array bisection: keep a list in order without sorting it after each insertion.",
    "Sourdough needs a starter, flour, water and salt; the dough rises overnight.",
    "東京の天気は晴れ 🌞 — une journée ensoleillée à Kyoto",
]


def test_every_row_is_a_unit_vector_of_the_model_s_dimensions(embedder: Embedder) -> None:
    rows = embedder.embed(TEXTS)

    assert rows.shape == (len(TEXTS), embedder.dimensions) == (4, 256)
    assert rows.dtype == np.float32
    assert np.allclose(np.linalg.norm(rows, axis=1), 1.0, atol=1e-5)


def test_an_empty_text_is_a_zero_row_similar_to_nothing(embedder: Embedder) -> None:
    rows = embedder.embed(["", "   "])

    assert not rows[0].any()
    assert rows.shape == (2, 256)


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        pytest.param("securely make a password reset code", 0, id="secrets"),
        pytest.param("where to put an item in an ordered sequence", 1, id="bisect"),
        pytest.param("baking bread at home", 2, id="bread"),
    ],
)
def test_a_paraphrase_is_nearest_the_text_it_paraphrases(
    embedder: Embedder, question: str, answer: int
) -> None:
    top = cosine_top(embedder.embed_query(question), embedder.embed(TEXTS), 1)

    assert top[0][0] == answer


def test_a_word_repeated_forty_times_does_not_drown_what_the_text_is_about(
    embedder: Embedder,
) -> None:
    # counted plainly, 40 "meeting 📅" outweigh the bread and the agenda note ranks first
    bread = (
        "Sourdough bread: feed the starter, mix flour, water and salt, and let the dough rise "
        "overnight.\r\n\r\n" + "meeting 📅 " * 40
    )
    agenda = "Meeting agenda: discuss the quarterly budget, invoices and the hiring plan."
    cars = "Car maintenance: check the tyre pressure and change the engine oil every spring."

    top = cosine_top(
        embedder.embed_query("baking bread at home"), embedder.embed([agenda, bread, cars]), 3
    )

    assert top[0][0] == 1


def test_a_text_is_embedded_alike_alone_and_in_a_batch(embedder: Embedder) -> None:
    alone = np.stack([embedder.embed_query(text) for text in TEXTS])

    assert np.allclose(alone, embedder.embed(TEXTS), atol=1e-6)


def test_loading_and_searching_attempt_no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    attempts: list[Any] = []

    def refuse(*args: Any, **kwargs: Any) -> Any:
        attempts.append(args)
        raise OSError("network blocked by the test")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)

    loaded = load_embedder()
    if loaded is None:
        pytest.skip(f"semantic search unavailable: {why_unavailable()}")
    top = cosine_top(loaded.embed_query("baking bread"), loaded.embed(TEXTS), 2)

    assert top[0][0] == 2
    assert attempts == []


def test_loading_leaves_logging_alone_and_does_not_import_wordllama() -> None:
    code = (
        "import logging, sys\n"
        "from vaultgate.semantic.embedder import load_embedder\n"
        "before = (logging.getLogger().level, list(logging.getLogger().handlers))\n"
        "e = load_embedder()\n"
        "print(e is not None, before == (logging.getLogger().level,"
        " list(logging.getLogger().handlers)), 'wordllama' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)

    loaded, logging_unchanged, imported = done.stdout.split()
    if loaded != "True":
        pytest.skip(f"semantic search unavailable: {why_unavailable()}")
    assert (logging_unchanged, imported) == ("True", "False")
    assert done.stderr == ""


@pytest.mark.parametrize("blocked", ["wordllama", "tokenizers", "safetensors"])
def test_without_the_extra_there_is_no_embedder_and_a_reason_with_the_install_command(
    monkeypatch: pytest.MonkeyPatch, blocked: str
) -> None:
    monkeypatch.setitem(sys.modules, blocked, None)  # as if not installed

    assert load_embedder() is None
    reason = why_unavailable()
    assert reason is not None
    assert INSTALL_HINT in reason
    assert blocked in reason


def test_one_embedder_is_shared_by_every_loader_of_a_process() -> None:
    first = load_embedder()
    if first is None:
        pytest.skip(f"semantic search unavailable: {why_unavailable()}")

    assert load_embedder() is first  # not a second copy of the model for each store or vault
