"""What protection tags cost in requests, and how fresh the guard's view of them is.

The guarded client talks plain HTTP to the emulator of each version, and every request it
sends is recorded: a read of an unprotected note costs no request more than before, listings
and searches share one search for the marked notes, and a write reads the note once first.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote

import pytest
from tests.vault.emulated import plugin_client

from vaultgate.config import SafetySettings
from vaultgate.errors import NotFound, ProtectedNote
from vaultgate.vault.guard import GuardedClient
from vaultgate.vault.policy import AccessPolicy

pytestmark = pytest.mark.anyio

PLAIN = "Notes/plain #1 100%.md"
HIDDEN = "Notes/🙈 hidden.md"
READONLY = "Notes/read only 日本.md"
NOTES = {
    PLAIN: "---\ntags: [a]\n---\n# Plain\n\nplain words\n",
    HIDDEN: "---\ntags: [mcp-hidden, b]\n---\nhidden words #secret/inner\n",
    READONLY: "---\ntags: mcp-readonly\n---\nread-only words\n",
}
VERSIONS = ["3.6.2", "4.1.7", "5.1.0"]
SEARCH = "POST /search/"


@dataclass
class Guarded:
    client: GuardedClient
    requests: list[str]  # "METHOD /raw/path" of every request, in order
    vault: Path

    def sent(self) -> list[str]:
        """The requests since the last call, paths decoded and without their query, the
        plugin's GET / left out."""
        sent = [
            unquote(request.split("?", 1)[0]) for request in self.requests if request != "GET /"
        ]
        self.requests.clear()
        return sent


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    for path, text in NOTES.items():
        file = root.joinpath(*path.split("/"))
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_text(text, encoding="utf-8")
    return root


@asynccontextmanager
async def guarded(vault: Path, version: str, marks_ttl: float = 30.0) -> AsyncIterator[Guarded]:
    async with plugin_client(vault, version) as (plugin, requests):
        client = GuardedClient(plugin, AccessPolicy(SafetySettings()), marks_ttl=marks_ttl)
        yield Guarded(client, requests, vault)


def url(path: str) -> str:
    return "/vault/" + path


@pytest.mark.parametrize("version", VERSIONS)
async def test_reading_an_unprotected_note_costs_no_extra_request(
    vault: Path, version: str
) -> None:
    async with guarded(vault, version) as g:
        await g.client.read_note(PLAIN)
        assert g.sent() == [f"GET {url(PLAIN)}"]
        await g.client.read_note_json(PLAIN)
        assert g.sent() == [f"GET {url(PLAIN)}"]


@pytest.mark.parametrize("version", VERSIONS)
async def test_reading_a_hidden_note_answers_as_a_missing_one_at_no_extra_cost(
    vault: Path, version: str
) -> None:
    async with guarded(vault, version) as g:
        with pytest.raises(NotFound) as hidden:
            await g.client.read_note(HIDDEN)
        with pytest.raises(NotFound) as missing:
            await g.client.read_note("Notes/🙉 hidden.md")

    assert str(hidden.value) == str(missing.value).replace("🙉", "🙈")
    assert SEARCH not in g.requests


@pytest.mark.parametrize("version", VERSIONS)
async def test_listings_searches_and_tags_share_one_search_for_the_marked_notes(
    vault: Path, version: str
) -> None:
    async with guarded(vault, version) as g:
        assert await g.client.list_directory("Notes") == [
            "plain #1 100%.md",
            "read only 日本.md",
        ]
        hits = await g.client.search_simple("words", 10)
        rows = await g.client.search_jsonlogic({"glob": ["Notes/*", {"var": "path"}]})
        tags = {tag["name"]: tag["count"] for tag in await g.client.list_tags()}
        sent = g.sent()

    assert sorted(hit["filename"] for hit in hits) == [PLAIN, READONLY]
    assert sorted(row["filename"] for row in rows) == [PLAIN, READONLY]
    assert "secret" not in tags
    assert "secret/inner" not in tags
    assert "b" not in tags
    assert sent.count(SEARCH) == 2  # the marked notes once, the query once


@pytest.mark.parametrize("version", VERSIONS)
async def test_a_write_reads_the_note_once_first(vault: Path, version: str) -> None:
    async with guarded(vault, version) as g:
        await g.client.append_note(PLAIN, "more\n")
        assert g.sent() == [f"GET {url(PLAIN)}", f"POST {url(PLAIN)}"]
        await g.client.write_note("Notes/new.md", "new\n")
        assert g.sent() == [f"GET {url('Notes/new.md')}", f"PUT {url('Notes/new.md')}"]
        with pytest.raises(ProtectedNote):
            await g.client.append_note(READONLY, "more\n")
        assert g.sent() == [f"GET {url(READONLY)}"]


async def test_a_note_tagged_through_vaultgate_is_hidden_at_once(vault: Path) -> None:
    async with guarded(vault, "5.1.0") as g:
        assert "plain #1 100%.md" in await g.client.list_directory("Notes")
        await g.client.write_note(PLAIN, "---\ntags: [mcp-hidden]\n---\nnow hidden\n")
        assert "plain #1 100%.md" not in await g.client.list_directory("Notes")


@pytest.mark.parametrize(("ttl", "hidden"), [(30.0, False), (0.0, True)])
async def test_a_note_tagged_outside_vaultgate_is_hidden_when_the_marks_expire(
    vault: Path, ttl: float, hidden: bool
) -> None:
    async with guarded(vault, "5.1.0", marks_ttl=ttl) as g:
        assert "plain #1 100%.md" in await g.client.list_directory("Notes")
        file = vault / "Notes" / "plain #1 100%.md"
        file.write_text("---\ntags: [mcp-hidden]\n---\nhidden by hand\n", encoding="utf-8")
        os.utime(file, (1, 2_000_000_000))
        listed = await g.client.list_directory("Notes")
        # its own text tells at once: a read never waits for the marks
        with pytest.raises(NotFound):
            await g.client.read_note(PLAIN)

    assert ("plain #1 100%.md" not in listed) is hidden


async def test_on_4_0_2_the_marked_notes_come_from_simple_searches(vault: Path) -> None:
    async with guarded(vault, "4.0.2") as g:
        listed = await g.client.list_directory("Notes")
        sent = g.sent()

    assert listed == ["plain #1 100%.md", "read only 日本.md"]
    assert SEARCH not in sent  # its JsonLogic search is quadratic in the notes
    assert sent.count("POST /search/simple/") == 3
