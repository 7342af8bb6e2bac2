"""A window is the note's text and nothing else (issue 34, item 3; seed 004's read shape).

Through the real MCP client, on the emulator and on the vault folder: ``content[0]`` of a read
is exactly ``note[startIndex:endIndex]`` (at most ``maxLength``), ``content[1]`` the metadata
whenever the window is not the whole note from 0, ``content[2]`` the truncation notice only
while more remains; joining ``content[0]`` of every window of a walk gives the note byte for
byte. The open note needs Obsidian: ``get_active_file`` is walked on the emulator and on the
``auto`` backend (the vault folder for the vault, the plugin for the open note).
"""

from __future__ import annotations

import json
import random
import unicodedata
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import Any, Protocol

import pytest
from mcp import Client
from tests.tools.conftest import EmulatorFactory, folder_settings, settings_for, texts

from vaultgate.server import build_server

pytestmark = pytest.mark.anyio

NOTICE = "Content truncated. Call with startIndex of {} to get more."
METADATA_KEYS = ["truncated", "totalLength", "startIndex", "endIndex", "nextIndex", "hasMore"]

# Code points easy to miscount: astral emoji, ZWJ sequences, skin tones, flags, combining
# accents, CJK, CRLF and lone CR line ends, quotes and backslashes a JSON rendering escapes.
PIECES = [
    "😀",
    "👍🏽",
    "👩\u200d💻",
    "🇫🇷",
    "🇯🇵",
    "e\u0301",
    "漢字",
    "日本語のメモ",
    "\r\n",
    "\n",
    "\r",
    " ",
    "word",
    '"',
    "\\",
    "\t",
    "# ",
]


def awkward_text(seed: int, pieces: int) -> str:
    rnd = random.Random(seed)
    return "".join(rnd.choice(PIECES) for _ in range(pieces))


def big_text() -> str:
    """Over 1 MB (in characters and more in bytes), CRLF, emoji and CJK throughout."""
    paragraph = "Line with 漢字, 😀 and 👩\u200d💻 in it, 🇫🇷 at the end.\r\n" * 7 + "\r\n"
    return (paragraph * (1_000_000 // len(paragraph) + 1))[:1_000_003]


NFD_NAME = unicodedata.normalize("NFD", "Windows/Café résumé.md")
NOTES: dict[str, str] = {
    "Windows/emoji 😀.md": awkward_text(1, 150),
    "Windows/日本語のメモ.md": "# 会議\n" + "日本語のテキスト、漢字とかな。\n" * 12,
    "Windows/crlf.md": "---\r\ntitle: CRLF\r\n---\r\n# Lines\r\n" + "a line 🇯🇵\r\n" * 20,
    NFD_NAME: unicodedata.normalize("NFD", "# Café\n\nrésumé, naïve, crème brûlée.\n") * 4,
    "Windows/Big 📚.md": big_text(),
}
SMALL = [name for name in NOTES if not name.endswith("Big 📚.md")]
BIG = "Windows/Big 📚.md"


def window_lengths(note: str) -> list[int]:
    """A few window sizes: tiny, ragged, the note's length less one, and the default."""
    if len(note) > 100_000:
        return [100_000]
    return [7, 61, len(note) - 1, 10_000]


def write_notes(vault: Path) -> None:
    for name, text in NOTES.items():
        target = vault / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(text.encode("utf-8"))  # byte for byte: CRLF, NFD and all


class Serve(Protocol):
    def __call__(
        self, backend: str, *, active: str | None = None, **env: str
    ) -> AbstractAsyncContextManager[Client]: ...


@pytest.fixture
def serve(vault: Path, emulator_factory: EmulatorFactory) -> Serve:
    """A client of a server on ``backend``: "folder", "auto" (folder and plugin), or a plugin
    version's emulator; ``active`` is the note open in Obsidian."""
    write_notes(vault)

    @asynccontextmanager
    async def open_client(
        backend: str, *, active: str | None = None, **env: str
    ) -> AsyncIterator[Client]:
        memory = {"VAULTGATE_MEMORY_DB": ":memory:"}
        if backend == "folder":
            settings = folder_settings(vault, **env)
        else:
            emulator = emulator_factory(
                plugin_version="5.1.0" if backend == "auto" else backend,
                active_file=active or "Daily/2026-11-21.md",
            )
            if backend == "auto":
                env = {"VAULTGATE_VAULT": str(vault), "VAULTGATE_BACKEND": "auto", **env}
            settings = settings_for(emulator, **memory, **env)
        async with Client(build_server(settings)) as client:
            yield client

    return open_client


def check_window(blocks: list[str], start: int, max_length: int) -> dict[str, Any] | None:
    """The metadata of one window's blocks (None when the one block is the whole note), each
    block's shape checked."""
    if len(blocks) == 1:
        assert start == 0
        assert len(blocks[0]) <= max_length
        return None
    body, metadata_text, *notice = blocks
    metadata = json.loads(metadata_text)
    assert list(metadata) == METADATA_KEYS
    assert metadata["truncated"] is True
    assert metadata["startIndex"] == start
    assert len(body) == metadata["endIndex"] - start <= max_length
    if metadata["hasMore"]:
        assert metadata["nextIndex"] == metadata["endIndex"]
        assert notice == [NOTICE.format(metadata["nextIndex"])]
    else:
        assert metadata["nextIndex"] is None
        assert metadata["endIndex"] == metadata["totalLength"]
        assert notice == []
    return metadata


async def walk(client: Client, tool: str, arguments: dict[str, Any], max_length: int) -> str:
    """Every window of a read from 0, content[0] of each joined."""
    pieces: list[str] = []
    start = 0
    while True:
        result = await client.call_tool(
            tool, {**arguments, "maxLength": max_length, "startIndex": start}
        )
        assert not result.is_error, texts(result)
        blocks = texts(result)
        metadata = check_window(blocks, start, max_length)
        pieces.append(blocks[0])
        if metadata is None or not metadata["hasMore"]:
            return "".join(pieces)
        start = metadata["nextIndex"]
        assert len(pieces) <= 20_000, "the walk does not advance"


@pytest.mark.parametrize("backend", ["5.1.0", "folder"])
async def test_the_seeds_large_file_test_reads_at_most_max_length_then_says_truncated(
    serve: Serve, backend: str
) -> None:
    """Seed 004, Testing Strategy: "get_vault_file truncates large files"."""
    async with serve(backend) as client:
        result = await client.call_tool("get_vault_file", {"filename": BIG, "maxLength": 1000})
    content = texts(result)  # result.content[i].text

    assert len(content[0]) <= 1000
    assert "truncated" in content[1]
    assert content[0] == NOTES[BIG][:1000]


@pytest.mark.parametrize("backend", ["5.1.0", "folder"])
async def test_the_dispatchers_read_has_the_same_shape(serve: Serve, backend: str) -> None:
    arguments = {"operation": "read", "filename": BIG, "maxLength": 1000, "startIndex": 5}
    async with serve(backend, VAULTGATE_TOOLS="compact") as client:
        blocks = texts(await client.call_tool("vault", arguments))

    assert check_window(blocks, 5, 1000) is not None
    assert blocks[0] == NOTES[BIG][5:1005]
    assert blocks[2] == NOTICE.format(1005)


@pytest.mark.parametrize("backend", ["5.1.0", "auto"])
async def test_the_active_file_dispatchers_read_has_the_same_shape(
    serve: Serve, backend: str
) -> None:
    name = "Windows/crlf.md"
    async with serve(backend, active=name, VAULTGATE_TOOLS="compact") as client:
        joined = await walk(client, "active_file", {"operation": "read"}, 17)

    assert joined == NOTES[name]


@pytest.mark.parametrize("backend", ["5.1.0", "folder"])
@pytest.mark.parametrize("name", NOTES, ids=lambda name: name.removeprefix("Windows/"))
async def test_joining_every_window_of_get_vault_file_gives_the_note_byte_for_byte(
    serve: Serve, vault: Path, backend: str, name: str
) -> None:
    on_disk = (vault / name).read_bytes()
    async with serve(backend) as client:
        for max_length in window_lengths(NOTES[name]):
            joined = await walk(client, "get_vault_file", {"filename": name}, max_length)

            assert joined.encode("utf-8") == on_disk, max_length


@pytest.mark.parametrize("backend", ["5.1.0", "auto"])
@pytest.mark.parametrize("name", NOTES, ids=lambda name: name.removeprefix("Windows/"))
async def test_joining_every_window_of_get_active_file_gives_the_note_byte_for_byte(
    serve: Serve, vault: Path, backend: str, name: str
) -> None:
    on_disk = (vault / name).read_bytes()
    async with serve(backend, active=name) as client:
        for max_length in window_lengths(NOTES[name]):
            joined = await walk(client, "get_active_file", {}, max_length)

            assert joined.encode("utf-8") == on_disk, max_length


@pytest.mark.parametrize("backend", ["5.1.0", "folder"])
@pytest.mark.parametrize("note_format", ["json", "map"])
async def test_the_json_and_map_formats_join_into_their_json_text(
    serve: Serve, backend: str, note_format: str
) -> None:
    name = "Windows/crlf.md"
    arguments = {"filename": name, "format": note_format}
    async with serve(backend) as client:
        (whole,) = texts(await client.call_tool("get_vault_file", arguments))
        joined = await walk(client, "get_vault_file", arguments, 13)

    assert joined == whole
    rendered = json.loads(joined)
    if note_format == "json":
        assert rendered["content"] == NOTES[name]
        assert rendered["frontmatter"] == {"title": "CRLF"}
    else:
        assert rendered["headings"] == ["Lines"]


async def test_a_periodic_note_is_windowed_the_same_way(serve: Serve, vault: Path) -> None:
    daily = "Daily/2026-11-21.md"
    text = NOTES["Windows/emoji 😀.md"] * 3
    (vault / daily).write_bytes(text.encode("utf-8"))
    arguments = {"period": "daily", "date": "2026-11-21"}
    async with serve("4.1.7") as client:  # the newest plugin with /periodic/
        joined = await walk(client, "get_periodic_note", arguments, 50)
        (whole,) = texts(await client.call_tool("get_periodic_note", arguments))

    assert joined == whole == text


@pytest.mark.parametrize("backend", ["5.1.0", "folder"])
async def test_each_note_of_a_read_many_is_its_text_and_the_notice_stands_apart(
    serve: Serve, backend: str
) -> None:
    names = [BIG, "Windows/crlf.md", NFD_NAME]
    async with serve(backend) as client:
        body = json.loads(texts(await client.call_tool("get_vault_files", {"filenames": names}))[0])

    by_name = {entry["filename"]: entry for entry in body["notes"]}
    assert by_name["Windows/crlf.md"] == {
        "filename": "Windows/crlf.md",
        "content": NOTES["Windows/crlf.md"],
    }
    big = by_name[BIG]
    assert big["content"] == NOTES[BIG][: big["endIndex"]]  # the note's characters only
    assert big["hasMore"] is True
    assert "Content truncated" not in big["content"]
    assert "get_vault_file" in body["notice"]
