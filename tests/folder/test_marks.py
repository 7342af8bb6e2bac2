"""The marked notes read from the notes' bytes, before the folder's index answers."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from vaultgate.engine.vault import Vault
from vaultgate.folder.marks import MarkScan, may_be_marked
from vaultgate.protection import marks_in_text


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("---\ntags: [mcp-hidden]\n---\n", id="plain"),
        pytest.param('---\ntags: ["\\x6dcp-hidden"]\n---\n', id="escaped"),
        pytest.param("---\r\n" + "k: v\r\n" * 2000 + "TaGs: MCP-Hidden\r\n---\r\n", id="long"),
        pytest.param("# Title\n\n日本 #MCP-hidden/drafts\n", id="inline"),
        pytest.param("---\ntitle: x\n---\ntext #mcp-readonly\n", id="inline-after-frontmatter"),
        pytest.param("---\ntags: [x]\n#mcp-hidden\n", id="unclosed-frontmatter-is-body"),
    ],
)
def test_every_note_carrying_a_tag_is_a_candidate(text: str) -> None:
    assert marks_in_text("a.md", text)  # the note does carry one
    assert may_be_marked(text.encode("utf-8"))


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("---\ntags: [a, b]\n---\nmentions mcp-hidden, no tag\n", id="no-hash"),
        pytest.param("no frontmatter, #mcp in text\n", id="no-dash"),
        pytest.param("---\ntitle: x\n---\n" + "word " * 2000, id="long-body"),
    ],
)
def test_most_notes_are_never_parsed(text: str) -> None:
    assert not may_be_marked(text.encode("utf-8"))


def test_a_scan_sees_what_changed_since_the_last_one(tmp_path: Path) -> None:
    (tmp_path / "a 100%.md").write_text("plain\n", encoding="utf-8")
    (tmp_path / "b.md").write_text("---\ntags: [mcp-readonly]\n---\n", encoding="utf-8")
    scan = MarkScan(Vault(tmp_path))
    assert sorted(scan.marked()) == ["b.md"]

    (tmp_path / "a 100%.md").write_text("now #mcp-hidden/x\n", encoding="utf-8")
    os.utime(tmp_path / "a 100%.md", ns=(1, 1))  # a new mtime, whatever the clock's grain
    (tmp_path / "b.md").unlink()
    marked = scan.marked()

    assert sorted(marked) == ["a 100%.md"]
    assert marked["a 100%.md"].hidden
