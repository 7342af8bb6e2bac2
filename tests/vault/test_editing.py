"""What vaultgate sends the plugin for an edit, and what it refuses to send."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import unquote

import anyio
import pytest

from vaultgate.errors import InvalidArgument
from vaultgate.obsidian.features import Version
from vaultgate.obsidian.patch import encode_patch
from vaultgate.patch_request import PatchRequest
from vaultgate.vault.editing import move_note

from .emulated import plugin_client

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize("version", ["4.1.7", "5.1.0"])
async def test_a_move_through_dot_dot_is_refused_though_the_plugin_would_take_it(
    tmp_path: Path, version: str
) -> None:
    # the plugin accepts MOVE to 'Projects/../x.md' (issue 36); vaultgate's path rules do not
    vault = tmp_path / "vault"
    (vault / "Projects").mkdir(parents=True)
    (vault / "Welcome.md").write_text("# Welcome\n", encoding="utf-8")
    async with plugin_client(vault, version) as (plugin, requests):
        with pytest.raises(InvalidArgument, match=r"'\.\.' segments"):
            await move_note(plugin, "Welcome.md", "Projects/../x.md", overwrite=False)
    assert not [request for request in requests if request.startswith("MOVE")]
    assert (vault / "Welcome.md").exists()
    assert not (vault / "x.md").exists()


@pytest.mark.parametrize("version", ["3.6.2", "4.1.7"])
async def test_a_heading_patch_with_a_percent_in_its_target_is_answered(
    tmp_path: Path, version: str
) -> None:
    # an undecodable Target is a 500 on 4.1.7 and no answer on 3.6.2 (issue 36); vaultgate
    # encodes every Target, and sends Target-Type, never 3.x's deprecated Heading header
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "Rates.md").write_text("# Rate %ZZ\n\nOld.\n", encoding="utf-8")
    request = PatchRequest("append", "heading", ("Rate %ZZ",), "New.\n")
    headers, _body = encode_patch(request, Version.parse(version))
    assert "Heading" not in headers
    assert unquote(headers["Target"], errors="strict") == "Rate %ZZ"
    async with plugin_client(vault, version) as (plugin, _requests):
        with anyio.fail_after(10):
            await plugin.patch_note("Rates.md", request)
    assert (vault / "Rates.md").read_text(encoding="utf-8") == "# Rate %ZZ\n\nOld.\nNew.\n"


async def test_a_create_never_replaces_a_note_another_program_made_meanwhile(
    tmp_path: Path,
) -> None:
    from vaultgate.config import SafetySettings
    from vaultgate.folder.backend import FolderBackend
    from vaultgate.vault.editing import create_note
    from vaultgate.vault.guard import GuardedClient
    from vaultgate.vault.policy import AccessPolicy

    vault = tmp_path / "vault"
    (vault / "Inbox #2").mkdir(parents=True)
    synced = vault / "Inbox #2" / "idea 💡 100%.md"

    class SyncedMeanwhile(GuardedClient):
        """A sync client puts the note down just after vaultgate looked for it."""

        async def note_size(self, path: str) -> int | None:
            size = await super().note_size(path)
            synced.write_text("synced from the phone 日本\r\n", encoding="utf-8", newline="")
            return size

    backend = FolderBackend(vault, index_location=tmp_path / "index")
    client = SyncedMeanwhile(backend, AccessPolicy(SafetySettings()))

    with pytest.raises(InvalidArgument, match="exists"):
        await create_note(client, "Inbox #2/idea 💡 100%.md", "vaultgate's\n", overwrite=False)

    assert synced.read_bytes().decode("utf-8") == "synced from the phone 日本\r\n"
    await backend.aclose()
