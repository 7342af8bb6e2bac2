"""The walk of a vault folder: symbolic links followed as the rules say, each real folder once."""

from __future__ import annotations

import logging
import os
from pathlib import Path

import pytest

from vaultgate.engine.walk import scan_folder
from vaultgate.locations import OBSIDIAN_LINKS, served_links

pytestmark = pytest.mark.skipif(os.name != "posix", reason="symbolic links")

NOTES = ["Notes/a 🙈 #1.md", "Notes/日本 100%.md", "Projects/x.md", "top.md"]


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    for path in NOTES:
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(path, encoding="utf-8")
    (root / ".trash").mkdir()
    (root / ".trash" / "old.md").write_text("old", encoding="utf-8")
    outside = tmp_path / "elsewhere"
    (outside / "sub").mkdir(parents=True)
    (outside / "sub" / "inner.md").write_text("outside", encoding="utf-8")
    (outside / "secret.md").write_text("outside", encoding="utf-8")
    return root


def test_loops_of_folder_links_are_walked_once(
    vault: Path, caplog: pytest.LogCaptureFixture
) -> None:
    (vault / "loop").symlink_to(".", target_is_directory=True)
    (vault / "Notes" / "up").symlink_to("../..", target_is_directory=True)
    (vault / "Notes" / "projects").symlink_to("../Projects", target_is_directory=True)
    (vault / "Notes" / "x.md").symlink_to("y.md")
    (vault / "Notes" / "y.md").symlink_to("x.md")

    with caplog.at_level(logging.WARNING):
        for rules in (OBSIDIAN_LINKS, served_links("inside"), served_links("all")):
            found = scan_folder(str(vault), rules=rules)
            assert sorted(found.files) == sorted(NOTES)
    loops = [r.getMessage() for r in caplog.records if "loop" in r.getMessage()]
    assert len(loops) == 4  # loop, Notes/up, Notes/x.md, Notes/y.md: once each, walked 3 times


def test_links_out_of_the_vault_are_listed_only_when_the_rules_follow_them(
    vault: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "elsewhere"
    (vault / "ext").symlink_to(outside / "sub", target_is_directory=True)
    (vault / "again").symlink_to(outside / "sub", target_is_directory=True)
    (vault / "Notes" / "flink.md").symlink_to(outside / "secret.md")

    inside = scan_folder(str(vault), rules=served_links("inside"))
    followed = scan_folder(str(vault), rules=served_links("all"))

    assert sorted(inside.files) == sorted(NOTES)
    assert inside.links["Notes/flink.md"] == str(outside / "secret.md")  # met, not followed
    assert len([f for f in followed.files if f.endswith("inner.md")]) == 1  # one of the two
    assert "Notes/flink.md" in followed.files
    assert "Notes/flink.md" in followed.notes


def test_a_link_into_a_hidden_folder_is_listed_by_obsidian_never_by_vaultgate(vault: Path) -> None:
    (vault / "Notes" / "old.md").symlink_to("../.trash/old.md")

    assert "Notes/old.md" in scan_folder(str(vault), rules=OBSIDIAN_LINKS).files
    for follow in ("inside", "all"):
        assert "Notes/old.md" not in scan_folder(str(vault), rules=served_links(follow)).files
