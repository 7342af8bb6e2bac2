"""The seed conformance suite's fixtures: a client written only from the seeds.

Every test here calls the server the way a client that read nothing but the seeds
(../shared/seeds/000-004) would: through the SDK's in-process ``Client``, with the seeds' tool
names and parameter names. Single tools run in the ``full`` profile; the dispatchers (``vault``,
``active_file``, ``discover``, ``memory``) in the default profile (VAULTGATE_TOOLS unset).

The vault is the fixture vault plus awkward notes: emoji and CJK names with near matches,
names with '#', '%' and spaces, CRLF line ends, and a note over 1 MB for windows.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.types import CallToolResult, TextContent

from vaultgate.config import Settings
from vaultgate.emulator.runner import RunningEmulator, start_emulator
from vaultgate.memory.store import MemoryStore
from vaultgate.server import build_server

FIXTURE_VAULT = Path(__file__).resolve().parents[2] / "fixtures" / "vault"
SEEDS = Path(__file__).resolve().parents[3] / "shared" / "seeds"

BACKENDS = ["folder", "emulator"]

# The awkward notes every seed test can find in its vault.
LARGE_NOTE = "Seed/Large note 📚.md"
CRLF_NOTE = "Seed/Windows lines.md"
HASH_NOTE = "Seed/Issue #34 notes.md"
PERCENT_NOTE = "Seed/100% done.md"
SPACES_NOTE = "Seed/With  two  spaces.md"
EMOJI_NOTE = "Seed/Rocket 🚀 launch.md"
EMOJI_NEAR = "Seed/Rocket 🚁 launch.md"
CJK_NOTE = "Seed/東京 メモ.md"
CJK_NEAR = "Seed/東京 メモ帳.md"
MANY_FOLDER = "Seed/Many"
MANY_COUNT = 130  # more than every default page (100 files, 20 and 50 results)
SEARCH_WORD = "zephyrine"  # in every note of MANY_FOLDER, and nowhere else


def large_text() -> str:
    """Over 1 MB of markdown: headings, emoji, CJK, CRLF-free lines, numbered to be exact."""
    lines = ["# Large note 📚", ""]
    size = 0
    n = 0
    while size < 1_100_000:
        line = f"Line {n:06d}: café 東京 🚀 — the quick brown fox, round {n}."
        lines.append(line)
        size += len(line) + 1
        n += 1
        if n % 500 == 0:
            lines.extend(["", f"## Part {n // 500}", ""])
    return "\n".join(lines) + "\n"


def write_awkward_notes(vault: Path) -> None:
    seed = vault / "Seed"
    seed.mkdir()
    (vault / LARGE_NOTE).write_text(large_text(), encoding="utf-8")
    (vault / CRLF_NOTE).write_bytes(
        b"# Windows lines\r\n\r\nFirst line.\r\nSecond line with zephyr-ish words.\r\n"
    )
    (vault / HASH_NOTE).write_text("# Issue #34\n\nThe seeds' contract.\n", encoding="utf-8")
    (vault / PERCENT_NOTE).write_text("# 100% done\n\nAll of it.\n", encoding="utf-8")
    (vault / SPACES_NOTE).write_text("# Two spaces\n\nBetween words.\n", encoding="utf-8")
    (vault / EMOJI_NOTE).write_text("# Rocket 🚀\n\nLaunch at dawn.\n", encoding="utf-8")
    (vault / EMOJI_NEAR).write_text("# Helicopter 🚁\n\nLaunch at dusk.\n", encoding="utf-8")
    (vault / CJK_NOTE).write_text("# 東京 メモ\n\n会議は月曜日。\n", encoding="utf-8")
    (vault / CJK_NEAR).write_text("# 東京 メモ帳\n\n会議は火曜日。\n", encoding="utf-8")
    many = vault / MANY_FOLDER
    many.mkdir()
    for n in range(MANY_COUNT):
        (many / f"Item {n:03d} #{n} 50%.md").write_text(
            f"# Item {n}\n\nstatus: open\n\nThe word {SEARCH_WORD} appears here, once, in {n}.\n",
            encoding="utf-8",
        )


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    copy = tmp_path / "vault"
    shutil.copytree(FIXTURE_VAULT, copy)
    write_awkward_notes(copy)
    return copy


EmulatorFactory = Callable[..., RunningEmulator]


@pytest.fixture
def emulator_factory(vault: Path) -> Iterator[EmulatorFactory]:
    started: list[RunningEmulator] = []

    def start(**options: Any) -> RunningEmulator:
        options.setdefault("active_file", "Daily/2026-11-21.md")
        emulator = start_emulator(vault, **options)
        started.append(emulator)
        return emulator

    yield start
    for emulator in started:
        emulator.stop()


def emulator_env(emulator: RunningEmulator) -> dict[str, str]:
    assert emulator.https_url is not None
    return {
        "OBSIDIAN_API_KEY": emulator.api_key,
        "OBSIDIAN_PORT": emulator.https_url.rsplit(":", 1)[1],
        "OBSIDIAN_CERT": str(emulator.certificate_path),
    }


def folder_env(vault: Path) -> dict[str, str]:
    return {"VAULTGATE_VAULT": str(vault), "VAULTGATE_BACKEND": "folder"}


def profile_env(profile: str | None) -> dict[str, str]:
    """``None``: VAULTGATE_TOOLS unset, the default profile a client gets out of the box."""
    return {} if profile is None else {"VAULTGATE_TOOLS": profile}


ClientOpener = Callable[..., AbstractAsyncContextManager[Client]]


@pytest.fixture
def open_client(vault: Path, emulator_factory: EmulatorFactory) -> ClientOpener:
    """``open_client(backend, profile, **env)``: a connected Client on ``vault``; for the
    emulator, ``active_file=`` names the note open in Obsidian and ``plugin_version=`` the
    Local REST API release it answers as."""

    @asynccontextmanager
    async def opened(
        backend: str = "folder", profile: str | None = "full", **env: str
    ) -> AsyncIterator[Client]:
        if backend == "folder":
            base = folder_env(vault)
        else:
            # The companion plugin too (search_vault_smart, templates): a full plugin setup.
            options: dict[str, Any] = {"extensions": True}
            for option in ("active_file", "plugin_version"):
                if option in env:
                    options[option] = env.pop(option)
            base = emulator_env(emulator_factory(**options))
        settings = Settings.from_env(
            {"VAULTGATE_MEMORY_DB": ":memory:", **base, **profile_env(profile), **env}
        )
        async with Client(build_server(settings)) as client:
            yield client

    return opened


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
async def full(open_client: ClientOpener, backend: str) -> AsyncIterator[Client]:
    """Every single tool, on each backend in turn."""
    async with open_client(backend, "full") as client:
        yield client


@pytest.fixture
async def default(open_client: ClientOpener, backend: str) -> AsyncIterator[Client]:
    """The default profile (VAULTGATE_TOOLS unset): the dispatchers, on each backend in turn."""
    async with open_client(backend, None) as client:
        yield client


# --- memory -------------------------------------------------------------------------------


def memory_settings(db: str = ":memory:", profile: str | None = "full", **env: str) -> Settings:
    return Settings.from_env(
        {"OBSIDIAN_API_KEY": "k", "VAULTGATE_MEMORY_DB": db, **profile_env(profile), **env}
    )


@pytest.fixture
async def mem() -> AsyncIterator[Client]:
    """The single memory tools (full profile), memory in RAM."""
    async with Client(build_server(memory_settings())) as client:
        yield client


@pytest.fixture
async def mem_default() -> AsyncIterator[Client]:
    """The default profile's ``memory`` dispatcher, memory in RAM."""
    async with Client(build_server(memory_settings(profile=None))) as client:
        yield client


@dataclass(frozen=True)
class Saved:
    """What a seeded store holds: ids in the order saved."""

    ids: list[int]


class SteppingClock:
    """A clock the test moves: each save happens at ``now``."""

    def __init__(self, start: datetime) -> None:
        self.now = start

    def __call__(self) -> datetime:
        return self.now


def seed_store(
    path: Path, entries: Sequence[tuple[datetime, dict[str, Any]]], *, start: datetime | None = None
) -> Saved:
    """Save each ``(when, mem_save arguments)`` into the database at ``path`` at that time."""
    clock = SteppingClock(start or datetime.now(UTC))
    store = MemoryStore.open(str(path), clock=clock)
    ids = []
    try:
        for when, arguments in entries:
            clock.now = when
            arguments = dict(arguments)
            title = arguments.pop("title")
            content = arguments.pop("content")
            ids.append(store.save(title, content, **arguments).observation.id)
    finally:
        store.close()
    return Saved(ids)


def days_ago(days: float) -> datetime:
    return datetime.now(UTC) - timedelta(days=days)


# --- reading answers ------------------------------------------------------------------------


def texts(result: CallToolResult) -> list[str]:
    return [block.text for block in result.content if isinstance(block, TextContent)]


def text_of(result: CallToolResult) -> str:
    assert not result.is_error, texts(result)
    return texts(result)[0]


def data_of(result: CallToolResult) -> dict[str, Any]:
    """``JSON.parse(result.content[0].text)``, as the seed's own tests read an answer."""
    value = json.loads(text_of(result))
    assert isinstance(value, dict), value
    return value


def error_of(result: CallToolResult) -> str:
    assert result.is_error, texts(result)
    return texts(result)[0]


async def call(client: Client, name: str, **arguments: Any) -> CallToolResult:
    return await client.call_tool(name, arguments)


async def tools_of(client: Client) -> dict[str, Any]:
    return {tool.name: tool for tool in (await client.list_tools()).tools}


def saved_id(answer: str) -> int:
    """The id in "Saved #12 (new) ..." (or any answer whose first '#' names the memory)."""
    return int(answer.split("#", 1)[1].split()[0].rstrip(".,;:)"))


# --- the memory tools, single or through the default profile's dispatcher --------------------

MEMORY_OPERATIONS = {
    "mem_session_start": "session_start",
    "mem_session_end": "session_end",
    "mem_save": "save",
    "mem_save_prompt": "save_prompt",
    "mem_update": "update",
    "mem_delete": "delete",
    "mem_stats": "stats",
    "mem_search": "search",
    "mem_context": "context",
    "mem_timeline": "timeline",
    "mem_get_observation": "get",
    "mem_get_observations": "get",
    "mem_compact": "compact",
    "sdd_get_context": "sdd_context",
    "sdd_context_check": "sdd_check",
}


@dataclass(frozen=True)
class Memory:
    """Calls a memory tool by its seed name: the single tool (full profile), or the same call
    as ``memory(operation=...)`` in the default profile."""

    client: Client
    dispatched: bool

    async def __call__(self, tool: str, **arguments: Any) -> CallToolResult:
        if not self.dispatched:
            return await call(self.client, tool, **arguments)
        return await call(self.client, "memory", operation=MEMORY_OPERATIONS[tool], **arguments)

    async def text(self, tool: str, **arguments: Any) -> str:
        return text_of(await self(tool, **arguments))


@pytest.fixture(params=["single", "dispatcher"])
async def memory(request: pytest.FixtureRequest) -> AsyncIterator[Memory]:
    """The memory tools in RAM, as single tools and through the ``memory`` dispatcher."""
    dispatched = request.param == "dispatcher"
    settings = memory_settings(profile=None if dispatched else "full")
    async with Client(build_server(settings)) as client:
        yield Memory(client, dispatched)
