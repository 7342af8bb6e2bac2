"""An awkward vault: emoji and CJK beside matches, KELVIN SIGN, sharp s, dotless i, final
sigma, CRLF, NUL, names with '#', '%' and spaces, a note over 1 MB, a hidden folder."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

NOTES = {
    "Kelvin.md": "Temperature in \u212aelvin: 300 \u212a, or 300 k, or 300 K.\n",
    "Straße #1.md": "Die STRASSE, die Straße und die STRAẞE 🚀 straße.\n",
    "Dotless ı and İ.md": "ıstanbul, İstanbul, istanbul, ISTANBUL\n",
    "Sigma.md": "ΣΊΣΥΦΟΣ σίσυφος σίσυφοσ — final ς and σ\n",
    "100% done/日本語 notes.md": "日本語のメモ: project 🚀project🚀 プロジェクト project\n",
    "CRLF note.md": "---\r\ntags: [crlf]\r\n---\r\n# CRLF\r\n\r\nproject line\r\nPROJECT\r\n",
    "Projects/project plan.md": "# Project plan\n\nThe project's projects: projectproject.\n",
    "Projects/emoji 😀 name project.md": "😀😀😀 project at the end of emoji 😀project\n",
    "Empty.md": "",
    "Overlaps.md": "aaaaa aaa aa a\n",
    "NUL inside.md": "a NUL\x00project, then\x00 a tail\n",
    "Canvas.canvas": '{"nodes": [{"text": "project"}]}',
}
BIG = "Big note.md"


def write_awkward_vault(root: Path) -> Path:
    for path, text in NOTES.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_bytes(text.encode("utf-8"))
    paragraph = "A long paragraph about a meeting 🚀 and 日本語 and a project. " * 20
    (root / BIG).write_text("\n\n".join(paragraph for _ in range(900)), encoding="utf-8")
    assert (root / BIG).stat().st_size > 1_000_000
    (root / ".hidden").mkdir()
    (root / ".hidden" / "project.md").write_text("project", encoding="utf-8")
    return root


@pytest.fixture
def awkward_vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    root.mkdir()
    return write_awkward_vault(root)


@pytest.fixture
def opened(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every path ``os.open`` is asked for from now on, in order (how notes are read)."""
    paths: list[str] = []
    real_open = os.open

    def recording_open(path: str, *args: Any, **kwargs: Any) -> int:
        paths.append(os.fspath(path))
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(os, "open", recording_open)
    return paths
