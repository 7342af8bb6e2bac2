"""Folder listings per plugin version, asked of the engine directly."""

from __future__ import annotations

from pathlib import Path

import pytest

from vaultgate.engine.behaviour import Behaviour
from vaultgate.engine.listing import list_folder
from vaultgate.engine.vault import Vault


@pytest.mark.parametrize("version", ["3.5.0", "5.1.0"])
def test_a_folder_lists_one_level_with_folders_marked(vault: Path, version: str) -> None:
    behaviour = Behaviour.for_version(version)
    assert list_folder(Vault(vault), behaviour, "") == ["Notes/", "Projects/", "Welcome.md"]
    assert list_folder(Vault(vault), behaviour, "Projects") == ["plan.md"]


@pytest.mark.parametrize(
    ("version", "expected"),
    [("3.5.0", None), ("3.6.0", None), ("3.6.1", []), ("5.1.0", [])],
)
def test_an_empty_root_lists_from_3_6_1(
    tmp_path: Path, version: str, expected: list[str] | None
) -> None:
    assert list_folder(Vault(tmp_path), Behaviour.for_version(version), "") == expected


def test_a_folder_with_no_file_below_it_is_not_listed(vault: Path) -> None:
    (vault / "empty").mkdir()
    assert list_folder(Vault(vault), Behaviour.for_version("5.1.0"), "empty") is None
    assert list_folder(Vault(vault), Behaviour.for_version("5.1.0"), "Welcome.md") is None
