"""The listing of the SDD folder sorted into projects and changes; VAULTGATE_SDD_FOLDER."""

from __future__ import annotations

import pytest

from vaultgate.config import Settings
from vaultgate.errors import ConfigError
from vaultgate.sdd.layout import STAGES, parse_inventory

LISTING = [
    "sdd/README.md",
    "sdd/atlas/changes/cache/Proposal.md",
    "sdd/atlas/changes/cache/tasks.md",
    "sdd/atlas/changes/cache/notes.txt",
    "sdd/atlas/changes/cache/specs/search/spec.md",
    "sdd/atlas/overview.md",
    "sdd/vaultgate/changes/add-dispatchers/proposal.md",
    "sdd/vaultgate/changes/add-dispatchers/spec.md",
    "sdd/vaultgate/changes/add-dispatchers/design.md",
    "sdd/vaultgate/changes/add-dispatchers/tasks.md",
    "sdd/vaultgate/changes/add-dispatchers/verify.md",
    "sdd/zeta/project.md",
    "elsewhere/x/changes/y/spec.md",
]


def test_changes_are_sorted_by_project_then_slug_with_their_stage_paths() -> None:
    inventory = parse_inventory("sdd/", LISTING)

    assert inventory.exists
    assert inventory.projects == ("atlas", "vaultgate", "zeta")
    assert [c.name for c in inventory.changes] == ["atlas/cache", "vaultgate/add-dispatchers"]
    cache, dispatchers = inventory.changes
    assert cache.stages == {
        "proposal": "sdd/atlas/changes/cache/Proposal.md",
        "tasks": "sdd/atlas/changes/cache/tasks.md",
    }
    assert cache.missing == ("spec", "design", "verify")
    assert cache.other_files == (
        "sdd/atlas/changes/cache/notes.txt",
        "sdd/atlas/changes/cache/specs/search/spec.md",
    )
    assert cache.folder == "sdd/atlas/changes/cache/"
    assert tuple(dispatchers.stages) == STAGES
    assert dispatchers.missing == ()


def test_a_project_without_changes_is_a_project_with_none() -> None:
    inventory = parse_inventory("sdd/", LISTING)

    assert inventory.count_changes("zeta") == 0
    assert inventory.changes_of("zeta") == []
    assert len(inventory.changes_of(None)) == 2


def test_the_vault_root_can_be_the_sdd_folder() -> None:
    inventory = parse_inventory("", ["app/changes/one/spec.md", "Daily/2026-11-21.md"])

    assert [c.name for c in inventory.changes] == ["app/one"]
    assert inventory.changes[0].stages == {"spec": "app/changes/one/spec.md"}


@pytest.mark.parametrize(
    ("value", "folder"),
    [
        pytest.param(None, "sdd/", id="unset"),
        pytest.param("  ", "sdd/", id="blank"),
        pytest.param("Projects/specs", "Projects/specs/", id="nested"),
        pytest.param("specs/", "specs/", id="trailing-slash"),
        pytest.param("/", "", id="vault-root"),
    ],
)
def test_sdd_folder_setting(value: str | None, folder: str) -> None:
    env = {} if value is None else {"VAULTGATE_SDD_FOLDER": value}

    assert Settings.from_env(env).sdd.folder == folder


@pytest.mark.parametrize("value", ["../outside", "/absolute", "a//b", "back\\slash"])
def test_an_sdd_folder_outside_the_vault_stops_the_server(value: str) -> None:
    with pytest.raises(ConfigError, match="VAULTGATE_SDD_FOLDER"):
        Settings.from_env({"VAULTGATE_SDD_FOLDER": value})
