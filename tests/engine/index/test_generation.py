"""The index's generation moves with every committed change, and only then: a second look at
a note that did not change (the watcher seeing vaultgate's own write) leaves it standing, so
a later page is not told the vault changed when it did not."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from vaultgate.engine.index import VaultIndex

NOTE = "Projects/C# & 日本 100% 🚀.md"


@pytest.fixture
def index(vault: Path, index_at: Path) -> Iterator[VaultIndex]:
    with VaultIndex(vault, location=index_at) as opened:
        opened.sync()
        yield opened


def _write(vault: Path, path: str, text: str) -> None:
    target = vault / path
    target.parent.mkdir(parents=True, exist_ok=True)
    with target.open("w", encoding="utf-8", newline="") as out:
        out.write(text)


def test_a_written_note_moves_the_generation_and_a_second_look_does_not(
    index: VaultIndex, vault: Path
) -> None:
    start = index.generation.value
    _write(vault, NOTE, "---\r\ntags: [plan]\r\n---\r\nquokka 日本語 🚀\r\n")

    index.refresh([NOTE])
    written = index.generation.value
    index.refresh([NOTE])  # as the watcher does after vaultgate's own write

    assert written != start
    assert index.generation.value == written


def test_an_edit_a_removal_and_an_up_to_date_sync(index: VaultIndex, vault: Path) -> None:
    _write(vault, NOTE, "first 🚀\r\n")
    index.refresh([NOTE])
    seen = [index.generation.value]
    _write(vault, NOTE, "second, longer 🚀\r\n")
    index.refresh([NOTE])
    seen.append(index.generation.value)
    os.remove(vault / NOTE)
    index.refresh([NOTE])
    seen.append(index.generation.value)
    index.sync()  # nothing left to do

    assert len(set(seen)) == 3
    assert index.generation.value == seen[-1]


def test_two_indexes_never_hand_out_the_same_number(vault: Path, tmp_path: Path) -> None:
    with (
        VaultIndex(vault, location=tmp_path / "a.sqlite3") as first,
        VaultIndex(vault, location=tmp_path / "b.sqlite3") as second,
    ):
        first.sync()
        second.sync()

        assert first.generation.value != second.generation.value
