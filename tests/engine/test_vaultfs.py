"""vaultfs: every write stays in the vault and keeps the index in step."""

from __future__ import annotations

from pathlib import Path

import pytest

from vaultgate.engine import vaultfs
from vaultgate.engine.errors import PathRefused
from vaultgate.engine.vault import Vault


@pytest.fixture
def state(vault: Path) -> Vault:
    return Vault(vault)


@pytest.mark.parametrize(
    "path",
    ["", "../x.md", "a/../../x.md", "a//b.md", "./x.md", "a\\..\\x.md", "a/"],
)
def test_paths_that_could_leave_the_vault_are_refused(state: Vault, path: str) -> None:
    with pytest.raises(PathRefused) as caught:
        vaultfs.disk_path(state, path)
    assert caught.value.path == path


def test_writes_are_indexed_and_hidden_ones_are_not(state: Vault) -> None:
    vaultfs.write_text(state, "New/a.md", "x")
    vaultfs.write_text(state, ".obsidian/workspace.json", "{}")
    assert state.is_file("New/a.md")
    assert not state.is_file(".obsidian/workspace.json")


def test_delete_to_trash_names_free_slots(state: Vault, vault: Path) -> None:
    for _ in range(2):
        vaultfs.write_text(state, "Notes/x.md", "x")
        vaultfs.delete(state, "Notes/x.md", to_trash=True)
    assert sorted(p.name for p in (vault / ".trash" / "Notes").iterdir()) == ["x 1.md", "x.md"]
    assert not state.is_file("Notes/x.md")


def test_move_and_copy_update_the_index(state: Vault) -> None:
    vaultfs.move(state, "Welcome.md", "Archive/Welcome.md")
    vaultfs.copy(state, "Archive/Welcome.md", "Welcome.md")
    assert state.is_file("Archive/Welcome.md")
    assert state.is_file("Welcome.md")


def test_a_rewrite_is_never_served_stale(state: Vault) -> None:
    assert state.read_text("Notes/space name.md") == "Spaces in the name.\n"
    vaultfs.write_text(state, "Notes/space name.md", "Spaces in the NAME.\n")  # same size
    assert state.read_text("Notes/space name.md") == "Spaces in the NAME.\n"
