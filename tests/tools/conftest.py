"""The server in-process, talking real HTTPS to the emulator on 127.0.0.1."""

from __future__ import annotations

import json
import shutil
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.types import CallToolResult, TextContent

from vaultgate.config import Settings
from vaultgate.emulator.runner import RunningEmulator, start_emulator
from vaultgate.server import build_server

FIXTURE_VAULT = Path(__file__).resolve().parents[2] / "fixtures" / "vault"


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    copy = tmp_path / "vault"
    shutil.copytree(FIXTURE_VAULT, copy)
    return copy


def settings_for(emulator: RunningEmulator, **env: str) -> Settings:
    """Settings for a server in front of ``emulator`` (every tool), ``env`` added."""
    assert emulator.https_url is not None
    return Settings.from_env(
        {
            "OBSIDIAN_API_KEY": emulator.api_key,
            "OBSIDIAN_PORT": emulator.https_url.rsplit(":", 1)[1],
            "OBSIDIAN_CERT": str(emulator.certificate_path),
            "VAULTGATE_TOOLS": "full",
            **env,
        }
    )


def folder_settings(vault: Path, **env: str) -> Settings:
    """Settings for a server on the vault folder itself (every tool, memory in RAM)."""
    return Settings.from_env(
        {
            "VAULTGATE_VAULT": str(vault),
            "VAULTGATE_BACKEND": "folder",
            "VAULTGATE_MEMORY_DB": ":memory:",
            "VAULTGATE_TOOLS": "full",
            **env,
        }
    )


def backend_settings(
    vault: Path, emulator_factory: EmulatorFactory, backend: str, **env: str
) -> Settings:
    """Settings for ``backend``: "folder" (``vault`` itself), or a plugin version's emulator
    (memory in RAM), ``env`` added."""
    if backend == "folder":
        return folder_settings(vault, **env)
    emulator = emulator_factory(plugin_version=backend)
    return settings_for(emulator, **{"VAULTGATE_MEMORY_DB": ":memory:", **env})


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


@pytest.fixture
def emulator(emulator_factory: EmulatorFactory) -> RunningEmulator:
    return emulator_factory()


ClientFactory = Callable[[RunningEmulator], AbstractAsyncContextManager[Client]]


@pytest.fixture
def connect() -> ClientFactory:
    @asynccontextmanager
    async def open_client(emulator: RunningEmulator) -> AsyncIterator[Client]:
        async with Client(build_server(settings_for(emulator))) as client:
            yield client

    return open_client


@pytest.fixture
async def client(emulator: RunningEmulator, connect: ClientFactory) -> AsyncIterator[Client]:
    async with connect(emulator) as connected:
        yield connected


def texts(result: CallToolResult) -> list[str]:
    return [block.text for block in result.content if isinstance(block, TextContent)]


def size(result: CallToolResult) -> int:
    return sum(len(t) for t in texts(result))


def payload(result: CallToolResult) -> dict[str, Any]:
    """The JSON of a list/search response (first block)."""
    assert not result.is_error, texts(result)
    value = json.loads(texts(result)[0])
    assert isinstance(value, dict)
    return value


def error_text(result: CallToolResult) -> str:
    assert result.is_error, texts(result)
    return texts(result)[0]


def vault_files(vault: Path) -> list[str]:
    """Every file the plugin would index: hidden folders excluded."""
    return sorted(
        path.relative_to(vault).as_posix()
        for path in vault.rglob("*")
        if path.is_file()
        and not any(part.startswith(".") for part in path.relative_to(vault).parts)
    )
