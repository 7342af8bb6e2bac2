"""Before the found folder is verified, and with the plugin alone: a note that is a symbolic
link to the plugin's ``data.json`` never shows Obsidian's API key (issue 36: it did, on the
first call after start)."""

from __future__ import annotations

import json
import shutil
from collections.abc import AsyncIterator
from pathlib import Path

import anyio
import anyio.lowlevel
import pytest
from mcp import Client
from tests.discovery.test_finder import QUICK, settings, vault_list
from tests.tools.conftest import FIXTURE_VAULT, texts

from vaultgate.backend import Note
from vaultgate.discovery.switching import SETTLE_WAIT_SECONDS, SwitchingBackend
from vaultgate.emulator.runner import RunningEmulator, start_emulator
from vaultgate.errors import LinkNotFollowed
from vaultgate.obsidian.client import ObsidianClient
from vaultgate.obsidian.transport import build_http_client
from vaultgate.server import build_server

pytestmark = pytest.mark.anyio

LEAK = "Inbox/plugin notes 🔌 #1.md"


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    copy = tmp_path / "vault 📓 %"
    shutil.copytree(FIXTURE_VAULT, copy)
    return copy


@pytest.fixture
def emulator(vault: Path) -> AsyncIterator[RunningEmulator]:
    running = start_emulator(vault)
    plugin = vault / ".obsidian" / "plugins" / "obsidian-local-rest-api"
    plugin.mkdir(parents=True)
    (plugin / "data.json").write_text(
        json.dumps({"apiKey": running.api_key, "port": 27124, "note": "quokka 🦘"}), "utf-8"
    )
    (vault / LEAK).symlink_to(plugin / "data.json")
    yield running
    running.stop()


@pytest.fixture
async def plugin(emulator: RunningEmulator, tmp_path: Path) -> AsyncIterator[ObsidianClient]:
    config = settings(emulator, vault_list(tmp_path)).obsidian
    client = ObsidianClient(config, await build_http_client(config))
    yield client
    await client.aclose()


async def test_an_unsettled_search_waits_then_never_shows_the_key(
    plugin: ObsidianClient, emulator: RunningEmulator
) -> None:
    switch = SwitchingBackend(plugin, "looking for the vault folder", secret=emulator.api_key)
    with pytest.raises(LinkNotFollowed):
        await switch.read_note(LEAK)
    hits = await switch.search_simple("quokka", 100)
    assert emulator.api_key not in json.dumps(hits)
    assert LEAK not in json.dumps(hits, ensure_ascii=False)
    rows = await switch.search_jsonlogic({"var": "content"})
    assert emulator.api_key not in json.dumps(rows)


class Recording:
    """A backend that only says when it was asked to read."""

    def __init__(self, order: list[str]) -> None:
        self.order = order

    async def read_note(self, path: str | None) -> Note:
        self.order.append("read")
        return Note(path or "", "text")


async def test_a_call_waits_for_the_search_to_settle() -> None:
    order: list[str] = []
    switch = SwitchingBackend(Recording(order), "looking for the vault folder")  # type: ignore[arg-type]
    async with anyio.create_task_group() as tasks:
        tasks.start_soon(switch.read_note, "Welcome.md")
        await anyio.lowlevel.checkpoint()  # the read has started and would have been sent
        switch.explain("settled: no folder")
        order.append("settled")
    assert order == ["settled", "read"]


async def test_the_wait_is_bounded(plugin: ObsidianClient) -> None:
    switch = SwitchingBackend(plugin, "looking for the vault folder")
    with anyio.fail_after(SETTLE_WAIT_SECONDS * 10):  # never settled: answers all the same
        note = await switch.read_note("Welcome.md")
    assert note.content


@pytest.mark.parametrize(
    "extra",
    [
        pytest.param({}, id="found-folder"),
        pytest.param({"VAULTGATE_BACKEND": "obsidian"}, id="plugin-only"),
    ],
)
async def test_the_first_call_never_shows_the_key(
    vault: Path, emulator: RunningEmulator, tmp_path: Path, extra: dict[str, str]
) -> None:
    config = settings(emulator, vault_list(tmp_path, vault), **extra)
    async with Client(build_server(config, discovery_timing=QUICK)) as client:
        read = await client.call_tool("get_vault_file", {"filename": LEAK})
        found = await client.call_tool("search_vault_simple", {"query": "quokka"})
    assert read.is_error
    assert emulator.api_key not in " ".join(texts(read) + texts(found))
