"""A small vault in tmp_path, for engine tests that need files on disk."""

from __future__ import annotations

from pathlib import Path

import pytest

FILES = {
    "Welcome.md": "# Welcome\n\nHello #project world. See [[plan]].\n",
    "Projects/plan.md": "---\nstatus: active\n---\n# Plan\n\n## Goals\n\nShip it. ^goal1\n",
    "Notes/space name.md": "Spaces in the name.\n",
    ".obsidian/app.json": "{}",
}


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    for relative, content in FILES.items():
        path = root.joinpath(*relative.split("/"))
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content, encoding="utf-8", newline="")
    return root
