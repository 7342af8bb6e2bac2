"""The memory database at rest: what the model was asked to remember is its owner's alone,
whatever the umask; a folder the user chose for it keeps its mode."""

from __future__ import annotations

import logging
import os
import sqlite3
import sys
from pathlib import Path

import pytest
from tests.conftest import mode_of

from vaultgate.config import default_memory_db
from vaultgate.memory.connection import connect
from vaultgate.memory.store import MemoryStore

pytestmark = [
    pytest.mark.skipif(os.name != "posix", reason="mode bits mean little on Windows"),
    pytest.mark.usefixtures("usual_umask"),
]


@pytest.fixture
def default_db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``memory.db`` in vaultgate's user data folder, under tmp_path."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    if sys.platform != "linux":
        pytest.skip("platformdirs reads XDG_DATA_HOME on Linux only")
    return Path(default_memory_db())


def files_of(db: Path) -> list[str]:
    return [str(db), f"{db}-wal", f"{db}-shm"]


def tightened_lines(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "vaultgate.private_files"]


def test_a_new_store_and_the_folders_made_for_it_are_owner_only(default_db: Path) -> None:
    store = MemoryStore.open(str(default_db))
    try:
        store.save("a title", "something to remember")
        assert [mode_of(path) for path in files_of(default_db)] == [0o600] * 3
    finally:
        store.close()

    assert mode_of(default_db) == 0o600
    assert mode_of(default_db.parent) == mode_of(default_db.parent.parent) == 0o700


def test_a_store_found_readable_by_others_is_tightened_and_said_once(
    default_db: Path, caplog: pytest.LogCaptureFixture
) -> None:
    MemoryStore.open(str(default_db)).close()
    reader = sqlite3.connect(default_db)  # keeps the WAL files there
    reader.execute("SELECT count(*) FROM sqlite_master").fetchone()
    default_db.parent.chmod(0o755)
    for path in files_of(default_db):
        os.chmod(path, 0o644)

    with caplog.at_level(logging.INFO):
        MemoryStore.open(str(default_db)).close()
        MemoryStore.open(str(default_db)).close()
    reader.close()

    assert mode_of(default_db) == 0o600
    assert mode_of(default_db.parent) == 0o700
    (line,) = tightened_lines(caplog)
    assert all(path in line for path in [*files_of(default_db), str(default_db.parent)])


def test_a_folder_the_user_chose_keeps_its_mode(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    chosen = tmp_path / "home"
    chosen.mkdir(mode=0o755)
    db = chosen / "memory.db"  # VAULTGATE_MEMORY_DB=~/memory.db
    db.write_bytes(b"")
    db.chmod(0o644)

    with caplog.at_level(logging.INFO):
        connect(str(db)).close()

    assert mode_of(chosen) == 0o755
    assert mode_of(db) == 0o600
    (line,) = tightened_lines(caplog)
    assert f"{db} (was 0644)" in line
    assert f"{chosen} (was" not in line


def test_the_folders_made_for_a_chosen_path_are_owner_only(tmp_path: Path) -> None:
    chosen = tmp_path / "home"
    chosen.mkdir(mode=0o755)
    db = chosen / "made" / "for" / "memory.db"

    connect(str(db)).close()

    assert mode_of(db) == 0o600
    assert mode_of(chosen / "made") == mode_of(chosen / "made" / "for") == 0o700
    assert mode_of(chosen) == 0o755


def test_an_in_memory_store_touches_no_file(tmp_path: Path) -> None:
    before = sorted(os.listdir())
    MemoryStore.in_memory().close()
    assert sorted(os.listdir()) == before
