"""The plugin's client talking plain HTTP to the emulator of one plugin version, recording
every request it sends: what the vault tests count requests with."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import httpx

from vaultgate.config import ObsidianSettings, Secret
from vaultgate.emulator.runner import start_emulator
from vaultgate.obsidian.client import ObsidianClient
from vaultgate.obsidian.transport import build_http_client


@asynccontextmanager
async def plugin_client(
    vault: Path, version: str
) -> AsyncIterator[tuple[ObsidianClient, list[str]]]:
    """The client, and "METHOD /raw/path" of every request it sends, in order."""
    with start_emulator(vault, plugin_version=version, https_port=None, http_port=0) as emulator:
        assert emulator.http_url is not None
        port = int(emulator.http_url.rsplit(":", 1)[1].rstrip("/"))
        settings = ObsidianSettings(api_key=Secret(emulator.api_key), protocol="http", port=port)
        requests: list[str] = []

        async def record(request: httpx.Request) -> None:
            requests.append(f"{request.method} {request.url.raw_path.decode()}")

        async with await build_http_client(settings) as http:
            http.event_hooks["request"].append(record)
            yield ObsidianClient(settings, http), requests
