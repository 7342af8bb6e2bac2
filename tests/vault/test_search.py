"""A search's hits in the order every page shows them, made one by one as a page reads them."""

from __future__ import annotations

import unicodedata
from pathlib import Path

import pytest

from vaultgate.obsidian.models import SimpleHit as PluginHit
from vaultgate.vault.search import SimpleHit, SimpleHits, VaultSearcher, scores_order_something

from .emulated import plugin_client

NFD = unicodedata.normalize("NFD", "Café")
RAW: list[PluginHit] = [
    {"filename": "b/two.md", "score": 2.5, "matches": []},
    {"filename": "日本語/メモ.md", "score": 1.0, "matches": []},
    {"filename": "a/🦘 #1 100%.md", "score": 2.5, "matches": []},
    {"filename": f"{NFD}/menu.md", "score": 1.0},
    {"filename": "A/upper.md", "score": 2.5, "matches": []},
    {"filename": "no score.md"},
    {"filename": "z/best.md", "score": 7.25, "matches": []},
]


def test_hits_come_best_first_then_by_path() -> None:
    hits = SimpleHits.best_first(RAW, 60)

    expected = sorted(RAW, key=lambda item: (-item.get("score", 0.0), item["filename"]))
    assert [hit.filename for hit in hits] == [item["filename"] for item in expected]
    assert [hit.filename for hit in hits][:4] == [
        "z/best.md",
        "A/upper.md",
        "a/🦘 #1 100%.md",
        "b/two.md",
    ]
    assert hits[-1] == SimpleHit("no score.md", 0.0, (), 60)


def test_a_page_is_a_slice_of_hits_and_a_folder_keeps_the_order() -> None:
    hits = SimpleHits.best_first(RAW, 40)

    assert hits[1:3] == [hits[1], hits[2]]
    assert len(hits) == len(RAW)
    below = hits.below(f"{NFD}/")
    assert [hit.filename for hit in below] == [f"{NFD}/menu.md"]
    assert [hit.filename for hit in hits.below("a/")] == ["a/🦘 #1 100%.md"]  # not 'A/'


def test_scores_order_something_only_when_two_differ_as_shown() -> None:
    def hits(*scores: float) -> SimpleHits:
        return SimpleHits([{"filename": f"{n}.md", "score": s} for n, s in enumerate(scores)], 0)

    assert scores_order_something(hits(3.0, 1.0, 1.0))
    assert scores_order_something(hits(1.0, 1.0, 1.0, 1.5))
    assert not scores_order_something(hits(1.0001, 1.0002, 1.0))  # equal to 3 digits
    assert not scores_order_something(hits(2.0))
    assert not scores_order_something(hits())


@pytest.mark.anyio
@pytest.mark.parametrize("version", ["3.6.2", "4.1.7", "5.1.0"])
async def test_equal_scores_show_by_path_whatever_order_the_plugin_sends(
    tmp_path: Path, version: str
) -> None:
    # 3.6.2 sends ties in reverse file order, later versions in file order (issue 36)
    vault = tmp_path / "vault"
    vault.mkdir()
    for name in ("a.md", "b.md", "c.md"):
        (vault / name).write_text("zebra crossing\n", encoding="utf-8")
    (vault / "best.md").write_text("zebra zebra\n", encoding="utf-8")
    async with plugin_client(vault, version) as (plugin, _requests):
        hits = (await VaultSearcher(plugin).simple("zebra", context_length=10)).value
    assert [hit.filename for hit in hits] == ["best.md", "a.md", "b.md", "c.md"]
