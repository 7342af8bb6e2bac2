"""The found folder checked before every write (issue 36): Obsidian switches vaults under a
running server, a stale copy is named in the vault list, the plugin answers with another key.
Every note of both vaults stays byte-identical except what the user asked to change in the
vault the plugin serves. The emulator on 127.0.0.1 stands for Obsidian; a restart on the same
port with another folder is the user opening another vault."""

from __future__ import annotations

import shutil
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from mcp import Client
from tests.discovery.test_finder import (
    concluded,
    info,
    serving,
    settings,
    settled,
    vault_list,
)
from tests.tools.conftest import FIXTURE_VAULT, texts

from vaultgate.config import Settings
from vaultgate.discovery.finder import DiscoveryTiming
from vaultgate.emulator.runner import RunningEmulator, start_emulator
from vaultgate.server import build_server

pytestmark = pytest.mark.anyio

# the periodic recheck never comes during a test: only the check at the write can notice
NO_RECHECK = DiscoveryTiming(recheck_seconds=600, retry_seconds=0.2)


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    """The vault Obsidian has open first: the notes the model will name are plain here."""
    first = tmp_path / "vault 📓 #1 %"
    shutil.copytree(FIXTURE_VAULT, first)
    (first / ".obsidian").mkdir(exist_ok=True)
    (first / "Inbox" / "read only 読.md").write_text("plain in the first vault\n", "utf-8")
    (first / "Inbox" / "hidden 🙈.md").write_text("plain too\r\n", "utf-8")
    return first


@pytest.fixture
def second(tmp_path: Path) -> Path:
    """The vault the user switches to: the same names, other notes and other tags (a copied
    ``.obsidian`` gives its plugin the same key)."""
    other = tmp_path / "second vault #2"
    (other / "Inbox").mkdir(parents=True)
    (other / ".obsidian").mkdir()
    (other / "Start.md").write_text("# The second vault\r\n", "utf-8")
    (other / "Inbox" / "read only 読.md").write_text(
        "---\ntags: [mcp-readonly]\n---\nkept as it is 🦘\n", "utf-8"
    )
    (other / "Inbox" / "hidden 🙈.md").write_text(
        "---\ntags: [mcp-hidden]\n---\nsecret of the second vault 🗝\n", "utf-8"
    )
    (other / "Inbox" / "only here ここ.md").write_text("the second vault's own note\n", "utf-8")
    return other


@pytest.fixture
def emulators() -> AsyncIterator[list[RunningEmulator]]:
    started: list[RunningEmulator] = []
    yield started
    for emulator in started:
        emulator.stop()


def snapshot(*folders: Path) -> dict[str, bytes]:
    """Every file of ``folders``, hidden ones included, by its path."""
    return {
        str(path): path.read_bytes()
        for folder in folders
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


@asynccontextmanager
async def connected(config: Settings) -> AsyncIterator[Client]:
    async with Client(build_server(config, discovery_timing=NO_RECHECK)) as client:
        yield client


def reopen(
    emulators: list[RunningEmulator], folder: Path, *, api_key: str | None = None
) -> RunningEmulator:
    """The user opens ``folder`` in Obsidian: the plugin now answers on the same port."""
    first = emulators[0]
    assert first.http_url is not None
    port = int(first.http_url.rsplit(":", 1)[1])
    first.stop()
    emulator = start_emulator(
        folder, https_port=None, http_port=port, api_key=api_key or first.api_key
    )
    emulators.append(emulator)
    return emulator


ATTEMPTS = [
    pytest.param(
        "create_vault_file",
        {"filename": "Inbox/only here ここ.md", "content": "replaced?"},
        id="create-without-overwrite",
    ),
    pytest.param(
        "append_to_vault_file",
        {"filename": "Inbox/read only 読.md", "content": "\nappended?"},
        id="append-to-a-read-only-note",
    ),
    pytest.param(
        "create_vault_file",
        {"filename": "Inbox/hidden 🙈.md", "content": "overwritten?", "overwrite": True},
        id="overwrite-a-hidden-note",
    ),
    pytest.param(
        "move_vault_file",
        {"source": "Inbox/hidden 🙈.md", "destination": "Inbox/moved #%.md"},
        id="move-a-hidden-note",
    ),
    pytest.param(
        "delete_vault_file",
        {"filename": "Inbox/read only 読.md", "permanent": True},
        id="delete-a-read-only-note",
    ),
]


@pytest.mark.parametrize(("tool", "arguments"), ATTEMPTS)
async def test_a_vault_switched_in_obsidian_changes_neither_vault(
    vault: Path,
    second: Path,
    tmp_path: Path,
    emulators: list[RunningEmulator],
    tool: str,
    arguments: dict[str, object],
) -> None:
    emulators.append(start_emulator(vault, https_port=None, http_port=0))
    config = settings(emulators[0], vault_list(tmp_path, vault, second))
    async with connected(config) as client:
        await settled(client, serving(vault))
        reopen(emulators, second)
        before = snapshot(vault, second)

        attempt = await client.call_tool(tool, arguments)

        assert attempt.is_error
        assert snapshot(vault, second) == before
        # the write's check had the folder verified again at once: the second vault is found
        await settled(client, serving(second))
        again = await client.call_tool(tool, arguments)
        assert again.is_error  # now refused by the second vault's own rules
        assert snapshot(vault, second) == before


async def test_after_a_switch_the_served_vault_is_the_one_changed(
    vault: Path, second: Path, tmp_path: Path, emulators: list[RunningEmulator]
) -> None:
    emulators.append(start_emulator(vault, https_port=None, http_port=0))
    config = settings(emulators[0], vault_list(tmp_path, vault, second))
    async with connected(config) as client:
        await settled(client, serving(vault))
        reopen(emulators, second)
        before = snapshot(vault, second)
        mismatched = await client.call_tool(
            "append_to_vault_file", {"filename": "Inbox/read only 読.md", "content": "x"}
        )
        assert mismatched.is_error
        assert "nothing was changed" in " ".join(texts(mismatched)).lower()
        await settled(client, serving(second))

        asked = await client.call_tool(
            "append_to_vault_file", {"filename": "Start.md", "content": "\nadded 🦘\r\n"}
        )
        hidden = await client.call_tool("get_vault_file", {"filename": "Inbox/hidden 🙈.md"})

    assert not asked.is_error
    assert hidden.is_error
    after = snapshot(vault, second)
    changed = {path for path in before.keys() | after.keys() if before.get(path) != after.get(path)}
    assert changed == {str(second / "Start.md")}
    assert after[str(second / "Start.md")].endswith("added 🦘\r\n".encode())


async def test_a_write_to_an_unchanged_vault_passes_its_check(
    vault: Path, second: Path, tmp_path: Path, emulators: list[RunningEmulator]
) -> None:
    emulators.append(start_emulator(vault, https_port=None, http_port=0))
    config = settings(emulators[0], vault_list(tmp_path, vault, second))
    async with connected(config) as client:
        answer = await settled(client, serving(vault))
        assert "most recently modified notes of the whole tree" in answer["vaultFolderFound"]
        appended = await client.call_tool(
            "append_to_vault_file", {"filename": "Inbox/read only 読.md", "content": "ok 🦘\n"}
        )
        created = await client.call_tool(
            "create_vault_file", {"filename": "Inbox/new 新.md", "content": "new\r\n"}
        )
    assert not appended.is_error
    assert not created.is_error
    assert (vault / "Inbox" / "read only 読.md").read_text("utf-8").endswith("ok 🦘\n")
    assert (vault / "Inbox" / "new 新.md").read_bytes() == b"new\r\n"


async def test_a_stale_copy_with_its_times_kept_is_refused(
    vault: Path, tmp_path: Path, emulators: list[RunningEmulator]
) -> None:
    copy = tmp_path / "copy of the vault"
    shutil.copytree(vault, copy)  # copy2: names, sizes and times kept
    deep = vault / "Resources" / "Languages" / "日本語メモ.md"
    deep.write_text(deep.read_text("utf-8") + "\n追記 after the copy\n", "utf-8")
    emulators.append(start_emulator(vault))
    async with connected(settings(emulators[0], vault_list(tmp_path, copy))) as client:
        answer = await settled(client, concluded)
    assert answer["backend"] == "obsidian"
    assert "日本語メモ.md" in answer["vaultFolderFound"]


async def test_a_copy_changed_after_it_was_taken_is_refused(
    vault: Path, tmp_path: Path, emulators: list[RunningEmulator]
) -> None:
    copy = tmp_path / "copy of the vault"
    shutil.copytree(vault, copy)
    (copy / "Projects" / "new in the copy #%.md").write_text("only in the copy\n", "utf-8")
    emulators.append(start_emulator(vault))
    async with connected(settings(emulators[0], vault_list(tmp_path, copy))) as client:
        answer = await settled(client, concluded)
    assert answer["backend"] == "obsidian"
    assert "new in the copy #%.md" in answer["vaultFolderFound"]


async def test_another_key_drops_the_found_folder_and_says_so(
    vault: Path, second: Path, tmp_path: Path, emulators: list[RunningEmulator]
) -> None:
    emulators.append(start_emulator(vault, https_port=None, http_port=0))
    config = settings(emulators[0], vault_list(tmp_path, vault, second))
    async with connected(config) as client:
        await settled(client, serving(vault))
        reopen(emulators, second, api_key="b" * 64)
        before = snapshot(vault, second)
        attempts = [
            await client.call_tool(tool, dict(arguments))
            for tool, arguments in (
                ("create_vault_file", {"filename": "Inbox/x ✗.md", "content": "x"}),
                ("append_to_vault_file", {"filename": "Welcome.md", "content": "x"}),
            )
        ]
        answer = await settled(
            client, lambda answer: answer["backend"] == "obsidian" and "401" in str(answer)
        )
    assert all(attempt.is_error for attempt in attempts)
    assert snapshot(vault, second) == before
    assert "another vault" in answer["vaultFolderFound"]


async def test_a_401_at_the_start_is_said_as_such(
    vault: Path, tmp_path: Path, emulators: list[RunningEmulator]
) -> None:
    emulators.append(start_emulator(vault))
    config = settings(emulators[0], vault_list(tmp_path, vault), OBSIDIAN_API_KEY="c" * 64)
    async with connected(config) as client:
        answer = await settled(client, concluded)
        assert (await info(client))["backend"] == "obsidian"
    assert "401" in answer["vaultFolderFound"]


async def test_a_plugin_with_a_quadratic_search_is_verified_by_its_sample(
    vault: Path, tmp_path: Path, emulators: list[RunningEmulator]
) -> None:
    # 4.0.0-4.0.2 search in time quadratic in the notes: the whole tree is not asked there
    emulators.append(start_emulator(vault, plugin_version="4.0.1"))
    async with connected(settings(emulators[0], vault_list(tmp_path, vault))) as client:
        answer = await settled(client, serving(vault))
    assert "most recently modified" not in answer["vaultFolderFound"]
