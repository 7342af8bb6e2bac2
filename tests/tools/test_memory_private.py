"""``<private>`` text never reaches the memory database, whatever parameter carries it (issue 36).

Every string parameter of every memory and SDD tool is called, one at a time, with a
``<private>`` span holding a word of its own; then every text column of every table, and the
database file's bytes, must hold none of those words. Text fields are stored with the span as
[REDACTED]; keys (project, session_id, topic_key) are refused; filters and queries store nothing.
"""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from vaultgate.config import Settings
from vaultgate.memory.store import MemoryStore
from vaultgate.server import build_server

pytestmark = pytest.mark.anyio

OLD_NOTES = 8  # observations old enough to compact, one per mem_compact call that may succeed

# The required arguments each tool is called with; the parameter under test is added to them.
BASELINES: dict[str, dict[str, Any]] = {
    "mem_session_start": {"project": "atlas"},
    "mem_session_end": {"session_id": "s1"},
    "mem_save": {"title": "t", "content": "c"},
    "mem_update": {"id": 1},
    "mem_save_prompt": {"content": "c"},
    "mem_stats": {},
    "mem_search": {"query": "q"},
    "mem_context": {},
    "mem_timeline": {},
    "timeline": {},
    "mem_get_observation": {"id": 1},
    "mem_get_observations": {"ids": [1]},
    "mem_compact": {"older_than_days": 1},
    "sdd_get_context": {},
    "sdd_context_check": {"change_description": "auth"},
}


def string_parameters(schema: dict[str, Any]) -> list[str]:
    """The properties a string can be passed to (alone or as one branch of a union)."""

    def takes_text(node: dict[str, Any]) -> bool:
        return node.get("type") == "string" or any(takes_text(b) for b in node.get("anyOf", []))

    return [name for name, node in schema.get("properties", {}).items() if takes_text(node)]


def seed_old_observations(db: Path) -> None:
    """Observations made ten days ago, so mem_compact has something to compact."""
    ten_days_ago = datetime.now(UTC) - timedelta(days=10)
    store = MemoryStore.open(str(db), clock=lambda: ten_days_ago)
    try:
        for n in range(OLD_NOTES):
            store.save(f"old {n}", "old words")
    finally:
        store.close()


async def test_private_text_in_any_parameter_of_any_memory_tool_is_never_stored(
    tmp_path: Path,
) -> None:
    db = tmp_path / "memory.db"
    seed_old_observations(db)
    vault = tmp_path / "vault"
    (vault / ".obsidian").mkdir(parents=True)
    settings = Settings.from_env(
        {
            "VAULTGATE_VAULT": str(vault),
            "VAULTGATE_BACKEND": "folder",
            "VAULTGATE_MEMORY_DB": str(db),
            "VAULTGATE_TOOLS": "full",
        }
    )
    secrets: dict[str, str] = {}
    compactable = iter(range(1, OLD_NOTES + 1))
    async with Client(build_server(settings)) as client:
        await client.call_tool("mem_session_start", {"project": "atlas", "session_id": "s1"})
        await client.call_tool("mem_save", {"title": "live", "content": "live words"})
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        for name, baseline in BASELINES.items():
            for parameter in string_parameters(tools[name].input_schema):
                secret = f"zq{len(secrets)}secret"
                secrets[f"{name}.{parameter}"] = secret
                arguments = {**baseline, parameter: f"日本 🔑 <private>{secret}</private> x"}
                if name == "mem_compact" and parameter != "compact_ids":
                    arguments["compact_ids"] = [next(compactable)]
                    arguments.setdefault("summary_title", "summary")
                await client.call_tool(name, arguments)  # stored redacted, refused, or read

    assert {"mem_save.topic_key", "mem_session_start.directory", "mem_compact.session_id"} <= set(
        secrets
    )
    stored = stored_texts(db)
    assert "[REDACTED]" in stored  # the calls did store, with their spans redacted
    found = {where: secret for where, secret in secrets.items() if secret in stored}
    assert found == {}
    on_disk = b"".join(p.read_bytes() for p in tmp_path.glob("memory.db*"))
    assert {w: s for w, s in secrets.items() if s.encode() in on_disk} == {}


def stored_texts(db: Path) -> str:
    """Every text value of every column of every table, the search index's included."""
    conn = sqlite3.connect(db)
    try:
        tables = [
            row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")
        ]
        values: list[str] = []
        for table in tables:
            for row in conn.execute(f'SELECT * FROM "{table}"'):
                values += [v for v in row if isinstance(v, str)]
                values += [v.decode("utf-8", "replace") for v in row if isinstance(v, bytes)]
        return "\n".join(values)
    finally:
        conn.close()
