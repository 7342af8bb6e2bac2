"""The vault folder behind the plugin, found with only OBSIDIAN_API_KEY set: the server in
process, the emulator on 127.0.0.1 serving a copy of the fixture vault, and a stand-in
obsidian.json named by VAULTGATE_OBSIDIAN_CONFIG."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from tests.tools.conftest import FIXTURE_VAULT, payload

from vaultgate.config import Settings
from vaultgate.connect import open_backend
from vaultgate.discovery.finder import DiscoveryTiming
from vaultgate.emulator.runner import RunningEmulator, start_emulator
from vaultgate.server import build_server

pytestmark = pytest.mark.anyio

QUICK = DiscoveryTiming(recheck_seconds=0.2, retry_seconds=0.2)
LOOKING = "looking for the vault folder"


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    copy = tmp_path / "vault 📓 #1 %"
    shutil.copytree(FIXTURE_VAULT, copy)
    (copy / ".obsidian").mkdir(exist_ok=True)
    (copy / "Inbox" / "見出し #tag 50%.md").write_bytes("# 見出し\r\nquokka 🦘\r\n".encode())
    return copy


@pytest.fixture
def other_vault(tmp_path: Path) -> Path:
    other = tmp_path / "other vault"
    (other / "Elsewhere").mkdir(parents=True)
    (other / "Elsewhere" / "Café.md").write_text("numbat\n", encoding="utf-8")
    (other / "Start.md").write_text("# Another vault\n", encoding="utf-8")
    return other


@pytest.fixture
def emulators() -> AsyncIterator[list[RunningEmulator]]:
    started: list[RunningEmulator] = []
    yield started
    for emulator in started:
        emulator.stop()


def vault_list(tmp_path: Path, *folders: Path, text: str | None = None) -> Path:
    """A stand-in obsidian.json naming ``folders`` (the first one open), or holding ``text``."""
    place = tmp_path / "obsidian-config" / "obsidian.json"
    place.parent.mkdir(exist_ok=True)
    vaults = {
        f"id{n}": {"path": str(folder), "ts": 1_700_000_000_000 - n, "open": n == 0}
        for n, folder in enumerate(folders)
    }
    place.write_text(text if text is not None else json.dumps({"vaults": vaults}), "utf-8")
    return place


def settings(emulator: RunningEmulator, config: Path, **extra: str) -> Settings:
    url = emulator.http_url or emulator.https_url
    assert url is not None
    env = {
        "OBSIDIAN_API_KEY": emulator.api_key,
        "OBSIDIAN_PORT": url.rsplit(":", 1)[1],
        "VAULTGATE_TOOLS": "full",
        "VAULTGATE_OBSIDIAN_CONFIG": str(config),
    }
    if emulator.https_url is not None:
        env["OBSIDIAN_CERT"] = str(emulator.certificate_path)
    else:
        env["OBSIDIAN_PROTOCOL"] = "http"
    return Settings.from_env(env | extra)


@asynccontextmanager
async def connected(config: Settings) -> AsyncIterator[Client]:
    async with Client(build_server(config, discovery_timing=QUICK)) as client:
        yield client


async def info(client: Client) -> dict[str, Any]:
    return payload(await client.call_tool("get_server_info", {}))


async def settled(client: Client, done: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
    """get_server_info once ``done`` says discovery has come to it (the search runs in the
    background: it is waited for, never timed)."""
    with anyio.fail_after(30):
        while True:
            answer = await info(client)
            if done(answer):
                return answer
            await anyio.sleep(0.05)


def concluded(answer: dict[str, Any]) -> bool:
    return not answer["vaultFolderFound"].startswith(LOOKING)


def serving(folder: Path) -> Callable[[dict[str, Any]], bool]:
    return lambda answer: answer.get("vaultFolder") == str(folder)


async def test_only_the_key_set_serves_the_folder_the_plugin_serves(
    vault: Path, tmp_path: Path, emulators: list[RunningEmulator]
) -> None:
    emulators.append(start_emulator(vault))
    async with connected(settings(emulators[0], vault_list(tmp_path, vault))) as client:
        answer = await settled(client, serving(vault))
        assert answer["backend"] == "auto"
        assert "root listing" in answer["vaultFolderFound"]
        assert "VAULTGATE_BACKEND=obsidian" in answer["vaultFolderFound"]
        listing = payload(await client.call_tool("list_vault_files", {"recursive": True}))
        emulators[0].stop()  # Obsidian closed: the folder answers on, the plugin could not
        again = payload(await client.call_tool("list_vault_files", {"recursive": True}))
        assert again == listing
        hits = payload(await client.call_tool("search_vault_simple", {"query": "quokka"}))
        assert "Inbox/見出し #tag 50%.md" in json.dumps(hits, ensure_ascii=False)


async def test_the_found_folder_answers_as_the_plugin_does(
    vault: Path, tmp_path: Path, emulators: list[RunningEmulator]
) -> None:
    emulators.append(start_emulator(vault))
    found = settings(emulators[0], vault_list(tmp_path, vault))
    plugin_only = settings(emulators[0], vault_list(tmp_path, vault), VAULTGATE_BACKEND="obsidian")
    calls: list[tuple[str, dict[str, Any]]] = [
        ("list_vault_files", {"folder": "Inbox"}),
        ("list_vault_files", {}),
        ("get_vault_file", {"filename": "Inbox/見出し #tag 50%.md"}),
        ("get_vault_file", {"filename": "Resources/Languages/日本語メモ.md"}),
    ]
    async with connected(found) as client:
        await settled(client, serving(vault))
        from_folder = [(await client.call_tool(name, args)).content for name, args in calls]
    async with connected(plugin_only) as client:
        assert (await info(client))["backend"] == "obsidian"
        from_plugin = [(await client.call_tool(name, args)).content for name, args in calls]
    assert from_folder == from_plugin


async def test_without_a_vault_list_the_plugin_answers_and_says_why(
    vault: Path, tmp_path: Path, emulators: list[RunningEmulator]
) -> None:
    emulators.append(start_emulator(vault))
    missing = tmp_path / "nowhere" / "obsidian.json"
    async with connected(settings(emulators[0], missing)) as client:
        answer = await settled(client, concluded)
        assert answer["backend"] == "obsidian"
        assert "no vault list" in answer["vaultFolderFound"]
        assert str(missing) in answer["vaultFolderFound"]


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("{not json", id="not-json"),
        pytest.param('{"vaults": []}', id="vaults-not-an-object"),
        pytest.param("[1, 2]", id="not-an-object"),
        pytest.param("\udcff", id="not-utf8"),
        pytest.param("[" * 6_000, id="6kb-of-nested-lists"),
        pytest.param('{"vaults": {"a": {"path": ' + "[" * 100_000, id="deep-in-an-entry"),
    ],
)
async def test_a_corrupt_vault_list_leaves_the_plugin_answering(
    vault: Path, tmp_path: Path, emulators: list[RunningEmulator], text: str
) -> None:
    emulators.append(start_emulator(vault))
    config = vault_list(tmp_path)
    config.write_bytes(text.encode("utf-8", "surrogateescape"))
    async with connected(settings(emulators[0], config)) as client:
        answer = await settled(client, concluded)
        assert answer["backend"] == "obsidian"
        assert str(config) in answer["vaultFolderFound"]


async def test_a_list_naming_another_vault_leaves_the_plugin_answering(
    vault: Path, other_vault: Path, tmp_path: Path, emulators: list[RunningEmulator]
) -> None:
    emulators.append(start_emulator(vault))
    async with connected(settings(emulators[0], vault_list(tmp_path, other_vault))) as client:
        answer = await settled(client, concluded)
        assert answer["backend"] == "obsidian"
        assert "none of the 1 vaults" in answer["vaultFolderFound"]


async def test_two_copies_of_the_vault_are_ambiguous(
    vault: Path, tmp_path: Path, emulators: list[RunningEmulator]
) -> None:
    twin = tmp_path / "twin"
    shutil.copytree(vault, twin)  # copy2: the same names, sizes and mtimes
    emulators.append(start_emulator(vault))
    async with connected(settings(emulators[0], vault_list(tmp_path, twin, vault))) as client:
        answer = await settled(client, concluded)
        assert answer["backend"] == "obsidian"
        assert "several vaults" in answer["vaultFolderFound"]


async def test_a_copy_with_other_times_is_told_apart(
    vault: Path, tmp_path: Path, emulators: list[RunningEmulator]
) -> None:
    twin = tmp_path / "twin"
    shutil.copytree(vault, twin)
    for note in twin.rglob("*.md"):
        os.utime(note, (1_000_000_000, 1_000_000_000))
    emulators.append(start_emulator(vault))
    async with connected(settings(emulators[0], vault_list(tmp_path, twin, vault))) as client:
        answer = await settled(client, concluded)
        assert answer["vaultFolder"] == str(vault)


async def test_a_remote_host_is_never_looked_for(vault: Path, tmp_path: Path) -> None:
    config = Settings.from_env(
        {
            "OBSIDIAN_API_KEY": "k" * 64,
            "OBSIDIAN_HOST": "obsidian.example.org",
            "VAULTGATE_OBSIDIAN_CONFIG": str(vault_list(tmp_path, vault)),
        }
    )
    async with open_backend(config, discovery=QUICK) as backend:
        await anyio.sleep(0.5)  # a search, were one started, would have ended by now
        report = backend.report()
    assert report.kind == "obsidian"
    assert report.discovery is not None
    assert "obsidian.example.org is not this machine" in report.discovery


async def test_backend_obsidian_turns_the_search_off(
    vault: Path, tmp_path: Path, emulators: list[RunningEmulator]
) -> None:
    emulators.append(start_emulator(vault))
    config = settings(emulators[0], vault_list(tmp_path, vault), VAULTGATE_BACKEND="obsidian")
    async with connected(config) as client:
        await anyio.sleep(0.5)  # a search, were one started, would have found the folder
        answer = await info(client)
    assert answer["backend"] == "obsidian"
    assert "VAULTGATE_BACKEND=obsidian" in answer["vaultFolderFound"]


async def test_switching_vaults_in_obsidian_follows_the_plugin(
    vault: Path, other_vault: Path, tmp_path: Path, emulators: list[RunningEmulator]
) -> None:
    first = start_emulator(vault, https_port=None, http_port=0)
    emulators.append(first)
    assert first.http_url is not None
    port = int(first.http_url.rsplit(":", 1)[1])
    config = settings(first, vault_list(tmp_path, vault, other_vault))
    async with connected(config) as client:
        await settled(client, serving(vault))
        first.stop()  # the user opens the other vault in Obsidian
        emulators.append(
            start_emulator(other_vault, https_port=None, http_port=port, api_key=first.api_key)
        )
        await settled(client, serving(other_vault))
        listing = payload(await client.call_tool("list_vault_files", {}))
        assert "Start.md" in json.dumps(listing)


async def test_a_found_folder_is_checked_where_its_links_really_lead(
    vault: Path, tmp_path: Path, emulators: list[RunningEmulator]
) -> None:
    # A note in a public folder that is a symbolic link to a denied one: by name it is allowed,
    # where it really is it is not. Once the folder is found, it is read from disk, so the rule
    # must be decided on the real location there too.
    (vault / "Private").mkdir()
    (vault / "Private" / "secret.md").write_text("wombat passphrase 🗝\n", encoding="utf-8")
    (vault / "Inbox" / "alias 別名.md").symlink_to(vault / "Private" / "secret.md")
    emulators.append(start_emulator(vault))
    denied = settings(emulators[0], vault_list(tmp_path, vault), VAULTGATE_DENY="private/**")
    async with connected(denied) as client:
        await settled(client, serving(vault))
        read = await client.call_tool("get_vault_file", {"filename": "Inbox/alias 別名.md"})
        found = await client.call_tool("search_vault_simple", {"query": "wombat"})
        listed = await client.call_tool("list_vault_files", {"folder": "Inbox"})

    assert read.is_error
    assert "wombat" not in json.dumps(payload(found), ensure_ascii=False)
    assert "alias" not in json.dumps(payload(listed), ensure_ascii=False)
