"""Changes through Obsidian while it answers (issue 25): a folder vaultgate found sends its
changes to the plugin (the emulator on 127.0.0.1, serving the same folder), reads them back
from the folder side at once, and makes them in the folder when the plugin cannot have
received them, never twice."""

from __future__ import annotations

import json
import threading
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import quote

import pytest
from tests.obsidian.obsidian_fakes import API_KEY, root_answer

from vaultgate.config import SafetySettings, Settings
from vaultgate.emulator.runner import RunningEmulator, start_emulator
from vaultgate.errors import ChangeUncertain, ProtectedNote
from vaultgate.folder.backend import FolderBackend
from vaultgate.folder.routed import RoutedBackend
from vaultgate.obsidian.client import ObsidianClient
from vaultgate.obsidian.transport import build_http_client
from vaultgate.patch_request import PatchRequest
from vaultgate.vault import editing
from vaultgate.vault.guard import GuardedClient
from vaultgate.vault.policy import AccessPolicy

pytestmark = pytest.mark.anyio

PLAN = "Projects/plan 100% 🚀.md"
HUB = "Notes/hub 日本.md"
CRLF = "Notes/crlf café.md"
KEPT = "Notes/kept.md"
NOTES = {
    PLAN: "# Plan\n\n## Log\n\nFirst entry.\n",
    HUB: "See [[plan 100% 🚀]] and [[crlf café]].\n",
    CRLF: "---\r\ntags: [crlf]\r\n---\r\nCRLF 日本語 line\r\n",
    KEPT: "---\ntags: [mcp-protected]\n---\nKept, links to [[plan 100% 🚀]].\n",
}


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    for path, text in NOTES.items():
        file = root.joinpath(*path.split("/"))
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_bytes(text.encode("utf-8"))
    return root


@dataclass
class World:
    client: GuardedClient
    routed: RoutedBackend
    emulator: RunningEmulator | None

    def plugin_changes(self) -> list[tuple[str, str]]:
        """The changes the plugin was asked to make, (method, path)."""
        assert self.emulator is not None
        return [(m, p) for m, p in self.emulator.state.requests if m != "GET"]


def obsidian_settings(emulator: RunningEmulator) -> Settings:
    assert emulator.https_url is not None
    return Settings.from_env(
        {
            "OBSIDIAN_API_KEY": emulator.api_key,
            "OBSIDIAN_PORT": emulator.https_url.rsplit(":", 1)[1],
            "OBSIDIAN_CERT": str(emulator.certificate_path),
        }
    )


@asynccontextmanager
async def served(
    vault: Path,
    settings: Settings,
    emulator: RunningEmulator | None,
    *,
    writes_via_plugin: bool = True,
) -> AsyncIterator[World]:
    """The auto backend over ``vault`` (index and watcher running), as the server builds it."""
    folder = FolderBackend(vault, index_location=vault.parent / "index.db")
    async with folder.running():
        assert await folder.wait_until_indexed()
        http = await build_http_client(settings.obsidian)
        routed = RoutedBackend(
            folder, ObsidianClient(settings.obsidian, http), writes_via_plugin=writes_via_plugin
        )
        policy = AccessPolicy(SafetySettings(), vault=vault)
        try:
            yield World(GuardedClient(routed, policy), routed, emulator)
        finally:
            await routed.aclose()


@asynccontextmanager
async def with_plugin(vault: Path, version: str = "5.1.0", **options: bool) -> AsyncIterator[World]:
    with start_emulator(vault, plugin_version=version) as emulator:
        async with served(vault, obsidian_settings(emulator), emulator, **options) as world:
            yield world


async def found(world: World, query: str) -> list[str]:
    return sorted(hit["filename"] for hit in await world.client.search_simple(query, 20))


async def listed(world: World, folder: str) -> list[str]:
    return await world.client.list_directory(folder)


def text(vault: Path, path: str) -> str:
    return vault.joinpath(*path.split("/")).read_bytes().decode("utf-8")


# --- the plugin makes the change; the folder side sees it at once ----------------------------


async def test_a_new_note_goes_through_the_plugin_and_is_listed_and_found_at_once(
    vault: Path,
) -> None:
    new = "Inbox/zeppelin 飛行船 #2.md"
    async with with_plugin(vault) as world:
        await editing.create_note(world.client, new, "zeppelin 飛行船\r\n", overwrite=False)
        listing = await listed(world, "Inbox/")
        hits = await found(world, "zeppelin")
        read = (await world.client.read_note(new)).content
        changes = world.plugin_changes()

    assert changes == [("PUT", f"/vault/{new}")]
    assert listing == ["zeppelin 飛行船 #2.md"]
    assert hits == [new]
    assert read == "zeppelin 飛行船\r\n"


async def test_an_append_and_a_patch_go_through_the_plugin_and_are_found_at_once(
    vault: Path,
) -> None:
    patch = PatchRequest("append", "heading", "Plan::Log", "wombat entry\n")
    async with with_plugin(vault) as world:
        before = await found(world, "quokka")
        await world.client.append_note(CRLF, "quokka 袋鼠\r\n")
        await world.client.patch_note(PLAN, patch)
        quokka, wombat = await found(world, "quokka"), await found(world, "wombat")
        changes = world.plugin_changes()

    assert before == []
    assert changes == [("POST", f"/vault/{CRLF}"), ("PATCH", f"/vault/{PLAN}")]
    assert (quokka, wombat) == ([CRLF], [PLAN])
    assert text(vault, CRLF).endswith("CRLF 日本語 line\r\nquokka 袋鼠\r\n")
    assert text(vault, PLAN).endswith("First entry.\n\nwombat entry\n")


async def test_a_delete_goes_to_the_plugins_trash_and_is_gone_from_listing_and_search(
    vault: Path,
) -> None:
    async with with_plugin(vault) as world:
        message = await editing.delete_note(world.client, CRLF, permanent=False)
        listing = await listed(world, "Notes/")
        hits = await found(world, "日本語 line")
        changes = world.plugin_changes()

    assert changes == [("DELETE", f"/vault/{CRLF}")]
    assert "Obsidian's trash" in message
    assert "crlf café.md" not in listing
    assert "hub 日本.md" in listing
    assert hits == []
    assert text(vault, f".trash/{CRLF}") == NOTES[CRLF]


async def test_a_move_goes_through_the_plugin_and_its_link_updates_are_seen_at_once(
    vault: Path,
) -> None:
    moved = "Archive/plan 100% 🚀 done.md"
    (vault / "Notes" / "kept.md").unlink()  # no protected linker: the move may rewrite all
    async with with_plugin(vault) as world:
        message = await editing.move_note(world.client, PLAN, moved, overwrite=False)
        hub_links = await found(world, "[[plan 100% 🚀 done]]")
        old_name = await found(world, "[[plan 100% 🚀]]")
        listing = await listed(world, "Archive/")
        changes = world.plugin_changes()

    assert changes == [("MOVE", f"/vault/{PLAN}")]
    assert text(vault, HUB).startswith("See [[plan 100% 🚀 done]]")
    assert HUB in message
    assert "1 link" in message
    assert hub_links == [HUB]
    assert old_name == []
    assert listing == ["plan 100% 🚀 done.md"]


async def test_a_move_on_a_plugin_without_move_is_made_in_the_folder(vault: Path) -> None:
    (vault / "Notes" / "kept.md").unlink()
    async with with_plugin(vault, "3.6.2") as world:
        await editing.move_note(world.client, PLAN, "Archive/plan.md", overwrite=False)
        changes = world.plugin_changes()

    assert changes == []
    assert text(vault, HUB).startswith("See [[plan]]")


async def test_a_delete_to_the_trash_on_a_plugin_without_trash_is_made_in_the_folder(
    vault: Path,
) -> None:
    """4.x deletes for good: the folder keeps the promise of a delete to the trash."""
    async with with_plugin(vault, "4.1.7") as world:
        await world.client.delete_note(CRLF, permanent=False)
        await world.client.write_note("Inbox/new.md", "new\n")
        changes = world.plugin_changes()

    assert changes == [("PUT", "/vault/Inbox/new.md")]
    assert text(vault, f".trash/{CRLF}") == NOTES[CRLF]


async def test_protection_holds_before_anything_is_sent_to_the_plugin(vault: Path) -> None:
    async with with_plugin(vault) as world:
        with pytest.raises(ProtectedNote):
            await world.client.write_note(KEPT, "overwritten\n")
        with pytest.raises(ProtectedNote):
            await world.client.delete_note(KEPT, permanent=True)
        changes = world.plugin_changes()

    assert changes == []
    assert text(vault, KEPT) == NOTES[KEPT]


# --- the reverse: the folder's changes are the plugin's to see ---------------------------------


async def test_a_change_made_in_the_folder_is_read_by_the_plugin(vault: Path) -> None:
    async with with_plugin(vault, writes_via_plugin=False) as world:
        await world.client.write_note(PLAN, "# Plan\n\nrewritten 🚀\n")
        changes = world.plugin_changes()
        assert world.emulator is not None
        async with world.emulator.client() as plugin:
            answer = await plugin.get(f"/vault/{quote(PLAN)}")

    assert changes == []  # configured folder: today's behaviour, the folder writes
    assert answer.text == "# Plan\n\nrewritten 🚀\n"


# --- when the plugin does not answer ---------------------------------------------------------


async def test_with_obsidian_closed_the_change_is_made_once_in_the_folder(vault: Path) -> None:
    emulator = start_emulator(vault)
    async with served(vault, obsidian_settings(emulator), emulator) as world:
        await world.client.append_note(CRLF, "first\n")  # through the plugin
        emulator.stop()  # Obsidian quits
        await world.client.append_note(CRLF, "second\n")
        hits = await found(world, "second")

    assert text(vault, CRLF) == NOTES[CRLF] + "first\nsecond\n"
    assert hits == [CRLF]
    assert [m for m, _ in emulator.state.requests if m != "GET"] == ["POST"]


class _SilentOnChanges(BaseHTTPRequestHandler):
    """A plugin that answers GET / and then never answers a change it received."""

    received: list[str]
    release: threading.Event

    def do_GET(self) -> None:
        body = json.dumps(root_answer("5.1.0")).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers["Content-Length"]))
        self.received.append(self.path)
        self.release.wait(10)

    def log_message(self, *_args: object) -> None:
        return None


@contextmanager
def silent_plugin() -> Iterator[tuple[int, list[str]]]:
    received: list[str] = []
    release = threading.Event()
    handler = type("Handler", (_SilentOnChanges,), {"received": received, "release": release})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1], received
    finally:
        release.set()
        server.shutdown()
        server.server_close()


async def test_a_change_sent_and_never_answered_is_not_made_again_in_the_folder(
    vault: Path,
) -> None:
    with silent_plugin() as (port, received):
        settings = Settings.from_env(
            {
                "OBSIDIAN_API_KEY": API_KEY,
                "OBSIDIAN_PROTOCOL": "http",
                "OBSIDIAN_PORT": str(port),
                "OBSIDIAN_TIMEOUT": "0.5",
            }
        )
        async with served(vault, settings, None) as world:
            with pytest.raises(ChangeUncertain) as caught:
                await world.client.append_note(CRLF, "once\n")

    assert received == ["/vault/Notes/crlf%20caf%C3%A9.md"]
    assert text(vault, CRLF) == NOTES[CRLF]  # the folder did not append it too
    assert "may have been made" in str(caught.value)
    assert f"read {CRLF!r}" in str(caught.value)
