"""Every memory operation of both profiles (the default profile's `memory`, the split one's
`memory` and `memory_edit`) answers exactly what its mem_* / sdd_* tool answers, and leaves
the database exactly as that tool leaves it."""

from __future__ import annotations

import re
import shutil
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from tests.tools.conftest import EmulatorFactory, texts

from vaultgate.config import Settings
from vaultgate.emulator.runner import RunningEmulator
from vaultgate.memory.store import MemoryStore
from vaultgate.server import build_server
from vaultgate.tools.operations import SPLIT, UNIFIED
from vaultgate.tools.registry import single_tools

pytestmark = pytest.mark.anyio

# (operation, single tool, arguments): every operation, `get` both ways, compact both steps.
# In the split profile update, delete and compact are memory_edit's; every other one memory's.
CASES: list[tuple[str, str, dict[str, Any]]] = [
    ("search", "mem_search", {"query": "cache", "detail_level": "summary", "limit": 2}),
    ("timeline", "mem_timeline", {"observation_id": 3, "before": 1}),
    ("timeline", "mem_timeline", {"before": 2, "after": 0, "project": "Atlas"}),  # around now
    ("get", "mem_get_observation", {"id": 1}),
    ("get", "mem_get_observations", {"ids": [4, 1, 99]}),
    ("context", "mem_context", {"project": "atlas", "limit": 2}),
    (
        "save",
        "mem_save",
        {
            "title": "Cache 🗄 eviction 缓存",
            "content": "LRU\r\nwith a TTL",
            "project": "atlas",
            "session_id": "s1",
            "topic_key": "cache/eviction",
        },
    ),
    (
        "save",
        "mem_save",
        {
            "title": "Naming 🏷",
            "content": "kebab-case, 短い",
            "project": "atlas",
            "topic_key": "naming/pattern",
        },
    ),  # the topic_key of #4: an update, its old text kept as revision 1
    ("update", "mem_update", {"id": 2, "title": "Renamed", "topic_key": ""}),
    ("delete", "mem_delete", {"id": 3, "hard": True}),
    ("session_start", "mem_session_start", {"project": "atlas", "session_id": "s2"}),
    ("session_end", "mem_session_end", {"session_id": "s1", "summary": "done"}),
    ("save_prompt", "mem_save_prompt", {"content": "please #1 50%", "session_id": "s1"}),
    ("stats", "mem_stats", {"project": "atlas"}),
    ("compact", "mem_compact", {"older_than_days": 30, "project": "atlas"}),
    (
        "compact",
        "mem_compact",
        {
            "older_than_days": 30,
            "project": "atlas",
            "compact_ids": "[1, 2]",
            "summary_title": "Cache, so far",
            "summary_content": "LRU won.",
        },
    ),
    ("sdd_context", "sdd_get_context", {"detail_level": "standard"}),
    ("sdd_check", "sdd_context_check", {"change_description": "memory store"}),
]
# Each profile's dispatchers on a server offering every single tool too, so hints read the same
# on both sides: full has the default profile's; a list naming memory_edit the split one's.
SINGLES = [tool.__name__ for _, specs in single_tools() for tool, _ in specs]
PROFILE_TOOLS = {
    "compact": "full",
    "split": ",".join(["discover", "vault", "vault_edit", "memory", "memory_edit", *SINGLES]),
}
TIME = re.compile(r"\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:?\d{2})?")


def seed(path: Path) -> None:
    """Observations old enough to compact, in one session, with a prompt."""
    long_ago = datetime.now(UTC) - timedelta(days=90)
    store = MemoryStore.open(str(path), clock=lambda: long_ago)
    try:
        store.start_session("atlas", "s1", None)
        for n, (title, kind, topic) in enumerate(
            [
                ("Cache decision", "decision", None),
                ("Cache bug 🐛", "bugfix", None),
                ("Memory store uses FTS5", "discovery", None),
                ("Naming pattern", "pattern", "naming/pattern"),
            ]
        ):
            store.save(
                title,
                f"{title}: detail {n}",
                type=kind,
                project="atlas",
                session_id="s1",
                topic_key=topic,
            )
        store.save_prompt("make the cache faster", project="atlas", session_id="s1")
    finally:
        store.close()


def settings(emulator: RunningEmulator, db: Path, profile: str = "compact") -> Settings:
    assert emulator.https_url is not None
    return Settings.from_env(
        {
            "OBSIDIAN_API_KEY": emulator.api_key,
            "OBSIDIAN_PORT": emulator.https_url.rsplit(":", 1)[1],
            "OBSIDIAN_CERT": str(emulator.certificate_path),
            "VAULTGATE_TOOLS": PROFILE_TOOLS[profile],
            "VAULTGATE_MEMORY_DB": str(db),
        }
    )


def normalized(text: str, db: Path) -> str:
    """Times (each side writes at its own moment) and the database's own path blanked."""
    return TIME.sub("<time>", text.replace(str(db), "<db>"))


def rows(db: Path) -> dict[str, list[str]]:
    """Every row of every table, times blanked."""
    with sqlite3.connect(db) as conn:
        tables = [
            name
            for (name,) in conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"
            )
        ]
        return {
            table: [
                TIME.sub("<time>", repr(row)) for row in conn.execute(f'SELECT * FROM "{table}"')
            ]
            for table in tables
        }


def test_the_cases_walk_every_memory_operation_of_both_profiles() -> None:
    operations = {operation for operation, _, _ in CASES}
    assert operations == set(UNIFIED["memory"].routes)
    assert operations == set(SPLIT["memory"].routes) | set(SPLIT["memory_edit"].routes)
    for operation, tool, _ in CASES:
        assert tool in UNIFIED["memory"].routes[operation].single_tools


def dispatcher_of(profile: str, operation: str) -> str:
    if profile == "split" and operation in SPLIT["memory_edit"].routes:
        return "memory_edit"
    return "memory"


@pytest.mark.parametrize(
    ("profile", "operation", "tool", "arguments"),
    [
        pytest.param(profile, *case, id=f"{profile}-{case[0]}-{case[1]}-{n}")
        for profile in PROFILE_TOOLS
        for n, case in enumerate(CASES)
    ],
)
async def test_each_memory_operation_answers_as_its_single_tool(
    tmp_path: Path,
    emulator_factory: EmulatorFactory,
    profile: str,
    operation: str,
    tool: str,
    arguments: dict[str, Any],
) -> None:
    emulator = emulator_factory()
    seed(tmp_path / "seed.db")
    answers = []
    for side, call in (
        ("dispatcher", (dispatcher_of(profile, operation), {"operation": operation, **arguments})),
        ("single", (tool, arguments)),
    ):
        db = tmp_path / f"{side}.db"
        shutil.copy(tmp_path / "seed.db", db)
        async with Client(build_server(settings(emulator, db, profile))) as client:
            result = await client.call_tool(*call)
        answers.append((result.is_error, [normalized(t, db) for t in texts(result)]))

    assert not answers[0][0], answers[0]
    assert answers[0] == answers[1]
    assert rows(tmp_path / "dispatcher.db") == rows(tmp_path / "single.db")


@pytest.mark.parametrize(
    "arguments",
    [
        pytest.param({}, id="neither"),
        pytest.param({"id": 1, "ids": [1]}, id="both"),
        pytest.param({"ids": list(range(1, 12))}, id="more-than-ten"),
    ],
)
async def test_get_takes_id_or_ids(
    tmp_path: Path, emulator_factory: EmulatorFactory, arguments: dict[str, Any]
) -> None:
    seed(tmp_path / "memory.db")
    server = build_server(settings(emulator_factory(), tmp_path / "memory.db"))
    async with Client(server) as client:
        result = await client.call_tool("memory", {"operation": "get", **arguments})

    assert result.is_error
    assert "ids" in texts(result)[0]
