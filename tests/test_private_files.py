"""Files at rest are the owner's alone: a database and the folders made for it are created
owner-only whatever the umask, and wider modes found on open are tightened, said once."""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path

import pytest
from tests.conftest import mode_of

from vaultgate import private_files
from vaultgate.private_files import prepare_database

pytestmark = [
    pytest.mark.skipif(os.name != "posix", reason="mode bits mean little on Windows"),
    pytest.mark.usefixtures("usual_umask"),
]

COMPANIONS = ("-wal", "-shm", "-journal")


def tightened_lines(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "vaultgate.private_files"]


def make(path: Path, mode: int) -> Path:
    """A file or (for a name without a suffix) a folder, with exactly ``mode``."""
    if path.suffix:
        path.write_bytes(b"")
    else:
        path.mkdir()
    path.chmod(mode)
    return path


@pytest.mark.parametrize(
    "umask",
    [
        pytest.param(0o022, id="022"),
        pytest.param(0o002, id="002"),
        pytest.param(0o000, id="000"),
        pytest.param(0o277, id="277-narrower-than-owner-only"),
    ],
)
def test_a_new_database_and_the_folders_made_for_it_are_owner_only_whatever_the_umask(
    tmp_path: Path, umask: int, caplog: pytest.LogCaptureFixture
) -> None:
    location = tmp_path / "made" / "deeper" / "store.db"
    os.umask(umask)  # the fixture restores the test's own

    prepare_database(location, owned=[])

    assert location.stat().st_size == 0  # SQLite takes an empty file for a new database
    assert mode_of(location) == 0o600
    assert mode_of(tmp_path / "made") == mode_of(tmp_path / "made" / "deeper") == 0o700
    assert tightened_lines(caplog) == []


def test_a_folder_that_is_not_vaultgates_keeps_its_mode(tmp_path: Path) -> None:
    chosen = make(tmp_path / "chosen", 0o755)  # VAULTGATE_MEMORY_DB=~/chosen/memory.db

    prepare_database(chosen / "memory.db", owned=[tmp_path / "elsewhere"])

    assert mode_of(chosen) == 0o755
    assert mode_of(chosen / "memory.db") == 0o600


def test_wider_modes_are_tightened_and_said_in_one_log_line(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    outer = make(tmp_path / "cache", 0o755)
    own = make(outer / "vaultgate", 0o755)
    index = make(own / "index", 0o775)
    location = make(index / "x.sqlite3", 0o644)
    for suffix in COMPANIONS:
        make(Path(f"{location}{suffix}"), 0o664)

    with caplog.at_level(logging.INFO):
        prepare_database(location, owned=[own])

    assert mode_of(outer) == 0o755  # above vaultgate's own folder: not touched
    assert mode_of(own) == mode_of(index) == 0o700
    assert [mode_of(f"{location}{suffix}") for suffix in ("", *COMPANIONS)] == [0o600] * 4
    (line,) = tightened_lines(caplog)
    for path in (own, index, location, *(f"{location}{suffix}" for suffix in COMPANIONS)):
        assert str(path) in line
    assert f"{own} (was 0755)" in line
    assert f"{location} (was 0644)" in line


def test_nothing_is_said_when_everything_is_already_owner_only(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    own = make(tmp_path / "vaultgate", 0o700)
    location = make(own / "x.sqlite3", 0o600)
    make(Path(f"{location}-wal"), 0o400)  # narrower than owner-only: left as it is

    with caplog.at_level(logging.INFO):
        prepare_database(location, owned=[own])

    assert mode_of(f"{location}-wal") == 0o400
    assert tightened_lines(caplog) == []


def test_an_existing_database_keeps_what_it_holds(tmp_path: Path) -> None:
    location = tmp_path / "x.sqlite3"
    location.write_bytes(b"SQLite format 3\0 and the rest")
    location.chmod(0o644)

    prepare_database(location, owned=[tmp_path])

    assert location.read_bytes() == b"SQLite format 3\0 and the rest"
    assert mode_of(location) == 0o600


def test_vaultgates_own_folders_are_its_user_cache_and_data_folders(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    cache, data = private_files.cache_folder(), private_files.data_folder()

    assert private_files.own_folders() == (cache, data)
    assert cache.name == data.name == "vaultgate"
    if sys.platform == "linux":
        assert cache == tmp_path / "user-cache" / "vaultgate"  # tests/conftest.py
        assert data == tmp_path / "data" / "vaultgate"


def test_by_default_only_vaultgates_own_folders_are_tightened(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    data = private_files.data_folder()
    data.parent.mkdir()
    make(data, 0o755)
    other = make(tmp_path / "other", 0o755)

    prepare_database(data / "memory.db")
    prepare_database(other / "memory.db")

    assert mode_of(data) == 0o700
    assert mode_of(other) == 0o755


def test_a_file_in_the_way_of_a_folder_fails_as_mkdir_would(tmp_path: Path) -> None:
    make(tmp_path / "blocker.txt", 0o644)
    with pytest.raises(NotADirectoryError):
        prepare_database(tmp_path / "blocker.txt" / "x.sqlite3", owned=[])
