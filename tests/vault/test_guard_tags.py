"""Tag counts through the guard: the plugin counts every occurrence, so the notes a tool may
not reach are taken out once per occurrence (a hidden note's ``#dup #dup`` removes 2), on the
emulator of each version with ``/tags/`` and on the folder backend."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

from vaultgate.backend import Backend
from vaultgate.config import SafetySettings
from vaultgate.folder.backend import FolderBackend
from vaultgate.vault.guard import GuardedClient
from vaultgate.vault.policy import AccessPolicy

from .emulated import plugin_client

pytestmark = pytest.mark.anyio

NOTES = {
    # counts 2: once in the frontmatter, once inline
    "Visible café ☕.md": "---\r\ntags: [dup, 项目/阶段]\r\n---\r\nText #dup\r\n",
    # counts 3 and carries the hidden tag: all of it leaves the counts
    "Hidden #1 100%.md": "---\ntags: [dup, mcp-hidden]\n---\n#dup and #dup again, #项目/阶段\n",
    # counts 2 under the frontmatter's 'tag' key and inline; denied by the rule below
    "Private/Cafe\u0301 note.md": "---\ntag: dup\n---\n#dup `#not-a-tag`\n",
}


def write_vault(root: Path) -> Path:
    for name, text in NOTES.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode("utf-8"))
    return root


@asynccontextmanager
async def backend_for(kind: str, vault: Path) -> AsyncIterator[Backend]:
    if kind == "folder":
        yield FolderBackend(vault, index_location=vault.parent / "index")
        return
    async with plugin_client(vault, kind) as (client, _requests):
        yield client


async def counts(backend: Backend, **safety: object) -> dict[str, int]:
    policy = AccessPolicy(SafetySettings(**safety))  # type: ignore[arg-type]
    rows = await GuardedClient(backend, policy).list_tags()
    return {str(row["name"]): int(row["count"]) for row in rows}


@pytest.mark.parametrize("kind", ["3.6.2", "4.1.7", "5.1.0", "folder"])
async def test_the_backend_counts_every_occurrence(tmp_path: Path, kind: str) -> None:
    vault = write_vault(tmp_path / "vault")
    async with backend_for(kind, vault) as backend:
        raw = {str(row["name"]): int(row["count"]) for row in await backend.list_tags()}
    assert raw["dup"] == 2 + 3 + 2
    assert raw["项目"] == raw["项目/阶段"] == 2  # a nested tag counts for its parent too


@pytest.mark.parametrize("kind", ["3.6.2", "4.1.7", "5.1.0", "folder"])
async def test_a_hidden_note_leaves_the_counts_once_per_occurrence(
    tmp_path: Path, kind: str
) -> None:
    vault = write_vault(tmp_path / "vault")
    async with backend_for(kind, vault) as backend:
        seen = await counts(backend)
    assert seen["dup"] == 2 + 2  # the hidden note's three are gone
    assert seen["项目/阶段"] == seen["项目"] == 1
    assert "mcp-hidden" not in seen


@pytest.mark.parametrize("kind", ["4.1.7", "5.1.0", "folder"])
async def test_a_denied_note_leaves_the_counts_once_per_occurrence(
    tmp_path: Path, kind: str
) -> None:
    vault = write_vault(tmp_path / "vault")
    async with backend_for(kind, vault) as backend:
        seen = await counts(backend, deny=("Private/**",))
    assert seen["dup"] == 2  # only the visible note's: frontmatter and inline
