"""Completing a vault path: folders first, prefix before contains, NFC and case folded."""

from __future__ import annotations

import unicodedata

import pytest

from vaultgate.vault.completion import MAX_COMPLETIONS, argument_kind, complete, folders_of

FILES = [
    "Projects/Plan 🚀.md",
    "Projects/🚀 Launch/Notes.md",
    "Areas/Rocket 🚀 science.md",
    "Attachments/🚀.png",
    unicodedata.normalize("NFD", "Areas/Café/Menu.md"),
]


def test_folders_come_first_then_prefix_matches_then_contains() -> None:
    assert complete(FILES, "projects/").values == (
        "Projects/",
        "Projects/🚀 Launch/",
        "Projects/Plan 🚀.md",
        "Projects/🚀 Launch/Notes.md",
    )
    assert complete(FILES, "🚀").values == (
        "Projects/🚀 Launch/",
        "Areas/Rocket 🚀 science.md",
        "Attachments/🚀.png",
        "Projects/Plan 🚀.md",
        "Projects/🚀 Launch/Notes.md",
    )


def test_nfc_typing_finds_an_nfd_name_and_returns_it_as_stored() -> None:
    assert complete(FILES, "CAFÉ").values == (
        unicodedata.normalize("NFD", "Areas/Café/"),
        unicodedata.normalize("NFD", "Areas/Café/Menu.md"),
    )


def test_folders_only_and_notes_only() -> None:
    assert complete(FILES, "🚀", folders_only=True).values == ("Projects/🚀 Launch/",)
    assert "Attachments/🚀.png" not in complete(FILES, "🚀", notes_only=True).values


def test_at_most_100_values_and_the_total() -> None:
    many = [f"Bulk/Note {n:03}.md" for n in range(250)]

    answer = complete(many, "note")

    assert len(answer.values) == MAX_COMPLETIONS
    assert answer.total == 250
    assert answer.has_more


def test_folders_of_every_depth() -> None:
    assert folders_of(["a/b/c.md", "d.md"]) == {"a/", "a/b/"}


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("note", "note"),
        ("meeting_note", "note"),
        ("file", "note"),
        ("path", "note"),
        ("folder", "folder"),
        ("target-dir", "folder"),
        ("topic", None),
        ("notebook", None),
    ],
)
def test_prompt_arguments_named_for_a_note_or_folder(name: str, kind: str | None) -> None:
    assert argument_kind(name) == kind
