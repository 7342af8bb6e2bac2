"""vaultgate never asks the plugin for the note JSON of a file that is not markdown: the plugin
answers it only after its 5-second metadata-cache timeout. The emulator has that cost
(``metadata_waits`` records each such wait), so each test asserts none happened."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

from vaultgate.config import ObsidianSettings, SafetySettings, Secret
from vaultgate.emulator.runner import RunningEmulator, start_emulator
from vaultgate.errors import InvalidArgument, NotFound
from vaultgate.obsidian.client import ObsidianClient
from vaultgate.obsidian.transport import build_http_client
from vaultgate.vault.documents import read_document
from vaultgate.vault.guard import GuardedClient
from vaultgate.vault.links import LinkReader, backlinking_notes
from vaultgate.vault.listing import VaultLister
from vaultgate.vault.policy import AccessPolicy

pytestmark = pytest.mark.anyio

IMAGE = "Media/Café ☕ 100%.png"  # no "#": in a wikilink it starts a heading


def write_vault(root: Path) -> Path:
    (root / "Media").mkdir(parents=True)
    (root / IMAGE).write_bytes(b"\x89PNG\r\n\x1a\n")
    (root / "Embeds 🖼.md").write_text(f"# Pictures\r\n\r\n![[{IMAGE}]]\r\n", encoding="utf-8")
    (root / "Other.md").write_text("No links here.\n", encoding="utf-8")
    return root


@asynccontextmanager
async def guarded(
    vault: Path, version: str
) -> AsyncIterator[tuple[GuardedClient, RunningEmulator]]:
    with start_emulator(vault, plugin_version=version, https_port=None, http_port=0) as emulator:
        assert emulator.http_url is not None
        port = int(emulator.http_url.rsplit(":", 1)[1].rstrip("/"))
        settings = ObsidianSettings(api_key=Secret(emulator.api_key), protocol="http", port=port)
        async with await build_http_client(settings) as http:
            client = GuardedClient(ObsidianClient(settings, http), AccessPolicy(SafetySettings()))
            yield client, emulator


@pytest.mark.parametrize("version", ["4.1.7", "5.1.0"])
async def test_an_attachments_backlinks_come_from_a_search_not_its_note_json(
    tmp_path: Path, version: str
) -> None:
    vault = write_vault(tmp_path / "vault")
    async with guarded(vault, version) as (client, emulator):
        reader = LinkReader(client, VaultLister(client))
        assert (await backlinking_notes(reader, IMAGE)).value == ["Embeds 🖼.md"]
        with pytest.raises(NotFound):
            await backlinking_notes(reader, "Media/missing.png")
    assert emulator.state.metadata_waits == []


@pytest.mark.parametrize("version", ["4.1.7", "5.1.0"])
async def test_moving_an_attachment_asks_no_note_json(tmp_path: Path, version: str) -> None:
    vault = write_vault(tmp_path / "vault")
    async with guarded(vault, version) as (client, emulator):
        await client.move_note(IMAGE, "Media/moved.png", overwrite=False)
    assert (vault / "Media" / "moved.png").exists()
    assert emulator.state.metadata_waits == []


async def test_note_json_of_an_attachment_is_refused_with_what_to_do(tmp_path: Path) -> None:
    vault = write_vault(tmp_path / "vault")
    async with guarded(vault, "5.1.0") as (client, emulator):
        with pytest.raises(InvalidArgument, match="format='markdown'"):
            await read_document(client, IMAGE, note_format="json", max_length=1000, start_index=0)
    assert emulator.state.metadata_waits == []
