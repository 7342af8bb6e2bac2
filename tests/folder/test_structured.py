"""JsonLogic with metadata from the vault index answers what the engine's scan answers."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from vaultgate.engine.behaviour import Behaviour
from vaultgate.engine.errors import InvalidQuery
from vaultgate.engine.index import VaultIndex
from vaultgate.engine.search import jsonlogic_search
from vaultgate.engine.vault import Vault
from vaultgate.folder.backend import FOLDER_SEMANTICS
from vaultgate.folder.search import NoteTexts
from vaultgate.folder.structured import LinkedNotes, indexed_jsonlogic

BEHAVIOUR = Behaviour.for_version(str(FOLDER_SEMANTICS))

LINKED = {
    "People/Ada 🚀.md": "---\nrole: engineer\nborn: 1815-12-10\n---\nSee [[Projects/Engine #2]].\n",
    "Projects/Engine #2.md": (
        "---\nstatus: active\npriority: 1\nratio: -0.0\nbig: 123456789012345678901234567890\n"
        "tags: [project, 日本]\nnested: {a: [1, 2, {b: null}], 'k': \u212aelvin}\n"
        "when: 2026-11-24T01:02:03Z\n---\n"
        "# Engine\n\n[[People/Ada 🚀|Ada]] and ![[diagram.png]] and [md](../People/Ada%20🚀.md)"
        " and [[Missing note#Heading]] #inline/tag\n"
    ),
    "Projects/Draft 100%.md": "---\nstatus: draft\n---\nlinks to [[Engine #2#Engine]]\r\n",
    "Broken yaml.md": "---\nstatus: [unclosed\n---\nbody [[Engine #2]]\n",
    "No frontmatter.md": "just text, status active\n",
}

QUERIES: list[Any] = [
    {"==": [{"var": "frontmatter.status"}, "active"]},
    {"in": ["project", {"var": "tags"}]},
    {"var": "frontmatter"},
    {"var": "backlinks"},
    {"var": "links"},
    {"var": "unresolvedLinks"},
    {"var": ""},
    {"!!": [{"var": "frontmatter.nested.a"}]},
    {"in": ["status active", {"var": "content"}]},
    {"glob": ["Projects/**", {"var": "path"}]},
    {">": [{"var": "stat.size"}, 0]},
    {"var": "frontmatter.big"},
    {"if": [{"==": [{"var": "frontmatter.ratio"}, 0]}, {"var": "frontmatter"}, False]},
]


@pytest.fixture
def vault_folder(awkward_vault: Path) -> Path:
    for path, text in LINKED.items():
        (awkward_vault / path).parent.mkdir(parents=True, exist_ok=True)
        (awkward_vault / path).write_bytes(text.encode("utf-8"))
    return awkward_vault


@pytest.fixture
def index(vault_folder: Path, tmp_path: Path) -> VaultIndex:
    built = VaultIndex(vault_folder, location=tmp_path / "index.sqlite3")
    built.sync()
    return built


def _both(vault_folder: Path, index: VaultIndex, query: Any) -> tuple[Any, Any]:
    vault = Vault(vault_folder)
    fast = indexed_jsonlogic(vault, index, LinkedNotes(), NoteTexts(vault_folder), BEHAVIOUR, query)
    return fast, jsonlogic_search(Vault(vault_folder), BEHAVIOUR, query)


@pytest.mark.parametrize("query", QUERIES)
def test_index_metadata_answers_as_the_engine(
    vault_folder: Path, index: VaultIndex, query: Any
) -> None:
    fast, engine = _both(vault_folder, index, query)
    assert fast == engine
    assert engine or query == {"var": "unresolvedLinks"}  # the queries find something


def test_a_note_changed_since_it_was_indexed_is_parsed_again(
    vault_folder: Path, index: VaultIndex
) -> None:
    (vault_folder / "No frontmatter.md").write_text(
        "---\nstatus: active\n---\nnow active, see [[Projects/Draft 100%]]\n", encoding="utf-8"
    )
    query = {"==": [{"var": "frontmatter.status"}, "active"]}
    fast, engine = _both(vault_folder, index, query)
    assert fast == engine
    assert "No frontmatter.md" in [row["filename"] for row in fast or []]
    fast, engine = _both(vault_folder, index, {"var": "backlinks"})
    assert fast == engine


def test_what_is_kept_between_queries_follows_edits_and_new_notes(
    vault_folder: Path, index: VaultIndex
) -> None:
    vault, linked, texts = Vault(vault_folder), LinkedNotes(), NoteTexts(vault_folder)
    query = {"var": "backlinks"}

    def both() -> tuple[Any, Any]:
        fast = indexed_jsonlogic(vault, index, linked, texts, BEHAVIOUR, query)
        return fast, jsonlogic_search(Vault(vault_folder), BEHAVIOUR, query)

    first, engine = both()
    assert first == engine
    (vault_folder / "Broken yaml.md").write_text("now links [[People/Ada 🚀]]\n", encoding="utf-8")
    (vault_folder / "Projects" / "Engine #3.md").write_text("[[Draft 100%]]\n", encoding="utf-8")
    vault.refresh()  # as the watcher does for a new file
    second, engine = both()
    assert second == engine
    assert second != first


def test_a_failing_query_names_the_same_note(vault_folder: Path, index: VaultIndex) -> None:
    query = {"nosuchop": [{"var": "path"}]}
    with pytest.raises(InvalidQuery) as engine:
        jsonlogic_search(Vault(vault_folder), BEHAVIOUR, query)
    with pytest.raises(InvalidQuery) as fast:
        indexed_jsonlogic(
            Vault(vault_folder), index, LinkedNotes(), NoteTexts(vault_folder), BEHAVIOUR, query
        )
    assert str(fast.value) == str(engine.value)


def test_an_index_not_synced_leaves_it_to_the_engine(vault_folder: Path, tmp_path: Path) -> None:
    with VaultIndex(vault_folder, location=tmp_path / "fresh.sqlite3") as fresh:
        query = {"var": "path"}
        assert (
            indexed_jsonlogic(
                Vault(vault_folder), fresh, LinkedNotes(), NoteTexts(vault_folder), BEHAVIOUR, query
            )
            is None
        )
