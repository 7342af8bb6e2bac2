"""The complete recursive listing costs no more than the leanest peer's folder-by-folder walk.

The bound: MCPVault 0.16.0 walked the 20,000-note bench vault (20,001 files, 2,000 folders, made
by bench/generate_vault.py) in 624,985 characters, 31.2 per file. The same generator, smaller,
makes the same kind of names and folders, so a vault of its making listed completely, every page,
must cost at most 31.2 characters per file.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

import pytest
from mcp import Client
from tests.tools.conftest import folder_settings

from vaultgate.server import build_server

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from generate_vault import _write_vault

pytestmark = pytest.mark.anyio

PEER_CHARS_PER_FILE = 624_985 / 20_001


async def test_the_complete_recursive_listing_costs_no_more_than_the_peers_walk(
    tmp_path: Path,
) -> None:
    vault = tmp_path / "vault"
    _write_vault(vault, notes=1_000, folders=100, rng=random.Random(7))
    files = sorted(p.relative_to(vault).as_posix() for p in vault.rglob("*") if p.is_file())
    async with Client(build_server(folder_settings(vault))) as client:
        listed: list[str] = []
        chars = 0
        # the cheapest complete walk, as the tool's description says: tree pages of 1,000
        arguments: dict[str, object] = {"recursive": True, "layout": "tree", "limit": 1000}
        while True:
            result = await client.call_tool("list_vault_files", arguments)
            chars += sum(len(block.text) for block in result.content)  # type: ignore[union-attr]
            page = json.loads(result.content[0].text)  # type: ignore[union-attr]
            pagination = page["pagination"]
            assert pagination["total"] == len(files)
            listed += [f + n for f, names in page["folders"].items() for n in names]
            if not pagination["hasMore"]:
                break
            arguments["offset"] = pagination["nextOffset"]

    assert sorted(listed) == files  # every file once
    assert chars <= PEER_CHARS_PER_FILE * len(files)
