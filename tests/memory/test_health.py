"""The doctor's probe of the memory database: it tells, and it changes nothing."""

from __future__ import annotations

from pathlib import Path

from vaultgate.memory.health import probe
from vaultgate.memory.migrations import LATEST_VERSION
from vaultgate.memory.store import MemoryStore


def test_a_new_path_is_writable_and_left_as_it_was(tmp_path: Path) -> None:
    path = tmp_path / "memory.db"

    health = probe(str(path))

    assert health.problem is None
    assert not health.existed
    assert not path.exists()
    assert not list(tmp_path.iterdir())


def test_an_existing_store_shows_its_schema_version_and_keeps_its_rows(tmp_path: Path) -> None:
    path = tmp_path / "memory.db"
    store = MemoryStore.open(str(path))
    store.close()
    before = path.read_bytes()

    health = probe(str(path))

    assert health.problem is None
    assert health.existed
    assert health.version == LATEST_VERSION
    assert not health.newer_than_known
    assert path.read_bytes() == before


def test_a_path_under_a_file_cannot_be_opened(tmp_path: Path) -> None:
    (tmp_path / "a-file").write_text("x", encoding="utf-8")

    health = probe(str(tmp_path / "a-file" / "memory.db"))

    assert health.problem
    assert health.stage == "open"
