"""JsonLogic over every note and tag counts, asked of the engine directly."""

from __future__ import annotations

from pathlib import Path

import pytest

from vaultgate.engine.behaviour import Behaviour
from vaultgate.engine.errors import InvalidQuery
from vaultgate.engine.search import jsonlogic_search, tag_counts
from vaultgate.engine.vault import Vault

V5 = Behaviour.for_version("5.1.0")


def test_a_query_finds_notes_by_frontmatter(vault: Path) -> None:
    query = {"==": [{"var": "frontmatter.status"}, "active"]}
    assert jsonlogic_search(Vault(vault), V5, query) == [
        {"filename": "Projects/plan.md", "result": True}
    ]


def test_a_query_that_fails_names_the_note_it_failed_on(vault: Path) -> None:
    with pytest.raises(InvalidQuery) as caught:
        jsonlogic_search(Vault(vault), V5, {"no such operation": []})
    assert caught.value.path == "Notes/space name.md"  # the first note in index order


def test_tags_are_counted_with_their_parents(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("#work/tasks\n", encoding="utf-8")
    (tmp_path / "b.md").write_text("#work/tasks and #home, #home\n", encoding="utf-8")
    # every occurrence counts, as Obsidian's getAllTags gives them to the plugin
    assert tag_counts(Vault(tmp_path)) == [("work/tasks", 2), ("work", 2), ("home", 2)]


def test_tags_count_every_occurrence_in_frontmatter_and_text(tmp_path: Path) -> None:
    (tmp_path / "dup.md").write_text("---\ntags: [dup]\n---\n#dup #dup\n", encoding="utf-8")
    (tmp_path / "one.md").write_text("#dup\n", encoding="utf-8")
    assert tag_counts(Vault(tmp_path)) == [("dup", 4)]


def test_tags_under_every_key_and_form_count(tmp_path: Path) -> None:
    (tmp_path / "Café ☕ #1.md").write_text(
        '---\r\nTag: 项目/阶段, 项目\r\ntags: "#emoji🎉"\r\n---\r\n#项目 `#code` #项目\r\n',
        encoding="utf-8",
    )
    assert tag_counts(Vault(tmp_path)) == [
        ("项目/阶段", 1),
        ("项目", 4),
        ("emoji🎉", 1),
    ]


def test_the_fixture_vault_counts_as_the_plugin_does() -> None:
    # the real plugin's /tags/ on fixtures/vault (issue 27): project 10, area 8
    counts = dict(tag_counts(Vault(Path(__file__).parents[2] / "fixtures" / "vault")))
    assert (counts["project"], counts["area"]) == (10, 8)
