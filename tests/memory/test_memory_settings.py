"""VAULTGATE_MEMORY_DB: where the memory store lives."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from vaultgate.config import MemorySettings, Settings, default_memory_db
from vaultgate.errors import ConfigError


def test_the_default_is_memory_db_in_the_user_data_folder_and_nothing_is_created(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))

    db = Settings.from_env({}).memory.db

    assert Path(db).name == "memory.db"
    assert Path(db).parent.name == "vaultgate"
    assert db == default_memory_db() == MemorySettings().db
    if sys.platform == "linux":
        assert db == str(tmp_path / "vaultgate" / "memory.db")
    assert not Path(db).parent.exists()


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        pytest.param(":memory:", ":memory:", id="in-memory"),
        pytest.param(" :memory: ", ":memory:", id="in-memory-spaced"),
        pytest.param("/data/mem.db", "/data/mem.db", id="absolute"),
    ],
)
def test_an_explicit_path_is_used(value: str, expected: str) -> None:
    assert Settings.from_env({"VAULTGATE_MEMORY_DB": value}).memory.db == expected


def test_relative_and_home_paths_become_absolute(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))

    assert Settings.from_env({"VAULTGATE_MEMORY_DB": "m.db"}).memory.db == str(tmp_path / "m.db")
    assert Settings.from_env({"VAULTGATE_MEMORY_DB": "~/m.db"}).memory.db == str(
        tmp_path / "home" / "m.db"
    )


def test_a_folder_is_refused_with_a_file_to_use_instead(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"points at the folder .*memory\.db"):
        Settings.from_env({"VAULTGATE_MEMORY_DB": str(tmp_path)})
