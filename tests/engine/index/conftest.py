"""Indexes of vaults in tmp_path, and what an index file holds, for comparing two of them."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from vaultgate.engine.index import VaultIndex


def write(root: Path, relative: str, text: str) -> Path:
    path = root.joinpath(*relative.split("/"))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8", newline="")
    return path


def contents(location: Path) -> list[tuple[Any, ...]]:
    """Every note row with its searched text, by path (ids left out: they differ between
    builds), then the number of texts that belong to no note, then every word the word table
    holds, by note."""
    conn = sqlite3.connect(location)
    try:
        rows = conn.execute(
            "SELECT n.path, n.mtime_ns, n.size, n.frontmatter, n.frontmatter_valid, n.tags,"
            " n.headings, n.links, t.body FROM notes n LEFT JOIN notes_text t ON t.rowid = n.id"
            " ORDER BY n.path"
        ).fetchall()
        orphans = conn.execute(
            "SELECT count(*) FROM notes_text WHERE rowid NOT IN (SELECT id FROM notes)"
        ).fetchone()
        # the word table keeps no text: what it holds is each word at each place, by note
        conn.execute(
            "CREATE VIRTUAL TABLE temp.word_places USING fts5vocab(main, notes_words, instance)"
        )
        words = conn.execute(
            "SELECT coalesce(n.path, '(no note)'), w.term, w.offset FROM temp.word_places w"
            " LEFT JOIN notes n ON n.id = w.doc ORDER BY 1, 3, 2"
        ).fetchall()
    finally:
        conn.close()
    return [*rows, orphans, words]


def fresh_build(folder: Path, location: Path) -> list[tuple[Any, ...]]:
    with VaultIndex(folder, location=location) as index:
        index.sync()
    return contents(location)


@pytest.fixture
def index_at(tmp_path: Path) -> Path:
    """Where a test's index file lives: beside the vault, never inside it."""
    return tmp_path / "cache" / "index.sqlite3"
