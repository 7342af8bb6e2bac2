"""The simple search over given notes only: what a vault index narrows a search to."""

from __future__ import annotations

from pathlib import Path

from vaultgate.engine.behaviour import Behaviour
from vaultgate.engine.simple_search import SimpleSearchOptions, simple_search
from vaultgate.engine.vault import Vault

V5 = Behaviour.for_version("5.1.0")


def test_only_the_given_notes_are_searched_in_the_vault_s_order(tmp_path: Path) -> None:
    for name in ("a.md", "b.md", "c.md"):
        (tmp_path / name).write_text("same words", encoding="utf-8")
    vault = Vault(tmp_path)
    options = SimpleSearchOptions.for_version(V5, "words", 10)
    hits = simple_search(vault, options, ["c.md", "a.md", "missing.md", "image.png"])
    assert [hit["filename"] for hit in hits] == ["a.md", "c.md"]
    assert hits == [hit for hit in simple_search(vault, options) if hit["filename"] != "b.md"]


def test_no_paths_searches_nothing_and_none_searches_every_note(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("words", encoding="utf-8")
    options = SimpleSearchOptions.for_version(V5, "words", 10)
    assert simple_search(Vault(tmp_path), options, []) == []
    assert len(simple_search(Vault(tmp_path), options, None)) == 1
