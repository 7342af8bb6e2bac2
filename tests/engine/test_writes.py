"""Whole-file changes with the plugin's rules, asked of the engine directly."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from vaultgate.engine import writes
from vaultgate.engine.errors import (
    CannotReplace,
    DestinationExists,
    EngineError,
    IsAFolder,
    NotAFile,
    NotFound,
)
from vaultgate.engine.vault import Vault


@pytest.fixture
def state(vault: Path) -> Vault:
    return Vault(vault)


def test_a_folder_goes_to_the_trash_whole(state: Vault, vault: Path) -> None:
    deleted = writes.delete(state, "Projects", to_trash=True)
    assert deleted == writes.Deleted("folder", ".trash/Projects")
    assert (vault / ".trash" / "Projects" / "plan.md").is_file()
    assert not state.is_file("Projects/plan.md")


def test_a_permanent_delete_removes_a_hidden_file_but_never_a_folder(
    state: Vault, vault: Path
) -> None:
    assert writes.delete(state, ".obsidian/app.json", to_trash=False).trashed is None
    assert not (vault / ".obsidian" / "app.json").exists()
    with pytest.raises(IsAFolder):
        writes.delete(state, "Projects", to_trash=False)


@pytest.mark.parametrize(
    ("call", "error"),
    [
        pytest.param(lambda v: writes.delete(v, "", to_trash=True), NotAFile, id="delete-root"),
        pytest.param(lambda v: writes.delete(v, "Notes/", to_trash=True), NotAFile, id="slash"),
        pytest.param(lambda v: writes.delete(v, ".obsidian/app.json", to_trash=True), NotFound,
                     id="trash-hidden"),
        pytest.param(lambda v: writes.check_file_path(v, "Notes"), NotAFile, id="folder"),
        pytest.param(lambda v: writes.move(v, "Nope.md", "x.md", overwrite=False), NotFound,
                     id="move-missing"),
        pytest.param(lambda v: writes.copy(v, "Welcome.md", "Welcome.md", overwrite=True),
                     DestinationExists, id="copy-onto-itself"),
        pytest.param(lambda v: writes.move(v, "Welcome.md", "Projects/plan.md", overwrite=False),
                     DestinationExists, id="move-onto-a-note"),
        pytest.param(lambda v: writes.move(v, "Welcome.md", "Projects", overwrite=True),
                     CannotReplace, id="replace-a-folder"),
    ],
)  # fmt: skip
def test_refusals(state: Vault, call: Callable[[Vault], object], error: type[EngineError]) -> None:
    with pytest.raises(error):
        call(state)


def test_moving_a_note_onto_itself_changes_nothing(state: Vault) -> None:
    writes.move(state, "Welcome.md", "Welcome.md", overwrite=False)
    assert state.is_file("Welcome.md")


def test_an_allowed_overwrite_replaces_the_destination(state: Vault, vault: Path) -> None:
    writes.move(state, "Welcome.md", "Projects/plan.md", overwrite=True)
    assert (vault / "Projects" / "plan.md").read_text(encoding="utf-8").startswith("# Welcome")
    assert not state.is_file("Welcome.md")
