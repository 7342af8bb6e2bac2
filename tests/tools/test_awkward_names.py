"""Names with '%', '#', '?', '&', '+', spaces, CJK and emoji survive every write tool.

A '%' that is not encoded turns 'a%20b.md' into 'a b.md' on the plugin's side, and '100%
done.md' into a malformed escape (the real plugin answers 500 before its own checks run).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp import Client
from tests.tools.conftest import payload, settings_for, texts

from vaultgate.emulator.runner import RunningEmulator
from vaultgate.server import build_server

pytestmark = pytest.mark.anyio

NAMES = [
    "100% done.md",
    "a%20b.md",
    "50%25 off/sale%.md",
    "C# notes #1.md",
    "what?.md",
    "R&D/a&b=c+d.md",
    "日本 🚀/ノート 📓.md",
    "semi;colon, comma.md",
]


@pytest.mark.parametrize("name", NAMES)
async def test_an_awkward_name_is_created_read_moved_and_deleted_exactly(
    vault: Path, emulator: RunningEmulator, name: str
) -> None:
    moved = f"Moved %2F here/{name.rpartition('/')[2]}"
    text = f"# {name}\r\n\r\n100% 日本 🚀\r\n"

    async with Client(build_server(settings_for(emulator))) as client:
        created = await client.call_tool("create_vault_file", {"filename": name, "content": text})
        read = await client.call_tool("get_vault_file", {"filename": name})
        appended = await client.call_tool(
            "append_to_vault_file", {"filename": name, "content": "more"}
        )
        on_disk_after_append = (vault / name).read_bytes().decode("utf-8")
        move = await client.call_tool("move_vault_file", {"source": name, "destination": moved})
        listed = payload(await client.call_tool("list_vault_files", {"folder": "Moved %2F here"}))
        deleted = await client.call_tool("delete_vault_file", {"filename": moved})

    for result in (created, read, appended, move, deleted):
        assert not result.is_error, texts(result)
    assert texts(read)[0] == text
    assert on_disk_after_append == text + "more"
    assert listed["files"] == [moved]
    assert not (vault / name).exists()
    assert not (vault / moved).exists()
