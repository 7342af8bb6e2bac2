"""A first page is always fresh (issue 36): ask, change the vault elsewhere, ask the same
question again at offset 0, and the change shows; on the folder backend (written on disk,
seen after the watcher's delay) and through the plugin (written in the emulator's folder).

Before, a search was answered from a 60 s cache, a listing, links and prompts from 30 s
ones, so the second answer was the first one again. A later page still comes from its first
page's snapshot, and says so when the vault has changed since."""

from __future__ import annotations

import json
import unicodedata
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.types import ResourceTemplateReference
from tests.tools.conftest import EmulatorFactory, folder_settings, settings_for, texts

from vaultgate.server import build_server
from vaultgate.vault.note_uris import TEMPLATE

pytestmark = pytest.mark.anyio

BACKENDS = ["folder", "5.1.0"]
WAIT = 10.0  # seconds the change may take to show (the folder's watcher: well under one)
CAFE = unicodedata.normalize("NFD", "café")  # as macOS names files
FRESH = f"Inbox/Fresh #1 100% {CAFE} 日本 🚀.md"
FRESH_TEXT = (
    "---\r\ntags: [freshtag]\r\n---\r\n# Fresh 🧪\r\n\r\n"
    "quokka 日本語 beside 🚀, linking [[Welcome]] and [[Nowhere at all]]\r\n"
)
PROMPT = "Prompts/Fresh prompt 🚀.md"
PROMPT_TEXT = "#mcp-tools-prompt\r\nSay quokka to {{name}}.\r\n"

Ask = Callable[[Client], Awaitable[str]]


async def _tool(client: Client, name: str, **arguments: Any) -> str:
    result = await client.call_tool(name, arguments)
    assert not result.is_error, texts(result)
    return "\n".join(texts(result))


@dataclass(frozen=True)
class Question:
    """A first page, and what it holds once the fresh note is in the vault."""

    ask: Ask
    shows: str  # text the answer holds after the change (not before)


async def _smart(client: Client) -> str:
    """A smart search, once the folder's first index build lets it answer."""
    with anyio.fail_after(WAIT):
        while True:
            result = await client.call_tool("search_vault_smart", {"query": "quokka"})
            if not result.is_error or "being built" not in "".join(texts(result)):
                break
            await anyio.sleep(0.05)
    assert not result.is_error, texts(result)
    return "\n".join(texts(result))


async def _resources(client: Client) -> str:
    page = await client.list_resources()
    return json.dumps([r.name for r in page.resources], ensure_ascii=False)


async def _completion(client: Client) -> str:
    typed = {"name": "path", "value": "inbox/fresh"}
    done = await client.complete(ResourceTemplateReference(uri=TEMPLATE), typed)
    return json.dumps(done.completion.values, ensure_ascii=False)


async def _prompts(client: Client) -> str:
    return json.dumps([p.name for p in (await client.list_prompts()).prompts])


def _decoded(answer: str) -> str:
    """The answer with its JSON read, so that a name is compared as written."""
    try:
        return json.dumps(json.loads(answer), ensure_ascii=False)
    except ValueError:
        return answer


QUESTIONS = {
    "simple search": Question(
        lambda c: _tool(c, "search_vault_simple", query="quokka"), "Fresh #1"
    ),
    "structured search": Question(
        lambda c: _tool(c, "search_vault", query={"glob": ["Inbox/**", {"var": "path"}]}),
        "Fresh #1",
    ),
    "smart search": Question(_smart, "Fresh #1"),
    "flat listing": Question(
        lambda c: _tool(c, "list_vault_files", directory="Inbox", recursive=True), "Fresh #1"
    ),
    "tree listing": Question(
        lambda c: _tool(c, "list_vault_files", recursive=True, layout="tree"), "Fresh #1"
    ),
    "tags": Question(lambda c: _tool(c, "list_tags"), "freshtag"),
    "recent changes": Question(lambda c: _tool(c, "get_recent_changes"), "Fresh #1"),
    "backlinks": Question(lambda c: _tool(c, "get_backlinks", filename="Welcome.md"), "Fresh #1"),
    "broken links": Question(lambda c: _tool(c, "find_broken_links"), "Nowhere at all"),
    "orphans": Question(lambda c: _tool(c, "find_orphans"), "Fresh #1"),
    "resources": Question(_resources, "Fresh #1"),
    "completion": Question(_completion, "Fresh #1"),
    "prompts": Question(_prompts, "Fresh-prompt"),
}


def _write(vault: Path, path: str, text: str) -> None:
    target = vault / path
    target.parent.mkdir(parents=True, exist_ok=True)
    with target.open("w", encoding="utf-8", newline="") as out:
        out.write(text)


Opened = tuple[Client, Callable[[], None]]


@pytest.fixture
def open_server(vault: Path, emulator_factory: EmulatorFactory) -> Callable[..., Any]:
    """A Client on a server for ``backend``, and what to call once the vault folder was
    written to: nothing for the folder (its watcher sees it), Obsidian's own rescan of its
    folder for the plugin's emulator."""

    @asynccontextmanager
    async def open_client(backend: str) -> AsyncIterator[Opened]:
        # awkward neighbours: a hidden folder's notes and the trash never show
        _write(vault, ".obsidian/quokka.md", "quokka in the config\n")
        _write(vault, ".trash/quokka.md", "quokka in the trash\n")
        noticed: Callable[[], None] = lambda: None  # noqa: E731
        if backend == "folder":
            settings = folder_settings(vault)
        else:
            emulator = emulator_factory(plugin_version=backend, extensions=True)
            settings = settings_for(emulator, VAULTGATE_MEMORY_DB=":memory:")
            noticed = emulator.state.refresh
        async with Client(build_server(settings)) as client:
            yield client, noticed

    return open_client


async def _until_shown(client: Client, question: Question) -> str:
    """The question asked again at offset 0 until its answer shows the change (the folder's
    watcher needs its delay), for WAIT seconds at most."""
    with anyio.move_on_after(WAIT):
        while question.shows not in (answer := _decoded(await question.ask(client))):  # noqa: ASYNC110 (no event to wait on)
            await anyio.sleep(0.05)
        return answer
    return answer


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("kind", list(QUESTIONS))
async def test_a_first_page_asked_again_shows_a_change_made_elsewhere(
    vault: Path, open_server: Callable[..., Any], backend: str, kind: str
) -> None:
    question = QUESTIONS[kind]
    _write(vault, "Prompts/Old prompt.md", "#mcp-tools-prompt\nHello {{name}}.\n")
    async with open_server(backend) as (client, noticed):
        before = _decoded(await question.ask(client))
        _write(vault, FRESH, FRESH_TEXT)
        _write(vault, PROMPT, PROMPT_TEXT)
        noticed()
        after = await _until_shown(client, question)

    assert question.shows not in before
    assert question.shows in after
    assert "in the config" not in after
    assert "in the trash" not in after


async def test_a_later_page_cut_before_a_change_says_so_beside_its_pagination(
    vault: Path, open_server: Callable[..., Any]
) -> None:
    _write(vault, "Inbox/quokka one.md", "quokka 日本語\r\n")
    _write(vault, "Inbox/quokka two.md", "quokka 🚀\r\n")
    async with open_server("folder") as (client, _):
        await _smart(client)  # the index answers: its watcher keeps it current
        ask = {"query": "quokka", "limit": 1}
        first = json.loads(await _tool(client, "search_vault_simple", **ask))
        second = json.loads(await _tool(client, "search_vault_simple", **ask, offset=1))
        _write(vault, FRESH, FRESH_TEXT)
        with anyio.fail_after(WAIT):  # the watcher's delay
            while "snapshot" not in (  # noqa: ASYNC110 (no event to wait on)
                later := json.loads(await _tool(client, "search_vault_simple", **ask, offset=1))
            ):
                await anyio.sleep(0.05)
        again = json.loads(await _tool(client, "search_vault_simple", **ask))

    assert first["pagination"] == {
        "total": 2, "offset": 0, "limit": 1, "hasMore": True, "nextOffset": 1
    }  # fmt: skip
    assert "snapshot" not in first
    assert "snapshot" not in second
    assert later["pagination"] == second["pagination"]  # the snapshot's, as the seed shapes it
    assert later["results"] == second["results"]
    assert "Ask again with offset 0" in later["snapshot"]
    assert again["pagination"]["total"] == 3
    assert "snapshot" not in again
