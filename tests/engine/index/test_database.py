"""The index file at rest: it holds the text of every note, hidden ones too, so it and the
folders vaultgate keeps it in are its owner's alone, whatever the umask."""

from __future__ import annotations

import logging
import os
import sqlite3
from pathlib import Path

import pytest
from tests.conftest import mode_of

from vaultgate.engine.index import VaultIndex
from vaultgate.engine.index.database import default_location

pytestmark = [
    pytest.mark.skipif(os.name != "posix", reason="mode bits mean little on Windows"),
    pytest.mark.usefixtures("usual_umask"),
]


def files_of(location: Path) -> list[str]:
    """The index file and the WAL companions SQLite keeps beside it while it is open."""
    return [str(location), f"{location}-wal", f"{location}-shm"]


def tightened_lines(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "vaultgate.private_files"]


def test_a_new_index_and_the_folders_made_for_it_are_owner_only(vault: Path) -> None:
    location = default_location(vault)
    cache = location.parent.parent  # <user cache>/vaultgate, made for the index
    assert not cache.exists()

    with VaultIndex(vault) as index:
        index.sync()
        assert [mode_of(path) for path in files_of(location)] == [0o600] * 3

    assert mode_of(location) == 0o600
    assert mode_of(location.parent) == mode_of(cache) == 0o700


def test_an_index_found_readable_by_others_is_tightened_and_said_once(
    vault: Path, caplog: pytest.LogCaptureFixture
) -> None:
    location = default_location(vault)
    with VaultIndex(vault) as index:
        index.sync()
        conn = sqlite3.connect(location)  # a second reader: the WAL files stay after the close
        conn.execute("SELECT count(*) FROM notes").fetchone()
    for path in (location.parent.parent, location.parent):
        path.chmod(0o755)
    for path in files_of(location):
        os.chmod(path, 0o644)

    with caplog.at_level(logging.INFO), VaultIndex(vault) as index:
        assert [mode_of(path) for path in files_of(location)] == [0o600] * 3
    conn.close()

    assert mode_of(location.parent) == mode_of(location.parent.parent) == 0o700
    (line,) = tightened_lines(caplog)
    assert all(path in line for path in files_of(location))


def test_an_index_built_again_in_place_of_an_unusable_one_is_owner_only(
    vault: Path, index_at: Path, caplog: pytest.LogCaptureFixture
) -> None:
    index_at.parent.mkdir()
    index_at.write_bytes(b"not a database at all, and long enough to be read as one" * 100)
    index_at.chmod(0o644)

    with caplog.at_level(logging.INFO), VaultIndex(vault, location=index_at) as index:
        index.sync()
        assert [mode_of(path) for path in files_of(index_at)] == [0o600] * 3

    assert mode_of(index_at.parent) == 0o755  # a folder given by the caller keeps its mode
    assert len(tightened_lines(caplog)) == 1
